// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: worker pools: their identity, lookup, attach/detach of workers,
 * teardown, dumps and sanity checks. Workers are created by the manager
 * (manager.c), retired by the idle cull (cull.c); the mayday timer and the
 * rescuer are in rescuer.c.
 *
 * Per-CPU pools: FWQ_NR_STD_POOLS (normal, highpri) per possible CPU and per
 * pool variant (wake x kicked_list), created lazily the first time a per-CPU
 * workqueue of that variant is allocated. Workers are created only for online
 * CPUs; the hotplug prepare callback creates them for a CPU coming up.
 *
 * Unbound pools: shared through a hash of their identity (nice, strictness,
 * pod cpumask, cpumask if not strict, wake, kicked), refcounted by pwqs, and
 * destroyed when the last pwq goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"
#include "ops.h"
#include "fwq_trace.h"

#define FWQ_UNBOUND_POOL_HASH_ORDER	6
static DEFINE_HASHTABLE(fwq_unbound_pool_hash, FWQ_UNBOUND_POOL_HASH_ORDER);

/*
 * PL: [variant] the per-CPU pools, FWQ_NR_STD_POOLS per CPU, allocated
 * lazily. They are per-CPU data, as mainline's cpu_worker_pools are: each
 * CPU's pools lie in its own per-CPU unit, so a walk over many CPUs' pools
 * touches the same number of pages, at the same stride, as mainline's walk
 * does. Packed into slab objects instead, 64 CPUs' pools took a fraction of
 * the pages, and a flush walk cost a third of the kernel's under TCG with
 * the same instruction count (docs/mainline.md, "Measured").
 */
static struct fwq_pool __percpu *fwq_cpu_pools[FWQ_NR_POOL_VARIANTS];

static int fwq_pool_variant_idx(enum fwq_wake wake, enum fwq_kicked kicked)
{
	return wake * FWQ_KICKED_NR + kicked;
}

int fwq_pool_attrs_alloc(struct fwq_pool_attrs *attrs)
{
	memset(attrs, 0, sizeof(*attrs));
	if (!zalloc_cpumask_var(&attrs->cpumask, GFP_KERNEL))
		return -ENOMEM;
	if (!zalloc_cpumask_var(&attrs->pod_cpumask, GFP_KERNEL)) {
		free_cpumask_var(attrs->cpumask);
		return -ENOMEM;
	}
	return 0;
}

void fwq_pool_attrs_free(struct fwq_pool_attrs *attrs)
{
	free_cpumask_var(attrs->cpumask);
	free_cpumask_var(attrs->pod_cpumask);
}

static void fwq_pool_attrs_copy(struct fwq_pool_attrs *to,
				const struct fwq_pool_attrs *from)
{
	to->nice = from->nice;
	to->affn_strict = from->affn_strict;
	to->wake = from->wake;
	to->kicked = from->kicked;
	cpumask_copy(to->cpumask, from->cpumask);
	cpumask_copy(to->pod_cpumask, from->pod_cpumask);
	/* strict pools: the cpumask must not split pools */
	if (to->affn_strict)
		cpumask_copy(to->cpumask, cpu_possible_mask);
}

static u32 fwq_pool_attrs_hash(const struct fwq_pool_attrs *attrs)
{
	u32 hash = 0;

	hash = jhash_1word(attrs->nice, hash);
	hash = jhash_1word(attrs->affn_strict, hash);
	hash = jhash_1word(attrs->wake, hash);
	hash = jhash_1word(attrs->kicked, hash);
	hash = jhash(cpumask_bits(attrs->pod_cpumask),
		     BITS_TO_LONGS(nr_cpumask_bits) * sizeof(long), hash);
	if (!attrs->affn_strict)
		hash = jhash(cpumask_bits(attrs->cpumask),
			     BITS_TO_LONGS(nr_cpumask_bits) * sizeof(long),
			     hash);
	return hash;
}

static bool fwq_pool_attrs_equal(const struct fwq_pool_attrs *a,
				 const struct fwq_pool_attrs *b)
{
	if (a->nice != b->nice || a->affn_strict != b->affn_strict ||
	    a->wake != b->wake || a->kicked != b->kicked)
		return false;
	if (!cpumask_equal(a->pod_cpumask, b->pod_cpumask))
		return false;
	if (!a->affn_strict && !cpumask_equal(a->cpumask, b->cpumask))
		return false;
	return true;
}

/*
 * The CPUs a pool's workers may run on. The mask lives as long as the pool
 * (its attrs, or the kernel's constant masks), so attaching a worker, the
 * rescuer included, allocates nothing on the forward-progress path.
 */
const struct cpumask *fwq_pool_allowed_cpus(struct fwq_pool *pool)
{
	if (pool->cpu >= 0) {
		if (pool->flags & POOL_DISASSOCIATED)
			return cpu_possible_mask;
		return cpumask_of(pool->cpu);
	}
	if (pool->attrs.affn_strict)
		return pool->attrs.pod_cpumask;
	return pool->attrs.cpumask;
}

/* set up a zeroed pool; a per-CPU pool's memory is not freed with it */
static int fwq_init_pool(struct fwq_pool *pool, int node)
{
	if (fwq_pool_attrs_alloc(&pool->attrs))
		return -ENOMEM;
	atomic_inc(&fwq_objects[FWQ_OBJ_POOL]);
	raw_spin_lock_init(&pool->lock);
	pool->id = -1;
	pool->cpu = -1;
	pool->node = node;
	pool->flags = POOL_DISASSOCIATED;
	pool->last_progress_ts = jiffies;
	pool->watchdog_reported_ts = pool->last_progress_ts - 1;
	INIT_LIST_HEAD(&pool->worklist);
	INIT_LIST_HEAD(&pool->idle_list);
	INIT_LIST_HEAD(&pool->kicked_list);
	hash_init(pool->busy_hash);
	timer_setup(&pool->idle_timer, fwq_idle_timer_fn, TIMER_DEFERRABLE);
	INIT_WORK(&pool->idle_cull_work, fwq_idle_cull_fn);
	timer_setup(&pool->mayday_timer, fwq_pool_mayday_timeout, 0);
	INIT_LIST_HEAD(&pool->workers);
	ida_init(&pool->worker_ida);
	INIT_HLIST_NODE(&pool->hash_node);
	pool->refcnt = 1;
	atomic_set(&pool->nr_running, 0);
	init_irq_work(&pool->cm_irq_work, fwq_cm_irq_work_fn);
	fwq_cm_pool_init(pool);
	return 0;
}

static struct fwq_pool *fwq_alloc_pool(int node)
{
	struct fwq_pool *pool;

	pool = kzalloc_node(sizeof(*pool), GFP_KERNEL, node);
	if (pool && fwq_init_pool(pool, node)) {
		kfree(pool);
		return NULL;
	}
	return pool;
}

/* undo fwq_init_pool(); the memory stays (a per-CPU pool's is not its own) */
static void fwq_fini_pool(struct fwq_pool *pool)
{
	atomic_dec(&fwq_objects[FWQ_OBJ_POOL]);
	ida_destroy(&pool->worker_ida);
	fwq_pool_attrs_free(&pool->attrs);
}

/* an unbound pool, from fwq_alloc_pool() and counted as unbound */
static void fwq_free_unbound_pool(struct fwq_pool *pool)
{
	atomic_dec(&fwq_objects[FWQ_OBJ_UNBOUND_POOL]);
	fwq_fini_pool(pool);
	kfree(pool);
}

static void fwq_rcu_free_unbound_pool(struct rcu_head *rcu)
{
	fwq_free_unbound_pool(container_of(rcu, struct fwq_pool, rcu));
}

static int fwq_pool_assign_id(struct fwq_pool *pool)
{
	int ret;

	lockdep_assert_held(&fwq_pool_mutex);
	ret = idr_alloc(&fwq_pool_idr, pool, 0, FWQ_WORK_OFFQ_POOL_NONE,
			GFP_KERNEL);
	if (ret >= 0) {
		pool->id = ret;
		return 0;
	}
	return ret;
}

/**
 * fwq_kthread_no_setaffinity - keep user space from moving an fwq kthread
 * @task: a new kthread of fwq's, not yet woken
 *
 * Mainline binds workers and rescuers with kthread_bind_mask(), which sets
 * PF_NO_SETAFFINITY: sched_setaffinity() (taskset, cpusets) then fails with
 * -EINVAL, and only the workqueue moves its kthreads. kthread_bind_mask()
 * is not exported; kthread_bind() is, and sets the flag the same way. It
 * pins @task to one CPU, so the cpumask is widened to every CPU again
 * right away; the pool's own mask follows at attach.
 */
void fwq_kthread_no_setaffinity(struct task_struct *task)
{
	kthread_bind(task, cpumask_first(cpu_possible_mask));
	set_cpus_allowed_ptr(task, cpu_possible_mask);
}

void fwq_worker_attach_to_pool(struct fwq_worker *worker,
			       struct fwq_pool *pool)
{
	const struct cpumask *mask;

	mutex_lock(&fwq_pool_attach_mutex);
	if (pool->cpu < 0 || (pool->flags & POOL_DISASSOCIATED) ||
	    !fwq_cm_enabled)
		worker->flags |= WORKER_UNBOUND;
	/* under the attach mutex: DISASSOCIATED and the attrs hold still */
	mask = fwq_pool_allowed_cpus(pool);
	if (cpumask_intersects(mask, cpu_online_mask))
		set_cpus_allowed_ptr(worker->task, mask);
	list_add_tail(&worker->node, &pool->workers);
	worker->pool = pool;
	mutex_unlock(&fwq_pool_attach_mutex);
}

void fwq_worker_detach_from_pool(struct fwq_worker *worker)
{
	mutex_lock(&fwq_pool_attach_mutex);
	list_del_init(&worker->node);
	if (worker->rescue_wq)
		worker->pool = NULL;
	mutex_unlock(&fwq_pool_attach_mutex);
}

/* kill every worker of an idle pool and stop its timers */
static void fwq_pool_destroy_workers(struct fwq_pool *pool)
{
	struct fwq_worker *worker, *tmp;
	LIST_HEAD(cull_list);

	/* become the manager: no worker is created from here on */
	rcuwait_wait_event(&fwq_manager_wait, fwq_pool_claim_manager(pool),
			   TASK_UNINTERRUPTIBLE);
	/* a cull that started before POOL_DYING may still create a worker */
	fwq_timer_delete_sync(&pool->idle_timer);
	cancel_work_sync(&pool->idle_cull_work);

	mutex_lock(&fwq_pool_attach_mutex);
	fwq_pool_lock_irq(pool);
	list_for_each_entry_safe(worker, tmp, &pool->workers, node) {
		if (worker->rescue_wq)
			continue;
		fwq_set_worker_dying(worker, &cull_list);
	}
	fwq_check(!pool->nr_workers && !pool->nr_idle,
		  "pool %d: %d workers %d idle left", pool->id,
		  pool->nr_workers, pool->nr_idle);
	fwq_pool_unlock_irq(pool);
	fwq_detach_dying_workers(&cull_list);
	mutex_unlock(&fwq_pool_attach_mutex);
	fwq_reap_dying_workers(&cull_list);

	fwq_timer_delete_sync(&pool->idle_timer);
	cancel_work_sync(&pool->idle_cull_work);
	fwq_timer_delete_sync(&pool->idle_timer);
	fwq_timer_delete_sync(&pool->mayday_timer);
	fwq_cm_pool_stop(pool);
	irq_work_sync(&pool->cm_irq_work);
}

/**
 * fwq_get_unbound_pool - find or create the unbound pool for @attrs
 * @attrs: identity
 *
 * Context: fwq_pool_mutex held.
 */
struct fwq_pool *fwq_get_unbound_pool(const struct fwq_pool_attrs *attrs)
{
	u32 hash = fwq_pool_attrs_hash(attrs);
	const struct fwq_pod_type *numa;
	struct fwq_pool *pool;
	int node = NUMA_NO_NODE, n;

	lockdep_assert_held(&fwq_pool_mutex);

	hash_for_each_possible(fwq_unbound_pool_hash, pool, hash_node, hash) {
		if (fwq_pool_attrs_equal(&pool->attrs, attrs)) {
			pool->refcnt++;
			return pool;
		}
	}

	/*
	 * The node of the NUMA pod that holds the whole pod, else
	 * NUMA_NO_NODE. NUMA pods are built over the possible CPUs, as the
	 * pod is: cpumask_of_node() holds only the present ones, so a pod
	 * with absent CPUs (a VM's possible_cpus=) was never its subset, and
	 * every node's items were charged to the fallback slot.
	 */
	numa = fwq_pod_type(FWQ_AFFN_NUMA);
	for (n = 0; n < numa->nr_pods; n++) {
		if (cpumask_subset(attrs->pod_cpumask, numa->pod_cpus[n])) {
			node = numa->pod_node[n];
			break;
		}
	}

	pool = fwq_alloc_pool(node);
	if (!pool)
		return NULL;
	atomic_inc(&fwq_objects[FWQ_OBJ_UNBOUND_POOL]);
	fwq_pool_attrs_copy(&pool->attrs, attrs);
	pool->flags = 0;	/* unbound: never associated with a CPU */
	if (fwq_pool_assign_id(pool)) {
		fwq_free_unbound_pool(pool);
		return NULL;
	}
	/*
	 * The first worker, always, as in mainline: even when no CPU of the
	 * cpumask is online (it then runs on any CPU until one comes up).
	 * Without it, nothing would ever run the pool's items.
	 */
	if (fwq_create_worker(pool)) {
		idr_remove(&fwq_pool_idr, pool->id);
		fwq_pool_destroy_workers(pool);
		/* it was in the idr: RCU readers may still hold it */
		call_rcu(&pool->rcu, fwq_rcu_free_unbound_pool);
		return NULL;
	}
	hash_add(fwq_unbound_pool_hash, &pool->hash_node, hash);
	return pool;
}

/**
 * fwq_put_unbound_pool - drop a reference; destroy at zero
 * @pool: the pool
 *
 * Context: fwq_pool_mutex held, may sleep.
 */
void fwq_put_unbound_pool(struct fwq_pool *pool)
{
	lockdep_assert_held(&fwq_pool_mutex);
	if (--pool->refcnt)
		return;
	fwq_check(list_empty(&pool->worklist), "pool %d: worklist not empty",
		  pool->id);
	idr_remove(&fwq_pool_idr, pool->id);
	hash_del(&pool->hash_node);
	fwq_pool_destroy_workers(pool);
	call_rcu(&pool->rcu, fwq_rcu_free_unbound_pool);
}

struct fwq_pool *fwq_cpu_pool(int cpu, const struct fwq_variant *v,
			      bool highpri)
{
	struct fwq_pool __percpu *pools;

	pools = fwq_cpu_pools[fwq_pool_variant_idx(v->wake, v->kicked)];
	if (!pools)
		return NULL;
	return per_cpu_ptr(pools, cpu) + highpri;
}

/*
 * Destroy the initialised pools of @pools (a zero refcnt: never set up),
 * then their per-CPU memory: RCU readers found them in the idr, so the
 * memory goes after a grace period. Context: fwq_pool_mutex held, may
 * sleep.
 */
static void fwq_cpu_pools_free(struct fwq_pool __percpu *pools)
{
	int cpu, i;

	lockdep_assert_held(&fwq_pool_mutex);
	for_each_possible_cpu(cpu) {
		for (i = 0; i < FWQ_NR_STD_POOLS; i++) {
			struct fwq_pool *pool = per_cpu_ptr(pools, cpu) + i;

			if (!pool->refcnt)
				continue;
			if (pool->id >= 0)
				idr_remove(&fwq_pool_idr, pool->id);
			fwq_pool_destroy_workers(pool);
		}
	}
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		for (i = 0; i < FWQ_NR_STD_POOLS; i++) {
			struct fwq_pool *pool = per_cpu_ptr(pools, cpu) + i;

			if (pool->refcnt)
				fwq_fini_pool(pool);
		}
	}
	free_percpu(pools);
}

/**
 * fwq_cpu_pools_prepare - create the per-CPU pools of a variant
 * @v: the variant (wake and kicked are used)
 *
 * Context: cpus_read_lock() and fwq_pool_mutex held.
 */
int fwq_cpu_pools_prepare(const struct fwq_variant *v)
{
	int idx = fwq_pool_variant_idx(v->wake, v->kicked);
	struct fwq_pool __percpu *pools;
	int cpu, i;

	lockdep_assert_held(&fwq_pool_mutex);
	if (fwq_cpu_pools[idx])
		return 0;

	pools = __alloc_percpu(sizeof(struct fwq_pool) * FWQ_NR_STD_POOLS,
			       __alignof__(struct fwq_pool));
	if (!pools)
		return -ENOMEM;

	for_each_possible_cpu(cpu) {
		for (i = 0; i < FWQ_NR_STD_POOLS; i++) {
			struct fwq_pool *pool = per_cpu_ptr(pools, cpu) + i;

			if (fwq_init_pool(pool, cpu_to_node(cpu)))
				goto fail;
			pool->cpu = cpu;
			pool->highpri = i;
			pool->attrs.nice = i ? FWQ_HIGHPRI_NICE : 0;
			pool->attrs.wake = v->wake;
			pool->attrs.kicked = v->kicked;
			cpumask_copy(pool->attrs.cpumask, cpumask_of(cpu));
			cpumask_copy(pool->attrs.pod_cpumask, cpumask_of(cpu));
			if (fwq_pool_assign_id(pool))
				goto fail;
			if (cpumask_test_cpu(cpu, fwq_online_cpumask)) {
				pool->flags &= ~POOL_DISASSOCIATED;
				if (fwq_create_worker(pool))
					goto fail;
			}
		}
	}
	fwq_cpu_pools[idx] = pools;
	return 0;

fail:
	fwq_cpu_pools_free(pools);
	return -ENOMEM;
}

void fwq_cpu_pools_apply(int cpu, fwq_pool_fn fn)
{
	int idx, i;

	lockdep_assert_held(&fwq_pool_mutex);
	for (idx = 0; idx < FWQ_NR_POOL_VARIANTS; idx++) {
		if (!fwq_cpu_pools[idx])
			continue;
		for (i = 0; i < FWQ_NR_STD_POOLS; i++)
			fn(per_cpu_ptr(fwq_cpu_pools[idx], cpu) + i);
	}
}

void fwq_unbound_pools_apply(fwq_pool_fn fn)
{
	struct fwq_pool *pool;
	int bkt;

	lockdep_assert_held(&fwq_pool_mutex);
	hash_for_each(fwq_unbound_pool_hash, bkt, pool, hash_node)
		fn(pool);
}

/* the unbound pools, for fwq_objects_dump() */
void fwq_unbound_pools_dump(struct seq_file *m)
{
	struct fwq_pool *pool;
	int bkt;

	mutex_lock(&fwq_pool_mutex);
	hash_for_each(fwq_unbound_pool_hash, bkt, pool, hash_node) {
		fwq_pool_lock_irq(pool);
		fwq_dump_printk(m, "unbound pool %d: ref %d node %d cpus %*pbl pod_cpus %*pbl nice %d workers %d idle %d worklist %s\n",
				pool->id, pool->refcnt, pool->node,
				cpumask_pr_args(pool->attrs.cpumask),
				cpumask_pr_args(pool->attrs.pod_cpumask),
				pool->attrs.nice, pool->nr_workers,
				pool->nr_idle,
				list_empty(&pool->worklist) ? "empty" :
				"not empty");
		fwq_pool_unlock_irq(pool);
	}
	mutex_unlock(&fwq_pool_mutex);
}

/*
 * Module exit, after the leaked pwqs' release (fwq_wqs_reap()): destroy
 * every unbound pool still alive, as its last put would, workers, timers
 * and all, so that none outlives fwq.ko's text (fwq_reap_leaks(), main.c).
 */
void fwq_unbound_pools_reap(void)
{
	struct hlist_node *tmp;
	struct fwq_pool *pool;
	int bkt;

	mutex_lock(&fwq_pool_mutex);
	hash_for_each_safe(fwq_unbound_pool_hash, bkt, tmp, pool, hash_node) {
		pr_err("unload: unbound pool %d still has %d references: destroying it\n",
		       pool->id, pool->refcnt);
		pool->refcnt = 1;
		fwq_put_unbound_pool(pool);
	}
	mutex_unlock(&fwq_pool_mutex);
}

/* module exit: every workqueue is gone; destroy the per-CPU pools */
void fwq_pools_exit(void)
{
	int idx;

	mutex_lock(&fwq_pool_mutex);
	for (idx = 0; idx < FWQ_NR_POOL_VARIANTS; idx++) {
		if (!fwq_cpu_pools[idx])
			continue;
		fwq_cpu_pools_free(fwq_cpu_pools[idx]);
		fwq_cpu_pools[idx] = NULL;
	}
	mutex_unlock(&fwq_pool_mutex);
}

/* quiescence check of one pool (debugfs "check"), under its lock */
void fwq_pool_sanity(struct fwq_pool *pool)
{
	struct fwq_worker *worker;
	int idle = 0, kicked = 0;

	list_for_each_entry(worker, &pool->idle_list, entry) {
		idle++;
		fwq_check(worker->flags & WORKER_IDLE,
			  "pool %d: non-idle worker on idle_list", pool->id);
	}
	list_for_each_entry(worker, &pool->kicked_list, entry)
		kicked++;
	fwq_check(kicked <= 1, "pool %d: %d kicked workers", pool->id, kicked);
	fwq_check(idle + kicked <= pool->nr_idle,
		  "pool %d: idle %d + kicked %d > nr_idle %d", pool->id, idle,
		  kicked, pool->nr_idle);
}

static void fwq_pool_show_one(struct seq_file *m, struct fwq_pool *pool)
{
	struct fwq_worker *worker;
	int kicked = 0, wl = 0, busy = 0, bkt;
	struct fwq_work *work;

	fwq_pool_lock_irq(pool);
	list_for_each_entry(worker, &pool->kicked_list, entry)
		kicked++;
	list_for_each_entry(work, &pool->worklist, entry)
		wl++;
	hash_for_each(pool->busy_hash, bkt, worker, hentry)
		busy++;
	seq_printf(m, "pool %d: ", pool->id);
	if (pool->cpu >= 0)
		seq_printf(m, "cpu=%d%s", pool->cpu, pool->highpri ? "H" : "");
	else
		seq_printf(m, "unbound node=%d ref=%d cpus=%*pbl pod_cpus=%*pbl%s",
			   pool->node, pool->refcnt,
			   cpumask_pr_args(pool->attrs.cpumask),
			   cpumask_pr_args(pool->attrs.pod_cpumask),
			   pool->attrs.affn_strict ? " strict" : "");
	seq_printf(m, " nice=%d wake=%s kicked_list=%s%s workers=%d idle=%d kicked=%d busy=%d nr_running=%d worklist=%d manager=%d progress_age_ms=%u created=%llu culled=%llu cull_rekick=%llu kick_coalesced=%llu kicked_reaped=%llu\n",
		   pool->attrs.nice, fwq_wake_name(pool->attrs.wake),
		   fwq_kicked_name(pool->attrs.kicked),
		   (pool->flags & POOL_DISASSOCIATED) ? " disassociated" : "",
		   pool->nr_workers, pool->nr_idle, kicked, busy,
		   atomic_read(&pool->nr_running), wl,
		   !!(pool->flags & POOL_MANAGER_ACTIVE),
		   jiffies_to_msecs(jiffies - pool->last_progress_ts),
		   pool->nr_created, pool->nr_culled, pool->nr_cull_rekick,
		   pool->nr_kick_coalesced, pool->nr_kicked_reaped);
	fwq_pool_unlock_irq(pool);
}

void fwq_pools_show(struct seq_file *m)
{
	struct fwq_pool *pool;
	int id;

	mutex_lock(&fwq_pool_mutex);
	idr_for_each_entry(&fwq_pool_idr, pool, id) {
		/* skip per-CPU pools of offline CPUs that never had a worker */
		if (pool->cpu >= 0 && !pool->nr_workers &&
		    !cpu_online(pool->cpu))
			continue;
		fwq_pool_show_one(m, pool);
	}
	mutex_unlock(&fwq_pool_mutex);
}
