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
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define RS_ITEMS	24
#define RS_NICE		-7	/* + variant index */
#define RS_KNOB		FWQT_NO_CREATE_KNOB
#define RS_NO_KNOB	"fwq.ko has no " RS_KNOB " parameter"
#define RS_BATCH	16	/* FWQ_RESCUER_BATCH in src/internal.h */
#define RS_FAILSLAB	"/sys/kernel/debug/failslab/"

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

	items = fwqt_starve_items(t, old, sizeof(old), &v, RS_ITEMS,
				  sizeof(*items));
	if (!items)
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

	fwqt_param_restore(RS_KNOB, old);
	/* creation works again: the plain workqueue recovers */
	fwqt_wait_atomic(t, &pc.done, 1, "plain wq item after injection stops");
	fwq_flush_workqueue(plain);
	FWQ_EXPECT_EQ(t, atomic_read(&pc.done), 1);
	fwq_flush_workqueue(wq);
out:
	fwqt_param_restore(RS_KNOB, old);
	fwqt_destroy_wq(wq);
	fwqt_destroy_wq(plain);
	kfree(items);
}

/*
 * Make every slab allocation of tasks with make_it_fail set fail, sleeping
 * ones included (kernels with CONFIG_FAILSLAB only). Return: whether the
 * injection is armed.
 */
static bool rs_failslab(bool on)
{
	static const char *const knobs[][3] = {
		/* file, on, off */
		{ "task-filter", "Y", "N" },
		{ "ignore-gfp-wait", "N", "Y" },
		{ "verbose", "0", "2" },
		{ "times", "-1", "1" },
		{ "interval", "1", "1" },
		{ "probability", "100", "0" },
	};
	int i, n = ARRAY_SIZE(knobs);
	char path[64];

	if (!IS_ENABLED(CONFIG_FAILSLAB))
		return false;
	/* probability last on, first off: never armed without the filter */
	for (i = 0; i < n; i++) {
		int k = on ? i : n - 1 - i;
		const char *val = knobs[k][on ? 1 : 2];

		snprintf(path, sizeof(path), RS_FAILSLAB "%s", knobs[k][0]);
		if (fwqt_file_write(path, val, strlen(val)) < 0)
			return false;
	}
	return on;
}

/* one item per pool, in turns: the rescuer moves from pool to pool */
struct rs_cpu_item {
	struct fwq_work work;
	int cpu;		/* the CPU of the item's pool */
	bool fail_allocs;	/* make the rescuer's allocations fail */
	atomic_t *done, *by_rescuer, *wrong_mask;
};

static void rs_cpu_item_fn(struct fwq_work *work)
{
	struct rs_cpu_item *it = container_of(work, struct rs_cpu_item, work);

	if (fwqt_current_is_rescuer()) {
		atomic_inc(it->by_rescuer);
		if (!cpumask_equal(current->cpus_ptr, cpumask_of(it->cpu))) {
			atomic_inc(it->wrong_mask);
			fwq_ktap_diag("rescuer on pool of CPU %d allowed on %*pbl",
				      it->cpu, cpumask_pr_args(current->cpus_ptr));
		}
#ifdef CONFIG_FAULT_INJECTION
		/* from now on, every allocation the rescuer makes fails */
		current->make_it_fail = it->fail_allocs;
#endif
	}
	atomic_inc(it->done);
}

/*
 * Invariant (mainline worker_attach_to_pool()): the rescuer attaches to a
 * pool with that pool's CPUs, and allocates nothing to do so. The
 * workqueue is unbound, strict, one pod per CPU, so each pool has one
 * allowed CPU. Its first item sets make_it_fail on the rescuer; where the
 * kernel has CONFIG_FAILSLAB, every later slab allocation of the rescuer
 * then fails. A temporary cpumask allocated at attach (the old code, with
 * CONFIG_CPUMASK_OFFSTACK) failed, and the affinity was silently skipped:
 * the rescuer served the next pool with the previous pool's CPU.
 */
static void test_rescuer_pool_cpus(struct fwq_ktap_test *t)
{
	atomic_t done = ATOMIC_INIT(0), by_rescuer = ATOMIC_INIT(0);
	atomic_t wrong_mask = ATOMIC_INIT(0);
	struct fwq_workqueue_attrs *attrs = NULL;
	struct fwq_workqueue *wq = NULL;
	struct rs_cpu_item *items;
	int cpus[2], i, n = 0, nr = 8, cpu;
	struct fwq_variant v;
	bool injected;
	char old[32];

	if (!fwqt_param_save(t, RS_KNOB, old, sizeof(old), RS_NO_KNOB))
		return;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		if (n < 2)
			cpus[n++] = cpu;
	cpus_read_unlock();
	if (n < 2) {
		FWQ_KTAP_SKIP(t, "needs two online CPUs");
		return;
	}
	fwqt_variant(t, &v, W);
	items = kcalloc(nr, sizeof(*items), GFP_KERNEL);
	attrs = fwq_alloc_workqueue_attrs();
	if (!FWQ_EXPECT(t, items && attrs))
		goto out;
	wq = fwqt_alloc_wq(t, &v, FWQ_UNBOUND | FWQ_MEM_RECLAIM, 0);
	if (!wq)
		goto out;
	attrs->nice = RS_NICE - 7 - (int)t->param;	/* -14 and below */
	attrs->affn_scope = FWQ_AFFN_CPU;
	attrs->affn_strict = true;
	attrs->variant = v;
	cpumask_copy(attrs->cpumask, cpu_possible_mask);
	if (!FWQ_EXPECT_EQ(t, fwq_apply_workqueue_attrs(wq, attrs), 0))
		goto out;
	fwq_flush_workqueue(wq);

	injected = rs_failslab(true);
	fwq_ktap_diag("failslab injection for the rescuer: %s",
		      injected ? "armed" : "not available (checks affinity only)");
	if (!FWQ_EXPECT(t, fwqt_param_write(RS_KNOB, "1") > 0))
		goto out_failslab;
	for (i = 0; i < nr; i++) {
		struct rs_cpu_item *it = &items[i];

		FWQ_INIT_WORK(&it->work, rs_cpu_item_fn);
		it->cpu = cpus[i & 1];
		it->fail_allocs = injected && i < nr - 1;
		it->done = &done;
		it->by_rescuer = &by_rescuer;
		it->wrong_mask = &wrong_mask;
		FWQ_EXPECT(t, fwq_queue_work_on(it->cpu, wq, &it->work));
		if (!fwqt_wait_atomic(t, &done, i + 1, "rescued item"))
			break;
	}
	fwqt_param_restore(RS_KNOB, old);
	fwq_flush_workqueue(wq);
	fwq_ktap_diag("%d items, %d by the rescuer, %d with a wrong mask",
		      atomic_read(&done), atomic_read(&by_rescuer),
		      atomic_read(&wrong_mask));
	FWQ_EXPECT_EQ(t, atomic_read(&done), nr);
	/* the pools' only workers keep failing as managers: all rescued */
	FWQ_EXPECT_EQ(t, atomic_read(&by_rescuer), nr);
	FWQ_EXPECT_EQ(t, atomic_read(&wrong_mask), 0);
out_failslab:
	rs_failslab(false);
out:
	fwqt_param_restore(RS_KNOB, old);
	fwqt_destroy_wq(wq);
	fwq_free_workqueue_attrs(attrs);
	kfree(items);
}

/* items that hold the rescuer until all of them are queued */
struct rs_gate_item {
	struct fwq_work work;
	struct completion *gate;
	atomic_t *done, *by_rescuer;
};

static void rs_gate_item_fn(struct fwq_work *work)
{
	struct rs_gate_item *it = container_of(work, struct rs_gate_item,
					       work);

	wait_for_completion(it->gate);
	if (fwqt_current_is_rescuer())
		atomic_inc(it->by_rescuer);
	atomic_inc(it->done);
}

/*
 * Invariant (mainline rescuer_thread()): after a batch of
 * FWQ_RESCUER_BATCH items, the rescuer puts its pwq back on the mayday
 * list only if another pwq is waiting there; alone, it goes on with the
 * same pwq and keeps its cursor. One pwq here, more items than three
 * batches: the rescuer_requeues counter must not move. An unbound
 * workqueue has a pwq per possible CPU (mainline since 636b927eba5b), so
 * every item is queued on one CPU: queued from wherever the test thread
 * runs, a migration in the middle put items on two pwqs, both asked for
 * the rescuer, and it requeued (seen once in the KCSAN lane: 2 requeues).
 */
static void test_rescuer_alone_no_requeue(struct fwq_ktap_test *t)
{
	atomic_t done = ATOMIC_INIT(0), by_rescuer = ATOMIC_INIT(0);
	int i, nr = 3 * RS_BATCH + 4, nice = RS_NICE - 10 - (int)t->param;
	int cpu = cpumask_first(cpu_online_mask);
	struct fwq_workqueue *wq = NULL;
	struct rs_gate_item *items;
	DECLARE_COMPLETION_ONSTACK(gate);
	struct fwq_variant v;
	long long requeues;
	char old[32];

	items = fwqt_starve_items(t, old, sizeof(old), &v, nr, sizeof(*items));
	if (!items)
		return;
	wq = fwqt_alloc_unbound(t, &v, FWQ_MEM_RECLAIM, 0, FWQ_AFFN_SYSTEM,
				nice);
	if (!wq)
		goto out;
	fwq_flush_workqueue(wq);
	requeues = fwqt_debug_counter("rescuer_requeues");
	if (!FWQ_EXPECT(t, requeues >= 0))
		goto out;
	if (!FWQ_EXPECT(t, fwqt_param_write(RS_KNOB, "1") > 0))
		goto out;
	for (i = 0; i < nr; i++) {
		FWQ_INIT_WORK(&items[i].work, rs_gate_item_fn);
		items[i].gate = &gate;
		items[i].done = &done;
		items[i].by_rescuer = &by_rescuer;
		FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &items[i].work));
	}
	/* every item is queued behind the first: now let them run */
	complete_all(&gate);
	fwqt_wait_atomic(t, &done, nr, "items of one pwq, rescued");
	fwqt_param_restore(RS_KNOB, old);
	fwq_flush_workqueue(wq);
	fwq_ktap_diag("%d items, %d by the rescuer, %lld requeues",
		      atomic_read(&done), atomic_read(&by_rescuer),
		      fwqt_debug_counter("rescuer_requeues") - requeues);
	FWQ_EXPECT_EQ(t, atomic_read(&done), nr);
	/* more than one batch went through the rescuer... */
	FWQ_EXPECT(t, atomic_read(&by_rescuer) > RS_BATCH);
	/* ...and it never left the only pwq that asked for help */
	FWQ_EXPECT_EQ(t, fwqt_debug_counter("rescuer_requeues") - requeues, 0);
out:
	complete_all(&gate);
	fwqt_param_restore(RS_KNOB, old);
	fwqt_destroy_wq(wq);
	kfree(items);
}

FWQ_KTAP_SUITE(fwq_suite_rescuer, "fwq_rescuer",
	       FWQT_CASE("rescuer_progress_when_creation_fails",
			 test_rescuer_progress, W),
	       FWQT_CASE("rescuer_attaches_with_pool_cpus",
			 test_rescuer_pool_cpus, W),
	       FWQT_CASE("rescuer_alone_keeps_its_pwq",
			 test_rescuer_alone_no_requeue, W));
