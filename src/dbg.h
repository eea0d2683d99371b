/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq: the debug and reproducer hooks, one inline helper per site.
 *
 * Each hook is off by default (its knob is 0, params.c). The hooks on hot
 * paths (kick, deferred wakeup, enqueue, flush walk) sit behind
 * fwq_dbg_key, which is on only while one of their knobs is nonzero
 * (fwq_dbg_knobs_changed()): off, each costs a patched-out jump, no load.
 * The cold ones (destroy, worker creation) read their knob. A hook
 * opens, or widens, the window of one hazard of docs/hazards.md so that a
 * reproducer (tests/torture/) can hit it every time:
 *
 *   dbg_kick_delay_us    H1: busy-wait between a kick's pick and its
 *                        deferred wakeup (fwq_dbg_kick_delay())
 *   dbg_force_cull       H1: with the delay, each kick queues a cull of
 *                        every idle worker (fwq_dbg_force_cull_kick())
 *   dbg_flush_skip_idle  H8: the broken flush that skips idle pwqs
 *                        (fwq_dbg_flush_skips())
 *   dbg_cm_sb            H17: the enqueue's store-buffering window
 *                        (fwq_dbg_cm_sb_on(), cm.c)
 *   dbg_put_walk_wait    H18: the destroy's put walk waits for the pwqs'
 *                        release (fwq_dbg_put_walk_pause())
 *   fail_create_worker   the manager's worker creation fails, for the
 *                        rescuer and fault tests (fwq_dbg_create_fails())
 *   dbg_release_hold     the pwq release kthread holds every release
 *                        until written 0, which runs them all: the fault
 *                        sweep's two pool modes
 *                        (fwq_dbg_release_changed(), main.c)
 *   dbg_leak_pwq         plant one leak: the next destroy of an unbound
 *                        workqueue takes an extra reference on its
 *                        default pwq, before its checks (1: the destroy
 *                        must catch it) or after them (2: only the unload
 *                        finds it); then back to 0 (fwq_dbg_leak_pwq())
 */
#ifndef _FWQ_DBG_H
#define _FWQ_DBG_H

#include <linux/delay.h>

#include "internal.h"

/* fwq_dbg_key and fwq_dbg_on() are in internal.h, for the wake batch */
void fwq_dbg_knobs_changed(void);

extern unsigned int fwq_dbg_kick_delay_us;
extern bool fwq_dbg_force_cull;
extern bool fwq_dbg_flush_skip_idle;
extern unsigned int fwq_dbg_cm_sb;
extern bool fwq_dbg_put_walk_wait;
extern unsigned int fwq_fail_create_worker;
extern unsigned int fwq_dbg_release_hold;
extern unsigned int fwq_dbg_leak_pwq;

/* main.c: dbg_release_hold was written */
void fwq_dbg_release_changed(void);
bool fwq_dbg_release_held(void);

/* destroys whose put walk waited for the pwqs' release (dbg_put_walk_wait) */
extern atomic64_t fwq_put_walk_waits;
/* enqueues that dbg_cm_sb held open */
extern atomic64_t fwq_cm_sb_windows;
/* worker creations that fail_create_worker failed */
extern atomic64_t fwq_create_worker_injected;
/* leaks that dbg_leak_pwq planted */
extern atomic64_t fwq_leaks_planted;

/* H1: widen the window between a kick's pick and its wakeup */
static inline void fwq_dbg_kick_delay(void)
{
	unsigned int delay_us;

	if (!fwq_dbg_on())
		return;
	delay_us = READ_ONCE(fwq_dbg_kick_delay_us);
	if (delay_us) {
		mdelay(delay_us / 1000);
		udelay(delay_us % 1000);
	}
}

/* cull.c */
void fwq_dbg_force_cull_queue(struct fwq_pool *pool);

/* H1: after a kick, under pool->lock, run a full cull inside the delay */
static inline void fwq_dbg_force_cull_kick(struct fwq_pool *pool)
{
	if (fwq_dbg_on() && READ_ONCE(fwq_dbg_force_cull) &&
	    READ_ONCE(fwq_dbg_kick_delay_us) &&
	    !(pool->flags & (POOL_DBG_CULL_ALL | POOL_DYING)))
		fwq_dbg_force_cull_queue(pool);
}

/* H8: does the broken flush skip @pwq (nothing in flight)? */
static inline bool fwq_dbg_flush_skips(struct fwq_pwq *pwq)
{
	return fwq_dbg_on() && READ_ONCE(fwq_dbg_flush_skip_idle) &&
	       !pwq->total_in_flight;
}

/* H17: does this enqueue take cm.c's widened insert? */
static inline bool fwq_dbg_cm_sb_on(void)
{
	return fwq_dbg_on() && READ_ONCE(fwq_dbg_cm_sb);
}

/*
 * H18: let the release worker put the last pwq's reference to the
 * workqueue and a grace period pass, in the middle of the destroy's put
 * walk. Without the pin the walk holds, a per-CPU workqueue would be
 * freed here, and the walk's next read a use-after-free (KASAN).
 */
static inline void fwq_dbg_put_walk_pause(void)
{
	/* a held release kthread would hold the walk until it is let go */
	if (unlikely(READ_ONCE(fwq_dbg_put_walk_wait)) &&
	    !fwq_dbg_release_held()) {
		atomic64_inc(&fwq_put_walk_waits);
		kthread_flush_worker(fwq_release_worker);
		rcu_barrier();
	}
}

/* dbg_leak_pwq's two places in a destroy */
enum {
	FWQ_DBG_LEAK_BEFORE_CHECK = 1,	/* the destroy's checks must see it */
	FWQ_DBG_LEAK_AFTER_CHECK = 2,	/* they cannot: the unload finds it */
};

/* wq.c: take the planted reference on @wq's default pwq */
void fwq_dbg_plant_leak(struct fwq_workqueue *wq);

/*
 * Plant one leak in this destroy of @wq if dbg_leak_pwq asks for it at
 * @when (FWQ_DBG_LEAK_*), and only once: the knob goes back to 0. A cold
 * path: the knob is read, no key.
 */
static inline void fwq_dbg_leak_pwq_at(struct fwq_workqueue *wq,
				       unsigned int when)
{
	if (likely(READ_ONCE(fwq_dbg_leak_pwq) != when) ||
	    !fwq_wq_unbound(wq) || cmpxchg(&fwq_dbg_leak_pwq, when, 0) != when)
		return;
	fwq_dbg_plant_leak(wq);
}

/* fault injection: does the manager's worker creation fail this time? */
static inline bool fwq_dbg_create_fails(void)
{
	if (!READ_ONCE(fwq_fail_create_worker))
		return false;
	atomic64_inc(&fwq_create_worker_injected);
	return true;
}

#endif /* _FWQ_DBG_H */
