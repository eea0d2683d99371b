/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq design contracts: what a wake, kicked_list or flush design provides
 * (its ops), in which lock context the engine calls each hook, and the few
 * engine services a design calls back. A design's file includes this
 * header; the engine's files that dispatch to a design include it too.
 * The names and enum values come from the registry,
 * include/fwq/variants.h; docs/adding-a-variant.md walks through a new
 * design.
 */
#ifndef _FWQ_OPS_H
#define _FWQ_OPS_H

#include "dbg.h"
#include "internal.h"

/**
 * struct fwq_wake_ops - a wake strategy, chosen per pool by attrs.wake; its
 *	name and enum value come from the registry (include/fwq/variants.h)
 * @desc: one line for debugfs "variants"
 *
 * Its hook is a static __always_inline function named after the
 * registry's name, dispatched by a chain that the registry generates
 * (fwq_kick_pool(), src/wake.c), not through a pointer. wake.o compiles
 * every wake_*.c and kicked_*.c (src/Kbuild) ahead of fwq_kick_pool(), so
 * the hooks inline there, as mainline's kick_pool() has its pick inline:
 * no call, no indirect call (a retpoline where those are on), and no
 * copy out of line.
 *
 * fwq_wake_NAME_kick(): under pool->lock, hand the picked @worker to the
 * wakeup mechanism. It runs before the kicked_list design's park, and may
 * take @worker off whatever list it is on (wake=claim does); it must not
 * put it on one.
 */
struct fwq_wake_ops {
	const char *desc;
};

/**
 * struct fwq_kicked_ops - where a kicked worker waits until it runs, per
 *	pool; its name and enum value come from the registry
 *	(include/fwq/variants.h)
 * @desc: one line for debugfs "variants"
 *
 * Its hooks, named and called as the wake design's are:
 * fwq_kicked_NAME_pick(): under pool->lock, the idle worker a kick wakes,
 * or NULL;
 * fwq_kicked_NAME_park(): under pool->lock, after the wake design's kick,
 * park the picked @worker; @worker->kicked still says whether it had been
 * kicked before (a coalesced kick).
 */
struct fwq_kicked_ops {
	const char *desc;
};

/**
 * struct fwq_flush_ops - a flush strategy: how flush_workqueue() finds and
 *	visits the pwqs, and every hook the engine calls for it. Only @desc
 *	and the walk are required. Nothing outside the strategy's own file
 *	tests which strategy a workqueue has; the engine calls these hooks.
 *	Its name and enum value come from the registry
 *	(include/fwq/variants.h).
 * @desc: one line for debugfs "variants"
 * @init: allocate the strategy's per-workqueue state in wq->flush_priv;
 *	process context, before the workqueue has a pwq. Return 0, or -errno
 *	with whatever it allocated freed again.
 * @exit: free wq->flush_priv; called only after a successful @init
 * @enqueue: an item is being queued to @pwq, whose flush_node is empty
 *	(untracked); under pool->lock, before the item's colour is read. With
 *	this hook the strategy tracks pwqs on flush_node (see FN) and a
 *	barrier's pwq must be tracked already.
 * @release: @pwq is being released; under wq->mutex, so no flusher holds
 *	it on a private list
 * @show: debugfs detail for the workqueue dump; under wq->mutex
 * @quiet_idle: a flush that finds nothing in flight returns without
 *	completing its own flusher: no complete(), no flush wakeup counted.
 *	Unset, the flusher is completed all the same, as mainline's
 *	__flush_workqueue() does (it never waits on that completion).
 *
 * The walk is a function named after the registry's name,
 * fwq_flush_NAME_walk(), called directly from a switch that the registry
 * generates (fwq_flush_walk(), src/flush.c), as the wake design's
 * kick is: under wq->mutex, visit pwqs under their pool locks, calling
 * fwq_flush_visit(), and count every lock acquisition (pool and strategy
 * locks) with fwq_flush_count_cycle(); return true if any pwq must be
 * waited for. The hooks above are called through the pointers: none is on
 * the path of a flush.
 */
struct fwq_flush_ops {
	const char *desc;
	int (*init)(struct fwq_workqueue *wq);
	void (*exit)(struct fwq_workqueue *wq);
	void (*enqueue)(struct fwq_pwq *pwq);
	void (*release)(struct fwq_pwq *pwq);
	void (*show)(struct seq_file *m, struct fwq_workqueue *wq);
	bool quiet_idle;
};

/*
 * The flush strategies of every registered variant, indexed by their enum
 * (src/variant.c builds the table from include/fwq/variants.h; a new
 * workqueue takes its flush_ops from it), and each design's ops, which
 * its own file defines (debugfs "variants" prints their descriptions).
 */
extern const struct fwq_flush_ops *const fwq_flush_strategies[FWQ_FLUSH_NR];

/*
 * One declaration per axis whose declarators are the ops of the registry,
 * between two markers that are declared only (the list needs something on
 * each side of its commas).
 */
#define __FWQ_OPS_DECLARATOR(id, name, ops, ...)	ops,
extern const struct fwq_wake_ops fwq_wake_ops_first_,
	FWQ_WAKE_VARIANTS(__FWQ_OPS_DECLARATOR) fwq_wake_ops_last_;
extern const struct fwq_kicked_ops fwq_kicked_ops_first_,
	FWQ_KICKED_VARIANTS(__FWQ_OPS_DECLARATOR) fwq_kicked_ops_last_;
extern const struct fwq_flush_ops fwq_flush_ops_first_,
	FWQ_FLUSH_VARIANTS(__FWQ_OPS_DECLARATOR) fwq_flush_ops_last_;

/*
 * The walk of every registered flush design, fwq_flush_NAME_walk(),
 * defined in the design's own object and declared from the registry (the
 * generator is in include/fwq/variants.h). The wake and kicked_list
 * hooks, fwq_wake_NAME_kick(), fwq_kicked_NAME_pick() and
 * fwq_kicked_NAME_park(), need no declaration: each is defined static
 * __always_inline in the design's own file, which wake.c includes ahead
 * of fwq_kick_pool(), their one caller.
 */
FWQ_FLUSH_VARIANTS(__FWQ_FLUSH_HOOK_DECL)
/* wake.c's helpers for a kicked_list design's @pick */
/* the head of the LIFO idle list: the most recently idle worker */
static inline struct fwq_worker *fwq_first_idle_worker(struct fwq_pool *pool)
{
	return list_first_entry_or_null(&pool->idle_list, struct fwq_worker,
					entry);
}

/*
 * The walk counters, wq->flush_pwqs_visited and wq->flush_lock_cycles, are
 * kept only while fwq_counters_key is on, as the wakeup counters are:
 * mainline's walk counts nothing, and with the key off each count is a
 * patched-out jump, with no load or store of either. Under wq->mutex,
 * which every walk holds.
 */
static __always_inline void fwq_flush_count_cycle(struct fwq_workqueue *wq)
{
	if (fwq_counters_on())
		wq->flush_lock_cycles++;
}

/**
 * fwq_flush_visit - the per-pwq step of a flush preparation
 * @wq: the workqueue
 * @pwq: the pwq, its pool locked
 * @flush_color: color to flush, or -1
 * @work_color: new work color, or -1
 *
 * A flush design's walk calls this for each pwq it visits; inline, as
 * mainline's walk has this step in its loop.
 *
 * Return: true if @pwq has items of @flush_color in flight.
 */
static __always_inline bool fwq_flush_visit(struct fwq_workqueue *wq,
					    struct fwq_pwq *pwq,
					    int flush_color, int work_color)
{
	bool wait = false;

	lockdep_assert_held(&pwq->pool->lock);
	/* H8 reproducer: the broken "skip idle pwqs" optimisation */
	if (fwq_dbg_flush_skips(pwq))
		return false;
	if (fwq_counters_on())
		wq->flush_pwqs_visited++;

	if (flush_color >= 0) {
		fwq_check(pwq->flush_color == -1, "pwq of %s already flushing",
			  wq->name);
		/* unsigned: a 32-bit index needs no sign extension */
		if (pwq->nr_in_flight[(unsigned int)flush_color]) {
			pwq->flush_color = flush_color;
			atomic_inc(&wq->nr_pwqs_to_flush);
			wait = true;
		}
	}
	if (work_color >= 0)
		pwq->work_color = work_color;
	return wait;
}

#endif /* _FWQ_OPS_H */
