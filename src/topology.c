// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: pods per affinity scope.
 *
 * As in mainline, every scope divides the possible CPUs into pods once, at
 * module load: a CPU joins the pod of the first lower-numbered CPU it shares
 * with, or opens the next pod. What "shares" means per scope:
 *
 *   cpu          never
 *   smt          topology_sibling_cpumask() (cpu_sibling_map is exported)
 *   cache        the last-level cache. 6.1 exports no LLC map to modules
 *                (cpu_llc_shared_map and cpus_share_cache() are not
 *                exported), so fwq approximates the LLC by the package,
 *                topology_core_cpumask(). Where the package holds several
 *                LLCs (AMD CCXs, for example), load fwq with
 *                llc="0-7;8-15;..." built from
 *                /sys/devices/system/cpu/cpu*\/cache/index3/shared_cpu_list.
 *   cache_shard  the cache pod, split into shards of cache_shard_size cores
 *                (SMT siblings never split), as mainline's CACHE_SHARD:
 *                nr_shards = max(1, round(cores / size)); the first
 *                cores % nr_shards shards get one extra core.
 *   numa         cpu_to_node()
 *   system       always
 *
 * A possible CPU that has never been online has empty sibling and core
 * masks, so it is its own SMT core. Its cache pod is the one mainline
 * gives it: cpus_share_cache() compares the CPUs' sd_llc_id, which the
 * scheduler sets only on a CPU it has attached a domain to. Up to 6.12
 * every other CPU keeps its initial 0, the id of the LLC that holds CPU
 * 0, so the absent CPUs of a VM with possible_cpus= all join CPU 0's
 * pod. 7.3 starts sd_llc_id at -1, so they share a pod of their own,
 * which has no online CPU: their pwqs fall back to the whole cpumask's
 * pool, the default pwq's (FWQ_ABSENT_CPUS_OWN_LLC, src/compat/compat.h).
 * Either way an unbound workqueue's pwqs for them share one pool, the
 * kernel's. Pods are not recomputed on hotplug, as in mainline.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "topology.h"

/* Read-only after load: the shard layout is computed once. */
int fwq_cache_shard_size = 8;
char *fwq_param_llc;

static int fwq_shard_size_set(const char *val, const struct kernel_param *kp)
{
	int n, ret = kstrtoint(val, 0, &n);

	if (ret || n < 1 || n > 4096) {
		pr_err("invalid cache_shard_size '%s': need 1 to 4096 cores\n",
		       val);
		return -EINVAL;
	}
	*(int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops fwq_shard_size_ops = {
	.set = fwq_shard_size_set,
	.get = param_get_int,
};

module_param_cb(cache_shard_size, &fwq_shard_size_ops, &fwq_cache_shard_size,
		0444);
MODULE_PARM_DESC(cache_shard_size,
		 "cores per cache_shard pod, 1 to 4096 (default 8)");
module_param_named(llc, fwq_param_llc, charp, 0444);
MODULE_PARM_DESC(llc,
		 "last-level cache groups as cpu lists separated by ';', e.g. \"0-7;8-15\" (default: one per package)");

static struct fwq_pod_type fwq_pod_types[FWQ_AFFN_NR_TYPES];

/* [nr_cpu_ids] LLC group of each CPU from the llc parameter, or -1 */
static int *fwq_llc_group;

typedef bool (*fwq_share_fn)(int cpu0, int cpu1);

static bool fwq_share_never(int cpu0, int cpu1)
{
	return false;
}

static bool fwq_share_always(int cpu0, int cpu1)
{
	return true;
}

static bool fwq_share_smt(int cpu0, int cpu1)
{
	return cpumask_test_cpu(cpu0, topology_sibling_cpumask(cpu1));
}

static bool fwq_share_numa(int cpu0, int cpu1)
{
	return cpu_to_node(cpu0) == cpu_to_node(cpu1);
}

static bool fwq_never_online(int cpu)
{
	return cpumask_empty(topology_core_cpumask(cpu));
}

/* the CPU whose LLC @cpu counts as in: CPU 0's for a never-online CPU */
static int fwq_cache_cpu(int cpu)
{
	return fwq_never_online(cpu) ? 0 : cpu;
}

static bool fwq_share_cache(int cpu0, int cpu1)
{
	const struct cpumask *m1;

	if (fwq_llc_group && fwq_llc_group[cpu0] >= 0 &&
	    fwq_llc_group[cpu1] >= 0)
		return fwq_llc_group[cpu0] == fwq_llc_group[cpu1];
	/* 7.3: the never-online CPUs' own LLC, sd_llc_id -1 */
	if (FWQ_ABSENT_CPUS_OWN_LLC &&
	    (fwq_never_online(cpu0) || fwq_never_online(cpu1)))
		return fwq_never_online(cpu0) && fwq_never_online(cpu1);
	cpu0 = fwq_cache_cpu(cpu0);
	cpu1 = fwq_cache_cpu(cpu1);
	if (cpu0 == cpu1)
		return true;
	m1 = topology_core_cpumask(cpu1);
	/* CPU 0 offline at load: its package is unknown */
	if (cpumask_empty(m1) || cpumask_empty(topology_core_cpumask(cpu0)))
		return fwq_share_numa(cpu0, cpu1);
	return cpumask_test_cpu(cpu0, m1);
}

/* [nr_cpu_ids] shard index inside the CPU's cache pod */
static int *fwq_cpu_shard;

static bool fwq_share_cache_shard(int cpu0, int cpu1)
{
	return fwq_share_cache(cpu0, cpu1) &&
	       fwq_cpu_shard[cpu0] == fwq_cpu_shard[cpu1];
}

static void fwq_free_pod_type(struct fwq_pod_type *pt)
{
	int pod;

	if (pt->pod_cpus)
		for (pod = 0; pod < pt->nr_pods; pod++)
			free_cpumask_var(pt->pod_cpus[pod]);
	kfree(pt->pod_cpus);
	kfree(pt->pod_node);
	kfree(pt->cpu_pod);
	memset(pt, 0, sizeof(*pt));
}

static int fwq_init_pod_type(struct fwq_pod_type *pt, fwq_share_fn share)
{
	int cpu, other, pod;

	pt->cpu_pod = kcalloc(nr_cpu_ids, sizeof(int), GFP_KERNEL);
	if (!pt->cpu_pod)
		return -ENOMEM;

	pt->nr_pods = 0;
	for_each_possible_cpu(cpu) {
		pt->cpu_pod[cpu] = -1;
		for_each_possible_cpu(other) {
			if (other >= cpu)
				break;
			if (share(cpu, other)) {
				pt->cpu_pod[cpu] = pt->cpu_pod[other];
				break;
			}
		}
		if (pt->cpu_pod[cpu] < 0)
			pt->cpu_pod[cpu] = pt->nr_pods++;
	}

	pt->pod_cpus = kcalloc(pt->nr_pods, sizeof(cpumask_var_t), GFP_KERNEL);
	pt->pod_node = kcalloc(pt->nr_pods, sizeof(int), GFP_KERNEL);
	if (!pt->pod_cpus || !pt->pod_node)
		goto nomem;
	for (pod = 0; pod < pt->nr_pods; pod++) {
		if (!zalloc_cpumask_var(&pt->pod_cpus[pod], GFP_KERNEL))
			goto nomem;
		pt->pod_node[pod] = NUMA_NO_NODE - 1;	/* not yet seen */
	}

	for_each_possible_cpu(cpu) {
		int node = cpu_to_node(cpu);

		pod = pt->cpu_pod[cpu];
		cpumask_set_cpu(cpu, pt->pod_cpus[pod]);
		if (pt->pod_node[pod] == NUMA_NO_NODE - 1)
			pt->pod_node[pod] = node;
		else if (pt->pod_node[pod] != node)
			pt->pod_node[pod] = NUMA_NO_NODE;
	}
	return 0;

nomem:
	fwq_free_pod_type(pt);
	return -ENOMEM;
}

/*
 * Give every CPU a shard index inside its cache pod. Cores (SMT groups) are
 * counted by their first sibling; shards are filled in CPU id order and a
 * sibling follows its core's first CPU.
 */
static int fwq_compute_shards(const struct fwq_pod_type *cache)
{
	int size = fwq_cache_shard_size;
	int *core_leader;
	int pod, cpu;

	fwq_cpu_shard = kcalloc(nr_cpu_ids, sizeof(int), GFP_KERNEL);
	core_leader = kcalloc(nr_cpu_ids, sizeof(int), GFP_KERNEL);
	if (!fwq_cpu_shard || !core_leader) {
		kfree(core_leader);
		return -ENOMEM;
	}

	/* the first CPU of each SMT core */
	for_each_possible_cpu(cpu) {
		int other;

		core_leader[cpu] = cpu;
		for_each_possible_cpu(other) {
			if (other >= cpu)
				break;
			if (fwq_share_smt(cpu, other) &&
			    fwq_share_cache(cpu, other)) {
				core_leader[cpu] = core_leader[other];
				break;
			}
		}
	}

	for (pod = 0; pod < cache->nr_pods; pod++) {
		const struct cpumask *pcpus = cache->pod_cpus[pod];
		int cores = 0, nr_shards, per_shard, nr_large;
		int shard = -1, in_shard = 0, cap = 0;

		for_each_cpu(cpu, pcpus)
			if (core_leader[cpu] == cpu)
				cores++;
		nr_shards = max(1, DIV_ROUND_CLOSEST(cores, size));
		per_shard = cores / nr_shards;
		nr_large = cores % nr_shards;

		for_each_cpu(cpu, pcpus) {
			if (core_leader[cpu] != cpu) {
				fwq_cpu_shard[cpu] = fwq_cpu_shard[core_leader[cpu]];
				continue;
			}
			if (shard < 0 || in_shard == cap) {
				shard++;
				in_shard = 0;
				cap = per_shard + (shard < nr_large ? 1 : 0);
			}
			fwq_cpu_shard[cpu] = shard;
			in_shard++;
		}
	}
	kfree(core_leader);
	return 0;
}

/* Parse the llc parameter into fwq_llc_group. */
static int fwq_parse_llc(void)
{
	char *buf, *cur, *grp;
	cpumask_var_t mask, seen;
	int group = 0, cpu, ret = -EINVAL;

	if (!fwq_param_llc || !*fwq_param_llc)
		return 0;

	buf = kstrdup(fwq_param_llc, GFP_KERNEL);
	fwq_llc_group = kcalloc(nr_cpu_ids, sizeof(int), GFP_KERNEL);
	if (!buf || !fwq_llc_group || !zalloc_cpumask_var(&mask, GFP_KERNEL)) {
		kfree(buf);
		return -ENOMEM;
	}
	if (!zalloc_cpumask_var(&seen, GFP_KERNEL)) {
		free_cpumask_var(mask);
		kfree(buf);
		return -ENOMEM;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		fwq_llc_group[cpu] = -1;

	cur = buf;
	while ((grp = strsep(&cur, ";")) != NULL) {
		grp = strim(grp);
		if (!*grp)
			continue;
		if (cpulist_parse(grp, mask) || cpumask_empty(mask) ||
		    cpumask_intersects(mask, seen)) {
			pr_err("invalid llc group '%s': need disjoint cpu lists below %u\n",
			       grp, nr_cpu_ids);
			goto out;
		}
		cpumask_or(seen, seen, mask);
		for_each_cpu(cpu, mask)
			fwq_llc_group[cpu] = group;
		group++;
	}
	ret = 0;
out:
	free_cpumask_var(seen);
	free_cpumask_var(mask);
	kfree(buf);
	return ret;
}

int fwq_topology_init(void)
{
	static const fwq_share_fn share[FWQ_AFFN_NR_TYPES] = {
		[FWQ_AFFN_CPU]		= fwq_share_never,
		[FWQ_AFFN_SMT]		= fwq_share_smt,
		[FWQ_AFFN_CACHE]	= fwq_share_cache,
		[FWQ_AFFN_CACHE_SHARD]	= fwq_share_cache_shard,
		[FWQ_AFFN_NUMA]		= fwq_share_numa,
		[FWQ_AFFN_SYSTEM]	= fwq_share_always,
	};
	int scope, ret;

	ret = fwq_parse_llc();
	if (ret)
		goto fail;

	/* cache first: the shard layout is derived from its pods */
	ret = fwq_init_pod_type(&fwq_pod_types[FWQ_AFFN_CACHE],
				share[FWQ_AFFN_CACHE]);
	if (!ret)
		ret = fwq_compute_shards(&fwq_pod_types[FWQ_AFFN_CACHE]);
	if (ret)
		goto fail;

	for (scope = FWQ_AFFN_CPU; scope < FWQ_AFFN_NR_TYPES; scope++) {
		if (scope == FWQ_AFFN_CACHE)
			continue;
		ret = fwq_init_pod_type(&fwq_pod_types[scope], share[scope]);
		if (ret)
			goto fail;
	}
	return 0;

fail:
	fwq_topology_exit();
	return ret;
}

void fwq_topology_exit(void)
{
	int scope;

	for (scope = 0; scope < FWQ_AFFN_NR_TYPES; scope++)
		fwq_free_pod_type(&fwq_pod_types[scope]);
	kfree(fwq_cpu_shard);
	fwq_cpu_shard = NULL;
	kfree(fwq_llc_group);
	fwq_llc_group = NULL;
}

const struct fwq_pod_type *fwq_pod_type(enum fwq_affn_scope scope)
{
	scope = fwq_resolve_scope(scope);
	if (WARN_ON_ONCE(scope <= FWQ_AFFN_DFL || scope >= FWQ_AFFN_NR_TYPES))
		scope = FWQ_AFFN_SYSTEM;
	return &fwq_pod_types[scope];
}

void fwq_topology_show(struct seq_file *m)
{
	int scope, pod;

	seq_printf(m, "cache_shard_size %d\nllc %s\ndefault_affinity_scope %s\n",
		   fwq_cache_shard_size,
		   fwq_param_llc && *fwq_param_llc ? fwq_param_llc : "(package)",
		   fwq_affn_scope_name(READ_ONCE(fwq_param_affn_scope)));
	for (scope = FWQ_AFFN_CPU; scope < FWQ_AFFN_NR_TYPES; scope++) {
		const struct fwq_pod_type *pt = &fwq_pod_types[scope];

		seq_printf(m, "scope %s nr_pods %d\n",
			   fwq_affn_scope_name(scope), pt->nr_pods);
		for (pod = 0; pod < pt->nr_pods; pod++)
			seq_printf(m, "  pod %d node %d cpus %*pbl\n", pod,
				   pt->pod_node[pod],
				   cpumask_pr_args(pt->pod_cpus[pod]));
	}
}
