// SPDX-License-Identifier: GPL-2.0
/*
 * Work items on the stack (Linux 7.3's INIT_WORK_ONSTACK(),
 * INIT_DELAYED_WORK_ONSTACK(), INIT_DEFERRABLE_WORK_ONSTACK(),
 * INIT_RCU_WORK_ONSTACK() and their destroy_*_on_stack()): each kind
 * queued, flushed, cancelled and ended on the stack of the case. On a
 * kernel with debugobjects (the lockdep lane's), a delayed item's timer
 * set up on the stack without the _ONSTACK form draws an ODEBUG warning,
 * which panics the guest there (panic_on_warn).
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

/* an RCU work item on the stack */
struct os_ritem {
	struct fwq_rcu_work rw;
	atomic_t runs;
};

static void os_rfn(struct fwq_work *work)
{
	struct os_ritem *r = container_of(to_fwq_rcu_work(work),
					  struct os_ritem, rw);

	atomic_inc(&r->runs);
}

static void os_work_body(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
			 const char *kind)
{
	struct fwqt_done_item it;

	FWQ_INIT_WORK_ONSTACK(&it.work, fwqt_done_item_fn);
	fwqt_done_item_reset(&it);
	FWQ_EXPECT(t, fwq_queue_work(wq, &it.work));
	fwqt_wait(t, &it.done, "on-stack item");
	fwq_flush_work(&it.work);
	if (!FWQ_EXPECT_EQ(t, atomic_read(&it.runs), 1))
		fwq_ktap_diag("%s: the on-stack item ran %d times", kind,
			      atomic_read(&it.runs));
	FWQ_EXPECT(t, !fwq_work_pending(&it.work));
	fwq_destroy_work_on_stack(&it.work);
}

/*
 * Invariant: a work item initialized with FWQ_INIT_WORK_ONSTACK() runs
 * once per queueing and is idle after its flush, when
 * fwq_destroy_work_on_stack() ends it. Per-CPU and unbound workqueues.
 */
static void test_work_onstack(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, W, FWQ_AFFN_DFL, os_work_body);
}

static void os_delayed_body(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
			    const char *kind)
{
	struct fwqt_done_ditem d;

	FWQ_INIT_DELAYED_WORK_ONSTACK(&d.dw, fwqt_done_ditem_fn);
	fwqt_done_ditem_reset(&d);

	/* armed for a minute: the flush fires the timer and runs it now */
	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &d.dw, 60 * HZ));
	FWQ_EXPECT(t, fwq_delayed_work_pending(&d.dw));
	fwq_flush_delayed_work(&d.dw);
	FWQ_EXPECT_EQ(t, atomic_read(&d.runs), 1);

	/* armed again and cancelled: its timer is gone, it never ran */
	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &d.dw, 60 * HZ));
	FWQ_EXPECT(t, fwq_cancel_delayed_work_sync(&d.dw));
	FWQ_EXPECT(t, !timer_pending(&d.dw.timer));
	FWQ_EXPECT_EQ(t, atomic_read(&d.runs), 1);

	/* a short delay: the timer itself queues it */
	reinit_completion(&d.done);
	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &d.dw, 1));
	fwqt_wait(t, &d.done, "on-stack delayed item");
	fwq_flush_delayed_work(&d.dw);
	if (!FWQ_EXPECT_EQ(t, atomic_read(&d.runs), 2))
		fwq_ktap_diag("%s: the on-stack delayed item ran %d times",
			      kind, atomic_read(&d.runs));
	FWQ_EXPECT(t, !fwq_delayed_work_pending(&d.dw));
	fwq_destroy_delayed_work_on_stack(&d.dw);
}

/*
 * Invariant: a delayed item on the stack, initialized with
 * FWQ_INIT_DELAYED_WORK_ONSTACK(), runs when flushed or when its timer
 * fires, not at all when cancelled, and is idle when
 * fwq_destroy_delayed_work_on_stack() ends it; on a debugobjects kernel
 * no ODEBUG warning is drawn (its timer is annotated as on the stack).
 * Per-CPU and unbound workqueues.
 */
static void test_delayed_onstack(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, W, FWQ_AFFN_DFL, os_delayed_body);
}

/*
 * Invariant: FWQ_INIT_DEFERRABLE_WORK_ONSTACK() gives a deferrable,
 * IRQ-safe timer; armed for a minute, the item runs once when flushed
 * and ends idle.
 */
static void test_deferrable_onstack(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwqt_done_ditem d;

	wq = fwqt_case_wq(t, W, FWQ_UNBOUND, 0);
	if (!wq)
		return;
	FWQ_INIT_DEFERRABLE_WORK_ONSTACK(&d.dw, fwqt_done_ditem_fn);
	fwqt_done_ditem_reset(&d);
	FWQ_EXPECT(t, d.dw.timer.flags & TIMER_DEFERRABLE);
	FWQ_EXPECT(t, d.dw.timer.flags & TIMER_IRQSAFE);
	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &d.dw, 60 * HZ));
	fwq_flush_delayed_work(&d.dw);
	FWQ_EXPECT_EQ(t, atomic_read(&d.runs), 1);
	FWQ_EXPECT(t, !fwq_delayed_work_pending(&d.dw));
	fwq_destroy_delayed_work_on_stack(&d.dw);
	fwq_destroy_workqueue(wq);
}

/*
 * Invariant: an RCU work item on the stack (FWQ_INIT_RCU_WORK_ONSTACK())
 * runs once after its grace period, is idle after fwq_flush_rcu_work(),
 * and is ended with fwq_destroy_work_on_stack().
 */
static void test_rcu_work_onstack(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct os_ritem r;

	wq = fwqt_case_wq(t, W, FWQ_UNBOUND, 0);
	if (!wq)
		return;
	FWQ_INIT_RCU_WORK_ONSTACK(&r.rw, os_rfn);
	atomic_set(&r.runs, 0);
	FWQ_EXPECT(t, fwq_queue_rcu_work(wq, &r.rw));
	FWQ_EXPECT(t, fwq_flush_rcu_work(&r.rw));
	FWQ_EXPECT_EQ(t, atomic_read(&r.runs), 1);
	FWQ_EXPECT(t, !fwq_work_pending(&r.rw.work));
	fwq_destroy_work_on_stack(&r.rw.work);
	fwq_destroy_workqueue(wq);
}

FWQ_KTAP_SUITE(fwq_suite_onstack, "fwq_onstack",
	       FWQT_CASE("work_onstack", test_work_onstack, W),
	       FWQT_CASE("delayed_onstack", test_delayed_onstack, W),
	       FWQT_CASE("deferrable_onstack", test_deferrable_onstack, W),
	       FWQT_CASE("rcu_work_onstack", test_rcu_work_onstack, W));
