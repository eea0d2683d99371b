// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: wake=pick, Linux 7.3's own design (the deferred-wakeup series as
 * merged for 7.3, "workqueue: Shrink the lock time", with its follow-up
 * "annotate racy p->wake_cpu accesses in kick_pool_pick()").
 *
 * The kick picks the first idle worker and leaves it where it is, on
 * idle_list: no claim, no kicked list (7.3 has none; pair it with
 * kicked_list=off), so kicks that come before the picked worker runs pick
 * it again rather than a second worker. Only the two hot sites defer the
 * wakeup past pool->lock, __queue_work and the chain kick of
 * process_one_work; every other kick (activation, concurrency management,
 * the cull, the rescuer, hotplug) wakes under the lock, as 7.3's do, and
 * is counted as locked.
 *
 * Task lifetime: no task reference. The pick happens under pool->lock
 * with IRQs off, and the deferred wakeup is issued before preemption or
 * IRQs are on again (lockdep checks it there), so pick and
 * wakeup sit in one RCU read-side critical section. A worker the cull
 * reaps in between is released only a grace period after it exits, so
 * its task_struct is still there to be woken, in vain. The item it was
 * picked for is then stranded until the next kick: that is the H1 window
 * (docs/hazards.md), which 7.3's cull, taking only the idle list's tail,
 * keeps narrow, and which the H1 reproducer widens on purpose.
 */
#include "ops.h"

static __always_inline void fwq_wake_pick_kick(struct fwq_pool *pool,
					       struct fwq_worker *worker,
					       struct fwq_wake_batch *wb,
					       struct fwq_workqueue *wq,
					       enum fwq_wake_site site)
{
	if (site == FWQ_SITE_QUEUE || site == FWQ_SITE_CHAIN)
		fwq_wake_batch_add(wb, worker->task, wq, site, false);
	else
		fwq_wake_task(worker->task, wq, site);
}

const struct fwq_wake_ops fwq_wake_pick_ops = {
	.desc = "the worker left idle, woken after the unlock at queue and chain only (Linux 7.3)",
};
