// SPDX-License-Identifier: GPL-2.0
/* expect: set_worker_desc() has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

static void __maybe_unused shim_ct(void)
{
	set_worker_desc("shim_ct");
}
