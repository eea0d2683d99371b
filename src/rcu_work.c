// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: RCU work items, queued once an RCU grace period has elapsed; Linux
 * 7.3's queue_rcu_work() and flush_rcu_work() on fwq's items. The RCU
 * callback holds a reference on the workqueue, as an armed delayed item's
 * timer does, so that a workqueue destroyed meanwhile is freed only after
 * the callback has refused the item.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>

#include "internal.h"

static void fwq_rcu_work_rcufn(struct rcu_head *rcu)
{
	struct fwq_rcu_work *rwork = container_of(rcu, struct fwq_rcu_work,
						  rcu);
	struct fwq_workqueue *wq = rwork->wq;
	unsigned long flags;

	/* __fwq_queue_work() wants IRQs off; RCU callbacks may run with them on */
	local_irq_save(flags);
	__fwq_queue_work(FWQ_CPU_UNBOUND, wq, &rwork->work);
	local_irq_restore(flags);
	/* the reference fwq_queue_rcu_work() took */
	fwq_wq_put(wq);
}

bool fwq_queue_rcu_work(struct fwq_workqueue *wq, struct fwq_rcu_work *rwork)
{
	struct fwq_work *work = &rwork->work;

	if (unlikely(!wq)) {
		atomic64_inc(&fwq_misuse_count);
		pr_err_ratelimited("queue_rcu_work %ps to a NULL workqueue\n",
				   work->func);
		return false;
	}
	if (test_and_set_bit(FWQ_WORK_STRUCT_PENDING_BIT,
			     (unsigned long *)&work->data))
		return false;
	/*
	 * An RCU work item cannot be disabled: mainline warns once when its
	 * inner item was; fwq refuses it with a log line and a count.
	 */
	if (unlikely(fwq_clear_pending_if_disabled(work))) {
		atomic64_inc(&fwq_misuse_count);
		pr_err_ratelimited("queue_rcu_work %ps: the item is disabled\n",
				   work->func);
		return false;
	}
	refcount_inc(&wq->ref);
	rwork->wq = wq;
	fwq_call_rcu_hurry(&rwork->rcu, fwq_rcu_work_rcufn);
	return true;
}
EXPORT_SYMBOL_GPL(fwq_queue_rcu_work);

bool fwq_flush_rcu_work(struct fwq_rcu_work *rwork)
{
	if (fwq_work_pending(&rwork->work)) {
		/* the callback may not have queued it yet: wait for it first */
		rcu_barrier();
		fwq_flush_work(&rwork->work);
		return true;
	}
	return fwq_flush_work(&rwork->work);
}
EXPORT_SYMBOL_GPL(fwq_flush_rcu_work);
