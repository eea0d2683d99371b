// SPDX-License-Identifier: GPL-2.0
/* expect: schedule_delayed_work() has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

static void fn(struct work_struct *w) { }
static DECLARE_DELAYED_WORK(dw, fn);

static int __maybe_unused shim_ct(void)
{
	return schedule_delayed_work(&dw, 1);
}
