// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_torture: race reproducers for hazards H1, H8 and H17
 * (docs/hazards.md).
 *
 * H8, the retired flush colour: "flush; queue a slow item to a pwq that was
 * idle; flush; the item must have run". A flush that skips idle pwqs
 * without the per-node list protocol leaves the idle pwq's colour behind,
 * the item is stamped with the retired colour, and the second flush
 * returns before it ran. The check is on counts only: it cannot fail on
 * a correct flush, whatever the timing; the slow item only makes the wrong
 * answer visible. fwq.ko's dbg_flush_skip_idle=1 is the broken mode.
 *
 * H1, the idle cull reaping a kicked worker: fwq.ko's dbg_kick_delay_us
 * holds the wakeup after the kick, dbg_force_cull runs a floor-less cull in
 * that window, and the counter "kicked_reaped" (fwq_debug_counter()) counts
 * workers the cull set dying with a kick outstanding: the deterministic
 * failure signal. A stranded item is also looked for: if the trial's item
 * has been pending without running for a while, the trial queues a rescue
 * item to kick the pool again, and counts a stranding. That wait is a
 * heuristic, so for a variant expected to pass it is reported as an
 * anomaly, never as a failure; failures are counter based.
 *
 * H17, CM store buffering (mode=cmsb): item A runs on a per-CPU
 * workqueue on CPU X, and item B is queued behind it from another CPU
 * while A blocks waiting for B. fwq.ko's dbg_cm_sb knob holds B's enqueue
 * inside its window (see fwq_cm_dbg_sb_insert()) and bumps the counter
 * "cm_sb_windows"; A polls that counter, so that it blocks exactly inside
 * the window. dbg_cm_sb=1 puts the enqueue's nr_running read before its
 * insert, as a store buffer may without the barrier, and B must be lost:
 * A's wait for it times out (CMSB_LOST_MS) and B runs only after A
 * returns. dbg_cm_sb=2 keeps the fixed order and B must run while A
 * waits. A trial whose window did not open counts as a failure either
 * way, so that a knob which is off cannot pass for a fix.
 */
#define pr_fmt(fmt) "fwq-torture: " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "torture.h"

struct rp_item {
	struct fwq_work work;
	atomic_t done;
	unsigned int sleep_ms;
};

static void rp_fn(struct fwq_work *work)
{
	struct rp_item *ri = container_of(work, struct rp_item, work);

	if (ri->sleep_ms)
		msleep(ri->sleep_ms);
	atomic_inc(&ri->done);
}

static void rp_item_init(struct rp_item *ri, unsigned int sleep_ms)
{
	FWQ_INIT_WORK(&ri->work, rp_fn);
	atomic_set(&ri->done, 0);
	ri->sleep_ms = sleep_ms;
}

/* wait until @ri has run @target times; false on a signal */
static bool rp_wait_done(struct rp_item *ri, int target)
{
	while (atomic_read(&ri->done) < target) {
		if (signal_pending(current))
			return false;
		fwq_flush_work(&ri->work);
		if (atomic_read(&ri->done) < target)
			schedule_timeout_interruptible(1);
	}
	return true;
}

static int rp_verdict(const char *name, int run, int failures,
		      bool expect_fail, const char *extra)
{
	bool ok = expect_fail ? failures > 0 : failures == 0;
	char detail[160], ktname[32];

	pr_alert("%s: variant=%s trials=%d failures=%d expect_fail=%d%s -> %s\n",
		 name, tt_vstr, run, failures, expect_fail,
		 extra, ok ? "PASS" : "FAIL");
	snprintf(detail, sizeof(detail), "variant %s trials %d failures %d%s",
		 tt_vstr, run, failures, expect_fail ? " (hole expected)" : "");
	snprintf(ktname, sizeof(ktname), "fwq_torture_%s", name);
	tt_ktap_result(ok, ktname, detail);
	if (!ok)
		atomic_inc(&tt_stats.fail);
	return ok ? 0 : -EINVAL;
}

/* a second online CPU, on another node when there is one */
static int rp_other_cpu(int a, struct rnd_state *rs)
{
	int cpu, best = -1;

	for_each_online_cpu(cpu) {
		if (cpu == a)
			continue;
		if (cpu_to_node(cpu) != cpu_to_node(a) &&
		    (best < 0 || cpu_to_node(best) == cpu_to_node(a) ||
		     !tt_rand(rs, 2)))
			best = cpu;
		else if (best < 0)
			best = cpu;
	}
	return best;
}

/*
 * One H8 trial: an item in flight on pwq Y makes F1 a real flush (it
 * advances the colour and waits), while pwq X is idle; then an item is
 * queued on X and F2 must wait for it. The broken flush skips X in F1,
 * so X keeps the retired colour and F2 does not see the item.
 */
int tt_repro_h8(unsigned int trials, bool expect_fail, u32 seed)
{
	struct fwq_workqueue *wqs[2];
	struct rp_item *hold, *slow;
	struct rnd_state rs;
	int t, run = 0, failures = 0, ret = 0;

	prandom_seed_state(&rs, seed);
	if (num_online_cpus() < 2) {
		pr_info("h8: needs 2 online CPUs\n");
		return rp_verdict("h8", 0, 0, false, " (skipped: 1 CPU)");
	}
	hold = kzalloc(sizeof(*hold), GFP_KERNEL);
	slow = kzalloc(sizeof(*slow), GFP_KERNEL);
	wqs[0] = fwq_alloc_workqueue_variant(&tt_variant, "fwqt_h8_pcpu", 0, 0);
	wqs[1] = fwq_alloc_workqueue_variant(&tt_variant, "fwqt_h8_unbound",
					     FWQ_UNBOUND, 0);
	if (!hold || !slow || !wqs[0] || !wqs[1]) {
		ret = -ENOMEM;
		goto out;
	}
	rp_item_init(hold, 20);
	rp_item_init(slow, 20);

	for (t = 0; t < trials; t++) {
		struct fwq_workqueue *wq = wqs[t & 1];
		int a = tt_random_online_cpu(&rs);
		int b = rp_other_cpu(a, &rs);
		int before, hbefore;

		if (signal_pending(current) || b < 0)
			break;
		hbefore = atomic_read(&hold->done);
		fwq_queue_work_on(a, wq, &hold->work);
		/* F1: waits for hold on Y; X (b's pwq) is idle */
		fwq_flush_workqueue(wq);

		before = atomic_read(&slow->done);
		if ((t & 3) == 3)
			fwq_queue_work_node(cpu_to_node(b), wq, &slow->work);
		else
			fwq_queue_work_on(b, wq, &slow->work);
		/* F2 must wait for the slow item queued before it */
		fwq_flush_workqueue(wq);
		run++;
		if (atomic_read(&slow->done) == before) {
			failures++;
			if (failures <= 10)
				pr_err("%s h8 trial %d (%s wq, CPUs %d/%d): flush returned before an item queued before it ran\n",
				       expect_fail ? "(expected)" : "!!!", t,
				       (t & 1) ? "unbound" : "per-cpu", a, b);
		}
		/* resynchronise for the next trial */
		if (!rp_wait_done(slow, before + 1) ||
		    !rp_wait_done(hold, hbefore + 1))
			break;
	}
	if (run < trials)
		tt_anomaly("h8: stopped after %d of %u trials\n", run, trials);
out:
	if (wqs[0])
		fwq_destroy_workqueue(wqs[0]);
	if (wqs[1])
		fwq_destroy_workqueue(wqs[1]);
	kfree(slow);
	kfree(hold);
	if (ret) {
		tt_fail("h8: setup failed: %d\n", ret);
		return ret;
	}
	return rp_verdict("h8", run, failures, expect_fail, "");
}

#define CMSB_LOST_MS	3000	/* A gives up waiting for B: a lost wakeup */
#define CMSB_POLL_MS	10000	/* A gives up waiting for the window */

struct cmsb_pair {
	struct fwq_work warm;
	struct fwq_work a;
	struct fwq_work b;
	struct completion a_started;
	struct completion b_done;
	u64 windows0;
	bool window;		/* A saw the enqueue's window open */
	bool a_saw_b;		/* B ran while A waited for it */
};

/* true if @c completed within @ms */
static bool cmsb_wait_ms(struct completion *c, unsigned int ms)
{
	return wait_for_completion_timeout(c, msecs_to_jiffies(ms)) != 0;
}

static void cmsb_a_fn(struct fwq_work *work)
{
	struct cmsb_pair *p = container_of(work, struct cmsb_pair, a);
	unsigned long end = jiffies + msecs_to_jiffies(CMSB_POLL_MS);

	complete(&p->a_started);
	/* running (counted in nr_running) until B's enqueue is in its window */
	while (fwq_debug_counter("cm_sb_windows") == p->windows0) {
		if (time_after(jiffies, end))
			break;
		cond_resched();
	}
	p->window = fwq_debug_counter("cm_sb_windows") != p->windows0;
	/* blocks: the scheduler switches away from this worker */
	p->a_saw_b = cmsb_wait_ms(&p->b_done, CMSB_LOST_MS);
}

static void cmsb_warm_fn(struct fwq_work *work)
{
}

static void cmsb_b_fn(struct fwq_work *work)
{
	struct cmsb_pair *p = container_of(work, struct cmsb_pair, b);

	complete(&p->b_done);
}

int tt_repro_cmsb(unsigned int trials, bool expect_fail, u32 seed)
{
	struct fwq_workqueue *wq;
	struct cmsb_pair *p;
	struct rnd_state rs;
	int t, run = 0, lost = 0, closed = 0, ret = 0;
	char extra[96];

	prandom_seed_state(&rs, seed);
	if (num_online_cpus() < 2) {
		pr_info("cmsb: needs 2 online CPUs\n");
		return rp_verdict("cmsb", 0, 0, false, " (skipped: 1 CPU)");
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	wq = fwq_alloc_workqueue_variant(&tt_variant, "fwqt_cmsb", 0, 0);
	if (!p || !wq) {
		ret = -ENOMEM;
		goto out;
	}
	FWQ_INIT_WORK(&p->warm, cmsb_warm_fn);
	FWQ_INIT_WORK(&p->a, cmsb_a_fn);
	FWQ_INIT_WORK(&p->b, cmsb_b_fn);

	for (t = 0; t < trials; t++) {
		int here, x;

		if (signal_pending(current))
			break;
		init_completion(&p->a_started);
		init_completion(&p->b_done);
		p->window = false;
		p->a_saw_b = false;
		p->windows0 = fwq_debug_counter("cm_sb_windows");
		/* the enqueue spins in its window: never on A's CPU */
		migrate_disable();
		here = raw_smp_processor_id();
		x = rp_other_cpu(here, &rs);
		/*
		 * A worker that starts up, or one still on its way to idle,
		 * would find B: run one item first, so that the pool's spare
		 * idle worker exists, and let every worker settle idle.
		 */
		fwq_queue_work_on(x, wq, &p->warm);
		fwq_flush_work(&p->warm);
		schedule_timeout_uninterruptible(msecs_to_jiffies(20));
		fwq_queue_work_on(x, wq, &p->a);
		wait_for_completion(&p->a_started);
		fwq_queue_work_on(x, wq, &p->b);
		migrate_enable();
		fwq_flush_workqueue(wq);
		run++;
		if (!p->window) {
			closed++;
			pr_err("cmsb trial %d (CPU %d): the enqueue window never opened (dbg_cm_sb off, or cm_mode=off?)\n",
			       t, x);
		} else if (!p->a_saw_b) {
			lost++;
			if (lost <= 10)
				pr_err("%s cmsb trial %d (CPU %d): B sat on the worklist while A waited %d ms for it: lost wakeup\n",
				       expect_fail ? "(expected)" : "!!!", t, x,
				       CMSB_LOST_MS);
		}
	}
	if (run < trials)
		tt_anomaly("cmsb: interrupted after %d of %u trials\n", run,
			   trials);
out:
	if (wq)
		fwq_destroy_workqueue(wq);
	kfree(p);
	if (ret) {
		tt_fail("cmsb: setup failed: %d\n", ret);
		return ret;
	}
	snprintf(extra, sizeof(extra), " lost=%d window_closed=%d", lost,
		 closed);
	/* a closed window is a failure in both directions */
	if (closed)
		return rp_verdict("cmsb", run, expect_fail ? 0 : closed,
				  expect_fail, extra);
	return rp_verdict("cmsb", run, lost, expect_fail, extra);
}

#define H1_SPAWN	6	/* sleeping items that build up idle workers */
#define H1_STALL_S	3	/* pending this long without running: rescue */

int tt_repro_h1(unsigned int trials, bool expect_fail, u32 seed)
{
	struct fwq_workqueue *wq;
	struct rp_item *spawn, *item, *rescue;
	struct rnd_state rs;
	int i, t, run = 0, reaped_trials = 0, stranded = 0, ret = 0;
	u64 reaped = 0, rekick = 0, d;
	char extra[128];

	prandom_seed_state(&rs, seed);

	spawn = kcalloc(H1_SPAWN, sizeof(*spawn), GFP_KERNEL);
	item = kzalloc(sizeof(*item), GFP_KERNEL);
	rescue = kzalloc(sizeof(*rescue), GFP_KERNEL);
	wq = fwq_alloc_workqueue_variant(&tt_variant, "fwqt_h1", 0, 16);
	if (!spawn || !item || !rescue || !wq) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < H1_SPAWN; i++)
		rp_item_init(&spawn[i], 3);
	rp_item_init(item, 0);
	rp_item_init(rescue, 0);

	for (t = 0; t < trials; t++) {
		int cpu = tt_random_online_cpu(&rs);
		unsigned long since;
		u64 r0, k0;
		int before;

		if (signal_pending(current))
			break;
		/* sleeping items: concurrency management wakes more workers */
		for (i = 0; i < H1_SPAWN; i++)
			fwq_queue_work_on(cpu, wq, &spawn[i].work);
		fwq_flush_workqueue(wq);
		/* let the kicker's CPU and the workers settle idle */
		schedule_timeout_interruptible(1 + tt_rand(&rs, 3));

		r0 = fwq_debug_counter("kicked_reaped");
		k0 = fwq_debug_counter("cull_rekick");
		before = atomic_read(&item->done);
		fwq_queue_work_on(cpu, wq, &item->work);
		since = jiffies;
		while (atomic_read(&item->done) == before) {
			if (signal_pending(current))
				goto interrupted;
			schedule_timeout_interruptible(HZ / 10);
			if (atomic_read(&item->done) != before)
				break;
			if (time_after(jiffies, since + H1_STALL_S * HZ) &&
			    (fwq_work_busy(&item->work) & FWQ_BUSY_PENDING)) {
				stranded++;
				tt_anomaly("h1 trial %d: item pending %d s, kicking again\n",
					   t, H1_STALL_S);
				fwq_queue_work_on(cpu, wq, &rescue->work);
				since = jiffies;
			}
		}
		run++;
		d = fwq_debug_counter("kicked_reaped") - r0;
		reaped += d;
		rekick += fwq_debug_counter("cull_rekick") - k0;
		if (d)
			reaped_trials++;
	}
interrupted:
	if (run < trials)
		tt_anomaly("h1: interrupted after %d of %u trials\n", run,
			   trials);
	fwq_flush_workqueue(wq);
out:
	if (wq)
		fwq_destroy_workqueue(wq);
	kfree(rescue);
	kfree(item);
	kfree(spawn);
	if (ret) {
		tt_fail("h1: setup failed: %d\n", ret);
		return ret;
	}
	snprintf(extra, sizeof(extra),
		 " kicked_reaped=%llu cull_rekick=%llu stranded=%d",
		 reaped, rekick, stranded);
	/* the failure signal is the counter: a kicked worker was reaped */
	if (!expect_fail && stranded)
		tt_anomaly("h1: %d strandings suspected (not a failure: timing based)\n",
			   stranded);
	return rp_verdict("h1", run, reaped_trials, expect_fail, extra);
}
