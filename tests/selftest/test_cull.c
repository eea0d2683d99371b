// SPDX-License-Identifier: GPL-2.0
/*
 * Idle cull (hazard H1): with a short idle timeout
 * (fwq.ko parameter idle_timeout_ms) a pool shrinks to its floor of two
 * idle workers and no lower; an item queued while the cull runs always
 * executes (no stranding of a kicked worker). Runs per wake x kicked_list
 * variant: both decide what the cull can reach.
 *
 * Each case gives its workqueue a pool of its own (unbound, scope system,
 * a nice level unique to the case and variant) and counts that pool's
 * workers by comm ("fwq/u...") and nice level.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define CULL_KNOB	"idle_timeout_ms"
#define CULL_NO_KNOB	"fwq.ko has no " CULL_KNOB " parameter"
#define CULL_FLOOR	2	/* too_many_workers keeps two idle workers */
#define CULL_BURST	8

/*
 * Save the idle timeout in @old (skip the case if fwq.ko has none), read
 * the case's variant into @v and set the timeout to @ms. False if the case
 * cannot go on; the timeout is then unchanged.
 */
static bool cull_set(struct fwq_ktap_test *t, struct fwq_variant *v,
		     char *old, size_t len, const char *ms)
{
	if (!fwqt_param_save(t, CULL_KNOB, old, len, CULL_NO_KNOB))
		return false;
	fwqt_variant(t, v, WK);
	return FWQ_EXPECT(t, fwqt_param_write(CULL_KNOB, ms) > 0);
}

/* Queue @n blockers, wait until all run at once, then release them. */
static int cull_burst(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		      int nice, int n)
{
	struct fwqt_blocker *b;
	int i, workers = -1;

	b = kcalloc(n, sizeof(*b), GFP_KERNEL);
	if (!FWQ_EXPECT(t, b))
		return -1;
	for (i = 0; i < n; i++) {
		fwqt_blocker_init(&b[i]);
		FWQ_EXPECT(t, fwq_queue_work(wq, &b[i].work));
	}
	for (i = 0; i < n; i++)
		if (!fwqt_wait(t, &b[i].started, "burst item start"))
			break;
	if (i == n)
		workers = fwqt_count_workers("fwq/u", nice);
	for (i = 0; i < n; i++)
		fwqt_blocker_open(&b[i]);
	fwq_flush_workqueue(wq);
	kfree(b);
	return workers;
}

/*
 * Invariant: after a burst that needed CULL_BURST workers, a pool
 * with a short idle timeout shrinks to exactly CULL_FLOOR idle workers and
 * stays there.
 */
static void test_cull_to_floor(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	int nice = 1 + (int)t->param;
	int workers, n = -1;
	unsigned long end;
	char old[32];

	if (!cull_set(t, &v, old, sizeof(old), "100"))
		return;
	wq = fwqt_alloc_unbound(t, &v, 0, 2 * CULL_BURST, FWQ_AFFN_SYSTEM,
				nice);
	if (!wq)
		goto out;

	workers = cull_burst(t, wq, nice, CULL_BURST);
	fwq_ktap_diag("workers during the burst: %d", workers);
	if (!FWQ_EXPECT(t, workers >= CULL_BURST))
		goto out;

	end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);
	while (time_before(jiffies, end)) {
		n = fwqt_count_workers("fwq/u", nice);
		if (n <= CULL_FLOOR)
			break;
		msleep(20);
	}
	fwq_ktap_diag("workers after the cull: %d", n);
	if (!FWQ_EXPECT(t, n <= CULL_FLOOR))
		fwq_ktap_diag("hang guard: the pool did not shrink within %d ms",
			      FWQT_HANG_MS);
	/* a few more timeouts: the floor holds */
	msleep(400);
	FWQ_EXPECT_EQ(t, fwqt_count_workers("fwq/u", nice), CULL_FLOOR);
out:
	fwqt_destroy_wq(wq);
	fwqt_param_restore(CULL_KNOB, old);
}

/*
 * Invariant (H1): with the idle timeout at 1 ms, so that the cull
 * runs all the time, every single item queued to a pool whose idle workers
 * are being culled executes (a kicked worker is never culled, or the item
 * is not stranded).
 */
static void test_cull_vs_kick(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	struct fwqt_done_item it, kick;
	int nice = 7 + (int)t->param;
	int round, i, ran = 0;
	char old[32];

	if (!cull_set(t, &v, old, sizeof(old), "1"))
		return;
	wq = fwqt_alloc_unbound(t, &v, 0, 0, FWQ_AFFN_SYSTEM, nice);
	if (!wq)
		goto out;
	fwqt_done_item_init(&it);

	for (round = 0; round < 12; round++) {
		/* grow the pool, so the cull has idle workers to reap */
		cull_burst(t, wq, nice, 6);
		for (i = 0; i < 12; i++) {
			/* let workers age past the timeout, now and then */
			if (get_random_u32_below(2))
				msleep(get_random_u32_below(10));
			reinit_completion(&it.done);
			if (!FWQ_EXPECT(t, fwq_queue_work(wq, &it.work)))
				goto drain;
			if (!fwqt_wait(t, &it.done, "single item during cull")) {
				fwq_ktap_diag("round %d item %d stranded", round,
					      i);
				goto drain;
			}
			ran++;
		}
	}
drain:
	fwq_ktap_diag("%d single items ran", ran);
	FWQ_EXPECT_EQ(t, ran, 12 * 12);
	/*
	 * A stranded item must still run before the wq goes away: another
	 * item kicks a worker, which finds both.
	 */
	fwqt_param_restore(CULL_KNOB, old);
	fwqt_done_item_init(&kick);
	fwq_queue_work(wq, &kick.work);
	fwq_flush_workqueue(wq);
out:
	fwqt_param_restore(CULL_KNOB, old);
	fwqt_destroy_wq(wq);
}

FWQ_KTAP_SUITE(fwq_suite_cull, "fwq_cull",
	       FWQT_CASE("idle_cull_to_floor", test_cull_to_floor, WK),
	       FWQT_CASE("cull_never_strands_item", test_cull_vs_kick, WK));
