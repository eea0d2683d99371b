/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq: per-node lists of the pwqs queued to since the last flush, shared by
 * the flush strategies that track pwqs (flush=active, src/flush_active.c,
 * explains the protocol). wq->flush_priv holds nr_node_ids + 1 of them,
 * the last one for NUMA_NO_NODE pools, each on its own cache line on its
 * node.
 */
#ifndef _FWQ_FLUSH_PNODE_H
#define _FWQ_FLUSH_PNODE_H

#include <linux/cache.h>

#include "ops.h"

/**
 * struct fwq_flush_pnode - per-node list of pwqs active since the last
 *	flush
 * @lock: innermost, below pool->lock (the lock legend in internal.h)
 * @work_color: FN: per-node mirror of wq->work_color. flush=lockless
 *	writes it under wq->mutex alone (WRITE_ONCE()), and its enqueue
 *	reads it with READ_ONCE() after a full barrier
 * @pwqs: FN: the listed pwqs; flush=lockless tests emptiness bare, after
 *	the barrier that pairs with its enqueue's (src/flush_lockless.c)
 */
struct fwq_flush_pnode {
	raw_spinlock_t		lock;
	int			work_color;
	struct list_head	pwqs;
} ____cacheline_aligned_in_smp;

static inline struct fwq_flush_pnode **fwq_fpns(struct fwq_workqueue *wq)
{
	return wq->flush_priv;
}

static inline struct fwq_flush_pnode *fwq_pwq_fpn(struct fwq_pwq *pwq)
{
	return fwq_fpns(pwq->wq)[fwq_node_idx(pwq->pool->node)];
}

/*
 * The node an enqueue lists @pwq on: under pool->lock, @pwq untracked,
 * which means nothing of it in flight and no flush colour.
 */
static inline struct fwq_flush_pnode *fwq_fpn_untracked(struct fwq_pwq *pwq)
{
	lockdep_assert_held(&pwq->pool->lock);
	fwq_check(!pwq->total_in_flight && pwq->flush_color == -1,
		  "unlisted pwq of %s has items in flight", pwq->wq->name);
	return fwq_pwq_fpn(pwq);
}

/* the strategies' .init, .exit, .release and .show */
int fwq_fpn_init(struct fwq_workqueue *wq);
void fwq_fpn_exit(struct fwq_workqueue *wq);
void fwq_fpn_release(struct fwq_pwq *pwq);
void fwq_fpn_show(struct seq_file *m, struct fwq_workqueue *wq);

/*
 * A pnode strategy's struct fwq_flush_ops: the ops they all share, with
 * the strategy's own @enqueue
 */
#define FWQ_FPN_OPS(enqueue_fn)						\
	.init = fwq_fpn_init,						\
	.exit = fwq_fpn_exit,						\
	.enqueue = (enqueue_fn),					\
	.release = fwq_fpn_release,					\
	.show = fwq_fpn_show

bool fwq_fpn_advance(struct fwq_workqueue *wq, struct fwq_flush_pnode *fpn,
		     int work_color);
bool fwq_fpn_visit(struct fwq_workqueue *wq, struct fwq_flush_pnode *fpn,
		   struct list_head *todo, int flush_color, int work_color,
		   bool color_may_be_new);

#endif /* _FWQ_FLUSH_PNODE_H */
