// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: the idle cull. A pool keeps at most a quarter of its workers, and
 * at least two, idle for longer than idle_timeout_ms; the idle timer finds
 * the oldest idle worker past its timeout and queues the cull work on the
 * kernel's unbound system workqueue (system_dfl_wq; system_unbound_wq
 * before 6.17), which takes those workers out of service and stops their
 * kthreads. Pool destruction reaps every worker the same way.
 * The H1 counters (a kick outstanding on a culled worker, the re-kick of
 * kicked_list=off) live here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/task.h>
#include <linux/slab.h>

#include "dbg.h"
#include "internal.h"
#include "fwq_trace.h"

atomic64_t fwq_kicked_reaped;
atomic64_t fwq_cull_rekicks;

/* under pool->lock: take an idle worker out of service */
void fwq_set_worker_dying(struct fwq_worker *worker, struct list_head *list)
{
	struct fwq_pool *pool = worker->pool;

	lockdep_assert_held(&pool->lock);
	fwq_check(!worker->current_work && list_empty(&worker->scheduled) &&
		  (worker->flags & WORKER_IDLE),
		  "dying worker %d busy", worker->id);
	pool->nr_workers--;
	if (worker->flags & WORKER_IDLE) {
		pool->nr_idle--;
		/* only an idle worker's entry is a list_head (union) */
		list_del_init(&worker->entry);
	}
	if (worker->kicked) {
		/* H1: a kick is outstanding on this worker */
		pool->nr_kicked_reaped++;
		atomic64_inc(&fwq_kicked_reaped);
	}
	worker->flags |= WORKER_DIE;
	list_add_tail(&worker->dying_node, list);
	trace_fwq_worker_cull(pool, worker,
			      (pool->flags & POOL_DYING) ? FWQ_CULL_DESTROY :
			      (pool->flags & POOL_DBG_CULL_ALL) ?
			      FWQ_CULL_FORCED : FWQ_CULL_IDLE);
}

/* after fwq_set_worker_dying(), without pool->lock, under the attach mutex */
void fwq_detach_dying_workers(struct list_head *cull_list)
{
	struct fwq_worker *worker;

	lockdep_assert_held(&fwq_pool_attach_mutex);
	list_for_each_entry(worker, cull_list, dying_node)
		list_del_init(&worker->node);
}

void fwq_reap_dying_workers(struct list_head *cull_list)
{
	struct fwq_worker *worker, *tmp;

	list_for_each_entry_safe(worker, tmp, cull_list, dying_node) {
		struct fwq_pool *pool = worker->pool;

		list_del_init(&worker->dying_node);
		kthread_stop(worker->task);
		put_task_struct(worker->task);
		ida_free(&pool->worker_ida, worker->id);
		atomic_dec(&fwq_objects[FWQ_OBJ_WORKER]);
		kfree(worker);
	}
}

/**
 * fwq_dbg_force_cull_queue - the dbg_force_cull hook's cull (H1 reproducer)
 * @pool: the pool, locked, a kick just issued on it
 *
 * Queues a cull of every idle worker, no floor and no age, on another CPU
 * if there is one, to run inside the kick's dbg_kick_delay_us window.
 */
void fwq_dbg_force_cull_queue(struct fwq_pool *pool)
{
	int cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());

	lockdep_assert_held(&pool->lock);
	pool->flags |= POOL_DBG_CULL_ALL;
	if (cpu < nr_cpu_ids)
		queue_work_on(cpu, fwq_kernel_percpu_wq, &pool->idle_cull_work);
	else
		queue_work(fwq_kernel_dfl_wq, &pool->idle_cull_work);
}

void fwq_idle_timer_fn(struct timer_list *t)
{
	struct fwq_pool *pool = fwq_timer_container_of(pool, t, idle_timer);
	bool do_cull = false;
	unsigned long flags;

	if (work_pending(&pool->idle_cull_work))
		return;

	raw_spin_lock_irqsave(&pool->lock, flags);
	fwq_pool_depth_inc();
	if (fwq_too_many_workers(pool) && !(pool->flags & POOL_DYING) &&
	    !list_empty(&pool->idle_list)) {
		struct fwq_worker *worker;
		unsigned long expires;

		worker = list_last_entry(&pool->idle_list, struct fwq_worker,
					 entry);
		expires = worker->last_active +
			  msecs_to_jiffies(READ_ONCE(fwq_idle_timeout_ms));
		do_cull = !time_before(jiffies, expires);
		if (!do_cull)
			mod_timer(&pool->idle_timer, expires);
	}
	fwq_pool_depth_dec();
	raw_spin_unlock_irqrestore(&pool->lock, flags);

	if (do_cull)
		queue_work(fwq_kernel_dfl_wq, &pool->idle_cull_work);
}

void fwq_idle_cull_fn(struct work_struct *work)
{
	struct fwq_pool *pool = container_of(work, struct fwq_pool,
					     idle_cull_work);
	struct fwq_wake_batch wb = FWQ_WAKE_BATCH_INIT;
	LIST_HEAD(cull_list);
	bool need_worker;

	mutex_lock(&fwq_pool_attach_mutex);
	fwq_pool_lock_irq(pool);

	if (pool->flags & POOL_DBG_CULL_ALL) {
		/* dbg_force_cull: reap every worker on idle_list, no floor */
		while (!list_empty(&pool->idle_list) &&
		       !(pool->flags & POOL_DYING)) {
			fwq_set_worker_dying(list_last_entry(&pool->idle_list,
							     struct fwq_worker,
							     entry),
					     &cull_list);
			pool->nr_culled++;
		}
		pool->flags &= ~POOL_DBG_CULL_ALL;
	}

	while (fwq_too_many_workers(pool) && !(pool->flags & POOL_DYING)) {
		struct fwq_worker *worker;
		unsigned long expires;

		/*
		 * A kicked worker still counts in nr_idle but is never on
		 * idle_list; with |kicked_list| <= 1 and nr_idle > 2 the idle
		 * list is not empty, but claimed workers (wake=claim,
		 * kicked_list=off) are on no list at all.
		 */
		if (list_empty(&pool->idle_list))
			break;
		worker = list_last_entry(&pool->idle_list, struct fwq_worker,
					 entry);
		expires = worker->last_active +
			  msecs_to_jiffies(READ_ONCE(fwq_idle_timeout_ms));
		if (time_before(jiffies, expires)) {
			mod_timer(&pool->idle_timer, expires);
			break;
		}
		fwq_set_worker_dying(worker, &cull_list);
		pool->nr_culled++;
	}

	/*
	 * H1: with kicked_list=off a kicked worker that had not run yet may
	 * just have been culled, stranding the item it was kicked for. fwq
	 * re-kicks here (counted) so no item is lost.
	 */
	if (!list_empty(&cull_list) && fwq_need_more_worker(pool) &&
	    READ_ONCE(fwq_cull_rekick)) {
		pool->nr_cull_rekick++;
		atomic64_inc(&fwq_cull_rekicks);
		fwq_kick_pool(pool, &wb, NULL, FWQ_SITE_OTHER);
	}
	need_worker = !pool->nr_workers && !(pool->flags & POOL_DYING);

	fwq_pool_unlock_irq_issue(pool, &wb);
	fwq_detach_dying_workers(&cull_list);
	mutex_unlock(&fwq_pool_attach_mutex);

	fwq_reap_dying_workers(&cull_list);

	/* only a forced cull can empty a pool: keep one worker around */
	if (need_worker && fwq_create_worker(pool))
		pr_err("pool %d: no worker after a forced cull\n", pool->id);
}
