// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: flush=lockless, flush=active's per-node lists with no lock taken
 * for a node that has nothing listed.
 *
 * flush=active takes every node's lock on every flush, to advance the
 * node's colour mirror and splice its list in one section. That costs
 * nr_node_ids + 1 lock cycles for a flush of an idle workqueue. Here the
 * flusher advances the mirror without the lock and looks at the list
 * without it too; only a node with listed pwqs is locked and spliced as in
 * flush=active. An idle flush then takes no lock at all, and, as the
 * flusher waits for nothing, it returns without completing the flusher or
 * counting a wakeup (.quiet_idle, src/flush.c).
 *
 * Why a racing enqueue is never missed. The enqueue of an item to an
 * untracked pwq P on node N, and the flusher's look at N, are:
 *
 *   enqueue (pool->lock, fpn->lock)     flusher (wq->mutex)
 *   list P on fpn->pwqs                 WRITE_ONCE(fpn->work_color, new)
 *   smp_mb()                     (A)    smp_mb()                     (B)
 *   P's colour = fpn->work_color        list empty? skip N : lock N
 *
 * This is the store-buffering pattern: with the full barriers (A) and (B)
 * at least one side sees the other's store. Either the enqueue reads the
 * new colour, and then its item does not belong to the colour being
 * flushed, or the flusher sees P listed and locks N. Its lock then waits
 * for the enqueue's fpn->lock section, so the splice takes P, and the visit
 * of P under its pool->lock waits for the enqueue to finish counting the
 * item. An enqueue long before the flush is the same case: it read the old
 * colour, so the flusher sees P listed. The other writers of the lists, an
 * earlier flusher putting busy pwqs back and the pwq release, hold
 * wq->mutex, as this flusher does.
 *
 * Because the enqueue may read the new colour before the splice, a spliced
 * pwq is either one colour behind the flush or at its new colour already
 * (fwq_fpn_visit()'s color_may_be_new). The enqueue pays one smp_mb() when
 * it lists a pwq, that is for the first item after a flush that found the
 * pwq idle; the queueing of later items is unchanged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "flush_pnode.h"

/* under pool->lock, @pwq untracked */
static void fwq_flush_lockless_enqueue(struct fwq_pwq *pwq)
{
	struct fwq_flush_pnode *fpn = fwq_fpn_untracked(pwq);

	raw_spin_lock(&fpn->lock);
	list_add_tail(&pwq->flush_node, &fpn->pwqs);
	smp_mb();	/* (A): the listing before the colour read */
	pwq->work_color = READ_ONCE(fpn->work_color);
	raw_spin_unlock(&fpn->lock);
}

bool fwq_flush_lockless_walk(struct fwq_workqueue *wq, int flush_color,
			     int work_color)
{
	struct fwq_flush_pnode **fpns = fwq_fpns(wq);
	bool wait = false;
	int i;

	for (i = 0; i <= nr_node_ids; i++) {
		struct fwq_flush_pnode *fpn = fpns[i];
		LIST_HEAD(todo);

		if (fwq_fpn_advance(wq, fpn, work_color))
			smp_mb();	/* (B): the colour before the look */
		/*
		 * Bare, racing with an enqueue's listing: the benign race of
		 * docs/hazards.md H12, marked for KCSAN by list_empty()'s
		 * READ_ONCE(). Barrier (B) pairs with the enqueue's (A).
		 */
		if (list_empty(&fpn->pwqs))
			continue;

		raw_spin_lock_irq(&fpn->lock);
		fwq_flush_count_cycle(wq);
		list_splice_init(&fpn->pwqs, &todo);
		raw_spin_unlock_irq(&fpn->lock);
		wait |= fwq_fpn_visit(wq, fpn, &todo, flush_color, work_color,
				      true);
	}
	return wait;
}

const struct fwq_flush_ops fwq_flush_lockless_ops = {
	.desc = "as active, but a node with nothing listed is skipped without its lock",
	FWQ_FPN_OPS(fwq_flush_lockless_enqueue),
	.quiet_idle = true,
};
