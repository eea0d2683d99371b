// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: the manager. A pool whose worklist has items and no idle worker
 * left has one of its workers become the manager (POOL_MANAGER_ACTIVE),
 * which drops the pool lock and creates workers until an idle one exists.
 * If creation keeps failing, the mayday timer (rescuer.c) asks the
 * rescuers of the waiting workqueues for help. A pool being destroyed
 * claims the manager role itself, so no worker is created after it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/task.h>
#include <linux/slab.h>

#include "dbg.h"
#include "internal.h"
#include "fwq_trace.h"

atomic64_t fwq_create_worker_injected;

/*
 * The destroyer of a pool waits here for the pool's manager to finish. An
 * rcuwait, not a wait queue: the manager wakes it under the raw pool->lock,
 * where a wait queue's spinlock_t (a sleeping lock on PREEMPT_RT) must not
 * be taken. It has one waiter at a time: pools are destroyed under
 * fwq_pool_mutex, or by the module exit alone.
 */
struct rcuwait fwq_manager_wait = __RCUWAIT_INITIALIZER(fwq_manager_wait);

#define FWQ_MAYDAY_INITIAL_TIMEOUT	(HZ / 100 >= 2 ? HZ / 100 : 2)
/*
 * Mainline waits HZ between failed creations; fwq waits HZ / 10 because
 * its fault injection (fail_create_worker) fails creation on purpose in
 * the tests, where a 1 s cool-down only makes every such run slower.
 * docs/mainline.md lists this with fwq's other departures.
 */
#define FWQ_CREATE_COOLDOWN		(HZ / 10)

/**
 * fwq_alloc_worker - allocate and initialise a worker struct (no kthread)
 * @node: NUMA node to allocate on, or NUMA_NO_NODE
 * @obj: the live-object count it joins (FWQ_OBJ_WORKER or FWQ_OBJ_RESCUER)
 *
 * Return: the worker in WORKER_PREP state, or NULL.
 */
struct fwq_worker *fwq_alloc_worker(int node, enum fwq_obj obj)
{
	struct fwq_worker *worker;

	worker = kzalloc_node(sizeof(*worker), GFP_KERNEL,
			      node == NUMA_NO_NODE ? NUMA_NO_NODE : node);
	if (!worker)
		return NULL;
	atomic_inc(&fwq_objects[obj]);
	INIT_LIST_HEAD(&worker->entry);
	INIT_LIST_HEAD(&worker->scheduled);
	INIT_LIST_HEAD(&worker->node);
	INIT_LIST_HEAD(&worker->dying_node);
	worker->flags = WORKER_PREP;
	worker->current_color = INT_MAX;
	return worker;
}

/**
 * __fwq_create_worker - create, attach and start a worker
 * @pool: the pool
 * @inject: honour the fail_create_worker fault injection (the manager
 *	does; the first worker of a pool and hotplug prepare do not, so a
 *	pool always has a worker that can become the manager)
 *
 * Context: may sleep; no pool lock held.
 * Return: 0 or a negative errno.
 */
static int __fwq_create_worker(struct fwq_pool *pool, bool inject)
{
	struct fwq_worker *worker;
	struct task_struct *task;
	int id, ret;

	if (inject && fwq_dbg_create_fails())
		return -EAGAIN;

	id = ida_alloc(&pool->worker_ida, GFP_KERNEL);
	if (id < 0)
		return id;

	worker = fwq_alloc_worker(pool->node, FWQ_OBJ_WORKER);
	if (!worker) {
		ret = -ENOMEM;
		goto fail_id;
	}
	worker->id = id;
	worker->pool = pool;

	if (pool->cpu >= 0)
		task = kthread_create_on_node(fwq_worker_thread, worker,
					      pool->node, "fwq/%d:%d%s",
					      pool->cpu, id,
					      pool->highpri ? "H" : "");
	else
		task = kthread_create_on_node(fwq_worker_thread, worker,
					      pool->node, "fwq/u%d:%d",
					      pool->id, id);
	if (IS_ERR(task)) {
		ret = PTR_ERR(task);
		goto fail_worker;
	}
	get_task_struct(task);
	worker->task = task;
	set_user_nice(task, pool->attrs.nice);
	fwq_kthread_no_setaffinity(task);

	fwq_worker_attach_to_pool(worker, pool);

	fwq_pool_lock_irq(pool);
	pool->nr_workers++;
	pool->nr_created++;
	fwq_worker_enter_idle(worker);
	trace_fwq_worker_create(pool, worker);
	fwq_pool_unlock_irq(pool);
	/* the new kthread waits in kthread(): always start it */
	fwq_wake_task(task, NULL, FWQ_SITE_OTHER);
	return 0;

fail_worker:
	atomic_dec(&fwq_objects[FWQ_OBJ_WORKER]);
	kfree(worker);
fail_id:
	ida_free(&pool->worker_ida, id);
	return ret;
}

int fwq_create_worker(struct fwq_pool *pool)
{
	return __fwq_create_worker(pool, false);
}

/* called with pool->lock held; may drop it. Returns with it held. */
static void fwq_maybe_create_worker(struct fwq_pool *pool)
	__releases(&pool->lock) __acquires(&pool->lock)
{
restart:
	fwq_pool_unlock_irq(pool);

	mod_timer(&pool->mayday_timer, jiffies + FWQ_MAYDAY_INITIAL_TIMEOUT);

	while (true) {
		bool need;

		if (!__fwq_create_worker(pool, true))
			break;
		schedule_timeout_interruptible(FWQ_CREATE_COOLDOWN);
		fwq_pool_lock_irq(pool);
		need = fwq_need_to_create_worker(pool);
		fwq_pool_unlock_irq(pool);
		if (!need)
			break;
	}

	fwq_timer_delete_sync(&pool->mayday_timer);
	fwq_pool_lock_irq(pool);
	if (fwq_need_to_create_worker(pool))
		goto restart;
}

/**
 * fwq_manage_workers - create workers if the pool needs them
 * @worker: the calling worker
 *
 * Called with pool->lock held. Return: true if the lock was dropped and
 * reacquired (the caller must recheck), false if another worker manages.
 */
bool fwq_manage_workers(struct fwq_worker *worker)
{
	struct fwq_pool *pool = worker->pool;

	if (pool->flags & POOL_MANAGER_ACTIVE)
		return false;
	pool->flags |= POOL_MANAGER_ACTIVE;
	pool->manager = worker;

	fwq_maybe_create_worker(pool);

	pool->manager = NULL;
	pool->flags &= ~POOL_MANAGER_ACTIVE;
	/* a pool's destroyer may wait for the manager to finish */
	if (rcuwait_wake_up(&fwq_manager_wait))
		fwq_wake_count(NULL, NULL, FWQ_SITE_OTHER);
	return true;
}

/**
 * fwq_pool_claim_manager - take the manager role of a pool for good
 * @pool: the pool being destroyed
 *
 * Sets POOL_MANAGER_ACTIVE and POOL_DYING if no worker manages, so no
 * worker is created from then on.
 *
 * Return: true if claimed; false while a worker manages.
 */
bool fwq_pool_claim_manager(struct fwq_pool *pool)
{
	bool ok;

	fwq_pool_lock_irq(pool);
	ok = !(pool->flags & POOL_MANAGER_ACTIVE);
	if (ok)
		pool->flags |= POOL_MANAGER_ACTIVE | POOL_DYING;
	fwq_pool_unlock_irq(pool);
	return ok;
}
