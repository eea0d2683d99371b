// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_bench scenarios S1-S6 and the floor measurement. bench/README.md
 * ("Scenarios") says what each one loads and measures.
 *
 * Every scenario runs kthreads bound to CPUs that all start on one
 * completion. Threads check bench_should_stop() at least every item and
 * never wait for a work item without a timeout, so a run can be stopped at
 * any point; the workqueues are destroyed (drained) before any item memory
 * is freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "bench.h"

/* ----------------------------------------------------------------- stop */

static bool bench_stop_flag;		/* READ_ONCE/WRITE_ONCE */

/* a run's threads poll this at least once per item */
bool bench_should_stop(void)
{
	return READ_ONCE(bench_stop_flag) || signal_pending(current);
}

/* ask the running scenario to stop (the "stop" file, module unload) */
void bench_stop_request(void)
{
	WRITE_ONCE(bench_stop_flag, true);
}

/* a new run starts */
void bench_stop_clear(void)
{
	WRITE_ONCE(bench_stop_flag, false);
}

/* ---------------------------------------------------------------- floor */

#define FLOOR_ITERS	4096
#define FLOOR_PASSES	7
#define FLOOR_WAKES	15

static DEFINE_RAW_SPINLOCK(floor_lock);
static DEFINE_SPINLOCK(floor_irq_lock);
static DEFINE_MUTEX(floor_mutex);

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values; sorts them. */
static u64 median_u64(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(u64), cmp_u64, NULL);
	return v[n / 2];
}

/*
 * The end of a kthread whose work is done: park without burning the CPU
 * until kthread_stop(), which needs the task until it is called.
 */
static int bench_park(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

struct floor_wake {
	struct task_struct *sleeper;
	atomic_t woken;
	struct completion measured;
	u64 v[FLOOR_WAKES];	/* milli-ns */
	unsigned int n;
};

/* The sleeper: sleep until woken, count the wakeup, until kthread_stop(). */
static int floor_sleeper_fn(void *arg)
{
	struct floor_wake *fw = arg;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
		atomic_inc(&fw->woken);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* The waker, bound to a CPU other than the sleeper's: time the wakeups. */
static int floor_waker_fn(void *arg)
{
	struct floor_wake *fw = arg;
	unsigned int i;
	int seen;
	u64 t0;

	for (i = 0; i < 4 * FLOOR_WAKES && fw->n < FLOOR_WAKES; i++) {
		seen = atomic_read(&fw->woken);
		/* long enough for the sleeper to be off its CPU, idle */
		usleep_range(100, 200);
		if (task_is_running(fw->sleeper))
			continue;
		t0 = ktime_get_ns();
		wake_up_process(fw->sleeper);
		fw->v[fw->n++] = (ktime_get_ns() - t0) * 1000;
		/* until the sleeper ran; a stuck one ends the measurement */
		while (atomic_read(&fw->woken) == seen && i < 4 * FLOOR_WAKES) {
			usleep_range(50, 100);
			i++;
		}
	}
	complete(&fw->measured);
	return bench_park();
}

/*
 * What a waker pays for wake_up_process() of a kthread that sleeps on
 * another, idle CPU (the send side of the wakeup an enqueue issues), in
 * milli-ns, net of one clock read; the median of up to FLOOR_WAKES. Both
 * kthreads are bound, the waker to the first online CPU and the sleeper to
 * the next. 0 when there is no second online CPU or no kthread.
 */
static u64 floor_wake_measure(u64 clock_mns)
{
	struct task_struct *waker;
	struct floor_wake *fw;
	int a, b;
	u64 m = 0;

	fw = kzalloc(sizeof(*fw), GFP_KERNEL);
	if (!fw)
		return 0;
	atomic_set(&fw->woken, 0);
	init_completion(&fw->measured);
	cpus_read_lock();
	a = cpumask_first(cpu_online_mask);
	b = cpumask_next(a, cpu_online_mask);
	if (b >= nr_cpu_ids)
		goto out_unlock;
	fw->sleeper = kthread_create(floor_sleeper_fn, fw, "fwq_bench_sleep");
	if (IS_ERR(fw->sleeper))
		goto out_unlock;
	waker = kthread_create(floor_waker_fn, fw, "fwq_bench_wake");
	if (IS_ERR(waker)) {
		kthread_stop(fw->sleeper);
		goto out_unlock;
	}
	kthread_bind(fw->sleeper, b);
	kthread_bind(waker, a);
	wake_up_process(fw->sleeper);
	wake_up_process(waker);
	wait_for_completion(&fw->measured);
	kthread_stop(waker);
	kthread_stop(fw->sleeper);
	if (fw->n) {
		m = median_u64(fw->v, fw->n);
		m = m > clock_mns ? m - clock_mns : 1;
	}
out_unlock:
	cpus_read_unlock();
	kfree(fw);
	return m;
}

/* Time since @t0 per floor iteration, in milli-ns. */
static u64 floor_mns_since(u64 t0)
{
	return (ktime_get_ns() - t0) * 1000 / FLOOR_ITERS;
}

/*
 * @iters times the cheapest pool->lock critical section (raw lock, list
 * add, unlock), interrupts off; milli-ns per iteration.
 */
static u64 floor_lock_pass(unsigned int iters)
{
	struct list_head head, node;
	unsigned int i;
	u64 t0;

	lockdep_assert_irqs_disabled();
	t0 = ktime_get_ns();
	for (i = 0; i < iters; i++) {
		raw_spin_lock(&floor_lock);
		INIT_LIST_HEAD(&head);
		list_add(&node, &head);
		raw_spin_unlock(&floor_lock);
	}
	return (ktime_get_ns() - t0) * 1000 / iters;
}

/*
 * The floors, each the median of several passes: the cheapest possible
 * pool->lock critical section (raw lock, list add, unlock) and an atomic
 * test-and-set with interrupts off; a mutex lock/unlock pair and a
 * spin_lock_irq pair (what an idle flush pays at least: the flush mutex and
 * a lock per node walked); a remote wakeup (floor_wake_measure()). Latencies
 * are also reported as multiples of the lock floor, which makes runs on
 * different machines (or under TCG) comparable.
 */
void bench_floor_measure(struct bench_floor *f)
{
	u64 lock[FLOOR_PASSES], tas[FLOOR_PASSES], clk[FLOOR_PASSES];
	u64 mtx[FLOOR_PASSES], sirq[FLOOR_PASSES];
	unsigned long word = 0, flags;
	unsigned int p, i;
	u64 t0;

	for (p = 0; p < FLOOR_PASSES; p++) {
		local_irq_save(flags);
		lock[p] = floor_lock_pass(FLOOR_ITERS);

		t0 = ktime_get_ns();
		for (i = 0; i < FLOOR_ITERS; i++) {
			if (!test_and_set_bit(0, &word))
				WRITE_ONCE(word, 0);
		}
		tas[p] = floor_mns_since(t0);

		t0 = ktime_get_ns();
		for (i = 0; i < FLOOR_ITERS; i++)
			ktime_get_ns();
		clk[p] = floor_mns_since(t0);
		local_irq_restore(flags);

		t0 = ktime_get_ns();
		for (i = 0; i < FLOOR_ITERS; i++) {
			mutex_lock(&floor_mutex);
			mutex_unlock(&floor_mutex);
		}
		mtx[p] = floor_mns_since(t0);

		t0 = ktime_get_ns();
		for (i = 0; i < FLOOR_ITERS; i++) {
			spin_lock_irq(&floor_irq_lock);
			spin_unlock_irq(&floor_irq_lock);
		}
		sirq[p] = floor_mns_since(t0);
		cond_resched();
	}
	f->lock_mns = max_t(u64, median_u64(lock, FLOOR_PASSES), 1);
	f->tas_mns = max_t(u64, median_u64(tas, FLOOR_PASSES), 1);
	f->clock_mns = median_u64(clk, FLOOR_PASSES);
	f->mutex_mns = max_t(u64, median_u64(mtx, FLOOR_PASSES), 1);
	f->spin_irq_mns = max_t(u64, median_u64(sirq, FLOOR_PASSES), 1);
	f->wake_mns = floor_wake_measure(f->clock_mns);
}

/*
 * The host probe: how fast is each vCPU now, and did it run all along?
 * Under QEMU a vCPU is a host thread, and when the host runs something
 * else a whole run slows down: its instructions run slower (a busy
 * sibling, a lower clock), or the host does not run the vCPU for a while
 * (a thread beside it on its core). bench/README.md, "Slow host". On every
 * online CPU at once, in IPI context:
 * - speed: the lock floor's loop, HOST_PROBE_PASSES short passes, the
 *   median, milli-ns per iteration, on a lock of the CPU's own;
 * - steal: HOST_GAP_US of back-to-back clock reads; a step between two
 *   reads longer than HOST_GAP_NS is time the vCPU did not run, and their
 *   sum is the time stolen from it in the window.
 */
#define HOST_PROBE_ITERS	1024
#define HOST_PROBE_PASSES	5

/* Each CPU's lowest speed probe since load, milli-ns; 0: none yet. bench_mutex. */
static DEFINE_PER_CPU(u64, bench_host_best);

static u64 host_speed_pass(raw_spinlock_t *lock)
{
	struct list_head head, node;
	unsigned int i;
	u64 t0;

	t0 = ktime_get_ns();
	for (i = 0; i < HOST_PROBE_ITERS; i++) {
		raw_spin_lock(lock);
		INIT_LIST_HEAD(&head);
		list_add(&node, &head);
		raw_spin_unlock(lock);
	}
	return (ktime_get_ns() - t0) * 1000 / HOST_PROBE_ITERS;
}

static void host_probe_cpu(void *arg)
{
	struct bench_probe_cpu *out = &((struct bench_probe_cpu *)arg)[smp_processor_id()];
	u64 v[HOST_PROBE_PASSES], t0, prev, now, d, stolen = 0, maxg = 0;
	raw_spinlock_t lock;
	unsigned int p;

	raw_spin_lock_init(&lock);
	for (p = 0; p < HOST_PROBE_PASSES; p++)
		v[p] = host_speed_pass(&lock);
	out->pass_mns = max_t(u64, median_u64(v, HOST_PROBE_PASSES), 1);
	t0 = ktime_get_ns();
	prev = t0;
	do {
		now = ktime_get_ns();
		d = now - prev;
		if (d > HOST_GAP_NS)
			stolen += d;
		maxg = max(maxg, d);
		prev = now;
	} while (now - t0 < HOST_GAP_US * NSEC_PER_USEC);
	out->window_ns = now - t0;
	out->stolen_ns = stolen;
	out->max_gap_ns = maxg;
	out->done = true;
}

/**
 * bench_host_probe() - probe every online CPU
 * @pr: the probe's figures, for the JSON
 *
 * Context: process context, bench_mutex held (serializes the best values
 * and the probe's buffer).
 * Return: the highest ratio over the online CPUs of the speed probe to
 * that CPU's best, in permille: 1000 when every CPU ran at its best.
 */
u64 bench_host_probe(struct bench_probe *pr)
{
	static struct bench_probe_cpu *buf;
	u64 worst = 1000, *best;
	unsigned int n = 0;
	int cpu;

	if (!buf)
		buf = kcalloc(nr_cpu_ids, sizeof(*buf), GFP_KERNEL);
	if (pr)
		memset(pr, 0, sizeof(*pr));
	if (!buf)
		return worst;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		buf[cpu].done = false;
	on_each_cpu(host_probe_cpu, buf, 1);
	for_each_online_cpu(cpu) {
		struct bench_probe_cpu *c = &buf[cpu];

		if (!c->done)
			continue;
		best = per_cpu_ptr(&bench_host_best, cpu);
		if (!*best || c->pass_mns < *best)
			*best = c->pass_mns;
		worst = max(worst, div64_u64(c->pass_mns * 1000, *best));
		if (pr && n < BENCH_PROBE_CPUS) {
			pr->cpu[n] = *c;
			pr->cpu_id[n++] = cpu;
		}
	}
	cpus_read_unlock();
	if (pr)
		pr->ncpu = n;
	return worst;
}

/* -------------------------------------------------------------- threads */

static int bench_wait_done(struct completion *c)
{
	unsigned long t0 = jiffies;
	bool said = false;

	while (!wait_for_completion_timeout(c, HZ / 20)) {
		if (bench_should_stop())
			return -EINTR;
		if (!said && time_after(jiffies, t0 + 30 * HZ)) {
			pr_info("%s: work item not done after 30 s\n",
				current->comm);
			said = true;
		}
	}
	return 0;
}

static int bench_kthread(void *arg)
{
	struct bench_thread *t = arg;
	struct bench_run *run = t->run;

	wait_for_completion(&run->start);
	if (!bench_should_stop())
		t->ret = t->fn(t);
	if (atomic_dec_and_test(&run->running))
		complete(&run->all_done);

	return bench_park();
}

/* The n-th CPU of the placement mask, round robin. */
static int bench_nth_cpu(const struct cpumask *m, unsigned int n)
{
	unsigned int w = cpumask_weight(m), i = 0;
	int cpu;

	n %= w;
	for_each_cpu(cpu, m)
		if (i++ == n)
			return cpu;
	return cpumask_first(m);
}

static int bench_threads_alloc(struct bench_run *run, unsigned int n)
{
	run->thr = kcalloc(n, sizeof(*run->thr), GFP_KERNEL);
	if (!run->thr)
		return -ENOMEM;
	run->nthr = n;
	return 0;
}

static int bench_thread_setup(struct bench_run *run, unsigned int idx,
			      int cpu, bench_thread_fn fn,
			      struct bench_wq *wq, unsigned int nitems,
			      unsigned long lat_cap, unsigned long lat2_cap)
{
	struct bench_thread *t = &run->thr[idx];
	unsigned int i;
	int ret;

	t->run = run;
	t->idx = idx;
	t->cpu = cpu;
	t->fn = fn;
	t->wq = wq;
	init_completion(&t->done);
	if (nitems) {
		t->items = kcalloc(nitems, sizeof(*t->items), GFP_KERNEL);
		if (!t->items)
			return -ENOMEM;
		t->nitems = nitems;
		for (i = 0; i < nitems; i++)
			bench_item_init(&t->items[i], wq, run);
	}
	ret = bs_init(&t->lat, lat_cap);
	if (!ret)
		ret = bs_init(&t->lat2, lat2_cap);
	return ret;
}

static void bench_threads_free(struct bench_run *run)
{
	unsigned int i;

	if (!run->thr)
		return;
	for (i = 0; i < run->nthr; i++) {
		kfree(run->thr[i].items);
		bs_free(&run->thr[i].lat);
		bs_free(&run->thr[i].lat2);
	}
	kfree(run->thr);
	run->thr = NULL;
	run->nthr = 0;
}

/*
 * Start every thread at once and wait for all of them. A signal to the
 * writer of "run" stops the run the same way "stop" does.
 */
static int bench_threads_run(struct bench_run *run)
{
	unsigned int i, created = 0;
	int ret = 0;
	long w;

	init_completion(&run->start);
	init_completion(&run->all_done);
	atomic_set(&run->running, run->nthr);

	for (i = 0; i < run->nthr; i++) {
		struct bench_thread *t = &run->thr[i];
		struct task_struct *task;

		task = kthread_create_on_node(bench_kthread, t,
					      cpu_to_node(t->cpu),
					      "fwqb/%u:%d", i, t->cpu);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			break;
		}
		kthread_bind(task, t->cpu);
		t->task = task;
		created++;
		wake_up_process(task);
	}
	if (ret) {
		/* never started threads: count them as done */
		for (i = created; i < run->nthr; i++)
			if (atomic_dec_and_test(&run->running))
				complete(&run->all_done);
		bench_stop_request();
	}

	run->t_start = ktime_get_ns();
	complete_all(&run->start);
	for (;;) {
		w = wait_for_completion_interruptible_timeout(&run->all_done,
							      HZ / 10);
		if (w > 0)
			break;
		if (w < 0) {
			/* signal: stop, then wait without interruption */
			bench_stop_request();
			wait_for_completion(&run->all_done);
			break;
		}
	}
	run->t_end = ktime_get_ns();

	for (i = 0; i < created; i++) {
		kthread_stop(run->thr[i].task);
		run->thr[i].task = NULL;
	}
	if (!ret && bench_should_stop())
		ret = -EINTR;
	for (i = 0; !ret && i < run->nthr; i++)
		ret = run->thr[i].ret;
	return ret;
}

/* ------------------------------------------------------------ scenarios */

/*
 * Throughput without clock reads in it: of every run->sample operations one
 * is a latency sample, timed on its own; the others run back to back as a
 * batch with one clock read at each end, and only the batches count for
 * the rate (bench_scenario_report()). So neither the latency samples' clock
 * reads nor their cost are in the rate. run->sample 1: every op is timed
 * and the rate is the wall-clock one.
 */
struct bench_batch {
	u64 t0;
	bool open;
};

/* Before op @i of @t: is it a latency sample? Opens and closes batches. */
static __always_inline bool bench_batch_step(struct bench_thread *t,
					     struct bench_batch *b,
					     unsigned int i)
{
	bool timed = !(i % t->run->sample);

	if (timed && b->open) {
		t->batch_ns += ktime_get_ns() - b->t0;
		b->open = false;
	} else if (!timed && !b->open) {
		b->open = true;
		b->t0 = ktime_get_ns();
	}
	return timed;
}

static __always_inline void bench_batch_end(struct bench_thread *t,
					    struct bench_batch *b)
{
	if (b->open)
		t->batch_ns += ktime_get_ns() - b->t0;
	b->open = false;
}

/*
 * S1/S2/S3 producer: queue a batch of @batch distinct items (S1: one), then
 * wait for the whole batch. In a latency sample every queue call is timed,
 * and so is each item's queue-to-start time. With batch 1 this is
 * lib/test_workqueue.c's loop, including its re-initialization of the item
 * before every queueing.
 */
static int producer_fn(struct bench_thread *t)
{
	struct bench_run *run = t->run;
	unsigned int batch = t->nitems, done = 0, n, i, op = 0;
	struct bench_batch b = {};
	bool timed;
	int ret;

	while (done < run->items) {
		timed = bench_batch_step(t, &b, op++);
		n = min(batch, run->items - done);
		reinit_completion(&t->done);
		atomic_set(&t->left, n);
		for (i = 0; i < n; i++) {
			struct bench_item *it = &t->items[i];
			u64 t0;

			bench_item_init(it, t->wq, run);
			it->done = &t->done;
			it->left = &t->left;
			if (!timed) {
				bench_queue(t->wq, -1, it);
				continue;
			}
			t0 = ktime_get_ns();
			it->t_queue = t0;
			bench_queue(t->wq, -1, it);
			bs_add(&t->lat, ktime_get_ns() - t0);
		}
		ret = bench_wait_done(&t->done);
		if (ret)
			return ret;
		for (i = 0; timed && i < n; i++)
			bs_add(&t->lat2, t->items[i].t_start -
					 t->items[i].t_queue);
		done += n;
		t->ops += n;
		if (!timed)
			t->batch_ops += n;
		if (bench_should_stop())
			return -EINTR;
	}
	bench_batch_end(t, &b);
	return 0;
}

/*
 * Run @one run->items times, counting each, until the run is stopped; @one
 * times itself only when told to (bench_batch_step()). Inlined, so that
 * @one is a direct call.
 */
static __always_inline int bench_repeat(struct bench_thread *t,
					int (*one)(struct bench_thread *t,
						   bool timed))
{
	struct bench_batch b = {};
	unsigned int i;
	bool timed;
	int ret;

	for (i = 0; i < t->run->items; i++) {
		timed = bench_batch_step(t, &b, i);
		ret = one(t, timed);
		if (ret)
			return ret;
		t->ops++;
		if (!timed)
			t->batch_ops++;
		if (bench_should_stop())
			return -EINTR;
		cond_resched();
	}
	bench_batch_end(t, &b);
	return 0;
}

/* S4a: flush an idle workqueue in a loop. */
static int idle_flush_one(struct bench_thread *t, bool timed)
{
	u64 t0;

	if (!timed) {
		bench_flush(t->wq);
		return 0;
	}
	t0 = ktime_get_ns();
	bench_flush(t->wq);
	bs_add(&t->lat, ktime_get_ns() - t0);
	return 0;
}

static int idle_flush_fn(struct bench_thread *t)
{
	return bench_repeat(t, idle_flush_one);
}

/*
 * A flush of @t's workqueue; while kwq_wait.c's probe is on, with the
 * clock read that its handler times the flush-mutex wait from (fwq's
 * engine reads its own on entry).
 */
static __always_inline void bench_flush_timed(struct bench_thread *t)
{
	if (t->run->kwq_wait)
		WRITE_ONCE(t->flush_t0, ktime_get_ns());
	bench_flush(t->wq);
}

/* S4b and S6: queue one item on the local CPU, then flush the workqueue. */
static int queue_flush_one(struct bench_thread *t, bool timed)
{
	struct bench_item *it = &t->items[0];
	u64 t0, t1;

	it->done = NULL;
	it->left = NULL;
	if (!timed) {
		bench_queue(t->wq, -1, it);
		bench_flush_timed(t);
		return 0;
	}
	t0 = ktime_get_ns();
	bench_queue(t->wq, -1, it);
	t1 = ktime_get_ns();
	bench_flush_timed(t);
	bs_add(&t->lat, ktime_get_ns() - t1);
	bs_add(&t->lat2, t1 - t0);
	return 0;
}

static int queue_flush_fn(struct bench_thread *t)
{
	return bench_repeat(t, queue_flush_one);
}

/*
 * S4c flusher: flush in a loop while the queuers keep every pwq busy. The
 * first flush waits until every queuer has queued once: else a short run
 * can flush an idle workqueue before a queuer is scheduled, and report no
 * queue latency at all.
 */
static int dense_flush_fn(struct bench_thread *t)
{
	struct bench_run *run = t->run;
	int ret = 0;

	while (atomic_read(&run->queuers_idle) > 0) {
		if (bench_should_stop()) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	if (!ret)
		ret = idle_flush_fn(t);
	atomic_dec(&run->flushers_left);
	return ret;
}

/* S4c queuer: keep re-queueing a few items on this CPU until flushers end. */
static int dense_queue_fn(struct bench_thread *t)
{
	struct bench_run *run = t->run;
	unsigned int i = 0;
	bool timed;
	u64 t0 = 0;

	while (atomic_read(&run->flushers_left) > 0) {
		struct bench_item *it = &t->items[i++ % t->nitems];

		if (!bench_item_pending(t->wq, it)) {
			timed = !(t->ops % run->sample);
			if (timed)
				t0 = ktime_get_ns();
			if (bench_queue(t->wq, t->cpu, it)) {
				if (timed)
					bs_add(&t->lat2, ktime_get_ns() - t0);
				if (!t->ops++)
					atomic_dec(&run->queuers_idle);
			}
		}
		if (bench_should_stop())
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * S5: an XFS CIL push. Each "fsync" thread flushes the CIL workqueue, queues
 * the push work (busy for work_us) and waits for it.
 */
static int cil_one(struct bench_thread *t, bool timed)
{
	struct bench_item *it = &t->items[0];
	u64 t0 = 0, t1 = 0;
	int ret;

	if (timed)
		t0 = ktime_get_ns();
	bench_flush_timed(t);
	if (timed)
		t1 = ktime_get_ns();
	reinit_completion(&t->done);
	it->done = &t->done;
	it->left = NULL;
	bench_queue(t->wq, -1, it);
	ret = bench_wait_done(&t->done);
	if (ret || !timed)
		return ret;
	bs_add(&t->lat, t1 - t0);
	bs_add(&t->lat2, ktime_get_ns() - t0);
	return 0;
}

static int cil_fn(struct bench_thread *t)
{
	return bench_repeat(t, cil_one);
}

unsigned int bench_default_threads(const struct bench_spec *s)
{
	switch (s->scenario) {
	case BS_S4A:
		return 1;
	case BS_S4C:
		return 2;
	case BS_S4B:
	case BS_S5:
	case BS_S6:
		return 16;
	default:
		return cpumask_weight(&s->cpus);
	}
}

unsigned int bench_default_items(const struct bench_spec *s)
{
	switch (s->scenario) {
	case BS_S4A:
		return 10000;
	case BS_S4B:
	case BS_S4C:
	case BS_S5:
	case BS_S6:
		return 500;
	default:
		return 2000;
	}
}

/*
 * S5's product is its latency distribution: every op is timed. Elsewhere
 * one op in 8 is, and the rest are timed as batches.
 */
unsigned int bench_default_sample(const struct bench_spec *s)
{
	return s->scenario == BS_S5 ? 1 : 8;
}

/* Items queued on each online CPU of the wq once, then a flush. */
static int bench_touch_all_cpus(struct bench_run *run, struct bench_wq *wq)
{
	struct bench_item *items;
	int cpu, n = 0;

	items = kcalloc(nr_cpu_ids, sizeof(*items), GFP_KERNEL);
	if (!items)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		bench_item_init(&items[n], wq, run);
		bench_queue(wq, cpu, &items[n++]);
	}
	cpus_read_unlock();
	/* the flush waits for every item: none is touched after this */
	bench_flush(wq);
	kfree(items);
	return 0;
}

static int bench_setup_threads(struct bench_run *run)
{
	const struct bench_spec *s = run->spec;
	const struct cpumask *m = &s->cpus;
	unsigned long cap = run->items;
	unsigned int i, n = run->threads, nq = 0;
	bench_thread_fn fn;
	int ret, cpu;

	if (s->scenario == BS_S4C)
		nq = cpumask_weight(m);
	ret = bench_threads_alloc(run, n + nq);
	if (ret)
		return ret;

	for (i = 0; i < n; i++) {
		struct bench_wq *wq = &run->wq[i % run->nwq];
		unsigned int nitems = 1;
		unsigned long cap2 = cap;

		cpu = bench_nth_cpu(m, i);
		switch (s->scenario) {
		case BS_S1:
		case BS_S2:
		case BS_S3:
			fn = producer_fn;
			nitems = s->batch;
			break;
		case BS_S4A:
		case BS_S4C:
			fn = s->scenario == BS_S4A ? idle_flush_fn :
						     dense_flush_fn;
			nitems = 0;
			cap2 = 0;
			break;
		case BS_S4B:
		case BS_S6:
			fn = queue_flush_fn;
			break;
		case BS_S5:
			fn = cil_fn;
			break;
		default:
			return -EINVAL;
		}
		ret = bench_thread_setup(run, i, cpu, fn, wq, nitems, cap, cap2);
		if (ret)
			return ret;
	}
	/* S4c: one queuer per placement CPU after the flushers */
	i = n;
	for_each_cpu(cpu, m) {
		if (i == n + nq)
			break;
		ret = bench_thread_setup(run, i++, cpu, dense_queue_fn,
					 &run->wq[0], 8, 0,
					 BENCH_QUEUER_SAMPLES);
		if (ret)
			return ret;
	}
	atomic_set(&run->flushers_left, n);
	atomic_set(&run->queuers_idle, i - n);
	return 0;
}

/*
 * A run with counters=0 counts nothing while it is timed (kwq counts
 * nothing either): fwq counts wakeups, and its flush walk's pwq visits and
 * lock cycles, only while the counters are on (src/wake.c, src/ops.h). The
 * structure then comes from a counted pass of the same run, reported in
 * place of the timed pass's:
 * - S1 and S2: the first pass, 1/BENCH_FIRST_PASS_DIV of the items before
 *   the timed pass, the same threads on the same workqueue. Every S1 and
 *   S2 run makes it, whatever its target, so that fwq and kwq start their
 *   timed pass alike; only fwq's with counters=0 counts.
 * - S4a: BENCH_WALK_PROBE more flushes after the timed ones: the same
 *   workqueue and idle pwqs, one flusher, so the same walk as every timed
 *   flush.
 * The other scenarios count nothing with counters=0.
 */
#define BENCH_FIRST_PASS_DIV	8
#define BENCH_WALK_PROBE	64

/* the counted pass's bracket: the counters on, the stats before and after */
static void bench_probe_begin(struct bench_run *run)
{
	fwq_counters_get();
	run->have_probe = bench_stats(run, &run->pr0);
}

static void bench_probe_end(struct bench_run *run)
{
	run->have_probe &= bench_stats(run, &run->pr1);
	fwq_counters_put();
}

static int bench_first_pass(struct bench_run *run)
{
	const struct bench_spec *s = run->spec;
	bool count = !s->counters && s->target == BT_FWQ;
	unsigned int items = run->items, i;
	int ret;

	run->items = max(items / BENCH_FIRST_PASS_DIV, 1U);
	if (count)
		bench_probe_begin(run);
	ret = bench_threads_run(run);
	bench_flush(&run->wq[0]);
	if (count)
		bench_probe_end(run);
	run->items = items;
	/* the timed pass starts from nothing done */
	for (i = 0; i < run->nthr; i++) {
		struct bench_thread *t = &run->thr[i];

		t->ret = 0;
		t->ops = 0;
		t->batch_ops = 0;
		t->batch_ns = 0;
		t->lat.n = 0;
		t->lat2.n = 0;
	}
	return ret;
}

static void bench_walk_probe(struct bench_run *run)
{
	unsigned int i;

	bench_probe_begin(run);
	for (i = 0; i < BENCH_WALK_PROBE; i++)
		bench_flush(&run->wq[0]);
	bench_probe_end(run);
}

/*
 * The flush-mutex wait of a flush_wait scenario's timed pass (S4b, S5,
 * S6): fwq's engine counts it while the counters are on (<fwq/stats.h>),
 * kwq's is timed by kwq_wait.c's probe. The drain flushes after the
 * threads count too, one per workqueue.
 */
static int bench_flush_wait_begin(struct bench_run *run)
{
	const struct bench_spec *s = run->spec;

	if (!bench_flush_wait_scenario(s))
		return 0;
	if (!s->flush_wait) {
		run->fw_why = "flush_wait=0";
		return 0;
	}
	if (s->target == BT_KWQ)
		return bench_kwq_wait_begin(run);
	if (!s->counters) {
		run->fw_why = "counters=0";
		return 0;
	}
	run->fw0 = kzalloc(sizeof(*run->fw0), GFP_KERNEL);
	run->fw1 = kzalloc(sizeof(*run->fw1), GFP_KERNEL);
	if (!run->fw0 || !run->fw1)
		return -ENOMEM;
	fwq_flush_waits_read(run->fw0);
	return 0;
}

static void bench_flush_wait_end(struct bench_run *run)
{
	if (run->spec->target == BT_KWQ)
		bench_kwq_wait_end(run);
	else if (run->fw0 && run->fw1)
		fwq_flush_waits_read(run->fw1);
}

int bench_scenario_run(struct bench_run *run)
{
	const struct bench_spec *s = run->spec;
	unsigned int i;
	int ret;

	run->nwq = s->scenario == BS_S6 ? s->wqs : 1;
	for (i = 0; i < run->nwq; i++) {
		ret = bench_wq_create(run, &run->wq[i], i);
		if (ret) {
			pr_warn("creating %s workqueue %u failed: %d\n",
				s->target == BT_FWQ ? "fwq" : "kwq", i, ret);
			goto out;
		}
	}

	ret = bench_setup_threads(run);
	if (ret)
		goto out;

	/* flush scenarios start from every pwq having been used once */
	if (s->scenario >= BS_S4A) {
		for (i = 0; i < run->nwq; i++) {
			ret = bench_touch_all_cpus(run, &run->wq[i]);
			if (ret)
				goto out;
		}
	}

	if (s->scenario == BS_S1 || s->scenario == BS_S2) {
		ret = bench_first_pass(run);
		if (ret)
			goto out;
	}
	if (s->scenario == BS_S3) {
		ret = bench_lockstat_begin(run);
		if (ret)
			goto out;
	}
	/* counters=0: no wakeup counts, and none of their cost */
	if (s->counters && s->target == BT_FWQ)
		fwq_counters_get();
	ret = bench_flush_wait_begin(run);
	if (ret)
		goto out_counters;
	run->have_stats = bench_stats(run, &run->st0);
	ret = bench_threads_run(run);
	for (i = 0; i < run->nwq; i++)
		bench_flush(&run->wq[i]);
	run->t_end = ktime_get_ns();
	bench_stats(run, &run->st1);
	bench_flush_wait_end(run);
out_counters:
	if (s->counters && s->target == BT_FWQ)
		fwq_counters_put();
	if (!ret && !s->counters && s->target == BT_FWQ &&
	    s->scenario == BS_S4A && run->have_stats)
		bench_walk_probe(run);
	if (s->scenario == BS_S3)
		bench_lockstat_end(run);
out:
	/* destroying drains every item before the items are freed */
	for (i = 0; i < run->nwq; i++)
		bench_wq_destroy(&run->wq[i]);
	return ret;
}

/* --------------------------------------------------------------- report */

struct bench_dist {
	u64 *v;
	unsigned long n;
};

static int bench_dist_merge(struct bench_run *run, bool second,
			    unsigned int from, unsigned int to,
			    struct bench_dist *d)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = from; i < to; i++)
		n += second ? run->thr[i].lat2.n : run->thr[i].lat.n;
	d->n = 0;
	d->v = NULL;
	if (!n)
		return 0;
	d->v = kvmalloc_array(n, sizeof(u64), GFP_KERNEL);
	if (!d->v)
		return -ENOMEM;
	for (i = from; i < to; i++) {
		struct bench_samples *s = second ? &run->thr[i].lat2 :
						   &run->thr[i].lat;

		memcpy(d->v + d->n, s->v, s->n * sizeof(u64));
		d->n += s->n;
	}
	sort(d->v, d->n, sizeof(u64), cmp_u64, NULL);
	return 0;
}

/* per-10000 quantile of a sorted distribution */
static u64 q(const struct bench_dist *d, unsigned int p)
{
	if (!d->n)
		return 0;
	return d->v[div_u64((u64)(d->n - 1) * p, 10000)];
}

static void report_dist(struct bench_out *o, const struct bench_run *run,
			const char *pfx, const struct bench_dist *d)
{
	static const struct { const char *name; unsigned int p; } qs[] = {
		{ "p50", 5000 }, { "p90", 9000 }, { "p95", 9500 },
		{ "p99", 9900 }, { "p999", 9990 }, { "max", 10000 },
	};
	char key[48];
	u64 sum = 0;
	unsigned long i;

	if (!d->n)
		return;
	for (i = 0; i < d->n; i++)
		sum += d->v[i];
	snprintf(key, sizeof(key), "%s_samples", pfx);
	bo_u64(o, key, d->n);
	snprintf(key, sizeof(key), "%s_mean_ns", pfx);
	bo_u64(o, key, div64_u64(sum, d->n));
	for (i = 0; i < ARRAY_SIZE(qs); i++) {
		snprintf(key, sizeof(key), "%s_%s_ns", pfx, qs[i].name);
		bo_u64(o, key, q(d, qs[i].p));
	}
	/* multiples of the lock floor, which is in milli-ns */
	for (i = 0; i < ARRAY_SIZE(qs); i++) {
		snprintf(key, sizeof(key), "%s_%s_x_floor", pfx, qs[i].name);
		bo_ratio(o, key, q(d, qs[i].p) * 1000, run->floor.lock_mns);
	}
}

static void report_cdf(struct bench_out *o, const char *key,
		       const struct bench_dist *d)
{
	unsigned int p;

	if (!d->n)
		return;
	bo_arr_open(o, key);
	for (p = 0; p <= 10000; p += 500)
		bo_arr_u64(o, q(d, p));
	bo_arr_close(o);
}

static_assert(ARRAY_SIZE(((const char *[])FWQ_WAKE_SITE_NAMES)) == FWQ_SITE_NR);

static void report_stats(struct bench_out *o, struct bench_run *run)
{
	static const char * const site[] = FWQ_WAKE_SITE_NAMES;
	struct fwq_wq_stats *a = &run->st0, *b = &run->st1;
	bool counted = run->spec->counters;
	u64 total = 0, locked = 0, queued, flushes, w;
	char key[48];
	unsigned int i, k;

	if (!run->have_stats) {
		bo_null(o, "wakeups_per_item");
		bo_null(o, "pwqs_visited_per_flush");
		bo_null(o, "lock_cycles_per_flush");
		return;
	}
	queued = b->queued - a->queued;
	flushes = b->flushes - a->flushes;
	bo_u64(o, "queued", queued);
	bo_u64(o, "completed", b->completed - a->completed);
	bo_u64(o, "flushes", flushes);
	/* counters=0: the counted pass stands for the timed one (see above) */
	if (run->have_probe) {
		a = &run->pr0;
		b = &run->pr1;
		queued = b->queued - a->queued;
		flushes = b->flushes - a->flushes;
		counted = true;
		if (run->spec->scenario == BS_S4A)
			bo_u64(o, "walk_probe_flushes", flushes);
		else
			bo_u64(o, "counted_pass_items", queued);
	}
	for (i = 0; i < FWQ_SITE_NR; i++) {
		for (k = 0; k < 2; k++) {
			snprintf(key, sizeof(key), "wakeups_%s_%s", site[i],
				 k ? "locked" : "unlocked");
			if (!counted) {
				bo_null(o, key);
				continue;
			}
			w = b->wakeups[i][k] - a->wakeups[i][k];
			bo_u64(o, key, w);
			total += w;
			if (k)
				locked += w;
		}
	}
	if (counted) {
		bo_u64(o, "wakeups", total);
		bo_u64(o, "wakeups_under_lock", locked);
		bo_ratio(o, "wakeups_per_item", total, queued);
		bo_ratio(o, "wakeups_under_lock_per_item", locked, queued);
		bo_ratio(o, "pwqs_visited_per_flush",
			 b->flush_pwqs_visited - a->flush_pwqs_visited, flushes);
		bo_ratio(o, "lock_cycles_per_flush",
			 b->flush_lock_cycles - a->flush_lock_cycles, flushes);
	} else {
		bo_null(o, "wakeups");
		bo_null(o, "wakeups_under_lock");
		bo_null(o, "wakeups_per_item");
		bo_null(o, "wakeups_under_lock_per_item");
		bo_null(o, "pwqs_visited_per_flush");
		bo_null(o, "lock_cycles_per_flush");
	}
}

static void report_lockstat(struct bench_out *o, struct bench_run *run)
{
	static const char * const path[FWQ_LS_NR] = { "enqueue", "chain" };
	struct fwq_lockstat *ls = run->ls;
	unsigned int p, i, b;
	char key[64];

	if (!ls)
		return;
	for (p = 0; p < FWQ_LS_NR; p++) {
		for (i = 0; i < 2; i++) {
			const u64 *h = i ? ls->wait[p] : ls->hold[p];
			u64 n = 0, c = 0;

			snprintf(key, sizeof(key), "lock_%s_%s_hist_log2ns",
				 i ? "wait" : "hold", path[p]);
			bo_arr_open(o, key);
			for (b = 0; b < FWQ_LOCKSTAT_BUCKETS; b++) {
				bo_arr_u64(o, h[b]);
				n += h[b];
			}
			bo_arr_close(o);
			/* median bucket: [2^b, 2^(b+1)) ns */
			for (b = 0; n && b < FWQ_LOCKSTAT_BUCKETS; b++) {
				c += h[b];
				if (c * 2 >= n)
					break;
			}
			snprintf(key, sizeof(key), "lock_%s_%s_p50_bucket_ns",
				 i ? "wait" : "hold", path[p]);
			if (n)
				bo_u64(o, key, 1ULL << b);
			else
				bo_null(o, key);
		}
		snprintf(key, sizeof(key), "lock_wakeups_locked_%s", path[p]);
		bo_u64(o, key, ls->wakeups_locked[p]);
	}
}

/* the wait at quantile @p (per 10000) of @w: its bucket's upper bound */
static u64 flush_wait_q(const struct fwq_flush_waits *w, unsigned int p)
{
	u64 want = div_u64(w->flushes * p + 9999, 10000), c = 0;
	unsigned int b;

	for (b = 0; b < FWQ_FLUSH_WAIT_BUCKETS; b++) {
		c += w->hist[b];
		if (c >= max_t(u64, want, 1))
			break;
	}
	return fwq_flush_wait_bucket_ns(min_t(unsigned int, b + 1,
					      FWQ_FLUSH_WAIT_BUCKETS));
}

/*
 * The flush-mutex wait of the timed pass (bench_flush_wait_begin()): how
 * many flushes it timed, their mean, p50 and p99 (each the upper bound of
 * its bucket, at most 1/8 above the wait), and its share of the flush
 * time, mean wait over mean flush (@flush: the flush latency samples).
 * Null, with why, where there is none.
 */
static void report_flush_wait(struct bench_out *o, struct bench_run *run,
			      const struct bench_dist *flush)
{
	struct fwq_flush_waits *w = run->fw1;
	u64 sum = 0, mean;
	unsigned long i;
	unsigned int b;

	if (!bench_flush_wait_scenario(run->spec))
		return;
	if (w && run->fw0) {
		/* fwq: the engine's counters since the start of the pass */
		w->flushes -= run->fw0->flushes;
		w->wait_ns -= run->fw0->wait_ns;
		for (b = 0; b < FWQ_FLUSH_WAIT_BUCKETS; b++)
			w->hist[b] -= run->fw0->hist[b];
		kfree(run->fw0);
		run->fw0 = NULL;
	}
	if (!w || !w->flushes || !flush->n) {
		bo_null(o, "flush_mutex_waits");
		bo_null(o, "flush_mutex_wait_mean_ns");
		bo_null(o, "flush_mutex_wait_p50_ns");
		bo_null(o, "flush_mutex_wait_p99_ns");
		bo_null(o, "flush_mutex_wait_share");
		bo_str(o, "flush_mutex_wait_why", run->fw_why ?:
		       (w ? "no flush timed" : "not timed"));
		return;
	}
	for (i = 0; i < flush->n; i++)
		sum += flush->v[i];
	mean = div64_u64(w->wait_ns, w->flushes);
	bo_u64(o, "flush_mutex_waits", w->flushes);
	bo_u64(o, "flush_mutex_wait_mean_ns", mean);
	bo_u64(o, "flush_mutex_wait_p50_ns", flush_wait_q(w, 5000));
	bo_u64(o, "flush_mutex_wait_p99_ns", flush_wait_q(w, 9900));
	/* mean wait over mean flush, as a ratio: sum/n is the mean flush */
	bo_ratio(o, "flush_mutex_wait_share", mean * flush->n, sum);
	bo_str(o, "flush_mutex_wait_by",
	       run->spec->target == BT_KWQ ? "kprobe" : "fwq");
}

/*
 * Write the metrics object and the test_workqueue-style line. Flush
 * scenarios report flushes as their "items".
 */
void bench_scenario_report(struct bench_run *run, struct bench_out *o,
			   char *text, size_t tlen)
{
	const struct bench_spec *s = run->spec;
	struct bench_dist d1 = {}, d2 = {}, dq = {};
	unsigned int nflush = run->threads, nb = 0;
	u64 ops = 0, el = run->t_end - run->t_start, bops = 0, brate = 0;
	u64 wrate, rate_v;
	const char *l1 = "flush", *l2 = NULL, *rate = "flushes_per_sec";
	char key[48];
	unsigned int i;

	/*
	 * The rate: the threads' batch rates summed (they run concurrently),
	 * else, when nothing ran in batches (sample 1), the wall-clock one.
	 */
	for (i = 0; i < nflush; i++) {
		const struct bench_thread *t = &run->thr[i];

		ops += t->ops;
		if (!t->batch_ns)
			continue;
		bops += t->batch_ops;
		brate += div64_u64(t->batch_ops * NSEC_PER_SEC, t->batch_ns);
		nb++;
	}
	wrate = el ? div64_u64(ops * NSEC_PER_SEC, el) : 0;
	rate_v = nb ? brate : wrate;

	switch (s->scenario) {
	case BS_S1:
	case BS_S2:
	case BS_S3:
		l1 = "enq";
		l2 = "queue_to_start";
		rate = "items_per_sec";
		break;
	case BS_S4B:
	case BS_S6:
		l2 = "enq";
		break;
	case BS_S5:
		l2 = "fsync";
		break;
	default:
		break;
	}

	bo_open(o, "metrics");
	bo_u64(o, "elapsed_ns", el);
	bo_u64(o, "ops", ops);
	bo_u64(o, rate, rate_v);
	bo_str(o, "rate_timing", nb ? "batched" : "wall");
	bo_u64(o, "batched_ops", bops);
	if (nb)
		bo_u64(o, "per_thread_ops_per_sec", brate / nb);
	else
		bo_null(o, "per_thread_ops_per_sec");
	snprintf(key, sizeof(key), "%s_wall", rate);
	bo_u64(o, key, wrate);
	if (bench_dist_merge(run, false, 0, nflush, &d1) ||
	    bench_dist_merge(run, true, 0, nflush, &d2) ||
	    bench_dist_merge(run, true, nflush, run->nthr, &dq)) {
		bo_str(o, "error", "out of memory for percentiles");
	} else {
		report_dist(o, run, l1, &d1);
		if (l2)
			report_dist(o, run, l2, &d2);
		if (s->scenario == BS_S5)
			report_cdf(o, "flush_cdf_ns_p0_to_p100_step5", &d1);
		if (s->scenario == BS_S4C) {
			u64 qops = 0;

			for (i = nflush; i < run->nthr; i++)
				qops += run->thr[i].ops;
			bo_u64(o, "queuers", run->nthr - nflush);
			bo_u64(o, "queued_items_per_sec",
			       el ? div64_u64(qops * NSEC_PER_SEC, el) : 0);
			report_dist(o, run, "enq", &dq);
		}
	}
	report_flush_wait(o, run, &d1);
	report_stats(o, run);
	report_lockstat(o, run);
	bo_close(o);

	snprintf(text, tlen,
		 "test_workqueue:   %-16s %llu %s/sec\tp50=%llu\tp90=%llu\tp95=%llu ns",
		 s->target == BT_KWQ ? "kwq" : fwq_affn_scope_names[s->scope],
		 rate_v,
		 l1[0] == 'e' ? "items" : "flushes",
		 q(&d1, 5000), q(&d1, 9000), q(&d1, 9500));
	kvfree(d1.v);
	kvfree(d2.v);
	kvfree(dq.v);
}

void bench_run_free(struct bench_run *run)
{
	bench_threads_free(run);
	kfree(run->ls);
	run->ls = NULL;
	kfree(run->fw0);
	kfree(run->fw1);
	run->fw0 = NULL;
	run->fw1 = NULL;
}
