// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: flush=each, the flush walk before 6.13: lock and unlock the pool
 * of every pwq of the workqueue, one lock cycle per pwq.
 */
#include "ops.h"

bool fwq_flush_each_walk(struct fwq_workqueue *wq, int flush_color,
			 int work_color)
{
	struct fwq_pwq *pwq;
	bool wait = false;

	list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
		fwq_pool_lock_irq(pwq->pool);
		fwq_flush_count_cycle(wq);
		wait |= fwq_flush_visit(wq, pwq, flush_color, work_color);
		fwq_pool_unlock_irq(pwq->pool);
	}
	return wait;
}

const struct fwq_flush_ops fwq_flush_each_ops = {
	.desc = "cycle the pool lock of every pwq (before 6.13)",
};
