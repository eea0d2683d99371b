// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_workload: a small workload whose counts are known, for the trace plan
 * and the test of tools/fwq-monitor (scripts/plans/trace.plan).
 *
 * Loading creates four workqueues that stay until the module is removed,
 * so debugfs stats can be read before and after a run:
 *
 *   fwqw_locked  per-CPU, wake=locked,kicked_list=off,flush=each: wakeups
 *                under the pool lock, concurrency-management wakeups
 *   fwqw_claim   unbound, wake=claim,kicked_list=on,flush=active,
 *                max_active 1: items wait on the inactive list and are
 *                activated one by one; kicked-list moves
 *   fwqw_wakeq   unbound, FWQ_CPU_INTENSIVE, wake=wakeq,kicked_list=on,
 *                flush=coalesce: sleeping items make its pool create
 *                workers, which the idle timeout culls later
 *   fwqw_lockless unbound, wake=locked,kicked_list=on,flush=lockless:
 *                the fourth flush variant, so that each one's events show
 *
 * Writing N (1..FWQW_MAX_N) to /sys/kernel/debug/fwq_workload/run runs, on
 * each workqueue in turn: N single items, one in flight at a time, over the
 * online CPUs; a burst of N distinct items, then a flush; N flushes of the
 * idle workqueue; FWQW_SLEEPERS items that sleep FWQW_SLEEP_MS at once
 * (on one CPU for the per-CPU workqueue), then a flush. The write returns
 * when all of it ran. Reading run shows what the last run did, one line per
 * workqueue, "NAME queued=Q executed=E flushes=F"; Q and F are what fwq
 * counts in debugfs stats as queued and flushes for that run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <fwq/fwq.h>

#include "../module_util.h"

#define FWQW_MAX_N	4096
#define FWQW_SLEEPERS	6
#define FWQW_SLEEP_MS	20
#define FWQW_WAIT_MS	30000	/* hang guard of one wait, generous for TCG */

struct fwqw_wq {
	const char *name;
	const char *variant;
	unsigned int flags;
	int max_active;
	struct fwq_workqueue *wq;
	/* the last run */
	u64 queued;
	u64 flushes;
	atomic_t executed;
};

static struct fwqw_wq fwqw_wqs[] = {
	{ "fwqw_locked", "wake=locked,kicked_list=off,flush=each",
	  FWQ_PERCPU, 0 },
	{ "fwqw_claim", "wake=claim,kicked_list=on,flush=active",
	  FWQ_UNBOUND, 1 },
	{ "fwqw_wakeq", "wake=wakeq,kicked_list=on,flush=coalesce",
	  FWQ_UNBOUND | FWQ_CPU_INTENSIVE, 0 },
	{ "fwqw_lockless", "wake=locked,kicked_list=on,flush=lockless",
	  FWQ_UNBOUND, 0 },
};

struct fwqw_item {
	struct fwq_work work;
	struct fwqw_wq *w;
	struct completion done;
	bool sleep;
};

static DEFINE_MUTEX(fwqw_mutex);	/* one run at a time; the counts */
static struct dentry *fwqw_root;

static void fwqw_fn(struct fwq_work *work)
{
	struct fwqw_item *it = container_of(work, struct fwqw_item, work);

	if (it->sleep)
		msleep(FWQW_SLEEP_MS);
	atomic_inc(&it->w->executed);
	complete(&it->done);
}

static void fwqw_item_init(struct fwqw_item *it, struct fwqw_wq *w,
			   bool sleep)
{
	FWQ_INIT_WORK(&it->work, fwqw_fn);
	it->w = w;
	it->sleep = sleep;
	init_completion(&it->done);
}

static bool fwqw_queue(struct fwqw_wq *w, int cpu, struct fwqw_item *it)
{
	reinit_completion(&it->done);
	if (!fwq_queue_work_on(cpu, w->wq, &it->work)) {
		pr_err("%s: item %p was still pending\n", w->name, it);
		return false;
	}
	w->queued++;
	return true;
}

static void fwqw_flush(struct fwqw_wq *w)
{
	fwq_flush_workqueue(w->wq);
	w->flushes++;
}

static int fwqw_wait(struct fwqw_wq *w, struct fwqw_item *it)
{
	if (wait_for_completion_timeout(&it->done,
					msecs_to_jiffies(FWQW_WAIT_MS)))
		return 0;
	pr_err("%s: an item did not run within %d ms\n", w->name,
	       FWQW_WAIT_MS);
	return -ETIMEDOUT;
}

/* the next online CPU after @cpu, wrapping */
static int fwqw_next_cpu(int cpu)
{
	cpu = cpumask_next(cpu, cpu_online_mask);
	return cpu < nr_cpu_ids ? cpu : cpumask_first(cpu_online_mask);
}

static int fwqw_run_one(struct fwqw_wq *w, struct fwqw_item *items,
			unsigned int n)
{
	int cpu = cpumask_first(cpu_online_mask);
	unsigned int i;
	int ret = 0;

	w->queued = 0;
	w->flushes = 0;
	atomic_set(&w->executed, 0);

	/* singles: the worker goes idle between items, each queue wakes one */
	fwqw_item_init(&items[0], w, false);
	for (i = 0; i < n && !ret; i++) {
		cpu = fwqw_next_cpu(cpu);
		if (!fwqw_queue(w, cpu, &items[0]))
			return -EBUSY;
		ret = fwqw_wait(w, &items[0]);
	}

	/* a burst of distinct items: chain kicks, max_active activations */
	for (i = 0; i < n && !ret; i++) {
		fwqw_item_init(&items[i], w, false);
		cpu = fwqw_next_cpu(cpu);
		if (!fwqw_queue(w, cpu, &items[i]))
			return -EBUSY;
	}
	fwqw_flush(w);
	for (i = 0; i < n && !ret; i++)
		ret = fwqw_wait(w, &items[i]);

	/* idle flushes */
	for (i = 0; i < n && !ret; i++)
		fwqw_flush(w);

	/* sleepers, all on one CPU: CM wakeups, new workers, later culls */
	cpu = fwqw_next_cpu(cpu);
	for (i = 0; i < FWQW_SLEEPERS && !ret; i++) {
		fwqw_item_init(&items[i], w, true);
		if (!fwqw_queue(w, cpu, &items[i]))
			return -EBUSY;
	}
	fwqw_flush(w);
	for (i = 0; i < FWQW_SLEEPERS && !ret; i++)
		ret = fwqw_wait(w, &items[i]);
	return ret;
}

static int fwqw_run(unsigned int n)
{
	struct fwqw_item *items;
	int i, ret = 0;

	items = kcalloc(max_t(unsigned int, n, FWQW_SLEEPERS), sizeof(*items),
			GFP_KERNEL);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(fwqw_wqs) && !ret; i++)
		ret = fwqw_run_one(&fwqw_wqs[i], items, n);
	/* a timed-out item may still be queued: flush before freeing */
	for (i = 0; ret && i < ARRAY_SIZE(fwqw_wqs); i++)
		fwq_flush_workqueue(fwqw_wqs[i].wq);
	kfree(items);
	return ret;
}

static int fwqw_run_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&fwqw_mutex);
	for (i = 0; i < ARRAY_SIZE(fwqw_wqs); i++) {
		struct fwqw_wq *w = &fwqw_wqs[i];

		seq_printf(m, "%s queued=%llu executed=%d flushes=%llu\n",
			   w->name, w->queued, atomic_read(&w->executed),
			   w->flushes);
	}
	mutex_unlock(&fwqw_mutex);
	return 0;
}

static ssize_t fwqw_run_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	return fwqt_count_write(ubuf, count, 1, FWQW_MAX_N, "run", &fwqw_mutex,
				fwqw_run);
}

FWQ_DEFINE_SHOW_STORE_ATTRIBUTE(fwqw_run);

static void fwqw_destroy(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(fwqw_wqs); i++) {
		if (fwqw_wqs[i].wq)
			fwq_destroy_workqueue(fwqw_wqs[i].wq);
		fwqw_wqs[i].wq = NULL;
	}
}

static int __init fwqw_init(void)
{
	int i;

	/* the trace plan sets the wakeup counters against the events */
	fwq_counters_get();
	for (i = 0; i < ARRAY_SIZE(fwqw_wqs); i++) {
		struct fwqw_wq *w = &fwqw_wqs[i];
		struct fwq_variant v;

		fwq_default_variant(&v);
		if (fwq_variant_parse(w->variant, &v))
			goto fail;
		w->wq = fwq_alloc_workqueue_variant(&v, "%s", w->flags,
						    w->max_active, w->name);
		if (!w->wq)
			goto fail;
	}
	fwqw_root = debugfs_create_dir("fwq_workload", NULL);
	debugfs_create_file("run", 0644, fwqw_root, NULL, &fwqw_run_fops);
	return 0;
fail:
	pr_err("creating the workqueues failed\n");
	fwqw_destroy();
	fwq_counters_put();
	return -ENOMEM;
}

static void __exit fwqw_exit(void)
{
	debugfs_remove_recursive(fwqw_root);
	fwqw_destroy();
	fwq_counters_put();
}

module_init(fwqw_init);
module_exit(fwqw_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq: a known workload for the trace plan and fwq-monitor");
MODULE_VERSION(FWQ_VERSION);
