// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: counters. Per-workqueue counters live in per-CPU structs summed by
 * fwq_workqueue_get_stats(); the pool->lock hold/wait histograms of bench
 * scenario S3 sit behind a static key and cost nothing while it is off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "dbg.h"
#include "internal.h"

DEFINE_STATIC_KEY_FALSE(fwq_lockstat_key);
static DEFINE_PER_CPU(struct fwq_lockstat, fwq_lockstat_pcpu);
static DEFINE_MUTEX(fwq_lockstat_mutex);

static unsigned int fwq_ls_bucket(u64 ns)
{
	unsigned int b = ns ? ilog2(ns) : 0;

	return min_t(unsigned int, b, FWQ_LOCKSTAT_BUCKETS - 1);
}

/*
 * IRQs are off at every caller (under or right after pool->lock). A negative
 * value means "not measured here" (the chain path records its wait, the
 * relock after the work function, separately from its hold).
 */
void fwq_lockstat_record(enum fwq_lockstat_path path, s64 wait_ns,
			 s64 hold_ns)
{
	struct fwq_lockstat *ls = this_cpu_ptr(&fwq_lockstat_pcpu);

	if (wait_ns >= 0)
		ls->wait[path][fwq_ls_bucket(wait_ns)]++;
	if (hold_ns >= 0)
		ls->hold[path][fwq_ls_bucket(hold_ns)]++;
}

void fwq_lockstat_wakeup_locked(enum fwq_lockstat_path path)
{
	this_cpu_inc(fwq_lockstat_pcpu.wakeups_locked[path]);
}

void fwq_lockstat_enable(bool on)
{
	int cpu;

	mutex_lock(&fwq_lockstat_mutex);
	if (on) {
		static_branch_disable(&fwq_lockstat_key);
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(&fwq_lockstat_pcpu, cpu), 0,
			       sizeof(struct fwq_lockstat));
		static_branch_enable(&fwq_lockstat_key);
	} else {
		static_branch_disable(&fwq_lockstat_key);
	}
	mutex_unlock(&fwq_lockstat_mutex);
}
EXPORT_SYMBOL_GPL(fwq_lockstat_enable);

void fwq_lockstat_read(struct fwq_lockstat *out)
{
	int cpu, p, b;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		struct fwq_lockstat *ls = per_cpu_ptr(&fwq_lockstat_pcpu, cpu);

		for (p = 0; p < FWQ_LS_NR; p++) {
			for (b = 0; b < FWQ_LOCKSTAT_BUCKETS; b++) {
				out->hold[p][b] += READ_ONCE(ls->hold[p][b]);
				out->wait[p][b] += READ_ONCE(ls->wait[p][b]);
			}
			out->wakeups_locked[p] += READ_ONCE(ls->wakeups_locked[p]);
		}
	}
}
EXPORT_SYMBOL_GPL(fwq_lockstat_read);

static const char *const fwq_site_names[] = FWQ_WAKE_SITE_NAMES;
static_assert(ARRAY_SIZE(fwq_site_names) == FWQ_SITE_NR);

/* debugfs "stats": one line per workqueue, wq_monitor style */
void fwq_stats_show(struct seq_file *m)
{
	static atomic_t reader_seen = ATOMIC_INIT(0);
	struct fwq_workqueue *wq;
	struct fwq_wq_stats st;
	int s;

	/*
	 * A stats reader is an observer: the first read turns the wakeup and
	 * flush walk counters on for the rest of the module's life
	 * (fwq_counters_get()), so they count from then on.
	 */
	if (!atomic_xchg(&reader_seen, 1))
		fwq_counters_get();

	mutex_lock(&fwq_pool_mutex);
	list_for_each_entry(wq, &fwq_workqueues, list) {
		struct fwq_pwq *pwq;
		u64 stat[PWQ_NR_STATS] = {};
		u64 rejected = 0;
		int cpu, i;

		fwq_workqueue_get_stats(wq, &st);
		for_each_possible_cpu(cpu)
			rejected += per_cpu_ptr(wq->pcpu_stats, cpu)->rejected;
		rcu_read_lock();
		list_for_each_entry_rcu(pwq, &wq->pwqs, pwqs_node)
			for (i = 0; i < PWQ_NR_STATS; i++)
				stat[i] += READ_ONCE(pwq->stats[i]);
		rcu_read_unlock();

		seq_printf(m, "%s queued=%llu started=%llu completed=%llu infl=%lld flushes=%llu flush_pwqs_visited=%llu flush_lock_cycles=%llu flush_ns=%llu",
			   wq->name, st.queued, st.started, st.completed,
			   (s64)(st.queued - st.completed), st.flushes,
			   st.flush_pwqs_visited, st.flush_lock_cycles,
			   st.flush_ns);
		for (s = 0; s < FWQ_SITE_NR; s++)
			seq_printf(m, " wake_%s_unlocked=%llu wake_%s_locked=%llu",
				   fwq_site_names[s], st.wakeups[s][0],
				   fwq_site_names[s], st.wakeups[s][1]);
		seq_printf(m, " cpu_intensive=%llu cm_wakeup=%llu repatriated=%llu mayday=%llu rescued=%llu rejected=%llu\n",
			   stat[PWQ_STAT_CPU_INTENSIVE],
			   stat[PWQ_STAT_CM_WAKEUP], stat[PWQ_STAT_REPATRIATED],
			   stat[PWQ_STAT_MAYDAY], stat[PWQ_STAT_RESCUED],
			   rejected);
	}
	mutex_unlock(&fwq_pool_mutex);

	seq_puts(m, "(global)");
	for (s = 0; s < FWQ_SITE_NR; s++)
		seq_printf(m, " wake_%s_unlocked=%lld wake_%s_locked=%lld",
			   fwq_site_names[s],
			   atomic64_read(&fwq_global_wakeups[s][0]),
			   fwq_site_names[s],
			   atomic64_read(&fwq_global_wakeups[s][1]));
	seq_printf(m, " deferred_issue_under_lock=%lld misuse=%lld consistency_errors=%lld create_worker_injected=%lld watchdog_reports=%lld\n",
		   atomic64_read(&fwq_deferred_under_lock),
		   atomic64_read(&fwq_misuse_count),
		   atomic64_read(&fwq_consistency_errors),
		   atomic64_read(&fwq_create_worker_injected),
		   atomic64_read(&fwq_watchdog_reports));
}
