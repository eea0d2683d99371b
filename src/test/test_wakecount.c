// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeup placement (the deferred-wakeup seed mail, README.md): the deferred wake
 * variants (wakeq, claim) issue no worker wakeup while a pool lock is held
 * on the enqueue and chain-kick paths, and still lose no wakeup (every
 * item runs); the locked variant wakes under the lock. Checked through
 * fwq_workqueue_get_stats() wakeups[site][locked]. Runs per wake x
 * kicked_list variant.
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

struct wc_item {
	struct fwq_work work;
	struct completion done;
};

static void wc_fn(struct fwq_work *work)
{
	struct wc_item *it = container_of(work, struct wc_item, work);

	complete(&it->done);
}

/*
 * The test_workqueue pattern (one item in flight, so the worker goes idle
 * between items and every queue needs a wakeup), then bursts (chain kicks).
 * Returns the number of items that ran.
 */
static int wc_load(struct fwq_ktap_test *t, struct fwq_workqueue *wq)
{
	struct wc_item *items;
	int i, b, ran = 0;

	items = kcalloc(WC_BURST, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, items))
		return 0;
	for (i = 0; i < WC_BURST; i++) {
		FWQ_INIT_WORK(&items[i].work, wc_fn);
		init_completion(&items[i].done);
	}
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

static const struct fwq_ktap_case wakecount_cases[] = {
	FWQT_CASE("deferred_wake_not_under_pool_lock",
		  test_wakeups_outside_lock, WK),
	{}
};

const struct fwq_ktap_suite fwq_suite_wakecount = {
	.name = "fwq_wakecount",
	.cases = wakecount_cases,
};
