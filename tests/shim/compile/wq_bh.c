// SPDX-License-Identifier: GPL-2.0
/* expect: WQ_BH has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

static struct workqueue_struct *__maybe_unused shim_ct(void)
{
	return alloc_workqueue("shim_ct", WQ_BH, 0);
}
