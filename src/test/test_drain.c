// SPDX-License-Identifier: GPL-2.0
/*
 * Drain and destroy (H16): drain_workqueue accepts
 * chained queueing from the workqueue's own items and returns only when
 * everything, chains included, has run; afterwards the workqueue takes
 * work again. destroy_workqueue runs every pending (non-delayed) item
 * before it returns. Runs per flush variant: drain repeats flushes.
 *
 * Not tested on purpose: foreign queueing during a drain, and destroying a
 * workqueue with an armed delayed item. Both are user bugs that WARN, and
 * the test VM panics on WARN.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define DR_CHAINS	8
#define DR_LEN		50	/* runs per chain */

struct chain_ctx;

struct chain_item {
	struct fwq_work work;
	struct chain_ctx *c;
	int idx;
	atomic_t runs;
	bool queue_failed;
};

struct chain_ctx {
	struct fwq_workqueue *wq;
	bool percpu;
	struct chain_item items[DR_CHAINS];
	/* the other half of each chain hops to a sibling item */
	struct chain_item hops[DR_CHAINS];
	atomic_t len[DR_CHAINS];	/* runs of each chain so far */
	bool stop;			/* cleanup: chain no further */
};

static void chain_fn(struct fwq_work *work)
{
	struct chain_item *it = container_of(work, struct chain_item, work);
	struct chain_ctx *c = it->c;
	struct chain_item *next;
	bool is_hop;
	int cpu;

	atomic_inc(&it->runs);
	if (!c)
		return;		/* a lone item, not part of a chain */
	if (atomic_inc_return(&c->len[it->idx]) >= DR_LEN ||
	    READ_ONCE(c->stop))
		return;
	/* a chain alternates between its item and its hop */
	is_hop = it >= c->hops && it < c->hops + DR_CHAINS;
	next = is_hop ? &c->items[it->idx] : &c->hops[it->idx];
	cpu = c->percpu ? fwqt_random_online_cpu() : FWQ_CPU_UNBOUND;
	if (get_random_u32_below(4) == 0)
		fwqt_spin_us(20);
	/* chained queueing: from an item of the same wq, accepted in drain */
	if (!fwq_queue_work_on(cpu, c->wq, &next->work))
		it->queue_failed = true;
}

/*
 * After a failed drain the chains may still run: stop them before their
 * memory goes. An item that read c->stop before it was set may still queue
 * its partner during the first pass; the second pass cancels that one.
 */
static void drain_stop_chains(struct chain_ctx *c)
{
	int pass, i;

	WRITE_ONCE(c->stop, true);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < DR_CHAINS; i++) {
			fwq_cancel_work_sync(&c->items[i].work);
			fwq_cancel_work_sync(&c->hops[i].work);
		}
	}
}

static void drain_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		      bool percpu, const char *kind)
{
	struct chain_item extra = {};
	struct chain_ctx *c;
	int i, short_chains = 0, failed = 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c))
		return;
	c->wq = wq;
	c->percpu = percpu;
	for (i = 0; i < DR_CHAINS; i++) {
		FWQ_INIT_WORK(&c->items[i].work, chain_fn);
		FWQ_INIT_WORK(&c->hops[i].work, chain_fn);
		c->items[i].c = c;
		c->hops[i].c = c;
		c->items[i].idx = i;
		c->hops[i].idx = i;
	}
	for (i = 0; i < DR_CHAINS; i++)
		FWQ_EXPECT(t, fwq_queue_work(wq, &c->items[i].work));
	fwq_drain_workqueue(wq);

	for (i = 0; i < DR_CHAINS; i++) {
		if (atomic_read(&c->len[i]) != DR_LEN ||
		    atomic_read(&c->items[i].runs) +
		    atomic_read(&c->hops[i].runs) != DR_LEN) {
			if (short_chains++ < 4)
				fwq_ktap_diag("%s: chain %d: %d of %d runs at drain return",
					      kind, i, atomic_read(&c->len[i]),
					      DR_LEN);
		}
		failed += c->items[i].queue_failed + c->hops[i].queue_failed;
		FWQ_EXPECT(t, !fwq_work_pending(&c->items[i].work));
		FWQ_EXPECT(t, !fwq_work_pending(&c->hops[i].work));
	}
	FWQ_EXPECT_EQ(t, short_chains, 0);
	FWQ_EXPECT_EQ(t, failed, 0);
	if (short_chains)
		drain_stop_chains(c);

	/* the drain is over: the workqueue accepts foreign work again */
	FWQ_INIT_WORK(&extra.work, chain_fn);
	FWQ_EXPECT(t, fwq_queue_work(wq, &extra.work));
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&extra.runs), 1);
	kfree(c);
}

/*
 * Invariant (H16): drain_workqueue returns only when every chain of
 * items (each queueing the next from its own function, to random CPUs) has
 * run to its end; chained queueing is accepted during the drain; the
 * workqueue takes new work after the drain.
 */
static void test_drain_chained(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;

	fwqt_variant(t, &v, F);
	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 0);
	if (wq) {
		drain_run(t, wq, true, "percpu");
		fwq_destroy_workqueue(wq);
	}
	wq = fwqt_alloc_wq(t, &v, FWQ_UNBOUND, 0);
	if (wq) {
		drain_run(t, wq, false, "unbound");
		fwq_destroy_workqueue(wq);
	}
}

#define DS_ITEMS	16

struct ds_ctx {
	struct fwq_workqueue *wq;
	struct fwqt_blocker head;
	struct fwqt_blocker items[DS_ITEMS];
};

static void ds_destroy(void *p)
{
	struct ds_ctx *c = p;

	fwq_destroy_workqueue(c->wq);
}

static void ds_unstick(void *p)
{
	struct ds_ctx *c = p;

	fwqt_blocker_open(&c->head);
}

static void destroy_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
			const char *kind)
{
	struct fwqt_thread th;
	struct ds_ctx *c;
	int i, cpu, ran = 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c)) {
		fwq_destroy_workqueue(wq);
		return;
	}
	c->wq = wq;
	cpu = fwqt_random_online_cpu();
	fwqt_blocker_init(&c->head);
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &c->head.work));
	fwqt_wait(t, &c->head.started, "head start");
	/* max_active 1: these stay pending behind the head */
	for (i = 0; i < DS_ITEMS; i++) {
		fwqt_blocker_init(&c->items[i]);
		fwqt_blocker_open(&c->items[i]);
		FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &c->items[i].work));
	}
	if (fwqt_thread_start(&th, ds_destroy, c, -1, "destroy")) {
		FWQ_EXPECT(t, !"kthread");
		fwqt_blocker_open(&c->head);
		fwq_destroy_workqueue(wq);
		kfree(c);
		return;
	}
	/* Not a timing check: destroy must wait for the pending items. */
	FWQ_EXPECT(t, !fwqt_done_within(&th.done, 50));
	fwqt_blocker_open(&c->head);
	fwqt_thread_join(t, &th, ds_unstick, c, "destroy_workqueue");
	for (i = 0; i < DS_ITEMS; i++)
		ran += atomic_read(&c->items[i].done);
	fwq_ktap_diag("%s: %d of %d pending items ran before destroy returned",
		      kind, ran, DS_ITEMS);
	FWQ_EXPECT_EQ(t, ran, DS_ITEMS);
	FWQ_EXPECT_EQ(t, atomic_read(&c->head.done), 1);
	kfree(c);
}

/*
 * Invariant: destroy_workqueue with pending (non-delayed) items
 * runs them all before it returns, per-CPU and unbound.
 */
static void test_destroy_pending(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;

	fwqt_variant(t, &v, F);
	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 1);
	if (wq)
		destroy_run(t, wq, "percpu");
	wq = fwqt_alloc_wq(t, &v, FWQ_UNBOUND, 1);
	if (wq)
		destroy_run(t, wq, "unbound");
}

static const struct fwq_ktap_case drain_cases[] = {
	FWQT_CASE("drain_with_chained_work", test_drain_chained, F),
	FWQT_CASE("destroy_runs_pending_work", test_destroy_pending, F),
	{}
};

const struct fwq_ktap_suite fwq_suite_drain = {
	.name = "fwq_drain",
	.cases = drain_cases,
};
