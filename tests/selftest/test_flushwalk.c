// SPDX-License-Identifier: GPL-2.0
/*
 * What a flush walks (the flush-active seed mail, README.md, and commit
 * 85f0d8e39aff ("workqueue: Reduce expensive locks for unbound
 * workqueue")): read through fwq_workqueue_get_stats() flush_pwqs_visited
 * and flush_lock_cycles around single flushes of an unbound workqueue whose
 * per-CPU pwqs all share one pool (scope system).
 *  - pwqs replaced by an attrs change stop being walked once released;
 *  - flush=each: one pool-lock cycle per pwq visited, every pwq visited;
 *  - flush=coalesce: every pwq visited, the lock cycled once per run of
 *    pwqs sharing a pool (here: far fewer cycles than pwqs;
 *    docs/hazards.md H13);
 *  - flush=active: only pwqs active since the last flush are visited: none
 *    for a flush of an idle workqueue, and only the queued-to pwq(s) after
 *    one item. Its node locks count as lock cycles too: one splice per
 *    node on every flush, and one more per node whose pwqs still have
 *    items in flight, however many pwqs that node keeps
 *    (src/flush_active.c);
 *  - flush=lockless: as active, but an idle flush takes no lock, and
 *    returns without completing its flusher: no wakeup at the flush site,
 *    where every other design, as mainline, counts one.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/nodemask.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

struct fw_delta {
	u64 flushes;
	u64 visited;
	u64 cycles;
	u64 wakeups;	/* at the flush site: completions of flushers */
};

static void fw_item_fn(struct fwq_work *work)
{
}

/* Stats delta of one flush, with @queue items queued to one CPU before. */
static struct fw_delta fw_one_flush(struct fwq_workqueue *wq, int queue)
{
	struct fwq_wq_stats a, b;
	struct fwq_work w;
	struct fw_delta d;
	int cpu = fwqt_random_online_cpu();

	FWQ_INIT_WORK(&w, fw_item_fn);
	fwq_flush_workqueue(wq);	/* settle: nothing in flight */
	fwq_workqueue_get_stats(wq, &a);
	if (queue)
		fwq_queue_work_on(cpu, wq, &w);
	fwq_flush_workqueue(wq);
	fwq_workqueue_get_stats(wq, &b);
	d.flushes = b.flushes - a.flushes;
	d.visited = b.flush_pwqs_visited - a.flush_pwqs_visited;
	d.cycles = b.flush_lock_cycles - a.flush_lock_cycles;
	d.wakeups = b.wakeups[FWQ_SITE_FLUSH][0] + b.wakeups[FWQ_SITE_FLUSH][1] -
		    a.wakeups[FWQ_SITE_FLUSH][0] - a.wakeups[FWQ_SITE_FLUSH][1];
	return d;
}

/*
 * Invariant: the flush variant decides what a flush walks:
 * each = one lock cycle per pwq, all pwqs; coalesce = all pwqs, one cycle
 * per pool run; active = only the pwqs queued to since the last flush.
 */
static void test_flush_walk(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fw_delta idle, busy;
	struct fwq_variant v;
	unsigned long end;

	fwqt_variant(t, &v, F);
	wq = fwqt_alloc_unbound(t, &v, 0, 0, FWQ_AFFN_SYSTEM, 0);
	if (!wq)
		return;
	/*
	 * The pwqs the apply replaced are released asynchronously; until
	 * then flushes still walk them. They must go: poll
	 * until at most one pwq per possible CPU plus the default is left.
	 */
	end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);
	do {
		idle = fw_one_flush(wq, 0);
		if (v.flush == FWQ_FLUSH_ACTIVE ||
		    idle.visited <= num_possible_cpus() + 1)
			break;
		msleep(20);
	} while (time_before(jiffies, end));
	if (!FWQ_EXPECT(t, v.flush == FWQ_FLUSH_ACTIVE ||
			idle.visited <= num_possible_cpus() + 1))
		fwq_ktap_diag("replaced pwqs still walked: %llu visited, %u possible CPUs",
			      idle.visited, num_possible_cpus());
	busy = fw_one_flush(wq, 1);
	fwq_ktap_diag("idle flush: %llu flushes, %llu pwqs visited, %llu lock cycles",
		      idle.flushes, idle.visited, idle.cycles);
	fwq_ktap_diag("idle flush: %llu wakeups at the flush site", idle.wakeups);
	fwq_ktap_diag("flush after one item: %llu flushes, %llu pwqs visited, %llu lock cycles",
		      busy.flushes, busy.visited, busy.cycles);
	FWQ_EXPECT_EQ(t, idle.flushes, 1);
	FWQ_EXPECT_EQ(t, busy.flushes, 1);

	switch (v.flush) {
	case FWQ_FLUSH_EACH:
		/* one pwq per CPU at least: more than one visited */
		FWQ_EXPECT(t, busy.visited >= num_online_cpus());
		FWQ_EXPECT_EQ(t, busy.cycles, busy.visited);
		FWQ_EXPECT_EQ(t, idle.cycles, idle.visited);
		/* as mainline: the idle flush completes its own flusher */
		FWQ_EXPECT_EQ(t, idle.wakeups, 1);
		break;
	case FWQ_FLUSH_COALESCE:
		/* all pwqs share one pool: few lock cycles for many pwqs */
		FWQ_EXPECT(t, busy.visited >= num_online_cpus());
		FWQ_EXPECT(t, busy.cycles >= 1);
		FWQ_EXPECT(t, busy.cycles < busy.visited);
		FWQ_EXPECT_EQ(t, idle.wakeups, 1);
		break;
	case FWQ_FLUSH_ACTIVE:
		/* nothing queued since the last flush: nothing to visit */
		FWQ_EXPECT_EQ(t, idle.visited, 0);
		/* ...and no pool lock: one node-lock splice per node */
		FWQ_EXPECT_EQ(t, idle.cycles, nr_node_ids + 1);
		FWQ_EXPECT_EQ(t, idle.wakeups, 1);
		/* one item on one pwq */
		FWQ_EXPECT(t, busy.visited >= 1);
		FWQ_EXPECT(t, busy.cycles >= nr_node_ids + 2);
		FWQ_EXPECT(t, busy.visited < num_online_cpus() ||
			   num_online_cpus() <= 2);
		break;
	case FWQ_FLUSH_LOCKLESS:
		/*
		 * as active, but an idle flush takes no lock at all, and
		 * returns without completing its flusher: no wakeup
		 */
		FWQ_EXPECT_EQ(t, idle.visited, 0);
		FWQ_EXPECT_EQ(t, idle.cycles, 0);
		FWQ_EXPECT_EQ(t, idle.wakeups, 0);
		/* one item: its node's splice, one pool cycle, a put-back */
		FWQ_EXPECT(t, busy.visited >= 1);
		FWQ_EXPECT(t, busy.cycles >= 2 && busy.cycles <= 3);
		break;
	default:
		FWQ_EXPECT(t, !"unknown flush variant");
	}
	fwq_destroy_workqueue(wq);
}

static void fw_keep_unstick(void *arg)
{
	struct fwqt_blocker *b = arg;

	fwqt_blocker_open(&b[0]);
	fwqt_blocker_open(&b[1]);
}

/*
 * Invariant: the walk of a flush that finds items in flight on several
 * pwqs of one pool: each cycles the pool lock per pwq; coalesce once for
 * them all; active visits just those pwqs under one pool-lock cycle, and
 * puts them back on their node's list in one node-lock section, not one
 * per pwq. The flusher runs in a thread while two items block on two
 * CPUs' pwqs of one pool (scope system); the walk is over once the
 * flush count has grown, as both happen under wq->mutex.
 */
static void test_flush_walk_kept(struct fwq_ktap_test *t)
{
	struct fwqt_blocker b[2];
	struct fwq_wq_stats a, s;
	struct fwq_workqueue *wq;
	struct fwqt_thread th;
	struct fwq_variant v;
	u64 visited, cycles;
	unsigned long end;
	int cpu, n = 0;

	fwqt_variant(t, &v, F);
	wq = fwqt_alloc_unbound(t, &v, 0, 0, FWQ_AFFN_SYSTEM, 0);
	if (!wq)
		return;
	fwqt_blocker_init(&b[0]);
	fwqt_blocker_init(&b[1]);
	fwq_flush_workqueue(wq);	/* settle: nothing listed */
	fwq_workqueue_get_stats(wq, &a);
	for_each_online_cpu(cpu) {
		fwq_queue_work_on(cpu, wq, &b[n].work);
		if (++n == ARRAY_SIZE(b))
			break;
	}
	if (n < ARRAY_SIZE(b))
		fwqt_blocker_open(&b[1]);	/* one CPU: one item */

	if (fwqt_thread_start(&th, fwqt_flush_wq_fn, wq, -1, "fw-keep")) {
		FWQ_EXPECT(t, !"flusher thread");
		fw_keep_unstick(b);
		goto out;
	}
	end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);
	do {
		fwq_workqueue_get_stats(wq, &s);
		if (s.flushes != a.flushes)
			break;
		msleep(20);
	} while (time_before(jiffies, end));
	fw_keep_unstick(b);
	fwqt_thread_join(t, &th, fw_keep_unstick, b, "flush with kept pwqs");

	visited = s.flush_pwqs_visited - a.flush_pwqs_visited;
	cycles = s.flush_lock_cycles - a.flush_lock_cycles;
	fwq_ktap_diag("%d items in flight: %llu pwqs visited, %llu lock cycles, %u nodes",
		      n, visited, cycles, nr_node_ids);
	if (!FWQ_EXPECT_EQ(t, s.flushes, a.flushes + 1))
		goto out;
	switch (v.flush) {
	case FWQ_FLUSH_EACH:
		FWQ_EXPECT_EQ(t, cycles, visited);
		break;
	case FWQ_FLUSH_COALESCE:
		FWQ_EXPECT(t, cycles >= 1 && cycles < visited);
		break;
	case FWQ_FLUSH_ACTIVE:
		/* the queued-to pwqs only, one pool cycle, one put-back */
		FWQ_EXPECT_EQ(t, visited, n);
		FWQ_EXPECT_EQ(t, cycles, nr_node_ids + 1 + 1 + 1);
		break;
	case FWQ_FLUSH_LOCKLESS:
		/* the one listed node's splice, one pool cycle, one put-back */
		FWQ_EXPECT_EQ(t, visited, n);
		FWQ_EXPECT_EQ(t, cycles, 1 + 1 + 1);
		break;
	default:
		FWQ_EXPECT(t, !"unknown flush variant");
	}
out:
	fwq_destroy_workqueue(wq);
}

FWQ_KTAP_SUITE(fwq_suite_flushwalk, "fwq_flushwalk",
	       FWQT_CASE("flush_walk_matches_variant", test_flush_walk, F),
	       FWQT_CASE("flush_walk_keeps_busy_pwqs",
			 test_flush_walk_kept, F));
