// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU concurrency management: when an item of a
 * per-CPU workqueue blocks, another worker runs the items queued behind it
 * on that CPU; an FWQ_CPU_INTENSIVE item does not hold back the pool even
 * while it keeps the CPU busy, and neither does an item that keeps it busy
 * past cpu_intensive_thresh_us (the auto-detection, src/cm.c). Runs per
 * wake variant.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define CM_MAX_CPUS	8

struct cm_pair {
	struct fwq_work a;
	struct fwq_work b;
	struct completion a_started;
	struct completion b_done;
	int cpu;
	int b_cpu;
	bool a_saw_b;		/* A returned because B ran */
	bool a_spin;		/* A busy-waits instead of sleeping */
	bool b_queued;		/* B is on the worklist behind running A */
	bool b_early;		/* B ran before A went to sleep */
};

static void cm_a_fn(struct fwq_work *work)
{
	struct cm_pair *p = container_of(work, struct cm_pair, a);
	unsigned long end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);

	complete(&p->a_started);
	/*
	 * Stay running (counted in nr_running) until B is queued, so that
	 * B's enqueue wakes nobody: only the sleep of A below may start B.
	 */
	fwqt_busy_until(&p->b_queued, end);
	if (completion_done(&p->b_done))
		p->b_early = true;
	if (!p->a_spin) {
		/* blocks: the scheduler switches away from this worker */
		p->a_saw_b = fwqt_done_within(&p->b_done, FWQT_HANG_MS);
		return;
	}
	/* busy: never sleeps, only yields the CPU if asked to */
	while (!completion_done(&p->b_done) && time_before(jiffies, end))
		cond_resched();
	p->a_saw_b = completion_done(&p->b_done);
}

static void cm_b_fn(struct fwq_work *work)
{
	struct cm_pair *p = container_of(work, struct cm_pair, b);

	p->b_cpu = raw_smp_processor_id();
	complete(&p->b_done);
}

/*
 * Run one A/B pair per CPU (up to CM_MAX_CPUS); A on @wqa, B on @wqb.
 * Returns the number of pairs.
 */
static int cm_run(struct fwq_ktap_test *t, struct fwq_workqueue *wqa,
		  struct fwq_workqueue *wqb, bool spin, const char *kind)
{
	struct cm_pair *pairs;
	int cpu, n = 0, i, stalled = 0, wrong_cpu = 0;

	pairs = kcalloc(CM_MAX_CPUS, sizeof(*pairs), GFP_KERNEL);
	if (!FWQ_EXPECT(t, pairs))
		return 0;
	for_each_online_cpu(cpu) {
		struct cm_pair *p = &pairs[n];

		if (n == CM_MAX_CPUS)
			break;
		FWQ_INIT_WORK(&p->a, cm_a_fn);
		FWQ_INIT_WORK(&p->b, cm_b_fn);
		init_completion(&p->a_started);
		init_completion(&p->b_done);
		p->cpu = cpu;
		p->b_cpu = -1;
		p->a_spin = spin;
		FWQ_EXPECT(t, fwq_queue_work_on(cpu, wqa, &p->a));
		n++;
	}
	for (i = 0; i < n; i++) {
		struct cm_pair *p = &pairs[i];

		/* B goes in behind A, which is running on the CPU */
		if (!fwqt_wait(t, &p->a_started, "item A start")) {
			/* let A stop waiting for B; pairs with A's acquire */
			smp_store_release(&p->b_queued, true);
			continue;
		}
		FWQ_EXPECT(t, fwq_queue_work_on(p->cpu, wqb, &p->b));
		/* pairs with A's acquire */
		smp_store_release(&p->b_queued, true);
	}
	fwq_flush_workqueue(wqa);
	fwq_flush_workqueue(wqb);
	for (i = 0; i < n; i++) {
		struct cm_pair *p = &pairs[i];

		if (!p->a_saw_b && stalled++ < 4)
			fwq_ktap_diag("%s: cpu %d: B did not run while A %s",
				      kind, p->cpu, spin ? "spun" : "blocked");
		if (p->b_early && !spin)
			fwq_ktap_diag("%s: cpu %d: B ran while A still ran (no CM?)",
				      kind, p->cpu);
		if (p->b_cpu != p->cpu && wrong_cpu++ < 4)
			fwq_ktap_diag("%s: B for cpu %d ran on cpu %d", kind,
				      p->cpu, p->b_cpu);
	}
	FWQ_EXPECT_EQ(t, stalled, 0);
	FWQ_EXPECT_EQ(t, wrong_cpu, 0);
	kfree(pairs);
	return n;
}

#define CM_THRESH	"cpu_intensive_thresh_us"

/*
 * Set fwq.ko's cpu_intensive_thresh_us to @val for a case, keeping the old
 * value in @old (empty if fwq.ko has no such parameter: nothing is set).
 * Returns true if the value was written.
 */
static bool cm_thresh_set(const char *val, char *old, size_t len)
{
	old[0] = '\0';
	if (fwqt_param_read(CM_THRESH, old, len) <= 0) {
		old[0] = '\0';
		return false;
	}
	return fwqt_param_write(CM_THRESH, val) > 0;
}

static void cm_thresh_restore(struct fwq_ktap_test *t, const char *old)
{
	if (old[0])
		FWQ_EXPECT(t, fwqt_param_write(CM_THRESH, old) > 0);
}

/* is concurrency management on (cm_mode=notifier)? */
static bool cm_on(void)
{
	char buf[32];

	return fwqt_param_read("cm_mode", buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "notifier");
}

/*
 * Invariant: on a per-CPU workqueue, an item that blocks does not
 * stall the items queued behind it on its CPU: they run, on that CPU,
 * while it is blocked.
 */
static void test_cm_blocking(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	char old[32];

	/*
	 * A spins (counted) until B is queued, which takes long under TCG:
	 * the auto-detection could flag A and start B before A sleeps, and
	 * the case would no longer show that the sleep starts B.
	 */
	cm_thresh_set("0", old, sizeof(old));
	fwqt_variant(t, &v, W);
	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 0);
	if (!wq)
		goto out;
	cm_run(t, wq, wq, false, "percpu");
	fwq_destroy_workqueue(wq);

	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU | FWQ_HIGHPRI, 0);
	if (!wq)
		goto out;
	cm_run(t, wq, wq, false, "percpu,highpri");
	fwq_destroy_workqueue(wq);
out:
	cm_thresh_restore(t, old);
}

/*
 * Invariant: an FWQ_CPU_INTENSIVE item leaves concurrency
 * management: while it keeps its CPU busy without sleeping, an item of
 * another per-CPU workqueue queued behind it on that CPU still runs.
 */
static void test_cm_intensive(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wqa, *wqb;
	struct fwq_variant v;

	fwqt_variant(t, &v, W);
	wqa = fwqt_alloc_wq(t, &v, FWQ_PERCPU | FWQ_CPU_INTENSIVE, 0);
	wqb = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 0);
	if (wqa && wqb)
		cm_run(t, wqa, wqb, true, "cpu_intensive");
	fwqt_destroy_wq(wqa);
	fwqt_destroy_wq(wqb);
}

/*
 * Invariant: an item of a per-CPU workqueue without FWQ_CPU_INTENSIVE that
 * keeps its CPU busy without sleeping past cpu_intensive_thresh_us leaves
 * concurrency management: an item queued behind it on that CPU runs while
 * it still spins, and the workqueue's cpu_intensive counter counts it.
 * Without the detection A spins until the hang guard and the case fails.
 */
static void test_cm_auto_intensive(struct fwq_ktap_test *t)
{
	struct fwq_wq_stats before, after;
	struct fwq_workqueue *wq;
	char old[32];
	int n;

	if (!cm_on()) {
		FWQ_KTAP_SKIP(t, "cm_mode=off: no concurrency management");
		return;
	}
	if (!fwqt_param_exists(CM_THRESH)) {
		FWQ_KTAP_SKIP(t, "fwq.ko has no " CM_THRESH " parameter");
		return;
	}
	wq = fwqt_case_wq(t, W, FWQ_PERCPU, 0);
	if (!wq)
		return;
	/* low, so that TCG gets there soon; no timing is asserted */
	if (FWQ_EXPECT(t, cm_thresh_set("2000", old, sizeof(old)))) {
		fwq_workqueue_get_stats(wq, &before);
		n = cm_run(t, wq, wq, true, "auto_cpu_intensive");
		fwq_workqueue_get_stats(wq, &after);
		fwq_ktap_diag("%d pairs, cpu_intensive %llu -> %llu", n,
			      before.cpu_intensive, after.cpu_intensive);
		/* every A was flagged: B could not start otherwise */
		FWQ_EXPECT(t, after.cpu_intensive - before.cpu_intensive >= n);
	}
	cm_thresh_restore(t, old);
	fwq_destroy_workqueue(wq);
}

FWQ_KTAP_SUITE(fwq_suite_cm, "fwq_cm",
	       FWQT_CASE("blocking_item_does_not_stall_cpu",
			 test_cm_blocking, W),
	       FWQT_CASE("cpu_intensive_does_not_stall_cpu",
			 test_cm_intensive, W),
	       FWQT_CASE("long_busy_item_does_not_stall_cpu",
			 test_cm_auto_intensive, W));
