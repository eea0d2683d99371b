// SPDX-License-Identifier: GPL-2.0
/* expect: flush_scheduled_work() has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

static void __maybe_unused shim_ct(void)
{
	flush_scheduled_work();
}
