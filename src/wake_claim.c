// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: wake=claim, the fix for the idle-cull race (docs/hazards.md, H1)
 * proposed in review of the deferred-wakeup series, instead of v2's
 * kicked list: the worker is claimed under pool->lock (moved off
 * idle_list, out of the idle cull's reach) and woken with
 * wake_up_process() after the unlock, at every kick site, without a task
 * reference (see the task lifetime rule in src/wake.c). Linux 7.3 merged
 * neither: it leaves the picked worker on idle_list (wake=pick).
 */
#include "ops.h"

static __always_inline void fwq_wake_claim_kick(struct fwq_pool *pool,
						struct fwq_worker *worker,
						struct fwq_wake_batch *wb,
						struct fwq_workqueue *wq,
						enum fwq_wake_site site)
{
	/*
	 * The claim: take the worker off the list it is on, so that no
	 * other kick picks it. It keeps WORKER_IDLE and its nr_idle count
	 * until worker_leave_idle(), whose list_del_init() is then a no-op.
	 * kicked_list=on then parks it on kicked_list all the same.
	 */
	list_del_init(&worker->entry);
	fwq_wake_batch_add(wb, worker->task, wq, site, false);
}

const struct fwq_wake_ops fwq_wake_claim_ops = {
	.desc = "the worker claimed off the idle list, woken after the unlock (all sites)",
};
