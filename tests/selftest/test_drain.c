// SPDX-License-Identifier: GPL-2.0
/*
 * Drain and destroy (H16): drain_workqueue accepts
 * chained queueing from the workqueue's own items and returns only when
 * everything, chains included, has run; afterwards the workqueue takes
 * work again. destroy_workqueue runs every pending (non-delayed) item
 * before it returns. Runs per flush variant: drain repeats flushes.
 *
 * Foreign queueing during a drain is rejected (one log line, no WARN):
 * from a task, and from a hard interrupt that lands on a worker while it
 * runs one of the workqueue's own items, which is not chained work.
 *
 * Not tested on purpose: destroying a workqueue with an armed delayed
 * item, a user bug that WARNs (and the test VM panics on WARN).
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
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
		      const char *kind)
{
	struct chain_item extra = {};
	struct chain_ctx *c;
	int i, short_chains = 0, failed = 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c))
		return;
	c->wq = wq;
	c->percpu = fwqt_kind_is_percpu(kind);
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
	fwqt_case_percpu_unbound(t, F, FWQ_AFFN_DFL, drain_run);
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

struct irq_ctx {
	struct fwq_workqueue *wq;
	struct fwq_work host;		/* the wq's own item the IRQ lands on */
	struct fwq_work probe;		/* foreign, from the test thread */
	struct fwq_work from_irq;	/* queued by the hrtimer */
	struct completion host_started;
	struct completion go;		/* the drain has begun */
	struct hrtimer timer;
	struct task_struct *host_task;	/* current in the host item */
	struct task_struct *irq_current;	/* current in the hrtimer */
	bool fired;
	bool irq_queued;		/* fwq_queue_work_on's answer in IRQ */
	bool irq_in_task;
	int cpu;
};

/* probe and from_irq: only whether they were accepted matters */
static void irq_nop_fn(struct fwq_work *work)
{
}

static enum hrtimer_restart irq_timer_fn(struct hrtimer *timer)
{
	struct irq_ctx *c = container_of(timer, struct irq_ctx, timer);

	c->irq_current = current;
	c->irq_in_task = in_task();
	c->irq_queued = fwq_queue_work_on(c->cpu, c->wq, &c->from_irq);
	/* publishes the fields above to the host item's acquire */
	smp_store_release(&c->fired, true);
	return HRTIMER_NORESTART;
}

static void irq_host_fn(struct fwq_work *work)
{
	struct irq_ctx *c = container_of(work, struct irq_ctx, host);
	unsigned long deadline;

	c->host_task = current;
	complete(&c->host_started);
	wait_for_completion(&c->go);
	/*
	 * With preemption off, the timer's interrupt can only land on this
	 * item's worker (the pool is per-CPU and its workers are bound).
	 * The deadline only keeps a lost timer from hanging the test.
	 */
	deadline = jiffies + 10 * HZ;
	preempt_disable();
	hrtimer_start(&c->timer, ns_to_ktime(1000), HRTIMER_MODE_REL_PINNED_HARD);
	/* pairs with the timer's release of its results */
	while (!smp_load_acquire(&c->fired) && time_before(jiffies, deadline))
		cpu_relax();
	preempt_enable();
	hrtimer_cancel(&c->timer);
}

static void irq_drain(void *p)
{
	struct irq_ctx *c = p;

	fwq_drain_workqueue(c->wq);
}

static void irq_unstick(void *p)
{
	struct irq_ctx *c = p;

	complete_all(&c->go);
}

/*
 * Invariant: a hard interrupt on a worker that runs one of the workqueue's
 * items is not that item: its queueing to the draining workqueue is
 * rejected, like any foreign queueing (mainline's current_wq_worker() is
 * NULL outside task context). The timer's current is checked to be the
 * item's worker, so the case cannot pass without exercising the check.
 */
static void test_drain_rejects_irq(struct fwq_ktap_test *t)
{
	struct fwqt_thread th;
	struct irq_ctx *c;
	int tries = 0;
	bool rejected = false;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c))
		return;
	c->wq = fwq_alloc_workqueue("fwqt_drain_irq", 0, 0);
	if (!FWQ_EXPECT(t, c->wq)) {
		kfree(c);
		return;
	}
	FWQ_INIT_WORK(&c->host, irq_host_fn);
	FWQ_INIT_WORK(&c->probe, irq_nop_fn);
	FWQ_INIT_WORK(&c->from_irq, irq_nop_fn);
	init_completion(&c->host_started);
	init_completion(&c->go);
	fwq_hrtimer_setup(&c->timer, irq_timer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_HARD);
	c->cpu = fwqt_random_online_cpu();

	FWQ_EXPECT(t, fwq_queue_work_on(c->cpu, c->wq, &c->host));
	if (!fwqt_wait(t, &c->host_started, "host item start"))
		goto out_go;
	if (fwqt_thread_start(&th, irq_drain, c, -1, "drain")) {
		FWQ_EXPECT(t, !"kthread");
		goto out_go;
	}
	/*
	 * The drain has begun once foreign queueing is rejected; until then
	 * a probe is accepted, runs and is tried again.
	 */
	while (tries++ < 10000) {
		if (!fwq_queue_work(c->wq, &c->probe)) {
			rejected = true;
			break;
		}
		fwq_flush_work(&c->probe);
		usleep_range(500, 1000);
	}
	FWQ_EXPECT(t, rejected);
	complete_all(&c->go);
	fwqt_thread_join(t, &th, irq_unstick, c, "drain_workqueue");

	FWQ_EXPECT(t, c->fired);
	FWQ_EXPECT(t, !c->irq_in_task);
	/* the interrupt landed on the host item's worker */
	FWQ_EXPECT(t, c->irq_current == c->host_task);
	fwq_ktap_diag("timer %s, in %s, queueing from it %s",
		      c->fired ? "fired" : "did not fire",
		      c->irq_current == c->host_task ? "the host item's worker" :
		      "another task",
		      c->irq_queued ? "accepted" : "rejected");
	FWQ_EXPECT(t, !c->irq_queued);
	FWQ_EXPECT(t, !fwq_work_pending(&c->from_irq));
	fwq_destroy_workqueue(c->wq);
	kfree(c);
	return;
out_go:
	complete_all(&c->go);
	fwq_destroy_workqueue(c->wq);
	kfree(c);
}

FWQ_KTAP_SUITE(fwq_suite_drain, "fwq_drain",
	       FWQT_CASE("drain_with_chained_work", test_drain_chained, F),
	       FWQT_CASE("destroy_runs_pending_work", test_destroy_pending, F),
	       { .name = "drain_rejects_irq_queueing",
		 .run = test_drain_rejects_irq });
