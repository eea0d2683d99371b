// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: flush_work() and the barrier item it waits on. A barrier is a work
 * item inserted right after the target (onto the worker already running
 * it, or behind it on the worklist, linked so that they move together)
 * that completes when it runs; cancel_work_sync() flushes through here too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "internal.h"
#include "ops.h"

struct fwq_barrier {
	struct fwq_work work;
	struct completion done;
	struct task_struct *task;
};

static void fwq_barrier_func(struct fwq_work *work)
{
	struct fwq_barrier *barr = container_of(work, struct fwq_barrier, work);
	struct fwq_worker *worker = fwq_current_worker();

	fwq_wake_complete(&barr->done, barr->task,
			  worker && worker->current_pwq ?
			  worker->current_pwq->wq : NULL);
}

/*
 * Queue @barr right after @target: at the head of @worker's scheduled list
 * when @target is running there, else linked behind @target on its list.
 */
static void fwq_insert_wq_barrier(struct fwq_pwq *pwq,
				  struct fwq_barrier *barr,
				  struct fwq_work *target,
				  struct fwq_worker *worker)
{
	unsigned long work_flags = FWQ_WORK_STRUCT_INACTIVE;
	struct list_head *head;
	int color;

	FWQ_INIT_WORK(&barr->work, fwq_barrier_func);
	atomic_long_or(FWQ_WORK_STRUCT_PENDING, &barr->work.data);
	init_completion(&barr->done);
	barr->task = current;

	if (worker) {
		head = worker->scheduled.next;
		color = worker->current_color;
	} else {
		unsigned long *bits = (unsigned long *)&target->data;

		head = target->entry.next;
		color = fwq_work_color(fwq_work_data(target));
		work_flags |= fwq_work_data(target) & FWQ_WORK_STRUCT_LINKED;
		set_bit(FWQ_WORK_STRUCT_LINKED_BIT, bits);
	}

	/*
	 * A strategy that tracks pwqs needs no hook here: the item in flight
	 * that the barrier follows keeps its pwq tracked.
	 */
	fwq_check(!pwq->wq->flush_ops->enqueue ||
		  !list_empty(&pwq->flush_node),
		  "barrier on an untracked pwq of %s", pwq->wq->name);

	pwq->nr_in_flight[color]++;
	pwq->total_in_flight++;
	work_flags |= (unsigned long)color << FWQ_WORK_STRUCT_COLOR_SHIFT;
	fwq_insert_work(pwq, &barr->work, head, work_flags);
}

/*
 * The flush of @work waits for @work, and, on a workqueue where one item
 * can wait for another (one at a time, or a rescuer that serves the items
 * one by one under memory pressure), for @wq too. A cancel waits only for
 * @work. As mainline's touch_work_lockdep_map() and touch_wq_lockdep_map().
 */
static void fwq_lockdep_touch_flush_work(struct fwq_work *work,
					 struct fwq_workqueue *wq,
					 bool from_cancel)
{
	if (!IS_ENABLED(CONFIG_LOCKDEP))
		return;		/* no volatile read of max_active for nothing */
	fwq_lockdep_touch_work(work);
	if (!from_cancel && (READ_ONCE(wq->saved_max_active) == 1 ||
			     (wq->flags & FWQ_MEM_RECLAIM)))
		fwq_lockdep_touch_wq(wq);
}

/**
 * fwq_refuse_self_flush - refuse a flush of the item this thread runs
 * @work: the item to be flushed
 * @from_cancel: the flush is a cancel's
 *
 * The item would wait for itself, whether or not it has queued itself
 * again (then it has a pwq, and a lookup by pwq finds only the queued
 * instance, which runs after this one returns): in mainline a sleeping
 * hang that lockdep reports. fwq touches the same lockdep maps, then
 * refuses with one log line, counted as misuse.
 *
 * Return: true if refused.
 */
bool fwq_refuse_self_flush(struct fwq_work *work, bool from_cancel)
{
	struct fwq_worker *worker = fwq_current_worker();

	/*
	 * The function too, as mainline's find_worker_executing_work(): an
	 * item freed by its function and reused for another at the same
	 * address is not the running one
	 */
	if (likely(!worker || worker->current_work != work ||
		   worker->current_func != work->func))
		return false;
	fwq_lockdep_touch_flush_work(work, worker->current_pwq->wq,
				     from_cancel);
	atomic64_inc(&fwq_misuse_count);
	pr_err_ratelimited("%ps flushes itself: refused\n", work->func);
	return true;
}

static bool fwq_start_flush_work(struct fwq_work *work,
				 struct fwq_barrier *barr, bool from_cancel)
{
	struct fwq_worker *worker = NULL;
	struct fwq_workqueue *wq;
	struct fwq_pool *pool;
	struct fwq_pwq *pwq;

	if (fwq_refuse_self_flush(work, from_cancel))
		return false;

	rcu_read_lock();
	pool = fwq_get_work_pool(work);
	if (!pool) {
		rcu_read_unlock();
		return false;
	}

	fwq_pool_lock_irq(pool);
	pwq = fwq_work_pwq(work);
	if (pwq) {
		if (unlikely(pwq->pool != pool))
			goto already_gone;
	} else {
		worker = fwq_find_worker_executing_work(pool, work);
		if (!worker)
			goto already_gone;
		pwq = worker->current_pwq;
	}

	wq = pwq->wq;
	fwq_insert_wq_barrier(pwq, barr, work, worker);
	fwq_pool_unlock_irq(pool);
	/* the barrier keeps the pwq, and so @wq, alive */
	fwq_lockdep_touch_flush_work(work, wq, from_cancel);
	fwq_check_flush_dependency(wq, work, from_cancel);
	rcu_read_unlock();
	return true;
already_gone:
	fwq_pool_unlock_irq(pool);
	rcu_read_unlock();
	return false;
}

bool __fwq_flush_work(struct fwq_work *work, bool from_cancel)
{
	struct fwq_barrier barr;

	might_sleep();
	if (fwq_start_flush_work(work, &barr, from_cancel)) {
		wait_for_completion(&barr.done);
		return true;
	}
	return false;
}

bool fwq_flush_work(struct fwq_work *work)
{
	return __fwq_flush_work(work, false);
}
EXPORT_SYMBOL_GPL(fwq_flush_work);
