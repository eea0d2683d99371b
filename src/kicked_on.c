// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: kicked_list=on, v2's kicked-list fix for the idle-cull race
 * (docs/hazards.md, H1): the picked worker moves to pool->kicked_list,
 * where the idle cull never looks. A pick looks there first, so
 * back-to-back kicks coalesce on one worker.
 */
#include "ops.h"
#include "fwq_trace.h"

/*
 * the kicked worker first, so that kicks coalesce (|kicked_list| <= 1),
 * then the head of the idle list
 */
static __always_inline struct fwq_worker *
fwq_kicked_on_pick(struct fwq_pool *pool)
{
	if (!list_empty(&pool->kicked_list))
		return list_first_entry(&pool->kicked_list, struct fwq_worker,
					entry);
	return fwq_first_idle_worker(pool);
}

/* park the picked worker on pool->kicked_list */
static __always_inline void fwq_kicked_on_park(struct fwq_pool *pool,
					       struct fwq_worker *worker)
{
	/* picked again: the kicked worker, the one entry of kicked_list */
	if (worker->kicked)
		pool->nr_kick_coalesced++;
	trace_fwq_kicked_move(pool, worker, worker->kicked);
	list_move(&worker->entry, &pool->kicked_list);
}

const struct fwq_kicked_ops fwq_kicked_on_ops = {
	.desc = "a kicked worker waits on pool->kicked_list, out of the idle cull's reach",
};
