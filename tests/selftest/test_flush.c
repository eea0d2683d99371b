// SPDX-License-Identifier: GPL-2.0
/*
 * Flushing (hazards H8–H10, H16): flush_work waits for
 * the last queueing instance, pending or running; flush_workqueue waits for
 * everything queued before it started, also on pwqs that were idle at the
 * previous flush (the retired colour race) and across colour wrap; it is
 * not livelocked by later queueing; more than 16 concurrent flushers
 * (overflow) all complete correctly.
 *
 * Every case runs once per flush variant (each, coalesce, active): that is
 * the axis that changes the flush walk.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

/* How long a correct flush must keep waiting before we let it go. */
#define FLUSH_HOLD_MS	50

/* ---- flush_work ---- */

/*
 * Check that fwq_flush_work(@work) in a helper thread stays blocked while
 * @gate is closed, returns true once it opens, and that @work had finished
 * by then (its done count is @done after the return).
 */
static void fw_check_waits(struct fwq_ktap_test *t, struct fwqt_blocker *gate,
			   struct fwq_work *work, atomic_t *done,
			   const char *what)
{
	struct fwqt_call c;

	if (fwqt_call_start(t, &c, fwq_flush_work, work, gate, "flush_work"))
		return;
	/*
	 * Hold the gate only once the thread is at the call: on a loaded
	 * host it may not have run yet, and a flush that starts after the
	 * item finished rightly returns false.
	 */
	fwqt_wait_atomic(t, &c.entered, 1, "flush_work entry");
	/* Not a timing check: a correct flush never returns here. */
	if (!FWQ_EXPECT(t, !fwqt_done_within(&c.th.done, FLUSH_HOLD_MS)))
		fwq_ktap_diag("%s: flush_work returned while the item was blocked",
			      what);
	fwqt_call_finish(t, &c, "flush_work");
	FWQ_EXPECT(t, c.ret);
	if (!FWQ_EXPECT(t, atomic_read(done) >= 1))
		fwq_ktap_diag("%s: flush_work returned before the item finished",
			      what);
}

/*
 * Invariant: flush_work returns true iff the last queueing instance
 * was pending or running at the call, and on return that instance has
 * finished. It waits for an executing instance even when none is pending,
 * and for a pending instance queued behind another item. An idle item
 * gives false at once.
 */
static void test_flush_work_waits(struct fwq_ktap_test *t)
{
	struct fwqt_blocker run, head, pend;
	struct fwq_workqueue *wq;
	int cpu;

	wq = fwqt_case_wq(t, F, FWQ_PERCPU, 1);
	if (!wq)
		return;

	/* idle: never queued */
	fwqt_blocker_init(&run);
	FWQ_EXPECT(t, !fwq_flush_work(&run.work));

	/* running, not pending */
	FWQ_EXPECT(t, fwq_queue_work(wq, &run.work));
	if (fwqt_wait(t, &run.started, "item start")) {
		FWQ_EXPECT(t, !fwq_work_pending(&run.work));
		fw_check_waits(t, &run, &run.work, &run.done, "running");
	}
	fwqt_blocker_open(&run);
	fwq_flush_workqueue(wq);
	/* finished: idle again */
	FWQ_EXPECT(t, !fwq_flush_work(&run.work));

	/* pending behind another item (max_active 1 on this CPU) */
	fwqt_blocker_init(&head);
	fwqt_blocker_init(&pend);
	cpu = fwqt_random_online_cpu();
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &head.work));
	fwqt_wait(t, &head.started, "head start");
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &pend.work));
	fwqt_blocker_open(&pend);	/* pend itself does not block */
	fw_check_waits(t, &head, &pend.work, &pend.done, "pending");
	FWQ_EXPECT_EQ(t, atomic_read(&pend.runs), 1);
	fwqt_blocker_open(&head);

	fwq_destroy_workqueue(wq);
}

/* ---- flush_workqueue: the retired colour pattern (H8), deterministic ---- */

/*
 * For every online CPU: flush F1 while the CPU's pwq is idle, then queue a
 * blocked item I to that pwq, then flush F2. F2 must wait for I. Repeating
 * it on one CPU many times drives the colours around the 16-colour wheel.
 */
static void h8_pattern(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		       const char *kind)
{
	int cpu, round, bad = 0, n = 0;

	for (round = 0; round < 2; round++) {
		for_each_online_cpu(cpu) {
			struct fwqt_blocker item;
			struct fwqt_thread th;

			fwqt_blocker_init(&item);
			fwq_flush_workqueue(wq);		/* F1 */
			if (!FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq,
							     &item.work)))
				continue;
			if (fwqt_thread_start(&th, fwqt_flush_wq_fn, wq, -1,
					      "F2")) {
				fwqt_blocker_open(&item);
				fwq_flush_workqueue(wq);
				continue;
			}
			if (fwqt_done_within(&th.done, FLUSH_HOLD_MS)) {
				if (bad++ < 4)
					fwq_ktap_diag("%s: cpu %d round %d: flush returned early",
						      kind, cpu, round);
			}
			fwqt_blocker_open(&item);
			fwqt_thread_join(t, &th, NULL, NULL, "F2");
			fwq_flush_workqueue(wq);
			n++;
		}
	}
	/* colour wrap: 40 flushes with one item in flight on one CPU */
	cpu = fwqt_random_online_cpu();
	for (round = 0; round < 40; round++) {
		struct fwqt_blocker item;

		fwqt_blocker_init(&item);
		fwqt_blocker_open(&item);
		FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &item.work));
		fwq_flush_workqueue(wq);
		if (!atomic_read(&item.done) && bad++ < 4)
			fwq_ktap_diag("%s: wrap round %d: item not done after flush",
				      kind, round);
		/* an empty flush in between advances the colour too */
		if (round & 1)
			fwq_flush_workqueue(wq);
	}
	fwq_ktap_diag("%s: %d idle-pwq rounds", kind, n);
	FWQ_EXPECT_EQ(t, bad, 0);
}

/*
 * Invariant (H8): an item queued to a pwq that was idle during the
 * previous flush is waited for by the next flush (the retired colour race),
 * on every CPU's pwq and across colour wrap; per-CPU and unbound
 * (one pod per CPU, so every CPU has its own pwq and pool).
 */
static void test_flush_retired_color(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, F, FWQ_AFFN_CPU, h8_pattern);
}

/* ---- flush_workqueue completeness under concurrent queueing ---- */

#define FC_SLOTS	32
#define FC_ITEMS	600
#define FC_FLUSHERS	2

struct fc_slot {
	struct fwq_work work;
	long q;		/* sequence of the instance queued last */
	long d;		/* sequence of the instance finished last */
};

struct fc_ctx {
	struct fwq_workqueue *wq;
	struct fc_slot slots[FC_SLOTS];
	long last_queued;
	bool producer_done;
	atomic_t violations;
	atomic_t flushes;
	atomic_t flush_works;
	atomic_t queue_failed;
	atomic_t lost;
};

static void fc_fn(struct fwq_work *work)
{
	struct fc_slot *s = container_of(work, struct fc_slot, work);
	long q = READ_ONCE(s->q);

	if (!get_random_u32_below(4))
		fwqt_spin_us(get_random_u32_below(40));
	/* publish "instance q finished"; pairs with the flusher's acquire */
	smp_store_release(&s->d, q);
}

static void fc_producer(void *p)
{
	struct fc_ctx *c = p;
	long seq;

	for (seq = 1; seq <= FC_ITEMS; seq++) {
		struct fc_slot *s = &c->slots[seq % FC_SLOTS];
		unsigned long end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);

		/* reuse a slot only after its previous instance finished */
		while (smp_load_acquire(&s->d) != s->q) {	/* vs fc_fn */
			if (time_after(jiffies, end)) {
				atomic_inc(&c->lost);
				goto out;
			}
			usleep_range(50, 100);
		}
		WRITE_ONCE(s->q, seq);
		if (!fwq_queue_work_on(fwqt_random_online_cpu(), c->wq,
				       &s->work)) {
			atomic_inc(&c->queue_failed);
			WRITE_ONCE(s->q, s->d);
			continue;
		}
		/* q is set and queued before last_queued says so */
		smp_store_release(&c->last_queued, seq);
		/* let pwqs go idle now and then */
		if (!get_random_u32_below(8))
			usleep_range(100, 300);
	}
out:
	/* pairs with the flushers' loop condition */
	smp_store_release(&c->producer_done, true);
}

static void fc_flusher(void *p)
{
	struct fc_ctx *c = p;
	int i, iter = 0;

	/* acquires pair with the producer's releases */
	while (!smp_load_acquire(&c->producer_done)) {
		/* pairs with the producer's release of last_queued */
		long snap = smp_load_acquire(&c->last_queued);

		if (iter++ & 1) {
			/* a barrier on a random slot races with the flushes */
			fwq_flush_work(&c->slots[get_random_u32_below(FC_SLOTS)].work);
			atomic_inc(&c->flush_works);
		}
		fwq_flush_workqueue(c->wq);
		atomic_inc(&c->flushes);
		for (i = 0; i < FC_SLOTS; i++) {
			struct fc_slot *s = &c->slots[i];
			long q = READ_ONCE(s->q);

			/*
			 * Instance q was queued before snap was read, hence
			 * before the flush began: it must have finished. A
			 * slot is reused only after d caught up with q, so
			 * d < q means instance q has not finished.
			 */
			if (q <= snap && smp_load_acquire(&s->d) < q) /* vs fc_fn */
				atomic_inc(&c->violations);
		}
	}
}

static void fc_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		   const char *kind)
{
	struct fwqt_thread prod, fl[FC_FLUSHERS];
	struct fc_ctx *c;
	int i;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c))
		return;
	c->wq = wq;
	for (i = 0; i < FC_SLOTS; i++)
		FWQ_INIT_WORK(&c->slots[i].work, fc_fn);

	if (fwqt_thread_start(&prod, fc_producer, c, -1, "fc-prod")) {
		FWQ_EXPECT(t, !"kthread");
		kfree(c);
		return;
	}
	for (i = 0; i < FC_FLUSHERS; i++)
		if (fwqt_thread_start(&fl[i], fc_flusher, c, -1, "fc-flush"))
			fl[i].task = NULL;
	fwqt_thread_join(t, &prod, NULL, NULL, "producer");
	for (i = 0; i < FC_FLUSHERS; i++)
		fwqt_thread_join(t, &fl[i], NULL, NULL, "flusher");
	fwq_flush_workqueue(wq);

	fwq_ktap_diag("%s: %ld queued, %d flushes, %d flush_work, %d violations",
		      kind, c->last_queued, atomic_read(&c->flushes),
		      atomic_read(&c->flush_works),
		      atomic_read(&c->violations));
	FWQ_EXPECT_EQ(t, atomic_read(&c->violations), 0);
	FWQ_EXPECT_EQ(t, atomic_read(&c->queue_failed), 0);
	FWQ_EXPECT_EQ(t, atomic_read(&c->lost), 0);
	FWQ_EXPECT_EQ(t, c->last_queued, FC_ITEMS);
	FWQ_EXPECT(t, atomic_read(&c->flushes) > 0);
	for (i = 0; i < FC_SLOTS; i++)
		FWQ_EXPECT_EQ(t, c->slots[i].d, c->slots[i].q);
	kfree(c);
}

/*
 * Invariant (H8, H10): every item queued before flush_workqueue
 * started has finished when it returns, with a producer queueing short items
 * to random (often idle) pwqs on all CPUs while two flushers flush and
 * insert flush_work barriers concurrently.
 */
static void test_flush_completeness(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, F, FWQ_AFFN_CPU, fc_run);
}

/* ---- no livelock ---- */

struct ll_ctx {
	struct fwq_work work;
	struct fwq_workqueue *wq;
	atomic_t runs;
	bool stop;
};

static void ll_fn(struct fwq_work *work)
{
	struct ll_ctx *c = container_of(work, struct ll_ctx, work);

	atomic_inc(&c->runs);
	fwqt_spin_us(10);
	if (!READ_ONCE(c->stop))
		fwq_queue_work_on(fwqt_random_online_cpu(), c->wq, &c->work);
}

static void ll_thread(void *p)
{
	struct ll_ctx *c = p;

	fwq_flush_workqueue(c->wq);
}

static void ll_unstick(void *p)
{
	struct ll_ctx *c = p;

	WRITE_ONCE(c->stop, true);
}

static void ll_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		   const char *kind)
{
	struct fwqt_thread th;
	struct ll_ctx c = { .wq = wq };
	int i;

	FWQ_INIT_WORK(&c.work, ll_fn);
	atomic_set(&c.runs, 0);
	FWQ_EXPECT(t, fwq_queue_work(wq, &c.work));
	for (i = 0; i < 3; i++) {
		if (fwqt_thread_start(&th, ll_thread, &c, -1, "ll")) {
			FWQ_EXPECT(t, !"kthread");
			break;
		}
		if (!fwqt_thread_join(t, &th, ll_unstick, &c, "flush_workqueue"))
			fwq_ktap_diag("%s: flush livelocked by a self-requeueing item",
				      kind);
		/* the instance queued before the flush ran */
		FWQ_EXPECT(t, atomic_read(&c.runs) >= 1);
	}
	WRITE_ONCE(c.stop, true);
	fwq_cancel_work_sync(&c.work);
	fwq_flush_workqueue(wq);
}

/*
 * Invariant (H16): an item that requeues itself forever does not
 * livelock flush_workqueue; the flush ignores instances queued after it
 * started.
 */
static void test_flush_not_livelocked(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, F, FWQ_AFFN_DFL, ll_run);
}

/* ---- overflow: more flushers than colours ---- */

#define OV_FLUSHERS	20	/* > 15 outstanding colours */

struct ov_ctx;

struct ov_flusher {
	struct ov_ctx *c;
	int snap;		/* items queued before this flush started */
	int missing;		/* of those, not done at return */
	bool early;		/* returned while the gate was closed */
	struct fwqt_thread th;
};

struct ov_ctx {
	struct fwq_workqueue *wq;
	struct fwqt_blocker gate_item;
	struct fwqt_blocker items[OV_FLUSHERS];
	atomic_t nr_queued;
	bool gate_open;
	atomic_t entered;
	struct ov_flusher fl[OV_FLUSHERS];
};

static void ov_flush(void *p)
{
	struct ov_flusher *f = p;
	struct ov_ctx *c = f->c;
	int i;

	f->snap = atomic_read(&c->nr_queued);
	atomic_inc(&c->entered);
	fwq_flush_workqueue(c->wq);
	/* pairs with the release that opens the gate */
	if (!smp_load_acquire(&c->gate_open))
		f->early = true;
	for (i = 0; i < f->snap; i++)
		if (!atomic_read(&c->items[i].done))
			f->missing++;
}

static void ov_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		   const char *kind)
{
	struct ov_ctx *c;
	int i, early = 0, missing = 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c))
		return;
	c->wq = wq;
	fwqt_blocker_init(&c->gate_item);
	FWQ_EXPECT(t, fwq_queue_work(wq, &c->gate_item.work));
	fwqt_wait(t, &c->gate_item.started, "gate item start");

	for (i = 0; i < OV_FLUSHERS; i++) {
		struct ov_flusher *f = &c->fl[i];

		/* item i is queued before flusher i starts */
		fwqt_blocker_init(&c->items[i]);
		FWQ_EXPECT(t, fwq_queue_work(wq, &c->items[i].work));
		atomic_inc(&c->nr_queued);
		f->c = c;
		if (fwqt_thread_start(&f->th, ov_flush, f, -1, "ov"))
			f->th.task = NULL;
		/* let it take its colour before the next one */
		fwqt_wait_atomic(t, &c->entered, i + 1, "flusher entry");
	}
	/* Give the last flushers time to queue up (overflow); no check. */
	msleep(FLUSH_HOLD_MS);
	for (i = 0; i < OV_FLUSHERS; i++)
		FWQ_EXPECT(t, !fwqt_thread_done(&c->fl[i].th));

	/* pairs with the flushers' acquire */
	smp_store_release(&c->gate_open, true);
	fwqt_blocker_open(&c->gate_item);
	for (i = 0; i < OV_FLUSHERS; i++)
		fwqt_blocker_open(&c->items[i]);
	for (i = 0; i < OV_FLUSHERS; i++) {
		fwqt_thread_join(t, &c->fl[i].th, NULL, NULL, "flusher");
		early += c->fl[i].early;
		missing += c->fl[i].missing;
	}
	/* a flush on the idle wq completes */
	fwq_flush_workqueue(wq);
	fwq_ktap_diag("%s: %d flushers, %d returned early, %d items missed",
		      kind, OV_FLUSHERS, early, missing);
	FWQ_EXPECT_EQ(t, early, 0);
	FWQ_EXPECT_EQ(t, missing, 0);
	kfree(c);
}

/*
 * Invariant (H9): with more than 16 concurrent flushers against a
 * blocked item, every flusher waits for the item (none returns early),
 * every flusher sees every item queued before it started finished, and all
 * complete once the item is released (overflow list and cascade).
 */
static void test_flush_overflow(struct fwq_ktap_test *t)
{
	struct fwq_variant v;

	fwqt_variant(t, &v, F);
	fwqt_run_on(t, &v, FWQ_UNBOUND, 0, ov_run, "unbound");
	fwqt_run_on(t, &v, FWQ_PERCPU, 0, ov_run, "percpu");
}

struct fd_item {
	struct fwq_work work;
	struct fwq_workqueue *target_wq;	/* flush this workqueue, or */
	struct fwq_work *target;		/* this item */
	atomic_t started;
	struct completion done;
};

static void fd_fn(struct fwq_work *work)
{
	struct fd_item *it = container_of(work, struct fd_item, work);

	atomic_set(&it->started, 1);
	if (it->target)
		fwq_flush_work(it->target);
	else
		fwq_flush_workqueue(it->target_wq);
	complete(&it->done);
}

/*
 * An item of @from flushes @to (or, with @item, flush_work()s a blocked
 * item of @to) while a blocked item of @to keeps the flush waiting: the
 * flush_dependency count once it waits. An expected count (@moves) is
 * waited for, up to 5 s; otherwise the flush is given 50 ms after its item
 * started, where it checks within microseconds.
 */
static long long fd_run(struct fwq_ktap_test *t, struct fwq_workqueue *from,
			struct fwq_workqueue *to, bool item, bool moves)
{
	long long n = fwqt_debug_counter("flush_dependency");
	struct fwqt_blocker b;
	struct fd_item it = { .target_wq = to };
	int i;

	fwqt_blocker_init(&b);
	FWQ_EXPECT(t, fwq_queue_work(to, &b.work));
	fwqt_wait(t, &b.started, "blocked item start");
	if (item)
		it.target = &b.work;
	FWQ_INIT_WORK(&it.work, fd_fn);
	atomic_set(&it.started, 0);
	init_completion(&it.done);
	FWQ_EXPECT(t, fwq_queue_work(from, &it.work));
	for (i = 0; i < 500 && !atomic_read(&it.started); i++)
		usleep_range(10000, 11000);
	if (moves) {
		for (i = 0; i < 500 &&
		     fwqt_debug_counter("flush_dependency") == n; i++)
			usleep_range(10000, 11000);
	} else {
		msleep(50);
	}
	n = fwqt_debug_counter("flush_dependency");
	/* the flush still waits */
	FWQ_EXPECT(t, !completion_done(&it.done));
	fwqt_blocker_open(&b);
	fwqt_wait(t, &it.done, "flushing item");
	fwq_flush_workqueue(from);
	fwq_flush_workqueue(to);
	return n;
}

/*
 * Invariant (mainline's check_flush_dependency()): an item of an
 * FWQ_MEM_RECLAIM workqueue whose flush of a workqueue without it, or of
 * an item of one, waits, is logged and counted (debug counter
 * flush_dependency), and the flush still waits; a flush of an
 * FWQ_MEM_RECLAIM workqueue, or from an item of a workqueue without the
 * flag, is not; nor, as in mainline, is a flush that has nothing to wait
 * for.
 */
static void test_flush_dependency(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *rec, *rec2, *plain, *plain2;
	struct fd_item it;
	struct fwq_variant v;
	long long n;

	if (fwqt_debug_counter("flush_dependency") < 0) {
		fwq_ktap_diag("fwq.ko has no flush_dependency counter");
		FWQ_EXPECT(t, false);
		return;
	}
	fwq_default_variant(&v);
	rec = fwqt_alloc_unbound(t, &v, FWQ_MEM_RECLAIM, 0, FWQ_AFFN_SYSTEM, 0);
	rec2 = fwqt_alloc_unbound(t, &v, FWQ_MEM_RECLAIM, 0, FWQ_AFFN_SYSTEM, 0);
	plain = fwqt_alloc_wq(t, &v, FWQ_UNBOUND, 0);
	plain2 = fwqt_alloc_wq(t, &v, FWQ_UNBOUND, 0);
	if (!rec || !rec2 || !plain || !plain2)
		goto out;

	/*
	 * fd_run()'s items are one lockdep class: it must never run on a
	 * workqueue it has flushed, or lockdep sees a cycle (the flush of
	 * @plain below comes from @plain2, not the other way round).
	 */
	n = fwqt_debug_counter("flush_dependency");
	FWQ_EXPECT_EQ(t, fd_run(t, rec, plain, false, true), n + 1);
	FWQ_EXPECT_EQ(t, fd_run(t, rec, rec2, false, false), n + 1);
	FWQ_EXPECT_EQ(t, fd_run(t, plain2, plain, false, false), n + 1);
	FWQ_EXPECT_EQ(t, fd_run(t, rec, plain, true, true), n + 2);

	/* an idle flush of @plain from an item of @rec waits for nothing */
	it = (struct fd_item){ .target_wq = plain };
	FWQ_INIT_WORK(&it.work, fd_fn);
	init_completion(&it.done);
	FWQ_EXPECT(t, fwq_queue_work(rec, &it.work));
	fwqt_wait(t, &it.done, "idle flush from a reclaim item");
	FWQ_EXPECT_EQ(t, fwqt_debug_counter("flush_dependency"), n + 2);
out:
	fwqt_destroy_wq(plain2);
	fwqt_destroy_wq(plain);
	fwqt_destroy_wq(rec2);
	fwqt_destroy_wq(rec);
}

struct mr_item {
	struct fwq_work work;
	int mem_reclaim;	/* -1 until the item ran */
	struct completion done;
};

static void mr_fn(struct fwq_work *work)
{
	struct mr_item *it = container_of(work, struct mr_item, work);

	it->mem_reclaim = fwq_current_is_mem_reclaim();
	complete(&it->done);
}

/* fwq_current_is_mem_reclaim() from an item of @wq; -1 if it never ran */
static int mr_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq)
{
	struct mr_item it = { .mem_reclaim = -1 };

	FWQ_INIT_WORK(&it.work, mr_fn);
	init_completion(&it.done);
	FWQ_EXPECT(t, fwq_queue_work(wq, &it.work));
	fwqt_wait(t, &it.done, "mem_reclaim item");
	fwq_flush_workqueue(wq);
	return it.mem_reclaim;
}

/*
 * fwq_current_is_mem_reclaim() (Linux 7.3's
 * current_is_workqueue_mem_reclaim()): true in an item of an
 * FWQ_MEM_RECLAIM workqueue, per-CPU or unbound, false in an item of a
 * workqueue without it and outside any item.
 */
static void test_current_is_mem_reclaim(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *rec, *rec_pcpu, *plain;
	struct fwq_variant v;

	fwq_default_variant(&v);
	rec = fwqt_alloc_unbound(t, &v, FWQ_MEM_RECLAIM, 0, FWQ_AFFN_SYSTEM, 0);
	rec_pcpu = fwqt_alloc_wq(t, &v, FWQ_MEM_RECLAIM, 0);
	plain = fwqt_alloc_wq(t, &v, FWQ_UNBOUND, 0);
	if (rec && rec_pcpu && plain) {
		FWQ_EXPECT_EQ(t, mr_run(t, rec), 1);
		FWQ_EXPECT_EQ(t, mr_run(t, rec_pcpu), 1);
		FWQ_EXPECT_EQ(t, mr_run(t, plain), 0);
		FWQ_EXPECT(t, !fwq_current_is_mem_reclaim());
	}
	fwqt_destroy_wq(plain);
	fwqt_destroy_wq(rec_pcpu);
	fwqt_destroy_wq(rec);
}

enum own_op { OWN_FLUSH, OWN_REQUEUE_FLUSH, OWN_DELAYED_FLUSH, OWN_WQ_FLUSH,
	      OWN_DRAIN, OWN_DESTROY, OWN_NONE };

struct own_item {
	struct fwq_delayed_work dwork;
	struct fwq_workqueue *wq;
	enum own_op op;
	bool ret;
	atomic_t runs;
	struct completion done;
};

static void own_fn(struct fwq_work *work)
{
	struct own_item *it = container_of(to_fwq_delayed_work(work),
					   struct own_item, dwork);

	if (atomic_inc_return(&it->runs) > 1)
		return;		/* the instance it queued again */
	switch (it->op) {
	case OWN_FLUSH:
		it->ret = fwq_flush_work(work);
		break;
	case OWN_REQUEUE_FLUSH:
		fwq_queue_work(it->wq, work);
		it->ret = fwq_flush_work(work);
		break;
	case OWN_DELAYED_FLUSH:
		fwq_queue_delayed_work(it->wq, &it->dwork, 60 * HZ);
		it->ret = fwq_flush_delayed_work(&it->dwork);
		break;
	case OWN_WQ_FLUSH:
		fwq_flush_workqueue(it->wq);
		break;
	case OWN_DRAIN:
		fwq_drain_workqueue(it->wq);
		break;
	case OWN_DESTROY:
		fwq_destroy_workqueue(it->wq);
		break;
	case OWN_NONE:
		break;
	}
	complete(&it->done);
}

/*
 * Invariant: an item that would wait for itself is refused, with one log
 * line counted as misuse, and nothing changes: a flush_work() of itself,
 * also after it queued itself again, a flush_delayed_work() of itself with
 * its timer armed again, a flush, a drain or a destroy of its own
 * workqueue. The workqueue still takes items from outside; an instance it
 * queued again runs; an armed timer stays armed. (An own drain used to
 * spin for ever, with every outside enqueue rejected; a flush after a
 * requeue waited for ever.) On a lockdep kernel only the drain and the
 * destroy run: fwq lets lockdep see a self-flush before it refuses it, as
 * mainline's maps would, and the first report ends lockdep's checking
 * (make selfcheck-debug's lockdep cases expect those reports).
 */
static void test_own_item_refused(struct fwq_ktap_test *t)
{
	static const char * const names[] = {
		"flush_work", "requeue+flush_work", "flush_delayed_work",
		"flush_workqueue", "drain", "destroy",
	};
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	struct own_item *it;
	long long misuse;
	int op = IS_ENABLED(CONFIG_LOCKDEP) ? OWN_DRAIN : OWN_FLUSH;

	/* not on the stack: its timer would be an unannotated stack object */
	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!FWQ_EXPECT(t, it))
		return;
	fwq_default_variant(&v);
	wq = fwqt_alloc_wq(t, &v, FWQ_UNBOUND, 0);
	if (!wq) {
		kfree(it);
		return;
	}
	if (op != OWN_FLUSH)
		fwq_ktap_diag("lockdep kernel: the self-flushes are left out");
	for (; op <= OWN_DESTROY; op++) {
		memset(it, 0, sizeof(*it));
		FWQ_INIT_DELAYED_WORK(&it->dwork, own_fn);
		init_completion(&it->done);
		it->wq = wq;
		it->op = op;
		misuse = fwqt_debug_counter("misuse");
		FWQ_EXPECT(t, fwq_queue_work(wq, &it->dwork.work));
		if (!fwqt_wait(t, &it->done, names[op]))
			return;		/* a worker hangs: leave it and the wq be */
		FWQ_EXPECT(t, !it->ret);
		if (!FWQ_EXPECT_EQ(t, fwqt_debug_counter("misuse"), misuse + 1))
			fwq_ktap_diag("%s: not refused once", names[op]);
		if (op == OWN_DELAYED_FLUSH)
			FWQ_EXPECT(t, fwq_cancel_delayed_work_sync(&it->dwork));
		fwq_flush_workqueue(wq);
		FWQ_EXPECT_EQ(t, atomic_read(&it->runs),
			      op == OWN_REQUEUE_FLUSH ? 2 : 1);
		/* still open to items from outside */
		reinit_completion(&it->done);
		it->op = OWN_NONE;
		atomic_set(&it->runs, 0);
		FWQ_EXPECT(t, fwq_queue_work(wq, &it->dwork.work));
		fwqt_wait(t, &it->done, "an item after the refusal");
		fwq_flush_workqueue(wq);
		FWQ_EXPECT_EQ(t, atomic_read(&it->runs), 1);
	}
	fwq_destroy_workqueue(wq);
	kfree(it);
}

FWQ_KTAP_SUITE(fwq_suite_flush, "fwq_flush",
	       FWQT_CASE("flush_work_waits", test_flush_work_waits, F),
	       FWQT_CASE("flush_waits_retired_color",
			 test_flush_retired_color, F),
	       FWQT_CASE("flush_waits_for_all_queued_before",
			 test_flush_completeness, F),
	       FWQT_CASE("flush_not_livelocked", test_flush_not_livelocked, F),
	       FWQT_CASE("flush_overflow_16plus_flushers",
			 test_flush_overflow, F),
	       { .name = "flush_dependency_logged",
		 .run = test_flush_dependency },
	       { .name = "own_item_refused", .run = test_own_item_refused },
	       { .name = "current_is_mem_reclaim",
		 .run = test_current_is_mem_reclaim });
