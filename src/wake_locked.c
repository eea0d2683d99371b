// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: wake=locked, the design before the deferred-wakeup series:
 * wake_up_process() right away, under pool->lock, so the scheduler's
 * runqueue lock nests inside it.
 */
#include "ops.h"

static __always_inline void fwq_wake_locked_kick(struct fwq_pool *pool,
						 struct fwq_worker *worker,
						 struct fwq_wake_batch *wb,
						 struct fwq_workqueue *wq,
						 enum fwq_wake_site site)
{
	fwq_wake_task(worker->task, wq, site);
}

const struct fwq_wake_ops fwq_wake_locked_ops = {
	.desc = "wake_up_process() under pool->lock, as before the deferred-wakeup series",
};
