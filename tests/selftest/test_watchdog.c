// SPDX-License-Identifier: GPL-2.0
/*
 * The stall watchdog (src/watchdog.c): a pool with pending work and no
 * progress for watchdog_thresh_ms is reported once, and a pool whose
 * worklist never empties but whose items keep starting is not reported.
 * The reports are counted by the fwq.ko counter "watchdog_reports"
 * (debugfs debug_counters).
 *
 * The stall: on a per-CPU workqueue under concurrency management, item A
 * busy-waits on CPU X without sleeping, so it stays counted in nr_running
 * and item B, queued behind it on X, cannot start. With cm_mode=off every
 * enqueue wakes a worker and B would run: the stall case is skipped there.
 *
 * Both cases lower the threshold for their run and restore it after. The
 * counter is global: no other pool may stall while they run, which holds
 * because the suites run one case at a time.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define WD_KNOB		"watchdog_thresh_ms"
#define WD_CI_KNOB	"cpu_intensive_thresh_us"
#define WD_THRESH_MS	1000
/* busy_pool_not_reported: items and how long each keeps its CPU */
#define WD_CHAIN	150
#define WD_CHAIN_US	20000

/* the counter "watchdog_reports", or -1 */
static long long wd_reports(void)
{
	return fwqt_debug_counter("watchdog_reports");
}

/* set the threshold for the case; @old gets the value to restore */
static bool wd_lower(struct fwq_ktap_test *t, char *old, size_t len)
{
	char val[16];

	if (!FWQ_EXPECT(t, fwqt_param_read(WD_KNOB, old, len) > 0)) {
		fwq_ktap_diag("fwq.ko has no %s parameter", WD_KNOB);
		return false;
	}
	snprintf(val, sizeof(val), "%d", WD_THRESH_MS);
	return FWQ_EXPECT(t, fwqt_param_write(WD_KNOB, val) > 0);
}

/*
 * The workqueue of a case: per-CPU, of the module default variant.
 * @reports gets the number of watchdog reports before the case. NULL (the
 * case failed) if either cannot be had.
 */
static struct fwq_workqueue *wd_alloc(struct fwq_ktap_test *t,
				      long long *reports)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	long long base;

	fwqt_variant_of(0, 0, &v);
	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 0);
	if (!wq)
		return NULL;
	base = wd_reports();
	if (!FWQ_EXPECT(t, base >= 0)) {
		fwq_destroy_workqueue(wq);
		return NULL;
	}
	*reports = base;
	return wq;
}

struct wd_stall {
	struct fwq_work a;
	struct fwq_work b;
	struct completion a_started;
	struct completion b_done;
	bool release;		/* A may return */
};

static void wd_stall_a_fn(struct fwq_work *work)
{
	struct wd_stall *s = container_of(work, struct wd_stall, a);
	unsigned long end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);

	complete(&s->a_started);
	/* the worker stays in nr_running, so nothing starts B */
	fwqt_busy_until(&s->release, end);
}

static void wd_stall_b_fn(struct fwq_work *work)
{
	struct wd_stall *s = container_of(work, struct wd_stall, b);

	complete(&s->b_done);
}

/* poll until the counter passes @base; false on the hang guard */
static bool wd_wait_report(long long base, long long *now)
{
	unsigned long end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);

	do {
		*now = wd_reports();
		if (*now > base)
			return true;
		msleep(20);
	} while (time_before(jiffies, end));
	return false;
}

/*
 * Invariant: a per-CPU pool with an item pending behind a busy one, and no
 * item starting, is reported, and only once however long it stays so; once
 * it made progress (the pending item ran, the worklist is empty) it is not
 * reported again. The CPU-intensive detection (cpu_intensive_thresh_us,
 * src/cm.c) would let B start once A has spun past its threshold, so it is
 * off for the case.
 */
static void test_stall_reported_once(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq = NULL;
	long long base, seen = -1, after;
	char old[32], mode[16], ci_old[32];
	struct wd_stall *s;
	int cpu;

	if (fwqt_param_read("cm_mode", mode, sizeof(mode)) > 0 &&
	    !strcmp(mode, "off")) {
		FWQ_KTAP_SKIP(t, "cm_mode=off: a busy item does not hold its CPU's pool");
		return;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!FWQ_EXPECT(t, s))
		return;
	if (!wd_lower(t, old, sizeof(old))) {
		kfree(s);
		return;
	}
	if (fwqt_param_read(WD_CI_KNOB, ci_old, sizeof(ci_old)) <= 0)
		ci_old[0] = '\0';	/* no detection in this fwq.ko */
	else
		FWQ_EXPECT(t, fwqt_param_write(WD_CI_KNOB, "0") > 0);
	FWQ_INIT_WORK(&s->a, wd_stall_a_fn);
	FWQ_INIT_WORK(&s->b, wd_stall_b_fn);
	init_completion(&s->a_started);
	init_completion(&s->b_done);
	wq = wd_alloc(t, &base);
	if (!wq)
		goto out;

	cpu = fwqt_random_online_cpu();
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &s->a));
	if (!fwqt_wait(t, &s->a_started, "busy item start"))
		goto release;
	FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &s->b));
	fwq_ktap_diag("cpu %d stalled, threshold %d ms, reports before %lld",
		      cpu, WD_THRESH_MS, base);

	if (!FWQ_EXPECT(t, wd_wait_report(base, &seen))) {
		fwq_ktap_diag("hang guard: no report within %d ms", FWQT_HANG_MS);
		goto release;
	}
	/* reported while stalled: B has not run */
	FWQ_EXPECT(t, !completion_done(&s->b_done));
	/* three more thresholds of the same stall: no second report */
	msleep(3 * WD_THRESH_MS);
	after = wd_reports();
	fwq_ktap_diag("reports: %lld at the first, %lld three thresholds later",
		      seen, after);
	FWQ_EXPECT_EQ(t, seen, base + 1);
	FWQ_EXPECT_EQ(t, after, seen);
	FWQ_EXPECT(t, !completion_done(&s->b_done));
release:
	smp_store_release(&s->release, true);	/* pairs with A's acquire */
	fwq_flush_workqueue(wq);
	FWQ_EXPECT(t, completion_done(&s->b_done));
	if (seen > base) {
		/* progress made, the worklist empty: not reported again */
		msleep(2 * WD_THRESH_MS);
		FWQ_EXPECT_EQ(t, wd_reports(), seen);
	}
out:
	fwqt_destroy_wq(wq);
	if (ci_old[0])
		FWQ_EXPECT(t, fwqt_param_write(WD_CI_KNOB, ci_old) > 0);
	fwqt_param_restore(WD_KNOB, old);
	kfree(s);
}

struct wd_chain {
	struct fwq_work work;
	atomic_t *ran;
};

static void wd_chain_fn(struct fwq_work *work)
{
	struct wd_chain *c = container_of(work, struct wd_chain, work);

	fwqt_spin_us(WD_CHAIN_US);
	atomic_inc(c->ran);
}

/*
 * Invariant: a pool whose worklist stays non-empty for several thresholds
 * is not reported while its items keep starting: progress is an item
 * starting, not the worklist running empty. Each item keeps the CPU for a
 * fiftieth of the threshold; under concurrency management one worker runs
 * them one after the other.
 */
static void test_busy_pool_not_reported(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq = NULL;
	struct wd_chain *items;
	long long base, after;
	atomic_t ran;
	char old[32];
	int cpu, i;

	items = kcalloc(WD_CHAIN, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, items))
		return;
	if (!wd_lower(t, old, sizeof(old))) {
		kfree(items);
		return;
	}
	atomic_set(&ran, 0);
	wq = wd_alloc(t, &base);
	if (!wq)
		goto out;
	cpu = fwqt_random_online_cpu();
	for (i = 0; i < WD_CHAIN; i++) {
		FWQ_INIT_WORK(&items[i].work, wd_chain_fn);
		items[i].ran = &ran;
		FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &items[i].work));
	}
	fwq_flush_workqueue(wq);
	after = wd_reports();
	fwq_ktap_diag("cpu %d: %d items of %d us, reports %lld -> %lld", cpu,
		      atomic_read(&ran), WD_CHAIN_US, base, after);
	FWQ_EXPECT_EQ(t, atomic_read(&ran), WD_CHAIN);
	FWQ_EXPECT_EQ(t, after, base);
out:
	fwqt_destroy_wq(wq);
	fwqt_param_restore(WD_KNOB, old);
	kfree(items);
}

FWQ_KTAP_SUITE(fwq_suite_watchdog, "fwq_watchdog",
	       { .name = "stalled_pool_reported_once",
		 .run = test_stall_reported_once },
	       { .name = "busy_pool_not_reported",
		 .run = test_busy_pool_not_reported });
