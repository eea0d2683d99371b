// SPDX-License-Identifier: GPL-2.0
/* expect: struct rcu_work has no fwq equivalent */
#include <linux/module.h>
#include <linux/workqueue.h>

struct shim_ct {
	struct rcu_work rw;
};

static int __maybe_unused shim_ct(struct shim_ct *s)
{
	return sizeof(*s);
}
