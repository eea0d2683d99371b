// SPDX-License-Identifier: GPL-2.0
/* expect: incompatible pointer type */
#include <linux/module.h>
#include <linux/rhashtable.h>
#include <linux/workqueue.h>

/* a core object (rhashtable's deferred resize item) handed to fwq */
static bool __maybe_unused shim_ct(struct rhashtable *ht)
{
	return cancel_work_sync(&ht->run_work);
}
