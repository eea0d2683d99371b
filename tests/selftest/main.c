// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_test: KTAP selftests for fwq.ko.
 *
 * Loading the module runs the suites selected by the filter parameter and
 * prints KTAP to the kernel log. Following the kselftest convention, the
 * load fails with -EINVAL when any case failed, so insmod's exit status is
 * the coarse verdict and the KTAP document is the fine one.
 */
#define pr_fmt(fmt) fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include <fwq/fwq.h>
#include "ktap.h"

#include "suites.h"
#include "util.h"

static char *filter = "";
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter, "a glob, or globs comma separated, over suite.case[.param] names to run (default: all)");

static unsigned int repeat = 1;
module_param(repeat, uint, 0444);
MODULE_PARM_DESC(repeat, "run the selection this many times, in one KTAP document (1..1000; the lockdep lane's 50 runs of the fault sweep and the stress loop)");

static char *axes = "wake,kicked,flush";
module_param(axes, charp, 0444);
MODULE_PARM_DESC(axes, "variant axes cases vary: wake,kicked,flush, a subset, or none; the rest take fwq's defaults (default: all)");

/* In run order; see suites.h. */
static const struct fwq_ktap_suite * const fwq_test_suites[] = {
	&fwq_suite_module,
	&fwq_suite_baseline,
	&fwq_suite_variant,
	&fwq_suite_queue,
	&fwq_suite_flush,
	&fwq_suite_flushwalk,
	&fwq_suite_cancel,
	&fwq_suite_delayed,
	&fwq_suite_rcu_work,
	&fwq_suite_onstack,
	&fwq_suite_system_wq,
	&fwq_suite_ordered,
	&fwq_suite_maxactive,
	&fwq_suite_drain,
	&fwq_suite_affinity,
	&fwq_suite_cm,
	&fwq_suite_wakecount,
	&fwq_suite_cull,
	&fwq_suite_watchdog,
	&fwq_suite_rescuer,
	&fwq_suite_current,
	&fwq_suite_hotplug,
	&fwq_suite_debugfs,
	&fwq_suite_faults,
	&fwq_suite_stress,
	&fwq_suite_sanity,
};

static int __init fwq_test_init(void)
{
	unsigned int passed = 0, failed = 0;

	if (fwqt_set_axes(axes)) {
		pr_err("fwq_test: invalid parameter axes=%s\n", axes);
		return -EINVAL;
	}
	if (repeat < 1 || repeat > 1000) {
		pr_err("fwq_test: invalid parameter repeat=%u (1..1000)\n",
		       repeat);
		return -EINVAL;
	}
	/* the suites assert the wakeup counters, which are off by default */
	fwq_counters_get();
	fwq_ktap_run(fwq_test_suites, ARRAY_SIZE(fwq_test_suites), filter,
		     repeat, &fwqt_balance_hooks, &passed, &failed);
	fwq_counters_put();
	pr_info("# fwq_test: %u passed, %u failed (axes %s)\n", passed, failed,
		axes);
	return failed ? -EINVAL : 0;
}

static void __exit fwq_test_exit(void)
{
}

module_init(fwq_test_init);
module_exit(fwq_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq selftests (KTAP)");
MODULE_VERSION(FWQ_VERSION);
MODULE_INFO(test, "Y");
