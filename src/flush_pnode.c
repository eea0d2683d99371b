// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: the per-node pwq lists that flush strategies which track pwqs share
 * (src/flush_pnode.h): allocation, release, the debugfs dump, the advance of
 * a node's colour mirror and the visit of a node's spliced list.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "flush_pnode.h"

void fwq_fpn_exit(struct fwq_workqueue *wq)
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

int fwq_fpn_init(struct fwq_workqueue *wq)
{
	struct fwq_flush_pnode **fpns;
	int i;

	fpns = kcalloc(nr_node_ids + 1, sizeof(*fpns), GFP_KERNEL);
	if (!fpns)
		return -ENOMEM;
	wq->flush_priv = fpns;
	for (i = 0; i <= nr_node_ids; i++) {
		struct fwq_flush_pnode *fpn;

		fpn = fwq_kzalloc_node_slot(sizeof(*fpn), i);
		if (!fpn) {
			fwq_fpn_exit(wq);
			return -ENOMEM;
		}
		raw_spin_lock_init(&fpn->lock);
		fpn->work_color = wq->work_color;
		INIT_LIST_HEAD(&fpn->pwqs);
		fpns[i] = fpn;
	}
	return 0;
}

/* under wq->mutex, so no flusher holds @pwq on a private list */
void fwq_fpn_release(struct fwq_pwq *pwq)
{
	struct fwq_flush_pnode *fpn = fwq_pwq_fpn(pwq);

	lockdep_assert_held(&pwq->wq->mutex);
	raw_spin_lock_irq(&fpn->lock);
	list_del_init(&pwq->flush_node);
	raw_spin_unlock_irq(&fpn->lock);
}

/**
 * fwq_fpn_advance - move a node's colour mirror on with the flush
 * @wq: the workqueue, wq->mutex held (the mirror's one writer)
 * @fpn: the node
 * @work_color: the flush's new work color, one step past the mirror's; or
 *	-1, no advance
 *
 * Return: true if the mirror moved, so that a strategy whose enqueue reads
 * it without fpn->lock can order the store before its look at the list.
 */
bool fwq_fpn_advance(struct fwq_workqueue *wq, struct fwq_flush_pnode *fpn,
		     int work_color)
{
	lockdep_assert_held(&wq->mutex);
	if (work_color < 0)
		return false;
	fwq_check(work_color == fwq_work_next_color(fpn->work_color),
		  "%s: node colour %d does not advance to %d", wq->name,
		  fpn->work_color, work_color);
	WRITE_ONCE(fpn->work_color, work_color);
	return true;
}

/**
 * fwq_fpn_visit - visit the pwqs a flusher spliced off one node's list
 * @wq: the workqueue, wq->mutex held (no other flusher, no release)
 * @fpn: the node the pwqs were spliced from
 * @todo: the spliced pwqs; empty on return
 * @flush_color: color to flush, or -1
 * @work_color: new work color, or -1
 * @color_may_be_new: a pwq may already carry @work_color (a strategy whose
 *	enqueue can read the advanced mirror before the splice); otherwise
 *	every pwq must be one color behind it
 *
 * Visits the pwqs with one pool-lock cycle per run of pwqs of one pool,
 * then puts the ones with items in flight back on @fpn in one fpn->lock
 * section: a cascade can arm a color retired several advances ago, so a
 * pwq stays listed while anything of it is in flight.
 *
 * Return: true if a pwq must be waited for.
 */
bool fwq_fpn_visit(struct fwq_workqueue *wq, struct fwq_flush_pnode *fpn,
		   struct list_head *todo, int flush_color, int work_color,
		   bool color_may_be_new)
{
	struct fwq_pwq *pwq;
	LIST_HEAD(keep);
	bool wait = false;

	pwq = list_first_entry_or_null(todo, struct fwq_pwq, flush_node);
	while (pwq) {
		struct fwq_pool *pool = pwq->pool;

		fwq_pool_lock_irq(pool);
		fwq_flush_count_cycle(wq);
		do {
			fwq_check(work_color < 0 ||
				  work_color == fwq_work_next_color(pwq->work_color) ||
				  (color_may_be_new && work_color == pwq->work_color),
				  "%s: pwq colour %d does not advance to %d",
				  wq->name, pwq->work_color, work_color);
			wait |= fwq_flush_visit(wq, pwq, flush_color,
						work_color);
			if (pwq->total_in_flight) {
				list_move_tail(&pwq->flush_node, &keep);
			} else {
				list_del_init(&pwq->flush_node);
				fwq_check(pwq->flush_color == -1,
					  "idle pwq of %s left flushing",
					  wq->name);
			}
			pwq = list_first_entry_or_null(todo, struct fwq_pwq,
						       flush_node);
		} while (pwq && pwq->pool == pool);
		fwq_pool_unlock_irq(pool);
	}

	if (!list_empty(&keep)) {
		raw_spin_lock_irq(&fpn->lock);
		fwq_flush_count_cycle(wq);
		list_splice_tail(&keep, &fpn->pwqs);
		raw_spin_unlock_irq(&fpn->lock);
	}
	return wait;
}

/* under wq->mutex */
void fwq_fpn_show(struct seq_file *m, struct fwq_workqueue *wq)
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
