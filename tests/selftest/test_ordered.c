// SPDX-License-Identifier: GPL-2.0
/*
 * Ordered workqueues (H16): items run strictly in queue
 * order, one at a time, wherever they are queued from or to; max_active and
 * attrs of an ordered workqueue cannot be changed.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define ORD_ITEMS	120
#define ORD_PRODUCERS	3
#define ORD_REQUEUES	3	/* times each item requeues itself */

struct ord_ctx;

struct ord_item {
	struct fwq_work work;
	struct ord_ctx *c;
	long seq;		/* queue order; under c->lock */
	int requeues;
};

struct ord_ctx {
	struct fwq_workqueue *wq;
	struct ord_item items[ORD_PRODUCERS][ORD_ITEMS];
	spinlock_t lock;	/* orders queue calls and starts */
	long next_seq;
	long last_started;
	atomic_t running;
	atomic_t max_running;
	atomic_t out_of_order;
	atomic_t runs;
	atomic_t queue_failed;
};

/*
 * Queue @it, numbering the successful queue call under c->lock: the lock
 * makes the numbers the order in which items entered the workqueue.
 */
static void ord_queue(struct ord_ctx *c, struct ord_item *it, int how)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&c->lock, flags);
	switch (how) {
	case 0:	/* to a random CPU */
		ok = fwq_queue_work_on(fwqt_random_online_cpu(), c->wq,
				       &it->work);
		break;
	case 1:	/* to a random node, or none */
		ok = fwq_queue_work_node(get_random_u32_below(2) ?
					 cpu_to_node(fwqt_random_online_cpu()) :
					 NUMA_NO_NODE, c->wq, &it->work);
		break;
	default: /* the local CPU */
		ok = fwq_queue_work(c->wq, &it->work);
		break;
	}
	if (ok)
		it->seq = c->next_seq++;
	spin_unlock_irqrestore(&c->lock, flags);
	if (!ok)
		atomic_inc(&c->queue_failed);
}

static void ord_fn(struct fwq_work *work)
{
	struct ord_item *it = container_of(work, struct ord_item, work);
	struct ord_ctx *c = it->c;
	unsigned long flags;

	fwqt_atomic_max(&c->max_running, atomic_inc_return(&c->running));
	spin_lock_irqsave(&c->lock, flags);
	if (it->seq <= c->last_started)
		atomic_inc(&c->out_of_order);
	c->last_started = it->seq;
	spin_unlock_irqrestore(&c->lock, flags);
	if (!get_random_u32_below(8))
		fwqt_spin_us(20);
	atomic_inc(&c->runs);
	atomic_dec(&c->running);
	/* requeue the running item: it goes behind everything queued */
	if (it->requeues++ < ORD_REQUEUES)
		ord_queue(c, it, 2);
}

static void ord_producer(void *p)
{
	struct ord_item *items = p;
	struct ord_ctx *c = items[0].c;
	int i;

	for (i = 0; i < ORD_ITEMS; i++) {
		ord_queue(c, &items[i], i % 3);
		if (!(i % 16))
			usleep_range(50, 200);
	}
}

/*
 * Invariant: an ordered workqueue runs at most one item at a time,
 * strictly in the order the queue calls succeeded: three producers on
 * different CPUs queue to random CPUs, random nodes and the local CPU,
 * and running items requeue themselves.
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
	spin_lock_init(&c->lock);
	c->last_started = -1;
	c->wq = fwq_alloc_ordered_workqueue_variant(&v, "fwqt-ordered", 0);
	if (!FWQ_EXPECT(t, c->wq)) {
		kfree(c);
		return;
	}
	for (p = 0; p < ORD_PRODUCERS; p++) {
		for (i = 0; i < ORD_ITEMS; i++) {
			struct ord_item *it = &c->items[p][i];

			FWQ_INIT_WORK(&it->work, ord_fn);
			it->c = c;
		}
	}
	for (p = 0; p < ORD_PRODUCERS; p++)
		if (fwqt_thread_start(&th[p], ord_producer, c->items[p], -1,
				      "ord"))
			th[p].task = NULL;
	for (p = 0; p < ORD_PRODUCERS; p++)
		fwqt_thread_join(t, &th[p], NULL, NULL, "producer");
	/* requeues may still be going on: flush until none is left */
	for (i = 0; i <= ORD_REQUEUES; i++)
		fwq_flush_workqueue(c->wq);

	fwq_ktap_diag("%d runs of %ld queued, max concurrent %d, %d out of order",
		      atomic_read(&c->runs), c->next_seq,
		      atomic_read(&c->max_running),
		      atomic_read(&c->out_of_order));
	FWQ_EXPECT_EQ(t, atomic_read(&c->queue_failed), 0);
	FWQ_EXPECT_EQ(t, atomic_read(&c->runs),
		      ORD_PRODUCERS * ORD_ITEMS * (1 + ORD_REQUEUES));
	FWQ_EXPECT_EQ(t, atomic_read(&c->max_running), 1);
	FWQ_EXPECT_EQ(t, atomic_read(&c->out_of_order), 0);
	fwq_destroy_workqueue(c->wq);
	kfree(c);
}

/*
 * Invariant: max_active and attributes of an ordered workqueue are
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

FWQ_KTAP_SUITE(fwq_suite_ordered, "fwq_ordered",
	       FWQT_CASE("ordered_runs_in_order", test_ordered_in_order, WK),
	       { .name = "ordered_max_active_fixed",
		 .run = test_ordered_fixed });
