// SPDX-License-Identifier: GPL-2.0
/*
 * Cancelling (H16): cancel_work_sync on pending, running and
 * self-requeueing items; the return value says whether it was pending;
 * queueing fails while a sync cancel waits and works again afterwards; a
 * canceled instance never runs. Runs per flush variant: the sync cancel
 * of a running item goes through the flush barrier.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define CANCEL_HOLD_MS	50

/*
 * Invariant: cancel_work_sync on a pending item returns true, and the
 * item never runs; cancel_work (async) likewise; on an idle item both
 * return false.
 */
static void test_cancel_pending(struct fwq_ktap_test *t)
{
	struct fwqt_blocker head, x, y;
	struct fwq_workqueue *wq;
	int cpu;

	wq = fwqt_case_wq(t, F, FWQ_PERCPU, 1);
	if (!wq)
		return;
	fwqt_blocker_init(&head);
	fwqt_blocker_init_open(&x);
	fwqt_blocker_init_open(&y);

	FWQ_EXPECT(t, !fwq_cancel_work_sync(&x.work));
	FWQ_EXPECT(t, !fwq_cancel_work(&y.work));

	cpu = fwqt_random_online_cpu();
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &head.work));
	fwqt_wait(t, &head.started, "head start");
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &x.work));
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &y.work));
	FWQ_EXPECT(t, fwq_cancel_work_sync(&x.work));
	FWQ_EXPECT(t, fwq_cancel_work(&y.work));
	FWQ_EXPECT(t, !fwq_work_pending(&x.work));
	FWQ_EXPECT(t, !fwq_work_pending(&y.work));
	FWQ_EXPECT_EQ(t, fwq_work_busy(&x.work), 0);
	FWQ_EXPECT(t, !fwq_cancel_work(&y.work));

	fwqt_blocker_open(&head);
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&x.runs), 0);
	FWQ_EXPECT_EQ(t, atomic_read(&y.runs), 0);

	/* a canceled item can be queued again and runs */
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &x.work));
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&x.runs), 1);
	fwq_destroy_workqueue(wq);
}

/*
 * Invariant: cancel_work_sync on a running item waits until it
 * returns; it returns false if no instance was pending and true if one
 * was (that instance never runs); queueing the item while the cancel waits
 * fails; afterwards the item is enabled again.
 */
static void test_cancel_running(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	bool queued;
	int requeue;

	wq = fwqt_case_wq(t, F, FWQ_UNBOUND, 0);
	if (!wq)
		return;

	for (requeue = 0; requeue < 2; requeue++) {
		struct fwqt_blocker r;
		struct fwqt_call c;

		fwqt_blocker_init(&r);
		FWQ_EXPECT(t, fwq_queue_work(wq, &r.work));
		if (!fwqt_wait(t, &r.started, "item start")) {
			fwqt_blocker_open(&r);
			break;
		}
		if (requeue)
			FWQ_EXPECT(t, fwq_queue_work(wq, &r.work));
		if (fwqt_call_start(t, &c, fwq_cancel_work_sync, &r.work, &r,
				    "cancel"))
			break;
		/* Not a timing check: a correct cancel never returns here. */
		if (!FWQ_EXPECT(t, !fwqt_done_within(&c.th.done, CANCEL_HOLD_MS)))
			fwq_ktap_diag("requeue=%d: cancel_work_sync returned while the item ran",
				      requeue);
		/*
		 * While the cancel waits, queueing fails. If the helper has
		 * not reached the cancel yet (a slow start under TCG), the
		 * queue succeeds and the cancel must then steal it.
		 */
		queued = false;
		if (!fwqt_thread_done(&c.th)) {
			queued = fwq_queue_work(wq, &r.work);
			if (queued && !requeue)
				fwq_ktap_diag("the cancel had not started yet");
			FWQ_EXPECT(t, !queued || !requeue);
		}
		fwqt_call_finish(t, &c, "cancel_work_sync");
		FWQ_EXPECT_EQ(t, c.ret, requeue || queued);
		FWQ_EXPECT_EQ(t, atomic_read(&r.done), 1);
		FWQ_EXPECT_EQ(t, fwq_work_busy(&r.work), 0);
		fwq_flush_workqueue(wq);
		FWQ_EXPECT_EQ(t, atomic_read(&r.runs), 1);

		/* enabled again */
		FWQ_EXPECT(t, fwq_queue_work(wq, &r.work));
		fwq_flush_workqueue(wq);
		FWQ_EXPECT_EQ(t, atomic_read(&r.runs), 2);
	}
	fwq_destroy_workqueue(wq);
}

static void sr_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		   const char *kind)
{
	struct fwqt_hopper *c;
	int round, runs;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c))
		return;
	/* requeues itself on every run, to random CPUs */
	fwqt_hopper_init(c, wq, 20, 0, 100);
	for (round = 0; round < 5; round++) {
		FWQ_EXPECT(t, fwq_queue_work(wq, &c->work));
		fwqt_wait_atomic(t, &c->runs, (round + 1) * 20,
				 "self-requeue runs");
		fwq_cancel_work_sync(&c->work);
		/* neither pending nor running on return */
		FWQ_EXPECT(t, !fwq_work_pending(&c->work));
		FWQ_EXPECT_EQ(t, atomic_read(&c->running), 0);
		FWQ_EXPECT_EQ(t, fwq_work_busy(&c->work), 0);
		/* and it stays stopped (no execution after the cancel) */
		runs = atomic_read(&c->runs);
		usleep_range(10000, 11000);
		FWQ_EXPECT_EQ(t, atomic_read(&c->runs), runs);
	}
	fwq_ktap_diag("%s: %d runs, %d requeues refused during cancel", kind,
		      atomic_read(&c->runs), atomic_read(&c->requeue_failed));
	/* enabled again after the cancel: one more (non-requeueing) run */
	WRITE_ONCE(c->stop, true);
	runs = atomic_read(&c->runs);
	FWQ_EXPECT(t, fwq_queue_work(wq, &c->work));
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&c->runs), runs + 1);
	kfree(c);
}

/*
 * Invariant (H16): cancel_work_sync stops an item that requeues itself
 * from its own function (to random CPUs): on return it is neither pending
 * nor running, it does not run again, and it can be queued again.
 */
static void test_cancel_self_requeue(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, F, FWQ_AFFN_DFL, sr_run);
}

#define CR_ROUNDS	400

struct cr_ctx {
	struct fwq_work work;
	struct fwq_workqueue *wq;
	atomic_t runs;
	atomic_t queued;
	atomic_t canceled;
};

static void cr_fn(struct fwq_work *work)
{
	struct cr_ctx *c = container_of(work, struct cr_ctx, work);

	atomic_inc(&c->runs);
	if (get_random_u32_below(2))
		fwqt_spin_us(10);
}

static void cr_queuer(void *p)
{
	struct cr_ctx *c = p;
	int i;

	for (i = 0; i < CR_ROUNDS; i++) {
		if (fwq_queue_work_on(fwqt_random_online_cpu(), c->wq, &c->work))
			atomic_inc(&c->queued);
		if (!(i % 16))
			cond_resched();
	}
}

static void cr_canceller(void *p)
{
	struct cr_ctx *c = p;
	int i;

	for (i = 0; i < CR_ROUNDS; i++) {
		bool ret = (i & 3) ? fwq_cancel_work(&c->work) :
				     fwq_cancel_work_sync(&c->work);

		if (ret)
			atomic_inc(&c->canceled);
		if (!(i % 16))
			cond_resched();
	}
}

/*
 * Invariant: with queue, cancel_work and cancel_work_sync racing
 * on one item from several CPUs, every queued instance either runs once or
 * is reported canceled once: runs == queued - canceled.
 */
static void test_cancel_race_accounting(struct fwq_ktap_test *t)
{
	struct fwqt_thread th[3];
	struct fwq_workqueue *wq;
	struct cr_ctx *c;
	int i;

	c = fwqt_case_wq_obj(t, F, FWQ_UNBOUND, 0, sizeof(*c), &wq);
	if (!c)
		return;
	c->wq = wq;
	FWQ_INIT_WORK(&c->work, cr_fn);
	if (fwqt_thread_start(&th[0], cr_queuer, c, -1, "cr-q"))
		th[0].task = NULL;
	if (fwqt_thread_start(&th[1], cr_queuer, c, -1, "cr-q"))
		th[1].task = NULL;
	if (fwqt_thread_start(&th[2], cr_canceller, c, -1, "cr-c"))
		th[2].task = NULL;
	for (i = 0; i < 3; i++)
		fwqt_thread_join(t, &th[i], NULL, NULL, "racer");
	if (fwq_cancel_work_sync(&c->work))
		atomic_inc(&c->canceled);
	fwq_flush_workqueue(wq);
	fwq_ktap_diag("queued %d, canceled %d, ran %d", atomic_read(&c->queued),
		      atomic_read(&c->canceled), atomic_read(&c->runs));
	FWQ_EXPECT(t, atomic_read(&c->queued) > 0);
	FWQ_EXPECT_EQ(t, atomic_read(&c->runs),
		      atomic_read(&c->queued) - atomic_read(&c->canceled));
	kfree(c);
	fwq_destroy_workqueue(wq);
}

/*
 * Invariant: fwq_disable_work() cancels a pending item and keeps it from
 * being queued until as many fwq_enable_work() calls have undone it; the
 * sync form disables an idle item too; the delayed forms do the same for
 * a delayed item whose timer is armed. Enabling an item that is not
 * disabled is refused (one log line, counted as misuse) and changes
 * nothing.
 */
static void test_disable_enable(struct fwq_ktap_test *t)
{
	struct fwqt_blocker head, x;
	struct fwq_workqueue *wq;
	struct fwqt_done_ditem *d;
	long long misuse;
	int cpu;

	/* not on the stack: its timer would be an unannotated stack object */
	d = fwqt_case_wq_obj(t, W, FWQ_PERCPU, 1, sizeof(*d), &wq);
	if (!d)
		return;
	fwqt_blocker_init(&head);
	fwqt_blocker_init_open(&x);
	cpu = fwqt_random_online_cpu();

	/* x waits behind head (max_active 1): disabling it cancels it */
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &head.work));
	fwqt_wait(t, &head.started, "head start");
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &x.work));
	FWQ_EXPECT(t, fwq_disable_work(&x.work));
	FWQ_EXPECT(t, !fwq_work_pending(&x.work));
	FWQ_EXPECT(t, !fwq_queue_work_on(cpu, wq, &x.work));
	/* twice disabled: one enable is not enough */
	FWQ_EXPECT(t, !fwq_disable_work(&x.work));
	FWQ_EXPECT(t, !fwq_enable_work(&x.work));
	FWQ_EXPECT(t, !fwq_queue_work_on(cpu, wq, &x.work));
	FWQ_EXPECT(t, fwq_enable_work(&x.work));
	/* an enable too many: refused, counted, still enabled */
	misuse = fwqt_debug_counter("misuse");
	FWQ_EXPECT(t, fwq_enable_work(&x.work));
	FWQ_EXPECT_EQ(t, fwqt_debug_counter("misuse"), misuse + 1);
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &x.work));
	fwqt_blocker_open(&head);
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&x.runs), 1);

	/* the sync form on an idle item: nothing pending, disabled all the same */
	FWQ_EXPECT(t, !fwq_disable_work_sync(&x.work));
	FWQ_EXPECT(t, !fwq_queue_work_on(cpu, wq, &x.work));
	FWQ_EXPECT(t, fwq_enable_work(&x.work));

	/* a delayed item with its timer armed */
	FWQ_INIT_DELAYED_WORK(&d->dw, fwqt_done_ditem_fn);
	fwqt_done_ditem_reset(d);
	FWQ_EXPECT(t, fwq_queue_delayed_work_on(cpu, wq, &d->dw, 60 * HZ));
	FWQ_EXPECT(t, fwq_disable_delayed_work(&d->dw));
	FWQ_EXPECT(t, !fwq_queue_delayed_work_on(cpu, wq, &d->dw, 0));
	FWQ_EXPECT(t, !fwq_disable_delayed_work_sync(&d->dw));
	FWQ_EXPECT(t, !fwq_enable_delayed_work(&d->dw));
	FWQ_EXPECT(t, fwq_enable_delayed_work(&d->dw));
	FWQ_EXPECT(t, fwq_queue_delayed_work_on(cpu, wq, &d->dw, 0));
	fwq_flush_delayed_work(&d->dw);
	FWQ_EXPECT_EQ(t, atomic_read(&d->runs), 1);
	fwq_destroy_workqueue(wq);
	kfree(d);
}

FWQ_KTAP_SUITE(fwq_suite_cancel, "fwq_cancel",
	       FWQT_CASE("cancel_sync_pending", test_cancel_pending, F),
	       FWQT_CASE("cancel_sync_running", test_cancel_running, F),
	       FWQT_CASE("cancel_sync_self_requeueing",
			 test_cancel_self_requeue, F),
	       FWQT_CASE("cancel_race_accounting",
			 test_cancel_race_accounting, F),
	       FWQT_CASE("disable_enable", test_disable_enable, W));
