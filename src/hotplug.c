// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: CPU hotplug through dynamic cpuhp states.
 *
 *   CPUHP_BP_PREPARE_DYN  startup (control CPU, before the new CPU runs):
 *                         give each instantiated per-CPU pool of the CPU a
 *                         worker; the pool is still disassociated, so the
 *                         worker starts as WORKER_UNBOUND.
 *   CPUHP_AP_ONLINE_DYN   startup (on the new CPU): rebind the per-CPU
 *                         workers (UNBOUND -> REBOUND, CM resumes after one
 *                         cycle), restore unbound workers' affinity, re-pick
 *                         the unbound pwqs of the CPU's pod, node maxima.
 *                         teardown (on the outgoing CPU): mark every worker
 *                         of its per-CPU pools UNBOUND, set DISASSOCIATED,
 *                         zero nr_running and kick, so the pool keeps
 *                         running as an unbound one, and stop its
 *                         CPU-intensive timer (cm.c); then the pod pwqs and
 *                         node maxima without the CPU.
 *
 * AP_ONLINE_DYN sits below CPUHP_AP_ACTIVE: on the way down the scheduler's
 * balance_push may move an fwq per-CPU worker away before the teardown runs
 * (fwq cannot mark its threads KTHREAD_IS_PER_CPU: kthread_set_per_cpu() is
 * not exported). Such a worker runs off-CPU for a moment while its pool
 * still looks associated; nothing in fwq depends on it running on the CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>

#include "internal.h"

static enum cpuhp_state fwq_hp_prepare_state = CPUHP_INVALID;
static enum cpuhp_state fwq_hp_online_state = CPUHP_INVALID;

static void fwq_pool_prepare_worker(struct fwq_pool *pool)
{
	int nr;

	fwq_pool_lock_irq(pool);
	nr = pool->nr_workers;
	fwq_pool_unlock_irq(pool);
	if (!nr && fwq_create_worker(pool))
		pr_err("no worker for cpu %d pool %d\n", pool->cpu, pool->id);
}

static int fwq_cpu_prepare(unsigned int cpu)
{
	mutex_lock(&fwq_pool_mutex);
	fwq_cpu_pools_apply(cpu, fwq_pool_prepare_worker);
	mutex_unlock(&fwq_pool_mutex);
	return 0;
}

static void fwq_rebind_workers(struct fwq_pool *pool)
{
	struct fwq_worker *worker;

	mutex_lock(&fwq_pool_attach_mutex);
	list_for_each_entry(worker, &pool->workers, node) {
		if (!worker->rescue_wq)
			set_cpus_allowed_ptr(worker->task,
					     cpumask_of(pool->cpu));
	}
	fwq_pool_lock_irq(pool);
	pool->flags &= ~POOL_DISASSOCIATED;
	list_for_each_entry(worker, &pool->workers, node) {
		unsigned int flags = worker->flags;

		if (worker->rescue_wq || !fwq_cm_enabled)
			continue;
		if (flags & WORKER_UNBOUND) {
			flags &= ~WORKER_UNBOUND;
			flags |= WORKER_REBOUND;
			WRITE_ONCE(worker->flags, flags);
		}
	}
	/* every worker is NOT_RUNNING now: nobody is counted */
	atomic_set(&pool->nr_running, 0);
	fwq_pool_unlock_irq(pool);
	mutex_unlock(&fwq_pool_attach_mutex);
}

static void fwq_unbind_workers(struct fwq_pool *pool)
{
	struct fwq_wake_batch wb = FWQ_WAKE_BATCH_INIT;
	struct fwq_worker *worker;

	mutex_lock(&fwq_pool_attach_mutex);
	fwq_pool_lock_irq(pool);
	list_for_each_entry(worker, &pool->workers, node)
		WRITE_ONCE(worker->flags, worker->flags | WORKER_UNBOUND);
	pool->flags |= POOL_DISASSOCIATED;
	/* CM is off from here: blocked busy workers must not stall the pool */
	atomic_set(&pool->nr_running, 0);
	fwq_kick_pool(pool, &wb, NULL, FWQ_SITE_OTHER);
	fwq_pool_unlock_irq_issue(pool, &wb);
	/* DISASSOCIATED is set: no item start re-arms the CPU-intensive timer */
	fwq_cm_pool_stop(pool);

	list_for_each_entry(worker, &pool->workers, node)
		set_cpus_allowed_ptr(worker->task, cpu_possible_mask);
	mutex_unlock(&fwq_pool_attach_mutex);
}

static unsigned int fwq_hp_cpu;

static void fwq_restore_unbound_workers(struct fwq_pool *pool)
{
	const struct cpumask *mask;
	struct fwq_worker *worker;

	if (!cpumask_test_cpu(fwq_hp_cpu, pool->attrs.cpumask))
		return;
	mutex_lock(&fwq_pool_attach_mutex);
	mask = fwq_pool_allowed_cpus(pool);
	if (cpumask_intersects(mask, cpu_online_mask)) {
		list_for_each_entry(worker, &pool->workers, node)
			set_cpus_allowed_ptr(worker->task, mask);
	}
	mutex_unlock(&fwq_pool_attach_mutex);
}

/* under fwq_pool_mutex: re-pick the unbound pwqs of @cpu's pod */
static void fwq_update_unbound_wqs(unsigned int cpu, int off_cpu)
{
	struct fwq_workqueue *wq;

	list_for_each_entry(wq, &fwq_workqueues, list) {
		const struct fwq_pod_type *pt;
		int c;

		if (!fwq_wq_unbound(wq))
			continue;
		pt = fwq_pod_type(fwq_resolve_scope(wq->unbound_attrs->affn_scope));
		for_each_cpu(c, pt->pod_cpus[pt->cpu_pod[cpu]])
			fwq_unbound_wq_update_pwq(wq, c, off_cpu);
		mutex_lock(&wq->mutex);
		fwq_wq_update_node_max_active(wq, off_cpu);
		mutex_unlock(&wq->mutex);
	}
}

static int fwq_cpu_online(unsigned int cpu)
{
	mutex_lock(&fwq_pool_mutex);
	cpumask_set_cpu(cpu, fwq_online_cpumask);
	fwq_cpu_pools_apply(cpu, fwq_rebind_workers);
	fwq_hp_cpu = cpu;
	fwq_unbound_pools_apply(fwq_restore_unbound_workers);
	fwq_update_unbound_wqs(cpu, -1);
	mutex_unlock(&fwq_pool_mutex);
	return 0;
}

static int fwq_cpu_offline(unsigned int cpu)
{
	mutex_lock(&fwq_pool_mutex);
	fwq_cpu_pools_apply(cpu, fwq_unbind_workers);
	fwq_update_unbound_wqs(cpu, cpu);
	cpumask_clear_cpu(cpu, fwq_online_cpumask);
	mutex_unlock(&fwq_pool_mutex);
	return 0;
}

/* Context: cpus_read_lock() held */
int fwq_hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_BP_PREPARE_DYN,
						   "fwq:prepare",
						   fwq_cpu_prepare, NULL);
	if (ret < 0)
		return ret;
	fwq_hp_prepare_state = ret;

	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
						   "fwq:online",
						   fwq_cpu_online,
						   fwq_cpu_offline);
	if (ret < 0) {
		cpuhp_remove_state_nocalls_cpuslocked(fwq_hp_prepare_state);
		fwq_hp_prepare_state = CPUHP_INVALID;
		return ret;
	}
	fwq_hp_online_state = ret;
	return 0;
}

void fwq_hotplug_exit(void)
{
	if (fwq_hp_online_state != CPUHP_INVALID)
		cpuhp_remove_state_nocalls(fwq_hp_online_state);
	if (fwq_hp_prepare_state != CPUHP_INVALID)
		cpuhp_remove_state_nocalls(fwq_hp_prepare_state);
	fwq_hp_online_state = CPUHP_INVALID;
	fwq_hp_prepare_state = CPUHP_INVALID;
}
