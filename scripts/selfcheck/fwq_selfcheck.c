// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_selfcheck: misbehaves on purpose, so that "make selfcheck-harness"
 * can prove the VM harness turns each kind of misbehaviour into a failed
 * verdict. Never shipped and never part of a normal build.
 *
 * mode=ktapfail  print a KTAP document with one failing case, load fine
 * mode=warn      WARN() during module init, load fine
 * mode=pass      print a passing KTAP document (the control case)
 */
#define pr_fmt(fmt) fmt

#include <linux/bug.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

static char *mode = "pass";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "pass, ktapfail or warn");

static int __init fwq_selfcheck_init(void)
{
	if (!strcmp(mode, "warn")) {
		WARN(1, "fwq_selfcheck: deliberate WARN for the harness self-check\n");
		return 0;
	}
	if (strcmp(mode, "pass") && strcmp(mode, "ktapfail")) {
		pr_err("fwq_selfcheck: unknown mode '%s'\n", mode);
		return -EINVAL;
	}
	pr_info("KTAP version 1\n");
	pr_info("1..1\n");
	pr_info("    KTAP version 1\n");
	pr_info("    # Subtest: fwq_selfcheck\n");
	pr_info("    1..2\n");
	pr_info("    ok 1 always_passes\n");
	if (!strcmp(mode, "ktapfail")) {
		pr_info("    # deliberate failure for the harness self-check\n");
		pr_info("    not ok 2 fails_on_purpose\n");
		pr_info("not ok 1 fwq_selfcheck\n");
	} else {
		pr_info("    ok 2 fails_on_purpose # SKIP mode=pass\n");
		pr_info("ok 1 fwq_selfcheck\n");
	}
	/* Loads fine either way: the verdict must come from the KTAP. */
	return 0;
}

static void __exit fwq_selfcheck_exit(void)
{
}

module_init(fwq_selfcheck_init);
module_exit(fwq_selfcheck_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq harness self-check (deliberately failing module)");
MODULE_INFO(test, "Y");
