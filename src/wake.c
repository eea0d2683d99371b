// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: worker wakeups, the machinery every wake and kicked_list design
 * uses (the deferred-wakeup series, "workqueue: Shrink the lock time",
 * whose sources README.md lists).
 *
 * kick_pool() runs under pool->lock. The pool's kicked_list design
 * (attrs.kicked) picks the idle worker; the wake design (attrs.wake)
 * hands it to its wakeup mechanism; the kicked_list design then parks it
 * where it waits until it runs. Both are fixed when the pool is created,
 * and neither tests which design the other axis has. Each design is a
 * file of its own, wake_NAME.c or kicked_NAME.c, listed in the registry
 * (include/fwq/variants.h).
 *
 * Task lifetime (docs/hazards.md H2): wake=wakeq holds a reference.
 * wake=claim relies on the claim: a claimed or kicked worker is out of the cull's reach and only
 * pool destruction kills it, which needs the pool's last pwq gone; the
 * wakeup happens inside an RCU read-side section, and a task's final put
 * happens at the earliest one grace period after it exits. wake=pick
 * leaves the worker within the cull's reach and relies on that section
 * alone: the pick, under pool->lock, and the wakeup, issued before
 * preemption is on again, are one section, so a worker culled in between
 * is woken in vain, never after its task is freed (src/wake_pick.c).
 *
 * Every wakeup fwq issues goes through fwq_wake_task(), or is counted by
 * fwq_wake_count() (completions, the pwq release bounce, the manager's
 * rcuwait): per workqueue, per site, and by whether a pool lock is held on
 * this CPU (the per-CPU depth kept by the fwq_pool_lock*() wrappers). The
 * counting, the depth included, is done only while an observer holds
 * fwq_counters_key on (fwq_counters_get()); the tracepoint is always there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/sched/task.h>

#include "dbg.h"
#include "internal.h"
#include "ops.h"
#include "fwq_trace.h"

/*
 * The wake and kicked_list designs, each a file of its own (src/Kbuild
 * lists every wake_*.c and kicked_*.c here): compiled in this unit, ahead
 * of fwq_kick_pool(), which inlines their hooks. The hooks are static:
 * nothing else calls them, so no copy of them is emitted out of line.
 */
#include "kick_designs.h"

DEFINE_PER_CPU(int, fwq_pool_lock_depth);
DEFINE_STATIC_KEY_FALSE(fwq_counters_key);
static DEFINE_MUTEX(fwq_counters_mutex);
atomic64_t fwq_global_wakeups[FWQ_SITE_NR][2];
atomic64_t fwq_deferred_under_lock;

/*
 * Every region that counts in the depth runs with IRQs off (a raw pool lock
 * taken with IRQs off, or with them saved), so this IPI finds none open on
 * its CPU: the depth is 0 there, whatever the key said when a region that
 * straddled the key's switch began or ended.
 */
static void fwq_counters_reset_depth(void *unused)
{
	this_cpu_write(fwq_pool_lock_depth, 0);
}

/**
 * fwq_counters_get - turn the wakeup and walk counters and the lock depth on
 *
 * Counted: wakeups by workqueue, site and lock state, the deferred wakeups
 * issued under a pool lock, and the flush walks' pwq visits and lock
 * cycles (fwq_flush_count_cycle(), src/ops.h). Off by default, as mainline
 * has none of them; each call holds them on until its fwq_counters_put().
 * What happens between is counted exactly: on return, every CPU keeps the
 * depth. A flush walk running across the switch is counted in part, and
 * not given to its flusher (fwq_flush_end).
 *
 * Context: process context, may sleep.
 */
void fwq_counters_get(void)
{
	mutex_lock(&fwq_counters_mutex);
	static_branch_inc(&fwq_counters_key);
	on_each_cpu(fwq_counters_reset_depth, NULL, 1);
	mutex_unlock(&fwq_counters_mutex);
}
EXPORT_SYMBOL_GPL(fwq_counters_get);

/**
 * fwq_counters_put - drop the hold of one fwq_counters_get()
 *
 * Context: process context, may sleep.
 */
void fwq_counters_put(void)
{
	mutex_lock(&fwq_counters_mutex);
	static_branch_dec(&fwq_counters_key);
	mutex_unlock(&fwq_counters_mutex);
}
EXPORT_SYMBOL_GPL(fwq_counters_put);

/*
 * The reg and unreg of the tracepoints that report counts: fwq_wakeup's
 * @locked needs the depth, fwq_flush_end's the walk counters.
 */
int fwq_trace_counters_reg(void)
{
	fwq_counters_get();
	return 0;
}

void fwq_trace_counters_unreg(void)
{
	fwq_counters_put();
}

/**
 * __fwq_wake_count - count a wakeup that fwq issued by other means
 * @task: the task woken, or NULL if unknown (the tracepoint's pid 0)
 * @wq: the workqueue it is counted for, or NULL
 * @site: the call site
 *
 * For wakeups that go through complete(), kthread_queue_work() or an
 * rcuwait rather than wake_up_process(): called right next to them, on the
 * same CPU and under the same locks, so that "under a pool lock" is
 * decided as for fwq_wake_task(). Before a completion, which may free
 * @task's interest in @wq; after the others, whose return says whether a
 * task was to be woken. The body of fwq_wake_count(), which calls it only
 * while the counters are on (an observer holds them).
 */
void __fwq_wake_count(struct task_struct *task, struct fwq_workqueue *wq,
		      enum fwq_wake_site site)
{
	int held;

	held = this_cpu_read(fwq_pool_lock_depth) ? 1 : 0;
	trace_fwq_wakeup(task, wq, site, held);
	if (wq)
		this_cpu_inc(wq->pcpu_stats->wakeups[site][held]);
	else
		atomic64_inc(&fwq_global_wakeups[site][held]);
	if (held && fwq_lockstat_active()) {
		if (site == FWQ_SITE_QUEUE)
			fwq_lockstat_wakeup_locked(FWQ_LS_ENQUEUE);
		else if (site == FWQ_SITE_CHAIN)
			fwq_lockstat_wakeup_locked(FWQ_LS_CHAIN);
	}
}

/* fwq_wake_batch_add() on a batch that has entries already */
void __fwq_wake_batch_add(struct fwq_wake_batch *wb, struct task_struct *task,
			  struct fwq_workqueue *wq, enum fwq_wake_site site,
			  bool ref)
{
	unsigned int i;

	for (i = 0; i < wb->nr; i++) {
		if (wb->ent[i].task == task)
			return;		/* already queued: woken once */
	}
	if (wb->nr == FWQ_WAKE_BATCH) {
		/* full: wake now; the caller still holds its references */
		fwq_wake_task(task, wq, site);
		return;
	}
	if (ref)
		get_task_struct(task);
	wb->ent[wb->nr].task = task;
	wb->ent[wb->nr].wq = wq;
	wb->ent[wb->nr].site = site;
	wb->ent[wb->nr].ref = ref;
	wb->nr++;
}

/**
 * __fwq_wake_batch_issue - issue the wakeups collected under a pool lock
 * @wb: the batch, not empty; emptied
 *
 * Called through fwq_wake_batch_issue() after the pool lock is dropped,
 * before preemption or IRQs are on again (every site: a waker preempted
 * there leaves the task it picked waiting for nothing). That
 * non-preemptible stretch, which began under the pool lock, is the RCU
 * read-side section the file comment relies on: since the RCU flavours
 * were consolidated (v5.0, the oldest kernel fwq builds for is 6.1), a
 * region with preemption or IRQs off is one, so no rcu_read_lock() nor
 * preempt_disable() pair is added here, and the check that preemption is
 * off is lockdep's, free without it. Mainline's kick_pool() issues its
 * wakeup under the same guarantee.
 */
void __fwq_wake_batch_issue(struct fwq_wake_batch *wb)
{
	unsigned int i;

	lockdep_assert_preemption_disabled();
	if (fwq_counters_on() && this_cpu_read(fwq_pool_lock_depth))
		atomic64_inc(&fwq_deferred_under_lock);
	fwq_dbg_kick_delay();
	for (i = 0; i < wb->nr; i++) {
		struct fwq_wake_ent *e = &wb->ent[i];

		fwq_wake_task(e->task, e->wq, e->site);
		if (e->ref)
			put_task_struct(e->task);
	}
	wb->nr = 0;
}

/**
 * fwq_kick_pool - wake an idle worker if the pool needs one
 * @pool: the pool, locked
 * @wb: wake batch for the deferred strategies; the caller issues it after
 *	dropping pool->lock
 * @wq: the workqueue the wakeup is counted for, or NULL
 * @site: the call site, for the counters
 *
 * Return: true if a worker was picked.
 */
bool fwq_kick_pool(struct fwq_pool *pool, struct fwq_wake_batch *wb,
		   struct fwq_workqueue *wq, enum fwq_wake_site site)
{
	struct fwq_worker *worker;
	struct task_struct *p;
	int wake_cpu;

	lockdep_assert_held(&pool->lock);

	if (!fwq_need_more_worker(pool))
		return false;
	/*
	 * The pool's designs, dispatched by a chain the registry generates
	 * (include/fwq/variants.h) to their hooks, which this unit compiles
	 * (kick_designs.h, above) and inlines: no call, where a pointer
	 * in the ops would cost an indirect call each (src/ops.h)
	 */
	worker = FWQ_KICKED_VARIANTS(__FWQ_KICKED_PICK_TERM) NULL;
	if (!worker)
		return false;

	/*
	 * Non-strict unbound pool: the worker may run anywhere in the
	 * cpumask; steer the wakeup back into the pod (repatriation). The
	 * write races with the scheduler's own wake_cpu updates, as in
	 * mainline (annotated, H5).
	 */
	p = worker->task;
	if (pool->cpu < 0 && !pool->attrs.affn_strict) {
		wake_cpu = READ_ONCE(p->wake_cpu);
		if (!cpumask_test_cpu(wake_cpu, pool->attrs.pod_cpumask)) {
			int cpu = cpumask_any_and_distribute(pool->attrs.pod_cpumask,
							     cpu_online_mask);

			if (cpu < nr_cpu_ids) {
				/*
				 * Charged to the pwq of the item that makes the
				 * kick (the worklist is not empty here), as
				 * mainline does: the kicked worker is idle.
				 */
				struct fwq_work *first =
					list_first_entry(&pool->worklist,
							 struct fwq_work, entry);

				WRITE_ONCE(p->wake_cpu, cpu);
				fwq_work_pwq(first)->stats[PWQ_STAT_REPATRIATED]++;
			}
		}
	}

	/* the two axes in turn: how the worker is woken, where it waits */
	FWQ_WAKE_VARIANTS(__FWQ_WAKE_KICK_TERM) (void)0;
	FWQ_KICKED_VARIANTS(__FWQ_KICKED_PARK_TERM) (void)0;
	worker->kicked = true;

	fwq_dbg_force_cull_kick(pool);
	return true;
}
