// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: module init and exit, global state, and the debug counter table.
 * The module parameters are in params.c (variant defaults: variant.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "dbg.h"
#include "internal.h"

/* pools, the pool idr, fwq_workqueues, fwq_online_cpumask */
DEFINE_MUTEX(fwq_pool_mutex);
/* worker attach/detach to pools (pool->workers) */
DEFINE_MUTEX(fwq_pool_attach_mutex);
DEFINE_RAW_SPINLOCK(fwq_mayday_lock);
LIST_HEAD(fwq_workqueues);
LIST_HEAD(fwq_all_wqs);
DEFINE_RAW_SPINLOCK(fwq_all_wqs_lock);
DEFINE_IDR(fwq_pool_idr);
struct kthread_worker *fwq_release_worker;
struct kmem_cache *fwq_pwq_cache;
struct dentry *fwq_debugfs_root;
cpumask_var_t fwq_online_cpumask;
atomic64_t fwq_misuse_count;
atomic_t fwq_objects[FWQ_OBJ_NR];
atomic64_t fwq_consistency_errors;

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
	{ "flush_dependency",		&fwq_flush_dependencies },
	{ "maydays_unserved",		&fwq_maydays_unserved },
	{ "rescuers_never_ran",		&fwq_rescuers_never_ran },
	{ "leaks_planted",		&fwq_leaks_planted },
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

/*
 * dbg_release_hold: a work item at the head of the release kthread_worker
 * that waits until the knob is written 0 holds every pwq release queued
 * behind it. Their pwqs keep their unbound pools, which new pwqs of the
 * same attributes then reuse; written 0, the releases run and the pools
 * whose last pwq went are destroyed. Test-only (the fault sweep runs each
 * step with pools always fresh, and always reused).
 */
static DEFINE_MUTEX(fwq_release_hold_mutex);
static DECLARE_COMPLETION(fwq_release_unhold);
static struct kthread_work fwq_release_hold_work;
static bool fwq_release_hold_queued;	/* fwq_release_hold_mutex */

static void fwq_release_hold_fn(struct kthread_work *work)
{
	/* killable: a long hold is not a hung task */
	while (wait_for_completion_killable(&fwq_release_unhold))
		;
}

/* Context: fwq_release_hold_mutex held */
static void fwq_release_hold_set(bool hold)
{
	lockdep_assert_held(&fwq_release_hold_mutex);
	if (hold == fwq_release_hold_queued)
		return;
	if (hold) {
		reinit_completion(&fwq_release_unhold);
		kthread_init_work(&fwq_release_hold_work, fwq_release_hold_fn);
		kthread_queue_work(fwq_release_worker, &fwq_release_hold_work);
	} else {
		complete(&fwq_release_unhold);
		/* done with it before it may be queued again */
		kthread_flush_work(&fwq_release_hold_work);
	}
	WRITE_ONCE(fwq_release_hold_queued, hold);
}

/* is the release kthread held (dbg_release_hold)? */
bool fwq_dbg_release_held(void)
{
	return READ_ONCE(fwq_release_hold_queued);
}

/**
 * fwq_dbg_release_changed - apply a write of dbg_release_hold
 *
 * 1 holds the pwq releases; 0 lets them go, then waits for every release
 * queued (each write of 0 does, held or not): on return, every unbound
 * pool whose last pwq was released is destroyed and out of the lookup,
 * so the next pwq of its attributes gets a new one. The pwqs and pools
 * themselves are freed a grace period later. At load, before the release
 * kthread exists, fwq_init() applies the value instead.
 */
void fwq_dbg_release_changed(void)
{
	mutex_lock(&fwq_release_hold_mutex);
	if (!IS_ERR_OR_NULL(fwq_release_worker)) {
		fwq_release_hold_set(READ_ONCE(fwq_dbg_release_hold));
		if (!fwq_release_hold_queued)
			kthread_flush_worker(fwq_release_worker);
	}
	mutex_unlock(&fwq_release_hold_mutex);
}

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

	mutex_lock(&fwq_release_hold_mutex);
	fwq_release_hold_set(READ_ONCE(fwq_dbg_release_hold));
	mutex_unlock(&fwq_release_hold_mutex);

	fwq_cm_init();

	cpus_read_lock();
	cpumask_copy(fwq_online_cpumask, cpu_online_mask);
	ret = fwq_hotplug_init();
	cpus_read_unlock();
	if (ret)
		goto err_worker;
	ret = fwq_pm_init();
	if (ret)
		goto err_hotplug;

	fwq_debugfs_root = debugfs_create_dir("fwq", NULL);
	fwq_debugfs_init();
	fwq_watchdog_init();
	pr_info("fwq %s loaded (cm_mode=%s)\n", fwq_version(),
		fwq_cm_enabled ? "notifier" : "off");
	return 0;

err_hotplug:
	fwq_hotplug_exit();
err_worker:
	fwq_cm_exit();
	mutex_lock(&fwq_release_hold_mutex);
	fwq_release_hold_set(false);
	kthread_destroy_worker(fwq_release_worker);
	fwq_release_worker = NULL;
	mutex_unlock(&fwq_release_hold_mutex);
err_cache:
	kmem_cache_destroy(fwq_pwq_cache);
err_mask:
	free_cpumask_var(fwq_online_cpumask);
err_topo:
	fwq_topology_exit();
	return ret;
}

/*
 * Unload with leaked objects. fwq.ko can be removed only once no module
 * that uses it is loaded, so nothing can queue to, flush or destroy a
 * leaked workqueue any more, nor put the reference a leaked pwq still
 * holds. What must not outlive the module is its code's users: a leaked
 * unbound pool keeps worker kthreads, timers (idle, mayday, the
 * CPU-intensive hrtimer), an irq_work and a cull work, all pointing into
 * fwq.ko's text, and a leaked pwq keeps its pool. Refusing the unload
 * instead (a module reference taken when something leaks, so that rmmod
 * fails with EBUSY) would keep them pointing at live text, but would also
 * make every leak, one an unload itself finds (a workqueue left busy),
 * permanent until reboot, and "unload always works" would no longer
 * hold. So the unload tears the leaked objects down, the same way their
 * last reference would have: each leaked pwq is released as the release
 * kthread releases one (its pool put, destroyed with its workers and
 * timers when that was its last pwq, its workqueue freed with its last
 * pwq), then any unbound pool still alive is destroyed. Each is reported
 * first (fwq_objects_dump()). Items still queued on a leaked pwq are not
 * run: their owners are gone. A leaked workqueue still referenced by an
 * armed delayed item is left allocated: its timer belongs to a module
 * that is gone, and is that module's bug.
 */
static void fwq_reap_leaks(void)
{
	int wqs = atomic_read(&fwq_objects[FWQ_OBJ_WQ]);
	int pwqs = atomic_read(&fwq_objects[FWQ_OBJ_PWQ]);
	int pools = atomic_read(&fwq_objects[FWQ_OBJ_UNBOUND_POOL]);

	if (!wqs && !pwqs && !pools)
		return;
	pr_err("unload: %d workqueues, %d pwqs, %d unbound pools leaked; destroying them:\n",
	       wqs, pwqs, pools);
	fwq_objects_dump(NULL);
	fwq_wqs_reap();
	fwq_unbound_pools_reap();
	rcu_barrier();
	pr_err("unload: left after the reap: %d workqueues, %d pwqs, %d unbound pools\n",
	       atomic_read(&fwq_objects[FWQ_OBJ_WQ]),
	       atomic_read(&fwq_objects[FWQ_OBJ_PWQ]),
	       atomic_read(&fwq_objects[FWQ_OBJ_UNBOUND_POOL]));
}

static void __exit fwq_exit(void)
{
	fwq_pm_exit();
	fwq_watchdog_exit();
	debugfs_remove_recursive(fwq_debugfs_root);
	fwq_system_wqs_exit();
	fwq_destroy_leftover_wqs();
	fwq_hotplug_exit();

	/* a held release kthread (dbg_release_hold) lets go first */
	mutex_lock(&fwq_release_hold_mutex);
	fwq_release_hold_set(false);
	mutex_unlock(&fwq_release_hold_mutex);
	/* run the pending pwq releases: they put the unbound pools */
	kthread_flush_worker(fwq_release_worker);
	rcu_barrier();
	kthread_flush_worker(fwq_release_worker);
	fwq_reap_leaks();
	fwq_pools_exit();
	mutex_lock(&fwq_release_hold_mutex);
	kthread_destroy_worker(fwq_release_worker);
	fwq_release_worker = NULL;
	mutex_unlock(&fwq_release_hold_mutex);
	rcu_barrier();	/* and the old shim_maps' frees */
	fwq_shim_map_exit();

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
