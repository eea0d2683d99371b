/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq's variant registry: every design on every axis, written once.
 *
 * A workqueue's variant picks one design per axis (struct fwq_variant):
 *   wake    where the worker wakeup of a kick is issued
 *   kicked  where a kicked, not yet running worker is parked
 *   flush   how flush_workqueue() finds and visits the pwqs
 *
 * Each axis is an X-macro list of X(ID, name, ops):
 *   ID    the enum constant's suffix: FWQ_WAKE_<ID>, FWQ_KICKED_<ID>,
 *         FWQ_FLUSH_<ID>
 *   name  the variant's name, as module parameters, fwq_variant_parse(),
 *         debugfs, the selftests, torture and the bench spell it
 *   ops   the struct fwq_wake_ops, fwq_kicked_ops or fwq_flush_ops that
 *         implements it in fwq.ko (the contracts: src/ops.h), with its one-line
 *         description and hooks
 * A wake line has a fourth field, X(ID, name, ops, kicked):
 *   kicked  the kicked-axis name the wake design was posted with; the
 *           bench's wake family (bench/bench.sh) runs each wake design
 *           with it, and debugfs "variants" prints the pair
 * Everything else is generated from these lists: the enums below, the name
 * tables, parsers and printers, the module parameter help, the strategy
 * tables, and the variant list in debugfs ("variants"). The scripts
 * enumerate from debugfs in a guest, and on the host from these lists as
 * the C preprocessor expands them (bench/runner-lib.sh, fwq_registry).
 * docs/adding-a-variant.md walks through adding one:
 * a file with its ops, plus one line here.
 *
 * The order is the enum order. The first line of an axis is its value 0;
 * the first wake line with its kicked design and the first flush line make
 * the pre-series baseline that the bench divides by.
 */
#ifndef _FWQ_VARIANTS_H
#define _FWQ_VARIANTS_H

#define FWQ_WAKE_VARIANTS(X)						\
	X(LOCKED,	locked,		fwq_wake_locked_ops,	off)	\
	X(WAKEQ,	wakeq,		fwq_wake_wakeq_ops,	on)	\
	X(CLAIM,	claim,		fwq_wake_claim_ops,	off)	\
	X(PICK,		pick,		fwq_wake_pick_ops,	off)

#define FWQ_KICKED_VARIANTS(X)						\
	X(OFF,		off,		fwq_kicked_off_ops)		\
	X(ON,		on,		fwq_kicked_on_ops)

#define FWQ_FLUSH_VARIANTS(X)						\
	X(EACH,		each,		fwq_flush_each_ops)		\
	X(COALESCE,	coalesce,	fwq_flush_coalesce_ops)		\
	X(ACTIVE,	active,		fwq_flush_active_ops)		\
	X(LOCKLESS,	lockless,	fwq_flush_lockless_ops)

/*
 * The affinity scopes of unbound workqueues, X(ID, name) in the order of
 * enum fwq_affn_scope (include/fwq/fwq.h, FWQ_AFFN_<ID>): the names that
 * the default_affinity_scope parameter, fwq_affn_scope_parse(), debugfs
 * and the bench's scope= key use (fwq_affn_scope_names[]).
 */
#define FWQ_AFFN_SCOPE_NAMES(X)						\
	X(DFL,		default)					\
	X(CPU,		cpu)						\
	X(SMT,		smt)						\
	X(CACHE,	cache)						\
	X(CACHE_SHARD,	cache_shard)					\
	X(NUMA,		numa)						\
	X(SYSTEM,	system)

/* [FWQ_AFFN_<ID>] = "name", for fwq_affn_scope_names[] */
#define __FWQ_AFFN_SCOPE_INIT(id, name)				\
	[FWQ_AFFN_##id] = #name,

/*
 * The wakeup sites (enum fwq_wake_site, include/fwq/stats.h,
 * FWQ_SITE_<ID>), X(ID, name) in enum order: their names are the
 * "wake_<name>_locked" keys of debugfs stats, the "wakeups_<name>_*" keys
 * of fwq_bench and the fwq_wakeup event's site= values.
 */
#define FWQ_WAKE_SITES(X)						\
	X(QUEUE,	queue)						\
	X(CHAIN,	chain)						\
	X(ACTIVATE,	activate)					\
	X(CM,		cm)						\
	X(FLUSH,	flush)						\
	X(RELEASE,	release)					\
	X(OTHER,	other)

/* the sites' names as an initializer, in enum order */
#define __FWQ_WAKE_SITE_STR(id, name)	#name,
#define FWQ_WAKE_SITE_NAMES	{ FWQ_WAKE_SITES(__FWQ_WAKE_SITE_STR) }
/*
 * For the fwq_wakeup tracepoint (src/fwq_trace.h): each site's
 * TRACE_DEFINE_ENUM(), a file-scope declaration and so ended by its ';',
 * and its { value, "name" } pair for __print_symbolic()
 */
#define __FWQ_WAKE_SITE_TRACE_ENUM(id, name)	TRACE_DEFINE_ENUM(FWQ_SITE_##id);
#define __FWQ_WAKE_SITE_SYM(id, name)	{ FWQ_SITE_##id, #name },

/*
 * The prototype of each flush design's walk (src/ops.h), a file-scope
 * declaration and so ended by its ';'. The wake and kicked_list hooks
 * are static, defined in the one unit that calls them (src/wake.c).
 */
#define __FWQ_FLUSH_HOOK_DECL(id, name, ...)				\
	bool fwq_flush_##name##_walk(struct fwq_workqueue *wq,		\
				     int flush_color, int work_color);

/*
 * fwq_kick_pool()'s dispatch to the pool's designs (src/wake.c): one term
 * of a conditional chain per registry line, which the engine ends with
 * the value for no match. The terms name fwq_kick_pool()'s locals (pool,
 * worker, wb, wq, site).
 */
#define __FWQ_KICKED_PICK_TERM(id, name, ...)				\
	pool->attrs.kicked == FWQ_KICKED_##id ?				\
		fwq_kicked_##name##_pick(pool) :
#define __FWQ_WAKE_KICK_TERM(id, name, ...)				\
	pool->attrs.wake == FWQ_WAKE_##id ?				\
		fwq_wake_##name##_kick(pool, worker, wb, wq, site) :
#define __FWQ_KICKED_PARK_TERM(id, name, ...)				\
	pool->attrs.kicked == FWQ_KICKED_##id ?				\
		fwq_kicked_##name##_park(pool, worker) :
/*
 * fwq_flush_walk()'s dispatch to the workqueue's flush design
 * (src/flush.c), likewise; the terms name its locals (wq, flush_color,
 * work_color).
 */
#define __FWQ_FLUSH_WALK_TERM(id, name, ...)				\
	wq->variant.flush == FWQ_FLUSH_##id ?				\
		fwq_flush_##name##_walk(wq, flush_color, work_color) :

/* generators for the enums of include/fwq/variant.h */
#define __FWQ_WAKE_ENUM(id, name, ops, ...)	FWQ_WAKE_##id,
#define __FWQ_KICKED_ENUM(id, name, ops, ...)	FWQ_KICKED_##id,
#define __FWQ_FLUSH_ENUM(id, name, ops, ...)	FWQ_FLUSH_##id,

/*
 * char name[sizeof("name")]; per variant: the size of a union of them is
 * the room the longest name of an axis needs, its NUL included
 */
#define __FWQ_VARIANT_NAME_MEMBER(id, name, ...)	char name[sizeof(#name)];

/* " name" for each variant of an axis: a string literal, for help texts */
#define __FWQ_VARIANT_NAME_STR(id, name, ops, ...)	" " #name

#endif /* _FWQ_VARIANTS_H */
