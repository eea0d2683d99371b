// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: concurrency management of per-CPU pools without scheduler hooks.
 *
 * The kernel calls wq_worker_sleeping()/wq_worker_running() only for
 * PF_WQ_WORKER tasks, and fwq must never set that flag. Instead each worker
 * of a per-CPU pool registers a preempt notifier on itself:
 *
 *   sched_out (rq lock held, IRQs off): if the worker is not TASK_RUNNING it
 *     is going to sleep; if it counts in nr_running, mark it sleeping and
 *     decrement nr_running (atomic: no pool->lock here, which would invert
 *     against pool->lock -> p->pi_lock -> rq->lock). If that was the last
 *     running worker and work is waiting, queue the pool's irq_work.
 *   irq_work (hardirq on the same CPU; on PREEMPT_RT a per-CPU thread,
 *     with preemption off around the kick): lock the pool and kick an
 *     idle worker if need_more_worker().
 *   sched_in: if it was marked sleeping, count it again (unless it carries
 *     a NOT_RUNNING flag by now).
 *
 * Differences from the kernel hooks: a task preempted after setting a sleep
 * state looks like a sleeper (an extra kick; sched_in repairs the count),
 * and notifiers fire only on a real context switch.
 *
 * CPU-intensive auto-detection (mainline: wq_worker_tick(), called by the
 * scheduler tick, which fwq cannot hook). An item that runs longer than
 * cpu_intensive_thresh_us of CPU time without sleeping leaves concurrency
 * management, as an FWQ_CPU_INTENSIVE one does from its start:
 *
 *   item start (process_one_work, pool->lock held, IRQs off): stamp
 *     worker->current_at with the task's se.sum_exec_runtime, and arm the
 *     pool's ci_timer if it is not queued already (one hrtimer per per-CPU
 *     pool, pinned to pool->cpu; nothing else is added to the hot paths).
 *   sched_in after a counted sleep: stamp current_at again (mainline does
 *     the same in wq_worker_running()).
 *   ci_timer (hardirq on pool->cpu): if the interrupted task is a counted
 *     worker of this pool running an item whose CPU time since current_at
 *     reached the threshold, lock the pool, set WORKER_CPU_INTENSIVE (which
 *     takes it out of nr_running), count PWQ_STAT_CPU_INTENSIVE and kick a
 *     worker if work waits. The flag is cleared when the item ends. The
 *     timer re-arms itself while the pool has an item in flight (busy_hash
 *     not empty) and the pool is associated, else it stops until the next
 *     item start.
 *
 * Why a hard hrtimer: it interrupts the task that is running on the CPU,
 * so `current` is what the tick would see. A timer_list callback runs in
 * softirq context, possibly in ksoftirqd, where `current` is not the
 * worker, and it has only jiffies resolution. The timer takes pool->lock
 * (raw, IRQ-safe: the irq_work does too); the notifiers never take it.
 * A worker with `sleeping` set is inside sched_in (IRQs on) with its count
 * not yet restored: the timer leaves it alone, as mainline's tick does,
 * since the flag would decrement nr_running a second time.
 *
 * Differences from the tick: the timer fires when the threshold could have
 * been reached (at least a tick apart unless the threshold is shorter), not
 * every tick, and keeps firing while a per-CPU item is in flight, sleeping
 * ones included. The CPU time read in hardirq is the one the scheduler
 * last accounted, up to a tick old (the stamp at the item start is too, in
 * mainline as well): an item is flagged between about a tick before and
 * two ticks after the threshold. The timer is cancelled when the CPU goes
 * down (src/hotplug.c) and when the pool is destroyed, and re-armed by the
 * first item after the CPU is back. Mainline also reports functions that
 * are flagged again and again (wq_cpu_intensive_report()); fwq only
 * counts.
 *
 * cm_mode=off (module parameter, read at load): per-CPU pools behave like
 * unbound ones. Every worker carries WORKER_UNBOUND (NOT_RUNNING),
 * nr_running stays 0, and every enqueue and chain step kicks a worker.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include "dbg.h"
#include "internal.h"

#if FWQ_HAVE_PREEMPT_NOTIFIERS
static void fwq_cm_sched_out(struct preempt_notifier *pn,
			     struct task_struct *next)
{
	struct fwq_worker *worker = container_of(pn, struct fwq_worker, pn);
	struct fwq_pool *pool = worker->pool;

	if (READ_ONCE(current->__state) == TASK_RUNNING)
		return;		/* preempted, not sleeping */
	if ((READ_ONCE(worker->flags) & WORKER_NOT_RUNNING) || worker->sleeping)
		return;
	worker->sleeping = 1;
	/*
	 * Fully ordered: the worklist read below cannot pass the decrement.
	 * Pairs with the smp_mb() in fwq_need_more_worker(), so that either
	 * this side sees the new item or the enqueue sees nr_running == 0.
	 */
	if (atomic_dec_and_test(&pool->nr_running) &&
	    !list_empty(&pool->worklist))
		irq_work_queue(&pool->cm_irq_work);
}

static void fwq_cm_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct fwq_worker *worker = container_of(pn, struct fwq_worker, pn);

	if (!worker->sleeping)
		return;
	if (!(READ_ONCE(worker->flags) & WORKER_NOT_RUNNING))
		atomic_inc(&worker->pool->nr_running);
	/* CPU-intensive detection counts CPU time from the wakeup on */
	WRITE_ONCE(worker->current_at, current->se.sum_exec_runtime);
	/* the ci_timer interrupts on this CPU: program order is enough */
	barrier();
	WRITE_ONCE(worker->sleeping, 0);
}

static struct preempt_ops fwq_cm_preempt_ops = {
	.sched_in = fwq_cm_sched_in,
	.sched_out = fwq_cm_sched_out,
};
#endif /* FWQ_HAVE_PREEMPT_NOTIFIERS */

/**
 * fwq_cm_init() - turn concurrency management on, if cm_mode asks for it
 *
 * Called once at module load, before any worker starts. Without preempt
 * notifiers in the kernel (src/compat/compat.h), cm_mode=notifier falls
 * back to off, with one log line.
 */
void fwq_cm_init(void)
{
	if (!fwq_cm_enabled)
		return;
#if FWQ_HAVE_PREEMPT_NOTIFIERS
	preempt_notifier_inc();
#else
	pr_info("cm_mode=notifier needs CONFIG_PREEMPT_NOTIFIERS, which this kernel lacks: using cm_mode=off\n");
	fwq_cm_enabled = false;
#endif
}

/**
 * fwq_cm_exit() - undo fwq_cm_init(), at unload or a failed load
 */
void fwq_cm_exit(void)
{
#if FWQ_HAVE_PREEMPT_NOTIFIERS
	if (fwq_cm_enabled)
		preempt_notifier_dec();
#endif
}

/* under pool->lock: kick a worker if work waits and nobody runs */
static void fwq_cm_kick(struct fwq_pool *pool, struct fwq_wake_batch *wb)
{
	struct fwq_workqueue *wq = NULL;
	struct fwq_work *work;
	struct fwq_pwq *pwq;

	if (!fwq_need_more_worker(pool))
		return;
	work = list_first_entry(&pool->worklist, struct fwq_work, entry);
	pwq = fwq_work_pwq(work);
	/* count the wakeup for the workqueue whose item waits */
	if (pwq) {
		wq = pwq->wq;
		pwq->stats[PWQ_STAT_CM_WAKEUP]++;
	}
	fwq_kick_pool(pool, wb, wq, FWQ_SITE_CM);
}

void fwq_cm_irq_work_fn(struct irq_work *iw)
{
	struct fwq_pool *pool = container_of(iw, struct fwq_pool, cm_irq_work);
	struct fwq_wake_batch wb __uninitialized;
	unsigned long flags;

	/* the last running worker slept with work pending: warm */
	fwq_wake_batch_init(&wb);
	/* on PREEMPT_RT the irq_work runs in a preemptible per-CPU thread */
	preempt_disable();
	raw_spin_lock_irqsave(&pool->lock, flags);
	fwq_pool_depth_inc();
	fwq_cm_kick(pool, &wb);
	fwq_pool_depth_dec();
	raw_spin_unlock_irqrestore(&pool->lock, flags);
	fwq_wake_batch_issue(&wb);
	preempt_enable();
}

/*
 * The counted worker of @pool whose item the ci_timer may flag: the task it
 * interrupted, if that is one. Under pool->lock, in hardirq on pool->cpu.
 */
static struct fwq_worker *fwq_cm_ci_worker(struct fwq_pool *pool)
{
	struct fwq_worker *worker;
	int bkt;

	/*
	 * Look @current up among the pool's busy workers, which stay
	 * allocated while pool->lock is held. Never through current's
	 * kthread_data(): an exiting fwq worker kthread (of any pool) still
	 * runs after its reaper freed its struct fwq_worker.
	 */
	hash_for_each(pool->busy_hash, bkt, worker, hentry) {
		if (worker->task != current)
			continue;
		if (worker->rescue_wq || (worker->flags & WORKER_NOT_RUNNING) ||
		    READ_ONCE(worker->sleeping))
			return NULL;
		return worker;
	}
	return NULL;
}

static enum hrtimer_restart fwq_cm_ci_timer_fn(struct hrtimer *timer)
{
	struct fwq_pool *pool = container_of(timer, struct fwq_pool, ci_timer);
	u64 thresh = (u64)READ_ONCE(fwq_cpu_intensive_thresh_us) * NSEC_PER_USEC;
	struct fwq_wake_batch wb __uninitialized;
	struct fwq_worker *worker;
	u64 next = thresh;
	bool rearm;

	/* every cpu_intensive_thresh_us while the pool is busy: warm */
	fwq_wake_batch_init(&wb);

	/* a CPU that went down migrates its timers: this one then stops */
	if (!thresh || smp_processor_id() != pool->cpu)
		return HRTIMER_NORESTART;

	fwq_pool_lock(pool);
	rearm = !(pool->flags & POOL_DISASSOCIATED) &&
		!hash_empty(pool->busy_hash);
	worker = rearm ? fwq_cm_ci_worker(pool) : NULL;
	if (worker) {
		u64 ran = READ_ONCE(current->se.sum_exec_runtime) -
			  READ_ONCE(worker->current_at);

		if ((s64)ran >= (s64)thresh) {
			fwq_worker_set_flags(worker, WORKER_CPU_INTENSIVE);
			worker->current_pwq->stats[PWQ_STAT_CPU_INTENSIVE]++;
			fwq_cm_kick(pool, &wb);
		} else if ((s64)ran > 0) {
			next = thresh - ran;
		}
	}
	fwq_pool_unlock(pool);
	fwq_wake_batch_issue(&wb);

	if (!rearm)
		return HRTIMER_NORESTART;
	/* the accounted CPU time moves at ticks: no sooner than one */
	next = max_t(u64, next, min_t(u64, thresh, TICK_NSEC));
	hrtimer_forward_now(timer, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

/* at pool allocation */
void fwq_cm_pool_init(struct fwq_pool *pool)
{
	fwq_hrtimer_setup(&pool->ci_timer, fwq_cm_ci_timer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * Stop the pool's ci_timer and wait for its callback: when the pool's CPU
 * goes down (after POOL_DISASSOCIATED is set, so no item start re-arms it)
 * and when the pool is destroyed. No pool->lock held: the callback takes it.
 */
void fwq_cm_pool_stop(struct fwq_pool *pool)
{
	hrtimer_cancel(&pool->ci_timer);
}

/**
 * fwq_cm_item_start - an item starts on a worker with CM notifiers
 * @worker: the worker, current, with worker->notifier_on
 *
 * Stamps the CPU time for CPU-intensive detection and arms the pool's
 * ci_timer unless it is queued already.
 *
 * Context: process_one_work, pool->lock held, IRQs off.
 */
void fwq_cm_item_start(struct fwq_worker *worker)
{
	struct fwq_pool *pool = worker->pool;
	unsigned int us;

	lockdep_assert_held(&pool->lock);
	WRITE_ONCE(worker->current_at, current->se.sum_exec_runtime);
	us = READ_ONCE(fwq_cpu_intensive_thresh_us);
	if (!us || (worker->flags & WORKER_NOT_RUNNING) ||
	    (pool->flags & POOL_DISASSOCIATED) ||
	    smp_processor_id() != pool->cpu ||
	    hrtimer_is_queued(&pool->ci_timer))
		return;
	hrtimer_start(&pool->ci_timer, ns_to_ktime((u64)us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/* the pool's running worker has blocked, or FWQ_CM_SB_WAIT_US passed */
#define FWQ_CM_SB_WAIT_US	(2ULL * USEC_PER_SEC)
/* then the blocked worker's lockless worklist read is surely done */
#define FWQ_CM_SB_SETTLE_MS	10

atomic64_t fwq_cm_sb_windows;

static void fwq_cm_sb_window(struct fwq_pool *pool)
{
	u64 end = ktime_get_ns() + FWQ_CM_SB_WAIT_US * NSEC_PER_USEC;

	/* a test's running item polls this to know when to block */
	atomic64_inc(&fwq_cm_sb_windows);
	/* pool->lock is held with IRQs off: spin, never sleep */
	while (atomic_read(&pool->nr_running) > 0 && ktime_get_ns() < end)
		cpu_relax();
	mdelay(FWQ_CM_SB_SETTLE_MS);
}

/**
 * fwq_cm_dbg_sb_insert - enqueue onto the worklist with a widened window
 * @pwq: the pwq of @work; its pool is locked
 * @work: the item
 * @work_flags: as for fwq_insert_work()
 * @wb: the caller's wake batch
 *
 * The dbg_cm_sb reproducer for the store buffering described at
 * fwq_need_more_worker(). If the pool's running workers count, it holds
 * the enqueue between its worklist insert and its nr_running read until
 * the running worker has blocked (at most about 2 s, with pool->lock held
 * and IRQs off: a debug knob only, never for production). Mode 1 reads
 * nr_running first, the order a store buffer allows when no barrier
 * separates the two: the early read sees the worker running, the worker
 * that blocks sees an empty worklist, and nobody kicks. Mode 2 keeps the
 * order of fwq_need_more_worker(): insert, barrier, read; the worker that
 * blocks sees the item and kicks through the irq_work.
 */
void fwq_cm_dbg_sb_insert(struct fwq_pwq *pwq, struct fwq_work *work,
			  unsigned long work_flags, struct fwq_wake_batch *wb)
{
	struct fwq_pool *pool = pwq->pool;
	unsigned int mode = READ_ONCE(fwq_dbg_cm_sb);

	lockdep_assert_held(&pool->lock);

	if (mode == 1 && fwq_pool_nr_running(pool) > 0) {
		fwq_cm_sb_window(pool);
		fwq_insert_work(pwq, work, &pool->worklist, work_flags);
		return;		/* the early read saw a running worker */
	}
	fwq_insert_work(pwq, work, &pool->worklist, work_flags);
	if (mode == 2 && fwq_pool_nr_running(pool) > 0)
		fwq_cm_sb_window(pool);
	fwq_kick_pool(pool, wb, pwq->wq, FWQ_SITE_QUEUE);
}

/* in the worker's own thread, before it looks at any work */
void fwq_cm_worker_start(struct fwq_worker *worker)
{
#if FWQ_HAVE_PREEMPT_NOTIFIERS
	if (!fwq_cm_enabled || worker->pool->cpu < 0)
		return;
	preempt_notifier_init(&worker->pn, &fwq_cm_preempt_ops);
	preempt_notifier_register(&worker->pn);
	worker->notifier_on = true;
#endif
}

/* in the worker's own thread, before it returns */
void fwq_cm_worker_stop(struct fwq_worker *worker)
{
#if FWQ_HAVE_PREEMPT_NOTIFIERS
	if (!worker->notifier_on)
		return;
	preempt_notifier_unregister(&worker->pn);
	worker->notifier_on = false;
#endif
}
