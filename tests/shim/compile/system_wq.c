// SPDX-License-Identifier: GPL-2.0
/* expect: system_wq has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

static void fn(struct work_struct *w) { }
static DECLARE_WORK(w, fn);

int shim_ct(void);
int shim_ct(void)
{
	return queue_work(system_wq, &w);
}
