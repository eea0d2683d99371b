/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suites fwq_test.ko runs, in order. Each test file defines one
 * struct fwq_ktap_suite and adds it here.
 */
#ifndef _FWQ_TEST_SUITES_H
#define _FWQ_TEST_SUITES_H

#include <fwq/ktap.h>

extern const struct fwq_ktap_suite fwq_suite_module;
extern const struct fwq_ktap_suite fwq_suite_variant;
extern const struct fwq_ktap_suite fwq_suite_debugfs;

#define FWQ_TEST_SUITES		\
	&fwq_suite_module,	\
	&fwq_suite_variant,	\
	&fwq_suite_debugfs,

#endif /* _FWQ_TEST_SUITES_H */
