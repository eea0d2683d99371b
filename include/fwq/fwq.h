/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq: a private, self-contained clone of the kernel workqueue.
 *
 * This header is the public API of fwq.ko. It mirrors <linux/workqueue.h>
 * with an fwq_ prefix and distinct types, so that a kernel work_struct can
 * never be handed to fwq (or the other way round) without a compile error.
 *
 * Every design from the patch mails that README.md cites is a
 * per-workqueue choice, made when the workqueue is created (struct
 * fwq_variant). Workqueues with different variants never share a worker
 * pool, so several variants can run side by side in one boot.
 *
 * The public headers, by audience; this one includes the other two:
 *   <fwq/fwq.h>      the workqueue API, for any client module
 *   <fwq/variant.h>  the variant type, its parser and names, for code that
 *                    picks designs (the registry itself: <fwq/variants.h>)
 *   <fwq/stats.h>    counters and lock statistics, for the bench and tests
 */
#ifndef _FWQ_FWQ_H
#define _FWQ_FWQ_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/timer.h>
#include <linux/types.h>

#include <fwq/stats.h>
#include <fwq/variant.h>

struct fwq_work;
struct fwq_workqueue;

/**
 * typedef fwq_work_func_t - function run by an fwq work item
 * @work: the work item being executed
 */
typedef void (*fwq_work_func_t)(struct fwq_work *work);

/*
 * Layout of fwq_work->data (64-bit). While the item is queued (PWQ set) the
 * high bits hold a pool_workqueue pointer and a flush colour. Off queue they
 * hold the id of the pool that last ran the item and a disable depth.
 * The layout is fwq's own and differs from the 6.1 kernel's work_struct.
 */
enum {
	FWQ_WORK_STRUCT_PENDING_BIT	= 0,	/* work item is pending execution */
	FWQ_WORK_STRUCT_INACTIVE_BIT	= 1,	/* on inactive list, or barrier */
	FWQ_WORK_STRUCT_PWQ_BIT		= 2,	/* data points to a pwq */
	FWQ_WORK_STRUCT_LINKED_BIT	= 3,	/* next work is linked to this one */
	FWQ_WORK_STRUCT_FLAG_BITS	= 4,

	FWQ_WORK_STRUCT_COLOR_SHIFT	= FWQ_WORK_STRUCT_FLAG_BITS,
	FWQ_WORK_STRUCT_COLOR_BITS	= 4,
	FWQ_WORK_NR_COLORS		= 1 << FWQ_WORK_STRUCT_COLOR_BITS,

	/* pwqs are aligned to 1 << FWQ_WORK_STRUCT_PWQ_SHIFT bytes */
	FWQ_WORK_STRUCT_PWQ_SHIFT	= 8,

	/* off-queue data: [pool id | disable depth | flags] */
	FWQ_WORK_OFFQ_FLAG_SHIFT	= FWQ_WORK_STRUCT_FLAG_BITS,
	FWQ_WORK_OFFQ_DISABLE_SHIFT	= FWQ_WORK_OFFQ_FLAG_SHIFT + 1,
	FWQ_WORK_OFFQ_DISABLE_BITS	= 16,
	FWQ_WORK_OFFQ_POOL_SHIFT	= FWQ_WORK_OFFQ_DISABLE_SHIFT +
					  FWQ_WORK_OFFQ_DISABLE_BITS,
	FWQ_WORK_OFFQ_POOL_BITS		= 31,
};

#define FWQ_WORK_STRUCT_PENDING	BIT(FWQ_WORK_STRUCT_PENDING_BIT)
#define FWQ_WORK_STRUCT_INACTIVE BIT(FWQ_WORK_STRUCT_INACTIVE_BIT)
#define FWQ_WORK_STRUCT_PWQ	BIT(FWQ_WORK_STRUCT_PWQ_BIT)
#define FWQ_WORK_STRUCT_LINKED	BIT(FWQ_WORK_STRUCT_LINKED_BIT)
#define FWQ_WORK_OFFQ_POOL_NONE	((1UL << FWQ_WORK_OFFQ_POOL_BITS) - 1)
#define FWQ_WORK_DATA_INIT_VAL	(FWQ_WORK_OFFQ_POOL_NONE << FWQ_WORK_OFFQ_POOL_SHIFT)

/* Queue on no particular CPU: the local CPU's pod picks the pwq. */
#define FWQ_CPU_UNBOUND		NR_CPUS

/**
 * struct fwq_work - an fwq work item
 * @data: pending bit, pwq pointer or off-queue pool id; see the layout above
 * @entry: link on a worklist, an inactive list or a worker's scheduled list
 * @func: the function to run
 * @lockdep_map: with CONFIG_LOCKDEP: held while @func runs and taken by a
 *	flush of the item, so that lockdep sees an item that flushes itself,
 *	or a flush that waits on an item which waits on the flusher; one class
 *	per FWQ_INIT_WORK() call site or statically initialized item
 *
 * Initialize with FWQ_INIT_WORK() or FWQ_WORK_INITIALIZER(). Users must not
 * touch the fields directly.
 */
struct fwq_work {
	atomic_long_t data;
	struct list_head entry;
	fwq_work_func_t func;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map lockdep_map;
#endif
};

#ifdef CONFIG_LOCKDEP
#define __FWQ_WORK_LOCKDEP_INIT(n)					\
	.lockdep_map = STATIC_LOCKDEP_MAP_INIT(#n, &(n)),
#else
#define __FWQ_WORK_LOCKDEP_INIT(n)
#endif

/**
 * struct fwq_delayed_work - an fwq work item queued after a delay
 * @work: the work item
 * @timer: the timer that queues @work when it expires
 * @wq: the workqueue @work is queued to when @timer fires
 * @cpu: the target CPU, or FWQ_CPU_UNBOUND
 */
struct fwq_delayed_work {
	struct fwq_work work;
	struct timer_list timer;
	struct fwq_workqueue *wq;
	int cpu;
};

void fwq_delayed_work_timer_fn(struct timer_list *t);

/**
 * FWQ_WORK_INITIALIZER - static initializer of an fwq work item
 * @n: the struct fwq_work being initialized (for its list head)
 * @f: function to run
 *
 * Example: static struct fwq_work w = FWQ_WORK_INITIALIZER(w, fn);
 */
#define FWQ_WORK_INITIALIZER(n, f) {					\
	.data = ATOMIC_LONG_INIT(FWQ_WORK_DATA_INIT_VAL),		\
	.entry = LIST_HEAD_INIT((n).entry),				\
	.func = (f),							\
	__FWQ_WORK_LOCKDEP_INIT(n)					\
}

/**
 * FWQ_DELAYED_WORK_INITIALIZER - static initializer of a delayed work item
 * @n: the struct fwq_delayed_work being initialized
 * @f: function to run
 */
#define FWQ_DELAYED_WORK_INITIALIZER(n, f) {				\
	.work = FWQ_WORK_INITIALIZER((n).work, (f)),			\
	.timer = __TIMER_INITIALIZER(fwq_delayed_work_timer_fn,	\
				     TIMER_IRQSAFE),			\
}

/**
 * __fwq_init_work - initialize an fwq work item at run time
 * @work: the work item
 * @func: the function it runs
 * @name: the item's name for lockdep
 * @key: the item's lockdep class (unused without CONFIG_LOCKDEP)
 *
 * Use FWQ_INIT_WORK(), which gives each call site a class of its own.
 */
static inline void __fwq_init_work(struct fwq_work *work,
				   fwq_work_func_t func, const char *name,
				   struct lock_class_key *key)
{
	atomic_long_set(&work->data, FWQ_WORK_DATA_INIT_VAL);
	INIT_LIST_HEAD(&work->entry);
	work->func = func;
#ifdef CONFIG_LOCKDEP
	lockdep_init_map(&work->lockdep_map, name, key, 0);
#endif
}

/**
 * FWQ_INIT_WORK - initialize an fwq work item at run time
 * @_work: the struct fwq_work to initialize
 * @_func: the function it runs
 */
#ifdef CONFIG_LOCKDEP
#define FWQ_INIT_WORK(_work, _func)					\
	do {								\
		static struct lock_class_key __key;			\
									\
		__fwq_init_work((_work), (_func), #_work, &__key);	\
	} while (0)
#else
#define FWQ_INIT_WORK(_work, _func)					\
	__fwq_init_work((_work), (_func), NULL, NULL)
#endif

/**
 * FWQ_INIT_WORK_ONSTACK - initialize an fwq work item on the stack
 * @_work: the struct fwq_work to initialize, on the stack
 * @_func: the function it runs
 *
 * As Linux 7.3's INIT_WORK_ONSTACK(); end the item's life with
 * fwq_destroy_work_on_stack() once it is idle. fwq tracks no work item
 * with debugobjects, so this is FWQ_INIT_WORK(); the pair keeps the
 * kernel's form so that callers need no change if that ever changes.
 */
#define FWQ_INIT_WORK_ONSTACK(_work, _func)	FWQ_INIT_WORK(_work, _func)

/**
 * fwq_destroy_work_on_stack - end of an on-stack fwq work item
 * @work: the item, idle (not pending, not running)
 *
 * Pairs with FWQ_INIT_WORK_ONSTACK(). Nothing to undo today.
 */
static inline void fwq_destroy_work_on_stack(struct fwq_work *work)
{
}

/**
 * __fwq_init_delayed_work - initialize an fwq delayed work item at run time
 * @dwork: the delayed work item
 * @func: the function it runs
 * @tflags: TIMER_DEFERRABLE or 0, on top of TIMER_IRQSAFE
 * @onstack: @dwork is on the stack: its timer is set up with
 *	timer_setup_on_stack(), which debugobjects wants for an object on
 *	the stack (and fwq_destroy_delayed_work_on_stack() ends it)
 * @name: the item's name for lockdep
 * @key: the item's lockdep class (unused without CONFIG_LOCKDEP)
 *
 * Use FWQ_INIT_DELAYED_WORK() and its _ONSTACK and DEFERRABLE forms.
 */
static inline void __fwq_init_delayed_work(struct fwq_delayed_work *dwork,
					   fwq_work_func_t func,
					   unsigned int tflags, bool onstack,
					   const char *name,
					   struct lock_class_key *key)
{
	__fwq_init_work(&dwork->work, func, name, key);
	if (onstack)
		timer_setup_on_stack(&dwork->timer, fwq_delayed_work_timer_fn,
				     TIMER_IRQSAFE | tflags);
	else
		timer_setup(&dwork->timer, fwq_delayed_work_timer_fn,
			    TIMER_IRQSAFE | tflags);
}

#ifdef CONFIG_LOCKDEP
#define __FWQ_INIT_DELAYED_WORK(_dwork, _func, _tflags, _onstack)	\
	do {								\
		static struct lock_class_key __key;			\
									\
		__fwq_init_delayed_work((_dwork), (_func), (_tflags),	\
					(_onstack), #_dwork, &__key);	\
	} while (0)
#else
#define __FWQ_INIT_DELAYED_WORK(_dwork, _func, _tflags, _onstack)	\
	__fwq_init_delayed_work((_dwork), (_func), (_tflags), (_onstack), \
				NULL, NULL)
#endif

/**
 * FWQ_INIT_DELAYED_WORK - initialize an fwq delayed work item at run time
 * @_dwork: the struct fwq_delayed_work to initialize
 * @_func: the function it runs
 */
#define FWQ_INIT_DELAYED_WORK(_dwork, _func)				\
	__FWQ_INIT_DELAYED_WORK(_dwork, _func, 0, false)

/**
 * FWQ_INIT_DELAYED_WORK_ONSTACK - initialize a delayed item on the stack
 * @_dwork: the struct fwq_delayed_work to initialize, on the stack
 * @_func: the function it runs
 *
 * As Linux 7.3's INIT_DELAYED_WORK_ONSTACK(): end the item's life with
 * fwq_destroy_delayed_work_on_stack() once it is idle (its timer not
 * armed: after a flush or a sync cancel).
 */
#define FWQ_INIT_DELAYED_WORK_ONSTACK(_dwork, _func)			\
	__FWQ_INIT_DELAYED_WORK(_dwork, _func, 0, true)

/**
 * FWQ_INIT_DEFERRABLE_WORK - a delayed item whose timer is deferrable
 * @_dwork: the struct fwq_delayed_work to initialize
 * @_func: the function it runs
 *
 * As Linux 7.3's INIT_DEFERRABLE_WORK(): an idle CPU does not wake up
 * for the timer (TIMER_DEFERRABLE).
 */
#define FWQ_INIT_DEFERRABLE_WORK(_dwork, _func)				\
	__FWQ_INIT_DELAYED_WORK(_dwork, _func, TIMER_DEFERRABLE, false)

/**
 * FWQ_INIT_DEFERRABLE_WORK_ONSTACK - a deferrable delayed item on the stack
 * @_dwork: the struct fwq_delayed_work to initialize, on the stack
 * @_func: the function it runs
 *
 * End its life with fwq_destroy_delayed_work_on_stack().
 */
#define FWQ_INIT_DEFERRABLE_WORK_ONSTACK(_dwork, _func)			\
	__FWQ_INIT_DELAYED_WORK(_dwork, _func, TIMER_DEFERRABLE, true)

/**
 * fwq_destroy_delayed_work_on_stack - end of an on-stack delayed item
 * @dwork: the item, idle (its timer not armed, the item not pending)
 *
 * Pairs with FWQ_INIT_DELAYED_WORK_ONSTACK() and
 * FWQ_INIT_DEFERRABLE_WORK_ONSTACK(): tells debugobjects that the
 * timer's stack object is gone, as Linux 7.3's
 * destroy_delayed_work_on_stack().
 */
void fwq_destroy_delayed_work_on_stack(struct fwq_delayed_work *dwork);

/**
 * to_fwq_delayed_work - the delayed work item that contains @work
 * @work: the embedded work item
 */
static inline struct fwq_delayed_work *to_fwq_delayed_work(struct fwq_work *work)
{
	return container_of(work, struct fwq_delayed_work, work);
}

/**
 * fwq_work_pending - is a work item pending (queued or on a timer)?
 * @work: the work item
 */
static inline bool fwq_work_pending(struct fwq_work *work)
{
	return test_bit(FWQ_WORK_STRUCT_PENDING_BIT,
			(unsigned long *)&work->data);
}

/**
 * fwq_delayed_work_pending - is a delayed work item pending?
 * @dwork: the delayed work item
 */
static inline bool fwq_delayed_work_pending(struct fwq_delayed_work *dwork)
{
	return fwq_work_pending(&dwork->work);
}

/* Workqueue flags, for fwq_alloc_workqueue(). */
enum {
	FWQ_UNBOUND		= 1 << 1,	/* not bound to any CPU */
	/*
	 * fwq's workers are not frozen: while a workqueue made with
	 * FWQ_FREEZABLE exists, fwq.ko refuses suspend and hibernation
	 * (a PM notifier, one log line naming the workqueue)
	 */
	FWQ_FREEZABLE		= 1 << 2,
	FWQ_MEM_RECLAIM		= 1 << 3,	/* has a rescuer */
	FWQ_HIGHPRI		= 1 << 4,	/* high priority (nice -20) */
	FWQ_CPU_INTENSIVE	= 1 << 5,	/* not concurrency managed */
	/*
	 * per-CPU unless fwq.ko's power_efficient parameter is on, which
	 * makes it unbound (Linux 7.3's WQ_POWER_EFFICIENT)
	 */
	FWQ_POWER_EFFICIENT	= 1 << 7,
	FWQ_PERCPU		= 1 << 8,	/* explicitly per-CPU */

	__FWQ_ORDERED		= 1 << 17,	/* internal: ordered workqueue */

	FWQ_MAX_ACTIVE		= 2048,
	FWQ_DFL_ACTIVE		= FWQ_MAX_ACTIVE / 2,
	FWQ_NAME_LEN		= 32,
};

/**
 * enum fwq_affn_scope - affinity scope of an unbound workqueue
 * @FWQ_AFFN_DFL: use the default_affinity_scope module parameter
 * @FWQ_AFFN_CPU: one pod per CPU
 * @FWQ_AFFN_SMT: one pod per SMT core
 * @FWQ_AFFN_CACHE: one pod per last-level cache (approximated on 6.1)
 * @FWQ_AFFN_CACHE_SHARD: LLC pods split into shards of cache_shard_size cores
 * @FWQ_AFFN_NUMA: one pod per NUMA node
 * @FWQ_AFFN_SYSTEM: one pod with every CPU
 * @FWQ_AFFN_NR_TYPES: number of scopes
 */
enum fwq_affn_scope {
	FWQ_AFFN_DFL,
	FWQ_AFFN_CPU,
	FWQ_AFFN_SMT,
	FWQ_AFFN_CACHE,
	FWQ_AFFN_CACHE_SHARD,
	FWQ_AFFN_NUMA,
	FWQ_AFFN_SYSTEM,
	FWQ_AFFN_NR_TYPES,
};

/**
 * fwq_affn_scope_parse - parse an affinity scope name
 * @s: a name of FWQ_AFFN_SCOPE_NAMES (include/fwq/variants.h)
 *
 * Return: the scope, or -EINVAL.
 */
int fwq_affn_scope_parse(const char *s);

/**
 * fwq_affn_scope_name - the name of an affinity scope
 * @scope: the scope
 */
const char *fwq_affn_scope_name(enum fwq_affn_scope scope);

/* every scope's name, indexed by enum fwq_affn_scope (FWQ_AFFN_SCOPE_NAMES) */
extern const char * const fwq_affn_scope_names[FWQ_AFFN_NR_TYPES];

/**
 * struct fwq_workqueue_attrs - attributes of an unbound workqueue
 * @nice: nice level of the workers
 * @cpumask: CPUs the workers may run on
 * @affn_scope: affinity scope, which decides the pods
 * @affn_strict: confine workers to their pod instead of only preferring it
 * @variant: locking design; @variant.flush must equal the workqueue's
 */
struct fwq_workqueue_attrs {
	int nice;
	cpumask_var_t cpumask;
	enum fwq_affn_scope affn_scope;
	bool affn_strict;
	struct fwq_variant variant;
};

/**
 * fwq_alloc_workqueue_attrs - allocate attributes, set to the defaults
 *
 * Return: the attributes, or NULL on allocation failure.
 */
struct fwq_workqueue_attrs *fwq_alloc_workqueue_attrs(void);

/**
 * fwq_free_workqueue_attrs - free attributes
 * @attrs: from fwq_alloc_workqueue_attrs(), or NULL
 */
void fwq_free_workqueue_attrs(struct fwq_workqueue_attrs *attrs);

/**
 * fwq_apply_workqueue_attrs - change the attributes of an unbound workqueue
 * @wq: an unbound, non-ordered workqueue
 * @attrs: the new attributes
 *
 * Context: may sleep.
 * Return: 0, -EINVAL for a per-CPU or ordered @wq, an empty cpumask or a
 * different flush variant, or -ENOMEM.
 */
int fwq_apply_workqueue_attrs(struct fwq_workqueue *wq,
			      const struct fwq_workqueue_attrs *attrs);

/**
 * fwq_alloc_workqueue_variant - allocate a workqueue with a given variant
 * @variant: the locking design, or NULL for the module parameter defaults
 * @fmt: printf format for the name
 * @flags: FWQ_* flags
 * @max_active: maximum in-flight items per CPU (per-CPU workqueues) or per
 *	node (unbound), 0 for FWQ_DFL_ACTIVE
 * @...: arguments for @fmt
 *
 * Context: may sleep.
 * Return: the workqueue, or NULL on error (bad argument or no memory).
 */
__printf(2, 5) struct fwq_workqueue *
fwq_alloc_workqueue_variant(const struct fwq_variant *variant, const char *fmt,
			    unsigned int flags, int max_active, ...);

/**
 * fwq_alloc_workqueue - allocate a workqueue with the default variant
 * @fmt: printf format for the name
 * @flags: FWQ_* flags
 * @max_active: as fwq_alloc_workqueue_variant()
 * @...: arguments for @fmt
 *
 * Return: the workqueue, or NULL.
 */
#define fwq_alloc_workqueue(fmt, flags, max_active, ...)		\
	fwq_alloc_workqueue_variant(NULL, fmt, flags, max_active, ##__VA_ARGS__)

/**
 * fwq_alloc_ordered_workqueue - allocate an ordered workqueue
 * @fmt: printf format for the name
 * @flags: FWQ_* flags; FWQ_UNBOUND and ordering are implied
 * @...: arguments for @fmt
 *
 * An ordered workqueue runs at most one item at a time, in queueing order.
 *
 * Return: the workqueue, or NULL.
 */
#define fwq_alloc_ordered_workqueue(fmt, flags, ...)			\
	fwq_alloc_workqueue(fmt, FWQ_UNBOUND | __FWQ_ORDERED | (flags), 1, \
			    ##__VA_ARGS__)

/**
 * fwq_alloc_ordered_workqueue_variant - ordered workqueue with a variant
 * @variant: the locking design, or NULL for the defaults
 * @fmt: printf format for the name
 * @flags: FWQ_* flags
 * @...: arguments for @fmt
 */
#define fwq_alloc_ordered_workqueue_variant(variant, fmt, flags, ...)	\
	fwq_alloc_workqueue_variant(variant, fmt,			\
				    FWQ_UNBOUND | __FWQ_ORDERED | (flags), 1, \
				    ##__VA_ARGS__)

/**
 * fwq_destroy_workqueue - drain and free a workqueue
 * @wq: the workqueue
 *
 * Pending delayed-work timers are not cancelled; users cancel them first.
 * Context: may sleep.
 */
void fwq_destroy_workqueue(struct fwq_workqueue *wq);

/**
 * fwq_workqueue_set_max_active - change max_active of a workqueue
 * @wq: a non-ordered workqueue
 * @max_active: 1 to FWQ_MAX_ACTIVE
 *
 * Return: 0, or -EINVAL for an ordered @wq or an out-of-range value.
 */
int fwq_workqueue_set_max_active(struct fwq_workqueue *wq, int max_active);

/**
 * fwq_workqueue_variant - the variant a workqueue was created with
 * @wq: the workqueue
 * @v: filled in
 */
void fwq_workqueue_variant(struct fwq_workqueue *wq, struct fwq_variant *v);

/**
 * fwq_queue_work_on - queue work on a specific CPU
 * @cpu: CPU number, or FWQ_CPU_UNBOUND
 * @wq: the workqueue
 * @work: the work item
 *
 * For an unbound @wq, @cpu only selects the pod. Context: any.
 * Return: %false if @work was already pending (or disabled), %true otherwise.
 */
bool fwq_queue_work_on(int cpu, struct fwq_workqueue *wq,
		       struct fwq_work *work);

/**
 * fwq_queue_work_node - queue work on a CPU of a NUMA node
 * @node: NUMA node, or NUMA_NO_NODE
 * @wq: an unbound workqueue
 * @work: the work item
 *
 * Return: as fwq_queue_work_on().
 */
bool fwq_queue_work_node(int node, struct fwq_workqueue *wq,
			 struct fwq_work *work);

/**
 * fwq_queue_work - queue work on the local CPU's pwq
 * @wq: the workqueue
 * @work: the work item
 *
 * Return: as fwq_queue_work_on().
 */
static inline bool fwq_queue_work(struct fwq_workqueue *wq,
				  struct fwq_work *work)
{
	return fwq_queue_work_on(FWQ_CPU_UNBOUND, wq, work);
}

/**
 * fwq_queue_delayed_work_on - queue work on a CPU after a delay
 * @cpu: CPU number, or FWQ_CPU_UNBOUND
 * @wq: the workqueue
 * @dwork: the delayed work item
 * @delay: jiffies to wait; 0 queues at once
 *
 * Return: %false if @dwork was already pending, %true otherwise.
 */
bool fwq_queue_delayed_work_on(int cpu, struct fwq_workqueue *wq,
			       struct fwq_delayed_work *dwork,
			       unsigned long delay);

/**
 * fwq_mod_delayed_work_on - modify the delay of, or queue, a delayed item
 * @cpu: CPU number, or FWQ_CPU_UNBOUND
 * @wq: the workqueue
 * @dwork: the delayed work item
 * @delay: jiffies to wait from now
 *
 * Return: %true if @dwork was pending and its timer was modified, %false if
 * it was idle and has now been queued.
 */
bool fwq_mod_delayed_work_on(int cpu, struct fwq_workqueue *wq,
			     struct fwq_delayed_work *dwork,
			     unsigned long delay);

/**
 * fwq_queue_delayed_work - queue delayed work on any CPU
 * @wq: the workqueue
 * @dwork: the delayed work item
 * @delay: jiffies to wait
 */
static inline bool fwq_queue_delayed_work(struct fwq_workqueue *wq,
					  struct fwq_delayed_work *dwork,
					  unsigned long delay)
{
	return fwq_queue_delayed_work_on(FWQ_CPU_UNBOUND, wq, dwork, delay);
}

/**
 * fwq_mod_delayed_work - modify or queue delayed work on any CPU
 * @wq: the workqueue
 * @dwork: the delayed work item
 * @delay: jiffies to wait
 */
static inline bool fwq_mod_delayed_work(struct fwq_workqueue *wq,
					struct fwq_delayed_work *dwork,
					unsigned long delay)
{
	return fwq_mod_delayed_work_on(FWQ_CPU_UNBOUND, wq, dwork, delay);
}

/**
 * fwq_flush_work - wait for a work item to finish its last queueing
 * @work: the work item
 *
 * Context: may sleep.
 * Return: %true if it waited, %false if @work was already idle.
 */
bool fwq_flush_work(struct fwq_work *work);

/**
 * fwq_flush_delayed_work - queue a delayed item now and wait for it
 * @dwork: the delayed work item
 *
 * Return: as fwq_flush_work().
 */
bool fwq_flush_delayed_work(struct fwq_delayed_work *dwork);

/**
 * fwq_cancel_work - cancel a pending work item without waiting
 * @work: the work item
 *
 * Context: any.
 * Return: %true if @work was pending.
 */
bool fwq_cancel_work(struct fwq_work *work);

/**
 * fwq_cancel_work_sync - cancel a work item and wait for it to finish
 * @work: the work item
 *
 * Queueing attempts made while this waits fail, so a self-requeueing item
 * stops. Context: may sleep.
 * Return: %true if @work was pending.
 */
bool fwq_cancel_work_sync(struct fwq_work *work);

/**
 * fwq_cancel_delayed_work - cancel a delayed work item without waiting
 * @dwork: the delayed work item
 *
 * Return: %true if @dwork was pending.
 */
bool fwq_cancel_delayed_work(struct fwq_delayed_work *dwork);

/**
 * fwq_cancel_delayed_work_sync - cancel a delayed work item and wait
 * @dwork: the delayed work item
 *
 * Return: %true if @dwork was pending.
 */
bool fwq_cancel_delayed_work_sync(struct fwq_delayed_work *dwork);

/**
 * fwq_disable_work - cancel a work item and disable it
 * @work: the work item
 *
 * Cancels @work as fwq_cancel_work() does and raises its disable depth:
 * queueing it fails (returns %false) until as many fwq_enable_work()
 * calls have lowered the depth to 0 again. A depth past its maximum is
 * refused with one log line and leaves it unchanged.
 *
 * Context: any.
 * Return: %true if @work was pending.
 */
bool fwq_disable_work(struct fwq_work *work);

/**
 * fwq_disable_work_sync - disable a work item and wait for it to finish
 * @work: the work item
 *
 * As fwq_disable_work(), then waits for a running instance.
 *
 * Context: may sleep.
 * Return: %true if @work was pending.
 */
bool fwq_disable_work_sync(struct fwq_work *work);

/**
 * fwq_enable_work - undo one fwq_disable_work()
 * @work: the work item
 *
 * Enabling an item that is not disabled is refused with one log line and
 * changes nothing.
 *
 * Context: any.
 * Return: %true if @work can be queued again (its disable depth is 0).
 */
bool fwq_enable_work(struct fwq_work *work);

/**
 * fwq_disable_delayed_work - fwq_disable_work() for a delayed work item
 * @dwork: the delayed work item
 *
 * Return: %true if @dwork was pending (its timer armed, or queued).
 */
bool fwq_disable_delayed_work(struct fwq_delayed_work *dwork);

/**
 * fwq_disable_delayed_work_sync - fwq_disable_work_sync() for a delayed item
 * @dwork: the delayed work item
 *
 * Context: may sleep.
 * Return: %true if @dwork was pending.
 */
bool fwq_disable_delayed_work_sync(struct fwq_delayed_work *dwork);

/**
 * fwq_enable_delayed_work - fwq_enable_work() for a delayed work item
 * @dwork: the delayed work item
 *
 * Return: %true if @dwork can be queued again.
 */
bool fwq_enable_delayed_work(struct fwq_delayed_work *dwork);

/**
 * struct fwq_rcu_work - an fwq work item queued after an RCU grace period
 * @work: the work item
 * @rcu: the RCU callback that queues @work
 * @wq: the workqueue @work is queued to when the grace period ends
 *
 * Initialize with FWQ_INIT_RCU_WORK(). Users must not touch the fields.
 */
struct fwq_rcu_work {
	struct fwq_work work;
	struct rcu_head rcu;
	struct fwq_workqueue *wq;
};

/**
 * FWQ_INIT_RCU_WORK - initialize an fwq RCU work item at run time
 * @_rwork: the struct fwq_rcu_work to initialize
 * @_func: the function it runs
 */
#define FWQ_INIT_RCU_WORK(_rwork, _func)				\
	FWQ_INIT_WORK(&(_rwork)->work, (_func))

/**
 * FWQ_INIT_RCU_WORK_ONSTACK - initialize an fwq RCU work item on the stack
 * @_rwork: the struct fwq_rcu_work to initialize, on the stack
 * @_func: the function it runs
 *
 * End its life with fwq_destroy_work_on_stack(&@_rwork->work).
 */
#define FWQ_INIT_RCU_WORK_ONSTACK(_rwork, _func)			\
	FWQ_INIT_WORK_ONSTACK(&(_rwork)->work, (_func))

/**
 * to_fwq_rcu_work - the RCU work item that contains @work
 * @work: the embedded work item
 */
static inline struct fwq_rcu_work *to_fwq_rcu_work(struct fwq_work *work)
{
	return container_of(work, struct fwq_rcu_work, work);
}

/**
 * fwq_queue_rcu_work - queue work after an RCU grace period
 * @wq: the workqueue
 * @rwork: the RCU work item
 *
 * As Linux 7.3's queue_rcu_work(): @rwork's item is queued on @wq, on no
 * particular CPU, once a full RCU grace period has elapsed after this
 * call; every RCU read-side critical section running now has ended by
 * the time it runs. @rwork is pending from this call until its item
 * starts, and an RCU work item cannot be cancelled or disabled while its
 * grace period runs: one whose embedded item was disabled is refused
 * with one log line. @wq is referenced until the item is queued; a @wq
 * destroyed meanwhile refuses it as for any item queued to it then.
 *
 * Context: any.
 * Return: %false if @rwork was already pending (or is disabled), %true
 * otherwise.
 */
bool fwq_queue_rcu_work(struct fwq_workqueue *wq, struct fwq_rcu_work *rwork);

/**
 * fwq_flush_rcu_work - wait for an RCU work item to finish
 * @rwork: the RCU work item
 *
 * If @rwork waits for its grace period, waits for that (rcu_barrier())
 * and then for the item, as Linux 7.3's flush_rcu_work().
 *
 * Context: may sleep.
 * Return: %true if it waited, %false if @rwork was already idle.
 */
bool fwq_flush_rcu_work(struct fwq_rcu_work *rwork);

/* fwq_work_busy() flags */
enum {
	FWQ_BUSY_PENDING	= 1 << 0,
	FWQ_BUSY_RUNNING	= 1 << 1,
};

/**
 * fwq_work_busy - is a work item pending or running?
 * @work: the work item
 *
 * The answer is only a hint: it may change as soon as this returns.
 * Return: an OR of FWQ_BUSY_PENDING and FWQ_BUSY_RUNNING.
 */
unsigned int fwq_work_busy(struct fwq_work *work);

/**
 * fwq_current_is_mem_reclaim - is %current running an item of an
 *	FWQ_MEM_RECLAIM workqueue?
 *
 * As Linux 7.3's current_is_workqueue_mem_reclaim(): an item of such a
 * workqueue must not wait for a workqueue without FWQ_MEM_RECLAIM (fwq
 * logs it, see fwq_flush_workqueue()); a caller that may end up in such
 * a wait can use this to defer the work instead of running it inline.
 *
 * Return: %true if %current is an fwq worker or rescuer running an item
 * of an FWQ_MEM_RECLAIM workqueue, %false otherwise.
 */
bool fwq_current_is_mem_reclaim(void);

/**
 * fwq_current_work - the item %current runs, if it is an fwq worker
 *
 * As Linux 7.3's current_work(), for fwq's workers and rescuers. A
 * barrier that fwq_flush_work() queued is an item too.
 *
 * Return: the item %current is running, or NULL if %current is not an
 * fwq worker or rescuer running one (in an interrupt, too).
 */
struct fwq_work *fwq_current_work(void);

/**
 * fwq_current_is_workqueue_rescuer - is %current an fwq rescuer?
 *
 * As Linux 7.3's current_is_workqueue_rescuer(): the rescuer of an
 * FWQ_MEM_RECLAIM workqueue, which runs items while its pools cannot
 * create workers.
 *
 * Return: %true if %current is an fwq rescuer thread (in task context).
 */
bool fwq_current_is_workqueue_rescuer(void);

/**
 * fwq_workqueue_congested - are items of a workqueue waiting on a CPU?
 * @cpu: CPU number, or FWQ_CPU_UNBOUND for the local one
 * @wq: the workqueue
 *
 * As Linux 7.3's workqueue_congested(): tests whether items queued to
 * @wq on @cpu wait for an active slot (max_active reached). Each CPU has
 * a pwq of its own, for an unbound @wq too. The answer is only a hint,
 * read without the pool lock. A bad @cpu or a NULL @wq is refused with
 * one log line.
 *
 * Context: any.
 * Return: %true if @wq's pwq for @cpu has inactive items.
 */
bool fwq_workqueue_congested(int cpu, struct fwq_workqueue *wq);

/**
 * fwq_flush_workqueue - wait for every item queued before the call
 * @wq: the workqueue
 *
 * Items queued after the flush started are not waited for.
 * Context: may sleep.
 */
void fwq_flush_workqueue(struct fwq_workqueue *wq);

/**
 * fwq_drain_workqueue - flush until the workqueue is empty
 * @wq: the workqueue
 *
 * While draining, only chained queueing (from an item of @wq) is accepted.
 * Context: may sleep.
 */
void fwq_drain_workqueue(struct fwq_workqueue *wq);

/*
 * fwq's system workqueues, Linux 7.3's system_percpu_wq and its kin
 * (same names, "events" and so on, for shim_map). They exist while a
 * hold of fwq_system_wqs_get() does: read a pointer only between a
 * successful get and its put. The shim takes one for a shimmed module
 * across its life. No freezable and no BH one: see src/system_wq.c.
 */
extern struct fwq_workqueue *fwq_system_percpu_wq;	/* "events" */
extern struct fwq_workqueue *fwq_system_highpri_wq;	/* nice -20 */
extern struct fwq_workqueue *fwq_system_long_wq;	/* long items */
extern struct fwq_workqueue *fwq_system_dfl_wq;		/* unbound */
extern struct fwq_workqueue *fwq_system_dfl_long_wq;	/* unbound, long */
/* FWQ_POWER_EFFICIENT: per-CPU, or unbound under power_efficient */
extern struct fwq_workqueue *fwq_system_power_efficient_wq;

int fwq_system_wqs_get(void);
void fwq_system_wqs_put(void);

/**
 * fwq_schedule_work_on - queue @work on fwq_system_percpu_wq on @cpu
 * @cpu: the CPU
 * @work: the item
 *
 * As Linux 7.3's schedule_work_on(); hold the system workqueues.
 *
 * Return: as fwq_queue_work_on().
 */
static inline bool fwq_schedule_work_on(int cpu, struct fwq_work *work)
{
	return fwq_queue_work_on(cpu, fwq_system_percpu_wq, work);
}

/**
 * fwq_schedule_work - queue @work on fwq_system_percpu_wq
 * @work: the item
 *
 * As Linux 7.3's schedule_work(); hold the system workqueues.
 *
 * Return: as fwq_queue_work().
 */
static inline bool fwq_schedule_work(struct fwq_work *work)
{
	return fwq_queue_work(fwq_system_percpu_wq, work);
}

/**
 * fwq_schedule_delayed_work_on - queue @dwork on fwq_system_percpu_wq
 * @cpu: the CPU
 * @dwork: the delayed item
 * @delay: jiffies to wait first
 *
 * As Linux 7.3's schedule_delayed_work_on(); hold the system workqueues.
 *
 * Return: as fwq_queue_delayed_work_on().
 */
static inline bool fwq_schedule_delayed_work_on(int cpu,
						struct fwq_delayed_work *dwork,
						unsigned long delay)
{
	return fwq_queue_delayed_work_on(cpu, fwq_system_percpu_wq, dwork,
					 delay);
}

/**
 * fwq_schedule_delayed_work - queue @dwork on fwq_system_percpu_wq
 * @dwork: the delayed item
 * @delay: jiffies to wait first
 *
 * As Linux 7.3's schedule_delayed_work(); hold the system workqueues.
 *
 * Return: as fwq_queue_delayed_work().
 */
static inline bool fwq_schedule_delayed_work(struct fwq_delayed_work *dwork,
					     unsigned long delay)
{
	return fwq_queue_delayed_work(fwq_system_percpu_wq, dwork, delay);
}

/**
 * fwq_version - the fwq version string
 */
const char *fwq_version(void);

#endif /* _FWQ_FWQ_H */
