// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: the rescuer. An FWQ_MEM_RECLAIM workqueue owns one rescuer kthread.
 * A pool whose manager has not managed to create a worker in time (the
 * mayday timer) sends the pwqs of its waiting items to their workqueues'
 * rescuers (maydays); a rescuer attaches to each such pool in turn and
 * runs that pwq's items, FWQ_RESCUER_BATCH at a time when other pwqs
 * wait too. A per-pwq cursor item on the worklist remembers where the
 * rescuer stopped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/task.h>
#include <linux/slab.h>

#include "internal.h"

atomic64_t fwq_rescuer_requeues;

#define FWQ_MAYDAY_INTERVAL		(HZ / 10)

void fwq_mayday_cursor_func(struct fwq_work *work)
{
	pr_err("mayday cursor executed\n");
}

/* under pool->lock and fwq_mayday_lock */
static void fwq_send_mayday(struct fwq_work *work, struct fwq_wake_batch *wb)
{
	struct fwq_pwq *pwq = fwq_work_pwq(work);
	struct fwq_workqueue *wq;

	lockdep_assert_held(&fwq_mayday_lock);
	if (!pwq)
		return;
	wq = pwq->wq;
	if (!wq->rescuer)
		return;
	if (list_empty(&pwq->mayday_node)) {
		fwq_get_pwq(pwq);
		list_add_tail(&pwq->mayday_node, &wq->maydays);
		pwq->stats[PWQ_STAT_MAYDAY]++;
		fwq_wake_batch_add(wb, wq->rescuer->task, wq, FWQ_SITE_OTHER,
				   true);
	}
}

void fwq_pool_mayday_timeout(struct timer_list *t)
{
	struct fwq_pool *pool = fwq_timer_container_of(pool, t, mayday_timer);
	struct fwq_wake_batch wb = FWQ_WAKE_BATCH_INIT;
	struct fwq_work *work;
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->lock, flags);
	fwq_pool_depth_inc();
	raw_spin_lock(&fwq_mayday_lock);
	if (fwq_need_to_create_worker(pool)) {
		list_for_each_entry(work, &pool->worklist, entry)
			fwq_send_mayday(work, &wb);
	}
	raw_spin_unlock(&fwq_mayday_lock);
	/* a timer may run in a preemptible thread (PREEMPT_RT) */
	preempt_disable();
	fwq_pool_depth_dec();
	raw_spin_unlock_irqrestore(&pool->lock, flags);
	fwq_wake_batch_issue(&wb);
	preempt_enable();

	mod_timer(&pool->mayday_timer, jiffies + FWQ_MAYDAY_INTERVAL);
}

/**
 * fwq_init_rescuer - create the rescuer of an FWQ_MEM_RECLAIM workqueue
 * @wq: the workqueue being allocated
 *
 * Context: may sleep.
 * Return: 0 (also for a workqueue without FWQ_MEM_RECLAIM) or -errno.
 */
int fwq_init_rescuer(struct fwq_workqueue *wq)
{
	struct fwq_worker *rescuer;
	struct task_struct *task;

	if (!(wq->flags & FWQ_MEM_RECLAIM))
		return 0;
	rescuer = fwq_alloc_worker(NUMA_NO_NODE, FWQ_OBJ_RESCUER);
	if (!rescuer)
		return -ENOMEM;
	rescuer->rescue_wq = wq;
	task = kthread_create(fwq_rescuer_thread, rescuer, "fwq/R-%s",
			      wq->name);
	if (IS_ERR(task)) {
		atomic_dec(&fwq_objects[FWQ_OBJ_RESCUER]);
		kfree(rescuer);
		return PTR_ERR(task);
	}
	get_task_struct(task);
	rescuer->task = task;
	/* as mainline: the highest priority, and no setaffinity from outside */
	set_user_nice(task, MIN_NICE);
	fwq_kthread_no_setaffinity(task);
	wq->rescuer = rescuer;
	wake_up_process(task);
	return 0;
}

/*
 * The rescuer. It serves the maydays of one FWQ_MEM_RECLAIM workqueue:
 * pools that could not create a worker in time send the pwqs of their
 * waiting items here.
 */
static bool fwq_assign_rescuer_work(struct fwq_pwq *pwq,
				    struct fwq_worker *rescuer)
{
	struct fwq_pool *pool = pwq->pool;
	struct fwq_work *cursor = &pwq->mayday_cursor;
	struct fwq_work *work, *n;

	if (!pwq->nr_active)
		return false;
	/*
	 * The pool has an idle worker again, so it needs no rescue; but as
	 * in Linux 7.3, while its manager is still trying to create a worker
	 * the memory pressure may not be over, and a rescuer that leaves now
	 * may be sent for again a mayday interval later. Go on, unless other
	 * pwqs wait for this rescuer (read without fwq_mayday_lock: a hint,
	 * as in 7.3).
	 */
	if (!fwq_need_to_create_worker(pool) &&
	    (!(pool->flags & POOL_MANAGER_ACTIVE) ||
	     !list_empty(&pwq->wq->maydays)))
		return false;

	/* start after the cursor if it is still on the worklist */
	if (list_empty(&cursor->entry))
		work = list_first_entry(&pool->worklist, struct fwq_work, entry);
	else
		work = list_next_entry(cursor, entry);

	list_for_each_entry_safe_from(work, n, &pool->worklist, entry) {
		if (work->func == fwq_mayday_cursor_func)
			continue;
		if (fwq_work_pwq(work) == pwq &&
		    fwq_assign_work(work, rescuer, &n)) {
			pwq->stats[PWQ_STAT_RESCUED]++;
			/* cursor right before the next item */
			list_move_tail(&cursor->entry, &n->entry);
			return true;
		}
	}
	/* nothing after the cursor: it stays for a requeued turn */
	return false;
}

int fwq_rescuer_thread(void *data)
{
	struct fwq_worker *rescuer = data;
	struct fwq_workqueue *wq = rescuer->rescue_wq;
	bool should_stop;

repeat:
	set_current_state(TASK_IDLE);
	should_stop = kthread_should_stop();

	raw_spin_lock_irq(&fwq_mayday_lock);
	while (!list_empty(&wq->maydays)) {
		struct fwq_pwq *pwq = list_first_entry(&wq->maydays,
						       struct fwq_pwq,
						       mayday_node);
		struct fwq_pool *pool = pwq->pool;
		unsigned int count = 0;

		__set_current_state(TASK_RUNNING);
		list_del_init(&pwq->mayday_node);
		raw_spin_unlock_irq(&fwq_mayday_lock);

		fwq_worker_attach_to_pool(rescuer, pool);

		fwq_pool_lock_irq(pool);
		while (fwq_assign_rescuer_work(pwq, rescuer)) {
			fwq_process_scheduled_works(rescuer);
			/*
			 * A batch done and other pwqs waiting: let them in
			 * first and come back to this one, if it still needs
			 * help. Alone on the list, it just goes on.
			 */
			if (++count > FWQ_RESCUER_BATCH &&
			    !list_empty(&wq->maydays) && pwq->nr_active &&
			    fwq_need_to_create_worker(pool)) {
				raw_spin_lock(&fwq_mayday_lock);
				/* not if destroy took the rescuer away */
				if (wq->rescuer &&
				    list_empty(&pwq->mayday_node)) {
					fwq_get_pwq(pwq);
					list_add_tail(&pwq->mayday_node,
						      &wq->maydays);
					/* a mayday, as 7.3 counts it */
					pwq->stats[PWQ_STAT_MAYDAY]++;
					atomic64_inc(&fwq_rescuer_requeues);
				}
				raw_spin_unlock(&fwq_mayday_lock);
				break;
			}
		}
		/* a requeued pwq keeps its place; otherwise no one watches it */
		if (list_empty(&pwq->mayday_node))
			list_del_init(&pwq->mayday_cursor.entry);
		fwq_kick_pool(pool, &rescuer->wb, wq, FWQ_SITE_OTHER);
		fwq_pool_unlock_irq_issue(pool, &rescuer->wb);

		fwq_worker_detach_from_pool(rescuer);
		/* the reference taken by send_mayday */
		fwq_put_pwq_unlocked(pwq);

		raw_spin_lock_irq(&fwq_mayday_lock);
	}
	raw_spin_unlock_irq(&fwq_mayday_lock);

	if (should_stop) {
		__set_current_state(TASK_RUNNING);
		return 0;
	}
	schedule();
	goto repeat;
}

/**
 * fwq_init_mayday_cursor - set up a pwq's rescuer cursor item
 * @pwq: the new pwq
 *
 * The cursor is a work item that never runs: it only marks, on the pool's
 * worklist, where the rescuer stopped in @pwq's items.
 */
void fwq_init_mayday_cursor(struct fwq_pwq *pwq)
{
	FWQ_INIT_WORK(&pwq->mayday_cursor, fwq_mayday_cursor_func);
	atomic_long_set(&pwq->mayday_cursor.data,
			(unsigned long)pwq | FWQ_WORK_STRUCT_PENDING |
			FWQ_WORK_STRUCT_PWQ | FWQ_WORK_STRUCT_INACTIVE);
}
