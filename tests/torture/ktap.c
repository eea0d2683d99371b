// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_torture: the one KTAP result each run ends with, printed without the
 * module prefix so the guest's step runner can nest it.
 */
#define pr_fmt(fmt) fmt

#include <linux/printk.h>

#include "torture.h"

void tt_ktap_result(bool ok, const char *name, const char *detail)
{
	pr_info("KTAP version 1\n");
	pr_info("1..1\n");
	pr_info("%sok 1 %s # %s\n", ok ? "" : "not ", name, detail);
}
