// SPDX-License-Identifier: GPL-2.0
/*
 * RCU work items (Linux 7.3's queue_rcu_work() and flush_rcu_work()):
 * queued only after an RCU grace period, pending until then, waited for
 * by a flush across the grace period, refused when disabled, and never
 * lost when its workqueue is destroyed during the grace period.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

/* how long a read-side section stays open to catch an early run, in ms */
#define RW_CS_MS	20

struct rw_item {
	struct fwq_rcu_work rwork;
	atomic_t runs;
	bool in_cs;		/* the test is inside its read-side section */
	bool saw_cs;		/* a run saw it inside */
	struct completion done;
};

static void rw_fn(struct fwq_work *work)
{
	struct rw_item *it = container_of(to_fwq_rcu_work(work),
					  struct rw_item, rwork);

	if (READ_ONCE(it->in_cs))
		WRITE_ONCE(it->saw_cs, true);
	atomic_inc(&it->runs);
	complete(&it->done);
}

static void rw_init(struct rw_item *it)
{
	FWQ_INIT_RCU_WORK(&it->rwork, rw_fn);
	atomic_set(&it->runs, 0);
	it->in_cs = false;
	it->saw_cs = false;
	init_completion(&it->done);
}

/* a case's item, initialised, and its unbound workqueue: both or neither */
static struct rw_item *rw_case(struct fwq_ktap_test *t,
			       struct fwq_workqueue **wqp)
{
	struct rw_item *it;

	it = fwqt_case_wq_obj(t, W, FWQ_UNBOUND, 0, sizeof(*it), wqp);
	if (it)
		rw_init(it);
	return it;
}

static void rw_body(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		    const char *kind)
{
	struct rw_item *it;

	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!FWQ_EXPECT(t, it))
		return;
	rw_init(it);

	/* an idle item: nothing to flush */
	FWQ_EXPECT(t, !fwq_flush_rcu_work(&it->rwork));

	/* queued inside a read-side section: it cannot run before its end */
	rcu_read_lock();
	WRITE_ONCE(it->in_cs, true);
	FWQ_EXPECT(t, fwq_queue_rcu_work(wq, &it->rwork));
	FWQ_EXPECT(t, fwq_work_pending(&it->rwork.work));
	/* pending: a second queueing is refused */
	FWQ_EXPECT(t, !fwq_queue_rcu_work(wq, &it->rwork));
	mdelay(RW_CS_MS);
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), 0);
	WRITE_ONCE(it->in_cs, false);
	rcu_read_unlock();

	fwqt_wait(t, &it->done, "rcu work item");
	fwq_flush_work(&it->rwork.work);
	if (!FWQ_EXPECT(t, !READ_ONCE(it->saw_cs)))
		fwq_ktap_diag("%s: the item ran inside the read-side section",
			      kind);
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), 1);
	FWQ_EXPECT(t, !fwq_work_pending(&it->rwork.work));

	/* queued again, and flushed across its grace period at once */
	FWQ_EXPECT(t, fwq_queue_rcu_work(wq, &it->rwork));
	FWQ_EXPECT(t, fwq_flush_rcu_work(&it->rwork));
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), 2);
	FWQ_EXPECT(t, !fwq_flush_rcu_work(&it->rwork));
	kfree(it);
}

/*
 * Invariant: an RCU work item runs once per successful queueing, only
 * after every read-side section open at the queueing has ended; it is
 * pending (a second queueing fails) until it runs; fwq_flush_rcu_work()
 * returns after the run, true if there was one to wait for. Per-CPU and
 * unbound workqueues.
 */
static void test_rcu_work(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, W, FWQ_AFFN_DFL, rw_body);
}

/*
 * Invariant: an RCU work item whose item is disabled is refused (false,
 * not pending, counted as misuse once) and runs once enabled and queued.
 */
static void test_rcu_work_disabled(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct rw_item *it;
	long long misuse;

	it = rw_case(t, &wq);
	if (!it)
		return;
	FWQ_EXPECT(t, !fwq_disable_work(&it->rwork.work));
	misuse = fwqt_debug_counter("misuse");
	FWQ_EXPECT(t, !fwq_queue_rcu_work(wq, &it->rwork));
	FWQ_EXPECT_EQ(t, fwqt_debug_counter("misuse"), misuse + 1);
	FWQ_EXPECT(t, !fwq_work_pending(&it->rwork.work));
	FWQ_EXPECT(t, fwq_enable_work(&it->rwork.work));
	FWQ_EXPECT(t, fwq_queue_rcu_work(wq, &it->rwork));
	FWQ_EXPECT(t, fwq_flush_rcu_work(&it->rwork));
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), 1);
	fwq_destroy_workqueue(wq);
	kfree(it);
}

/*
 * Invariant: a workqueue destroyed right after an RCU work item was
 * queued to it loses nothing: when the grace period ended first, the
 * destroy's drain ran the item; otherwise the workqueue stayed allocated
 * until the callback, which refused the item (no longer pending; the
 * refusal counted as misuse, and the destroy too if it saw the item
 * armed). The case's balance check finds no workqueue left. The order
 * is the machine's: the case prints which one it saw.
 */
static void test_rcu_work_destroyed(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct rw_item *it;
	long long misuse;
	bool refused;

	it = rw_case(t, &wq);
	if (!it)
		return;
	misuse = fwqt_debug_counter("misuse");
	FWQ_EXPECT(t, fwq_queue_rcu_work(wq, &it->rwork));
	fwq_destroy_workqueue(wq);
	/* the callback has run: the item was refused, or queued and drained */
	rcu_barrier();
	misuse = fwqt_debug_counter("misuse") - misuse;
	refused = !atomic_read(&it->runs);
	fwq_ktap_diag("the item %s", refused ? "was refused after the destroy" :
		      "ran before the destroy");
	FWQ_EXPECT(t, !fwq_work_pending(&it->rwork.work));
	FWQ_EXPECT(t, atomic_read(&it->runs) <= 1);
	/* the destroy counts the armed item unless the refusal came first */
	if (refused)
		FWQ_EXPECT(t, misuse == 1 || misuse == 2);
	else
		FWQ_EXPECT_EQ(t, misuse, 0);
	kfree(it);
}

FWQ_KTAP_SUITE(fwq_suite_rcu_work, "fwq_rcu_work",
	       FWQT_CASE("rcu_work", test_rcu_work, W),
	       FWQT_CASE("rcu_work_disabled", test_rcu_work_disabled, W),
	       FWQT_CASE("rcu_work_destroyed", test_rcu_work_destroyed, W));
