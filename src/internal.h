/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq engine: the core objects (pool, pwq, workqueue, worker), the lock
 * legend their fields are annotated with, and the engine's functions, each
 * under the file that defines it. The design contracts are in src/ops.h,
 * the debug hooks in src/dbg.h, the counters and dumps in src/obs.h, the
 * tracepoints in src/fwq_trace.h.
 *
 * Lock annotation legend (as in kernel/workqueue.c):
 *
 * I:  set at init or destroy time, read-only otherwise.
 * L:  pool->lock.
 * LN: written with pool->lock and nna->lock held; either one to read.
 * K:  written only by the worker itself, holding pool->lock; the worker may
 *     read it bare, others read it under pool->lock.
 * S:  written only by the worker itself (or its preempt notifier). Others
 *     read it only from a hardirq on the worker's CPU that interrupted the
 *     worker itself (the pool's cpu_intensive hrtimer, src/cm.c), which the
 *     writes are ordered against by program order alone.
 * A:  fwq_pool_attach_mutex.
 * PL: fwq_pool_mutex.
 * PR: written under fwq_pool_mutex, read under RCU.
 * WQ: wq->mutex.
 * WR: written under wq->mutex, read under RCU.
 * WO: written under wq->mutex with WRITE_ONCE(), read with READ_ONCE().
 * MD: fwq_mayday_lock.
 * AL: fwq_all_wqs_lock (raw, IRQs off); read under RCU.
 * FN: pwq->flush_node, for a flush strategy that tracks pwqs (one with an
 *     .enqueue hook; flush=active, src/flush_active.c). The pwq is on the
 *     strategy's list (flush=active: its node's fpn->pwqs), on a private
 *     list of the flusher that holds wq->mutex, or on neither (empty).
 *     Emptiness changes only under the pwq's pool->lock (the enqueue adds
 *     an empty one, a flusher visit takes one off its private list) or
 *     under wq->mutex (the release path deletes it), so it may be tested
 *     under either. The lists themselves need the strategy's lock
 *     (fpn->lock): the flusher splices fpn->pwqs onto its private list, and
 *     its private list of kept pwqs (items still in flight) back onto
 *     fpn->pwqs, under fpn->lock alone; the enqueue adds under pool->lock
 *     and fpn->lock. flush=lockless looks at an fpn's list, and advances
 *     its colour mirror, without fpn->lock (src/flush_lockless.c).
 * AT: atomic.
 *
 * Lock nesting order, outer to inner (the one place it is written down;
 * docs/hazards.md H6 and H7):
 *
 *   1. CPU hotplug lock (cpus_read_lock() or a cpuhp callback)
 *   2. fwq_pool_mutex
 *   3. wq->mutex
 *   4. fwq_pool_attach_mutex
 *   5. pool->lock (raw, IRQs off). Two pool locks are never held at once.
 *   6. innermost, under pool->lock: fwq_mayday_lock, nna->lock, fpn->lock,
 *      the scheduler's locks of every wakeup issued under a pool lock
 *      (wake=locked's kicks; wake=pick's kicks outside the queue and chain
 *      sites; the kick sites that still wake under the lock
 *      whatever the variant; complete() of a flusher by the last item of
 *      its colour; the manager's rcuwait_wake_up() of a pool's destroyer;
 *      the debugfs stats count them all as "_locked"), timer bases, the
 *      pwq-release kthread_worker lock. All of them are raw spinlocks: no
 *      spinlock_t (a sleeping lock on PREEMPT_RT) is ever taken under a
 *      pool->lock, which the lockdep lane proves with
 *      CONFIG_PROVE_RAW_LOCK_NESTING.
 *   The one exception to 5-6 is the hand-over of a freed nr_active slot to
 *   a pending pwq of another pool (fwq_node_activate_pending_pwq()): it
 *   drops its own pool->lock and, holding nna->lock, only trylocks the
 *   other pool->lock; when that fails it drops nna->lock, takes the
 *   pool->lock, then nna->lock again.
 *   A flusher takes fpn->lock without a pool->lock for its splices, and never
 *   takes a pool->lock while holding an fpn->lock.
 *   fwq_all_wqs_lock is a leaf taken under no other lock; it is raw because
 *   the last put of a workqueue may come from a delayed item's IRQ-safe
 *   timer. The leak dump takes pool->lock inside an RCU read-side section,
 *   never under it.
 */
#ifndef _FWQ_INTERNAL_H
#define _FWQ_INTERNAL_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/rcuwait.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <fwq/fwq.h>

#include "obs.h"
#include "topology.h"

struct seq_file;
struct fwq_pool;
struct fwq_pwq;
struct fwq_worker;
struct fwq_wake_ops;		/* src/ops.h */
struct fwq_kicked_ops;		/* src/ops.h */
struct fwq_flush_ops;		/* src/ops.h */

/* size of fwq_workqueue.variant_src, "shim_map:PATTERN" truncated */
#define FWQ_VARIANT_SRC_LEN	48

/* Internal workqueue flags, beyond the public FWQ_* ones. */
enum {
	__FWQ_DESTROYING	= 1 << 15,
	__FWQ_DRAINING		= 1 << 16,
	/* __FWQ_ORDERED	= 1 << 17 (public) */
	FWQ_ALLOC_FLAGS		= FWQ_UNBOUND | FWQ_FREEZABLE |
				  FWQ_MEM_RECLAIM | FWQ_HIGHPRI |
				  FWQ_CPU_INTENSIVE | FWQ_PERCPU |
				  FWQ_POWER_EFFICIENT | __FWQ_ORDERED,
};

enum {
	FWQ_WORK_STRUCT_FLAG_MASK = (1UL << FWQ_WORK_STRUCT_COLOR_SHIFT) - 1,
	FWQ_WORK_STRUCT_COLOR_MASK = ((1UL << FWQ_WORK_STRUCT_COLOR_BITS) - 1)
				     << FWQ_WORK_STRUCT_COLOR_SHIFT,
	FWQ_WORK_OFFQ_DISABLE_MAX = (1UL << FWQ_WORK_OFFQ_DISABLE_BITS) - 1,
};

#define FWQ_WORK_STRUCT_WQ_DATA_MASK	(~((1UL << FWQ_WORK_STRUCT_PWQ_SHIFT) - 1))

/* pool->flags [L] */
enum {
	POOL_MANAGER_ACTIVE	= 1 << 0,	/* being managed */
	POOL_DISASSOCIATED	= 1 << 2,	/* CPU unavailable: acts unbound */
	POOL_DYING		= 1 << 3,	/* being destroyed */
	POOL_DBG_CULL_ALL	= 1 << 4,	/* dbg_force_cull: next cull reaps all */
};

/* worker->flags [L] */
enum {
	WORKER_DIE		= 1 << 1,
	WORKER_IDLE		= 1 << 2,
	WORKER_PREP		= 1 << 3,
	WORKER_CPU_INTENSIVE	= 1 << 6,
	WORKER_UNBOUND		= 1 << 7,
	WORKER_REBOUND		= 1 << 8,

	WORKER_NOT_RUNNING	= WORKER_PREP | WORKER_CPU_INTENSIVE |
				  WORKER_UNBOUND | WORKER_REBOUND,
};

enum {
	FWQ_NR_STD_POOLS	= 2,		/* normal and highpri */
	FWQ_NR_POOL_VARIANTS	= FWQ_WAKE_NR * FWQ_KICKED_NR,
	BUSY_WORKER_HASH_ORDER	= 6,
	FWQ_MAX_IDLE_RATIO	= 4,
	FWQ_MIN_ACTIVE		= 8,
	FWQ_RESCUER_BATCH	= 16,
	FWQ_HIGHPRI_NICE	= -20,
	FWQ_WAKE_BATCH		= 8,
};

/**
 * struct fwq_pool_attrs - identity of a worker pool
 * @nice: nice level of the workers
 * @affn_strict: workers confined to @pod_cpumask
 * @wake: wake variant (part of the pool identity)
 * @kicked: kicked_list variant (part of the pool identity)
 * @cpumask: allowed CPUs (reset to possible for strict pools)
 * @pod_cpumask: the pod slice the pool serves
 */
struct fwq_pool_attrs {
	int nice;
	bool affn_strict;
	enum fwq_wake wake;
	enum fwq_kicked kicked;
	cpumask_var_t cpumask;
	cpumask_var_t pod_cpumask;
};

/**
 * struct fwq_wake_ent - one deferred wakeup
 * @task: the worker task
 * @wq: the workqueue the wakeup is counted for, or NULL
 * @site: enum fwq_wake_site
 * @ref: a task reference is held and dropped after the wakeup
 */
struct fwq_wake_ent {
	struct task_struct *task;
	struct fwq_workqueue *wq;
	u8 site;
	bool ref;
};

/**
 * struct fwq_wake_batch - a private wake queue, filled under pool->lock and
 *	issued after the unlock (wake_q_add()/wake_up_q() are not exported)
 * @nr: entries used
 * @ent: the entries
 */
struct fwq_wake_batch {
	unsigned int nr;
	struct fwq_wake_ent ent[FWQ_WAKE_BATCH];
};

/*
 * Zeroes all of the batch (about 200 bytes): for the cold paths only. A hot
 * path declares the batch __uninitialized (else CONFIG_INIT_STACK_ALL_ZERO
 * zeroes it all the same) and calls fwq_wake_batch_init(), which writes
 * the one field read before an entry is filled.
 */
#define FWQ_WAKE_BATCH_INIT	{ .nr = 0 }

static inline void fwq_wake_batch_init(struct fwq_wake_batch *wb)
{
	wb->nr = 0;
}

/*
 * struct fwq_pool - a worker pool
 */
struct fwq_pool {
	raw_spinlock_t		lock;		/* the pool lock */
	int			cpu;		/* I: CPU, -1 for unbound */
	int			node;		/* I: NUMA node or NUMA_NO_NODE */
	int			id;		/* I: pool id (idr) */
	bool			highpri;	/* I: per-CPU highpri pool */
	/*
	 * L: POOL_*; POOL_DISASSOCIATED is also written under
	 * fwq_pool_attach_mutex, so attach may read it under A alone
	 */
	unsigned int		flags;

	/*
	 * L: the watchdog's progress stamp (jiffies); src/watchdog.c peeks
	 * at it bare and checks it again under L before it reports
	 */
	unsigned long		last_progress_ts;
	/* L: last_progress_ts of the stall last reported (once per stall) */
	unsigned long		watchdog_reported_ts;

	struct list_head	worklist;	/* L: active, runnable items */
	int			nr_workers;	/* L: total workers */
	int			nr_idle;	/* L: idle, kicked or claimed */

	struct list_head	idle_list;	/* L: idle workers, LIFO */
	struct list_head	kicked_list;	/* L: kicked, not yet running */
	struct timer_list	idle_timer;	/* L: worker idle timeout */
	struct work_struct	idle_cull_work;	/* L: kernel wq, culls */
	struct timer_list	mayday_timer;	/* L: SOS timer for workers */

	DECLARE_HASHTABLE(busy_hash, BUSY_WORKER_HASH_ORDER); /* L */

	/* L: the managing worker, as 7.3 keeps it: read by debuggers (fwq-drgn) */
	struct fwq_worker	*manager;
	struct list_head	workers;	/* A: attached workers */
	struct ida		worker_ida;	/* worker ids */

	/* I: identity; its wake and kicked pick the hooks of a kick */
	struct fwq_pool_attrs	attrs;
	struct hlist_node	hash_node;	/* PL: unbound_pool_hash */
	int			refcnt;		/* PL: unbound pool refs */

	atomic_t		nr_running;	/* AT: CM running workers */
	struct irq_work		cm_irq_work;	/* CM kick from sched_out */
	/*
	 * L: CPU-intensive detection (src/cm.c). Armed under pool->lock on
	 * pool->cpu, re-armed by its own callback (which holds pool->lock),
	 * cancelled without pool->lock.
	 */
	struct hrtimer		ci_timer;

	/* L: counters for the pools dump */
	u64			nr_created;
	u64			nr_culled;
	u64			nr_cull_rekick;	/* H1: cull found work pending */
	u64			nr_kick_coalesced;
	u64			nr_kicked_reaped; /* H1: culled with a kick pending */

	struct rcu_head		rcu;
};

/* pwq stats, [L] */
enum {
	PWQ_STAT_STARTED,
	PWQ_STAT_COMPLETED,
	PWQ_STAT_CM_WAKEUP,
	PWQ_STAT_REPATRIATED,
	PWQ_STAT_MAYDAY,
	PWQ_STAT_RESCUED,
	PWQ_STAT_CPU_INTENSIVE,	/* items run as CPU-intensive */
	PWQ_NR_STATS,
};

/*
 * struct fwq_pwq - the link between a workqueue and a pool
 *
 * Aligned to 1 << FWQ_WORK_STRUCT_PWQ_SHIFT so that the low bits of a work's
 * data word are free for flags.
 */
struct fwq_pwq {
	struct fwq_pool		*pool;		/* I */
	struct fwq_workqueue	*wq;		/* I */
	int			work_color;	/* L */
	int			flush_color;	/* L */
	int			refcnt;		/* L */
	int			nr_in_flight[FWQ_WORK_NR_COLORS]; /* L */
	int			total_in_flight; /* L: sum of nr_in_flight */
	bool			plugged;	/* L */
	int			nr_active;	/* L */
	struct list_head	inactive_works;	/* L */
	struct list_head	pending_node;	/* LN: nna->pending_pwqs */
	struct list_head	pwqs_node;	/* WR: wq->pwqs */
	struct list_head	mayday_node;	/* MD: wq->maydays */
	struct list_head	flush_node;	/* FN: flush strategy's tracking */
	struct fwq_work		mayday_cursor;	/* L: rescuer position */

	u64			stats[PWQ_NR_STATS]; /* L */

	struct kthread_work	release_work;
	struct rcu_head		rcu;
} __aligned(1 << FWQ_WORK_STRUCT_PWQ_SHIFT);

/**
 * struct fwq_nna - per-node nr_active of an unbound workqueue
 * @max: WO: per-node max_active (written under wq->mutex, read bare)
 * @nr: AT: active items in the node
 * @lock: nests inside pool locks (see the legend for the one trylock)
 * @pending_pwqs: LN: pwqs waiting for an nr_active slot
 */
struct fwq_nna {
	int			max;
	atomic_t		nr;
	raw_spinlock_t		lock;
	struct list_head	pending_pwqs;
};

/* one flush_workqueue() caller */
struct fwq_flusher {
	struct list_head	list;		/* WQ: flusher_queue/overflow */
	int			flush_color;	/* WQ */
	struct completion	done;
	struct task_struct	*task;		/* I: the flusher, for counting */
	/*
	 * WQ: what the walks this caller ran did (tracepoint fwq_flush_end),
	 * counted while fwq_counters_key is on
	 */
	u64			pwqs_visited;
	u64			lock_cycles;
};

/*
 * struct fwq_workqueue - the workqueue
 */
struct fwq_workqueue {
	struct list_head	pwqs;		/* WR: all pwqs, oldest first */
	struct list_head	list;		/* PR: fwq_workqueues */

	struct mutex		mutex;		/* protects this wq */
	int			work_color;	/* WQ */
	int			flush_color;	/* WQ */
	atomic_t		nr_pwqs_to_flush; /* flush in progress */
	struct fwq_flusher	*first_flusher;	/* WQ */
	struct list_head	flusher_queue;	/* WQ */
	struct list_head	flusher_overflow; /* WQ */

	struct list_head	maydays;	/* MD: pwqs requesting rescue */
	struct fwq_worker	*rescuer;	/* MD: rescue worker */

	int			nr_drainers;	/* WQ */
	int			max_active;	/* WO */
	int			min_active;	/* WO */
	int			saved_max_active; /* WQ */
	int			saved_min_active; /* WQ */

	struct fwq_workqueue_attrs *unbound_attrs; /* PW: user attrs */
	struct fwq_pwq __rcu	*dfl_pwq;	/* PW */

	struct fwq_variant	variant;	/* WQ: wake/kicked may change */
	/* I: "caller", "default" or "shim_map:PATTERN" (debugfs variant_map) */
	char			variant_src[FWQ_VARIANT_SRC_LEN];

	char			name[FWQ_NAME_LEN]; /* I */

	/* flush counters, WQ; the walk's two only while fwq_counters_key is on */
	u64			nr_flushes;
	u64			flush_pwqs_visited;
	u64			flush_lock_cycles;
	u64			nr_drain_passes;

	bool			dying_reported;	/* a dying-queue pr_err printed */
	refcount_t		ref;		/* pwqs alive, armed timers, a pwq-put walk */
	/*
	 * AL: on fwq_all_wqs from the end of its allocation until its last
	 * reference goes, destroyed or not (the leak dump and the unload's
	 * reaper walk it)
	 */
	struct list_head	all_node;
	bool			reaped;		/* AL: the unload's reaper saw it */

	struct rcu_head		rcu;

#ifdef CONFIG_LOCKDEP
	/* held while an item runs, taken by a flush; one class per wq */
	struct lock_class_key	lockdep_key;	/* I */
	struct lockdep_map	lockdep_map;	/* I */
#endif

	/*
	 * Read by every enqueue, from here on, as in mainline: a line of its
	 * own, which nothing a flush writes (the colours, the flusher queue,
	 * the flush counters above) shares. flush_ops was among those before.
	 */
	/* WO: FWQ_*; the enqueue reads __FWQ_DESTROYING/__FWQ_DRAINING bare */
	unsigned int		flags ____cacheline_aligned;
	const struct fwq_flush_ops *flush_ops;	/* I */
	struct fwq_pwq __rcu * __percpu *cpu_pwq;	/* I: per-CPU pwqs */
	struct fwq_wq_pcpu_stats __percpu *pcpu_stats;	/* I */
	void			*flush_priv;	/* I: the flush strategy's state */
	struct fwq_nna		*nna[];		/* I: [nr_node_ids + 1] */
};

/*
 * struct fwq_worker - one worker kthread
 */
struct fwq_worker {
	/*
	 * L: on idle_list (idle), on kicked_list (kicked, kicked_list=on),
	 * empty (claimed by wake=claim with kicked_list=off: off both lists,
	 * still WORKER_IDLE, until it leaves idle; or dying), or, as hentry,
	 * in busy_hash while it runs an item
	 */
	union {
		struct list_head	entry;
		struct hlist_node	hentry;
	};
	struct fwq_work		*current_work;	/* K */
	fwq_work_func_t		current_func;	/* K */
	struct fwq_pwq		*current_pwq;	/* K */
	unsigned int		current_color;	/* K */
	unsigned long		current_start;	/* K: jiffies */

	int			sleeping;	/* S: CM sleep seen */
	/* S: se.sum_exec_runtime at item start or at the last CM wakeup */
	u64			current_at;

	struct list_head	scheduled;	/* L: scheduled works */
	struct task_struct	*task;		/* I: with a reference */
	struct fwq_pool		*pool;		/* A */
	struct list_head	node;		/* A: pool->workers */
	struct list_head	dying_node;	/* A+L: cull list */

	unsigned long		last_active;	/* L */
	unsigned int		flags;		/* L */
	int			id;		/* I */
	bool			notifier_on;	/* S */
	bool			kicked;		/* L: picked, not yet running */

	struct fwq_workqueue	*rescue_wq;	/* I: rescuer only */
#if FWQ_HAVE_PREEMPT_NOTIFIERS
	struct preempt_notifier	pn;		/* S: CM hooks */
#endif
	struct fwq_wake_batch	wb;		/* S: deferred wakeups */
};

/* why a worker leaves its pool (tracepoint fwq_worker_cull) */
enum fwq_cull_reason {
	FWQ_CULL_IDLE,		/* idle longer than idle_timeout_ms */
	FWQ_CULL_FORCED,	/* dbg_force_cull */
	FWQ_CULL_DESTROY,	/* the pool is destroyed */
};

/* global state (main.c) */
extern struct mutex fwq_pool_mutex;
extern struct mutex fwq_pool_attach_mutex;
extern raw_spinlock_t fwq_mayday_lock;
extern struct list_head fwq_workqueues;		/* PR */
extern struct list_head fwq_all_wqs;		/* AL */
extern raw_spinlock_t fwq_all_wqs_lock;
extern struct idr fwq_pool_idr;			/* PR */
extern struct kthread_worker *fwq_release_worker;
extern struct kmem_cache *fwq_pwq_cache;
extern cpumask_var_t fwq_online_cpumask;	/* PL */

/* params.c: the module parameters (the debug knobs are in dbg.h) */
extern unsigned int fwq_idle_timeout_ms;
extern unsigned int fwq_cpu_intensive_thresh_us;
extern bool fwq_cm_enabled;
extern unsigned int fwq_watchdog_thresh_ms;	/* WRITE_ONCE()/READ_ONCE() */
extern bool fwq_cull_rekick;
/* power_efficient: FWQ_POWER_EFFICIENT ones unbound; WRITE_ONCE()/READ_ONCE() */
extern bool fwq_power_efficient;

/*
 * An unsigned module parameter with its range (params.c's table, which
 * debugfs's knobs reuse). @changed runs after an accepted write; @debugfs:
 * also a file in /sys/kernel/debug/fwq/.
 */
struct fwq_uint_param {
	const char *name;
	unsigned int *val;
	unsigned int min, max;
	void (*changed)(void);
	bool debugfs;
};

extern const struct fwq_uint_param fwq_uint_params[];
extern const unsigned int fwq_nr_uint_params;
int fwq_uint_param_store(const struct fwq_uint_param *p, const char *val,
			 const char *where);

/*
 * params.c: shim_map, the variant of a workqueue made without one, and its
 * type and scope
 */
void fwq_shim_map_variant(const char *name, struct fwq_variant *v, char *src,
			  size_t len, unsigned int *flags,
			  enum fwq_affn_scope *scope);
void fwq_shim_map_exit(void);

/*
 * wake.c: the pool lock wrappers keep the per-CPU "pool lock held" depth,
 * which tells the wakeup accounting whether a wakeup is under a pool lock.
 * Mainline keeps neither: the depth and the wakeup counters are kept only
 * while fwq_counters_key is on (fwq_counters_get(), include/fwq/stats.h),
 * and cost a patched-out jump otherwise.
 */
DECLARE_PER_CPU(int, fwq_pool_lock_depth);
DECLARE_STATIC_KEY_FALSE(fwq_counters_key);

static __always_inline bool fwq_counters_on(void)
{
	return static_branch_unlikely(&fwq_counters_key);
}

/* on while dbg_kick_delay_us, dbg_force_cull, dbg_flush_skip_idle or dbg_cm_sb is (dbg.h) */
DECLARE_STATIC_KEY_FALSE(fwq_dbg_key);

static __always_inline bool fwq_dbg_on(void)
{
	return static_branch_unlikely(&fwq_dbg_key);
}

static __always_inline void fwq_pool_depth_inc(void)
{
	if (fwq_counters_on())
		__this_cpu_inc(fwq_pool_lock_depth);
}

static __always_inline void fwq_pool_depth_dec(void)
{
	if (fwq_counters_on())
		__this_cpu_dec(fwq_pool_lock_depth);
}

static inline void fwq_pool_lock(struct fwq_pool *pool)
{
	raw_spin_lock(&pool->lock);
	fwq_pool_depth_inc();
}

static inline bool fwq_pool_trylock(struct fwq_pool *pool)
{
	if (!raw_spin_trylock(&pool->lock))
		return false;
	fwq_pool_depth_inc();
	return true;
}

static inline void fwq_pool_unlock(struct fwq_pool *pool)
{
	fwq_pool_depth_dec();
	raw_spin_unlock(&pool->lock);
}

static inline void fwq_pool_lock_irq(struct fwq_pool *pool)
{
	raw_spin_lock_irq(&pool->lock);
	fwq_pool_depth_inc();
}

static inline void fwq_pool_unlock_irq(struct fwq_pool *pool)
{
	fwq_pool_depth_dec();
	raw_spin_unlock_irq(&pool->lock);
}

/* a consistency check failed: count it, log once, keep going */
#define fwq_check(cond, fmt, ...)					\
	({								\
		bool __c = !!(cond);					\
		if (unlikely(!__c)) {					\
			atomic64_inc(&fwq_consistency_errors);		\
			pr_err_once("fwq: consistency: " fmt "\n", ##__VA_ARGS__); \
		}							\
		__c;							\
	})

/* queue.c: a work item's data word (its readers are inline here) */
static inline unsigned long fwq_work_data(struct fwq_work *work)
{
	return atomic_long_read(&work->data);
}

static inline int fwq_work_color(unsigned long data)
{
	return (data & FWQ_WORK_STRUCT_COLOR_MASK) >>
		FWQ_WORK_STRUCT_COLOR_SHIFT;
}

static inline int fwq_work_next_color(int color)
{
	return (color + 1) % FWQ_WORK_NR_COLORS;
}

static inline struct fwq_pwq *fwq_work_pwq(struct fwq_work *work)
{
	unsigned long data = fwq_work_data(work);

	if (data & FWQ_WORK_STRUCT_PWQ)
		return (struct fwq_pwq *)(data & FWQ_WORK_STRUCT_WQ_DATA_MASK);
	return NULL;
}

static inline unsigned long fwq_offq_pool_id(unsigned long data)
{
	return data >> FWQ_WORK_OFFQ_POOL_SHIFT;
}

static inline unsigned long fwq_offq_disable(unsigned long data)
{
	return (data >> FWQ_WORK_OFFQ_DISABLE_SHIFT) &
		FWQ_WORK_OFFQ_DISABLE_MAX;
}

static inline unsigned long fwq_mk_offq(unsigned long pool_id,
					unsigned long disable)
{
	return (pool_id << FWQ_WORK_OFFQ_POOL_SHIFT) |
		(disable << FWQ_WORK_OFFQ_DISABLE_SHIFT);
}

void fwq_set_work_pwq(struct fwq_work *work, struct fwq_pwq *pwq,
		      unsigned long flags);
void fwq_set_work_pool_and_keep_pending(struct fwq_work *work, int pool_id);
void fwq_set_work_pool_and_clear_pending(struct fwq_work *work, int pool_id,
					 unsigned long disable);
struct fwq_pool *fwq_get_work_pool(struct fwq_work *work);

static inline bool fwq_wq_unbound(struct fwq_workqueue *wq)
{
	return wq->flags & FWQ_UNBOUND;
}

static inline int fwq_node_idx(int node)
{
	return node == NUMA_NO_NODE ? nr_node_ids : node;
}

/*
 * Allocate slot @idx of a per-node array indexed by fwq_node_idx(): on
 * node @idx, or anywhere for the NUMA_NO_NODE slot (nr_node_ids) and for
 * a node that is not possible.
 */
static inline void *fwq_kzalloc_node_slot(size_t size, int idx)
{
	return kzalloc_node(size, GFP_KERNEL,
			    idx < nr_node_ids && node_possible(idx) ?
			    idx : NUMA_NO_NODE);
}

static inline struct fwq_nna *fwq_wq_nna(struct fwq_workqueue *wq,
					 struct fwq_pool *pool)
{
	if (!fwq_wq_unbound(wq))
		return NULL;
	return wq->nna[fwq_node_idx(pool->node)];
}

static inline struct fwq_wq_pcpu_stats *fwq_wq_stats(struct fwq_workqueue *wq)
{
	return this_cpu_ptr(wq->pcpu_stats);
}

/* does concurrency management count this pool's running workers? */
static inline bool fwq_pool_cm_counts(struct fwq_pool *pool)
{
	return pool->cpu >= 0 && fwq_cm_enabled &&
	       !(pool->flags & POOL_DISASSOCIATED);
}

/* nr_running of a pool as concurrency management sees it */
static inline int fwq_pool_nr_running(struct fwq_pool *pool)
{
	if (!fwq_pool_cm_counts(pool))
		return 0;
	return atomic_read(&pool->nr_running);
}

/**
 * fwq_need_more_worker - does work wait on the pool with no worker running?
 * @pool: the pool, locked
 *
 * Called after the caller made the worklist non-empty, or to check it. A
 * worker that blocks runs fwq_cm_sched_out() without pool->lock (under the
 * rq lock, where pool->lock would invert): it decrements nr_running, fully
 * ordered, and then reads the worklist. This side writes the worklist and
 * then reads nr_running. That is store buffering: without the smp_mb()
 * below, the read of nr_running can pass the worklist store still in the
 * store buffer, both sides see the old value of the other's variable, and
 * neither kicks a worker. The item then waits for the blocked one, for
 * ever if that one waits for it. Mainline has no barrier here because its
 * wq_worker_sleeping() takes pool->lock. The dbg_cm_sb knob (cm.c) shows
 * both orders.
 *
 * Return: true if a worker should be woken for the worklist.
 */
static inline bool fwq_need_more_worker(struct fwq_pool *pool)
{
	if (list_empty(&pool->worklist))
		return false;
	if (!fwq_pool_cm_counts(pool))
		return true;
	smp_mb();	/* pairs with atomic_dec_and_test() in fwq_cm_sched_out() */
	return atomic_read(&pool->nr_running) <= 0;
}

/*
 * Flush-dependency lockdep maps, as in mainline: the workqueue's map and
 * the item's are held while the item runs (worker.c), and a flush takes
 * the map of what it waits for (flush.c). An item that flushes itself or
 * its own workqueue is then a recursive acquisition, and a flush that
 * waits on an item waiting on the flusher a cycle. Empty without
 * CONFIG_LOCKDEP.
 */
#ifdef CONFIG_LOCKDEP
static inline void fwq_lockdep_touch(struct lockdep_map *map)
{
	lock_map_acquire(map);
	lock_map_release(map);
}

static inline void fwq_wq_lockdep_init(struct fwq_workqueue *wq)
{
	lockdep_register_key(&wq->lockdep_key);
	lockdep_init_map(&wq->lockdep_map, wq->name, &wq->lockdep_key, 0);
}

/* may sleep; nothing may take the map any more */
static inline void fwq_wq_lockdep_exit(struct fwq_workqueue *wq)
{
	lockdep_unregister_key(&wq->lockdep_key);
}

#define fwq_lockdep_touch_wq(wq)	fwq_lockdep_touch(&(wq)->lockdep_map)
#define fwq_lockdep_touch_work(work)	fwq_lockdep_touch(&(work)->lockdep_map)
#else
static inline void fwq_wq_lockdep_init(struct fwq_workqueue *wq) {}
static inline void fwq_wq_lockdep_exit(struct fwq_workqueue *wq) {}
static inline void fwq_lockdep_touch_wq(struct fwq_workqueue *wq) {}
static inline void fwq_lockdep_touch_work(struct fwq_work *work) {}
#endif

/* wake.c */
void __fwq_wake_count(struct task_struct *task, struct fwq_workqueue *wq,
		      enum fwq_wake_site site);

/*
 * Count a wakeup that fwq did not issue through fwq_wake_task(): only
 * while an observer holds fwq_counters_key on, so that with no observer
 * it costs a patched-out jump and no call.
 */
static __always_inline void fwq_wake_count(struct task_struct *task,
					   struct fwq_workqueue *wq,
					   enum fwq_wake_site site)
{
	if (fwq_counters_on())
		__fwq_wake_count(task, wq, site);
}

/* wake @task, as mainline's wake_up_process(), and count the wakeup */
static inline void fwq_wake_task(struct task_struct *task,
				 struct fwq_workqueue *wq,
				 enum fwq_wake_site site)
{
	wake_up_process(task);
	fwq_wake_count(task, wq, site);
}

/**
 * fwq_wake_complete - complete() a waiter and count the wakeup
 * @done: the completion
 * @task: the waiter, or NULL if unknown
 * @wq: the workqueue it is counted for, or NULL
 */
static inline void fwq_wake_complete(struct completion *done,
				     struct task_struct *task,
				     struct fwq_workqueue *wq)
{
	/*
	 * Count first: once completed, the waiter may return, destroy @wq
	 * and exit.
	 */
	fwq_wake_count(task, wq, FWQ_SITE_FLUSH);
	complete(done);
}

void __fwq_wake_batch_add(struct fwq_wake_batch *wb, struct task_struct *task,
			  struct fwq_workqueue *wq, enum fwq_wake_site site,
			  bool ref);
void __fwq_wake_batch_issue(struct fwq_wake_batch *wb);

/*
 * Queue @task's wakeup on @wb (with a task reference if @ref), once.
 * Inline for the common case, the first entry of an enqueue's batch,
 * which needs no search; the rest is __fwq_wake_batch_add().
 */
static __always_inline void fwq_wake_batch_add(struct fwq_wake_batch *wb,
					       struct task_struct *task,
					       struct fwq_workqueue *wq,
					       enum fwq_wake_site site,
					       bool ref)
{
	if (likely(!wb->nr)) {
		if (ref)
			get_task_struct(task);
		wb->ent[0].task = task;
		wb->ent[0].wq = wq;
		wb->ent[0].site = site;
		wb->ent[0].ref = ref;
		wb->nr = 1;
		return;
	}
	__fwq_wake_batch_add(wb, task, wq, site, ref);
}

/*
 * Issue @wb's wakeups after the pool lock is dropped, with preemption or
 * IRQs still off (__fwq_wake_batch_issue()); an empty batch, the case of
 * every kick under the lock, costs a test and no call. One wakeup that
 * holds no task reference, with no observer counting and no debug knob
 * on, is wake=pick's enqueue: it is issued here, inline, as 7.3's
 * __queue_work() wakes the worker it picked.
 */
static inline void fwq_wake_batch_issue(struct fwq_wake_batch *wb)
{
	if (!wb->nr)
		return;
	if (wb->nr == 1 && !wb->ent[0].ref && !fwq_counters_on() &&
	    !fwq_dbg_on()) {
		wake_up_process(wb->ent[0].task);
		wb->nr = 0;
		return;
	}
	__fwq_wake_batch_issue(wb);
}

int fwq_trace_counters_reg(void);
void fwq_trace_counters_unreg(void);

/*
 * Drop pool->lock taken with IRQs off and issue the wakeups collected under
 * it, with no preemption point in between: the waker is not preempted
 * while the woken task waits for it (6.1 has no raw_spin_unlock_irq_wake).
 */
static inline void fwq_pool_unlock_irq_issue(struct fwq_pool *pool,
					     struct fwq_wake_batch *wb)
	__releases(&pool->lock)
{
	preempt_disable();
	fwq_pool_unlock_irq(pool);
	fwq_wake_batch_issue(wb);
	preempt_enable();
}

bool fwq_kick_pool(struct fwq_pool *pool, struct fwq_wake_batch *wb,
		   struct fwq_workqueue *wq, enum fwq_wake_site site);

/* worker.c */
bool fwq_may_start_working(struct fwq_pool *pool);
bool fwq_keep_working(struct fwq_pool *pool);
bool fwq_need_to_create_worker(struct fwq_pool *pool);
bool fwq_too_many_workers(struct fwq_pool *pool);
void fwq_worker_set_flags(struct fwq_worker *worker, unsigned int flags);
void fwq_worker_clr_flags(struct fwq_worker *worker, unsigned int flags);
void fwq_worker_enter_idle(struct fwq_worker *worker);
struct fwq_worker *fwq_find_worker_executing_work(struct fwq_pool *pool,
						  struct fwq_work *work);
void fwq_move_linked_works(struct fwq_work *work, struct list_head *head,
			   struct fwq_work **nextp);
bool fwq_assign_work(struct fwq_work *work, struct fwq_worker *worker,
		     struct fwq_work **nextp);
void fwq_process_scheduled_works(struct fwq_worker *worker);
int fwq_worker_thread(void *data);
struct fwq_worker *fwq_current_worker(void);

/* the fwq worker of this thread if the item it runs is one of @wq's */
static inline struct fwq_worker *
fwq_current_worker_of(struct fwq_workqueue *wq)
{
	struct fwq_worker *worker = fwq_current_worker();

	if (worker && worker->current_pwq && worker->current_pwq->wq == wq)
		return worker;
	return NULL;
}

/* manager.c */
extern struct rcuwait fwq_manager_wait;
struct fwq_worker *fwq_alloc_worker(int node, enum fwq_obj obj);
int fwq_create_worker(struct fwq_pool *pool);
bool fwq_manage_workers(struct fwq_worker *worker);
bool fwq_pool_claim_manager(struct fwq_pool *pool);

/* cull.c */
void fwq_set_worker_dying(struct fwq_worker *worker, struct list_head *list);
void fwq_detach_dying_workers(struct list_head *cull_list);
void fwq_reap_dying_workers(struct list_head *cull_list);
void fwq_idle_timer_fn(struct timer_list *t);
void fwq_idle_cull_fn(struct work_struct *work);

/* rescuer.c */
void fwq_mayday_cursor_func(struct fwq_work *work);
void fwq_init_mayday_cursor(struct fwq_pwq *pwq);
void fwq_pool_mayday_timeout(struct timer_list *t);
int fwq_init_rescuer(struct fwq_workqueue *wq);
int fwq_rescuer_thread(void *data);

/* pool.c */
void fwq_kthread_no_setaffinity(struct task_struct *task);
typedef void (*fwq_pool_fn)(struct fwq_pool *pool);
void fwq_worker_attach_to_pool(struct fwq_worker *worker,
			       struct fwq_pool *pool);
void fwq_worker_detach_from_pool(struct fwq_worker *worker);
struct fwq_pool *fwq_get_unbound_pool(const struct fwq_pool_attrs *attrs);
void fwq_put_unbound_pool(struct fwq_pool *pool);
struct fwq_pool *fwq_cpu_pool(int cpu, const struct fwq_variant *v,
			      bool highpri);
int fwq_cpu_pools_prepare(const struct fwq_variant *v);
void fwq_pools_exit(void);
int fwq_pool_attrs_alloc(struct fwq_pool_attrs *attrs);
void fwq_pool_attrs_free(struct fwq_pool_attrs *attrs);
const struct cpumask *fwq_pool_allowed_cpus(struct fwq_pool *pool);
void fwq_cpu_pools_apply(int cpu, fwq_pool_fn fn);
void fwq_unbound_pools_apply(fwq_pool_fn fn);
void fwq_pool_sanity(struct fwq_pool *pool);
void fwq_unbound_pools_reap(void);

/* queue.c */
void fwq_insert_work(struct fwq_pwq *pwq, struct fwq_work *work,
		     struct list_head *head, unsigned long extra_flags);
bool fwq_pwq_tryinc_nr_active(struct fwq_pwq *pwq, bool fill);
bool fwq_pwq_activate_first_inactive(struct fwq_pwq *pwq, bool fill);
void fwq_pwq_dec_nr_in_flight(struct fwq_pwq *pwq, unsigned long work_data,
			      struct fwq_wake_batch *wb);
void fwq_get_pwq(struct fwq_pwq *pwq);
void fwq_put_pwq(struct fwq_pwq *pwq);
void fwq_put_pwq_unlocked(struct fwq_pwq *pwq);
bool __fwq_queue_work(int cpu, struct fwq_workqueue *wq,
		      struct fwq_work *work);
bool __fwq_queue_delayed_work(int cpu, struct fwq_workqueue *wq,
			      struct fwq_delayed_work *dwork,
			      unsigned long delay);
bool fwq_clear_pending_if_disabled(struct fwq_work *work);

/* flush.c */
bool fwq_refuse_own_item(struct fwq_workqueue *wq, const char *what);
void fwq_check_flush_dependency(struct fwq_workqueue *wq,
				struct fwq_work *work, bool from_cancel);

/* barrier.c */
bool fwq_refuse_self_flush(struct fwq_work *work, bool from_cancel);
bool __fwq_flush_work(struct fwq_work *work, bool from_cancel);

/* wq.c */
void fwq_wq_put(struct fwq_workqueue *wq);
void fwq_variant_map_show(struct seq_file *m);
int fwq_pm_init(void);
void fwq_pm_exit(void);
void fwq_pwq_release_workfn(struct kthread_work *work);
void fwq_wq_update_node_max_active(struct fwq_workqueue *wq, int off_cpu);
void fwq_unbound_wq_update_pwq(struct fwq_workqueue *wq, int cpu,
			       int off_cpu);
void fwq_wqs_reap(void);

/* system_wq.c */
void fwq_system_wqs_exit(void);

/* cm.c */
void fwq_cm_init(void);
void fwq_cm_exit(void);
void fwq_cm_irq_work_fn(struct irq_work *iw);
void fwq_cm_pool_init(struct fwq_pool *pool);
void fwq_cm_pool_stop(struct fwq_pool *pool);
void fwq_cm_item_start(struct fwq_worker *worker);
void fwq_cm_worker_start(struct fwq_worker *worker);
void fwq_cm_worker_stop(struct fwq_worker *worker);
void fwq_cm_dbg_sb_insert(struct fwq_pwq *pwq, struct fwq_work *work,
			  unsigned long work_flags, struct fwq_wake_batch *wb);

/* hotplug.c */
int fwq_hotplug_init(void);
void fwq_hotplug_exit(void);

/* watchdog.c */
void fwq_watchdog_init(void);
void fwq_watchdog_exit(void);
void fwq_watchdog_thresh_changed(void);

#endif /* _FWQ_INTERNAL_H */
