// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: the worker thread and process_one_work (the rescuer's thread is in
 * rescuer.c).
 *
 * fwq workers never carry PF_WQ_WORKER (the scheduler would then call the
 * kernel's workqueue hooks on fwq's worker struct). A thread is recognised as
 * an fwq worker by kthread_func(current); kthread_data(current) is the
 * struct fwq_worker.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/task.h>

#include <linux/sched/clock.h>

#include "internal.h"
#include "fwq_trace.h"

bool fwq_may_start_working(struct fwq_pool *pool)
{
	return pool->nr_idle;
}

bool fwq_keep_working(struct fwq_pool *pool)
{
	return !list_empty(&pool->worklist) && fwq_pool_nr_running(pool) <= 1;
}

bool fwq_need_to_create_worker(struct fwq_pool *pool)
{
	return fwq_need_more_worker(pool) && !fwq_may_start_working(pool);
}

bool fwq_too_many_workers(struct fwq_pool *pool)
{
	bool managing = pool->flags & POOL_MANAGER_ACTIVE;
	int nr_idle = pool->nr_idle + managing;
	int nr_busy = pool->nr_workers - nr_idle;

	return nr_idle > 2 && (nr_idle - 2) * FWQ_MAX_IDLE_RATIO >= nr_busy;
}

void fwq_worker_set_flags(struct fwq_worker *worker, unsigned int flags)
{
	struct fwq_pool *pool = worker->pool;

	lockdep_assert_held(&pool->lock);
	if ((flags & WORKER_NOT_RUNNING) &&
	    !(worker->flags & WORKER_NOT_RUNNING))
		atomic_dec(&pool->nr_running);
	WRITE_ONCE(worker->flags, worker->flags | flags);
}

void fwq_worker_clr_flags(struct fwq_worker *worker, unsigned int flags)
{
	struct fwq_pool *pool = worker->pool;
	unsigned int oflags = worker->flags;

	lockdep_assert_held(&pool->lock);
	WRITE_ONCE(worker->flags, worker->flags & ~flags);
	if ((flags & WORKER_NOT_RUNNING) && (oflags & WORKER_NOT_RUNNING) &&
	    !(worker->flags & WORKER_NOT_RUNNING))
		atomic_inc(&pool->nr_running);
}

void fwq_worker_enter_idle(struct fwq_worker *worker)
{
	struct fwq_pool *pool = worker->pool;

	/*
	 * worker->entry shares storage with worker->hentry (busy_hash), so
	 * only the flag says whether the worker is idle already.
	 */
	if (!fwq_check(!(worker->flags & WORKER_IDLE),
		       "worker %d double idle", worker->id))
		return;

	worker->flags |= WORKER_IDLE;
	pool->nr_idle++;
	worker->last_active = jiffies;
	list_add(&worker->entry, &pool->idle_list);

	if (fwq_too_many_workers(pool) && !timer_pending(&pool->idle_timer))
		mod_timer(&pool->idle_timer, jiffies +
			  msecs_to_jiffies(READ_ONCE(fwq_idle_timeout_ms)));
}

static void fwq_worker_leave_idle(struct fwq_worker *worker)
{
	struct fwq_pool *pool = worker->pool;

	if (!fwq_check(worker->flags & WORKER_IDLE, "worker %d not idle",
		       worker->id))
		return;
	worker->flags &= ~WORKER_IDLE;
	worker->kicked = false;
	pool->nr_idle--;
	list_del_init(&worker->entry);
}

struct fwq_worker *fwq_find_worker_executing_work(struct fwq_pool *pool,
						  struct fwq_work *work)
{
	struct fwq_worker *worker;

	hash_for_each_possible(pool->busy_hash, worker, hentry,
			       (unsigned long)work)
		if (worker->current_work == work &&
		    worker->current_func == work->func)
			return worker;
	return NULL;
}

void fwq_move_linked_works(struct fwq_work *work, struct list_head *head,
			   struct fwq_work **nextp)
{
	struct fwq_work *n;

	list_for_each_entry_safe_from(work, n, NULL, entry) {
		list_move_tail(&work->entry, head);
		if (!(fwq_work_data(work) & FWQ_WORK_STRUCT_LINKED))
			break;
	}
	if (nextp)
		*nextp = n;
}

/**
 * fwq_assign_work - give a work item (and its linked barriers) to a worker
 * @work: the first item
 * @worker: the worker
 * @nextp: out: the item after the moved chain, or NULL
 *
 * If another worker of the pool is already running @work (same address and
 * function), the chain goes to that worker instead: non-reentrancy.
 *
 * Return: true if @worker got the chain.
 */
bool fwq_assign_work(struct fwq_work *work, struct fwq_worker *worker,
		     struct fwq_work **nextp)
{
	struct fwq_pool *pool = worker->pool;
	struct fwq_worker *collision;

	lockdep_assert_held(&pool->lock);

	if (unlikely(work->func == fwq_mayday_cursor_func)) {
		/* the cursor of a rescuer: skip it */
		if (nextp)
			*nextp = list_next_entry(work, entry);
		list_del_init(&work->entry);
		return false;
	}

	collision = fwq_find_worker_executing_work(pool, work);
	if (unlikely(collision)) {
		fwq_move_linked_works(work, &collision->scheduled, nextp);
		return false;
	}
	fwq_move_linked_works(work, &worker->scheduled, nextp);
	return true;
}

static void fwq_process_one_work(struct fwq_worker *worker,
				 struct fwq_work *work)
	__releases(&pool->lock) __acquires(&pool->lock)
{
	struct fwq_pool *pool = worker->pool;
	struct fwq_pwq *pwq = fwq_work_pwq(work);
	struct fwq_workqueue *wq;
	unsigned long work_data;
	u64 t_hold = 0;
#ifdef CONFIG_LOCKDEP
	/* the item may free itself while it runs: hold a copy of its map */
	struct lockdep_map lockdep_map;

	lockdep_copy_map(&lockdep_map, &work->lockdep_map);
#endif

	if (!fwq_check(pwq && pwq->pool == pool,
		       "work %ps not queued on pool %d", work->func, pool->id)) {
		list_del_init(&work->entry);
		return;
	}
	wq = pwq->wq;

	hash_add(pool->busy_hash, &worker->hentry, (unsigned long)work);
	worker->current_work = work;
	worker->current_func = work->func;
	worker->current_pwq = pwq;
	worker->current_start = jiffies;
	work_data = fwq_work_data(work);
	worker->current_color = fwq_work_color(work_data);

	list_del_init(&work->entry);

	if (unlikely(wq->flags & FWQ_CPU_INTENSIVE)) {
		fwq_worker_set_flags(worker, WORKER_CPU_INTENSIVE);
		pwq->stats[PWQ_STAT_CPU_INTENSIVE]++;
	}
	/* CPU-intensive auto-detection (cm.c): stamp, arm the pool's timer */
	if (worker->notifier_on)
		fwq_cm_item_start(worker);

	/* the chain kick: a no-op for CM pools with a running worker */
	if (fwq_lockstat_active())
		t_hold = sched_clock();
	fwq_kick_pool(pool, &worker->wb, wq, FWQ_SITE_CHAIN);

	/* the last write to @work: from here it may be requeued or freed */
	fwq_set_work_pool_and_clear_pending(work, pool->id, 0);
	pwq->stats[PWQ_STAT_STARTED]++;
	this_cpu_inc(wq->pcpu_stats->started);

	if (fwq_lockstat_active() && t_hold)
		fwq_lockstat_record(FWQ_LS_CHAIN, -1, sched_clock() - t_hold);
	fwq_pool_unlock_irq_issue(pool, &worker->wb);

	/*
	 * The flush-dependency maps (see fwq_lockdep_touch()); without
	 * CONFIG_LOCKDEP, lock_map_acquire() and its argument vanish.
	 */
	lock_map_acquire(&wq->lockdep_map);
	lock_map_acquire(&lockdep_map);
	trace_fwq_execute_start(work);
	worker->current_func(work);
	/* @work may be gone: the event records only its address */
	trace_fwq_execute_end(work, worker->current_func);
	lock_map_release(&lockdep_map);
	lock_map_release(&wq->lockdep_map);

	cond_resched();

	if (fwq_lockstat_active()) {
		t_hold = sched_clock();
		fwq_pool_lock_irq(pool);
		fwq_lockstat_record(FWQ_LS_CHAIN, sched_clock() - t_hold, -1);
	} else {
		fwq_pool_lock_irq(pool);
	}

	pwq->stats[PWQ_STAT_COMPLETED]++;
	this_cpu_inc(wq->pcpu_stats->completed);
	if (unlikely(worker->flags & WORKER_CPU_INTENSIVE))
		fwq_worker_clr_flags(worker, WORKER_CPU_INTENSIVE);

	hash_del(&worker->hentry);
	worker->current_work = NULL;
	worker->current_func = NULL;
	worker->current_pwq = NULL;
	worker->current_color = INT_MAX;

	/* last: this may drop and retake pool->lock */
	fwq_pwq_dec_nr_in_flight(pwq, work_data, &worker->wb);
}

void fwq_process_scheduled_works(struct fwq_worker *worker)
{
	struct fwq_work *work;
	bool first = true;

	while ((work = list_first_entry_or_null(&worker->scheduled,
						struct fwq_work, entry))) {
		if (first) {
			worker->pool->last_progress_ts = jiffies;
			first = false;
		}
		fwq_process_one_work(worker, work);
	}
}

/**
 * fwq_current_worker - the fwq worker running on this thread, or NULL
 */
struct fwq_worker *fwq_current_worker(void)
{
	void *fn;

	/* an interrupt on a worker's CPU is not running the worker's item */
	if (!in_task() || !(current->flags & PF_KTHREAD))
		return NULL;
	fn = kthread_func(current);
	if (fn != fwq_worker_thread && fn != fwq_rescuer_thread)
		return NULL;
	return kthread_data(current);
}

int fwq_worker_thread(void *data)
{
	struct fwq_worker *worker = data;
	struct fwq_pool *pool = worker->pool;

	fwq_cm_worker_start(worker);
woke_up:
	fwq_pool_lock_irq(pool);

	if (unlikely(worker->flags & WORKER_DIE)) {
		fwq_pool_unlock_irq(pool);
		fwq_cm_worker_stop(worker);
		/* the reaper frees @worker after kthread_stop() */
		return 0;
	}

	fwq_worker_leave_idle(worker);
recheck:
	if (!fwq_need_more_worker(pool))
		goto sleep;

	if (unlikely(!fwq_may_start_working(pool)) &&
	    fwq_manage_workers(worker))
		goto recheck;

	fwq_check(list_empty(&worker->scheduled), "worker %d scheduled non-empty",
		  worker->id);

	fwq_worker_clr_flags(worker, WORKER_PREP | WORKER_REBOUND);

	do {
		struct fwq_work *work = list_first_entry(&pool->worklist,
							 struct fwq_work, entry);

		if (fwq_assign_work(work, worker, NULL))
			fwq_process_scheduled_works(worker);
	} while (fwq_keep_working(pool));

	fwq_worker_set_flags(worker, WORKER_PREP);
sleep:
	fwq_worker_enter_idle(worker);
	__set_current_state(TASK_IDLE);
	fwq_pool_unlock_irq_issue(pool, &worker->wb);
	schedule();
	goto woke_up;
}
