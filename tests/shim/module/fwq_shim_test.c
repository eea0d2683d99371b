// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_shim_test: a module written with the kernel's workqueue API and
 * built with include/fwq/shim.h (Kbuild), as a user's module would be.
 * At load it allocates workqueues, queues, flushes and cancels items
 * (delayed and on-stack ones too, and on the system workqueues) and
 * checks through fwq's counters and the worker's name that each ran on
 * fwq; KTAP to the kernel log, and a failed case fails the load. It
 * keeps one WQ_FREEZABLE workqueue until unload, for the plan's suspend
 * check (scripts/plans/shim.plan).
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <fwq/stats.h>

static int dfl_active = WQ_DFL_ACTIVE;
module_param(dfl_active, int, 0444);
MODULE_PARM_DESC(dfl_active, "WQ_DFL_ACTIVE of the headers built against");

static struct workqueue_struct *shim_wq;	/* WQ_FREEZABLE, kept */
static atomic_t ran;
static atomic_t ran_elsewhere;
static int nr_cases, nr_failed;

static void shim_count(void)
{
	atomic_inc(&ran);
	/* fwq's workers are "fwq/..." kthreads, never the kernel's */
	if (strncmp(current->comm, "fwq/", 4) ||
	    (current->flags & PF_WQ_WORKER))
		atomic_inc(&ran_elsewhere);
}

static void shim_fn(struct work_struct *work)
{
	shim_count();
}

static void shim_dfn(struct work_struct *work)
{
	struct delayed_work *dwork = to_delayed_work(work);

	WARN_ON(delayed_work_pending(dwork));
	shim_count();
}

static DECLARE_WORK(shim_static_work, shim_fn);
static DECLARE_DELAYED_WORK(shim_static_dwork, shim_dfn);

static void shim_case(const char *name, bool ok)
{
	nr_cases++;
	if (!ok)
		nr_failed++;
	pr_info("    %sok %d %s\n", ok ? "" : "not ", nr_cases, name);
}

/* the items queued to @wq, as fwq counted them (flush barriers not) */
static u64 shim_queued(struct workqueue_struct *wq)
{
	struct fwq_wq_stats st;

	fwq_workqueue_get_stats(wq, &st);
	return st.queued;
}

static bool shim_queue_flush(struct workqueue_struct *wq)
{
	struct work_struct w;
	int before = atomic_read(&ran);
	u64 q0 = shim_queued(wq);
	unsigned int busy;
	bool queued;

	INIT_WORK_ONSTACK(&w, shim_fn);
	queued = queue_work(wq, &w);
	/* %false if it had run already: either way, it ran */
	flush_work(&w);
	busy = work_busy(&w);
	destroy_work_on_stack(&w);
	if (queued && !busy && atomic_read(&ran) == before + 1 &&
	    shim_queued(wq) == q0 + 1)
		return true;
	pr_info("    # queued=%d busy=%u ran=%d/%d fwq queued=%llu/%llu\n",
		queued, busy, atomic_read(&ran), before + 1, shim_queued(wq),
		q0 + 1);
	return false;
}

static bool shim_delayed(struct workqueue_struct *wq)
{
	struct delayed_work dw;
	int before = atomic_read(&ran);
	bool ok;

	INIT_DELAYED_WORK_ONSTACK(&dw, shim_dfn);
	/* a minute: still pending for the next two calls */
	ok = queue_delayed_work(wq, &dw, HZ * 60) &&
	     !queue_delayed_work(wq, &dw, 1) &&	/* already pending */
	     mod_delayed_work(wq, &dw, 1);	/* was pending */
	/* %false if the timer had fired and the item run: it ran either way */
	flush_delayed_work(&dw);
	ok = ok && !delayed_work_pending(&dw);
	destroy_delayed_work_on_stack(&dw);
	return ok && atomic_read(&ran) == before + 1;
}

static bool shim_cancel(struct workqueue_struct *wq)
{
	int before = atomic_read(&ran);
	bool ok;

	/* a long delay, cancelled before it fires: never runs */
	ok = queue_delayed_work_on(WORK_CPU_UNBOUND, wq, &shim_static_dwork,
				   HZ * 3600) &&
	     delayed_work_pending(&shim_static_dwork) &&
	     cancel_delayed_work_sync(&shim_static_dwork) &&
	     !cancel_delayed_work(&shim_static_dwork);
	/* a static item: queued, flushed, then nothing left to cancel */
	ok = ok && queue_work_on(raw_smp_processor_id(), wq,
				 &shim_static_work);
	flush_work(&shim_static_work);
	ok = ok && !cancel_work_sync(&shim_static_work) &&
	     !cancel_work(&shim_static_work);
	return ok && atomic_read(&ran) == before + 1;
}

static bool shim_flush_drain(struct workqueue_struct *wq)
{
	struct work_struct w[4];
	int before = atomic_read(&ran);
	int i;

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		INIT_WORK_ONSTACK(&w[i], shim_fn);
		queue_work(wq, &w[i]);
	}
	flush_workqueue(wq);
	drain_workqueue(wq);
	for (i = 0; i < ARRAY_SIZE(w); i++)
		destroy_work_on_stack(&w[i]);
	return atomic_read(&ran) == before + ARRAY_SIZE(w);
}

/*
 * The system workqueues and schedule_*(): fwq's, which this module holds
 * from before its init (the shim's module_init())
 */
static bool shim_system(void)
{
	struct delayed_work dw;
	struct work_struct w;
	int before = atomic_read(&ran);
	u64 q0 = shim_queued(system_wq);
	bool ok;

	INIT_WORK_ONSTACK(&w, shim_fn);
	ok = schedule_work(&w);
	flush_work(&w);
	ok = ok && queue_work(system_unbound_wq, &w);
	flush_work(&w);
	INIT_DELAYED_WORK_ONSTACK(&dw, shim_dfn);
	ok = ok && schedule_delayed_work(&dw, HZ * 60);
	/* the flush queues it at once, to system_wq */
	flush_delayed_work(&dw);
	destroy_delayed_work_on_stack(&dw);
	destroy_work_on_stack(&w);
	if (ok && atomic_read(&ran) == before + 3 &&
	    shim_queued(system_wq) == q0 + 2)
		return true;
	pr_info("    # ok=%d ran=%d/%d system_wq queued=%llu/%llu\n", ok,
		atomic_read(&ran), before + 3, shim_queued(system_wq), q0 + 2);
	return false;
}

static int __init fwq_shim_test_init(void)
{
	struct workqueue_struct *ord;

	pr_info("KTAP version 1\n");
	pr_info("1..1\n");
	pr_info("    KTAP version 1\n");
	pr_info("    # Subtest: fwq_shim\n");
	pr_info("    1..9\n");

	shim_wq = alloc_workqueue("shimtest/%d",
				  WQ_UNBOUND | WQ_MEM_RECLAIM | WQ_FREEZABLE |
				  WQ_SYSFS, 0, 1);
	ord = alloc_ordered_workqueue("shimtest-ord", WQ_MEM_RECLAIM);
	shim_case("alloc", shim_wq && ord);
	if (!shim_wq || !ord) {
		if (ord)
			destroy_workqueue(ord);
		if (shim_wq)
			destroy_workqueue(shim_wq);
		return -ENOMEM;
	}
	shim_case("queue_flush_onstack", shim_queue_flush(shim_wq));
	shim_case("queue_flush_ordered", shim_queue_flush(ord));
	shim_case("delayed_onstack", shim_delayed(shim_wq));
	shim_case("cancel_static", shim_cancel(shim_wq));
	shim_case("flush_drain", shim_flush_drain(shim_wq));
	workqueue_set_max_active(shim_wq, 4);
	shim_case("set_max_active", shim_queue_flush(shim_wq));
	shim_case("system_wqs", shim_system());
	/* back to the default: the plan reads it in debugfs wqs */
	workqueue_set_max_active(shim_wq, WQ_DFL_ACTIVE);
	shim_case("ran_on_fwq", atomic_read(&ran) > 0 &&
		  !atomic_read(&ran_elsewhere));
	destroy_workqueue(ord);

	pr_info("%sok 1 fwq_shim\n", nr_failed ? "not " : "");
	if (nr_failed) {
		destroy_workqueue(shim_wq);
		return -EINVAL;
	}
	return 0;
}

static void __exit fwq_shim_test_exit(void)
{
	destroy_workqueue(shim_wq);
}

module_init(fwq_shim_test_init);
module_exit(fwq_shim_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq: a kernel-API module on fwq through the shim");
