// SPDX-License-Identifier: GPL-2.0
/* expect: current_work() has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

bool shim_ct(struct work_struct *w);
bool shim_ct(struct work_struct *w)
{
	return current_work() == w;
}
