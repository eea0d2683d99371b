// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: wake=wakeq, v2 of the deferred-wakeup series ("workqueue: Shrink
 * the lock time"): the picked worker's task goes on a private wake queue
 * with a task reference; the caller wakes it after dropping pool->lock
 * and then drops the reference. wake_q_add()/wake_up_q() are not exported
 * to modules, so the queue is fwq's own wake batch (src/wake.c).
 */
#include "ops.h"

static __always_inline void fwq_wake_wakeq_kick(struct fwq_pool *pool,
						struct fwq_worker *worker,
						struct fwq_wake_batch *wb,
						struct fwq_workqueue *wq,
						enum fwq_wake_site site)
{
	fwq_wake_batch_add(wb, worker->task, wq, site, true);
}

const struct fwq_wake_ops fwq_wake_wakeq_ops = {
	.desc = "the worker on a private wake queue, woken after pool->lock is dropped (v2)",
};
