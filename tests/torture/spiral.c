// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_torture: the worker spiral load (mode=spiral).
 *
 * nproducers threads each queue @items distinct work items, as fast as
 * they can, on one unbound workqueue: fwq's (target=fwq, the variant
 * given) or the running kernel's own (target=kwq, alloc_workqueue()
 * WQ_UNBOUND), with the default max_active. The items do nothing but
 * count. Meanwhile a SCHED_FIFO sampler counts the unbound pools' worker
 * kthreads by name ("fwq/uID:N" or "kworker/uID:N", grouped by pool ID)
 * every SP_SAMPLE_MS: the same count for both targets. The run ends when
 * every item ran, or at the hard bound of @limit_s seconds (or a fatal
 * signal): the producers then stop and every item that has not started
 * is cancelled, so what is left to wait for is at most the items already
 * running. The bound bounds the load, in time as @items does in items: a
 * run cut short by it is reported (timed_out=1), not failed, since how far
 * a run gets in a given time is a timing.
 *
 * The verdict, on counts only: nothing lost (ran + cancelled == queued,
 * and no queueing refused), some item ran, and, when max_workers is not
 * 0, no pool that gained workers during the run had more than
 * max_workers at any sample (the kernel's pools may have more workers
 * than that before the run, from other work). The
 * console line "spiral: ..." carries the wall time, the baseline, peak
 * and final worker counts of the pool that grew most, and of all unbound
 * pools together.
 *
 * strict=1 (fwq only: a module cannot change the attributes of the
 * kernel's workqueues) makes the workqueue's pods strict, so that each
 * pool's workers run only on the CPUs of its pod, as the per-node pools
 * of kernels before 6.5 did.
 *
 * The workqueue stays until the module is removed, so that the plan can
 * read fwq's debugfs "pools" (created, culled) of the pools it used.
 */
#define pr_fmt(fmt) "fwq-torture: " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "torture.h"

#define SP_SAMPLE_MS	10
#define SP_MAX_POOLS	64		/* unbound pools tracked by ID */
#define SP_MAX_THREADS	64

struct sp_item {
	union {
		struct fwq_work fw;
		struct work_struct kw;
	};
	atomic_long_t *ran;
};

struct sp_pool {
	int id;
	int base;		/* workers before the load */
	int peak;		/* most workers at one sample */
	int last;		/* workers at the last sample */
};

struct sp_thread {
	struct task_struct *task;
	struct sp_item *items;
	unsigned int nr;
	unsigned long queued;
	unsigned long failed;	/* queueing refused: an item still pending */
};

static struct {
	bool kwq;
	const char *prefix;
	struct fwq_workqueue *fwq;
	struct workqueue_struct *wq;
	struct sp_thread th[SP_MAX_THREADS];
	int nth;
	atomic_long_t ran;
	bool stop;		/* producers: stop queueing */
	struct task_struct *sampler;
	struct mutex lock;	/* the pool table, between sampler and reader */
	struct sp_pool pools[SP_MAX_POOLS];
	int nr_pools;
	bool overflow;		/* more pools than SP_MAX_POOLS */
	int total_base, total_peak, total_last;
	unsigned long samples;
	bool baseline;		/* the next sample is the baseline */
} sp;

static void sp_fwq_fn(struct fwq_work *w)
{
	struct sp_item *it = container_of(w, struct sp_item, fw);

	atomic_long_inc(it->ran);
}

static void sp_kwq_fn(struct work_struct *w)
{
	struct sp_item *it = container_of(w, struct sp_item, kw);

	atomic_long_inc(it->ran);
}

/* the pool ID of an unbound worker's name "PREFIXID:N", or -1 */
static int sp_pool_id(const char *comm)
{
	size_t n = strlen(sp.prefix);
	int id = 0, digits = 0;
	const char *s;

	if (strncmp(comm, sp.prefix, n))
		return -1;
	for (s = comm + n; *s >= '0' && *s <= '9'; s++, digits++)
		id = id * 10 + (*s - '0');
	return digits && *s == ':' ? id : -1;
}

static struct sp_pool *sp_pool_get(int id)
{
	int i;

	for (i = 0; i < sp.nr_pools; i++)
		if (sp.pools[i].id == id)
			return &sp.pools[i];
	if (sp.nr_pools == SP_MAX_POOLS) {
		sp.overflow = true;
		return NULL;
	}
	sp.pools[sp.nr_pools].id = id;
	return &sp.pools[sp.nr_pools++];
}

/* count the unbound pools' workers once; under sp.lock */
static void sp_sample(void)
{
	static int count[SP_MAX_POOLS];
	char comm[TASK_COMM_LEN];
	struct task_struct *p;
	int i, total = 0;

	memset(count, 0, sizeof(count));
	rcu_read_lock();
	for_each_process(p) {
		struct sp_pool *pool;
		int id;

		if (!(p->flags & PF_KTHREAD))
			continue;
		get_task_comm(comm, p);
		id = sp_pool_id(comm);
		if (id < 0)
			continue;
		pool = sp_pool_get(id);
		if (pool)
			count[pool - sp.pools]++;
		total++;
	}
	rcu_read_unlock();

	for (i = 0; i < sp.nr_pools; i++) {
		struct sp_pool *pool = &sp.pools[i];

		if (sp.baseline)
			pool->base = count[i];
		pool->peak = max(pool->peak, count[i]);
		pool->last = count[i];
	}
	if (sp.baseline)
		sp.total_base = total;
	sp.total_peak = max(sp.total_peak, total);
	sp.total_last = total;
	sp.baseline = false;
	sp.samples++;
}

static int sp_sampler_fn(void *unused)
{
	while (!kthread_should_stop()) {
		mutex_lock(&sp.lock);
		sp_sample();
		mutex_unlock(&sp.lock);
		schedule_timeout_interruptible(msecs_to_jiffies(SP_SAMPLE_MS));
	}
	return 0;
}

static int sp_producer_fn(void *data)
{
	struct sp_thread *t = data;
	unsigned int i;

	for (i = 0; i < t->nr && !READ_ONCE(sp.stop); i++) {
		bool ok;

		if (sp.kwq)
			ok = queue_work(sp.wq, &t->items[i].kw);
		else
			ok = fwq_queue_work(sp.fwq, &t->items[i].fw);
		if (ok)
			t->queued++;
		else
			t->failed++;
		if (!(i % 256))
			cond_resched();
	}
	/* wait to be stopped: kthread_stop() needs the task */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void sp_free(void)
{
	int i;

	for (i = 0; i < sp.nth; i++) {
		kvfree(sp.th[i].items);
		sp.th[i].items = NULL;
	}
	sp.nth = 0;
}

/* stop the producers; their items stay allocated */
static void sp_stop_producers(void)
{
	int i;

	WRITE_ONCE(sp.stop, true);
	for (i = 0; i < sp.nth; i++) {
		if (sp.th[i].task) {
			kthread_stop(sp.th[i].task);
			put_task_struct(sp.th[i].task);
			sp.th[i].task = NULL;
		}
	}
}

/* cancel every item that has not started; the number cancelled */
static unsigned long sp_cancel_pending(void)
{
	unsigned long n = 0;
	unsigned int j;
	int i;

	for (i = 0; i < sp.nth; i++) {
		for (j = 0; j < sp.th[i].nr; j++) {
			struct sp_item *it = &sp.th[i].items[j];

			if (sp.kwq ? cancel_work(&it->kw) :
				     fwq_cancel_work(&it->fw))
				n++;
			if (!(j % 256))
				cond_resched();
		}
	}
	return n;
}

/* strict pods: each pool's workers only on its pod's CPUs */
static int sp_make_strict(void)
{
	struct fwq_workqueue_attrs *attrs;
	int ret;

	attrs = fwq_alloc_workqueue_attrs();
	if (!attrs)
		return -ENOMEM;
	attrs->affn_strict = true;
	attrs->variant = tt_variant;
	ret = fwq_apply_workqueue_attrs(sp.fwq, attrs);
	fwq_free_workqueue_attrs(attrs);
	return ret;
}

static void sp_destroy_wq(void)
{
	if (sp.wq)
		destroy_workqueue(sp.wq);
	if (sp.fwq)
		fwq_destroy_workqueue(sp.fwq);
	sp.wq = NULL;
	sp.fwq = NULL;
}

/**
 * tt_spiral - run the spiral load once
 * @kwq: on the kernel's workqueue, not fwq's
 * @nthreads: producer threads (1..SP_MAX_THREADS)
 * @items: items per thread
 * @limit_s: the hard bound of the run, in seconds
 * @max_workers: the most workers one pool may have; 0: no check
 * @strict: fwq only: strict pods
 *
 * Return: 0 on PASS, -EINVAL on FAIL (the KTAP result says why).
 */
int tt_spiral(bool kwq, int nthreads, unsigned int items,
	      unsigned int limit_s, int max_workers, bool strict)
{
	unsigned long queued = 0, failed = 0, cancelled = 0, ran;
	struct sp_pool *busiest = NULL;
	int grown_peak = 0;
	bool timed_out = false, lost, ok;
	char detail[320];
	u64 t0, wall_ns;
	unsigned long end;
	int i, ret = 0;

	memset(&sp, 0, sizeof(sp));
	mutex_init(&sp.lock);
	sp.kwq = kwq;
	sp.prefix = kwq ? "kworker/u" : "fwq/u";
	atomic_long_set(&sp.ran, 0);
	if (nthreads < 1 || nthreads > SP_MAX_THREADS || (kwq && strict))
		return -EINVAL;

	for (i = 0; i < nthreads; i++) {
		struct sp_thread *t = &sp.th[i];
		unsigned int j;

		t->items = kvcalloc(items, sizeof(*t->items), GFP_KERNEL);
		if (!t->items) {
			ret = -ENOMEM;
			goto out_free;
		}
		t->nr = items;
		sp.nth++;
		for (j = 0; j < items; j++) {
			if (kwq)
				INIT_WORK(&t->items[j].kw, sp_kwq_fn);
			else
				FWQ_INIT_WORK(&t->items[j].fw, sp_fwq_fn);
			t->items[j].ran = &sp.ran;
		}
	}

	if (kwq)
		sp.wq = alloc_workqueue("fwqt_spiral", WQ_UNBOUND, 0);
	else
		sp.fwq = fwq_alloc_workqueue_variant(&tt_variant, "fwqt_spiral",
						     FWQ_UNBOUND, 0);
	if (!sp.wq && !sp.fwq) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (strict) {
		ret = sp_make_strict();
		if (ret)
			goto out_wq;
	}

	sp.baseline = true;
	sp.sampler = kthread_run(sp_sampler_fn, NULL, "fwqt_spiral_smp");
	if (IS_ERR(sp.sampler)) {
		ret = PTR_ERR(sp.sampler);
		sp.sampler = NULL;
		goto out_wq;
	}
	get_task_struct(sp.sampler);
	sched_set_fifo_low(sp.sampler);
	/* the baseline sample, before any item is queued */
	while (READ_ONCE(sp.samples) == 0)
		schedule_timeout_uninterruptible(1);

	t0 = ktime_get_ns();
	end = jiffies + (unsigned long)limit_s * HZ;
	for (i = 0; i < sp.nth; i++) {
		struct task_struct *task;

		task = kthread_create(sp_producer_fn, &sp.th[i],
				      "fwqt_spiral/%d", i);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			break;
		}
		get_task_struct(task);
		sp.th[i].task = task;
		wake_up_process(task);
	}

	/* wait until every queued item ran, the producers done, or the bound */
	while (!ret) {
		bool producing = false;

		queued = 0;
		for (i = 0; i < sp.nth; i++) {
			struct sp_thread *t = &sp.th[i];

			/* a producer is done once it queued or failed all */
			if (READ_ONCE(t->queued) + READ_ONCE(t->failed) < t->nr)
				producing = true;
			queued += READ_ONCE(t->queued);
		}
		if (!producing && atomic_long_read(&sp.ran) >= queued)
			break;
		if (time_after_eq(jiffies, end) || fatal_signal_pending(current)) {
			timed_out = true;
			break;
		}
		schedule_timeout_killable(msecs_to_jiffies(20));
	}
	wall_ns = ktime_get_ns() - t0;

	sp_stop_producers();
	if (timed_out || ret) {
		/* past the bound the workers may hold every CPU: outrank them */
		sched_set_fifo_low(current);
		cancelled = sp_cancel_pending();
		sched_set_normal(current, 0);
	}
	if (kwq)
		flush_workqueue(sp.wq);
	else
		fwq_flush_workqueue(sp.fwq);

	/* the final sample, with every item done and no worker culled yet */
	kthread_stop(sp.sampler);
	put_task_struct(sp.sampler);
	sp.sampler = NULL;
	mutex_lock(&sp.lock);
	sp_sample();
	mutex_unlock(&sp.lock);

	queued = 0;
	for (i = 0; i < sp.nth; i++) {
		queued += sp.th[i].queued;
		failed += sp.th[i].failed;
	}
	ran = atomic_long_read(&sp.ran);
	lost = ran + cancelled != queued || failed;

	for (i = 0; i < sp.nr_pools; i++) {
		struct sp_pool *pool = &sp.pools[i];

		if (pool->peak > pool->base) {
			pr_info("spiral: pool u%d workers base=%d peak=%d end=%d\n",
				pool->id, pool->base, pool->peak, pool->last);
			grown_peak = max(grown_peak, pool->peak);
		}
		if (!busiest || pool->peak - pool->base >
				busiest->peak - busiest->base)
			busiest = pool;
	}
	ok = !ret && !lost && ran && !sp.overflow &&
	     (!max_workers || grown_peak <= max_workers);

	pr_alert("spiral: target=%s%s variant=%s threads=%d items=%u queued=%lu ran=%lu cancelled=%lu refused=%lu wall_ms=%llu limit_s=%u timed_out=%d busiest=u%d base=%d peak=%d end=%d all_base=%d all_peak=%d all_end=%d samples=%lu grown_peak=%d max_workers=%d -> %s\n",
		 kwq ? "kwq" : "fwq", strict ? " strict" : "",
		 kwq ? "kernel" : tt_vstr, sp.nth, items, queued, ran,
		 cancelled, failed, wall_ns / NSEC_PER_MSEC,
		 limit_s, timed_out, busiest ? busiest->id : -1,
		 busiest ? busiest->base : 0, busiest ? busiest->peak : 0,
		 busiest ? busiest->last : 0, sp.total_base, sp.total_peak,
		 sp.total_last, sp.samples, grown_peak, max_workers,
		 ok ? "PASS" : "FAIL");

	if (ret)
		snprintf(detail, sizeof(detail), "setup failed: %d", ret);
	else
		snprintf(detail, sizeof(detail),
			 "%s%s %s: %lu ran, %lu cancelled of %lu%s; most workers of a pool that grew %d (max %d)%s%s%s",
			 kwq ? "kwq" : "fwq", strict ? " strict" : "",
			 kwq ? "kernel" : tt_vstr, ran,
			 cancelled, queued, lost ? " (LOST)" : "",
			 grown_peak, max_workers,
			 timed_out ? "; load cut at the bound" : "",
			 ran ? "" : "; nothing ran",
			 sp.overflow ? "; too many pools" : "");
	tt_ktap_result(ok, "fwq_torture_spiral", detail);
	if (!ok)
		atomic_inc(&tt_stats.fail);
	/* the workqueue stays for the debugfs read; tt_spiral_exit() frees */
	return ok ? 0 : -EINVAL;

out_wq:
	sp_destroy_wq();
out_free:
	sp_free();
	tt_ktap_result(false, "fwq_torture_spiral", "setup failed");
	atomic_inc(&tt_stats.fail);
	return ret;
}

/* at module exit: the workqueue and the items */
void tt_spiral_exit(void)
{
	sp_destroy_wq();
	sp_free();
}
