/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq: statistics, for fwq_bench and the selftests: per-workqueue counters,
 * the pool->lock hold and wait histograms, and the global debug counters.
 * Included by <fwq/fwq.h>.
 */
#ifndef _FWQ_STATS_H
#define _FWQ_STATS_H

#include <linux/log2.h>
#include <linux/types.h>

#include <fwq/variants.h>

struct fwq_workqueue;

/**
 * enum fwq_wake_site - where a worker wakeup was issued
 * @FWQ_SITE_QUEUE: __queue_work
 * @FWQ_SITE_CHAIN: the chain kick in process_one_work
 * @FWQ_SITE_ACTIVATE: an inactive item made active outside __queue_work:
 *	a freed nr_active slot handed to it, or max_active raised
 * @FWQ_SITE_CM: per-CPU concurrency management (a worker went to sleep)
 * @FWQ_SITE_FLUSH: the completion that ends a flusher's wait (the last
 *	item of a flush color, the flusher cascade, a flush_work barrier)
 * @FWQ_SITE_RELEASE: the bounce of a pwq release to fwq's kthread worker
 * @FWQ_SITE_OTHER: manager (and its destroyer's wait), mayday, hotplug,
 *	destruction
 * @FWQ_SITE_NR: number of sites
 *
 * Worker wakeups go through wake_up_process(); the FLUSH and RELEASE sites
 * wake their task through complete() and kthread_queue_work(), and count
 * the call, whether or not the task was already awake.
 */
enum fwq_wake_site {
	FWQ_SITE_QUEUE,
	FWQ_SITE_CHAIN,
	FWQ_SITE_ACTIVATE,
	FWQ_SITE_CM,
	FWQ_SITE_FLUSH,
	FWQ_SITE_RELEASE,
	FWQ_SITE_OTHER,
	FWQ_SITE_NR,
};

/*
 * The sites' names, in enum order, are the registry's FWQ_WAKE_SITES list
 * (<fwq/variants.h>), as FWQ_WAKE_SITE_NAMES gives them.
 */

/**
 * struct fwq_wq_stats - cumulative counters of one workqueue
 * @queued: successful queueings
 * @started: items whose execution started
 * @completed: items whose execution finished
 * @flushes: fwq_flush_workqueue() calls (drain passes included)
 * @flush_pwqs_visited: pwqs visited by flushes, in total, while the
 *	counters are on (fwq_counters_get())
 * @flush_lock_cycles: lock acquisitions made by flush walks, in total: pool
 *	locks, and the per-node list locks of flush=active; while the
 *	counters are on
 * @flush_ns: time spent in fwq_flush_workqueue(), from its call to its
 *	return, summed over the flushes that began while the counters were
 *	on, in nanoseconds
 * @wakeups: wakeups issued on behalf of this workqueue, by site and
 *	by whether a pool lock was held at the wakeup call
 *	([site][0] = no lock held, [site][1] = under a pool lock); while the
 *	counters are on
 * @repatriated: idle workers of a non-strict unbound pool that a kick
 *	steered back into their pod, summed over the workqueue's current
 *	pwqs
 * @cpu_intensive: items run as CPU-intensive, from FWQ_CPU_INTENSIVE or
 *	flagged by the auto-detection (cpu_intensive_thresh_us), summed over
 *	the workqueue's current pwqs
 */
struct fwq_wq_stats {
	u64 queued;
	u64 started;
	u64 completed;
	u64 flushes;
	u64 flush_pwqs_visited;
	u64 flush_lock_cycles;
	u64 flush_ns;
	u64 wakeups[FWQ_SITE_NR][2];
	u64 repatriated;
	u64 cpu_intensive;
};

/**
 * fwq_workqueue_get_stats - read a workqueue's counters
 * @wq: the workqueue
 * @st: filled in
 */
void fwq_workqueue_get_stats(struct fwq_workqueue *wq, struct fwq_wq_stats *st);

/*
 * pool->lock hold/wait instrumentation (bench scenario S3). It sits behind a
 * static key and costs nothing while disabled.
 */
#define FWQ_LOCKSTAT_BUCKETS	32	/* log2 buckets of nanoseconds */

/**
 * enum fwq_lockstat_path - instrumented pool->lock sections
 * @FWQ_LS_ENQUEUE: __queue_work
 * @FWQ_LS_CHAIN: process_one_work: hold = from the chain kick to the unlock
 *	before the work function; wait = the relock after the function
 * @FWQ_LS_NR: number of paths
 */
enum fwq_lockstat_path {
	FWQ_LS_ENQUEUE,
	FWQ_LS_CHAIN,
	FWQ_LS_NR,
};

/**
 * struct fwq_lockstat - pool->lock hold and wait histograms
 * @hold: hold-time histogram per path; bucket i counts [2^i, 2^(i+1)) ns
 * @wait: wait-time (acquisition) histogram per path, same buckets
 * @wakeups_locked: wakeups issued with a pool lock held, per path
 */
struct fwq_lockstat {
	u64 hold[FWQ_LS_NR][FWQ_LOCKSTAT_BUCKETS];
	u64 wait[FWQ_LS_NR][FWQ_LOCKSTAT_BUCKETS];
	u64 wakeups_locked[FWQ_LS_NR];
};

/**
 * fwq_counters_get - turn the wakeup and flush walk counters (@wakeups,
 *	@flush_pwqs_visited and @flush_lock_cycles of struct fwq_wq_stats,
 *	debugfs "stats") on, until the matching fwq_counters_put();
 *	kernel-doc in src/wake.c
 */
void fwq_counters_get(void);
void fwq_counters_put(void);

/**
 * fwq_lockstat_enable - turn the pool->lock instrumentation on or off
 * @on: the new state; turning it on clears the histograms
 */
void fwq_lockstat_enable(bool on);

/**
 * fwq_lockstat_read - sum the per-CPU histograms
 * @out: filled in
 */
void fwq_lockstat_read(struct fwq_lockstat *out);

/*
 * The flush-mutex wait: the time from a call of fwq_flush_workqueue() to
 * its taking wq->mutex, where 7.3's __flush_workqueue() takes its own.
 * Counted, for every fwq workqueue together, only while the counters are
 * on (fwq_counters_get()), into log-linear buckets: FWQ_FLUSH_WAIT_SUB
 * buckets per power of two, so that a bucket is at most 1/8 of its lower
 * bound wide. Bucket b < 8 holds exactly b ns; bucket b >= 8 holds
 * [fwq_flush_wait_bucket_ns(b), fwq_flush_wait_bucket_ns(b + 1)).
 */
#define FWQ_FLUSH_WAIT_SUB	8
#define FWQ_FLUSH_WAIT_OCTAVES	32	/* 8 ns to 2^35 ns, about 34 s */
#define FWQ_FLUSH_WAIT_BUCKETS	(FWQ_FLUSH_WAIT_SUB * (1 + FWQ_FLUSH_WAIT_OCTAVES))

/**
 * struct fwq_flush_waits - the flush-mutex waits counted so far
 * @flushes: flushes that took wq->mutex while the counters were on
 * @wait_ns: their waits, summed
 * @hist: their waits, by bucket (fwq_flush_wait_bucket())
 */
struct fwq_flush_waits {
	u64 flushes;
	u64 wait_ns;
	u64 hist[FWQ_FLUSH_WAIT_BUCKETS];
};

/**
 * fwq_flush_wait_bucket - the bucket of a wait
 * @ns: the wait
 *
 * Return: its bucket, the last one for a wait beyond the range.
 */
static inline unsigned int fwq_flush_wait_bucket(u64 ns)
{
	unsigned int o;

	if (ns < FWQ_FLUSH_WAIT_SUB)
		return ns;
	o = ilog2(ns) - 3;	/* ns >= 8: o >= 0 */
	if (o >= FWQ_FLUSH_WAIT_OCTAVES)
		return FWQ_FLUSH_WAIT_BUCKETS - 1;
	return FWQ_FLUSH_WAIT_SUB * (o + 1) +
	       ((ns >> o) & (FWQ_FLUSH_WAIT_SUB - 1));
}

/**
 * fwq_flush_wait_bucket_ns - the lower bound of a bucket
 * @b: the bucket, 0 to FWQ_FLUSH_WAIT_BUCKETS (the end of the last one)
 *
 * Return: the least wait in bucket @b, in ns.
 */
static inline u64 fwq_flush_wait_bucket_ns(unsigned int b)
{
	unsigned int o;

	if (b < FWQ_FLUSH_WAIT_SUB)
		return b;
	o = b / FWQ_FLUSH_WAIT_SUB - 1;
	return (u64)(FWQ_FLUSH_WAIT_SUB + b % FWQ_FLUSH_WAIT_SUB) << o;
}

/**
 * fwq_flush_waits_read - the flush-mutex waits counted since fwq.ko loaded
 * @out: filled in; subtract two reads to count a span
 */
void fwq_flush_waits_read(struct fwq_flush_waits *out);

/* a global debug counter by name (kernel-doc in src/main.c) */
u64 fwq_debug_counter(const char *name);

#endif /* _FWQ_STATS_H */
