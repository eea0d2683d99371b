// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: flush=coalesce, the flush walk of mainline since 6.13, commit
 * 85f0d8e39aff ("workqueue: Reduce expensive locks for unbound
 * workqueue"): keep the pool lock across consecutive pwqs of one pool, so
 * an unbound workqueue's per-CPU pwqs, which map to a few pools, cost
 * about one lock cycle per pool.
 */
#include "ops.h"

bool fwq_flush_coalesce_walk(struct fwq_workqueue *wq, int flush_color,
			     int work_color)
{
	struct fwq_pool *pool;
	struct fwq_pwq *pwq;
	bool wait = false;

	if (list_empty(&wq->pwqs))
		return false;
	/*
	 * One loop that holds the lock of the current pwq's pool throughout
	 * and switches it where the pool changes: fewer live values than a
	 * walk of runs of one pool inside the walk of the list, which gcc
	 * spills around the lock calls.
	 */
	pwq = list_first_entry(&wq->pwqs, struct fwq_pwq, pwqs_node);
	pool = pwq->pool;
	fwq_pool_lock_irq(pool);
	fwq_flush_count_cycle(wq);
	while (true) {
		wait |= fwq_flush_visit(wq, pwq, flush_color, work_color);
		if (list_is_last(&pwq->pwqs_node, &wq->pwqs))
			break;
		pwq = list_next_entry(pwq, pwqs_node);
		if (pwq->pool != pool) {
			fwq_pool_unlock_irq(pool);
			pool = pwq->pool;
			fwq_pool_lock_irq(pool);
			fwq_flush_count_cycle(wq);
		}
	}
	fwq_pool_unlock_irq(pool);
	return wait;
}

const struct fwq_flush_ops fwq_flush_coalesce_ops = {
	.desc = "one pool-lock cycle per run of pwqs of one pool (6.13)",
};
