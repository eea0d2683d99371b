// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeup placement (the deferred-wakeup seed mail, README.md): the deferred wake
 * variants (wakeq, claim) issue no worker wakeup while a pool lock is held
 * on the enqueue and chain-kick paths, and still lose no wakeup (every
 * item runs); the locked variant wakes under the lock. Checked through
 * fwq_workqueue_get_stats() wakeups[site][locked]. Runs per wake x
 * kicked_list variant. Also: the wakeups that do not wake a worker (a
 * flusher's completion, the pwq release bounce) are counted too.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define WC_SINGLES	150
#define WC_BURSTS	10
#define WC_BURST	16

/*
 * The test_workqueue pattern (one item in flight, so the worker goes idle
 * between items and every queue needs a wakeup), then bursts (chain kicks).
 * Returns the number of items that ran.
 */
static int wc_load(struct fwq_ktap_test *t, struct fwq_workqueue *wq)
{
	struct fwqt_done_item *items;
	int i, b, ran = 0;

	items = kcalloc(WC_BURST, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, items))
		return 0;
	for (i = 0; i < WC_BURST; i++)
		fwqt_done_item_init(&items[i]);
	for (i = 0; i < WC_SINGLES; i++) {
		reinit_completion(&items[0].done);
		if (!FWQ_EXPECT(t, fwq_queue_work_on(fwqt_random_online_cpu(),
						     wq, &items[0].work)))
			break;
		if (!fwqt_wait(t, &items[0].done, "single item (lost wakeup?)"))
			break;
		ran++;
		if (!(i % 8))
			usleep_range(200, 1000);
	}
	for (b = 0; b < WC_BURSTS; b++) {
		for (i = 0; i < WC_BURST; i++) {
			reinit_completion(&items[i].done);
			FWQ_EXPECT(t, fwq_queue_work(wq, &items[i].work));
		}
		for (i = 0; i < WC_BURST; i++) {
			if (!fwqt_wait(t, &items[i].done, "burst item"))
				goto out;
			ran++;
		}
		usleep_range(500, 2000);
	}
out:
	fwq_flush_workqueue(wq);
	kfree(items);
	return ran;
}

static void wc_check(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		     const struct fwq_variant *v, const char *kind)
{
	struct fwq_wq_stats st;
	int ran, s;

	ran = wc_load(t, wq);
	FWQ_EXPECT_EQ(t, ran, WC_SINGLES + WC_BURSTS * WC_BURST);
	fwq_workqueue_get_stats(wq, &st);
	for (s = 0; s < FWQ_SITE_NR; s++)
		fwq_ktap_diag("%s: site %d: %llu unlocked, %llu under a pool lock",
			      kind, s, st.wakeups[s][0], st.wakeups[s][1]);
	FWQ_EXPECT_EQ(t, st.completed, st.queued);
	FWQ_EXPECT(t, st.queued >= ran);

	/* something was woken at the enqueue site, or the check is empty */
	FWQ_EXPECT(t, st.wakeups[FWQ_SITE_QUEUE][0] +
		      st.wakeups[FWQ_SITE_QUEUE][1] > 0);
	if (v->wake == FWQ_WAKE_LOCKED) {
		/* the baseline wakes under pool->lock */
		FWQ_EXPECT(t, st.wakeups[FWQ_SITE_QUEUE][1] > 0);
		FWQ_EXPECT_EQ(t, st.wakeups[FWQ_SITE_QUEUE][0], 0);
		FWQ_EXPECT_EQ(t, st.wakeups[FWQ_SITE_CHAIN][0], 0);
	} else {
		/* the converted sites never wake under a pool lock */
		FWQ_EXPECT_EQ(t, st.wakeups[FWQ_SITE_QUEUE][1], 0);
		FWQ_EXPECT_EQ(t, st.wakeups[FWQ_SITE_CHAIN][1], 0);
	}
}

/*
 * Invariant: with wake=wakeq or wake=claim, zero wakeups are issued
 * under a pool lock at the enqueue and chain-kick sites, and no wakeup is
 * lost (every one of many single, idle-to-busy items runs); with
 * wake=locked those sites wake under the lock. Per-CPU and unbound.
 */
static void test_wakeups_outside_lock(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;

	fwqt_variant(t, &v, WK);
	wq = fwqt_alloc_unbound(t, &v, 0, 0, FWQ_AFFN_SYSTEM, 0);
	if (wq) {
		wc_check(t, wq, &v, "unbound,scope=system");
		fwq_destroy_workqueue(wq);
	}
	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 0);
	if (wq) {
		wc_check(t, wq, &v, "percpu");
		fwq_destroy_workqueue(wq);
	}
}

/* the wakeups of @st summed over sites and lock states */
static u64 wc_total(const struct fwq_wq_stats *st)
{
	u64 sum = 0;
	int s;

	for (s = 0; s < FWQ_SITE_NR; s++)
		sum += st->wakeups[s][0] + st->wakeups[s][1];
	return sum;
}

struct wc_hold {
	struct fwq_work work;
	struct completion started;
	struct completion release;
};

static void wc_hold_fn(struct fwq_work *work)
{
	struct wc_hold *h = container_of(work, struct wc_hold, work);

	complete(&h->started);
	wait_for_completion(&h->release);
}

/* queue the held item, wait until it runs, then take the stats into @a */
static bool wc_hold_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
			struct wc_hold *h, struct fwq_wq_stats *a)
{
	FWQ_EXPECT(t, fwq_queue_work(wq, &h->work));
	if (!fwqt_wait(t, &h->started, "held item start"))
		return false;
	fwq_workqueue_get_stats(wq, a);
	return true;
}

static void wc_flush_work_thread(void *arg)
{
	fwq_flush_work(arg);
}

static void wc_unstick(void *arg)
{
	struct wc_hold *h = arg;

	complete(&h->release);
}

/*
 * The wakeups @wq counted at @site since @a, printed as "@what: T wakeups
 * counted, N at the <site> site"; *@total gets T, those of all sites.
 */
static u64 wc_counted(struct fwq_workqueue *wq, const struct fwq_wq_stats *a,
		      enum fwq_wake_site site, const char *what, u64 *total)
{
	static const char * const names[] = FWQ_WAKE_SITE_NAMES;
	struct fwq_wq_stats b;
	u64 n;

	fwq_workqueue_get_stats(wq, &b);
	*total = wc_total(&b) - wc_total(a);
	n = b.wakeups[site][0] + b.wakeups[site][1] -
	    a->wakeups[site][0] - a->wakeups[site][1];
	fwq_ktap_diag("%s: %llu wakeups counted, %llu at the %s site", what,
		      *total, n, names[site]);
	return n;
}

/*
 * Invariant: every wakeup fwq issues is counted, not only those of
 * wake_up_process(). While an item runs (its worker woken already), a
 * flush of the workqueue and a flush_work() of the item each end with a
 * completion of their waiter: the workqueue's wakeup count grows, at the
 * flush site. An attrs change that retires pwqs bounces their release to
 * the release worker: counted at the release site. (Before these sites
 * were counted, both flushes left the total unchanged.)
 */
static void test_every_wakeup_counted(struct fwq_ktap_test *t)
{
	struct fwq_workqueue_attrs *attrs = NULL;
	struct fwq_workqueue *wq;
	struct fwqt_thread th;
	struct fwq_wq_stats a;
	struct fwq_variant v;
	struct wc_hold h;
	u64 total, flush, release;

	fwqt_variant(t, &v, W);
	wq = fwqt_alloc_unbound(t, &v, 0, 0, FWQ_AFFN_SYSTEM, 3);
	if (!wq)
		return;
	FWQ_INIT_WORK(&h.work, wc_hold_fn);
	init_completion(&h.started);
	init_completion(&h.release);

	/* a flush of the workqueue waits for the running item */
	if (!wc_hold_run(t, wq, &h, &a))
		goto out;
	if (FWQ_EXPECT_EQ(t, fwqt_thread_start(&th, fwqt_flush_wq_fn, wq, -1,
					       "wcflush"), 0)) {
		/* the flusher is waiting once a flush is counted */
		while (!fwqt_thread_done(&th)) {
			struct fwq_wq_stats now;

			fwq_workqueue_get_stats(wq, &now);
			if (now.flushes > a.flushes)
				break;
			usleep_range(1000, 2000);
		}
		msleep(20);
		complete(&h.release);
		fwqt_thread_join(t, &th, wc_unstick, &h, "flusher");
	} else {
		complete(&h.release);
	}
	flush = wc_counted(wq, &a, FWQ_SITE_FLUSH, "flush of a busy workqueue",
			   &total);
	FWQ_EXPECT(t, total >= 1);
	FWQ_EXPECT(t, flush >= 1);

	/* flush_work() of the running item */
	reinit_completion(&h.started);
	reinit_completion(&h.release);
	if (!wc_hold_run(t, wq, &h, &a))
		goto out;
	if (FWQ_EXPECT_EQ(t, fwqt_thread_start(&th, wc_flush_work_thread,
					       &h.work, -1, "wcfwork"), 0)) {
		msleep(50);
		complete(&h.release);
		fwqt_thread_join(t, &th, wc_unstick, &h, "flush_work");
	} else {
		complete(&h.release);
	}
	fwq_flush_workqueue(wq);
	flush = wc_counted(wq, &a, FWQ_SITE_FLUSH,
			   "flush_work of a running item", &total);
	FWQ_EXPECT(t, flush >= 1);

	/* new attrs retire the old pwqs: their release is bounced */
	attrs = fwq_alloc_workqueue_attrs();
	if (!FWQ_EXPECT(t, attrs))
		goto out;
	attrs->nice = 4;
	attrs->affn_scope = FWQ_AFFN_SYSTEM;
	attrs->variant = v;
	fwq_workqueue_get_stats(wq, &a);
	if (!FWQ_EXPECT_EQ(t, fwq_apply_workqueue_attrs(wq, attrs), 0))
		goto out;
	/* the release runs on the release worker: let it finish */
	fwq_queue_work(wq, &h.work);
	complete(&h.release);
	fwq_flush_workqueue(wq);
	release = wc_counted(wq, &a, FWQ_SITE_RELEASE, "attrs change", &total);
	FWQ_EXPECT(t, release >= 1);
out:
	fwq_free_workqueue_attrs(attrs);
	fwq_destroy_workqueue(wq);
}

#define WC_FANOUT	64
#define WC_FANOUT_TRIES	3

/*
 * H4 (docs/hazards.md): kicks that come before the picked worker runs.
 * WC_FANOUT items go to a per-CPU workqueue, queued with preemption off on
 * the CPU whose pool serves them, so that no worker of that pool runs in
 * between: each queueing finds work waiting and no worker running, and
 * kicks. A design that leaves the picked worker on the idle list (wake=
 * locked, wakeq or pick with kicked_list=off), or parks it where a pick
 * looks first (kicked_list=on), picks the same worker every time: one
 * wakeup at the queue site per item. wake=claim with kicked_list=off
 * takes each picked worker off the idle list, so each kick takes another
 * idle worker until none is left: fewer wakeups than items, since the
 * pool has fewer idle workers than WC_FANOUT. A worker of the pool that
 * has not gone idle yet (the last item of a burst just ran) counts as
 * running and holds back every kick, so a burst that found one is run
 * again, after a pause, up to WC_FANOUT_TRIES times.
 */
static void test_burst_fanout(struct fwq_ktap_test *t)
{
	struct fwqt_done_item *items;
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	struct fwq_wq_stats a;
	u64 n = 0, total;
	int cpu, i, try;
	bool claims;

	fwqt_variant(t, &v, WK);
	claims = v.wake == FWQ_WAKE_CLAIM && v.kicked == FWQ_KICKED_OFF;
	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 0);
	if (!wq)
		return;
	items = kcalloc(WC_FANOUT, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, items))
		goto out;
	for (i = 0; i < WC_FANOUT; i++)
		fwqt_done_item_init(&items[i]);

	for (try = 1; try <= WC_FANOUT_TRIES; try++) {
		for (i = 0; i < WC_FANOUT; i++)
			reinit_completion(&items[i].done);
		msleep(20);	/* the pool's workers go idle */
		fwq_workqueue_get_stats(wq, &a);
		cpu = get_cpu();
		for (i = 0; i < WC_FANOUT; i++)
			FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &items[i].work));
		put_cpu();
		for (i = 0; i < WC_FANOUT; i++)
			if (!fwqt_wait(t, &items[i].done, "fan-out item"))
				goto free;
		fwq_flush_workqueue(wq);
		n = wc_counted(wq, &a, FWQ_SITE_QUEUE,
			       "burst before the worker runs", &total);
		if (claims) {
			/* a new worker per kick, until none is idle */
			FWQ_EXPECT(t, n < WC_FANOUT);
		} else if (n == WC_FANOUT) {
			break;	/* the same worker, re-picked per kick */
		}
	}
	if (!claims)
		FWQ_EXPECT_EQ(t, n, WC_FANOUT);
free:
	kfree(items);
out:
	fwq_destroy_workqueue(wq);
}

FWQ_KTAP_SUITE(fwq_suite_wakecount, "fwq_wakecount",
	       FWQT_CASE("deferred_wake_not_under_pool_lock",
			 test_wakeups_outside_lock, WK),
	       FWQT_CASE("every_wakeup_counted", test_every_wakeup_counted, W),
	       FWQT_CASE("burst_fanout", test_burst_fanout, WK));
