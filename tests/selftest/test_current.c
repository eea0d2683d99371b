// SPDX-License-Identifier: GPL-2.0
/*
 * What a task asks about fwq's workers (Linux 7.3's current_work() and
 * current_is_workqueue_rescuer()), and workqueue_congested(): the item a
 * worker runs, nothing outside a worker or in an interrupt on one, the
 * rescuer told from a worker, and a pwq with inactive items told from one
 * without; and the self-flush refusal, which takes an item for the
 * running one only if its function is the running one's too.
 */
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

/* what an item saw of itself */
struct cur_item {
	struct fwq_work work;
	struct fwq_work *seen;		/* fwq_current_work() */
	bool rescuer;			/* fwq_current_is_workqueue_rescuer() */
	struct task_struct *task;
	struct completion done;
};

static void cur_item_fn(struct fwq_work *work)
{
	struct cur_item *it = container_of(work, struct cur_item, work);

	it->seen = fwq_current_work();
	it->rescuer = fwq_current_is_workqueue_rescuer();
	it->task = current;
	complete(&it->done);
}

/* a delayed item that records what it saw */
struct cur_ditem {
	struct fwq_delayed_work dw;
	struct fwq_work *seen;
};

static void cur_dwork_fn(struct fwq_work *work)
{
	struct cur_ditem *d = container_of(to_fwq_delayed_work(work),
					   struct cur_ditem, dw);

	d->seen = fwq_current_work();
}

static void cur_body(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		     const char *kind)
{
	struct cur_item it = {};
	struct cur_ditem *d;

	FWQ_INIT_WORK(&it.work, cur_item_fn);
	init_completion(&it.done);
	FWQ_EXPECT(t, fwq_queue_work(wq, &it.work));
	fwqt_wait(t, &it.done, "item");
	fwq_flush_work(&it.work);
	if (!FWQ_EXPECT(t, it.seen == &it.work))
		fwq_ktap_diag("%s: current work %p, the item %p", kind,
			      it.seen, &it.work);
	FWQ_EXPECT(t, !it.rescuer);
	FWQ_EXPECT(t, it.task != current);

	/*
	 * A delayed item is its embedded item once it runs (the flush runs
	 * it). Not on the stack: its timer is set up with timer_setup(),
	 * which debugobjects refuses for an object on the stack.
	 */
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!FWQ_EXPECT(t, d))
		return;
	FWQ_INIT_DELAYED_WORK(&d->dw, cur_dwork_fn);
	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &d->dw, 60 * HZ));
	/* true or false: the item may finish before the flush looks */
	fwq_flush_delayed_work(&d->dw);
	FWQ_EXPECT(t, d->seen == &d->dw.work);
	kfree(d);
}

/*
 * Invariant: an item that asks fwq_current_work() gets itself, on a
 * per-CPU and an unbound workqueue, and is not in a rescuer; the test's
 * own thread gets NULL and is no rescuer.
 */
static void test_current_work(struct fwq_ktap_test *t)
{
	FWQ_EXPECT(t, !fwq_current_work());
	FWQ_EXPECT(t, !fwq_current_is_workqueue_rescuer());
	fwqt_case_percpu_unbound(t, W, FWQ_AFFN_DFL, cur_body);
}

/* an item that asks from a hard interrupt taken on its own worker */
struct cur_irq {
	struct fwq_work work;
	struct irq_work iw;
	struct task_struct *worker;	/* the item's task */
	struct task_struct *irq_task;	/* current in the interrupt */
	struct fwq_work *irq_seen;	/* fwq_current_work() there */
	bool irq_rescuer;
	struct fwq_work *seen;		/* in the item, after the interrupt */
};

static void cur_irq_fn(struct irq_work *iw)
{
	struct cur_irq *c = container_of(iw, struct cur_irq, iw);

	c->irq_task = current;
	c->irq_seen = fwq_current_work();
	c->irq_rescuer = fwq_current_is_workqueue_rescuer();
}

static void cur_irq_item_fn(struct fwq_work *work)
{
	struct cur_irq *c = container_of(work, struct cur_irq, work);

	c->worker = current;
	/* a hard interrupt on this CPU, which interrupts this item */
	irq_work_queue(&c->iw);
	irq_work_sync(&c->iw);
	c->seen = fwq_current_work();
}

/*
 * Invariant: an interrupt taken while an item runs is not running the
 * item: fwq_current_work() there is NULL, though current is the
 * worker, and the item still sees itself afterwards.
 */
static void test_current_work_irq(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct cur_irq *c;

	c = fwqt_case_wq_obj(t, W, FWQ_PERCPU, 0, sizeof(*c), &wq);
	if (!c)
		return;
	FWQ_INIT_WORK(&c->work, cur_irq_item_fn);
	c->iw = IRQ_WORK_INIT_HARD(cur_irq_fn);
	FWQ_EXPECT(t, fwq_queue_work_on(fwqt_random_online_cpu(), wq,
					&c->work));
	fwq_flush_work(&c->work);
	if (c->irq_task != c->worker)
		fwq_ktap_diag("the interrupt ran on %s, not on the worker %s",
			      c->irq_task ? c->irq_task->comm : "-",
			      c->worker ? c->worker->comm : "-");
	FWQ_EXPECT(t, c->irq_task == c->worker);
	FWQ_EXPECT(t, !c->irq_seen);
	FWQ_EXPECT(t, !c->irq_rescuer);
	FWQ_EXPECT(t, c->seen == &c->work);
	fwq_destroy_workqueue(wq);
	kfree(c);
}

#define CUR_RS_ITEMS	24
#define CUR_RS_NICE	7	/* a pool of its own */
#define CUR_RS_KNOB	FWQT_NO_CREATE_KNOB

struct cur_rs_ctx {
	atomic_t done;
	atomic_t by_rescuer;	/* by its comm, "fwq/R-..." */
	atomic_t said_rescuer;	/* fwq_current_is_workqueue_rescuer() */
	atomic_t disagree;	/* the two differ */
	atomic_t wrong_work;	/* fwq_current_work() is not the item */
};

struct cur_rs_item {
	struct fwq_work work;
	struct cur_rs_ctx *c;
};

static void cur_rs_fn(struct fwq_work *work)
{
	struct cur_rs_item *it = container_of(work, struct cur_rs_item, work);
	bool comm = fwqt_current_is_rescuer();
	bool said = fwq_current_is_workqueue_rescuer();

	if (comm)
		atomic_inc(&it->c->by_rescuer);
	if (said)
		atomic_inc(&it->c->said_rescuer);
	if (comm != said)
		atomic_inc(&it->c->disagree);
	if (fwq_current_work() != work)
		atomic_inc(&it->c->wrong_work);
	atomic_inc(&it->c->done);
}

/*
 * Invariant: with worker creation failing, the items of an
 * FWQ_MEM_RECLAIM workqueue that its rescuer runs (by the thread's name)
 * are exactly those for which fwq_current_is_workqueue_rescuer() holds,
 * and there are some; fwq_current_work() is the item in both kinds of
 * thread.
 */
static void test_current_rescuer(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct cur_rs_item *items;
	struct cur_rs_ctx c = {};
	struct fwq_variant v;
	char old[32];
	int i;

	items = fwqt_starve_items(t, old, sizeof(old), &v, CUR_RS_ITEMS,
				  sizeof(*items));
	if (!items)
		return;
	wq = fwqt_alloc_unbound(t, &v, FWQ_MEM_RECLAIM, 0, FWQ_AFFN_SYSTEM,
				CUR_RS_NICE + (int)t->param);
	if (!wq)
		goto out;
	/* the pool's first worker settles into idle */
	fwq_flush_workqueue(wq);
	if (!FWQ_EXPECT(t, fwqt_param_write(CUR_RS_KNOB, "1") > 0))
		goto out;
	for (i = 0; i < CUR_RS_ITEMS; i++) {
		FWQ_INIT_WORK(&items[i].work, cur_rs_fn);
		items[i].c = &c;
		FWQ_EXPECT(t, fwq_queue_work(wq, &items[i].work));
	}
	fwqt_wait_atomic(t, &c.done, CUR_RS_ITEMS,
			 "MEM_RECLAIM items while creation fails");
	fwqt_param_restore(CUR_RS_KNOB, old);
	fwq_flush_workqueue(wq);
	fwq_ktap_diag("%d items, %d by rescuer, %d said so, %d disagree, %d bad current_work",
		      atomic_read(&c.done), atomic_read(&c.by_rescuer),
		      atomic_read(&c.said_rescuer), atomic_read(&c.disagree),
		      atomic_read(&c.wrong_work));
	FWQ_EXPECT_EQ(t, atomic_read(&c.done), CUR_RS_ITEMS);
	FWQ_EXPECT(t, atomic_read(&c.by_rescuer) > 0);
	FWQ_EXPECT_EQ(t, atomic_read(&c.disagree), 0);
	FWQ_EXPECT_EQ(t, atomic_read(&c.wrong_work), 0);
out:
	fwqt_param_restore(CUR_RS_KNOB, old);
	fwqt_destroy_wq(wq);
	kfree(items);
}

/* another online CPU than @cpu, or -1 */
static int cur_other_cpu(int cpu)
{
	int o;

	for_each_online_cpu(o)
		if (o != cpu)
			return o;
	return -1;
}

/*
 * Invariant: a workqueue is congested on a CPU exactly while an item
 * queued there waits for an active slot: max_active 1, one item running
 * is not congestion, a second one queued behind it is, on its CPU only:
 * as in 7.3, every CPU has a pwq of its own, on an unbound workqueue
 * too (here with one pod and one active slot for all CPUs); once both
 * ran it is not.
 */
static void test_congested(struct fwq_ktap_test *t)
{
	struct fwqt_blocker head, next;
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	int pass, cpu, other;

	fwqt_variant(t, &v, W);
	for (pass = 0; pass < 2; pass++) {
		bool percpu = pass == 0;

		wq = percpu ? fwqt_alloc_wq(t, &v, FWQ_PERCPU, 1) :
			fwqt_alloc_unbound(t, &v, 0, 1, FWQ_AFFN_SYSTEM, 0);
		if (!wq)
			return;
		fwqt_blocker_init(&head);
		fwqt_blocker_init_open(&next);
		cpu = fwqt_random_online_cpu();
		other = cur_other_cpu(cpu);
		FWQ_EXPECT(t, !fwq_workqueue_congested(cpu, wq));
		FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &head.work));
		fwqt_wait(t, &head.started, "head start");
		FWQ_EXPECT(t, !fwq_workqueue_congested(cpu, wq));
		FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &next.work));
		if (!FWQ_EXPECT(t, fwq_workqueue_congested(cpu, wq)))
			fwq_ktap_diag("%s: not congested on CPU %d",
				      percpu ? "percpu" : "unbound", cpu);
		/* every CPU has a pwq of its own, unbound ones too (7.3) */
		if (other >= 0)
			FWQ_EXPECT(t, !fwq_workqueue_congested(other, wq));
		fwqt_blocker_open(&head);
		fwq_flush_workqueue(wq);
		FWQ_EXPECT_EQ(t, atomic_read(&next.done), 1);
		FWQ_EXPECT(t, !fwq_workqueue_congested(cpu, wq));
		FWQ_EXPECT(t, !fwq_workqueue_congested(FWQ_CPU_UNBOUND, wq));
		fwq_destroy_workqueue(wq);
	}
}

/*
 * Invariant: a CPU out of range or a NULL workqueue is refused: false,
 * counted once each as misuse.
 */
static void test_congested_bad(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	long long misuse;

	wq = fwqt_case_wq(t, W, FWQ_PERCPU, 0);
	if (!wq)
		return;
	misuse = fwqt_debug_counter("misuse");
	FWQ_EXPECT(t, !fwq_workqueue_congested(nr_cpu_ids, wq));
	FWQ_EXPECT(t, !fwq_workqueue_congested(-2, wq));
	FWQ_EXPECT(t, !fwq_workqueue_congested(0, NULL));
	FWQ_EXPECT_EQ(t, fwqt_debug_counter("misuse"), misuse + 3);
	fwq_destroy_workqueue(wq);
}

/* an item whose memory is reused, while it runs, for another item */
struct cur_reuse {
	struct fwq_work work;
	struct fwq_workqueue *wq;
	bool queued;
	bool flushed;
	atomic_t reused_runs;
	int runs_at_flush;	/* reused_runs when the flush returned */
	struct completion done;
};

static void cur_reused_fn(struct fwq_work *work)
{
	struct cur_reuse *r = container_of(work, struct cur_reuse, work);

	atomic_inc(&r->reused_runs);
}

static void cur_reuse_first_fn(struct fwq_work *work)
{
	struct cur_reuse *r = container_of(work, struct cur_reuse, work);

	/* as if the item were freed and its memory given to a new item */
	FWQ_INIT_WORK(&r->work, cur_reused_fn);
	r->queued = fwq_queue_work(r->wq, &r->work);
	r->flushed = fwq_flush_work(&r->work);
	r->runs_at_flush = atomic_read(&r->reused_runs);
	complete(&r->done);
}

/*
 * Invariant (7.3 compares the function as well as the address): an item
 * that flushes an item at its own address but with another function is
 * not flushing itself; the flush waits for that item to run, nothing is
 * refused or counted as misuse.
 */
static void test_self_flush_reused(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct cur_reuse *r;
	long long misuse;

	r = fwqt_case_wq_obj(t, W, FWQ_UNBOUND, 0, sizeof(*r), &wq);
	if (!r)
		return;
	r->wq = wq;
	FWQ_INIT_WORK(&r->work, cur_reuse_first_fn);
	init_completion(&r->done);
	misuse = fwqt_debug_counter("misuse");
	FWQ_EXPECT(t, fwq_queue_work(r->wq, &r->work));
	fwqt_wait(t, &r->done, "the first item");
	fwq_flush_workqueue(r->wq);
	FWQ_EXPECT(t, r->queued);
	FWQ_EXPECT(t, r->flushed);
	FWQ_EXPECT_EQ(t, r->runs_at_flush, 1);
	FWQ_EXPECT_EQ(t, atomic_read(&r->reused_runs), 1);
	FWQ_EXPECT_EQ(t, fwqt_debug_counter("misuse"), misuse);
	fwq_destroy_workqueue(r->wq);
	kfree(r);
}

FWQ_KTAP_SUITE(fwq_suite_current, "fwq_current",
	       FWQT_CASE("current_work", test_current_work, W),
	       FWQT_CASE("current_work_irq", test_current_work_irq, W),
	       FWQT_CASE("current_rescuer", test_current_rescuer, W),
	       FWQT_CASE("congested", test_congested, W),
	       FWQT_CASE("congested_bad", test_congested_bad, W),
	       FWQT_CASE("self_flush_reused", test_self_flush_reused, W));
