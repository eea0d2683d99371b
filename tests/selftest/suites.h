/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suites fwq_test.ko runs, in order. Each test file defines one
 * struct fwq_ktap_suite with FWQ_KTAP_SUITE(), declares it here, lists it
 * in fwq_test_suites[] (main.c) and adds its object to Kbuild. The order goes
 * from the basic API to the machinery built on it; CPU hotplug, the
 * allocation-failure sweep and the stress loop come late. fwq_suite_baseline runs first and
 * fwq_suite_sanity last: it compares fwq's object counts with the
 * baseline and reads fwq's consistency checks for the whole run.
 * fwqt_balance_hooks compare the same counts around every case.
 */
#ifndef _FWQ_TEST_SUITES_H
#define _FWQ_TEST_SUITES_H

#include "ktap.h"

extern const struct fwq_ktap_suite fwq_suite_module;
extern const struct fwq_ktap_suite fwq_suite_baseline;
extern const struct fwq_ktap_suite fwq_suite_variant;
extern const struct fwq_ktap_suite fwq_suite_queue;
extern const struct fwq_ktap_suite fwq_suite_flush;
extern const struct fwq_ktap_suite fwq_suite_flushwalk;
extern const struct fwq_ktap_suite fwq_suite_cancel;
extern const struct fwq_ktap_suite fwq_suite_delayed;
extern const struct fwq_ktap_suite fwq_suite_rcu_work;
extern const struct fwq_ktap_suite fwq_suite_onstack;
extern const struct fwq_ktap_suite fwq_suite_system_wq;
extern const struct fwq_ktap_suite fwq_suite_ordered;
extern const struct fwq_ktap_suite fwq_suite_maxactive;
extern const struct fwq_ktap_suite fwq_suite_drain;
extern const struct fwq_ktap_suite fwq_suite_affinity;
extern const struct fwq_ktap_suite fwq_suite_cm;
extern const struct fwq_ktap_suite fwq_suite_wakecount;
extern const struct fwq_ktap_suite fwq_suite_cull;
extern const struct fwq_ktap_suite fwq_suite_watchdog;
extern const struct fwq_ktap_suite fwq_suite_rescuer;
extern const struct fwq_ktap_suite fwq_suite_current;
extern const struct fwq_ktap_suite fwq_suite_hotplug;
extern const struct fwq_ktap_suite fwq_suite_debugfs;
extern const struct fwq_ktap_suite fwq_suite_faults;
extern const struct fwq_ktap_suite fwq_suite_stress;
extern const struct fwq_ktap_suite fwq_suite_sanity;

/* around every case: no workqueue, pwq, unbound pool or rescuer left */
extern const struct fwq_ktap_hooks fwqt_balance_hooks;

#endif /* _FWQ_TEST_SUITES_H */
