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
	fwq_pm_exit();
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
