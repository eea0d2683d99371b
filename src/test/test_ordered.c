// SPDX-License-Identifier: GPL-2.0
/*
 * Ordered workqueues (design §8.8, §4.13, H16): items run strictly in queue
 * order, one at a time, wherever they are queued from or to; max_active and
 * attrs of an ordered workqueue cannot be changed.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define ORD_ITEMS	150
#define ORD_PRODUCERS	3

struct ord_ctx;

struct ord_item {
	struct fwq_work work;
	struct ord_ctx *c;
	int producer;
	int seq;		/* per-producer queue order */
};

struct ord_ctx {
	struct fwq_workqueue *wq;
	struct ord_item items[ORD_PRODUCERS][ORD_ITEMS];
	int last_seq[ORD_PRODUCERS];	/* only written by running items */
	atomic_t running;
	atomic_t max_running;
	atomic_t out_of_order;
	atomic_t runs;
	atomic_t queue_failed;
};

static void ord_fn(struct fwq_work *work)
{
	struct ord_item *it = container_of(work, struct ord_item, work);
	struct ord_ctx *c = it->c;
	int now = atomic_inc_return(&c->running);

	fwqt_atomic_max(&c->max_running, now);
	/* items of one producer were queued in seq order */
	if (c->last_seq[it->producer] != it->seq - 1)
		atomic_inc(&c->out_of_order);
	c->last_seq[it->producer] = it->seq;
	if (!get_random_u32_below(8))
		fwqt_spin_us(20);
	atomic_inc(&c->runs);
	atomic_dec(&c->running);
}

static void ord_producer(void *p)
{
	struct ord_item *items = p;
	struct ord_ctx *c = items[0].c;
	int i;

	for (i = 0; i < ORD_ITEMS; i++) {
		/* to random CPUs: an ordered wq has one pwq for all of them */
		if (!fwq_queue_work_on(fwqt_random_online_cpu(), c->wq,
				       &items[i].work))
			atomic_inc(&c->queue_failed);
		if (!(i % 16))
			usleep_range(50, 200);
	}
}

/*
 * Invariant (§8.8): an ordered workqueue runs at most one item at a time,
 * and the items of each producer run in the order they were queued, with
 * three producers on different CPUs queueing to random CPUs.
 */
static void test_ordered_in_order(struct fwq_ktap_test *t)
{
	struct fwqt_thread th[ORD_PRODUCERS];
	struct fwq_variant v;
	struct ord_ctx *c;
	int p, i;

	fwqt_variant(t, &v, WK);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c))
		return;
	c->wq = fwq_alloc_ordered_workqueue_variant(&v, "fwqt-ordered", 0);
	if (!FWQ_EXPECT(t, c->wq)) {
		kfree(c);
		return;
	}
	for (p = 0; p < ORD_PRODUCERS; p++) {
		c->last_seq[p] = -1;
		for (i = 0; i < ORD_ITEMS; i++) {
			struct ord_item *it = &c->items[p][i];

			FWQ_INIT_WORK(&it->work, ord_fn);
			it->c = c;
			it->producer = p;
			it->seq = i;
		}
	}
	for (p = 0; p < ORD_PRODUCERS; p++)
		if (fwqt_thread_start(&th[p], ord_producer, c->items[p], -1,
				      "ord"))
			th[p].task = NULL;
	for (p = 0; p < ORD_PRODUCERS; p++)
		fwqt_thread_join(t, &th[p], NULL, NULL, "producer");
	fwq_flush_workqueue(c->wq);

	fwq_ktap_diag("%d runs, max concurrent %d, %d out of order",
		      atomic_read(&c->runs), atomic_read(&c->max_running),
		      atomic_read(&c->out_of_order));
	FWQ_EXPECT_EQ(t, atomic_read(&c->queue_failed), 0);
	FWQ_EXPECT_EQ(t, atomic_read(&c->runs), ORD_PRODUCERS * ORD_ITEMS);
	FWQ_EXPECT_EQ(t, atomic_read(&c->max_running), 1);
	FWQ_EXPECT_EQ(t, atomic_read(&c->out_of_order), 0);
	for (p = 0; p < ORD_PRODUCERS; p++)
		FWQ_EXPECT_EQ(t, c->last_seq[p], ORD_ITEMS - 1);
	fwq_destroy_workqueue(c->wq);
	kfree(c);
}

/*
 * Invariant (§4.13): max_active and attributes of an ordered workqueue are
 * fixed: set_max_active and apply_workqueue_attrs return -EINVAL (no WARN)
 * and the workqueue stays ordered.
 */
static void test_ordered_fixed(struct fwq_ktap_test *t)
{
	struct fwq_workqueue_attrs *attrs;
	struct fwq_workqueue *wq;
	struct fwqt_blocker a, b;
	struct fwq_variant v;

	fwq_default_variant(&v);
	wq = fwq_alloc_ordered_workqueue_variant(&v, "fwqt-ordfix", 0);
	if (!FWQ_EXPECT(t, wq))
		return;
	FWQ_EXPECT_EQ(t, fwq_workqueue_set_max_active(wq, 4), -EINVAL);
	attrs = fwq_alloc_workqueue_attrs();
	if (FWQ_EXPECT(t, attrs)) {
		attrs->variant = v;
		cpumask_copy(attrs->cpumask, cpu_possible_mask);
		FWQ_EXPECT_EQ(t, fwq_apply_workqueue_attrs(wq, attrs), -EINVAL);
		fwq_free_workqueue_attrs(attrs);
	}
	/* still one at a time: b waits behind a */
	fwqt_blocker_init(&a);
	fwqt_blocker_init(&b);
	FWQ_EXPECT(t, fwq_queue_work(wq, &a.work));
	FWQ_EXPECT(t, fwq_queue_work(wq, &b.work));
	fwqt_wait(t, &a.started, "first item start");
	msleep(20);
	FWQ_EXPECT_EQ(t, atomic_read(&b.runs), 0);
	fwqt_blocker_open(&a);
	fwqt_blocker_open(&b);
	fwq_flush_workqueue(wq);
	FWQ_EXPECT_EQ(t, atomic_read(&b.runs), 1);
	fwq_destroy_workqueue(wq);
}

static const struct fwq_ktap_case ordered_cases[] = {
	FWQT_CASE("ordered_runs_in_order", test_ordered_in_order, WK),
	{ .name = "ordered_max_active_fixed", .run = test_ordered_fixed },
	{}
};

const struct fwq_ktap_suite fwq_suite_ordered = {
	.name = "fwq_ordered",
	.cases = ordered_cases,
};
