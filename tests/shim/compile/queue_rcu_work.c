// SPDX-License-Identifier: GPL-2.0
/* expect: queue_rcu_work() has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

static int __maybe_unused shim_ct(struct workqueue_struct *wq, void *rw)
{
	return queue_rcu_work(wq, rw);
}
