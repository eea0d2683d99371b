// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: flush=active, the flush strategy that visits only the pwqs queued to
 * since the last flush (the flush-active seed mail, README.md).
 *
 * Each workqueue of this strategy has one struct fwq_flush_pnode per node
 * plus a fallback for NUMA_NO_NODE pools, each on its own cache line on its
 * node. An fpn holds a list of the pwqs active since the last flush and a
 * mirror of wq->work_color.
 *
 * Enqueue (fwq_flush_active_enqueue): an item queued to an untracked pwq
 * reads the mirror into pwq->work_color and lists the pwq, in one fpn->lock
 * section. Flush (fwq_flush_walk_active): per node, one fpn->lock section
 * advances the mirror and splices the list away; the pwqs are visited under
 * their pool locks (coalesced); the ones with items still in flight are
 * spliced back in one more fpn->lock section. A racing enqueue therefore
 * either lists its pwq before the splice (and is visited) or reads the
 * advanced colour (and needs no visit): the splice instant linearises the
 * two, which is what the lock-and-advance of every pwq did before.
 *
 * Invariant, checked under pool->lock: an unlisted pwq has nothing in
 * flight and flush_color == -1. Its work_color is stale, which is harmless
 * because nothing of it is in flight; the enqueue re-syncs it. A listed
 * pwq's work_color equals its node's mirror.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"

/**
 * struct fwq_flush_pnode - per-node list of pwqs active since the last
 *	flush
 * @lock: innermost, below pool->lock (the lock legend in internal.h)
 * @work_color: FN: per-node mirror of wq->work_color
 * @pwqs: FN: the listed pwqs
 */
struct fwq_flush_pnode {
	raw_spinlock_t		lock;
	int			work_color;
	struct list_head	pwqs;
} ____cacheline_aligned_in_smp;

/* wq->flush_priv: [nr_node_ids + 1], the last one for NUMA_NO_NODE pools */
static struct fwq_flush_pnode **fwq_fpns(struct fwq_workqueue *wq)
{
	return wq->flush_priv;
}

static struct fwq_flush_pnode *fwq_pwq_fpn(struct fwq_pwq *pwq)
{
	return fwq_fpns(pwq->wq)[fwq_node_idx(pwq->pool->node)];
}

static void fwq_flush_active_exit(struct fwq_workqueue *wq)
{
	struct fwq_flush_pnode **fpns = fwq_fpns(wq);
	int i;

	if (!fpns)
		return;
	for (i = 0; i <= nr_node_ids; i++)
		kfree(fpns[i]);
	kfree(fpns);
	wq->flush_priv = NULL;
}

static int fwq_flush_active_init(struct fwq_workqueue *wq)
{
	struct fwq_flush_pnode **fpns;
	int i;

	fpns = kcalloc(nr_node_ids + 1, sizeof(*fpns), GFP_KERNEL);
	if (!fpns)
		return -ENOMEM;
	wq->flush_priv = fpns;
	for (i = 0; i <= nr_node_ids; i++) {
		struct fwq_flush_pnode *fpn;

		fpn = kzalloc_node(sizeof(*fpn), GFP_KERNEL,
				   i < nr_node_ids && node_possible(i) ?
				   i : NUMA_NO_NODE);
		if (!fpn)
			return -ENOMEM;	/* the caller calls ->exit */
		raw_spin_lock_init(&fpn->lock);
		fpn->work_color = wq->work_color;
		INIT_LIST_HEAD(&fpn->pwqs);
		fpns[i] = fpn;
	}
	return 0;
}

/* under pool->lock, @pwq untracked */
static void fwq_flush_active_enqueue(struct fwq_pwq *pwq)
{
	struct fwq_flush_pnode *fpn = fwq_pwq_fpn(pwq);

	lockdep_assert_held(&pwq->pool->lock);
	fwq_check(!pwq->total_in_flight && pwq->flush_color == -1,
		  "unlisted pwq of %s has items in flight", pwq->wq->name);
	raw_spin_lock(&fpn->lock);
	pwq->work_color = fpn->work_color;
	list_add_tail(&pwq->flush_node, &fpn->pwqs);
	raw_spin_unlock(&fpn->lock);
}

/* under wq->mutex, so no flusher holds @pwq on a private list */
static void fwq_flush_active_release(struct fwq_pwq *pwq)
{
	struct fwq_flush_pnode *fpn = fwq_pwq_fpn(pwq);

	lockdep_assert_held(&pwq->wq->mutex);
	raw_spin_lock_irq(&fpn->lock);
	list_del_init(&pwq->flush_node);
	raw_spin_unlock_irq(&fpn->lock);
}

/*
 * One node: advance its mirror and take its list in one fpn->lock section,
 * visit the pwqs (one pool-lock cycle per run of pwqs of one pool), then
 * put the ones with items in flight back in one more section. Called under
 * wq->mutex, which excludes other flushers and the release path.
 */
static bool fwq_flush_walk_node(struct fwq_workqueue *wq,
				struct fwq_flush_pnode *fpn, int flush_color,
				int work_color)
{
	struct fwq_pwq *pwq;
	LIST_HEAD(todo);
	LIST_HEAD(keep);
	bool wait = false;

	raw_spin_lock_irq(&fpn->lock);
	wq->flush_lock_cycles++;
	if (work_color >= 0) {
		fwq_check(work_color == fwq_work_next_color(fpn->work_color),
			  "%s: node colour %d does not advance to %d", wq->name,
			  fpn->work_color, work_color);
		fpn->work_color = work_color;
	}
	list_splice_init(&fpn->pwqs, &todo);
	raw_spin_unlock_irq(&fpn->lock);

	pwq = list_first_entry_or_null(&todo, struct fwq_pwq, flush_node);
	while (pwq) {
		struct fwq_pool *pool = pwq->pool;

		fwq_pool_lock_irq(pool);
		wq->flush_lock_cycles++;
		do {
			fwq_check(work_color < 0 ||
				  work_color == fwq_work_next_color(pwq->work_color),
				  "%s: pwq colour %d does not advance to %d",
				  wq->name, pwq->work_color, work_color);
			wait |= fwq_flush_visit(wq, pwq, flush_color,
						work_color);
			/*
			 * A cascade can arm a colour retired several advances
			 * ago: keep a pwq listed while anything is in flight.
			 */
			if (pwq->total_in_flight) {
				list_move_tail(&pwq->flush_node, &keep);
			} else {
				list_del_init(&pwq->flush_node);
				fwq_check(pwq->flush_color == -1,
					  "idle pwq of %s left flushing",
					  wq->name);
			}
			pwq = list_first_entry_or_null(&todo, struct fwq_pwq,
						       flush_node);
		} while (pwq && pwq->pool == pool);
		fwq_pool_unlock_irq(pool);
	}

	if (!list_empty(&keep)) {
		raw_spin_lock_irq(&fpn->lock);
		wq->flush_lock_cycles++;
		list_splice_tail(&keep, &fpn->pwqs);
		raw_spin_unlock_irq(&fpn->lock);
	}
	return wait;
}

static bool fwq_flush_walk_active(struct fwq_workqueue *wq, int flush_color,
				  int work_color)
{
	struct fwq_flush_pnode **fpns = fwq_fpns(wq);
	bool wait = false;
	int i;

	for (i = 0; i <= nr_node_ids; i++)
		wait |= fwq_flush_walk_node(wq, fpns[i], flush_color,
					    work_color);
	return wait;
}

/* under wq->mutex */
static void fwq_flush_active_show(struct seq_file *m, struct fwq_workqueue *wq)
{
	struct fwq_flush_pnode **fpns = fwq_fpns(wq);
	struct fwq_pwq *pwq;
	int i;

	seq_puts(m, "  fpn:");
	for (i = 0; i <= nr_node_ids; i++) {
		struct fwq_flush_pnode *fpn = fpns[i];
		int n = 0;

		raw_spin_lock_irq(&fpn->lock);
		list_for_each_entry(pwq, &fpn->pwqs, flush_node)
			n++;
		seq_printf(m, " node%s%d:listed=%d,color=%d",
			   i == nr_node_ids ? "-fallback" : "",
			   i == nr_node_ids ? -1 : i, n, fpn->work_color);
		raw_spin_unlock_irq(&fpn->lock);
	}
	seq_putc(m, '\n');
}

const struct fwq_flush_ops fwq_flush_active_ops = {
	.desc = "visit only the pwqs queued to since the last flush",
	.init = fwq_flush_active_init,
	.exit = fwq_flush_active_exit,
	.enqueue = fwq_flush_active_enqueue,
	.release = fwq_flush_active_release,
	.show = fwq_flush_active_show,
	.walk = fwq_flush_walk_active,
};
