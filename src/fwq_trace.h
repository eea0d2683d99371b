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
 * pool-lock cycles).
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

TRACE_DEFINE_ENUM(FWQ_FLUSH_EACH);
TRACE_DEFINE_ENUM(FWQ_FLUSH_COALESCE);
TRACE_DEFINE_ENUM(FWQ_FLUSH_ACTIVE);

#define fwq_show_flush(flush)						\
	__print_symbolic(flush,						\
			 { FWQ_FLUSH_EACH, "each" },			\
			 { FWQ_FLUSH_COALESCE, "coalesce" },		\
			 { FWQ_FLUSH_ACTIVE, "active" })

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
 * fwq_activate_work - a queued item went on its pool's worklist (mainline
 *	workqueue_activate_work): right at queueing, or later, when an
 *	nr_active slot freed up for an item that waited on the inactive list
 * @work: the item
 */
TRACE_EVENT(fwq_activate_work,
	    TP_PROTO(struct fwq_work *work),
	    TP_ARGS(work),
	    TP_STRUCT__entry(__field(void *, work)
			     ),
	    TP_fast_assign(__entry->work = work;
			   ),
	    TP_printk("work struct %p", __entry->work)
);

/*
 * fwq_execute_start - right before a worker calls an item's function
 *	(mainline workqueue_execute_start); flush barriers included
 * @work: the item
 */
TRACE_EVENT(fwq_execute_start,
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
 * flush is the walk variant; work_color and flush_color the workqueue's
 * colours before this flush takes one.
 */
TRACE_EVENT(fwq_flush_start,
	    TP_PROTO(struct fwq_workqueue *wq),
	    TP_ARGS(wq),
	    TP_STRUCT__entry(__array(char, workqueue, FWQ_NAME_LEN)
			     __field(int, flush)
			     __field(int, work_color)
			     __field(int, flush_color)
			     ),
	    TP_fast_assign(strscpy(__entry->workqueue, wq->name, FWQ_NAME_LEN);
			   __entry->flush = wq->variant.flush;
			   __entry->work_color = wq->work_color;
			   __entry->flush_color = wq->flush_color;
			   ),
	    TP_printk("workqueue=%s flush=%s work_color=%d flush_color=%d",
		      __entry->workqueue, fwq_show_flush(__entry->flush),
		      __entry->work_color, __entry->flush_color)
);

/*
 * fwq_flush_end - fwq_flush_workqueue() is about to return
 * @wq: the workqueue
 * @color: the colour this flush waited for
 * @pwqs_visited: pwqs its walks visited
 * @lock_cycles: pool-lock acquisitions its walks made
 *
 * A walk is counted by the flusher that ran it (the first flusher runs the
 * cascade's walks for the others), so over any stretch of time the sums of
 * pwqs_visited and lock_cycles equal the growth of flush_pwqs_visited and
 * flush_lock_cycles in debugfs stats.
 */
TRACE_EVENT(fwq_flush_end,
	    TP_PROTO(struct fwq_workqueue *wq, int color, u64 pwqs_visited,
		     u64 lock_cycles),
	    TP_ARGS(wq, color, pwqs_visited, lock_cycles),
	    TP_STRUCT__entry(__array(char, workqueue, FWQ_NAME_LEN)
			     __field(int, color)
			     __field(u64, pwqs_visited)
			     __field(u64, lock_cycles)
			     ),
	    TP_fast_assign(strscpy(__entry->workqueue, wq->name, FWQ_NAME_LEN);
			   __entry->color = color;
			   __entry->pwqs_visited = pwqs_visited;
			   __entry->lock_cycles = lock_cycles;
			   ),
	    TP_printk("workqueue=%s color=%d pwqs_visited=%llu lock_cycles=%llu",
		      __entry->workqueue, __entry->color,
		      __entry->pwqs_visited, __entry->lock_cycles)
);

#endif /* _FWQ_TRACE_H */

/* out of the include guard: define_trace.h reads this file again */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fwq_trace
#include <trace/define_trace.h>
