// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: kicked_list=off, the design before the kicked-list fix: a kick
 * picks the head of idle_list, and the picked worker stays there (unless
 * wake=claim took it off), within reach of the idle cull until it runs
 * (docs/hazards.md, H1).
 */
#include "ops.h"

static __always_inline struct fwq_worker *
fwq_kicked_off_pick(struct fwq_pool *pool)
{
	return fwq_first_idle_worker(pool);
}

/* the worker stays where it is: nothing to do */
static __always_inline void fwq_kicked_off_park(struct fwq_pool *pool,
						struct fwq_worker *worker)
{
}

const struct fwq_kicked_ops fwq_kicked_off_ops = {
	.desc = "a kicked worker stays on the idle list, within reach of the idle cull",
};
