// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: cancel through grab-pending, the disable depth, mod/cancel of delayed
 * work, work_busy.
 *
 * A sync cancel disables the item while it waits (disable depth in the
 * off-queue data), so requeue attempts fail and a self-requeueing item
 * stops; it re-enables the item afterwards. This is mainline's scheme, which
 * replaced 6.1's CANCELING flag.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "internal.h"

/*
 * Try to take PENDING of @work.
 * Return: 1 if it was pending and is now stolen (timer deleted or unlinked
 * from a list), 0 if it was idle and PENDING is now ours, -EAGAIN if
 * someone is mid-queue (retry). On 0 and 1, IRQs stay disabled and
 * *@flags holds the state to restore.
 */
static int fwq_try_to_grab_pending(struct fwq_work *work, bool is_dwork,
				   unsigned long *flags)
{
	struct fwq_wake_batch wb __uninitialized;
	struct fwq_pool *pool;
	struct fwq_pwq *pwq;

	fwq_wake_batch_init(&wb);
	local_irq_save(*flags);

	if (is_dwork) {
		struct fwq_delayed_work *dwork = to_fwq_delayed_work(work);

		if (likely(fwq_timer_delete(&dwork->timer))) {
			/* drop the reference the armed timer held */
			fwq_wq_put(dwork->wq);
			return 1;
		}
	}

	if (!test_and_set_bit(FWQ_WORK_STRUCT_PENDING_BIT,
			      (unsigned long *)&work->data))
		return 0;

	rcu_read_lock();
	pool = fwq_get_work_pool(work);
	if (!pool)
		goto fail;

	fwq_pool_lock(pool);
	pwq = fwq_work_pwq(work);
	if (pwq && pwq->pool == pool) {
		unsigned long work_data = fwq_work_data(work);

		/*
		 * An inactive item may have linked barriers: move them to
		 * the worklist so they do not strand on inactive_works. The
		 * INACTIVE bit stays in work_data, so the decrement below
		 * leaves nr_active alone.
		 */
		if (work_data & FWQ_WORK_STRUCT_INACTIVE)
			fwq_move_linked_works(work, &pool->worklist, NULL);
		list_del_init(&work->entry);
		fwq_set_work_pool_and_keep_pending(work, pool->id);
		fwq_pwq_dec_nr_in_flight(pwq, work_data, &wb);
		fwq_pool_unlock(pool);
		fwq_wake_batch_issue(&wb);
		rcu_read_unlock();
		return 1;
	}
	fwq_pool_unlock(pool);
fail:
	rcu_read_unlock();
	local_irq_restore(*flags);
	return -EAGAIN;
}

static int fwq_work_grab_pending(struct fwq_work *work, bool is_dwork,
				 unsigned long *flags)
{
	int ret;

	while ((ret = fwq_try_to_grab_pending(work, is_dwork, flags)) == -EAGAIN)
		cpu_relax();
	return ret;
}

/*
 * Cancel: grab PENDING, optionally bump the disable depth, release PENDING.
 * Return: whether @work was pending, or -EBUSY on a depth overflow.
 */
static int __fwq_cancel_work(struct fwq_work *work, bool is_dwork,
			     bool disable)
{
	unsigned long flags, data, depth;
	int ret;

	ret = fwq_work_grab_pending(work, is_dwork, &flags);
	data = fwq_work_data(work);
	depth = fwq_offq_disable(data);
	if (disable) {
		if (depth == FWQ_WORK_OFFQ_DISABLE_MAX) {
			atomic64_inc(&fwq_misuse_count);
			pr_err_ratelimited("disable depth overflow on %ps\n",
					   work->func);
			ret = -EBUSY;
		} else {
			depth++;
		}
	}
	fwq_set_work_pool_and_clear_pending(work, fwq_offq_pool_id(data),
					    depth);
	local_irq_restore(flags);
	return ret;
}

/*
 * Drop one disable level; true when the item is enabled again. An item
 * that is not disabled is API misuse: one log line, and nothing changes.
 */
static bool __fwq_enable_work(struct fwq_work *work)
{
	unsigned long flags, data, depth;

	fwq_work_grab_pending(work, false, &flags);
	data = fwq_work_data(work);
	depth = fwq_offq_disable(data);
	if (depth) {
		depth--;
	} else {
		atomic64_inc(&fwq_misuse_count);
		pr_err_ratelimited("enable of %ps, which is not disabled\n",
				   work->func);
	}
	fwq_set_work_pool_and_clear_pending(work, fwq_offq_pool_id(data),
					    depth);
	local_irq_restore(flags);
	return !depth;
}

/* disable and wait for a running instance; the sync forms' first half */
static int __fwq_disable_work_sync(struct fwq_work *work, bool is_dwork)
{
	int ret;

	might_sleep();
	ret = __fwq_cancel_work(work, is_dwork, true);
	if (ret >= 0)
		__fwq_flush_work(work, true);
	return ret;
}

static bool __fwq_cancel_work_sync(struct fwq_work *work, bool is_dwork)
{
	int ret = __fwq_disable_work_sync(work, is_dwork);

	if (ret < 0)
		return false;
	__fwq_enable_work(work);
	return ret;
}

bool fwq_cancel_work(struct fwq_work *work)
{
	return __fwq_cancel_work(work, false, false) > 0;
}
EXPORT_SYMBOL_GPL(fwq_cancel_work);

bool fwq_cancel_work_sync(struct fwq_work *work)
{
	return __fwq_cancel_work_sync(work, false);
}
EXPORT_SYMBOL_GPL(fwq_cancel_work_sync);

bool fwq_cancel_delayed_work(struct fwq_delayed_work *dwork)
{
	return __fwq_cancel_work(&dwork->work, true, false) > 0;
}
EXPORT_SYMBOL_GPL(fwq_cancel_delayed_work);

bool fwq_cancel_delayed_work_sync(struct fwq_delayed_work *dwork)
{
	return __fwq_cancel_work_sync(&dwork->work, true);
}
EXPORT_SYMBOL_GPL(fwq_cancel_delayed_work_sync);

bool fwq_disable_work(struct fwq_work *work)
{
	return __fwq_cancel_work(work, false, true) > 0;
}
EXPORT_SYMBOL_GPL(fwq_disable_work);

bool fwq_disable_work_sync(struct fwq_work *work)
{
	return __fwq_disable_work_sync(work, false) > 0;
}
EXPORT_SYMBOL_GPL(fwq_disable_work_sync);

bool fwq_enable_work(struct fwq_work *work)
{
	return __fwq_enable_work(work);
}
EXPORT_SYMBOL_GPL(fwq_enable_work);

bool fwq_disable_delayed_work(struct fwq_delayed_work *dwork)
{
	return __fwq_cancel_work(&dwork->work, true, true) > 0;
}
EXPORT_SYMBOL_GPL(fwq_disable_delayed_work);

bool fwq_disable_delayed_work_sync(struct fwq_delayed_work *dwork)
{
	return __fwq_disable_work_sync(&dwork->work, true) > 0;
}
EXPORT_SYMBOL_GPL(fwq_disable_delayed_work_sync);

bool fwq_enable_delayed_work(struct fwq_delayed_work *dwork)
{
	return __fwq_enable_work(&dwork->work);
}
EXPORT_SYMBOL_GPL(fwq_enable_delayed_work);

bool fwq_mod_delayed_work_on(int cpu, struct fwq_workqueue *wq,
			     struct fwq_delayed_work *dwork,
			     unsigned long delay)
{
	struct fwq_work *work = &dwork->work;
	unsigned long flags;
	int ret;

	if (!wq || (cpu != FWQ_CPU_UNBOUND &&
		    (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu)))) {
		atomic64_inc(&fwq_misuse_count);
		pr_err_ratelimited("mod_delayed_work with a bad cpu %d or NULL workqueue\n",
				   cpu);
		return false;
	}

	ret = fwq_work_grab_pending(work, true, &flags);
	if (!fwq_clear_pending_if_disabled(work))
		__fwq_queue_delayed_work(cpu, wq, dwork, delay);
	local_irq_restore(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(fwq_mod_delayed_work_on);

bool fwq_flush_delayed_work(struct fwq_delayed_work *dwork)
{
	unsigned long flags;

	/* on itself, with its timer armed: refused before the timer is touched */
	if (fwq_refuse_self_flush(&dwork->work, false))
		return false;
	local_irq_save(flags);
	if (fwq_timer_delete_sync(&dwork->timer)) {
		struct fwq_workqueue *wq = dwork->wq;

		__fwq_queue_work(dwork->cpu, wq, &dwork->work);
		fwq_wq_put(wq);
	}
	local_irq_restore(flags);
	return fwq_flush_work(&dwork->work);
}
EXPORT_SYMBOL_GPL(fwq_flush_delayed_work);

unsigned int fwq_work_busy(struct fwq_work *work)
{
	struct fwq_pool *pool;
	unsigned long flags;
	unsigned int ret = 0;

	if (fwq_work_pending(work))
		ret |= FWQ_BUSY_PENDING;

	rcu_read_lock();
	pool = fwq_get_work_pool(work);
	if (pool) {
		raw_spin_lock_irqsave(&pool->lock, flags);
		if (fwq_find_worker_executing_work(pool, work))
			ret |= FWQ_BUSY_RUNNING;
		raw_spin_unlock_irqrestore(&pool->lock, flags);
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(fwq_work_busy);
