// SPDX-License-Identifier: GPL-2.0
/*
 * Rescuer (H16): while worker creation is made to fail
 * (fwq.ko parameter fail_create_worker), an FWQ_MEM_RECLAIM workqueue still
 * completes its items through its rescuer; a workqueue without a rescuer
 * makes progress again once the injection stops.
 *
 * Each workqueue gets a pool of its own (unbound, scope system, a nice
 * level no other test uses), so its only worker becomes the manager that
 * keeps failing to create a second one.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define RS_ITEMS	24
#define RS_NICE		-7	/* + variant index */
#define RS_KNOB		"fail_create_worker"

struct rs_ctx {
	atomic_t done;
	atomic_t by_rescuer;
};

/* a work item and the context it reports to */
struct rs_item {
	struct fwq_work work;
	struct rs_ctx *c;
};

static void rs_item_fn(struct fwq_work *work)
{
	struct rs_item *it = container_of(work, struct rs_item, work);

	if (fwqt_current_is_rescuer())
		atomic_inc(&it->c->by_rescuer);
	atomic_inc(&it->c->done);
}

static void rs_restore(const char *old)
{
	int ret = fwqt_param_write(RS_KNOB, old);

	if (ret < 0)
		pr_err("fwq_test: cannot restore %s=%s: %d\n", RS_KNOB, old,
		       ret);
}

/*
 * Invariant (H16): with worker creation failing, every item of an
 * FWQ_MEM_RECLAIM workqueue completes, and some ran in the rescuer
 * ("fwq/R-..."); a workqueue without a rescuer completes its items once
 * the injection stops (diagnostic: whether it stalled meanwhile). The
 * rescuer runs at MIN_NICE, as in mainline.
 */
static void test_rescuer_progress(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq, *plain;
	struct rs_item *items;
	struct rs_item lone;
	struct rs_ctx c = {}, pc = {};
	struct fwq_variant v;
	char old[32];
	int i, nice = RS_NICE + (int)t->param, rescuers;

	if (fwqt_param_read(RS_KNOB, old, sizeof(old)) < 0) {
		FWQ_KTAP_SKIP(t, "fwq.ko has no fail_create_worker parameter");
		return;
	}
	fwqt_variant(t, &v, W);
	items = kcalloc(RS_ITEMS, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, items))
		return;
	rescuers = fwqt_count_workers("fwq/R-", MIN_NICE);
	wq = fwqt_alloc_unbound(t, &v, FWQ_MEM_RECLAIM, 0, FWQ_AFFN_SYSTEM,
				nice);
	/* mainline's rescuer runs at the highest priority (MIN_NICE) */
	FWQ_EXPECT_EQ(t, fwqt_count_workers("fwq/R-", MIN_NICE),
		      rescuers + 1);
	plain = fwqt_alloc_unbound(t, &v, 0, 0, FWQ_AFFN_SYSTEM, nice - 5);
	if (!wq || !plain)
		goto out;
	/* let the pools' first workers settle into idle */
	fwq_flush_workqueue(wq);
	fwq_flush_workqueue(plain);
	fwq_ktap_diag("workers before injection: %d (rescue pool), %d (plain pool), rescuers %d",
		      fwqt_count_workers("fwq/u", nice),
		      fwqt_count_workers("fwq/u", nice - 5),
		      fwqt_count_workers("fwq/R-", -20));

	if (!FWQ_EXPECT(t, fwqt_param_write(RS_KNOB, "1") > 0))
		goto out;

	FWQ_INIT_WORK(&lone.work, rs_item_fn);
	lone.c = &pc;
	FWQ_EXPECT(t, fwq_queue_work(plain, &lone.work));

	for (i = 0; i < RS_ITEMS; i++) {
		FWQ_INIT_WORK(&items[i].work, rs_item_fn);
		items[i].c = &c;
		FWQ_EXPECT(t, fwq_queue_work(wq, &items[i].work));
	}
	if (!fwqt_wait_atomic(t, &c.done, RS_ITEMS,
			      "MEM_RECLAIM items while creation fails"))
		fwq_ktap_diag("the rescuer made no progress");
	fwq_ktap_diag("%d of %d done while creation failed, %d by the rescuer; plain wq item %s",
		      atomic_read(&c.done), RS_ITEMS,
		      atomic_read(&c.by_rescuer),
		      atomic_read(&pc.done) ? "ran" : "stalled (expected)");
	FWQ_EXPECT_EQ(t, atomic_read(&c.done), RS_ITEMS);
	FWQ_EXPECT(t, atomic_read(&c.by_rescuer) > 0);

	rs_restore(old);
	/* creation works again: the plain workqueue recovers */
	fwqt_wait_atomic(t, &pc.done, 1, "plain wq item after injection stops");
	fwq_flush_workqueue(plain);
	FWQ_EXPECT_EQ(t, atomic_read(&pc.done), 1);
	fwq_flush_workqueue(wq);
out:
	rs_restore(old);
	if (wq)
		fwq_destroy_workqueue(wq);
	if (plain)
		fwq_destroy_workqueue(plain);
	kfree(items);
}

static const struct fwq_ktap_case rescuer_cases[] = {
	FWQT_CASE("rescuer_progress_when_creation_fails",
		  test_rescuer_progress, W),
	{}
};

const struct fwq_ktap_suite fwq_suite_rescuer = {
	.name = "fwq_rescuer",
	.cases = rescuer_cases,
};
