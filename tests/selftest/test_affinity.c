// SPDX-License-Identifier: GPL-2.0
/*
 * Affinity: items of an unbound workqueue run only on
 * CPUs of its cpumask; with affn_strict they run on CPUs of the queueing
 * CPU's pod; per-CPU workqueues run items on the CPU they were queued to.
 * Destroying an unbound workqueue releases its pools and their workers.
 * Kicking an idle worker that sits outside its pod counts a repatriation.
 * Runs per wake variant: kick_pool picks and places the worker. A CPU
 * that has never been online gets the booted kernel's cache pod.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define AF_ROUNDS	4

struct af_item {
	struct fwq_work work;
	int queued_cpu;
	int ran_cpu;
};

static void af_fn(struct fwq_work *work)
{
	struct af_item *it = container_of(work, struct af_item, work);

	it->ran_cpu = raw_smp_processor_id();
}

/*
 * Queue one item per online CPU, AF_ROUNDS times, and count the items that
 * ran outside the CPUs @allowed(queued_cpu) returns.
 */
static int af_run(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		  const struct cpumask *(*allowed)(int cpu, void *arg),
		  void *arg, const char *kind)
{
	struct af_item *items;
	int n = num_online_cpus(), i, r, cpu, bad = 0, ran = 0;

	items = kcalloc(n, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, items))
		return 0;
	for (r = 0; r < AF_ROUNDS; r++) {
		i = 0;
		for_each_online_cpu(cpu) {
			if (i == n)
				break;
			FWQ_INIT_WORK(&items[i].work, af_fn);
			items[i].queued_cpu = cpu;
			items[i].ran_cpu = -1;
			FWQ_EXPECT(t, fwq_queue_work_on(cpu, wq, &items[i].work));
			i++;
		}
		fwq_flush_workqueue(wq);
		while (i--) {
			struct af_item *it = &items[i];

			if (it->ran_cpu < 0)
				continue;
			ran++;
			if (!cpumask_test_cpu(it->ran_cpu,
					      allowed(it->queued_cpu, arg)) &&
			    bad++ < 4)
				fwq_ktap_diag("%s: queued on cpu %d, ran on cpu %d, allowed %*pbl",
					      kind, it->queued_cpu, it->ran_cpu,
					      cpumask_pr_args(allowed(it->queued_cpu,
								      arg)));
		}
	}
	kfree(items);
	FWQ_EXPECT_EQ(t, ran, AF_ROUNDS * n);
	return bad;
}

static const struct cpumask *af_mask(int cpu, void *arg)
{
	return arg;
}

static const struct cpumask *af_node(int cpu, void *arg)
{
	return cpumask_of_node(cpu_to_node(cpu));
}

static const struct cpumask *af_self(int cpu, void *arg)
{
	return cpumask_of(cpu);
}

/* an unbound workqueue of @v on @mask, nice 0 */
static struct fwq_workqueue *af_alloc(struct fwq_ktap_test *t,
				      const struct fwq_variant *v,
				      const struct cpumask *mask,
				      enum fwq_affn_scope scope, bool strict)
{
	return fwqt_alloc_unbound_mask(t, v, 0, 0, mask, scope, strict, 0);
}

/*
 * Invariant: an unbound workqueue whose cpumask is a subset
 * of the online CPUs runs every item inside that subset, whichever CPU it
 * was queued to, strict or not; an empty cpumask is refused with -EINVAL.
 */
static void test_affinity_cpumask(struct fwq_ktap_test *t)
{
	struct fwq_workqueue_attrs *attrs;
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	cpumask_var_t mask;
	int cpu, k = 0, strict;

	if (num_online_cpus() < 2) {
		FWQ_KTAP_SKIP(t, "needs two online CPUs");
		return;
	}
	fwqt_variant(t, &v, W);
	if (!FWQ_EXPECT(t, zalloc_cpumask_var(&mask, GFP_KERNEL)))
		return;
	/* the first half of the online CPUs */
	for_each_online_cpu(cpu)
		if (k++ < num_online_cpus() / 2)
			cpumask_set_cpu(cpu, mask);

	for (strict = 0; strict < 2; strict++) {
		wq = af_alloc(t, &v, mask, FWQ_AFFN_SYSTEM, strict);
		if (!wq)
			continue;
		FWQ_EXPECT_EQ(t, af_run(t, wq, af_mask, mask,
					strict ? "strict" : "non-strict"), 0);

		attrs = fwq_alloc_workqueue_attrs();
		if (FWQ_EXPECT(t, attrs)) {
			cpumask_clear(attrs->cpumask);
			attrs->variant = v;
			FWQ_EXPECT_EQ(t, fwq_apply_workqueue_attrs(wq, attrs),
				      -EINVAL);
			fwq_free_workqueue_attrs(attrs);
		}
		/* the refused apply changed nothing */
		FWQ_EXPECT_EQ(t, af_run(t, wq, af_mask, mask, "after -EINVAL"),
			      0);
		fwq_destroy_workqueue(wq);
	}
	free_cpumask_var(mask);
}

/*
 * Invariant: with affn_strict, an item queued on CPU c runs
 * on a CPU of c's pod: its own CPU for scope cpu, its node for scope numa.
 * A per-CPU workqueue runs the item on the CPU it was queued to.
 */
static void test_affinity_strict_pod(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;

	fwqt_variant(t, &v, W);
	wq = af_alloc(t, &v, cpu_possible_mask, FWQ_AFFN_CPU, true);
	if (wq) {
		FWQ_EXPECT_EQ(t, af_run(t, wq, af_self, NULL,
					"strict,scope=cpu"), 0);
		fwq_destroy_workqueue(wq);
	}
	wq = af_alloc(t, &v, cpu_possible_mask, FWQ_AFFN_NUMA, true);
	if (wq) {
		FWQ_EXPECT_EQ(t, af_run(t, wq, af_node, NULL,
					"strict,scope=numa"), 0);
		fwq_destroy_workqueue(wq);
	}
	wq = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 0);
	if (wq) {
		FWQ_EXPECT_EQ(t, af_run(t, wq, af_self, NULL, "percpu"), 0);
		fwq_destroy_workqueue(wq);
	}
}

#define AF_NICE		13

/*
 * Invariant: destroying an unbound workqueue that had a pool of
 * its own releases that pool: all its workers exit; and the rescuer of an
 * FWQ_MEM_RECLAIM workqueue exits too.
 */
static void test_destroy_releases_pool(struct fwq_ktap_test *t)
{
	struct fwqt_blocker b[4];
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	unsigned long end;
	int i, n = -1;

	fwqt_variant(t, &v, W);
	wq = fwqt_alloc_unbound(t, &v, FWQ_MEM_RECLAIM, 0, FWQ_AFFN_SYSTEM,
				AF_NICE);
	if (!wq)
		return;
	for (i = 0; i < ARRAY_SIZE(b); i++) {
		fwqt_blocker_init(&b[i]);
		FWQ_EXPECT(t, fwq_queue_work(wq, &b[i].work));
	}
	for (i = 0; i < ARRAY_SIZE(b); i++)
		fwqt_wait(t, &b[i].started, "item start");
	n = fwqt_count_workers("fwq/u", AF_NICE);
	fwq_ktap_diag("%d workers in the pool, %d rescuer", n,
		      fwqt_count_workers("fwq/R-fwqt-dest", FWQT_ANY_NICE));
	FWQ_EXPECT(t, n >= ARRAY_SIZE(b));
	for (i = 0; i < ARRAY_SIZE(b); i++)
		fwqt_blocker_open(&b[i]);
	fwq_destroy_workqueue(wq);

	/* pool release may be deferred (RCU, release worker): poll */
	end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);
	while (time_before(jiffies, end)) {
		/* comm is 15 characters: "fwq/R-fwqt-dest" */
		n = fwqt_count_workers("fwq/u", AF_NICE) +
		    fwqt_count_workers("fwq/R-fwqt-dest", FWQT_ANY_NICE);
		if (!n)
			break;
		msleep(20);
	}
	if (!FWQ_EXPECT_EQ(t, n, 0))
		fwq_ktap_diag("hang guard: %d workers or rescuers left after destroy",
			      n);
}

struct af_once {
	struct fwq_work work;
	atomic_t ran;
};

static void af_once_fn(struct fwq_work *work)
{
	atomic_inc(&container_of(work, struct af_once, work)->ran);
}

/*
 * Invariant: an unbound pool always gets its first worker, as in mainline,
 * even when every CPU of its cpumask is offline: an item queued to a
 * workqueue whose cpumask holds one offline CPU runs (on an online CPU),
 * and items still run once that CPU is back. Such a pool once got no
 * worker, for ever: its items never ran and destroying the workqueue hung.
 */
static void test_offline_cpumask(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	struct af_once *it;
	bool ran = false;
	int cpu, ret;

	cpu = cpumask_last(cpu_online_mask);
	if (num_online_cpus() < 2 || cpu == 0) {
		FWQ_KTAP_SKIP(t, "needs a second online CPU");
		return;
	}
	fwqt_variant(t, &v, W);
	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!FWQ_EXPECT(t, it))
		return;
	ret = remove_cpu(cpu);
	if (ret) {
		fwq_ktap_diag("remove_cpu(%d) = %d", cpu, ret);
		FWQ_KTAP_SKIP(t, "cannot take a CPU offline");
		kfree(it);
		return;
	}
	wq = af_alloc(t, &v, cpumask_of(cpu), FWQ_AFFN_SYSTEM, false);
	if (wq) {
		FWQ_INIT_WORK(&it->work, af_once_fn);
		FWQ_EXPECT(t, fwq_queue_work(wq, &it->work));
		ran = fwqt_wait_atomic(t, &it->ran, 1,
				       "the item of a cpumask with no online CPU");
	}
	FWQ_EXPECT_EQ(t, add_cpu(cpu), 0);
	if (!wq) {
		kfree(it);
		return;
	}
	if (!ran) {
		/* destroying it would wait for the item for ever */
		fwq_ktap_diag("leaking the workqueue and its item: no worker ran it");
		return;
	}
	FWQ_EXPECT(t, fwq_queue_work(wq, &it->work));
	fwqt_wait_atomic(t, &it->ran, 2, "the item after the CPU came back");
	fwq_destroy_workqueue(wq);
	fwq_ktap_diag("cpu %d offline: the item ran; online again: it ran again",
		      cpu);
	kfree(it);
}

#define RP_ROUNDS	8
#define RP_NICE		-11	/* a pool of the case's own */

struct rp_item {
	struct fwq_work work;
	int away_cpu;	/* leave the worker on this CPU; -1: stay */
	bool moved;
};

static void rp_fn(struct fwq_work *work)
{
	struct rp_item *it = container_of(work, struct rp_item, work);
	cpumask_var_t saved;

	it->moved = false;
	if (it->away_cpu < 0 || !alloc_cpumask_var(&saved, GFP_KERNEL))
		return;
	/*
	 * Leave this worker, once idle, on a CPU outside its pod: move it
	 * there, then give it its own cpumask back (the whole cpumask, as
	 * the pool is non-strict), which does not move it again.
	 */
	cpumask_copy(saved, current->cpus_ptr);
	if (!set_cpus_allowed_ptr(current, cpumask_of(it->away_cpu)))
		it->moved = raw_smp_processor_id() == it->away_cpu;
	set_cpus_allowed_ptr(current, saved);
	free_cpumask_var(saved);
}

/*
 * Invariant: kicking an idle worker of a non-strict unbound pool that last
 * ran outside its pod steers its wakeup back into the pod and counts the
 * repatriation, charged, as in mainline, to the pwq of the item that
 * makes the kick (the idle worker has no current pwq). One-CPU pods
 * (scope cpu); each round leaves the worker on another CPU, waits for it
 * to go idle and queues one item from its pod.
 */
static void test_repatriation_counted(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *wq;
	struct fwq_wq_stats st;
	struct fwq_variant v;
	struct rp_item it;
	int home, away, i, moved = 0;

	fwqt_variant(t, &v, W);
	home = fwqt_random_online_cpu();
	away = cpumask_any_but(cpu_online_mask, home);
	if (away >= nr_cpu_ids) {
		fwq_ktap_diag("needs two online CPUs");
		return;
	}
	wq = fwqt_alloc_unbound(t, &v, 0, 1, FWQ_AFFN_CPU, RP_NICE);
	if (!wq)
		return;
	FWQ_INIT_WORK(&it.work, rp_fn);
	for (i = 0; i < RP_ROUNDS; i++) {
		it.away_cpu = away;
		FWQ_EXPECT(t, fwq_queue_work_on(home, wq, &it.work));
		fwq_flush_work(&it.work);
		moved += it.moved;
		/* not a timing check: only lets the worker reach idle */
		msleep(20);
		it.away_cpu = -1;
		FWQ_EXPECT(t, fwq_queue_work_on(home, wq, &it.work));
		fwq_flush_work(&it.work);
		fwq_workqueue_get_stats(wq, &st);
		if (st.repatriated)
			break;
	}
	fwq_ktap_diag("home %d, away %d: moved away %d times, %llu repatriations in %d rounds",
		      home, away, moved, st.repatriated,
		      i < RP_ROUNDS ? i + 1 : i);
	FWQ_EXPECT(t, moved > 0);
	FWQ_EXPECT(t, st.repatriated > 0);
	fwq_destroy_workqueue(wq);
}

#define AF_PODS		"/sys/kernel/debug/fwq/pods"
#define AF_PODS_BUF	(64 * 1024)

/*
 * Invariant: the cache pod of a possible CPU that has never been online
 * is the one the booted kernel's cpus_share_cache() gives it: CPU 0's up
 * to 6.12 (sd_llc_id stays 0), a pod of never-online CPUs only on 7.3
 * (sd_llc_id starts at -1; FWQ_ABSENT_CPUS_OWN_LLC). Read from fwq's pod
 * dump. Needs possible_cpus= above the online count (the wide preset).
 */
static void test_absent_cache_pod(struct fwq_ktap_test *t)
{
	cpumask_var_t pod;
	char *buf, *line, *next;
	bool in_cache = false, found = false;
	int absent = -1, cpu;
	ssize_t n;

	for_each_possible_cpu(cpu) {
		if (cpumask_empty(topology_core_cpumask(cpu))) {
			absent = cpu;
			break;
		}
	}
	if (absent < 0) {
		FWQ_KTAP_SKIP(t, "no possible CPU that has never been online");
		return;
	}
	buf = kvmalloc(AF_PODS_BUF, GFP_KERNEL);
	if (!FWQ_EXPECT(t, buf))
		return;
	if (!FWQ_EXPECT(t, zalloc_cpumask_var(&pod, GFP_KERNEL)))
		goto out_buf;
	n = fwqt_file_read(AF_PODS, buf, AF_PODS_BUF);
	if (!FWQ_EXPECT(t, n > 0))
		goto out;
	for (line = buf; line && !found; line = next) {
		char *cpus;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "scope ", 6)) {
			in_cache = !strncmp(line, "scope cache ", 12);
			continue;
		}
		cpus = strstr(line, " cpus ");
		if (!in_cache || !cpus || cpulist_parse(cpus + 6, pod))
			continue;
		found = cpumask_test_cpu(absent, pod);
	}
	if (!FWQ_EXPECT(t, found)) {
		fwq_ktap_diag("CPU %d in no cache pod of %s", absent, AF_PODS);
		goto out;
	}
	fwq_ktap_diag("never-online CPU %d: cache pod %*pbl", absent,
		      cpumask_pr_args(pod));
	if (FWQ_ABSENT_CPUS_OWN_LLC) {
		for_each_cpu(cpu, pod)
			if (!FWQ_EXPECT(t, cpumask_empty(topology_core_cpumask(cpu))))
				break;
	} else {
		FWQ_EXPECT(t, cpumask_test_cpu(0, pod));
	}
out:
	free_cpumask_var(pod);
out_buf:
	kvfree(buf);
}

FWQ_KTAP_SUITE(fwq_suite_affinity, "fwq_affinity",
	       FWQT_CASE("unbound_runs_inside_cpumask",
			 test_affinity_cpumask, W),
	       FWQT_CASE("strict_runs_inside_pod", test_affinity_strict_pod, W),
	       FWQT_CASE("destroy_releases_pool",
			 test_destroy_releases_pool, W),
	       FWQT_CASE("offline_cpumask_gets_a_worker",
			 test_offline_cpumask, W),
	       FWQT_CASE("repatriation_counted", test_repatriation_counted, W),
	       { .name = "absent_cpus_cache_pod", .run = test_absent_cache_pod });
