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
	struct fwq_pwq *pwq = list_first_entry(&wq->pwqs, struct fwq_pwq,
					       pwqs_node);
	bool wait = false;

	while (!list_entry_is_head(pwq, &wq->pwqs, pwqs_node)) {
		struct fwq_pool *pool = pwq->pool;

		fwq_pool_lock_irq(pool);
		fwq_flush_count_cycle(wq);
		do {
			wait |= fwq_flush_visit(wq, pwq, flush_color,
						work_color);
			pwq = list_next_entry(pwq, pwqs_node);
		} while (!list_entry_is_head(pwq, &wq->pwqs, pwqs_node) &&
			 pwq->pool == pool);
		fwq_pool_unlock_irq(pool);
	}
	return wait;
}

const struct fwq_flush_ops fwq_flush_coalesce_ops = {
	.desc = "one pool-lock cycle per run of pwqs of one pool (6.13)",
};
