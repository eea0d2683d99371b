// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_torture: locktorture-style stress test and race reproducers for fwq.
 *
 *	insmod fwq_torture.ko [mode=torture|h1|h8|cmsb|inflight|spiral]
 *		[variant=...] [duration=60]
 *		[stat_interval=10] [nproducers=-1] [nflushers=2] [nchurn=1]
 *		[wq_types=0xf] [max_active=4] [onoff_interval=0]
 *		[onoff_holdoff=2] [stutter=0] [seed=0] [trials=200]
 *		[expect_fail=0] [verbose=0] [target=fwq] [items=2000]
 *		[max_workers=0] [strict=0]
 *
 * The test runs inside module init: insmod returns when it is over and the
 * module then only waits to be removed. The verdict is the KTAP result and
 * the End line, not insmod's exit status: init returns 0 either way,
 * because busybox insmod retries a failed finit_module() with
 * init_module(), which would run a failed test twice. Only bad parameters
 * make the load fail. The console shows
 *
 *	fwq-torture: --- Start of test: <every parameter>
 *	fwq-torture: ver: N ... (every stat_interval; N strictly increases)
 *	fwq-torture: --- End of test: SUCCESS|FAILURE: <every parameter>
 *
 * and a KTAP document with one result. Stats lines carry "???" when
 * something looks suspicious (no progress while not stuttering) and "!!!"
 * once an invariant failed. Nothing is timed: checks are on counts, and the
 * duration only bounds the run. Every item queued must run exactly once,
 * with wakeups deferred past the pool lock (docs/hazards.md H3) and under
 * CPU hotplug churn that retires and replaces pwqs (H11, onoff_interval).
 *
 * mode=spiral (spiral.c) queues items distinct items from each of
 * nproducers threads on one unbound workqueue, fwq's (target=fwq, the
 * variant given) or the kernel's (target=kwq), counts each unbound pool's
 * workers meanwhile, and fails if an item was lost or a pool that grew
 * had more than max_workers (0: no check). duration is its hard bound:
 * the load stops there and what has not started is cancelled. The
 * workqueue stays until rmmod, for the plan to read fwq's debugfs pools.
 *
 * mode=inflight starts the same stress threads and returns from init at
 * once; the module exit stops them and runs the final checks, so rmmod
 * happens with work in flight (the load/unload loops under kmemleak).
 */
#define pr_fmt(fmt) "fwq-torture: " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "torture.h"
#include "../module_util.h"

static char *mode = "torture";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "torture (stress), h1, h8 or cmsb (race reproducers), inflight (stress until rmmod), spiral (worker count under load)");

FWQT_VARIANT_PARAM("");

static int duration = 60;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds the stress runs; spiral: its hard bound (1..86400)");

static int stat_interval = 10;
module_param(stat_interval, int, 0444);
MODULE_PARM_DESC(stat_interval, "seconds between stats lines (1..3600)");

static int nproducers = -1;
module_param(nproducers, int, 0444);
MODULE_PARM_DESC(nproducers, "producer threads; -1: one per online CPU (max 64)");

static int nflushers = 2;
module_param(nflushers, int, 0444);
MODULE_PARM_DESC(nflushers, "flusher/max_active threads (0..16)");

static int nchurn = 1;
module_param(nchurn, int, 0444);
MODULE_PARM_DESC(nchurn, "workqueue alloc/destroy threads (0..8)");

static int wq_types = 0xf;
module_param(wq_types, int, 0444);
MODULE_PARM_DESC(wq_types, "mask: 1 per-cpu, 2 unbound, 4 ordered, 8 highpri");

static int max_active = 4;
module_param(max_active, int, 0444);
MODULE_PARM_DESC(max_active, "initial max_active of the shared workqueues (1..64)");

static int onoff_interval;
module_param(onoff_interval, int, 0444);
MODULE_PARM_DESC(onoff_interval, "ms between CPU hotplug operations, 0: none");

static int onoff_holdoff = 2;
module_param(onoff_holdoff, int, 0444);
MODULE_PARM_DESC(onoff_holdoff, "seconds before the first hotplug operation");

static int stutter;
module_param(stutter, int, 0444);
MODULE_PARM_DESC(stutter, "seconds of load, then as many paused (idle cull), 0: none");

static uint seed;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "random seed, 0: pick one (printed)");

static int trials = 200;
module_param(trials, int, 0444);
MODULE_PARM_DESC(trials, "h1/h8/cmsb: number of trials (1..100000)");

static bool expect_fail;
module_param(expect_fail, bool, 0444);
MODULE_PARM_DESC(expect_fail, "h1/h8/cmsb: the variant has the hole; pass only if caught");

static bool selfcheck;
module_param(selfcheck, bool, 0444);
MODULE_PARM_DESC(selfcheck, "hide one execution from the accounting: the run must FAIL");

static char *target = "fwq";
module_param(target, charp, 0444);
MODULE_PARM_DESC(target, "spiral: fwq (fwq.ko, the variant given) or kwq (the kernel's workqueue)");

static uint items = 2000;
module_param(items, uint, 0444);
MODULE_PARM_DESC(items, "spiral: items queued by each producer (1..1000000)");

static int max_workers;
module_param(max_workers, int, 0444);
MODULE_PARM_DESC(max_workers, "spiral: the most workers a pool that grew may have, 0: no check");

static bool strict;
module_param(strict, bool, 0444);
MODULE_PARM_DESC(strict, "spiral, target=fwq: strict pods (workers only on their pod's CPUs)");

int tt_verbose;
module_param_named(verbose, tt_verbose, int, 0444);
MODULE_PARM_DESC(verbose, "more log lines");

struct tt_stats tt_stats;
atomic_t tt_selfcheck_armed;
bool tt_stopping;
struct fwq_variant tt_variant;

#define TT_MAX_REPORTS	10

void tt_report(atomic_t *count, bool fail, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (atomic_inc_return(count) > TT_MAX_REPORTS)
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (fail)
		pr_err("!!! %pV", &vaf);
	else
		pr_warn("??? %pV", &vaf);
	va_end(args);
}

char tt_vstr[96];

static void tt_print_params(const char *tag)
{
	pr_alert("--- %s: mode=%s variant=%s duration=%d stat_interval=%d nproducers=%d nflushers=%d nchurn=%d wq_types=%#x max_active=%d onoff_interval=%d onoff_holdoff=%d stutter=%d seed=%u trials=%d expect_fail=%d selfcheck=%d verbose=%d target=%s items=%u max_workers=%d strict=%d fwq=%s\n",
		 tag, mode, tt_vstr, duration, stat_interval, nproducers,
		 nflushers, nchurn, wq_types, max_active, onoff_interval,
		 onoff_holdoff, stutter, seed, trials, expect_fail, selfcheck,
		 tt_verbose, target, items, max_workers, strict,
		 fwq_version());
}

static unsigned long tt_ver;
static bool tt_inflight;		/* mode=inflight, running until rmmod */
static u64 tt_last_ran;

static void tt_print_stats(bool final)
{
	bool progress = final || tt_stress_producers_progress();
	u64 ran = atomic64_read(&tt_stats.ran);
	bool stuttered = READ_ONCE(tt_stuttered);
	const char *mark = "";

	WRITE_ONCE(tt_stuttered, false);
	if (!final && !stuttered && (!progress || ran == tt_last_ran))
		tt_anomaly("no progress in the last %d s\n", stat_interval);
	tt_last_ran = ran;
	if (atomic_read(&tt_stats.fail))
		mark = " !!!";
	else if (atomic_read(&tt_stats.anomalies))
		mark = " ???";
	pr_alert("ver: %lu ops: %llu queued: %llu ran: %llu cancelled: %llu flush_wq: %llu flush_work: %llu flush_checked: %llu flush_skipped: %llu exact: %llu order: %llu set_max_active: %llu churn: %llu onoff: %d/%d ebusy: %d fail: %d anomalies: %d%s\n",
		 ++tt_ver, atomic64_read(&tt_stats.ops),
		 atomic64_read(&tt_stats.queued), ran,
		 atomic64_read(&tt_stats.cancelled),
		 atomic64_read(&tt_stats.flush_wq),
		 atomic64_read(&tt_stats.flush_work),
		 atomic64_read(&tt_stats.flush_checked),
		 atomic64_read(&tt_stats.flush_skipped),
		 atomic64_read(&tt_stats.exact_checks),
		 atomic64_read(&tt_stats.order_checks),
		 atomic64_read(&tt_stats.set_max_active),
		 atomic64_read(&tt_stats.churn_cycles),
		 atomic_read(&tt_stats.onoff_ok),
		 atomic_read(&tt_stats.onoff_attempts),
		 atomic_read(&tt_stats.onoff_ebusy),
		 atomic_read(&tt_stats.fail),
		 atomic_read(&tt_stats.anomalies), mark);
}

/* one-line error for a bad parameter, as every fwq interface does */
static int tt_bad(const char *name, long val)
{
	pr_err("invalid parameter %s=%ld\n", name, val);
	return -EINVAL;
}

static int tt_check_params(void)
{
	if (duration < 1 || duration > 86400)
		return tt_bad("duration", duration);
	if (stat_interval < 1 || stat_interval > 3600)
		return tt_bad("stat_interval", stat_interval);
	if (nproducers == -1)
		nproducers = min_t(int, num_online_cpus(), 64);
	if (nproducers < 1 || nproducers > 64)
		return tt_bad("nproducers", nproducers);
	if (nflushers < 0 || nflushers > 16)
		return tt_bad("nflushers", nflushers);
	if (nchurn < 0 || nchurn > 8)
		return tt_bad("nchurn", nchurn);
	if (wq_types <= 0 || wq_types >= BIT(TT_WQ_NR))
		return tt_bad("wq_types", wq_types);
	if (max_active < 1 || max_active > 64)
		return tt_bad("max_active", max_active);
	if (onoff_interval < 0 || onoff_interval > 3600000)
		return tt_bad("onoff_interval", onoff_interval);
	if (onoff_holdoff < 0 || onoff_holdoff > 3600)
		return tt_bad("onoff_holdoff", onoff_holdoff);
	if (stutter < 0 || stutter > 3600)
		return tt_bad("stutter", stutter);
	if (trials < 1 || trials > 100000)
		return tt_bad("trials", trials);
	if (tt_verbose < 0 || tt_verbose > 2)
		return tt_bad("verbose", tt_verbose);
	if (items < 1 || items > 1000000)
		return tt_bad("items", items);
	if (max_workers < 0)
		return tt_bad("max_workers", max_workers);
	if (strcmp(target, "fwq") && strcmp(target, "kwq")) {
		pr_err("invalid parameter target=%s\n", target);
		return -EINVAL;
	}
	if (strict && !strcmp(target, "kwq"))
		return tt_bad("strict (target=kwq)", strict);
	if (fwqt_variant_param(variant, &tt_variant))
		return -EINVAL;
	if (strcmp(mode, "torture") && strcmp(mode, "h1") &&
	    strcmp(mode, "h8") && strcmp(mode, "cmsb") &&
	    strcmp(mode, "inflight") && strcmp(mode, "spiral")) {
		pr_err("invalid parameter mode=%s\n", mode);
		return -EINVAL;
	}
	return 0;
}

static void tt_ktap(bool ok, const char *detail)
{
	char name[32];

	snprintf(name, sizeof(name), "fwq_torture_%s", mode);
	tt_ktap_result(ok, name, detail);
}

/* Wait for the duration, printing stats; false if interrupted. */
static bool tt_run_for_duration(void)
{
	unsigned long end = jiffies + (unsigned long)duration * HZ;
	unsigned long next = jiffies + (unsigned long)stat_interval * HZ;

	while (time_before(jiffies, end)) {
		if (signal_pending(current))
			return false;
		schedule_timeout_interruptible(HZ / 5);
		if (time_after_eq(jiffies, next)) {
			tt_print_stats(false);
			next += (unsigned long)stat_interval * HZ;
		}
	}
	return true;
}

static int tt_start(void)
{
	int ret;

	ret = tt_stress_start(nproducers, nflushers, nchurn, seed, wq_types,
			      max_active);
	if (!ret)
		ret = tt_onoff_start(onoff_interval, onoff_holdoff, seed ^ 0x5a5a);
	if (!ret)
		ret = tt_stutter_start(stutter);
	if (ret)
		tt_fail("setup failed: %d\n", ret);
	return ret;
}

/* stop everything, final checks and the KTAP result; 0 or -EINVAL */
static int tt_finish(void)
{
	char detail[200];

	/* cleanup order: churn threads, CPUs back, workers, final checks */
	tt_stutter_stop();
	tt_onoff_stop();
	tt_stress_stop();
	tt_print_stats(true);

	snprintf(detail, sizeof(detail),
		 "variant %s: %llu ran, %llu flush checks, %d/%d hotplug ops, %d failures",
		 tt_vstr, atomic64_read(&tt_stats.ran),
		 atomic64_read(&tt_stats.flush_checked),
		 atomic_read(&tt_stats.onoff_ok),
		 atomic_read(&tt_stats.onoff_attempts),
		 atomic_read(&tt_stats.fail));
	/* selfcheck: the hidden run must have been caught */
	if (selfcheck)
		strlcat(detail, " (selfcheck: failures expected)", sizeof(detail));
	tt_ktap(selfcheck ? !!atomic_read(&tt_stats.fail) :
			    !atomic_read(&tt_stats.fail), detail);
	return atomic_read(&tt_stats.fail) ? -EINVAL : 0;
}

static int tt_torture(void)
{
	if (!tt_start() && !tt_run_for_duration())
		tt_fail("interrupted before the end of the duration\n");
	return tt_finish();
}

static int __init fwq_torture_init(void)
{
	int ret;

	ret = tt_check_params();
	if (ret)
		return ret;
	if (!seed)
		seed = get_random_u32() | 1;
	atomic_set(&tt_selfcheck_armed, selfcheck);
	fwq_variant_str(&tt_variant, tt_vstr, sizeof(tt_vstr));
	tt_print_params("Start of test");

	if (!strcmp(mode, "inflight")) {
		ret = tt_start();
		if (!ret) {
			tt_inflight = true;
			pr_info("inflight: running until rmmod\n");
			return 0;
		}
		tt_finish();
		tt_print_params("End of test: FAILURE");
		return 0;
	}
	if (!strcmp(mode, "h1"))
		ret = tt_repro_h1(trials, expect_fail, seed);
	else if (!strcmp(mode, "h8"))
		ret = tt_repro_h8(trials, expect_fail, seed);
	else if (!strcmp(mode, "cmsb"))
		ret = tt_repro_cmsb(trials, expect_fail, seed);
	else if (!strcmp(mode, "spiral"))
		ret = tt_spiral(!strcmp(target, "kwq"), nproducers, items,
				duration, max_workers, strict);
	else
		ret = tt_torture();

	tt_print_params(ret ? "End of test: FAILURE" : "End of test: SUCCESS");
	return 0;
}

static void __exit fwq_torture_exit(void)
{
	int ret;

	/* spiral kept its workqueue for the plan's debugfs read */
	tt_spiral_exit();
	/* other modes tore everything down before init returned */
	if (!tt_inflight)
		return;
	ret = tt_finish();
	tt_print_params(ret ? "End of test: FAILURE" : "End of test: SUCCESS");
}

module_init(fwq_torture_init);
module_exit(fwq_torture_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq torture test and race reproducers");
MODULE_INFO(test, "Y");
MODULE_VERSION(FWQ_VERSION);
