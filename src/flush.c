// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: flush_workqueue (colors, flusher queue, overflow, cascade) and
 * drain; the per-pwq step every flush design's walk calls,
 * fwq_flush_visit(), is inline in ops.h. flush_work() and its barriers are
 * in barrier.c.
 *
 * The walk design is fixed per workqueue at creation (flush=); each is a
 * struct fwq_flush_ops in a file of its own, listed in the registry
 * (include/fwq/variants.h): flush_each.c, flush_coalesce.c,
 * flush_active.c and flush_lockless.c, each walk called directly from the
 * registry's switch (fwq_flush_walk()). A flush with nothing in flight
 * still completes its own flusher and counts a flush wakeup, as mainline's
 * does, in every design but those whose ops set .quiet_idle
 * (flush=lockless): there it returns without either
 * (fwq_flush_prep_pwqs()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "dbg.h"
#include "internal.h"
#include "ops.h"
#include "fwq_trace.h"

/* the design's walk, called directly from the registry's switch */
static __always_inline bool fwq_flush_walk(struct fwq_workqueue *wq,
					   int flush_color, int work_color)
{
	return FWQ_FLUSH_VARIANTS(__FWQ_FLUSH_WALK_TERM) false;
}

/*
 * The walk while the counters are on (fwq_flush_count_cycle(), ops.h): its
 * visits and lock cycles are added to @by, the flusher that runs it
 * (fwq_flush_end). Out of line, so that the walk with the counters off
 * keeps nothing across it.
 */
static noinline bool fwq_flush_walk_counted(struct fwq_workqueue *wq,
					    struct fwq_flusher *by,
					    int flush_color, int work_color)
{
	u64 visited = wq->flush_pwqs_visited;
	u64 cycles = wq->flush_lock_cycles;
	bool wait = fwq_flush_walk(wq, flush_color, work_color);

	/* a walk that the key's switch cut in two is not the flusher's */
	if (fwq_counters_on()) {
		by->pwqs_visited += wq->flush_pwqs_visited - visited;
		by->lock_cycles += wq->flush_lock_cycles - cycles;
	}
	return wait;
}

/*
 * Prepare pwqs for a flush: arm @flush_color and/or advance to @work_color.
 * Inline in every caller, so that fwq_flush_workqueue() calls the walk
 * itself, as mainline's __flush_workqueue() calls the function that holds
 * its loop. @own: @by is the first flusher, which prepares its own colour
 * and waits only if this returns true (a constant at each call site; the
 * cascade prepares the colour of another flusher, which waits already).
 * Return: true if something must be waited for; if not, and flushing, the
 * first flusher has been completed already, unless it is @by itself
 * (@own) and the design's ops set .quiet_idle: then there was nothing to
 * complete it for, and it was not.
 */
static __always_inline bool fwq_flush_prep_pwqs(struct fwq_workqueue *wq,
						struct fwq_flusher *by,
						int flush_color,
						int work_color, bool own)
{
	bool wait;

	lockdep_assert_held(&wq->mutex);

	if (flush_color >= 0) {
		fwq_check(!atomic_read(&wq->nr_pwqs_to_flush),
			  "%s: nr_pwqs_to_flush not zero", wq->name);
		atomic_set(&wq->nr_pwqs_to_flush, 1);	/* bias */
	}

	if (fwq_counters_on())
		wait = fwq_flush_walk_counted(wq, by, flush_color, work_color);
	else
		wait = fwq_flush_walk(wq, flush_color, work_color);

	if (flush_color < 0)
		return wait;
	/*
	 * Nothing armed, so nothing else holds the bias: a flusher that
	 * waits for nothing needs no completion, and no wakeup is counted.
	 * Only a quiet design skips them; mainline completes it all the
	 * same, and so do the designs that stand for mainline's.
	 */
	if (own && !wait && wq->flush_ops->quiet_idle)
		atomic_set(&wq->nr_pwqs_to_flush, 0);
	else if (atomic_dec_and_test(&wq->nr_pwqs_to_flush))
		fwq_wake_complete(&wq->first_flusher->done,
				  wq->first_flusher->task, wq);
	return wait;
}

/*
 * The flush-mutex wait (include/fwq/stats.h), while the counters are on:
 * every fwq workqueue's together, as atomics, since the flushers of
 * different workqueues hold different mutexes.
 */
static atomic64_t fwq_flush_wait_flushes;
static atomic64_t fwq_flush_wait_ns;
static atomic64_t fwq_flush_wait_hist[FWQ_FLUSH_WAIT_BUCKETS];

static noinline void fwq_flush_wait_count(u64 t0)
{
	u64 ns = ktime_get_ns() - t0;

	atomic64_inc(&fwq_flush_wait_flushes);
	atomic64_add(ns, &fwq_flush_wait_ns);
	atomic64_inc(&fwq_flush_wait_hist[fwq_flush_wait_bucket(ns)]);
}

void fwq_flush_waits_read(struct fwq_flush_waits *out)
{
	unsigned int b;

	out->flushes = atomic64_read(&fwq_flush_wait_flushes);
	out->wait_ns = atomic64_read(&fwq_flush_wait_ns);
	for (b = 0; b < FWQ_FLUSH_WAIT_BUCKETS; b++)
		out->hist[b] = atomic64_read(&fwq_flush_wait_hist[b]);
}
EXPORT_SYMBOL_GPL(fwq_flush_waits_read);

atomic64_t fwq_flush_dependencies;

/* @worker runs an item of an FWQ_MEM_RECLAIM workqueue */
static bool fwq_worker_is_mem_reclaim(struct fwq_worker *worker)
{
	return worker && worker->current_pwq &&
	       (worker->current_pwq->wq->flags & FWQ_MEM_RECLAIM);
}

bool fwq_current_is_mem_reclaim(void)
{
	return fwq_worker_is_mem_reclaim(fwq_current_worker());
}
EXPORT_SYMBOL_GPL(fwq_current_is_mem_reclaim);

/**
 * fwq_check_flush_dependency - log a flush that reclaim could deadlock on
 * @wq: the workqueue flushed, or the one of the item flushed
 * @work: the item flushed, or NULL for a flush of @wq
 * @from_cancel: the flush is a cancel's
 *
 * As mainline's check_flush_dependency(): a worker of an FWQ_MEM_RECLAIM
 * workqueue, or a PF_MEMALLOC task, that waits for a workqueue without
 * FWQ_MEM_RECLAIM may wait for a worker that memory pressure keeps from
 * being created. Mainline WARNs once; fwq logs one line and counts it
 * (debug counter flush_dependency), and the flush goes on.
 */
void fwq_check_flush_dependency(struct fwq_workqueue *wq,
				struct fwq_work *work, bool from_cancel)
{
	struct fwq_worker *worker;
	fwq_work_func_t target = work ? work->func : NULL;

	if (from_cancel || (wq->flags & FWQ_MEM_RECLAIM))
		return;
	worker = fwq_current_worker();
	if (current->flags & PF_MEMALLOC) {
		atomic64_inc(&fwq_flush_dependencies);
		pr_warn_ratelimited("PF_MEMALLOC task %d(%s) is flushing !FWQ_MEM_RECLAIM %s:%ps\n",
				    current->pid, current->comm, wq->name,
				    target);
	} else if (fwq_worker_is_mem_reclaim(worker)) {
		atomic64_inc(&fwq_flush_dependencies);
		pr_warn_ratelimited("FWQ_MEM_RECLAIM %s:%ps is flushing !FWQ_MEM_RECLAIM %s:%ps\n",
				    worker->current_pwq->wq->name,
				    worker->current_func, wq->name, target);
	}
}

/*
 * @t0: the clock at the call while the counters are on (0 while they are
 * off): the start of the flush-mutex wait and of the flush_ns time, one
 * read for both.
 */
static noinline void __fwq_flush_workqueue(struct fwq_workqueue *wq, u64 t0)
{
	struct fwq_flusher this_flusher = {
		.list = LIST_HEAD_INIT(this_flusher.list),
		.flush_color = -1,
		.task = current,
	};
	struct fwq_worker *worker;
	int next_color;

	worker = fwq_current_worker_of(wq);
	init_completion(&this_flusher.done);
	/* an item of @wq that flushes @wq waits for itself: lockdep sees it */
	fwq_lockdep_touch_wq(wq);
	if (unlikely(worker)) {
		/* and fwq refuses it rather than hang the worker for ever */
		atomic64_inc(&fwq_misuse_count);
		pr_err_ratelimited("%ps flushes its own workqueue %s: refused\n",
				   worker->current_func, wq->name);
		return;
	}

	mutex_lock(&wq->mutex);
	if (t0 && fwq_counters_on())
		fwq_flush_wait_count(t0);
	trace_fwq_flush_start(wq);
	wq->nr_flushes++;

	next_color = fwq_work_next_color(wq->work_color);
	if (next_color != wq->flush_color) {
		/* a color is free: take the current one and advance */
		fwq_check(list_empty(&wq->flusher_overflow),
			  "%s: overflow with a free color", wq->name);
		this_flusher.flush_color = wq->work_color;
		wq->work_color = next_color;

		if (!wq->first_flusher) {
			fwq_check(wq->flush_color == this_flusher.flush_color,
				  "%s: first flusher color", wq->name);
			wq->first_flusher = &this_flusher;
			if (!fwq_flush_prep_pwqs(wq, &this_flusher,
						 wq->flush_color,
						 wq->work_color, true)) {
				/* nothing in flight */
				wq->flush_color = next_color;
				wq->first_flusher = NULL;
				goto out_unlock;
			}
		} else {
			fwq_check(wq->flush_color != this_flusher.flush_color,
				  "%s: queued flusher color", wq->name);
			list_add_tail(&this_flusher.list, &wq->flusher_queue);
			fwq_flush_prep_pwqs(wq, &this_flusher, -1,
					    wq->work_color, false);
		}
	} else {
		/* all colors in use: wait on the overflow list */
		list_add_tail(&this_flusher.list, &wq->flusher_overflow);
	}
	/* as mainline: checked only by a flush that waits */
	fwq_check_flush_dependency(wq, NULL, false);
	mutex_unlock(&wq->mutex);

	wait_for_completion(&this_flusher.done);

	/* only the first flusher cascades; the others are done */
	if (READ_ONCE(wq->first_flusher) != &this_flusher) {
		trace_fwq_flush_end(wq, this_flusher.flush_color,
				    this_flusher.pwqs_visited,
				    this_flusher.lock_cycles);
		return;
	}

	mutex_lock(&wq->mutex);
	if (wq->first_flusher != &this_flusher)
		goto out_unlock;
	WRITE_ONCE(wq->first_flusher, NULL);

	fwq_check(list_empty(&this_flusher.list) &&
		  wq->flush_color == this_flusher.flush_color,
		  "%s: cascade start", wq->name);

	while (true) {
		struct fwq_flusher *next, *tmp;

		/* complete every flusher of the flushed color */
		list_for_each_entry_safe(next, tmp, &wq->flusher_queue, list) {
			if (next->flush_color != wq->flush_color)
				break;
			list_del_init(&next->list);
			fwq_wake_complete(&next->done, next->task, wq);
		}
		fwq_check(list_empty(&wq->flusher_overflow) ||
			  wq->flush_color == fwq_work_next_color(wq->work_color),
			  "%s: overflow without full colors", wq->name);

		wq->flush_color = fwq_work_next_color(wq->flush_color);

		if (!list_empty(&wq->flusher_overflow)) {
			/* a color freed up: give it to the overflowed ones */
			list_for_each_entry(tmp, &wq->flusher_overflow, list)
				tmp->flush_color = wq->work_color;
			wq->work_color = fwq_work_next_color(wq->work_color);
			list_splice_tail_init(&wq->flusher_overflow,
					      &wq->flusher_queue);
			fwq_flush_prep_pwqs(wq, &this_flusher, -1,
					    wq->work_color, false);
		}

		if (list_empty(&wq->flusher_queue)) {
			fwq_check(wq->flush_color == wq->work_color,
				  "%s: colors after cascade", wq->name);
			break;
		}

		/* the next color: make its first flusher the first flusher */
		fwq_check(wq->flush_color != wq->work_color, "%s: cascade color",
			  wq->name);
		next = list_first_entry(&wq->flusher_queue, struct fwq_flusher,
					list);
		fwq_check(wq->flush_color == next->flush_color,
			  "%s: next flusher color", wq->name);
		list_del_init(&next->list);
		wq->first_flusher = next;
		if (fwq_flush_prep_pwqs(wq, &this_flusher, wq->flush_color,
					-1, false))
			break;
		/* that color is done already (and @next completed): repeat */
		wq->first_flusher = NULL;
	}
out_unlock:
	trace_fwq_flush_end(wq, this_flusher.flush_color,
			    this_flusher.pwqs_visited, this_flusher.lock_cycles);
	mutex_unlock(&wq->mutex);
}

/*
 * The flush, timed while the counters are on (the flush_ns counter of
 * debugfs stats): from the call to the return, its wait for wq->mutex,
 * the walk and the wait for the flushed items included. With the
 * counters off it reads no clock.
 */
void fwq_flush_workqueue(struct fwq_workqueue *wq)
{
	u64 t0;

	if (!fwq_counters_on()) {
		__fwq_flush_workqueue(wq, 0);
		return;
	}
	t0 = ktime_get_ns();
	__fwq_flush_workqueue(wq, t0);
	this_cpu_add(wq->pcpu_stats->flush_ns, ktime_get_ns() - t0);
}
EXPORT_SYMBOL_GPL(fwq_flush_workqueue);

static u64 fwq_wq_queued_sum(struct fwq_workqueue *wq)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(wq->pcpu_stats, cpu)->queued);
	return sum;
}

/**
 * fwq_refuse_own_item - refuse an item's drain or destroy of its workqueue
 * @wq: the workqueue drained or destroyed
 * @what: "drains" or "destroys", for the log line
 *
 * An item of @wq would wait for itself: in mainline a sleeping hang. fwq
 * refuses it with one log line, counted as misuse, and changes nothing.
 *
 * Return: true if refused.
 */
bool fwq_refuse_own_item(struct fwq_workqueue *wq, const char *what)
{
	struct fwq_worker *worker = fwq_current_worker_of(wq);

	if (likely(!worker))
		return false;
	atomic64_inc(&fwq_misuse_count);
	pr_err_ratelimited("%ps %s its own workqueue %s: refused\n",
			   worker->current_func, what, wq->name);
	return true;
}

void fwq_drain_workqueue(struct fwq_workqueue *wq)
{
	unsigned int flush_cnt = 0;
	struct fwq_pwq *pwq;
	u64 queued;

	might_sleep();
	if (fwq_refuse_own_item(wq, "drains"))
		return;
	mutex_lock(&wq->mutex);
	if (!wq->nr_drainers++)
		WRITE_ONCE(wq->flags, wq->flags | __FWQ_DRAINING);
	mutex_unlock(&wq->mutex);
reflush:
	fwq_flush_workqueue(wq);

	mutex_lock(&wq->mutex);
	wq->nr_drain_passes++;
	/*
	 * A chained item running during the scan may queue to a pwq already
	 * scanned and finish before its own pwq is scanned, so an all-empty
	 * scan alone proves nothing: it must also see no queueing. The
	 * counter is bumped under the pool lock the item is inserted under.
	 */
	queued = fwq_wq_queued_sum(wq);
	list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
		bool drained;

		fwq_pool_lock_irq(pwq->pool);
		drained = !pwq->nr_active && list_empty(&pwq->inactive_works);
		fwq_pool_unlock_irq(pwq->pool);
		if (drained)
			continue;
		if (++flush_cnt == 10 ||
		    (flush_cnt % 100 == 0 && flush_cnt <= 1000))
			pr_warn("%s isn't draining after %u tries\n", wq->name,
				flush_cnt);
		mutex_unlock(&wq->mutex);
		goto reflush;
	}
	if (fwq_wq_queued_sum(wq) != queued) {
		mutex_unlock(&wq->mutex);
		goto reflush;
	}
	if (!--wq->nr_drainers)
		WRITE_ONCE(wq->flags, wq->flags & ~__FWQ_DRAINING);
	mutex_unlock(&wq->mutex);
}
EXPORT_SYMBOL_GPL(fwq_drain_workqueue);
