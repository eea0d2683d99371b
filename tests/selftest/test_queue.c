// SPDX-License-Identifier: GPL-2.0
/*
 * Queueing semantics (H16): every successful queue runs
 * the item exactly once, queueing a pending item returns false, a requeue
 * from inside the function runs again, and an item never runs on two
 * workers at once.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/nodemask.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define EO_ITEMS	64
#define EO_PRODUCERS	4
#define EO_ROUNDS	250

struct eo_item {
	struct fwq_work work;
	atomic_t queued;	/* successful queue calls */
	atomic_t runs;		/* executions */
};

struct eo_ctx {
	struct fwq_workqueue *wq;
	struct eo_item *items;
	atomic_t total_queued;
};

static void eo_fn(struct fwq_work *work)
{
	struct eo_item *it = container_of(work, struct eo_item, work);

	atomic_inc(&it->runs);
}

static void eo_producer(void *arg)
{
	struct eo_ctx *ctx = arg;
	int i;

	for (i = 0; i < EO_ROUNDS; i++) {
		struct eo_item *it = &ctx->items[get_random_u32_below(EO_ITEMS)];
		int cpu = fwqt_random_online_cpu();

		if (fwq_queue_work_on(cpu, ctx->wq, &it->work)) {
			atomic_inc(&it->queued);
			atomic_inc(&ctx->total_queued);
		}
		if (!(i % 16))
			cond_resched();
	}
}

static void eo_run_one(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		       const char *kind)
{
	struct fwqt_thread th[EO_PRODUCERS];
	struct fwq_wq_stats st;
	struct eo_ctx ctx = { .wq = wq };
	int i, bad = 0;

	ctx.items = kcalloc(EO_ITEMS, sizeof(*ctx.items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, ctx.items))
		return;
	for (i = 0; i < EO_ITEMS; i++)
		FWQ_INIT_WORK(&ctx.items[i].work, eo_fn);
	atomic_set(&ctx.total_queued, 0);

	for (i = 0; i < EO_PRODUCERS; i++)
		if (fwqt_thread_start(&th[i], eo_producer, &ctx, -1, "eo"))
			th[i].task = NULL;
	for (i = 0; i < EO_PRODUCERS; i++)
		fwqt_thread_join(t, &th[i], NULL, NULL, "producer");
	fwq_flush_workqueue(wq);

	for (i = 0; i < EO_ITEMS; i++) {
		struct eo_item *it = &ctx.items[i];

		if (atomic_read(&it->runs) != atomic_read(&it->queued)) {
			if (bad++ < 4)
				fwq_ktap_diag("%s: item %d queued %d times, ran %d",
					      kind, i, atomic_read(&it->queued),
					      atomic_read(&it->runs));
		}
		FWQ_EXPECT(t, !fwq_work_pending(&it->work));
	}
	FWQ_EXPECT_EQ(t, bad, 0);
	FWQ_EXPECT(t, atomic_read(&ctx.total_queued) > 0);

	/* The counters agree with what the test saw. */
	fwq_workqueue_get_stats(wq, &st);
	FWQ_EXPECT_EQ(t, st.queued, atomic_read(&ctx.total_queued));
	FWQ_EXPECT_EQ(t, st.started, st.queued);
	FWQ_EXPECT_EQ(t, st.completed, st.queued);
	kfree(ctx.items);
}

/*
 * Invariant (H16): every queue call that returned true leads to
 * exactly one execution, with producers on several CPUs racing to queue the
 * same items to random CPUs; the started/completed counters agree.
 */
static void test_exactly_once(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, WK, FWQ_AFFN_DFL, eo_run_one);
}

struct requeue_item {
	struct fwq_work work;
	atomic_t runs;
	bool requeue_ret;
	struct fwq_workqueue *wq;
};

static void requeue_fn(struct fwq_work *work)
{
	struct requeue_item *r = container_of(work, struct requeue_item, work);

	/* PENDING is clear once the function runs: a requeue succeeds. */
	if (atomic_inc_return(&r->runs) == 1)
		r->requeue_ret = fwq_queue_work(r->wq, &r->work);
}

/*
 * Invariant: queueing a pending item returns false and does not
 * queue it twice; fwq_work_pending/fwq_work_busy report it; once the
 * function runs, PENDING is clear and a requeue from inside succeeds and
 * runs again.
 */
static void test_pending_returns_false(struct fwq_ktap_test *t)
{
	struct fwqt_blocker blk;
	struct requeue_item r = {};
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	struct eo_item xi = {};
	int cpu, other;

	fwqt_variant(t, &v, W);
	/* per-CPU with max_active 1: x stays queued behind the blocker */
	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 1);
	if (!wq)
		return;
	FWQ_INIT_WORK(&xi.work, eo_fn);
	fwqt_blocker_init(&blk);
	cpu = fwqt_random_online_cpu();
	other = cpumask_next(cpu, cpu_online_mask);
	if (other >= nr_cpu_ids)
		other = cpumask_first(cpu_online_mask);

	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &blk.work));
	if (fwqt_wait(t, &blk.started, "blocker start"))
		FWQ_EXPECT(t, fwq_work_busy(&blk.work) & FWQ_BUSY_RUNNING);

	FWQ_EXPECT(t, !fwq_work_pending(&xi.work));
	FWQ_EXPECT_EQ(t, fwq_work_busy(&xi.work), 0);
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &xi.work));
	FWQ_EXPECT(t, fwq_work_pending(&xi.work));
	FWQ_EXPECT(t, fwq_work_busy(&xi.work) & FWQ_BUSY_PENDING);
	FWQ_EXPECT(t, !fwq_queue_work_on(cpu, wq, &xi.work));
	FWQ_EXPECT(t, !fwq_queue_work_on(other, wq, &xi.work));
	FWQ_EXPECT(t, !fwq_queue_work(wq, &xi.work));
	/* the blocker occupies the only active slot of this CPU */
	FWQ_EXPECT_EQ(t, atomic_read(&xi.runs), 0);

	fwqt_blocker_open(&blk);
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&xi.runs), 1);
	FWQ_EXPECT_EQ(t, atomic_read(&blk.runs), 1);
	FWQ_EXPECT(t, !fwq_work_pending(&xi.work));

	/* requeue from inside the function */
	FWQ_INIT_WORK(&r.work, requeue_fn);
	r.wq = wq;
	FWQ_EXPECT(t, fwq_queue_work(wq, &r.work));
	fwq_flush_workqueue(wq);
	fwq_flush_workqueue(wq);
	FWQ_EXPECT(t, r.requeue_ret);
	FWQ_EXPECT_EQ(t, atomic_read(&r.runs), 2);

	fwq_destroy_workqueue(wq);
}

#define NR_PRODUCERS	3
#define NR_ROUNDS	300

static void nr_producer(void *arg)
{
	struct fwqt_hopper *c = arg;
	int i;

	for (i = 0; i < NR_ROUNDS; i++) {
		fwq_queue_work_on(fwqt_random_online_cpu(), c->wq, &c->work);
		if (i % 8)
			fwqt_spin_us(20);
		else
			cond_resched();
	}
}

static void nr_run_one(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		       const char *kind)
{
	struct fwqt_thread th[NR_PRODUCERS];
	struct fwqt_hopper *c;
	int i;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c))
		return;
	/*
	 * Half of its runs requeue it to a random CPU; it stays running long
	 * enough for requeues from other CPUs to land.
	 */
	fwqt_hopper_init(c, wq, 30, 30, 50);
	for (i = 0; i < NR_PRODUCERS; i++)
		if (fwqt_thread_start(&th[i], nr_producer, c, -1, "nr"))
			th[i].task = NULL;
	for (i = 0; i < NR_PRODUCERS; i++)
		fwqt_thread_join(t, &th[i], NULL, NULL, "producer");
	/*
	 * The item was queued at least once: let that run finish before the
	 * cancel, which would otherwise take a still pending item off the
	 * list (0 runs) when the pool's worker had no CPU time during the
	 * producers' loop on a loaded host.
	 */
	fwq_flush_work(&c->work);
	WRITE_ONCE(c->stop, true);
	/* a self-requeue may race with the stop: flush until quiet */
	fwq_cancel_work_sync(&c->work);
	fwq_flush_workqueue(wq);

	fwq_ktap_diag("%s: %d runs, %d self-requeues, max concurrent %d", kind,
		      atomic_read(&c->runs), atomic_read(&c->requeued),
		      atomic_read(&c->max_running));
	FWQ_EXPECT(t, atomic_read(&c->runs) > 0);
	FWQ_EXPECT_EQ(t, atomic_read(&c->max_running), 1);
	FWQ_EXPECT_EQ(t, atomic_read(&c->running), 0);
	kfree(c);
}

/*
 * Invariant (H16): one work item is never executed by two workers at
 * once, when it is requeued while running, from its own function and from
 * producers on other CPUs, to random CPUs: per-CPU pools, and unbound pools
 * with one pod per CPU (cross-pool, the last_pool redirect).
 */
static void test_non_reentrant(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;

	fwqt_variant(t, &v, W);
	fwqt_run_percpu_unbound(t, &v, FWQ_AFFN_CPU, nr_run_one);
	wq = fwqt_alloc_unbound(t, &v, 0, 0, FWQ_AFFN_SYSTEM, 0);
	if (wq) {
		nr_run_one(t, wq, "unbound,scope=system");
		fwq_destroy_workqueue(wq);
	}
}

/*
 * Invariant: fwq_queue_work_node() runs the item once for every online node
 * and for NUMA_NO_NODE.
 */
static void test_queue_node(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	struct eo_item it = {};
	int node, expect = 0;

	fwq_default_variant(&v);
	wq = fwqt_alloc_wq(t, &v, FWQ_UNBOUND, 0);
	if (!wq)
		return;
	FWQ_INIT_WORK(&it.work, eo_fn);
	for_each_online_node(node) {
		FWQ_EXPECT(t, fwq_queue_work_node(node, wq, &it.work));
		expect++;
		fwq_flush_workqueue(wq);
	}
	FWQ_EXPECT(t, fwq_queue_work_node(NUMA_NO_NODE, wq, &it.work));
	expect++;
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&it.runs), expect);
	fwq_destroy_workqueue(wq);
}

/*
 * Invariant: misuse gets an error, not a crash or a WARN: an out-of-range
 * variant makes fwq_alloc_workqueue_variant() return NULL.
 */
static void test_alloc_bad_variant(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;

	fwq_default_variant(&v);
	v.wake = FWQ_WAKE_NR;
	wq = fwq_alloc_workqueue_variant(&v, "fwqt-bad", FWQ_UNBOUND, 0);
	FWQ_EXPECT(t, !wq);
	fwqt_destroy_wq(wq);

	fwq_default_variant(&v);
	v.flush = FWQ_FLUSH_NR + 3;
	wq = fwq_alloc_workqueue_variant(&v, "fwqt-bad", 0, 0);
	FWQ_EXPECT(t, !wq);
	fwqt_destroy_wq(wq);
}

FWQ_KTAP_SUITE(fwq_suite_queue, "fwq_queue",
	       FWQT_CASE("queued_item_runs_exactly_once",
			 test_exactly_once, WK),
	       FWQT_CASE("queue_pending_returns_false",
			 test_pending_returns_false, W),
	       FWQT_CASE("non_reentrant", test_non_reentrant, W),
	       { .name = "queue_work_node_runs", .run = test_queue_node },
	       { .name = "alloc_rejects_bad_variant",
		 .run = test_alloc_bad_variant });
