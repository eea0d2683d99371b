/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq: pods per affinity scope, and the module parameters that pick the
 * defaults for new workqueues (variant, affinity scope).
 */
#ifndef _FWQ_TOPOLOGY_H
#define _FWQ_TOPOLOGY_H

#include <linux/cpumask.h>
#include <linux/seq_file.h>

#include <fwq/fwq.h>

/**
 * struct fwq_pod_type - the pods of one affinity scope
 * @nr_pods: number of pods
 * @pod_cpus: [nr_pods] the possible CPUs of each pod
 * @pod_node: [nr_pods] the NUMA node of each pod, NUMA_NO_NODE if its CPUs
 *	span several nodes
 * @cpu_pod: [nr_cpu_ids] the pod of each possible CPU
 *
 * Built once at module load over the possible CPUs, as mainline does, and
 * read-only afterwards (I:), so it may be read without locks.
 */
struct fwq_pod_type {
	int nr_pods;
	cpumask_var_t *pod_cpus;
	int *pod_node;
	int *cpu_pod;
};

int fwq_topology_init(void);
void fwq_topology_exit(void);

/**
 * fwq_pod_type - the pods of an affinity scope
 * @scope: a resolved scope, not FWQ_AFFN_DFL
 *
 * Return: the pod type; valid between fwq_topology_init() and
 * fwq_topology_exit().
 */
const struct fwq_pod_type *fwq_pod_type(enum fwq_affn_scope scope);

/**
 * fwq_resolve_scope - replace FWQ_AFFN_DFL by the default scope
 * @scope: any scope
 *
 * Return: @scope, or the default_affinity_scope module parameter for
 * FWQ_AFFN_DFL.
 */
enum fwq_affn_scope fwq_resolve_scope(enum fwq_affn_scope scope);

/**
 * fwq_topology_show - dump every scope's pods, in the spirit of wq_dump
 * @m: the seq_file to print to
 */
void fwq_topology_show(struct seq_file *m);

/* src/variant.c: module parameters giving the defaults (read with READ_ONCE) */
extern int fwq_param_wake;
extern int fwq_param_kicked;
extern int fwq_param_flush;
extern int fwq_param_affn_scope;
extern int fwq_cache_shard_size;
extern char *fwq_param_llc;

#endif /* _FWQ_TOPOLOGY_H */
