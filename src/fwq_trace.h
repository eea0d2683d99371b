/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq tracepoints: TRACE_SYSTEM fwq, created in trace.c.
 *
 * The first four are the mainline workqueue events of
 * include/trace/events/workqueue.h under fwq_ names, with the same fields
 * and output, so tools written for workqueue:* read fwq:* as well (the
 * workqueue name is a char[FWQ_NAME_LEN], which every fwq name fits, not a
 * dynamic string: __assign_str() changed its arguments in 6.10). The
 * others show what fwq's variants change: a flush's walk (pwqs visited,
 * lock cycles), every worker wakeup (its site and whether a pool lock
 * was held), worker creation and cull, and the kicked-list move.
 *
 * Disabled, a tracepoint is a static-key no-op. FWQ_TRACE=n (src/Kbuild)
 * builds fwq.ko with NOTRACE, <linux/tracepoint.h>'s own switch: every
 * trace_fwq_*() is then an empty inline and the call sites compile to
 * nothing, the baseline scripts/trace-cost.sh measures them against.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM fwq

#if !defined(_FWQ_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FWQ_TRACE_H

#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "internal.h"

FWQ_WAKE_SITES(__FWQ_WAKE_SITE_TRACE_ENUM)
TRACE_DEFINE_ENUM(FWQ_SITE_NR);
TRACE_DEFINE_ENUM(FWQ_CULL_IDLE);
TRACE_DEFINE_ENUM(FWQ_CULL_FORCED);
TRACE_DEFINE_ENUM(FWQ_CULL_DESTROY);

/*
 * The site names, from the registry's list (FWQ_WAKE_SITES,
 * include/fwq/variants.h). Each pair ends in a comma, so the list closes
 * with FWQ_SITE_NR, a value no event carries.
 */
#define fwq_show_site(site)						\
	__print_symbolic(site, FWQ_WAKE_SITES(__FWQ_WAKE_SITE_SYM)	\
			 { FWQ_SITE_NR, "nr" })

/*
 * room for a variant's name in an event, as fwq_flush_name() gives it: a
 * literal, since the event's format file prints it; every flush design's
 * name must fit, not be cut short
 */
#define FWQ_TRACE_VARIANT_LEN	16
static_assert(sizeof(union { FWQ_FLUSH_VARIANTS(__FWQ_VARIANT_NAME_MEMBER) }) <=
	      FWQ_TRACE_VARIANT_LEN, "a flush design's name is too long for its event");

#define fwq_show_cull(why)						\
	__print_symbolic(why,						\
			 { FWQ_CULL_IDLE, "idle" },			\
			 { FWQ_CULL_FORCED, "forced" },			\
			 { FWQ_CULL_DESTROY, "destroy" })

/*
 * fwq_queue_work - a work item was queued (mainline workqueue_queue_work)
 * @req_cpu: the requested CPU, FWQ_CPU_UNBOUND (NR_CPUS) for any
 * @pwq: the pwq it went to; cpu is its pool's CPU, -1 for an unbound pool
 * @work: the item
 *
 * Under the pool lock, once per successful queueing (a delayed item when
 * its timer fires), before the item is put on the worklist or, past
 * max_active, on the inactive list.
 */
TRACE_EVENT(fwq_queue_work,
	    TP_PROTO(int req_cpu, struct fwq_pwq *pwq, struct fwq_work *work),
	    TP_ARGS(req_cpu, pwq, work),
	    TP_STRUCT__entry(__field(void *, work)
			     __field(void *, function)
			     __array(char, workqueue, FWQ_NAME_LEN)
			     __field(int, req_cpu)
			     __field(int, cpu)
			     ),
	    TP_fast_assign(__entry->work = work;
			   __entry->function = work->func;
			   strscpy(__entry->workqueue, pwq->wq->name,
				   FWQ_NAME_LEN);
			   __entry->req_cpu = req_cpu;
			   __entry->cpu = pwq->pool->cpu;
			   ),
	    TP_printk("work struct=%p function=%ps workqueue=%s req_cpu=%d cpu=%d",
		      __entry->work, __entry->function, __entry->workqueue,
		      __entry->req_cpu, __entry->cpu)
);

/*
 * fwq_work_fn - the class of the events that record an item and its
 *	function while the item is still live
 * @work: the item
 */
DECLARE_EVENT_CLASS(fwq_work_fn,
		    TP_PROTO(struct fwq_work *work),
		    TP_ARGS(work),
		    TP_STRUCT__entry(__field(void *, work)
				     __field(void *, function)
				     ),
		    TP_fast_assign(__entry->work = work;
				   __entry->function = work->func;
				   ),
		    TP_printk("work struct %p: function %ps", __entry->work,
			      __entry->function)
);

/*
 * fwq_activate_work - a queued item went on its pool's worklist (mainline
 *	workqueue_activate_work, with the function field it gained after
 *	6.1): right at queueing, or later, when an nr_active slot freed up
 *	for an item that waited on the inactive list
 * @work: the item
 */
DEFINE_EVENT_PRINT(fwq_work_fn, fwq_activate_work,
		   TP_PROTO(struct fwq_work *work),
		   TP_ARGS(work),
		   TP_printk("work struct %p function=%ps ", __entry->work,
			     __entry->function)
);

/*
 * fwq_execute_start - right before a worker calls an item's function
 *	(mainline workqueue_execute_start); flush barriers included
 * @work: the item
 */
DEFINE_EVENT(fwq_work_fn, fwq_execute_start,
	     TP_PROTO(struct fwq_work *work),
	     TP_ARGS(work)
);

/*
 * fwq_execute_end - right after an item's function returned (mainline
 *	workqueue_execute_end)
 * @work: the item's address; it may be freed already, only the value is
 *	recorded
 * @function: the function that ran
 */
TRACE_EVENT(fwq_execute_end,
	    TP_PROTO(struct fwq_work *work, fwq_work_func_t function),
	    TP_ARGS(work, function),
	    TP_STRUCT__entry(__field(void *, work)
			     __field(void *, function)
			     ),
	    TP_fast_assign(__entry->work = work;
			   __entry->function = function;
			   ),
	    TP_printk("work struct %p: function %ps", __entry->work,
		      __entry->function)
);

/*
 * fwq_flush_start - fwq_flush_workqueue() began (drain passes included)
 * @wq: the workqueue, its mutex held
 *
 * flush is the walk variant's name, from the registry
 * (fwq_flush_name()); work_color and flush_color the workqueue's colours
 * before this flush takes one.
 */
TRACE_EVENT(fwq_flush_start,
	    TP_PROTO(struct fwq_workqueue *wq),
	    TP_ARGS(wq),
	    TP_STRUCT__entry(__array(char, workqueue, FWQ_NAME_LEN)
			     __array(char, flush, FWQ_TRACE_VARIANT_LEN)
			     __field(int, work_color)
			     __field(int, flush_color)
			     ),
	    TP_fast_assign(strscpy(__entry->workqueue, wq->name, FWQ_NAME_LEN);
			   strscpy(__entry->flush,
				   fwq_flush_name(wq->variant.flush),
				   FWQ_TRACE_VARIANT_LEN);
			   __entry->work_color = wq->work_color;
			   __entry->flush_color = wq->flush_color;
			   ),
	    TP_printk("workqueue=%s flush=%s work_color=%d flush_color=%d",
		      __entry->workqueue, __entry->flush,
		      __entry->work_color, __entry->flush_color)
);

/*
 * fwq_flush_end - fwq_flush_workqueue() is about to return
 * @wq: the workqueue
 * @color: the colour this flush waited for
 * @pwqs_visited: pwqs its walks visited
 * @lock_cycles: lock acquisitions its walks made (pool locks, and
 *	flush=active's node locks)
 *
 * A walk is counted by the flusher that ran it (the first flusher runs the
 * cascade's walks for the others), so over any stretch of time the sums of
 * pwqs_visited and lock_cycles equal the growth of flush_pwqs_visited and
 * flush_lock_cycles in debugfs stats. The walks count only while the
 * counters are on: enabling the event turns them on
 * (fwq_trace_counters_reg(), src/wake.c).
 */
TRACE_EVENT_FN(fwq_flush_end,
	       TP_PROTO(struct fwq_workqueue *wq, int color, u64 pwqs_visited,
			u64 lock_cycles),
	       TP_ARGS(wq, color, pwqs_visited, lock_cycles),
	       TP_STRUCT__entry(__array(char, workqueue, FWQ_NAME_LEN)
				__field(int, color)
				__field(u64, pwqs_visited)
				__field(u64, lock_cycles)
				),
	       TP_fast_assign(strscpy(__entry->workqueue, wq->name,
				      FWQ_NAME_LEN);
			      __entry->color = color;
			      __entry->pwqs_visited = pwqs_visited;
			      __entry->lock_cycles = lock_cycles;
			      ),
	       TP_printk("workqueue=%s color=%d pwqs_visited=%llu lock_cycles=%llu",
			 __entry->workqueue, __entry->color,
			 __entry->pwqs_visited, __entry->lock_cycles),
	       fwq_trace_counters_reg, fwq_trace_counters_unreg
);

/*
 * fwq_wakeup - fwq woke a task: a worker, a rescuer, a new kthread, a
 *	flusher, the pwq release worker or a pool's destroyer
 * @task: the woken task, or NULL when fwq does not know it (pid 0)
 * @wq: the workqueue it is counted for, or NULL ("(global)" in stats)
 * @site: enum fwq_wake_site
 * @locked: a pool lock was held on this CPU at the wake_up_process()
 *
 * Every wakeup fwq issues, from fwq_wake_task() or fwq_wake_count(), right
 * where debugfs stats count it: per workqueue the events with locked=1 add up to the
 * wake_*_locked counters. Enabling the event turns the counters on
 * (fwq_trace_counters_reg(), src/wake.c), which @locked needs.
 */
TRACE_EVENT_FN(fwq_wakeup,
	       TP_PROTO(struct task_struct *task, struct fwq_workqueue *wq,
			enum fwq_wake_site site, bool locked),
	       TP_ARGS(task, wq, site, locked),
	       TP_STRUCT__entry(__array(char, workqueue, FWQ_NAME_LEN)
				__field(pid_t, pid)
				__field(int, site)
				__field(bool, locked)
				),
	       TP_fast_assign(strscpy(__entry->workqueue,
				      wq ? wq->name : "(global)", FWQ_NAME_LEN);
			      __entry->pid = task ? task->pid : 0;
			      __entry->site = site;
			      __entry->locked = locked;
			      ),
	       TP_printk("workqueue=%s pid=%d site=%s locked=%d",
			 __entry->workqueue, __entry->pid,
			 fwq_show_site(__entry->site), __entry->locked),
	       fwq_trace_counters_reg, fwq_trace_counters_unreg
);

/*
 * The assignment of the fields the worker events begin with (pool, cpu,
 * worker, pid) from the events' @pool and @worker: the pool's id and CPU,
 * the worker's id and its task's pid.
 */
#define FWQ_TP_WORKER_ASSIGN						\
	do {								\
		__entry->pool = pool->id;				\
		__entry->cpu = pool->cpu;				\
		__entry->worker = worker->id;				\
		__entry->pid = worker->task->pid;			\
	} while (0)

/*
 * fwq_worker_create - a worker was created and joined its pool
 * @pool: the pool, locked; cpu is -1 for an unbound pool
 * @worker: the new worker
 */
TRACE_EVENT(fwq_worker_create,
	    TP_PROTO(struct fwq_pool *pool, struct fwq_worker *worker),
	    TP_ARGS(pool, worker),
	    TP_STRUCT__entry(__field(int, pool)
			     __field(int, cpu)
			     __field(int, worker)
			     __field(pid_t, pid)
			     __field(int, nr_workers)
			     ),
	    TP_fast_assign(FWQ_TP_WORKER_ASSIGN;
			   __entry->nr_workers = pool->nr_workers;
			   ),
	    TP_printk("pool=%d cpu=%d worker=%d pid=%d nr_workers=%d",
		      __entry->pool, __entry->cpu, __entry->worker, __entry->pid,
		      __entry->nr_workers)
);

/*
 * fwq_worker_cull - a worker was taken out of its pool to be stopped
 * @pool: the pool, locked
 * @worker: the worker
 * @why: enum fwq_cull_reason: idle (the idle timeout), forced
 *	(dbg_force_cull) or destroy (the pool goes away)
 *
 * kicked=1 means a kick was outstanding on the worker (the H1 race, see
 * docs/hazards.md); nr_workers is the pool's count after the cull.
 */
TRACE_EVENT(fwq_worker_cull,
	    TP_PROTO(struct fwq_pool *pool, struct fwq_worker *worker,
		     enum fwq_cull_reason why),
	    TP_ARGS(pool, worker, why),
	    TP_STRUCT__entry(__field(int, pool)
			     __field(int, cpu)
			     __field(int, worker)
			     __field(pid_t, pid)
			     __field(int, reason)
			     __field(bool, kicked)
			     __field(int, nr_workers)
			     ),
	    TP_fast_assign(FWQ_TP_WORKER_ASSIGN;
			   __entry->reason = why;
			   __entry->kicked = worker->kicked;
			   __entry->nr_workers = pool->nr_workers;
			   ),
	    TP_printk("pool=%d cpu=%d worker=%d pid=%d reason=%s kicked=%d nr_workers=%d",
		      __entry->pool, __entry->cpu, __entry->worker, __entry->pid,
		      fwq_show_cull(__entry->reason), __entry->kicked,
		      __entry->nr_workers)
);

/*
 * fwq_kicked_move - kicked_list=on parked a picked worker on the pool's
 *	kicked list (the kicked-list fix of "Shrink the lock time" v2)
 * @pool: the pool, locked
 * @worker: the worker
 * @coalesced: it was the kicked worker already (a kick that coalesced)
 */
TRACE_EVENT(fwq_kicked_move,
	    TP_PROTO(struct fwq_pool *pool, struct fwq_worker *worker,
		     bool coalesced),
	    TP_ARGS(pool, worker, coalesced),
	    TP_STRUCT__entry(__field(int, pool)
			     __field(int, worker)
			     __field(pid_t, pid)
			     __field(bool, coalesced)
			     ),
	    TP_fast_assign(__entry->pool = pool->id;
			   __entry->worker = worker->id;
			   __entry->pid = worker->task->pid;
			   __entry->coalesced = coalesced;
			   ),
	    TP_printk("pool=%d worker=%d pid=%d coalesced=%d", __entry->pool,
		      __entry->worker, __entry->pid, __entry->coalesced)
);

#endif /* _FWQ_TRACE_H */

/* out of the include guard: define_trace.h reads this file again */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fwq_trace
#include <trace/define_trace.h>
