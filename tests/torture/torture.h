/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq_torture: shared state of the torture module (main.c, stress.c,
 * onoff.c, repro.c, spiral.c).
 */
#ifndef _FWQ_TORTURE_H
#define _FWQ_TORTURE_H

#include <linux/atomic.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <fwq/fwq.h>

#define TT_MAGIC	0x66777174UL	/* "fwqt" */

/* kinds of torture item */
enum tt_kind {
	TT_IMM,		/* queue/queue_on/queue_node, cancel_work(_sync) */
	TT_DELAYED,	/* delayed/mod, cancel_delayed_work(_sync) */
	TT_CHAINED,	/* only ever queued by another item's function */
	TT_PROBE,	/* ordered wqs: queued only when idle, order-checked */
};

/* kinds of torture workqueue */
enum tt_wq_type {
	TT_WQ_PERCPU,
	TT_WQ_UNBOUND,
	TT_WQ_ORDERED,
	TT_WQ_HIGHPRI,
	TT_WQ_NR,
};

struct tt_item;

/**
 * struct tt_wq - a torture workqueue and its invariant state
 * @wq: the fwq workqueue
 * @type: TT_WQ_*
 * @percpu: per-CPU (max_active is per CPU)
 * @ordered: ordered (at most one item active, in queueing order)
 * @limit_hi: the highest max_active that may still have active items; only
 *	lowered after a flush that follows the change (under @ma_mutex)
 * @ma_mutex: serialises max_active changes
 * @active: items inside their function
 * @hwm: highest @active seen
 * @active_cpu: per home CPU active count (per-CPU workqueues)
 * @olock: ordered workqueues: queueing and sequence assignment, atomically
 * @qseq: ordered: last probe sequence number handed out (under @olock)
 * @last_seq: ordered: sequence of the last probe that started (under @olock)
 * @items: the items queued only immediately (TT_IMM, TT_CHAINED), for the
 *	flush coverage check
 * @nr_items: entries in @items
 */
struct tt_wq {
	struct fwq_workqueue *wq;
	enum tt_wq_type type;
	bool percpu;
	bool ordered;
	int limit_hi;
	struct mutex ma_mutex;		/* max_active changes */
	atomic_t active;
	atomic_t hwm;
	atomic_t *active_cpu;
	spinlock_t olock;		/* ordered: queue + numbering */
	u64 qseq;
	u64 last_seq;
	struct tt_item **items;
	int nr_items;
};

/*
 * struct tt_item - one torture work item and its sequence accounting
 *
 * Every successful queueing increments nq, every successful cancel nc,
 * every execution nrun (at the end of the function). Once the item is
 * quiescent, nrun == nq - nc exactly: more means an item ran twice, fewer
 * means one was lost.
 */
struct tt_item {
	struct fwq_delayed_work dw;
	unsigned long magic;
	struct tt_wq *tw;
	struct tt_item *chain_next;
	int home_cpu;
	enum tt_kind kind;
	atomic_t nq;
	atomic_t nc;
	atomic_t nrun;
	atomic_t running;
	atomic_t cancelling;
	atomic_t cancel_gen;
	atomic_t requeue_budget;
	atomic_t chain_budget;
	u64 oseq;			/* probes: under tw->olock */
	atomic_t busy;			/* probes: queued, not yet finished */
	u32 payload;			/* delay pattern */
};

/* how an item is queued */
enum tt_how {
	TTQ_LOCAL,	/* fwq_queue_work (local CPU) */
	TTQ_ON,		/* fwq_queue_work_on */
	TTQ_NODE,	/* fwq_queue_work_node (unbound only) */
	TTQ_DELAYED,	/* fwq_queue_delayed_work_on */
	TTQ_MOD,	/* fwq_mod_delayed_work_on */
	TTQ_NR,
};

/* global statistics */
struct tt_stats {
	atomic64_t queued;
	atomic64_t ran;
	atomic64_t cancelled;
	atomic64_t flush_wq;
	atomic64_t flush_work;
	atomic64_t flush_checked;	/* item checks made after flushes */
	atomic64_t flush_skipped;	/* checks skipped: cancel overlapped */
	atomic64_t set_max_active;
	atomic64_t churn_cycles;
	atomic64_t exact_checks;
	atomic64_t order_checks;		/* ordered-wq probe runs */
	atomic64_t ops;
	atomic_t fail;			/* invariant violations (!!!) */
	atomic_t anomalies;		/* suspicious, not failures (???) */
	atomic_t onoff_attempts;
	atomic_t onoff_ok;
	atomic_t onoff_ebusy;
};

extern struct tt_stats tt_stats;
extern atomic_t tt_selfcheck_armed;	/* selfcheck=1: hide one run */
extern bool tt_stopping;		/* no more requeue/chain from items */
extern struct fwq_variant tt_variant;
extern int tt_verbose;
extern char tt_vstr[96];		/* the variant, formatted */

/*
 * Failure ("!!!", pr_err) and anomaly ("???", pr_warn) reporting: each
 * counts in tt_stats; only the first few of each kind are printed.
 */
void tt_report(atomic_t *count, bool fail, const char *fmt, ...)
	__printf(3, 4);
#define tt_fail(fmt, ...)						\
	tt_report(&tt_stats.fail, true, fmt, ##__VA_ARGS__)
#define tt_anomaly(fmt, ...)						\
	tt_report(&tt_stats.anomalies, false, fmt, ##__VA_ARGS__)

/* per-thread random numbers */
static inline u32 tt_rand(struct rnd_state *rs, u32 n)
{
	return n ? prandom_u32_state(rs) % n : 0;
}

int tt_random_online_cpu(struct rnd_state *rs);

/* stress.c */
int tt_wq_init(struct tt_wq *tw, enum tt_wq_type type, int max_active,
	       const char *name);
void tt_wq_exit(struct tt_wq *tw);
void tt_item_init(struct tt_item *it, struct tt_wq *tw, enum tt_kind kind,
		  int home_cpu);
bool tt_queue(struct tt_item *it, enum tt_how how, unsigned long delay,
	      struct rnd_state *rs);
bool tt_check_exact(struct tt_item *it, const char *when);
int tt_stress_start(int nproducers, int nflushers, int nchurn, u32 seed,
		    int nr_wq_types, int max_active);
void tt_stress_stop(void);
bool tt_stress_producers_progress(void);

/* onoff.c */
int tt_onoff_start(unsigned int interval_ms, unsigned int holdoff_s, u32 seed);
void tt_onoff_stop(void);
int tt_stutter_start(unsigned int stutter_s);
void tt_stutter_stop(void);
bool tt_stutter_wait(void);
extern bool tt_stuttered;

/* ktap.c */
void tt_ktap_result(bool ok, const char *name, const char *detail);

/* repro.c */
int tt_repro_h1(unsigned int trials, bool expect_fail, u32 seed);
int tt_repro_h8(unsigned int trials, bool expect_fail, u32 seed);
int tt_repro_cmsb(unsigned int trials, bool expect_fail, u32 seed);

/* spiral.c */
int tt_spiral(bool kwq, int nthreads, unsigned int items,
	      unsigned int limit_s, int max_workers, bool strict);
void tt_spiral_exit(void);

#endif /* _FWQ_TORTURE_H */
