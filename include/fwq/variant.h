/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq: the variant of a workqueue, the locking design it uses, one design
 * per axis. Included by <fwq/fwq.h>.
 */
#ifndef _FWQ_VARIANT_H
#define _FWQ_VARIANT_H

#include <linux/types.h>

#include <fwq/variants.h>

/*
 * The variant axes. Their values come from the registry,
 * include/fwq/variants.h, which lists every design once; each design's
 * one-line description is in its ops (fwq.ko's debugfs file "variants"
 * prints them all).
 *
 * enum fwq_wake: where the worker wakeup of a kick is issued (the deferred
 * wakeup series, "workqueue: Shrink the lock time", README.md): under
 * pool->lock (locked), after the unlock through a private wake queue
 * (wakeq), after the unlock on a worker claimed under the lock, at every
 * kick site (claim), or, as Linux 7.3 does, after the unlock at the
 * enqueue and chain sites only, on a worker left on the idle list (pick).
 */
enum fwq_wake {
	FWQ_WAKE_VARIANTS(__FWQ_WAKE_ENUM)
	FWQ_WAKE_NR,		/* number of wake variants */
};

/*
 * enum fwq_kicked: where a kicked, not yet running worker is parked: on the
 * idle list, within reach of the idle cull (off), or on pool->kicked_list,
 * out of its reach (on).
 */
enum fwq_kicked {
	FWQ_KICKED_VARIANTS(__FWQ_KICKED_ENUM)
	FWQ_KICKED_NR,		/* number of kicked_list variants */
};

/*
 * enum fwq_flush: how flush_workqueue() walks the pool workqueues: every
 * pwq's pool lock cycled (each, before 6.13), the lock cycled only when the
 * pool changes (coalesce, commit 85f0d8e39aff ("workqueue: Reduce expensive
 * locks for unbound workqueue")), only the pwqs active since the last
 * flush (active, the flush-active seed mail), or those with a node with
 * nothing listed skipped without its lock (lockless).
 */
enum fwq_flush {
	FWQ_FLUSH_VARIANTS(__FWQ_FLUSH_ENUM)
	FWQ_FLUSH_NR,		/* number of flush variants */
};

/**
 * struct fwq_variant - the locking design a workqueue uses
 * @wake: where worker wakeups are issued
 * @kicked: whether kicked workers are parked on the kicked list
 * @flush: how flushes walk the pwqs
 *
 * Fixed when the workqueue is created. The module parameters wake,
 * kicked_list and flush give the defaults.
 */
struct fwq_variant {
	enum fwq_wake wake;
	enum fwq_kicked kicked;
	enum fwq_flush flush;
};

/*
 * The named variant "mainline": Linux 7.3's own workqueue, which
 * fwq_variant_parse() accepts by this name and the module parameters give
 * by default.
 */
#define FWQ_MAINLINE_WAKE	FWQ_WAKE_PICK
#define FWQ_MAINLINE_KICKED	FWQ_KICKED_OFF
#define FWQ_MAINLINE_FLUSH	FWQ_FLUSH_COALESCE
#define FWQ_VARIANT_MAINLINE	{ .wake = FWQ_MAINLINE_WAKE,		\
				  .kicked = FWQ_MAINLINE_KICKED,	\
				  .flush = FWQ_MAINLINE_FLUSH }

/**
 * fwq_default_variant - the variant given by the module parameters
 * @v: filled in
 */
void fwq_default_variant(struct fwq_variant *v);

/**
 * fwq_variant_parse - parse a variant string
 * @s: "wake=NAME,kicked_list=NAME,flush=NAME" with the names of the
 *	registry (<fwq/variants.h>; debugfs "variants" lists them); any
 *	subset, in any order, separated by commas or spaces. The word
 *	"mainline" stands for FWQ_VARIANT_MAINLINE's three keys, which
 *	later keys may override ("mainline,flush=active").
 * @v: updated with the keys present in @s; unchanged on error
 *
 * Return: 0, or -EINVAL for an unknown key or value.
 */
int fwq_variant_parse(const char *s, struct fwq_variant *v);

/**
 * fwq_variant_str - format a variant
 * @v: the variant
 * @buf: output buffer
 * @len: size of @buf
 *
 * Return: the number of characters written, as snprintf().
 */
int fwq_variant_str(const struct fwq_variant *v, char *buf, size_t len);

/* Name strings for each axis, indexed by the enum value. */
const char *fwq_wake_name(enum fwq_wake w);
const char *fwq_kicked_name(enum fwq_kicked k);
const char *fwq_flush_name(enum fwq_flush f);

#endif /* _FWQ_VARIANT_H */
