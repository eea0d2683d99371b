// SPDX-License-Identifier: GPL-2.0
/* expect: system_freezable_wq has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

static void fn(struct work_struct *w) { }
static DECLARE_WORK(w, fn);

static int __maybe_unused shim_ct(void)
{
	return queue_work(system_freezable_wq, &w);
}
