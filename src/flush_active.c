// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: flush=active, the flush strategy that visits only the pwqs queued to
 * since the last flush (the flush-active seed mail, README.md).
 *
 * Each workqueue of this strategy has one struct fwq_flush_pnode per node
 * plus a fallback for NUMA_NO_NODE pools. An fpn holds a list of the pwqs
 * active since the last flush and a mirror of wq->work_color.
 *
 * Enqueue (fwq_flush_active_enqueue): an item queued to an untracked pwq
 * reads the mirror into pwq->work_color and lists the pwq, in one fpn->lock
 * section. Flush (fwq_flush_walk_active): per node, one fpn->lock section
 * advances the mirror and splices the list away; the pwqs are visited
 * under their pool locks (coalesced); the ones with items still in flight
 * go back on their node's list. A racing enqueue therefore
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
};

/* wq->flush_priv: [nr_node_ids + 1], the last one for NUMA_NO_NODE pools */
static struct fwq_flush_pnode *fwq_fpns(struct fwq_workqueue *wq)
{
	return wq->flush_priv;
}

static struct fwq_flush_pnode *fwq_pwq_fpn(struct fwq_pwq *pwq)
{
	return &fwq_fpns(pwq->wq)[fwq_node_idx(pwq->pool->node)];
}

static void fwq_flush_active_exit(struct fwq_workqueue *wq)
{
	kfree(wq->flush_priv);
	wq->flush_priv = NULL;
}

static int fwq_flush_active_init(struct fwq_workqueue *wq)
{
	struct fwq_flush_pnode *fpns;
	int i;

	fpns = kcalloc(nr_node_ids + 1, sizeof(*fpns), GFP_KERNEL);
	if (!fpns)
		return -ENOMEM;
	for (i = 0; i <= nr_node_ids; i++) {
		raw_spin_lock_init(&fpns[i].lock);
		fpns[i].work_color = wq->work_color;
		INIT_LIST_HEAD(&fpns[i].pwqs);
	}
	wq->flush_priv = fpns;
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

/* only the listed pwqs, per node, coalescing pool locks */
static bool fwq_flush_walk_active(struct fwq_workqueue *wq, int flush_color,
				  int work_color)
{
	struct fwq_flush_pnode *fpns = fwq_fpns(wq);
	struct fwq_pwq *pwq;
	LIST_HEAD(todo);
	bool wait = false;
	int i;

	/* per node: the splice instant linearizes against enqueuers */
	for (i = 0; i <= nr_node_ids; i++) {
		struct fwq_flush_pnode *fpn = &fpns[i];

		raw_spin_lock_irq(&fpn->lock);
		list_splice_tail_init(&fpn->pwqs, &todo);
		if (work_color >= 0)
			fpn->work_color = work_color;
		raw_spin_unlock_irq(&fpn->lock);
	}

	pwq = list_first_entry_or_null(&todo, struct fwq_pwq, flush_node);
	while (pwq) {
		struct fwq_pool *pool = pwq->pool;

		fwq_pool_lock_irq(pool);
		wq->flush_lock_cycles++;
		do {
			/*
			 * Off the private list; visited pwqs go back to their
			 * node's list only while something is in flight.
			 */
			list_del_init(&pwq->flush_node);
			wait |= fwq_flush_visit(wq, pwq, flush_color,
						work_color);
			if (pwq->total_in_flight) {
				struct fwq_flush_pnode *fpn = fwq_pwq_fpn(pwq);

				raw_spin_lock(&fpn->lock);
				list_add_tail(&pwq->flush_node, &fpn->pwqs);
				raw_spin_unlock(&fpn->lock);
			} else {
				fwq_check(pwq->flush_color == -1,
					  "idle pwq of %s left flushing",
					  wq->name);
			}
			pwq = list_first_entry_or_null(&todo, struct fwq_pwq,
						       flush_node);
		} while (pwq && pwq->pool == pool);
		fwq_pool_unlock_irq(pool);
	}
	return wait;
}

/* under wq->mutex */
static void fwq_flush_active_show(struct seq_file *m, struct fwq_workqueue *wq)
{
	struct fwq_flush_pnode *fpns = fwq_fpns(wq);
	struct fwq_pwq *pwq;
	int i;

	seq_puts(m, "  fpn:");
	for (i = 0; i <= nr_node_ids; i++) {
		struct fwq_flush_pnode *fpn = &fpns[i];
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
	.name = "active",
	.desc = "visit only the pwqs queued to since the last flush",
	.init = fwq_flush_active_init,
	.exit = fwq_flush_active_exit,
	.enqueue = fwq_flush_active_enqueue,
	.release = fwq_flush_active_release,
	.show = fwq_flush_active_show,
	.walk = fwq_flush_walk_active,
};
