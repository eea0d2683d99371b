// SPDX-License-Identifier: GPL-2.0
/*
 * max_active (H16): never exceeded per CPU (per-CPU
 * workqueues) or per node (unbound), yet max_active interdependent items
 * can all be active at once; raising max_active activates waiting items;
 * bad values are refused. Runs per wake variant: activation kicks workers.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/nodemask.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define MA_PER_CPU	6

struct ma_ctx;

struct ma_item {
	struct fwq_work work;
	struct ma_ctx *c;
	int key;		/* CPU or node it is counted against */
};

struct ma_ctx {
	atomic_t *running;	/* per key */
	atomic_t *max;		/* per key */
	atomic_t done;
	/* rendezvous */
	struct ma_item *items;	/* freed by rdv_free() */
	atomic_t arrived;
	int need;
	bool abort;
	atomic_t timed_out;
};

static void ma_fn(struct fwq_work *work)
{
	struct ma_item *it = container_of(work, struct ma_item, work);
	struct ma_ctx *c = it->c;

	fwqt_atomic_max(&c->max[it->key],
			atomic_inc_return(&c->running[it->key]));
	/* sleep: a per-CPU pool would start another worker meanwhile */
	usleep_range(2000, 3000);
	atomic_dec(&c->running[it->key]);
	atomic_inc(&c->done);
}

/* Wait inside the item until @need items are active at once. */
static void rdv_fn(struct fwq_work *work)
{
	struct ma_item *it = container_of(work, struct ma_item, work);
	struct ma_ctx *c = it->c;
	unsigned long end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);

	atomic_inc(&c->arrived);
	while (atomic_read(&c->arrived) < c->need && !READ_ONCE(c->abort)) {
		if (time_after(jiffies, end)) {
			atomic_inc(&c->timed_out);
			break;
		}
		usleep_range(1000, 2000);
	}
	atomic_inc(&c->done);
}

static int ma_nr_keys(bool percpu)
{
	return percpu ? nr_cpu_ids : nr_node_ids;
}

/*
 * Queue @per items per online CPU; count concurrency per CPU (@percpu) or
 * per node of the queueing CPU, and return the highest count.
 */
static int ma_measure(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		      bool percpu, int per)
{
	struct ma_item *items;
	struct ma_ctx *c;
	int cpu, i, n = 0, hi = 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	items = kcalloc(num_online_cpus() * per, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c && items))
		goto out;
	c->running = kcalloc(ma_nr_keys(percpu), sizeof(atomic_t), GFP_KERNEL);
	c->max = kcalloc(ma_nr_keys(percpu), sizeof(atomic_t), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c->running && c->max))
		goto out;
	for_each_online_cpu(cpu) {
		for (i = 0; i < per; i++, n++) {
			struct ma_item *it = &items[n];

			FWQ_INIT_WORK(&it->work, ma_fn);
			it->c = c;
			it->key = percpu ? cpu : cpu_to_node(cpu);
			FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &it->work));
		}
	}
	fwqt_wait_atomic(t, &c->done, n, "items done");
	fwq_flush_workqueue(wq);
	for (i = 0; i < ma_nr_keys(percpu); i++)
		hi = max(hi, atomic_read(&c->max[i]));
out:
	kfree(items);
	if (c) {
		kfree(c->running);
		kfree(c->max);
	}
	kfree(c);
	return hi;
}

/*
 * Queue @need interdependent items (rdv_fn) to @cpu of @wq. Returns their
 * context, to be freed with rdv_free(), or NULL (after failing @t) if
 * memory ran out.
 */
static struct ma_ctx *rdv_queue(struct fwq_ktap_test *t,
				struct fwq_workqueue *wq, int cpu, int need)
{
	struct ma_item *items;
	struct ma_ctx *c;
	int i;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	items = kcalloc(need, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, c && items)) {
		kfree(items);
		kfree(c);
		return NULL;
	}
	c->items = items;
	c->need = need;
	for (i = 0; i < need; i++) {
		FWQ_INIT_WORK(&items[i].work, rdv_fn);
		items[i].c = c;
		FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &items[i].work));
	}
	return c;
}

static void rdv_free(struct ma_ctx *c)
{
	kfree(c->items);
	kfree(c);
}

/*
 * Queue @need interdependent items to @cpu: each waits until all @need are
 * active. Returns true if they all got active together.
 */
static bool ma_rendezvous(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
			  int cpu, int need)
{
	struct ma_ctx *c;
	bool ok;

	c = rdv_queue(t, wq, cpu, need);
	if (!c)
		return false;
	if (!fwqt_wait_atomic(t, &c->done, need, "interdependent items"))
		WRITE_ONCE(c->abort, true);
	fwq_flush_workqueue(wq);
	ok = !atomic_read(&c->timed_out) && atomic_read(&c->done) == need;
	rdv_free(c);
	return ok;
}

/*
 * Check @wq (max_active @m) against both invariants: concurrency per CPU
 * (@percpu) or per node never above @m, and @m interdependent items all
 * active at once.
 */
static void ma_check(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		     bool percpu, int m)
{
	int hi = ma_measure(t, wq, percpu, MA_PER_CPU);

	fwq_ktap_diag("%s max_active %d: highest per-%s concurrency %d",
		      percpu ? "percpu" : "unbound", m,
		      percpu ? "CPU" : "node", hi);
	FWQ_EXPECT(t, hi >= 1 && hi <= m);
	FWQ_EXPECT(t, ma_rendezvous(t, wq, fwqt_random_online_cpu(), m));
}

/*
 * Invariant: a per-CPU workqueue never runs more than max_active
 * items at once per CPU, even when they sleep; and max_active
 * interdependent items on one CPU are all active at once (no deadlock).
 */
static void test_percpu_max_active(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	int m;

	fwqt_variant(t, &v, W);
	for (m = 1; m <= 3; m += 2) {
		wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, m);
		if (!wq)
			return;
		ma_check(t, wq, true, m);
		fwq_destroy_workqueue(wq);
	}
}

/*
 * Invariant: an unbound workqueue never runs more than max_active
 * items at once per node (pods per NUMA node), and max_active
 * interdependent items (up to 8) are all active at once.
 */
static void test_unbound_max_active(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	int m = 3;

	fwqt_variant(t, &v, W);
	wq = fwqt_alloc_unbound(t, &v, 0, m, FWQ_AFFN_NUMA, 0);
	if (!wq)
		return;
	ma_check(t, wq, false, m);
	fwq_destroy_workqueue(wq);
}

/*
 * Every node gets its share of an unbound workqueue's max_active, however
 * many possible CPUs are absent (a VM's possible_cpus=): with max_active 2
 * (so min_active 2) each node must run 2 items at once. Interdependent
 * items, 2 queued to one online CPU of each node, must all be active
 * together, in every scope whose pods lie within a node. A pool whose pod
 * holds absent CPUs once got no node, so that every node's items were
 * charged to the fallback slot (2 for the whole system) and the
 * rendezvous never completed.
 */
static void test_unbound_every_node(struct fwq_ktap_test *t)
{
	static const enum fwq_affn_scope scopes[] = {
		FWQ_AFFN_CACHE, FWQ_AFFN_CACHE_SHARD, FWQ_AFFN_NUMA,
	};
	const int m = 2;
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	struct ma_ctx *c;
	int s, node, cpu, i, k, n;

	fwqt_variant(t, &v, W);
	for (s = 0; s < ARRAY_SIZE(scopes); s++) {
		n = 0;
		for_each_node_with_cpus(node)
			n += cpumask_intersects(cpumask_of_node(node),
						cpu_online_mask) ? m : 0;
		wq = fwqt_alloc_unbound(t, &v, 0, m, scopes[s], 0);
		if (!wq)
			return;
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (c)
			c->items = kcalloc(n, sizeof(*c->items), GFP_KERNEL);
		if (!FWQ_EXPECT(t, c && c->items)) {
			kfree(c);
			fwq_destroy_workqueue(wq);
			return;
		}
		c->need = n;
		i = 0;
		for_each_node_with_cpus(node) {
			cpu = cpumask_any_and(cpumask_of_node(node),
					      cpu_online_mask);
			for (k = 0; cpu < nr_cpu_ids && k < m && i < n; k++, i++) {
				FWQ_INIT_WORK(&c->items[i].work, rdv_fn);
				c->items[i].c = c;
				FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq,
								&c->items[i].work));
			}
		}
		if (!fwqt_wait_atomic(t, &c->done, n, "items of every node"))
			WRITE_ONCE(c->abort, true);
		fwq_flush_workqueue(wq);
		fwq_ktap_diag("scope %s: %d items (%d per node), %d gave up waiting for the others",
			      fwq_affn_scope_name(scopes[s]), n, m,
			      atomic_read(&c->timed_out));
		FWQ_EXPECT_EQ(t, atomic_read(&c->timed_out), 0);
		rdv_free(c);
		fwq_destroy_workqueue(wq);
	}
}

/*
 * Queue @need interdependent items to @cpu of @wq (max_active 1), check
 * that only one is active, raise max_active to @new_max and check that
 * all @need become active together.
 */
static void raise_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		      int cpu, int need, int new_max, const char *kind)
{
	struct ma_ctx *c;

	c = rdv_queue(t, wq, cpu, need);
	if (!c)
		return;
	fwqt_wait_atomic(t, &c->arrived, 1, "first item");
	/* Not a timing check: with max_active 1 no second item may start. */
	msleep(30);
	FWQ_EXPECT_EQ(t, atomic_read(&c->arrived), 1);
	FWQ_EXPECT_EQ(t, fwq_workqueue_set_max_active(wq, new_max), 0);
	if (!fwqt_wait_atomic(t, &c->done, need,
			      "items after raising max_active"))
		WRITE_ONCE(c->abort, true);
	fwq_flush_workqueue(wq);
	fwq_ktap_diag("%s: max_active 1 -> %d: %d items active together (need %d)",
		      kind, new_max, atomic_read(&c->arrived), need);
	FWQ_EXPECT_EQ(t, atomic_read(&c->timed_out), 0);
	rdv_free(c);
}

/*
 * The node limit an unbound workqueue created with max_active 1 (so
 * min_active 1) gets for @cpu's node after max_active becomes @max: its
 * share of the online CPUs, rounded up.
 */
static int node_share(int cpu, int max)
{
	int node = cpu_to_node(cpu), c, cnt = 0;

	for_each_online_cpu(c)
		if (cpu_to_node(c) == node)
			cnt++;
	return clamp(DIV_ROUND_UP(max * cnt, (int)num_online_cpus()), 1, max);
}

/*
 * Invariant: raising max_active activates waiting items at
 * once: with max_active 1 only one of several interdependent items is
 * active; after set_max_active they all are (per-CPU: the new max on that
 * CPU; unbound: the node's share of the new max). Bad values are refused
 * with -EINVAL.
 */
static void test_raise_max_active(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	int cpu, need, max;

	fwqt_variant(t, &v, W);
	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 1);
	if (wq) {
		FWQ_EXPECT_EQ(t, fwq_workqueue_set_max_active(wq, 0), -EINVAL);
		FWQ_EXPECT_EQ(t, fwq_workqueue_set_max_active(wq, -3), -EINVAL);
		FWQ_EXPECT_EQ(t, fwq_workqueue_set_max_active(wq,
							      FWQ_MAX_ACTIVE + 1),
			      -EINVAL);
		raise_run(t, wq, fwqt_random_online_cpu(), 4, 4, "percpu");
		fwq_destroy_workqueue(wq);
	}

	wq = fwqt_alloc_wq(t, &v, FWQ_UNBOUND, 1);
	if (wq) {
		cpu = fwqt_random_online_cpu();
		/* a new max whose node share lets 2..8 items run together */
		for (max = 8; node_share(cpu, max) < 2 && max < 256; max *= 2)
			;
		need = min(node_share(cpu, max), 8);
		raise_run(t, wq, cpu, need, max, "unbound");
		fwq_destroy_workqueue(wq);
	}
}

#define AK_ITEMS	32
#define AK_WARM		4

/*
 * Invariant (as Linux 7.3): an item activated in the pool of the worker
 * that freed its nr_active slot is not kicked for, since that worker runs
 * it next. AK_ITEMS items on an unbound workqueue of one pod with
 * max_active 1, whose pool a wider workqueue of the same attrs has filled
 * with idle workers, count no wakeup at the activate site. (fwq kicked
 * there, and an idle worker woke for each item to find it taken.)
 */
static void test_activation_no_self_kick(struct fwq_ktap_test *t)
{
	struct fwqt_blocker warm[AK_WARM];
	struct fwqt_done_item *items;
	struct fwq_workqueue *wq = NULL, *wide;
	struct fwq_wq_stats a, b;
	struct fwq_variant v;
	u64 n;
	int i;

	fwqt_variant(t, &v, W);
	items = kcalloc(AK_ITEMS, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, items))
		return;
	/* the same attrs, so the same pool: the wide one gives it workers */
	wide = fwqt_alloc_unbound(t, &v, 0, AK_WARM, FWQ_AFFN_SYSTEM, 0);
	if (!wide)
		goto out;
	wq = fwqt_alloc_unbound(t, &v, 0, 1, FWQ_AFFN_SYSTEM, 0);
	if (!wq)
		goto out;
	for (i = 0; i < AK_WARM; i++) {
		fwqt_blocker_init(&warm[i]);
		FWQ_EXPECT(t, fwq_queue_work(wide, &warm[i].work));
	}
	for (i = 0; i < AK_WARM; i++)
		fwqt_wait(t, &warm[i].started, "warm-up item start");
	for (i = 0; i < AK_WARM; i++)
		fwqt_blocker_open(&warm[i]);
	fwq_flush_workqueue(wide);

	fwq_workqueue_get_stats(wq, &a);
	for (i = 0; i < AK_ITEMS; i++) {
		fwqt_done_item_init(&items[i]);
		FWQ_EXPECT(t, fwq_queue_work(wq, &items[i].work));
	}
	for (i = 0; i < AK_ITEMS; i++)
		if (!fwqt_wait(t, &items[i].done, "chained item"))
			break;
	fwq_flush_workqueue(wq);
	fwq_workqueue_get_stats(wq, &b);
	n = b.wakeups[FWQ_SITE_ACTIVATE][0] + b.wakeups[FWQ_SITE_ACTIVATE][1] -
	    a.wakeups[FWQ_SITE_ACTIVATE][0] - a.wakeups[FWQ_SITE_ACTIVATE][1];
	fwq_ktap_diag("%d items, max_active 1: %llu wakeups at the activate site",
		      AK_ITEMS, n);
	FWQ_EXPECT_EQ(t, n, 0);
out:
	fwqt_destroy_wq(wq);
	fwqt_destroy_wq(wide);
	kfree(items);
}

FWQ_KTAP_SUITE(fwq_suite_maxactive, "fwq_maxactive",
	       FWQT_CASE("percpu_max_active_per_cpu",
			 test_percpu_max_active, W),
	       FWQT_CASE("unbound_max_active_per_node",
			 test_unbound_max_active, W),
	       FWQT_CASE("unbound_max_active_every_node",
			 test_unbound_every_node, W),
	       FWQT_CASE("raise_max_active_activates",
			 test_raise_max_active, W),
	       FWQT_CASE("activation_no_self_kick",
			 test_activation_no_self_kick, W));
