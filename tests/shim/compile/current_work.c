// SPDX-License-Identifier: GPL-2.0
/* expect: current_work() has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

static bool __maybe_unused shim_ct(struct work_struct *w)
{
	return current_work() == w;
}
