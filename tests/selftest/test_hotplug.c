// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug: offlining and onlining CPUs while
 * per-CPU and unbound items run and requeue themselves to those CPUs loses
 * nothing: every successful queue runs exactly once, every chain keeps
 * going after the CPUs come back. Runs per wake variant.
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

struct hp_chain {
	struct fwq_work work;
	struct fwq_workqueue *wq;
	int cpu;		/* target CPU; -1 = random online CPU */
	atomic_t runs;
	atomic_t queued;
	atomic_t requeue_failed;
	bool *stop;
};

static void hp_fn(struct fwq_work *work)
{
	struct hp_chain *ch = container_of(work, struct hp_chain, work);
	int cpu = ch->cpu >= 0 ? ch->cpu : fwqt_random_online_cpu();
	unsigned int n = atomic_inc_return(&ch->runs);

	if (n % 4)
		fwqt_spin_us(20);
	else
		usleep_range(200, 500);	/* sleep: exercise CM on the pool */
	if (READ_ONCE(*ch->stop))
		return;
	/* its own requeue: PENDING is clear, this must succeed */
	if (fwq_queue_work_on(cpu, ch->wq, &ch->work))
		atomic_inc(&ch->queued);
	else
		atomic_inc(&ch->requeue_failed);
}

struct hp_flush_arg {
	struct fwq_workqueue *wq[2];
};

static void hp_flush(void *p)
{
	struct hp_flush_arg *a = p;

	fwq_flush_workqueue(a->wq[0]);
	fwq_flush_workqueue(a->wq[1]);
}

/*
 * Invariant: offline and online every CPU but one, one at a time,
 * while per-CPU items chain on each CPU and unbound items chain on each
 * CPU's pwq (scope cpu) and to random CPUs: no item is lost (runs ==
 * successful queues for every chain), and every chain still makes progress
 * afterwards.
 */
static void test_hotplug_no_loss(struct fwq_ktap_test *t)
{
	struct fwq_workqueue *pcpu = NULL, *unb = NULL;
	struct hp_chain *chains = NULL;
	struct hp_flush_arg fa;
	struct fwqt_thread th;
	struct fwq_variant v;
	cpumask_var_t online;
	int nr, i, cpu, first, cycles = 0, lost = 0;
	bool stop = false;

	if (num_online_cpus() < 2) {
		FWQ_KTAP_SKIP(t, "needs two online CPUs");
		return;
	}
	if (!FWQ_EXPECT(t, zalloc_cpumask_var(&online, GFP_KERNEL)))
		return;
	cpumask_copy(online, cpu_online_mask);
	first = cpumask_first(online);
	fwqt_variant(t, &v, W);

	pcpu = fwqt_alloc_wq(t, &v, FWQ_PERCPU, 0);
	unb = fwqt_alloc_unbound(t, &v, 0, 0, FWQ_AFFN_CPU, 0);
	nr = 2 * cpumask_weight(online) + 2;
	chains = kcalloc(nr, sizeof(*chains), GFP_KERNEL);
	if (!pcpu || !unb || !FWQ_EXPECT(t, chains))
		goto out;

	i = 0;
	for_each_cpu(cpu, online) {
		chains[i].wq = pcpu;
		chains[i++].cpu = cpu;
		chains[i].wq = unb;
		chains[i++].cpu = cpu;
	}
	chains[i].wq = pcpu;
	chains[i++].cpu = -1;
	chains[i].wq = unb;
	chains[i++].cpu = -1;
	for (i = 0; i < nr; i++) {
		struct hp_chain *ch = &chains[i];

		FWQ_INIT_WORK(&ch->work, hp_fn);
		ch->stop = &stop;
		if (FWQ_EXPECT(t, fwq_queue_work_on(ch->cpu >= 0 ? ch->cpu : first,
						    ch->wq, &ch->work)))
			atomic_inc(&ch->queued);
	}

	for_each_cpu(cpu, online) {
		int ret;

		if (cpu == first)
			continue;
		usleep_range(10000, 11000);
		ret = remove_cpu(cpu);
		if (ret) {
			fwq_ktap_diag("remove_cpu(%d) = %d", cpu, ret);
			continue;
		}
		/* the chains keep queueing to the CPU while it is down */
		usleep_range(10000, 11000);
		ret = add_cpu(cpu);
		if (!FWQ_EXPECT_EQ(t, ret, 0))
			fwq_ktap_diag("add_cpu(%d) failed", cpu);
		cycles++;
	}
	fwq_ktap_diag("%d CPUs went offline and online", cycles);
	FWQ_EXPECT(t, cycles > 0);

	/* every chain still makes progress */
	for (i = 0; i < nr; i++) {
		struct hp_chain *ch = &chains[i];

		if (!fwqt_wait_atomic(t, &ch->runs, atomic_read(&ch->runs) + 2,
				      "chain progress after hotplug")) {
			fwq_ktap_diag("chain %d (cpu %d, %s) stalled", i,
				      ch->cpu, ch->wq == pcpu ? "percpu" :
				      "unbound");
			break;
		}
	}

	WRITE_ONCE(stop, true);
	fa.wq[0] = pcpu;
	fa.wq[1] = unb;
	if (!fwqt_thread_start(&th, hp_flush, &fa, -1, "hp-flush"))
		fwqt_thread_join(t, &th, NULL, NULL, "flush after hotplug");
	fwq_flush_workqueue(pcpu);	/* items of a requeue racing stop */
	fwq_flush_workqueue(unb);

	for (i = 0; i < nr; i++) {
		struct hp_chain *ch = &chains[i];

		if (atomic_read(&ch->runs) != atomic_read(&ch->queued) ||
		    atomic_read(&ch->requeue_failed)) {
			if (lost++ < 4)
				fwq_ktap_diag("chain %d (cpu %d): queued %d, ran %d, refused %d",
					      i, ch->cpu,
					      atomic_read(&ch->queued),
					      atomic_read(&ch->runs),
					      atomic_read(&ch->requeue_failed));
		}
	}
	FWQ_EXPECT_EQ(t, lost, 0);
out:
	/* bring back any CPU we took down */
	for_each_cpu(cpu, online)
		if (!cpu_online(cpu))
			FWQ_EXPECT_EQ(t, add_cpu(cpu), 0);
	fwqt_destroy_wq(pcpu);
	fwqt_destroy_wq(unb);
	kfree(chains);
	free_cpumask_var(online);
}

FWQ_KTAP_SUITE(fwq_suite_hotplug, "fwq_hotplug",
	       FWQT_CASE("hotplug_loses_no_item", test_hotplug_no_loss, W));
