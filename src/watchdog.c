// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: the stall watchdog.
 *
 * A pool stalls when it has items on its worklist and none of them starts
 * for watchdog_thresh_ms (module parameter, 0 = off). The pool's progress
 * stamp, pool->last_progress_ts, is written under pool->lock when a worker
 * starts a batch of items (fwq_process_scheduled_works()) and when the
 * worklist goes from empty to non-empty (the enqueue and the activation of
 * an inactive item), so that an idle pool that just got work does not look
 * stalled. This is mainline's pool->watchdog_ts (kernel/workqueue.c).
 *
 * A timer, fwq_wd_timer, runs every thresh / 4 and walks the pool idr
 * under RCU. For each pool it peeks at the worklist and the stamp without
 * the lock; only a pool that looks stalled is locked, checked again (the
 * enqueue writes the worklist and the stamp under the lock, hazard H14 in
 * docs/hazards.md) and snapshotted. The report is printed after the unlock:
 * one summary line, the busy workers (function, pid, run time) and the
 * first pending items. A stall is reported once: the pool remembers the
 * stamp it was reported at and stays quiet until the stamp moves.
 *
 * Pools are freed only after an RCU grace period once they left the idr
 * (src/pool.c), so the walk never touches freed memory. A pool being
 * destroyed has an empty worklist and is never locked; POOL_DYING is
 * checked under the lock all the same.
 *
 * Differences from mainline's wq_watchdog: the threshold is in ms, not s;
 * each stall is reported once, not once per period; a report names the
 * pool, its busy workers and its first pending items instead of dumping
 * every workqueue, and does not say "BUG:" (a deliberate stall in a test
 * must not fail the run); there is no touch API for the soft-lockup
 * detector. What mainline gets from its touch stamps against false reports
 * after the machine itself stopped (a paused VM) fwq gets from the timer:
 * a run that comes more than half a threshold late skips its checks and
 * restarts the clock of every pool.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/timer.h>

#include "internal.h"

/* busy workers and pending items a report names */
#define FWQ_WD_SHOW		4
/* the pending items a report counts, at most (the lock is held) */
#define FWQ_WD_COUNT_MAX	1000

unsigned int fwq_watchdog_thresh_ms = 30000;
atomic64_t fwq_watchdog_reports;

/* serialises the timer's (re)arming against the module exit */
static DEFINE_MUTEX(fwq_wd_mutex);
/* written under fwq_wd_mutex, read there or by the timer (READ_ONCE()) */
static bool fwq_wd_live;		/* between init and exit */
static struct timer_list fwq_wd_timer;
/* WRITE_ONCE() by the arming and the timer, READ_ONCE() by the timer */
static unsigned long fwq_wd_expires;	/* when the timer is due */
static unsigned long fwq_wd_touched;	/* no stall is older than this */

struct fwq_wd_busy {
	fwq_work_func_t func;
	pid_t pid;
	unsigned int ms;
};

struct fwq_wd_report {
	unsigned int stalled_ms;
	int nr_workers;
	int nr_idle;
	int nr_running;
	int nr_busy;
	int nr_pending;
	bool disassociated;
	struct fwq_wd_busy busy[FWQ_WD_SHOW];
	fwq_work_func_t pending[FWQ_WD_SHOW];
};

static unsigned long fwq_wd_thresh(void)
{
	unsigned int ms = READ_ONCE(fwq_watchdog_thresh_ms);

	return ms ? max(msecs_to_jiffies(ms), 1UL) : 0;
}

/* when did the pool last make progress, as far as the watchdog counts */
static unsigned long fwq_wd_since(unsigned long stamp)
{
	unsigned long touched = READ_ONCE(fwq_wd_touched);

	return time_after(touched, stamp) ? touched : stamp;
}

static bool fwq_wd_overdue(unsigned long stamp, unsigned long now,
			   unsigned long thresh)
{
	return time_after(now, fwq_wd_since(stamp) + thresh);
}

/* under pool->lock: is it stalled and not yet reported? Snapshot it. */
static bool fwq_wd_snapshot(struct fwq_pool *pool, unsigned long now,
			    unsigned long thresh, struct fwq_wd_report *r)
{
	unsigned long stamp = pool->last_progress_ts;
	struct fwq_worker *worker;
	struct fwq_work *work;
	int bkt;

	if ((pool->flags & POOL_DYING) || list_empty(&pool->worklist) ||
	    stamp == pool->watchdog_reported_ts ||
	    !fwq_wd_overdue(stamp, now, thresh))
		return false;
	pool->watchdog_reported_ts = stamp;

	memset(r, 0, sizeof(*r));
	r->stalled_ms = jiffies_to_msecs(now - stamp);
	r->nr_workers = pool->nr_workers;
	r->nr_idle = pool->nr_idle;
	r->nr_running = fwq_pool_nr_running(pool);
	r->disassociated = pool->flags & POOL_DISASSOCIATED;
	hash_for_each(pool->busy_hash, bkt, worker, hentry) {
		if (r->nr_busy < FWQ_WD_SHOW) {
			struct fwq_wd_busy *b = &r->busy[r->nr_busy];

			b->func = worker->current_func;
			b->pid = task_pid_nr(worker->task);
			b->ms = jiffies_to_msecs(now - worker->current_start);
		}
		r->nr_busy++;
	}
	list_for_each_entry(work, &pool->worklist, entry) {
		if (r->nr_pending < FWQ_WD_SHOW)
			r->pending[r->nr_pending] = work->func;
		if (++r->nr_pending == FWQ_WD_COUNT_MAX)
			break;
	}
	return true;
}

/*
 * The report: no line may match the badness patterns of
 * scripts/console-scan.sh, which would fail a test run with a deliberate
 * stall.
 */
static void fwq_wd_print(struct fwq_pool *pool, const struct fwq_wd_report *r)
{
	int i;

	if (pool->cpu >= 0)
		pr_warn("pool %d cpu=%d%s node=%d stalled for %u ms: workers=%d idle=%d nr_running=%d busy=%d pending=%d%s%s\n",
			pool->id, pool->cpu, pool->highpri ? "H" : "",
			pool->node, r->stalled_ms, r->nr_workers, r->nr_idle,
			r->nr_running, r->nr_busy, r->nr_pending,
			r->nr_pending == FWQ_WD_COUNT_MAX ? "+" : "",
			r->disassociated ? " disassociated" : "");
	else
		pr_warn("pool %d unbound node=%d stalled for %u ms: workers=%d idle=%d nr_running=%d busy=%d pending=%d%s\n",
			pool->id, pool->node, r->stalled_ms, r->nr_workers,
			r->nr_idle, r->nr_running, r->nr_busy, r->nr_pending,
			r->nr_pending == FWQ_WD_COUNT_MAX ? "+" : "");
	for (i = 0; i < min(r->nr_busy, FWQ_WD_SHOW); i++)
		pr_warn("pool %d busy: pid %d runs %ps for %u ms\n", pool->id,
			r->busy[i].pid, r->busy[i].func, r->busy[i].ms);
	for (i = 0; i < min(r->nr_pending, FWQ_WD_SHOW); i++)
		pr_warn("pool %d pending %d: %ps\n", pool->id, i,
			r->pending[i]);
}

static void fwq_wd_check_pool(struct fwq_pool *pool, unsigned long now,
			      unsigned long thresh)
{
	struct fwq_wd_report r;
	unsigned long stamp;
	bool report;

	/*
	 * The cheap look, without the lock: most pools have an empty
	 * worklist or a recent stamp. A stale answer is fine either way: a
	 * stall missed now is seen by the next run, and a stall seen here is
	 * checked again under the lock.
	 */
	if (list_empty(&pool->worklist))
		return;
	/* racy on purpose: written under pool->lock, checked again there */
	stamp = data_race(pool->last_progress_ts);
	if (!fwq_wd_overdue(stamp, now, thresh))
		return;

	fwq_pool_lock_irq(pool);
	report = fwq_wd_snapshot(pool, now, thresh, &r);
	fwq_pool_unlock_irq(pool);
	if (!report)
		return;
	atomic64_inc(&fwq_watchdog_reports);
	fwq_wd_print(pool, &r);
}

/* fwq_wd_mutex held, or the timer itself */
static void fwq_wd_arm(unsigned long thresh)
{
	unsigned long expires = jiffies + max(thresh / 4, 1UL);

	WRITE_ONCE(fwq_wd_expires, expires);
	mod_timer(&fwq_wd_timer, expires);
}

static void fwq_wd_timer_fn(struct timer_list *unused)
{
	unsigned long thresh = fwq_wd_thresh();
	unsigned long now = jiffies;
	struct fwq_pool *pool;
	int id;

	/* off, or unloading: the parameter's write arms the timer again */
	if (!thresh || !READ_ONCE(fwq_wd_live))
		return;

	if (time_after(now, READ_ONCE(fwq_wd_expires) + thresh / 2)) {
		/* this timer did not run: nor, maybe, did anything else */
		WRITE_ONCE(fwq_wd_touched, now);
	} else {
		/* an old touch stamp stays in time_after()'s range */
		if (time_after(now, READ_ONCE(fwq_wd_touched) + 2 * thresh))
			WRITE_ONCE(fwq_wd_touched, now - 2 * thresh);
		rcu_read_lock();
		idr_for_each_entry(&fwq_pool_idr, pool, id)
			fwq_wd_check_pool(pool, now, thresh);
		rcu_read_unlock();
	}
	fwq_wd_arm(thresh);
}

/**
 * fwq_watchdog_thresh_changed - watchdog_thresh_ms was written
 *
 * Restarts the clock of every pool (a stall counts from the change on, as
 * mainline's wq_watchdog_set_thresh() does) and arms or stops the timer.
 * Before fwq_watchdog_init() (a parameter given at load) only the value
 * changes.
 */
void fwq_watchdog_thresh_changed(void)
{
	unsigned long thresh = fwq_wd_thresh();

	mutex_lock(&fwq_wd_mutex);
	if (fwq_wd_live) {
		WRITE_ONCE(fwq_wd_touched, jiffies);
		if (thresh)
			fwq_wd_arm(thresh);
		else
			fwq_timer_delete(&fwq_wd_timer);
	}
	mutex_unlock(&fwq_wd_mutex);
}

/**
 * fwq_watchdog_init - start the watchdog (module load, last step)
 */
void fwq_watchdog_init(void)
{
	timer_setup(&fwq_wd_timer, fwq_wd_timer_fn, 0);
	mutex_lock(&fwq_wd_mutex);
	WRITE_ONCE(fwq_wd_live, true);
	mutex_unlock(&fwq_wd_mutex);
	fwq_watchdog_thresh_changed();
}

/**
 * fwq_watchdog_exit - stop the watchdog (module unload, first step)
 *
 * After this no parameter write arms the timer, and the timer neither runs
 * nor is pending: timer_delete_sync() waits for a running callback and
 * then deletes the timer the callback armed again.
 */
void fwq_watchdog_exit(void)
{
	mutex_lock(&fwq_wd_mutex);
	WRITE_ONCE(fwq_wd_live, false);
	mutex_unlock(&fwq_wd_mutex);
	fwq_timer_delete_sync(&fwq_wd_timer);
}
