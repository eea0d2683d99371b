// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: module init and exit, global state, engine module parameters.
 *
 * Parameters (the variant and scope defaults live in variant.c):
 *   idle_timeout_ms     idle worker timeout before the cull, 1..3600000
 *                       (mainline: 300 s); also in debugfs
 *   fail_create_worker  0/1 fault injection: the manager's worker creation
 *                       fails (the first worker of a pool is exempt)
 *   watchdog_thresh_ms  stall watchdog threshold, 0 (off)..3600000
 *                       (default 30000; mainline: 30 s). See watchdog.c.
 *   cm_mode             "notifier" (default) or "off"; read at load only.
 *                       See cm.c.
 *   cpu_intensive_thresh_us
 *                       an item of a per-CPU pool under concurrency
 *                       management that runs this long (CPU time) without
 *                       sleeping becomes CPU-intensive; 0 turns the
 *                       detection off; 0..10000000, default 10000 as in
 *                       mainline. See cm.c.
 *   cull_rekick         1 (default): an idle cull that finds work pending
 *                       after reaping kicks a worker, so an H1 race (a kicked
 *                       worker culled before it ran) strands nothing. 0 keeps
 *                       the hole open for the torture reproducer.
 *
 * Debug knobs for the race reproducers (default 0 = production behaviour):
 *   dbg_kick_delay_us   busy-wait between pick and deferred wakeup (H1)
 *   dbg_force_cull      with dbg_kick_delay_us: every kick queues a cull that
 *                       reaps every idle_list worker, no floor, no age (H1)
 *   dbg_flush_skip_idle flush visits skip pwqs with nothing in flight (H8,
 *                       deliberately broken)
 *   dbg_cm_sb           0..2: an enqueue onto a per-CPU pool waits, under
 *                       pool->lock, for the running worker to block between
 *                       its worklist insert and its nr_running read; 1 puts
 *                       the read first (the order before the smp_mb() in
 *                       fwq_need_more_worker(), a lost wakeup), 2 keeps the
 *                       fixed order (see cm.c)
 *   dbg_put_walk_wait   the pwq put walk of a destroy, once the per-CPU
 *                       pwqs are put, waits for their release and for an
 *                       RCU grace period before it reads the default pwq:
 *                       the window of the use-after-free that pinning the
 *                       workqueue for the walk closed (wq.c; H18), made certain
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"

/* pools, the pool idr, fwq_workqueues, fwq_online_cpumask */
DEFINE_MUTEX(fwq_pool_mutex);
/* worker attach/detach to pools (pool->workers) */
DEFINE_MUTEX(fwq_pool_attach_mutex);
DEFINE_RAW_SPINLOCK(fwq_mayday_lock);
LIST_HEAD(fwq_workqueues);
DEFINE_IDR(fwq_pool_idr);
/*
 * The destroyer of a pool waits here for the pool's manager to finish. An
 * rcuwait, not a wait queue: the manager wakes it under the raw pool->lock,
 * where a wait queue's spinlock_t (a sleeping lock on PREEMPT_RT) must not
 * be taken. It has one waiter at a time: pools are destroyed under
 * fwq_pool_mutex, or by the module exit alone.
 */
struct rcuwait fwq_manager_wait = __RCUWAIT_INITIALIZER(fwq_manager_wait);
struct kthread_worker *fwq_release_worker;
struct kmem_cache *fwq_pwq_cache;
struct dentry *fwq_debugfs_root;
cpumask_var_t fwq_online_cpumask;
atomic64_t fwq_misuse_count;
atomic_t fwq_objects[FWQ_OBJ_NR];
atomic64_t fwq_consistency_errors;

unsigned int fwq_idle_timeout_ms = 300000;
unsigned int fwq_fail_create_worker;
bool fwq_cm_enabled = true;

static int fwq_uint_range_set(const char *val, const struct kernel_param *kp,
			      unsigned int min, unsigned int max)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < min || v > max) {
		pr_warn("parameter %s: bad value '%s' (want %u..%u), unchanged\n",
			kp->name, val, min, max);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static inline void fwq_param_no_hook(void)
{
}

/*
 * FWQ_PARAM_UINT_RANGE_HOOK - an unsigned int module parameter that takes
 * only @_min..@_max: anything else gets -EINVAL, one log line, and no
 * change. @_hook, a void function without arguments, runs after each
 * accepted write, a write at load time (before the module's init) included.
 */
#define FWQ_PARAM_UINT_RANGE_HOOK(_name, _var, _min, _max, _hook)	\
	static int fwq_param_##_name##_set(const char *val,		\
					   const struct kernel_param *kp) \
	{								\
		int ret = fwq_uint_range_set(val, kp, _min, _max);	\
									\
		if (!ret)						\
			_hook();					\
		return ret;						\
	}								\
	static const struct kernel_param_ops fwq_param_##_name##_ops = { \
		.set = fwq_param_##_name##_set,				\
		.get = param_get_uint,					\
	};								\
	module_param_cb(_name, &fwq_param_##_name##_ops, &(_var), 0644)

/* FWQ_PARAM_UINT_RANGE - the same, without a hook */
#define FWQ_PARAM_UINT_RANGE(_name, _var, _min, _max)			\
	FWQ_PARAM_UINT_RANGE_HOOK(_name, _var, _min, _max, fwq_param_no_hook)

FWQ_PARAM_UINT_RANGE(idle_timeout_ms, fwq_idle_timeout_ms, 1, 3600000);
MODULE_PARM_DESC(idle_timeout_ms, "idle worker timeout in ms (1..3600000)");

unsigned int fwq_cpu_intensive_thresh_us = 10000;

FWQ_PARAM_UINT_RANGE(cpu_intensive_thresh_us, fwq_cpu_intensive_thresh_us, 0,
		     10000000);
MODULE_PARM_DESC(cpu_intensive_thresh_us,
		 "CPU time in us after which a per-CPU item is CPU-intensive (0 off, 0..10000000)");

FWQ_PARAM_UINT_RANGE(fail_create_worker, fwq_fail_create_worker, 0, 1);
MODULE_PARM_DESC(fail_create_worker, "1: the manager's worker creation fails");

FWQ_PARAM_UINT_RANGE_HOOK(watchdog_thresh_ms, fwq_watchdog_thresh_ms, 0,
			  3600000, fwq_watchdog_thresh_changed);
MODULE_PARM_DESC(watchdog_thresh_ms, "stall watchdog: report a pool with pending work and no progress for this long, in ms (0 = off, 0..3600000)");

/* bool parameters: exactly 0/1/y/n/Y/N/on/off, else -EINVAL and a log line */
static int fwq_strict_bool_set(const char *val, const struct kernel_param *kp)
{
	static const char *const yes[] = { "1", "y", "Y", "on" };
	static const char *const no[] = { "0", "n", "N", "off" };
	int i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (sysfs_streq(val, yes[i])) {
			WRITE_ONCE(*(bool *)kp->arg, true);
			return 0;
		}
		if (sysfs_streq(val, no[i])) {
			WRITE_ONCE(*(bool *)kp->arg, false);
			return 0;
		}
	}
	pr_warn("parameter %s: bad value '%s' (want 0|1|y|n|on|off), unchanged\n",
		kp->name, val);
	return -EINVAL;
}

static const struct kernel_param_ops fwq_strict_bool_ops = {
	.set = fwq_strict_bool_set,
	.get = param_get_bool,
};

bool fwq_cull_rekick = true;
module_param_cb(cull_rekick, &fwq_strict_bool_ops, &fwq_cull_rekick, 0644);
MODULE_PARM_DESC(cull_rekick, "idle cull re-kicks when work is pending (H1 mitigation)");

unsigned int fwq_dbg_kick_delay_us;

FWQ_PARAM_UINT_RANGE(dbg_kick_delay_us, fwq_dbg_kick_delay_us, 0, 100000);
MODULE_PARM_DESC(dbg_kick_delay_us, "debug: delay before deferred wakeups (0..100000)");

bool fwq_dbg_force_cull;
module_param_cb(dbg_force_cull, &fwq_strict_bool_ops, &fwq_dbg_force_cull,
		0644);
MODULE_PARM_DESC(dbg_force_cull, "debug: kicks trigger a full idle cull");

bool fwq_dbg_flush_skip_idle;
module_param_cb(dbg_flush_skip_idle, &fwq_strict_bool_ops,
		&fwq_dbg_flush_skip_idle, 0644);
MODULE_PARM_DESC(dbg_flush_skip_idle, "debug: broken flush skipping idle pwqs (H8)");

bool fwq_dbg_put_walk_wait;
module_param_cb(dbg_put_walk_wait, &fwq_strict_bool_ops,
		&fwq_dbg_put_walk_wait, 0644);
MODULE_PARM_DESC(dbg_put_walk_wait, "debug: the destroy's pwq put walk waits for the pwqs' release and a grace period");

unsigned int fwq_dbg_cm_sb;

FWQ_PARAM_UINT_RANGE(dbg_cm_sb, fwq_dbg_cm_sb, 0, 2);
MODULE_PARM_DESC(dbg_cm_sb, "debug: widen the CM store-buffering window (0 off, 1 pre-fix order, 2 fixed order)");

/*
 * Every global debug counter, once: debugfs "debug_counters" prints them in
 * this order, and fwq_debug_counter() reads them by these names.
 */
const struct fwq_debug_counter_ent fwq_debug_counters[] = {
	{ "kicked_reaped",		&fwq_kicked_reaped },
	{ "cull_rekick",		&fwq_cull_rekicks },
	{ "consistency_errors",		&fwq_consistency_errors },
	{ "misuse",			&fwq_misuse_count },
	{ "deferred_issue_under_lock",	&fwq_deferred_under_lock },
	{ "create_worker_injected",	&fwq_create_worker_injected },
	{ "cm_sb_windows",		&fwq_cm_sb_windows },
	{ "watchdog_reports",		&fwq_watchdog_reports },
	{ "rescuer_requeues",		&fwq_rescuer_requeues },
	{ "put_walk_waits",		&fwq_put_walk_waits },
};

const unsigned int fwq_nr_debug_counters = ARRAY_SIZE(fwq_debug_counters);

/**
 * fwq_debug_counter - read a global debug counter by name
 * @name: a counter's name, as debugfs "debug_counters" lists them (the
 *	table fwq_debug_counters[] above)
 *
 * Return: the counter, 0 for an unknown name.
 */
u64 fwq_debug_counter(const char *name)
{
	unsigned int i;

	for (i = 0; i < fwq_nr_debug_counters; i++) {
		if (!strcmp(name, fwq_debug_counters[i].name))
			return atomic64_read(fwq_debug_counters[i].v);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(fwq_debug_counter);

static int fwq_cm_mode_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "notifier")) {
		fwq_cm_enabled = true;
		return 0;
	}
	if (sysfs_streq(val, "off")) {
		fwq_cm_enabled = false;
		return 0;
	}
	pr_warn("parameter cm_mode: bad value '%s' (want notifier|off), unchanged\n",
		val);
	return -EINVAL;
}

static int fwq_cm_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", fwq_cm_enabled ? "notifier" : "off");
}

static const struct kernel_param_ops fwq_cm_mode_ops = {
	.set = fwq_cm_mode_set,
	.get = fwq_cm_mode_get,
};
module_param_cb(cm_mode, &fwq_cm_mode_ops, NULL, 0444);
MODULE_PARM_DESC(cm_mode, "per-CPU concurrency management: notifier|off");

/**
 * fwq_version - the fwq version string
 *
 * Return: the version fwq.ko was built as.
 */
const char *fwq_version(void)
{
	return FWQ_VERSION;
}
EXPORT_SYMBOL_GPL(fwq_version);

static void fwq_destroy_leftover_wqs(void)
{
	struct fwq_workqueue *wq;

	while (true) {
		mutex_lock(&fwq_pool_mutex);
		wq = list_first_entry_or_null(&fwq_workqueues,
					      struct fwq_workqueue, list);
		mutex_unlock(&fwq_pool_mutex);
		if (!wq)
			break;
		pr_err("workqueue %s still exists at unload: destroying it\n",
		       wq->name);
		atomic64_inc(&fwq_misuse_count);
		fwq_destroy_workqueue(wq);
		/* a leaked (busy) wq stays listed: drop it from the list */
		mutex_lock(&fwq_pool_mutex);
		if (!list_empty(&wq->list) &&
		    wq == list_first_entry(&fwq_workqueues,
					   struct fwq_workqueue, list))
			list_del_init(&wq->list);
		mutex_unlock(&fwq_pool_mutex);
	}
}

static int __init fwq_init(void)
{
	int ret;

	ret = fwq_topology_init();
	if (ret)
		return ret;

	ret = -ENOMEM;
	if (!zalloc_cpumask_var(&fwq_online_cpumask, GFP_KERNEL))
		goto err_topo;

	fwq_pwq_cache = kmem_cache_create("fwq_pwq", sizeof(struct fwq_pwq),
					  1 << FWQ_WORK_STRUCT_PWQ_SHIFT, 0,
					  NULL);
	if (!fwq_pwq_cache)
		goto err_mask;

	fwq_release_worker = fwq_kthread_run_worker(0, "fwq_pwq_release");
	if (IS_ERR(fwq_release_worker)) {
		ret = PTR_ERR(fwq_release_worker);
		goto err_cache;
	}

	fwq_cm_init();

	cpus_read_lock();
	cpumask_copy(fwq_online_cpumask, cpu_online_mask);
	ret = fwq_hotplug_init();
	cpus_read_unlock();
	if (ret)
		goto err_worker;

	fwq_debugfs_root = debugfs_create_dir("fwq", NULL);
	fwq_debugfs_init();
	fwq_watchdog_init();
	pr_info("fwq %s loaded (cm_mode=%s)\n", fwq_version(),
		fwq_cm_enabled ? "notifier" : "off");
	return 0;

err_worker:
	fwq_cm_exit();
	kthread_destroy_worker(fwq_release_worker);
err_cache:
	kmem_cache_destroy(fwq_pwq_cache);
err_mask:
	free_cpumask_var(fwq_online_cpumask);
err_topo:
	fwq_topology_exit();
	return ret;
}

static void __exit fwq_exit(void)
{
	fwq_watchdog_exit();
	debugfs_remove_recursive(fwq_debugfs_root);
	fwq_destroy_leftover_wqs();
	fwq_hotplug_exit();

	/* run the pending pwq releases: they put the unbound pools */
	kthread_flush_worker(fwq_release_worker);
	rcu_barrier();
	kthread_flush_worker(fwq_release_worker);
	fwq_pools_exit();
	kthread_destroy_worker(fwq_release_worker);
	rcu_barrier();

	fwq_cm_exit();
	kmem_cache_destroy(fwq_pwq_cache);
	idr_destroy(&fwq_pool_idr);
	free_cpumask_var(fwq_online_cpumask);
	fwq_topology_exit();
	pr_info("fwq %s unloaded\n", fwq_version());
}

module_init(fwq_init);
module_exit(fwq_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq: a private clone of the kernel workqueue");
MODULE_VERSION(FWQ_VERSION);
