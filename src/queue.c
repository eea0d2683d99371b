// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: enqueue, pwq choice, nr_active (per-CPU and per-node), in-flight
 * accounting, delayed-work timers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/topology.h>

#include <linux/sched/clock.h>

#include "dbg.h"
#include "internal.h"
#include "ops.h"
#include "fwq_trace.h"

void fwq_set_work_pwq(struct fwq_work *work, struct fwq_pwq *pwq,
		      unsigned long flags)
{
	atomic_long_set(&work->data, (unsigned long)pwq |
			FWQ_WORK_STRUCT_PENDING | FWQ_WORK_STRUCT_PWQ | flags);
}

void fwq_set_work_pool_and_keep_pending(struct fwq_work *work, int pool_id)
{
	atomic_long_set(&work->data, fwq_mk_offq(pool_id, 0) |
			FWQ_WORK_STRUCT_PENDING);
}

void fwq_set_work_pool_and_clear_pending(struct fwq_work *work, int pool_id,
					 unsigned long disable)
{
	/*
	 * Everything before this store must be visible to whoever sees
	 * PENDING clear and requeues; the full barrier after it orders the
	 * clear against the function's loads (the kernel's event_indicated
	 * argument).
	 */
	smp_wmb();
	atomic_long_set(&work->data, fwq_mk_offq(pool_id, disable));
	smp_mb();	/* the clear before the function's loads, see above */
}

/**
 * fwq_get_work_pool - the pool a work item is queued on or last ran on
 * @work: the work item
 *
 * Context: RCU read-side section or a pool lock held.
 */
struct fwq_pool *fwq_get_work_pool(struct fwq_work *work)
{
	unsigned long data = fwq_work_data(work);
	unsigned long id;

	if (data & FWQ_WORK_STRUCT_PWQ)
		return ((struct fwq_pwq *)(data & FWQ_WORK_STRUCT_WQ_DATA_MASK))->pool;
	id = fwq_offq_pool_id(data);
	if (id == FWQ_WORK_OFFQ_POOL_NONE)
		return NULL;
	return idr_find(&fwq_pool_idr, id);
}

void fwq_get_pwq(struct fwq_pwq *pwq)
{
	lockdep_assert_held(&pwq->pool->lock);
	fwq_check(pwq->refcnt > 0, "get on dead pwq");
	pwq->refcnt++;
}

void fwq_put_pwq(struct fwq_pwq *pwq)
{
	lockdep_assert_held(&pwq->pool->lock);
	if (--pwq->refcnt)
		return;
	/* the release sleeps: bounce it to the release kthread_worker */
	if (kthread_queue_work(fwq_release_worker, &pwq->release_work))
		fwq_wake_count(fwq_release_worker->task, pwq->wq,
			       FWQ_SITE_RELEASE);
}

void fwq_put_pwq_unlocked(struct fwq_pwq *pwq)
{
	if (!pwq)
		return;
	fwq_pool_lock_irq(pwq->pool);
	fwq_put_pwq(pwq);
	fwq_pool_unlock_irq(pwq->pool);
}

void fwq_insert_work(struct fwq_pwq *pwq, struct fwq_work *work,
		     struct list_head *head, unsigned long extra_flags)
{
	fwq_set_work_pwq(work, pwq, extra_flags);
	list_add_tail(&work->entry, head);
	fwq_get_pwq(pwq);
}

static bool fwq_tryinc_node_nr_active(struct fwq_nna *nna)
{
	int max = READ_ONCE(nna->max);
	int old = atomic_read(&nna->nr);

	while (old < max) {
		if (atomic_try_cmpxchg_relaxed(&nna->nr, &old, old + 1))
			return true;
	}
	return false;
}

/**
 * fwq_pwq_tryinc_nr_active - try to take an nr_active slot
 * @pwq: the pwq, its pool locked
 * @fill: max_active was raised: ignore the queue of pending pwqs
 *
 * Per-CPU workqueues count per pwq. Unbound ones share a per-node count;
 * when it is full the pwq waits on nna->pending_pwqs, and the completion
 * path hands it the next free slot.
 */
bool fwq_pwq_tryinc_nr_active(struct fwq_pwq *pwq, bool fill)
{
	struct fwq_workqueue *wq = pwq->wq;
	struct fwq_nna *nna = fwq_wq_nna(wq, pwq->pool);
	bool obtained = false;

	lockdep_assert_held(&pwq->pool->lock);

	if (!nna) {
		obtained = pwq->nr_active < READ_ONCE(wq->max_active);
		goto out;
	}
	if (unlikely(pwq->plugged))
		return false;

	/* already waiting: the completion path keeps the level, no jumping */
	if (!list_empty(&pwq->pending_node) && likely(!fill))
		goto out;

	obtained = fwq_tryinc_node_nr_active(nna);
	if (obtained)
		goto out;

	raw_spin_lock(&nna->lock);
	if (list_empty(&pwq->pending_node))
		list_add_tail(&pwq->pending_node, &nna->pending_pwqs);
	else if (likely(!fill))
		goto out_unlock;

	/* pairs with atomic_dec_return() in fwq_pwq_dec_nr_active() */
	smp_mb();
	obtained = fwq_tryinc_node_nr_active(nna);
	if (obtained && likely(!fill))
		list_del_init(&pwq->pending_node);
out_unlock:
	raw_spin_unlock(&nna->lock);
out:
	if (obtained)
		pwq->nr_active++;
	return obtained;
}

static bool fwq_pwq_activate_work(struct fwq_pwq *pwq, struct fwq_work *work)
{
	struct fwq_pool *pool = pwq->pool;

	if (!(fwq_work_data(work) & FWQ_WORK_STRUCT_INACTIVE))
		return false;
	trace_fwq_activate_work(work);
	if (list_empty(&pool->worklist))
		pool->last_progress_ts = jiffies;
	fwq_move_linked_works(work, &pool->worklist, NULL);
	atomic_long_andnot(FWQ_WORK_STRUCT_INACTIVE, &work->data);
	return true;
}

bool fwq_pwq_activate_first_inactive(struct fwq_pwq *pwq, bool fill)
{
	struct fwq_work *work;

	work = list_first_entry_or_null(&pwq->inactive_works, struct fwq_work,
					entry);
	if (work && fwq_pwq_tryinc_nr_active(pwq, fill)) {
		fwq_pwq_activate_work(pwq, work);
		return true;
	}
	return false;
}

/*
 * Give a freed per-node slot to the first pending pwq. That pwq may belong
 * to another pool: switch pool locks with a trylock, or drop everything and
 * relock in order. Returns with @caller_pool locked again.
 */
static void fwq_node_activate_pending_pwq(struct fwq_nna *nna,
					  struct fwq_pool *caller_pool,
					  struct fwq_wake_batch *wb)
	__releases(&caller_pool->lock) __acquires(&caller_pool->lock)
{
	struct fwq_pool *locked_pool = caller_pool;
	struct fwq_pwq *pwq;
	struct fwq_work *work;

	raw_spin_lock(&nna->lock);
retry:
	pwq = list_first_entry_or_null(&nna->pending_pwqs, struct fwq_pwq,
				       pending_node);
	if (!pwq)
		goto out_unlock;

	if (pwq->pool != locked_pool) {
		fwq_pool_unlock(locked_pool);
		locked_pool = pwq->pool;
		if (!fwq_pool_trylock(locked_pool)) {
			raw_spin_unlock(&nna->lock);
			fwq_pool_lock(locked_pool);
			raw_spin_lock(&nna->lock);
			goto retry;
		}
	}

	work = list_first_entry_or_null(&pwq->inactive_works, struct fwq_work,
					entry);
	if (!work) {
		list_del_init(&pwq->pending_node);
		goto retry;
	}

	if (likely(fwq_tryinc_node_nr_active(nna))) {
		pwq->nr_active++;
		fwq_pwq_activate_work(pwq, work);
		if (list_empty(&pwq->inactive_works))
			list_del_init(&pwq->pending_node);
		else
			list_move_tail(&pwq->pending_node, &nna->pending_pwqs);
		/*
		 * Kick only another pool, as mainline: in the caller's own
		 * pool the worker that freed the slot (or the one already
		 * kicked for the item it took back) runs the item next.
		 */
		if (pwq->pool != caller_pool)
			fwq_kick_pool(pwq->pool, wb, pwq->wq,
				      FWQ_SITE_ACTIVATE);
	}
out_unlock:
	raw_spin_unlock(&nna->lock);
	if (locked_pool != caller_pool) {
		fwq_pool_unlock(locked_pool);
		fwq_pool_lock(caller_pool);
	}
}

static void fwq_pwq_dec_nr_active(struct fwq_pwq *pwq,
				  struct fwq_wake_batch *wb)
{
	struct fwq_pool *pool = pwq->pool;
	struct fwq_nna *nna = fwq_wq_nna(pwq->wq, pool);

	lockdep_assert_held(&pool->lock);

	pwq->nr_active--;
	fwq_check(pwq->nr_active >= 0, "pwq nr_active negative");

	/* per CPU: the item lands in this pool; no kick, as above */
	if (!nna) {
		fwq_pwq_activate_first_inactive(pwq, false);
		return;
	}

	/* full barrier: pairs with the smp_mb() in tryinc */
	if (atomic_dec_return(&nna->nr) >= READ_ONCE(nna->max))
		return;
	if (!list_empty(&nna->pending_pwqs))
		fwq_node_activate_pending_pwq(nna, pool, wb);
}

/**
 * fwq_pwq_dec_nr_in_flight - an item left the pwq (finished or stolen)
 * @pwq: the pwq, its pool locked
 * @work_data: the item's data word while it was queued
 * @wb: wake batch for kicks; the caller issues it after unlocking
 *
 * Must be the caller's last step under pool->lock: it may drop and retake
 * it, and it may release @pwq.
 */
void fwq_pwq_dec_nr_in_flight(struct fwq_pwq *pwq, unsigned long work_data,
			      struct fwq_wake_batch *wb)
{
	int color = fwq_work_color(work_data);
	struct fwq_workqueue *wq = pwq->wq;

	if (!(work_data & FWQ_WORK_STRUCT_INACTIVE))
		fwq_pwq_dec_nr_active(pwq, wb);

	pwq->nr_in_flight[color]--;
	pwq->total_in_flight--;
	fwq_check(pwq->nr_in_flight[color] >= 0 && pwq->total_in_flight >= 0,
		  "pwq in-flight count negative");

	if (likely(pwq->flush_color != color))
		goto out_put;
	if (pwq->nr_in_flight[color])
		goto out_put;

	/* this pwq is done with the flush color */
	pwq->flush_color = -1;
	if (atomic_dec_and_test(&wq->nr_pwqs_to_flush))
		fwq_wake_complete(&wq->first_flusher->done,
				  wq->first_flusher->task, wq);
out_put:
	fwq_put_pwq(pwq);
}

static bool fwq_is_chained_work(struct fwq_workqueue *wq)
{
	struct fwq_worker *worker = fwq_current_worker();

	return worker && worker->current_pwq && worker->current_pwq->wq == wq;
}

static void fwq_reject_work(struct fwq_workqueue *wq, struct fwq_work *work,
			    const char *why)
{
	unsigned long data = fwq_work_data(work);

	atomic64_inc(&fwq_misuse_count);
	this_cpu_inc(wq->pcpu_stats->rejected);
	if (!READ_ONCE(wq->dying_reported)) {
		WRITE_ONCE(wq->dying_reported, true);
		pr_err("queueing %ps to %s workqueue %s rejected\n", work->func,
		       why, wq->name);
	}
	fwq_set_work_pool_and_clear_pending(work, fwq_offq_pool_id(data), 0);
}

/**
 * __fwq_queue_work - queue a work item whose PENDING bit the caller owns
 * @req_cpu: CPU, or FWQ_CPU_UNBOUND for the local one
 * @wq: the workqueue
 * @work: the item
 *
 * Context: IRQs disabled.
 * Return: true if queued; false if rejected (dying workqueue), with PENDING
 * released.
 */
bool __fwq_queue_work(int req_cpu, struct fwq_workqueue *wq,
		      struct fwq_work *work)
{
	struct fwq_wake_batch wb __uninitialized;
	struct fwq_pool *last_pool, *pool;
	struct fwq_pwq *pwq;
	unsigned long work_flags;
	u64 t0 = 0, t1 = 0;
	int cpu;

	lockdep_assert_irqs_disabled();
	/*
	 * Not FWQ_WAKE_BATCH_INIT, and __uninitialized: with
	 * CONFIG_INIT_STACK_ALL_ZERO (Debian's) either zeroes all of it on
	 * every enqueue
	 */
	fwq_wake_batch_init(&wb);

	if (unlikely(READ_ONCE(wq->flags) &
		     (__FWQ_DESTROYING | __FWQ_DRAINING)) &&
	    !fwq_is_chained_work(wq)) {
		fwq_reject_work(wq, work, (READ_ONCE(wq->flags) &
					   __FWQ_DESTROYING) ?
				"a dying" : "a draining");
		return false;
	}

	rcu_read_lock();
retry:
	cpu = req_cpu == FWQ_CPU_UNBOUND ? raw_smp_processor_id() : req_cpu;
	pwq = rcu_dereference(*per_cpu_ptr(wq->cpu_pwq, cpu));
	if (unlikely(!pwq)) {
		rcu_read_unlock();
		fwq_reject_work(wq, work, "a destroyed");
		return false;
	}
	pool = pwq->pool;

	/*
	 * Non-reentrancy: if the item is still running on its last pool,
	 * queue it behind that run (on the same pwq), not elsewhere.
	 */
	last_pool = fwq_get_work_pool(work);
	/* lockstat's wait: the lock acquisitions from here on, not the lookups */
	if (fwq_lockstat_active())
		t0 = sched_clock();
	if (last_pool && last_pool != pool && !(wq->flags & __FWQ_ORDERED)) {
		struct fwq_worker *worker;

		fwq_pool_lock(last_pool);
		worker = fwq_find_worker_executing_work(last_pool, work);
		if (worker && worker->current_pwq->wq == wq) {
			pwq = worker->current_pwq;
			pool = last_pool;
		} else {
			fwq_pool_unlock(last_pool);
			fwq_pool_lock(pool);
		}
	} else {
		fwq_pool_lock(pool);
	}

	if (unlikely(!pwq->refcnt)) {
		/* released by a racing attrs change: pick the new one */
		fwq_pool_unlock(pool);
		cpu_relax();
		goto retry;
	}
	if (fwq_lockstat_active() && t0)
		t1 = sched_clock();

	trace_fwq_queue_work(req_cpu, pwq, work);

	/* a flush strategy that tracks pwqs learns of an untracked one */
	if (wq->flush_ops->enqueue && list_empty(&pwq->flush_node))
		wq->flush_ops->enqueue(pwq);

	pwq->nr_in_flight[pwq->work_color]++;
	pwq->total_in_flight++;
	work_flags = (unsigned long)pwq->work_color << FWQ_WORK_STRUCT_COLOR_SHIFT;
	this_cpu_inc(wq->pcpu_stats->queued);

	if (list_empty(&pwq->inactive_works) &&
	    fwq_pwq_tryinc_nr_active(pwq, false)) {
		if (list_empty(&pool->worklist))
			pool->last_progress_ts = jiffies;
		trace_fwq_activate_work(work);
		if (fwq_dbg_cm_sb_on()) {
			fwq_cm_dbg_sb_insert(pwq, work, work_flags, &wb);
		} else {
			fwq_insert_work(pwq, work, &pool->worklist, work_flags);
			fwq_kick_pool(pool, &wb, wq, FWQ_SITE_QUEUE);
		}
	} else {
		work_flags |= FWQ_WORK_STRUCT_INACTIVE;
		fwq_insert_work(pwq, work, &pwq->inactive_works, work_flags);
	}

	if (fwq_lockstat_active() && t1)
		fwq_lockstat_record(FWQ_LS_ENQUEUE, t1 - t0,
				    sched_clock() - t1);
	fwq_pool_unlock(pool);
	/* IRQs are still off: the deferred wakeups go out right here */
	fwq_wake_batch_issue(&wb);
	rcu_read_unlock();
	return true;
}

/**
 * fwq_clear_pending_if_disabled - release PENDING of a disabled item
 * @work: an item whose PENDING bit the caller just took
 *
 * Return: true if @work is disabled (and PENDING was released).
 */
bool fwq_clear_pending_if_disabled(struct fwq_work *work)
{
	unsigned long data = fwq_work_data(work);

	if (likely(!fwq_offq_disable(data)))
		return false;
	fwq_set_work_pool_and_clear_pending(work, fwq_offq_pool_id(data),
					    fwq_offq_disable(data));
	return true;
}

static noinline bool fwq_cpu_arg_bad(int cpu)
{
	atomic64_inc(&fwq_misuse_count);
	pr_err_ratelimited("queueing with a bad cpu %d or NULL workqueue\n",
			   cpu);
	return false;
}

/* the check inline, its refusal out of line: a few instructions a queue */
static __always_inline bool fwq_cpu_arg_ok(int cpu, struct fwq_workqueue *wq)
{
	if (likely(wq && (cpu == FWQ_CPU_UNBOUND ||
			  ((unsigned int)cpu < nr_cpu_ids &&
			   cpu_possible(cpu)))))
		return true;
	return fwq_cpu_arg_bad(cpu);
}

/**
 * fwq_take_pending_irqsave - common start of the queue_*_on entry points
 * @cpu: the cpu argument of the caller (checked)
 * @wq: the target workqueue (checked)
 * @work: the item to take PENDING of
 * @flags: where the IRQ state is saved
 *
 * Checks @cpu and @wq, turns IRQs off and tries to take PENDING of @work;
 * a disabled item gets PENDING released again. Always inlined: the entry
 * points are the hot path, and @flags stays in a register as it did
 * before the prologue was shared.
 *
 * Return: true with IRQs off (the old state in *@flags) when the caller
 * owns PENDING of an enabled item: it must queue @work and then
 * local_irq_restore(*@flags).  False with IRQs as they were when the
 * arguments are bad, @work was already pending or @work is disabled.
 */
static __always_inline bool
fwq_take_pending_irqsave(int cpu, struct fwq_workqueue *wq,
			 struct fwq_work *work, unsigned long *flags)
{
	if (!fwq_cpu_arg_ok(cpu, wq))
		return false;

	local_irq_save(*flags);
	if (!test_and_set_bit(FWQ_WORK_STRUCT_PENDING_BIT,
			      (unsigned long *)&work->data) &&
	    !fwq_clear_pending_if_disabled(work))
		return true;
	local_irq_restore(*flags);
	return false;
}

bool fwq_queue_work_on(int cpu, struct fwq_workqueue *wq,
		       struct fwq_work *work)
{
	unsigned long flags;
	bool ret;

	if (!fwq_take_pending_irqsave(cpu, wq, work, &flags))
		return false;
	ret = __fwq_queue_work(cpu, wq, work);
	local_irq_restore(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(fwq_queue_work_on);

static int fwq_select_numa_node_cpu(int node)
{
	int cpu;

	if (node < 0 || node >= nr_node_ids || !node_online(node))
		return FWQ_CPU_UNBOUND;
	cpu = raw_smp_processor_id();
	if (node == cpu_to_node(cpu))
		return cpu;
	cpu = cpumask_any_and_distribute(cpumask_of_node(node),
					 cpu_online_mask);
	return cpu < nr_cpu_ids ? cpu : FWQ_CPU_UNBOUND;
}

bool fwq_queue_work_node(int node, struct fwq_workqueue *wq,
			 struct fwq_work *work)
{
	unsigned long flags;
	bool ret = false;

	if (!fwq_cpu_arg_ok(FWQ_CPU_UNBOUND, wq))
		return false;
	if (!fwq_wq_unbound(wq)) {
		atomic64_inc(&fwq_misuse_count);
		pr_err_ratelimited("queue_work_node on per-CPU workqueue %s\n",
				   wq->name);
	}

	local_irq_save(flags);
	if (!test_and_set_bit(FWQ_WORK_STRUCT_PENDING_BIT,
			      (unsigned long *)&work->data) &&
	    !fwq_clear_pending_if_disabled(work))
		ret = __fwq_queue_work(fwq_select_numa_node_cpu(node), wq,
				       work);
	local_irq_restore(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(fwq_queue_work_node);

/**
 * fwq_delayed_work_timer_fn - timer callback of fwq delayed work
 * @t: the timer of a struct fwq_delayed_work
 *
 * IRQ-safe timer (TIMER_IRQSAFE): runs with IRQs off.
 */
void fwq_delayed_work_timer_fn(struct timer_list *t)
{
	struct fwq_delayed_work *dwork = fwq_timer_container_of(dwork, t, timer);
	struct fwq_workqueue *wq = dwork->wq;

	__fwq_queue_work(dwork->cpu, wq, &dwork->work);
	/* the reference taken when the timer was armed */
	fwq_wq_put(wq);
}
EXPORT_SYMBOL_GPL(fwq_delayed_work_timer_fn);

/* Out of line, as Linux 7.3's: the timer API's name is the compat layer's. */
void fwq_destroy_delayed_work_on_stack(struct fwq_delayed_work *dwork)
{
	fwq_timer_destroy_on_stack(&dwork->timer);
	fwq_destroy_work_on_stack(&dwork->work);
}
EXPORT_SYMBOL_GPL(fwq_destroy_delayed_work_on_stack);

bool __fwq_queue_delayed_work(int cpu, struct fwq_workqueue *wq,
			      struct fwq_delayed_work *dwork,
			      unsigned long delay)
{
	struct timer_list *timer = &dwork->timer;
	struct fwq_work *work = &dwork->work;

	if (unlikely(timer->function != fwq_delayed_work_timer_fn ||
		     timer_pending(timer) || !list_empty(&work->entry))) {
		/* continuing would corrupt the timer or the list: refuse */
		atomic64_inc(&fwq_misuse_count);
		pr_err_ratelimited("bad delayed work %ps: not initialized with FWQ_INIT_DELAYED_WORK or already armed\n",
				   work->func);
		fwq_set_work_pool_and_clear_pending(work,
						    fwq_offq_pool_id(fwq_work_data(work)),
						    0);
		return false;
	}

	if (!delay)
		return __fwq_queue_work(cpu, wq, work);

	refcount_inc(&wq->ref);
	dwork->wq = wq;
	dwork->cpu = cpu;
	timer->expires = jiffies + delay;
	if (cpu == FWQ_CPU_UNBOUND || !cpu_online(cpu))
		add_timer(timer);
	else
		add_timer_on(timer, cpu);
	return true;
}

bool fwq_queue_delayed_work_on(int cpu, struct fwq_workqueue *wq,
			       struct fwq_delayed_work *dwork,
			       unsigned long delay)
{
	unsigned long flags;
	bool ret;

	if (!fwq_take_pending_irqsave(cpu, wq, &dwork->work, &flags))
		return false;
	ret = __fwq_queue_delayed_work(cpu, wq, dwork, delay);
	local_irq_restore(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(fwq_queue_delayed_work_on);
