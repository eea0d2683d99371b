/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suites fwq_test.ko runs, in order. Each test file defines one
 * struct fwq_ktap_suite and adds it here and to Kbuild. The order goes
 * from the basic API to the machinery built on it; CPU hotplug and the
 * bad-input sweep come late. fwq_suite_baseline runs first and
 * fwq_suite_sanity last: it compares fwq's object counts with the
 * baseline and reads fwq's consistency checks for the whole run.
 */
#ifndef _FWQ_TEST_SUITES_H
#define _FWQ_TEST_SUITES_H

#include <fwq/ktap.h>

extern const struct fwq_ktap_suite fwq_suite_module;
extern const struct fwq_ktap_suite fwq_suite_baseline;
extern const struct fwq_ktap_suite fwq_suite_variant;
extern const struct fwq_ktap_suite fwq_suite_queue;
extern const struct fwq_ktap_suite fwq_suite_flush;
extern const struct fwq_ktap_suite fwq_suite_flushwalk;
extern const struct fwq_ktap_suite fwq_suite_cancel;
extern const struct fwq_ktap_suite fwq_suite_delayed;
extern const struct fwq_ktap_suite fwq_suite_ordered;
extern const struct fwq_ktap_suite fwq_suite_maxactive;
extern const struct fwq_ktap_suite fwq_suite_drain;
extern const struct fwq_ktap_suite fwq_suite_affinity;
extern const struct fwq_ktap_suite fwq_suite_cm;
extern const struct fwq_ktap_suite fwq_suite_wakecount;
extern const struct fwq_ktap_suite fwq_suite_cull;
extern const struct fwq_ktap_suite fwq_suite_rescuer;
extern const struct fwq_ktap_suite fwq_suite_hotplug;
extern const struct fwq_ktap_suite fwq_suite_debugfs;
extern const struct fwq_ktap_suite fwq_suite_sanity;

#define FWQ_TEST_SUITES		\
	&fwq_suite_module,	\
	&fwq_suite_baseline,	\
	&fwq_suite_variant,	\
	&fwq_suite_queue,	\
	&fwq_suite_flush,	\
	&fwq_suite_flushwalk,	\
	&fwq_suite_cancel,	\
	&fwq_suite_delayed,	\
	&fwq_suite_ordered,	\
	&fwq_suite_maxactive,	\
	&fwq_suite_drain,	\
	&fwq_suite_affinity,	\
	&fwq_suite_cm,		\
	&fwq_suite_wakecount,	\
	&fwq_suite_cull,	\
	&fwq_suite_rescuer,	\
	&fwq_suite_hotplug,	\
	&fwq_suite_debugfs,	\
	&fwq_suite_sanity,

#endif /* _FWQ_TEST_SUITES_H */
