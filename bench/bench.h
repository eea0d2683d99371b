/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq_bench internals: run specification, targets (fwq or the kernel's own
 * workqueue), threads, sample sets and the JSON writer.
 */
#ifndef _FWQ_BENCH_H
#define _FWQ_BENCH_H

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <fwq/fwq.h>

#define BENCH_MAX_THREADS	512
#define BENCH_MAX_WQS		16
#define BENCH_MAX_BATCH		4096
#define BENCH_MAX_REPS		100
#define BENCH_MAX_SAMPLES	(16UL << 20)	/* all threads of one run */
#define BENCH_QUEUER_SAMPLES	65536		/* per S4c queuer */
#define BENCH_MAX_SAMPLE	4096
#define BENCH_MAX_REDO		5
/* before a redo, wait for a quiet probe this long at most */
#define BENCH_REDO_WAIT_MS	2000
/* what redos (waits and the runs redone) may cost in all per module load */
#define BENCH_REDO_BUDGET_S	30
#define BENCH_LABEL_LEN		32
#define BENCH_VARIANT_LEN	96

enum bench_scenario {
	BS_FLOOR,	/* only the floor measurement */
	BS_S1,		/* enqueue, one item in flight per producer */
	BS_S2,		/* batched enqueue */
	BS_S3,		/* S1/S2 load with the pool->lock histograms */
	BS_S4A,		/* idle flush */
	BS_S4B,		/* sparse: queue one item, flush */
	BS_S4C,		/* dense: every CPU queueing, threads flushing */
	BS_S5,		/* XFS CIL emulation */
	BS_S6,		/* flush storm over several workqueues */
	BS_NR,
};

enum bench_target {
	BT_FWQ,
	BT_KWQ,
};

enum bench_wq_type {
	BW_UNBOUND,
	BW_PERCPU,
	BW_ORDERED,
};

/*
 * One run description. Written whole by a spec line or key by key through
 * the knob files; always protected by bench_mutex.
 */
struct bench_spec {
	enum bench_scenario scenario;
	enum bench_target target;
	enum bench_wq_type type;
	enum fwq_affn_scope scope;
	bool strict;
	char variant[BENCH_VARIANT_LEN];	/* fwq_variant_parse() syntax */
	unsigned int threads;			/* 0: scenario default */
	struct cpumask cpus;			/* producer placement */
	bool cpus_all;				/* cpus= was "all" */
	unsigned int items;			/* per thread; 0: default */
	unsigned int batch;
	unsigned int max_active;		/* 0: default */
	unsigned int work_us;
	unsigned int reps;
	unsigned int wqs;			/* S6 */
	unsigned int sample;			/* time 1 op in @sample; 0: default */
	unsigned int redo;			/* max redos of a slow-host run */
	unsigned int counters;			/* fwq's wakeup counters on (1) */
	unsigned int flush_wait;		/* time the flush-mutex wait (1) */
	char label[BENCH_LABEL_LEN];
};

/* A workqueue of either target. */
struct bench_wq {
	enum bench_target target;
	struct workqueue_struct *kwq;
	struct fwq_workqueue *fwq;
};

struct bench_run;

/* One work item of either target. */
struct bench_item {
	union {
		struct work_struct kw;
		struct fwq_work fw;
	};
	struct bench_run *run;
	struct completion *done;	/* completed when @left hits 0 */
	atomic_t *left;			/* NULL: @done completed directly */
	u64 t_queue;
	u64 t_start;
};

struct bench_thread;
typedef int (*bench_thread_fn)(struct bench_thread *t);

/* Growable-up-to-a-cap array of nanosecond samples. */
struct bench_samples {
	u64 *v;
	unsigned long n;
	unsigned long cap;
};

struct bench_thread {
	struct bench_run *run;
	struct task_struct *task;
	bench_thread_fn fn;
	int idx;
	int cpu;
	int ret;
	struct bench_wq *wq;
	struct bench_item *items;
	unsigned int nitems;
	struct completion done;
	atomic_t left;
	struct bench_samples lat;	/* primary latency */
	struct bench_samples lat2;	/* secondary latency */
	u64 ops;
	u64 batch_ops;			/* ops timed in batches ... */
	u64 batch_ns;			/* ... and the time they took */
	u64 flush_t0;			/* kwq: the flush call's time (kwq_wait.c) */
};

struct bench_floor {
	u64 lock_mns;	/* lock + list_add + unlock, milli-ns */
	u64 tas_mns;	/* test_and_set_bit + clear, milli-ns */
	u64 clock_mns;	/* one ktime_get_ns() call, milli-ns */
	u64 mutex_mns;	/* mutex_lock + mutex_unlock, milli-ns */
	u64 spin_irq_mns; /* spin_lock_irq + spin_unlock_irq, milli-ns */
	u64 wake_mns;	/* wake_up_process() of an idle remote kthread; 0: n/a */
};

/* The host probe of one CPU (bench_host_probe()). */
#define HOST_GAP_US		2000
#define HOST_GAP_NS		30000
#define BENCH_PROBE_CPUS	16	/* CPUs whose figures the JSON keeps */

struct bench_probe_cpu {
	u64 pass_mns;		/* the lock floor's loop, milli-ns an iteration */
	u64 window_ns;		/* the steal window, HOST_GAP_US or a little more */
	u64 stolen_ns;		/* of which the vCPU did not run */
	u64 max_gap_ns;		/* the longest step between two clock reads */
	bool done;
};

struct bench_probe {
	unsigned int ncpu;
	int cpu_id[BENCH_PROBE_CPUS];
	struct bench_probe_cpu cpu[BENCH_PROBE_CPUS];
};

/*
 * The slow-host rule (bench/README.md, "Slow host"): a probe is slow when,
 * on some CPU, the vCPU did not run for at least BENCH_SLOW_STOLEN_PERMILLE
 * of the steal window, in whole microseconds as the JSON gives them; a run
 * is, when its probe before or after it is. bench/bench_report.py's
 * probe_slow() is the same rule, and tests/bench-report/ checks both on
 * probes recorded on an idle and on a loaded host.
 */
#define BENCH_SLOW_STOLEN_PERMILLE	250

static inline bool bench_probe_slow(const struct bench_probe *pr)
{
	unsigned int i;

	for (i = 0; i < pr->ncpu; i++) {
		u64 st = div_u64(pr->cpu[i].stolen_ns, NSEC_PER_USEC);
		u64 win = div_u64(pr->cpu[i].window_ns, NSEC_PER_USEC);

		if (st * 1000 >= BENCH_SLOW_STOLEN_PERMILLE * win)
			return true;
	}
	return false;
}

struct bench_run {
	const struct bench_spec *spec;
	unsigned int rep;
	unsigned int threads;
	unsigned int items;
	unsigned int max_active;
	unsigned int sample;
	struct bench_wq wq[BENCH_MAX_WQS];
	unsigned int nwq;
	struct bench_thread *thr;
	unsigned int nthr;
	struct completion start;
	struct completion all_done;
	atomic_t running;
	atomic_t flushers_left;		/* S4c: queuers run while > 0 */
	atomic_t queuers_idle;		/* S4c: flushers wait while > 0 */
	u64 work_ns;
	u64 t_start;
	u64 t_end;
	struct bench_floor floor;
	u64 host_before;		/* bench_host_probe() before the run */
	u64 host_after;			/* ... and after it */
	struct bench_probe probe_before;	/* their figures */
	struct bench_probe probe_after;
	unsigned int redone;		/* runs before this one, redone */
	bool redo_budget_out;		/* kept slow: no redo budget left */
	struct fwq_wq_stats st0;	/* summed over wq[] at measure start */
	struct fwq_wq_stats st1;
	bool have_stats;
	/* counters=0: the counted pass of S1/S2, or S4a's flushes after it */
	struct fwq_wq_stats pr0;
	struct fwq_wq_stats pr1;
	bool have_probe;
	struct fwq_lockstat *ls;	/* S3 */
	/*
	 * The flush-mutex wait (S4b, S5, S6 with flush_wait=1): fwq's
	 * counters at the start and the end of the timed pass, or kwq's
	 * waits as kwq_wait.c's kprobe timed them, in @fw1; @fw_why: why
	 * there are none (NULL: there are)
	 */
	struct fwq_flush_waits *fw0;
	struct fwq_flush_waits *fw1;
	const char *fw_why;
	bool kwq_wait;			/* kwq_wait.c's probe is on for this run */
};

/* JSON / text writer into a fixed buffer. */
struct bench_out {
	char *buf;
	size_t len;
	size_t size;
	bool first;	/* no comma needed before the next key */
	bool overflow;
};

/* scenarios.c: the stop flag */
bool bench_should_stop(void);
void bench_stop_request(void);
void bench_stop_clear(void);

/* main.c */
extern const char * const bench_scenario_names[BS_NR];
extern const char * const bench_type_names[];

/* target.c */
int bench_wq_create(struct bench_run *run, struct bench_wq *bwq,
		    unsigned int idx);
void bench_wq_destroy(struct bench_wq *bwq);
void bench_item_init(struct bench_item *it, struct bench_wq *bwq,
		     struct bench_run *run);
bool bench_queue(struct bench_wq *bwq, int cpu, struct bench_item *it);
void bench_flush(struct bench_wq *bwq);
bool bench_item_pending(struct bench_wq *bwq, struct bench_item *it);
bool bench_stats(struct bench_run *run, struct fwq_wq_stats *st);
int bench_variant_check(const char *s, char *norm, size_t len);
int bench_lockstat_begin(struct bench_run *run);
void bench_lockstat_end(struct bench_run *run);

/* kwq_wait.c */
void bench_kwq_wait_init(void);
int bench_kwq_wait_begin(struct bench_run *run);
void bench_kwq_wait_end(struct bench_run *run);
bool bench_flush_wait_scenario(const struct bench_spec *s);

/* scenarios.c */
int bench_scenario_run(struct bench_run *run);
void bench_scenario_report(struct bench_run *run, struct bench_out *o,
			   char *text, size_t tlen);
void bench_floor_measure(struct bench_floor *f);
u64 bench_host_probe(struct bench_probe *pr);
void bench_run_free(struct bench_run *run);
unsigned int bench_default_threads(const struct bench_spec *s);
unsigned int bench_default_items(const struct bench_spec *s);
unsigned int bench_default_sample(const struct bench_spec *s);

/* out.c */
void bo_raw(struct bench_out *o, const char *fmt, ...) __printf(2, 3);
void bo_key(struct bench_out *o, const char *key);
void bo_str(struct bench_out *o, const char *key, const char *val);
void bo_u64(struct bench_out *o, const char *key, u64 v);
void bo_null(struct bench_out *o, const char *key);
void bo_milli(struct bench_out *o, const char *key, u64 milli);
void bo_ratio(struct bench_out *o, const char *key, u64 num, u64 den);
void bo_open(struct bench_out *o, const char *key);
void bo_close(struct bench_out *o);
void bo_arr_open(struct bench_out *o, const char *key);
void bo_arr_u64(struct bench_out *o, u64 v);
void bo_arr_close(struct bench_out *o);

int bs_init(struct bench_samples *s, unsigned long cap);
void bs_free(struct bench_samples *s);
static inline void bs_add(struct bench_samples *s, u64 v)
{
	if (s->n < s->cap)
		s->v[s->n++] = v;
}

#endif /* _FWQ_BENCH_H */
