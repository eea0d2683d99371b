// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_stall: stalls fwq pools on demand, with items whose number and
 * functions are known, for the tools plan (scripts/plans/tools.plan):
 * debugfs "pending", the drgn helpers' pending items and stuck workers.
 *
 * Loading creates two workqueues:
 *
 *   fwqs_percpu   per-CPU: its items go to the pool of CPU "cpu" (the
 *                 module parameter, default the last online CPU)
 *   fwqs_ordered  ordered (unbound, max_active 1)
 *
 * Two writes stall them:
 *
 *   block K   (fail_create_worker 0) K blocker items (fwqs_block, which
 *             sleep until release) on fwqs_percpu, and one on
 *             fwqs_ordered; each must start, so the pools grow to run them
 *   stall N   (fail_create_worker 1, so that no pool can grow) more
 *             blockers on fwqs_percpu, one at a time while each starts
 *             within FWQS_START_MS: the pool's idle workers take them
 *             until the last one leaves idle to become the manager, which
 *             cannot create a worker; the first blocker that does not
 *             start stays pending. Then N items of fwqs_follow on each
 *             workqueue: on fwqs_percpu's worklist, and on fwqs_ordered's
 *             inactive list (max_active 1)
 *
 * Reading stall shows "NAME blockers=B started=S followers=F done=D" per
 * workqueue: of B blockers queued, S started (workers blocked in
 * fwqs_block); F followers queued; D items finished. Pending on a
 * workqueue are then B - S blockers and F followers. Writing 1 to
 * release (after fail_create_worker is back to 0) releases the blockers
 * and flushes both workqueues: every item must run. Unloading releases
 * them too. The blockers sleep interruptibly (kthreads get no signals),
 * so the hung-task detector leaves them alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <fwq/fwq.h>

#include "../module_util.h"

#define FWQS_MAX_N		64	/* followers per workqueue */
#define FWQS_MAX_BLOCKERS	64
#define FWQS_MAX_BLOCK		8	/* blockers of a "block" write */
#define FWQS_START_MS		2000	/* a blocker that starts, starts by then */
#define FWQS_WAIT_MS		60000	/* hang guard of the release */

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "CPU whose pool fwqs_percpu stalls (default: the last online)");

struct fwqs_item {
	struct fwq_work work;
	struct fwqs_wq *w;
	struct completion started;
};

struct fwqs_wq {
	const char *name;
	struct fwq_workqueue *wq;
	unsigned int blockers;
	unsigned int followers;
	atomic_t started;
	atomic_t done;
	struct fwqs_item block[FWQS_MAX_BLOCKERS];
	struct fwqs_item follow[FWQS_MAX_N];
};

static struct fwqs_wq fwqs_percpu = { .name = "fwqs_percpu" };
static struct fwqs_wq fwqs_ordered = { .name = "fwqs_ordered" };
static DECLARE_COMPLETION(fwqs_release);
static DEFINE_MUTEX(fwqs_mutex);	/* one stall at a time; the counts */
static bool fwqs_stalled;		/* fwqs_mutex */
static struct dentry *fwqs_root;

static void fwqs_block(struct fwq_work *work)
{
	struct fwqs_item *it = container_of(work, struct fwqs_item, work);

	atomic_inc(&it->w->started);
	complete(&it->started);
	while (wait_for_completion_interruptible(&fwqs_release))
		;
	atomic_inc(&it->w->done);
}

static void fwqs_follow(struct fwq_work *work)
{
	struct fwqs_item *it = container_of(work, struct fwqs_item, work);

	atomic_inc(&it->w->done);
}

static void fwqs_reset(struct fwqs_wq *w)
{
	w->blockers = 0;
	w->followers = 0;
	atomic_set(&w->started, 0);
	atomic_set(&w->done, 0);
}

static void fwqs_item_init(struct fwqs_item *it, struct fwqs_wq *w,
			   fwq_work_func_t fn)
{
	FWQ_INIT_WORK(&it->work, fn);
	it->w = w;
	init_completion(&it->started);
}

/* queue the next blocker of @w on @on (-1: the workqueue's choice) */
static struct fwqs_item *fwqs_queue_blocker(struct fwqs_wq *w, int on)
{
	struct fwqs_item *it = &w->block[w->blockers++];

	fwqs_item_init(it, w, fwqs_block);
	if (on >= 0)
		fwq_queue_work_on(on, w->wq, &it->work);
	else
		fwq_queue_work(w->wq, &it->work);
	return it;
}

static void fwqs_queue_followers(struct fwqs_wq *w, int on, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct fwqs_item *it = &w->follow[i];

		fwqs_item_init(it, w, fwqs_follow);
		if (on >= 0)
			fwq_queue_work_on(on, w->wq, &it->work);
		else
			fwq_queue_work(w->wq, &it->work);
	}
	w->followers = n;
}

static int fwqs_wait_started(struct fwqs_wq *w, struct fwqs_item *it)
{
	if (wait_for_completion_timeout(&it->started,
					msecs_to_jiffies(FWQS_WAIT_MS)))
		return 0;
	pr_err("%s: a blocker did not start\n", w->name);
	return -ETIMEDOUT;
}

/* "block K": K running blockers on fwqs_percpu, one on fwqs_ordered */
static int fwqs_block_k(unsigned int k)
{
	unsigned int i;
	int ret;

	lockdep_assert_held(&fwqs_mutex);
	if (fwqs_stalled) {
		pr_warn("block: blocked already; write release first\n");
		return -EBUSY;
	}
	fwqs_reset(&fwqs_percpu);
	fwqs_reset(&fwqs_ordered);
	reinit_completion(&fwqs_release);
	fwqs_stalled = true;
	for (i = 0; i < k; i++) {
		ret = fwqs_wait_started(&fwqs_percpu,
					fwqs_queue_blocker(&fwqs_percpu, cpu));
		if (ret)
			return ret;
	}
	return fwqs_wait_started(&fwqs_ordered,
				 fwqs_queue_blocker(&fwqs_ordered, -1));
}

/* "stall N": blockers until one does not start, then the followers */
static int fwqs_stall(unsigned int n)
{
	struct fwqs_item *it;

	lockdep_assert_held(&fwqs_mutex);
	if (!fwqs_stalled || fwqs_percpu.followers) {
		pr_warn("stall: write block first (once per release)\n");
		return -EBUSY;
	}
	do {
		if (fwqs_percpu.blockers == FWQS_MAX_BLOCKERS) {
			pr_err("%s: %d blockers all started: the pool grew (fail_create_worker?)\n",
			       fwqs_percpu.name, FWQS_MAX_BLOCKERS);
			return -EAGAIN;
		}
		it = fwqs_queue_blocker(&fwqs_percpu, cpu);
	} while (wait_for_completion_timeout(&it->started,
					     msecs_to_jiffies(FWQS_START_MS)));
	fwqs_queue_followers(&fwqs_percpu, cpu, n);
	fwqs_queue_followers(&fwqs_ordered, -1, n);
	pr_info("stalled: %s %u blockers (%d started) and %u followers on CPU %d, %s %u followers\n",
		fwqs_percpu.name, fwqs_percpu.blockers,
		atomic_read(&fwqs_percpu.started), n, cpu, fwqs_ordered.name,
		n);
	return 0;
}

/* release the blockers; every item must then run */
static int fwqs_unstall(void)
{
	struct fwqs_wq *ws[] = { &fwqs_percpu, &fwqs_ordered };
	int i, ret = 0;

	if (!fwqs_stalled)
		return 0;
	complete_all(&fwqs_release);
	for (i = 0; i < ARRAY_SIZE(ws); i++) {
		struct fwqs_wq *w = ws[i];
		unsigned int want = w->blockers + w->followers;

		fwq_flush_workqueue(w->wq);
		if (atomic_read(&w->done) != want) {
			pr_err("%s: %d of %u items ran\n", w->name,
			       atomic_read(&w->done), want);
			ret = -EIO;
		}
	}
	fwqs_stalled = false;
	return ret;
}

static int fwqs_stall_show(struct seq_file *m, void *v)
{
	struct fwqs_wq *ws[] = { &fwqs_percpu, &fwqs_ordered };
	int i;

	for (i = 0; i < ARRAY_SIZE(ws); i++)
		seq_printf(m, "%s blockers=%u started=%d followers=%u done=%d\n",
			   ws[i]->name, ws[i]->blockers,
			   atomic_read(&ws[i]->started), ws[i]->followers,
			   atomic_read(&ws[i]->done));
	return 0;
}

static ssize_t fwqs_stall_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	return fwqt_count_write(ubuf, count, 0, FWQS_MAX_N, "stall",
				&fwqs_mutex, fwqs_stall);
}

FWQ_DEFINE_SHOW_STORE_ATTRIBUTE(fwqs_stall);

static ssize_t fwqs_block_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	return fwqt_count_write(ubuf, count, 0, FWQS_MAX_BLOCK, "block",
				&fwqs_mutex, fwqs_block_k);
}

static const struct file_operations fwqs_block_fops = {
	.owner = THIS_MODULE,
	.write = fwqs_block_write,
	.llseek = noop_llseek,
};

static ssize_t fwqs_release_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	unsigned int v;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &v);
	if (ret || v != 1) {
		pr_warn("release: write 1\n");
		return -EINVAL;
	}
	mutex_lock(&fwqs_mutex);
	ret = fwqs_unstall();
	mutex_unlock(&fwqs_mutex);
	return ret ? ret : count;
}

static const struct file_operations fwqs_release_fops = {
	.owner = THIS_MODULE,
	.write = fwqs_release_write,
	.llseek = noop_llseek,
};

static void fwqs_destroy(void)
{
	if (fwqs_percpu.wq)
		fwq_destroy_workqueue(fwqs_percpu.wq);
	if (fwqs_ordered.wq)
		fwq_destroy_workqueue(fwqs_ordered.wq);
}

static int __init fwqs_init(void)
{
	if (cpu < 0)
		cpu = cpumask_last(cpu_online_mask);
	if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		pr_err("cpu=%d is not online\n", cpu);
		return -EINVAL;
	}
	fwqs_percpu.wq = fwq_alloc_workqueue("%s", FWQ_PERCPU, 0,
					     fwqs_percpu.name);
	fwqs_ordered.wq = fwq_alloc_ordered_workqueue("%s", 0,
						      fwqs_ordered.name);
	if (!fwqs_percpu.wq || !fwqs_ordered.wq) {
		fwqs_destroy();
		return -ENOMEM;
	}
	fwqs_root = debugfs_create_dir("fwq_stall", NULL);
	debugfs_create_file("block", 0200, fwqs_root, NULL, &fwqs_block_fops);
	debugfs_create_file("stall", 0644, fwqs_root, NULL, &fwqs_stall_fops);
	debugfs_create_file("release", 0200, fwqs_root, NULL,
			    &fwqs_release_fops);
	return 0;
}

static void __exit fwqs_exit(void)
{
	debugfs_remove_recursive(fwqs_root);
	mutex_lock(&fwqs_mutex);
	/* never leave a worker blocked: release whatever is still stalled */
	if (fwqs_unstall())
		pr_err("unload: not every item ran\n");
	mutex_unlock(&fwqs_mutex);
	fwqs_destroy();
}

module_init(fwqs_init);
module_exit(fwqs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq: stalls pools on demand for the tools plan");
