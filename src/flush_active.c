// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: flush=active, the flush strategy that visits only the pwqs queued to
 * since the last flush (the flush-active seed mail, README.md).
 *
 * Each workqueue of this strategy has one struct fwq_flush_pnode per node
 * plus a fallback for NUMA_NO_NODE pools, each on its own cache line on its
 * node (src/flush_pnode.c, shared with other strategies that track pwqs).
 * An fpn holds a list of the pwqs active since the last flush and a
 * mirror of wq->work_color.
 *
 * Enqueue (fwq_flush_active_enqueue): an item queued to an untracked pwq
 * reads the mirror into pwq->work_color and lists the pwq, in one fpn->lock
 * section. Flush (fwq_flush_active_walk): per node, one fpn->lock section
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

#include "flush_pnode.h"

/* under pool->lock, @pwq untracked */
static void fwq_flush_active_enqueue(struct fwq_pwq *pwq)
{
	struct fwq_flush_pnode *fpn = fwq_fpn_untracked(pwq);

	raw_spin_lock(&fpn->lock);
	pwq->work_color = fpn->work_color;
	list_add_tail(&pwq->flush_node, &fpn->pwqs);
	raw_spin_unlock(&fpn->lock);
}

/*
 * One node: advance its mirror and take its list in one fpn->lock section,
 * then visit the pwqs and put the busy ones back (fwq_fpn_visit()). Called
 * under wq->mutex, which excludes other flushers and the release path.
 */
static bool fwq_flush_walk_node(struct fwq_workqueue *wq,
				struct fwq_flush_pnode *fpn, int flush_color,
				int work_color)
{
	LIST_HEAD(todo);

	raw_spin_lock_irq(&fpn->lock);
	fwq_flush_count_cycle(wq);
	fwq_fpn_advance(wq, fpn, work_color);
	list_splice_init(&fpn->pwqs, &todo);
	raw_spin_unlock_irq(&fpn->lock);

	return fwq_fpn_visit(wq, fpn, &todo, flush_color, work_color, false);
}

bool fwq_flush_active_walk(struct fwq_workqueue *wq, int flush_color,
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

const struct fwq_flush_ops fwq_flush_active_ops = {
	.desc = "visit only the pwqs queued to since the last flush",
	FWQ_FPN_OPS(fwq_flush_active_enqueue),
};
