// SPDX-License-Identifier: GPL-2.0
/*
 * Delayed work: no run before the delay (checked with
 * jiffies ordering, not durations), delay 0 queues at once, mod and cancel
 * return values, flush_delayed_work, and exact accounting when mod, queue
 * and cancel race. Runs per wake variant: the timer callback queues
 * through the normal enqueue path.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define DL_ITEMS	12

struct dl_item {
	struct fwq_delayed_work dwork;
	unsigned long earliest;	/* jiffies read before queueing + delay */
	unsigned long ran_at;
	atomic_t runs;
};

static void dl_fn(struct fwq_work *work)
{
	struct dl_item *it = container_of(to_fwq_delayed_work(work),
					  struct dl_item, dwork);

	it->ran_at = jiffies;
	/* ran_at is visible before runs says it is valid; pairs with smp_rmb */
	smp_mb__before_atomic();
	atomic_inc(&it->runs);
}

static void dl_early_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
			 const char *kind)
{
	bool percpu = fwqt_kind_is_percpu(kind);
	struct dl_item *items;
	int i, early = 0, done = 0;
	unsigned long end;

	items = kcalloc(DL_ITEMS, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, items))
		return;
	for (i = 0; i < DL_ITEMS; i++) {
		struct dl_item *it = &items[i];
		unsigned long delay = 1 + get_random_u32_below(12);
		int cpu = percpu ? fwqt_random_online_cpu() : FWQ_CPU_UNBOUND;

		FWQ_INIT_DELAYED_WORK(&it->dwork, dl_fn);
		it->earliest = jiffies + delay;
		FWQ_EXPECT(t, fwq_queue_delayed_work_on(cpu, wq, &it->dwork,
							delay));
	}
	end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);
	while (done < DL_ITEMS && time_before(jiffies, end)) {
		usleep_range(5000, 6000);
		for (done = 0, i = 0; i < DL_ITEMS; i++)
			done += !!atomic_read(&items[i].runs);
	}
	if (!FWQ_EXPECT_EQ(t, done, DL_ITEMS))
		fwq_ktap_diag("%s: hang guard: %d of %d delayed items ran",
			      kind, done, DL_ITEMS);
	for (i = 0; i < DL_ITEMS; i++) {
		struct dl_item *it = &items[i];

		if (!atomic_read(&it->runs))
			continue;
		/* read ran_at after runs; pairs with smp_mb__before_atomic */
		smp_rmb();
		if (time_before(it->ran_at, it->earliest) && early++ < 4)
			fwq_ktap_diag("%s: item %d ran at %lu, before %lu",
				      kind, i, it->ran_at, it->earliest);
	}
	FWQ_EXPECT_EQ(t, early, 0);
	for (i = 0; i < DL_ITEMS; i++)
		fwq_cancel_delayed_work_sync(&items[i].dwork);
	for (i = 0; i < DL_ITEMS; i++)
		FWQ_EXPECT_EQ(t, atomic_read(&items[i].runs), 1);
	kfree(items);
}

/*
 * Invariant: a delayed item never runs before @delay jiffies have
 * elapsed since the queue call (jiffies read before queueing + delay <=
 * jiffies when it runs), on per-CPU and unbound workqueues, and each runs
 * exactly once.
 */
static void test_no_early_run(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, W, FWQ_AFFN_DFL, dl_early_run);
}

/*
 * Queue @it on a far timer and cancel it, the sync way or not: the cancel
 * returns true, the timer is gone and the item does not run.
 */
static void dl_cancel_armed(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
			    struct dl_item *it, bool sync)
{
	int runs = atomic_read(&it->runs);

	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &it->dwork, 60 * HZ));
	if (sync)
		FWQ_EXPECT(t, fwq_cancel_delayed_work_sync(&it->dwork));
	else
		FWQ_EXPECT(t, fwq_cancel_delayed_work(&it->dwork));
	FWQ_EXPECT(t, !timer_pending(&it->dwork.timer));
	FWQ_EXPECT(t, !fwq_delayed_work_pending(&it->dwork));
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), runs);
}

/*
 * Invariant: delay 0 queues at once (flush_work finds it queued);
 * mod_delayed_work returns true iff it modified a pending item, and the
 * item runs once; flush_delayed_work runs a pending timer item now and
 * waits for it; cancel_delayed_work_sync on an armed timer returns true and
 * the item never runs.
 */
static void test_mod_cancel_flush(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct dl_item *it;

	it = fwqt_case_wq_obj(t, W, FWQ_UNBOUND, 0, sizeof(*it), &wq);
	if (!it)
		return;
	FWQ_INIT_DELAYED_WORK(&it->dwork, dl_fn);

	/* delay 0: queued now, not on a timer */
	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &it->dwork, 0));
	FWQ_EXPECT(t, !timer_pending(&it->dwork.timer));
	fwq_flush_work(&it->dwork.work);
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), 1);

	/* mod on an idle item queues it: false */
	FWQ_EXPECT(t, !fwq_mod_delayed_work(wq, &it->dwork, 60 * HZ));
	FWQ_EXPECT(t, fwq_delayed_work_pending(&it->dwork));
	/* queue on a pending item: false */
	FWQ_EXPECT(t, !fwq_queue_delayed_work(wq, &it->dwork, 1));
	/* mod on a pending item: true; move it far out, then to now */
	FWQ_EXPECT(t, fwq_mod_delayed_work(wq, &it->dwork, 120 * HZ));
	FWQ_EXPECT(t, fwq_mod_delayed_work(wq, &it->dwork, 0));
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), 2);
	FWQ_EXPECT(t, !fwq_delayed_work_pending(&it->dwork));

	/*
	 * flush_delayed_work on a far timer: runs now. Its return value may
	 * be false if the item finished before the flush looked for it.
	 */
	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &it->dwork, 120 * HZ));
	fwq_flush_delayed_work(&it->dwork);
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), 3);
	FWQ_EXPECT(t, !fwq_flush_delayed_work(&it->dwork));

	/*
	 * cancel an armed timer: true, the timer is gone, and the item never
	 * runs. The timer is far out, so that the cancel finds it armed
	 * however long this thread waits for a CPU (a 2-jiffy timer fired
	 * first once, on a lockdep+KASAN guest of a busy host).
	 */
	dl_cancel_armed(t, wq, it, true);
	FWQ_EXPECT(t, !fwq_cancel_delayed_work_sync(&it->dwork));
	/* async cancel too */
	dl_cancel_armed(t, wq, it, false);
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), 3);

	kfree(it);
	fwq_destroy_workqueue(wq);
}

#define DR_ROUNDS	300

struct dr_ctx {
	struct dl_item it;
	struct fwq_workqueue *wq;
	atomic_t created;	/* instances made pending */
	atomic_t removed;	/* instances canceled */
	bool percpu;
};

static int dr_cpu(struct dr_ctx *c)
{
	return c->percpu ? fwqt_random_online_cpu() : FWQ_CPU_UNBOUND;
}

/*
 * Make the item pending DR_ROUNDS times, with mod_delayed_work (@mod) or
 * queue_delayed_work, counting each instance made pending.
 */
static void dr_make_pending(struct dr_ctx *c, bool mod)
{
	unsigned long delay;
	bool made;
	int i;

	for (i = 0; i < DR_ROUNDS; i++) {
		delay = get_random_u32_below(3);
		/* mod: false means it was idle and has been queued */
		if (mod)
			made = !fwq_mod_delayed_work_on(dr_cpu(c), c->wq,
							&c->it.dwork, delay);
		else
			made = fwq_queue_delayed_work_on(dr_cpu(c), c->wq,
							 &c->it.dwork, delay);
		if (made)
			atomic_inc(&c->created);
		if (!(i % 8))
			usleep_range(100, 300);
	}
}

static void dr_modder(void *p)
{
	dr_make_pending(p, true);
}

static void dr_queuer(void *p)
{
	dr_make_pending(p, false);
}

static void dr_canceller(void *p)
{
	struct dr_ctx *c = p;
	int i;

	/*
	 * Async cancels only: while a sync cancel waits the item is disabled,
	 * and a racing mod then returns false without queueing, which this
	 * accounting cannot tell from "was idle, queued now".
	 */
	for (i = 0; i < DR_ROUNDS; i++) {
		if (fwq_cancel_delayed_work(&c->it.dwork))
			atomic_inc(&c->removed);
		if (!(i % 8))
			usleep_range(100, 300);
	}
}

static void dr_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		   const char *kind)
{
	void (*fns[4])(void *) = { dr_modder, dr_modder, dr_queuer,
				   dr_canceller };
	struct fwqt_thread th[4];
	struct dr_ctx *c;
	int i;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c))
		return;
	FWQ_INIT_DELAYED_WORK(&c->it.dwork, dl_fn);
	c->wq = wq;
	c->percpu = fwqt_kind_is_percpu(kind);
	for (i = 0; i < 4; i++)
		if (fwqt_thread_start(&th[i], fns[i], c, -1, "dr"))
			th[i].task = NULL;
	for (i = 0; i < 4; i++)
		fwqt_thread_join(t, &th[i], NULL, NULL, "racer");
	if (fwq_cancel_delayed_work_sync(&c->it.dwork))
		atomic_inc(&c->removed);
	fwq_flush_workqueue(wq);
	FWQ_EXPECT(t, !fwq_delayed_work_pending(&c->it.dwork));
	FWQ_EXPECT(t, !timer_pending(&c->it.dwork.timer));
	fwq_ktap_diag("%s: created %d, canceled %d, ran %d", kind,
		      atomic_read(&c->created), atomic_read(&c->removed),
		      atomic_read(&c->it.runs));
	FWQ_EXPECT(t, atomic_read(&c->created) > 0);
	FWQ_EXPECT_EQ(t, atomic_read(&c->it.runs),
		      atomic_read(&c->created) - atomic_read(&c->removed));
	kfree(c);
}

/*
 * Invariant: with mod_delayed_work, queue_delayed_work and
 * cancel_delayed_work racing on one item from several CPUs, every instance
 * made pending (queue true, or mod false) either runs once or is reported
 * canceled once (by a cancel or the final cancel_delayed_work_sync).
 */
static void test_mod_cancel_race(struct fwq_ktap_test *t)
{
	fwqt_case_percpu_unbound(t, W, FWQ_AFFN_DFL, dr_run);
}

FWQ_KTAP_SUITE(fwq_suite_delayed, "fwq_delayed",
	       FWQT_CASE("delayed_no_run_before_delay", test_no_early_run, W),
	       FWQT_CASE("delayed_mod_cancel_flush", test_mod_cancel_flush, W),
	       FWQT_CASE("delayed_mod_cancel_race", test_mod_cancel_race, W));
