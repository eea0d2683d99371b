// SPDX-License-Identifier: GPL-2.0
/*
 * fwq's system workqueues (Linux 7.3's system_percpu_wq and its kin,
 * src/system_wq.c): created by the first hold, shared by every holder,
 * destroyed by the last put, so that fwq.ko alone keeps no workqueue;
 * queue, flush and cancel on each, schedule_work() and its kin, two
 * first holds racing on two CPUs, and FWQ_POWER_EFFICIENT under the
 * power_efficient parameter.
 */
#include <linux/cpu.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

/* how many system workqueues a hold brings (src/system_wq.c) */
#define SW_NR		6
/* the workqueues count of the objects file (fwqt_obj_names[]) */
#define SW_OBJ_WQ	0

struct sw_wq {
	const char *name;
	struct fwq_workqueue **wqp;
	bool unbound;
};

static const struct sw_wq sw_wqs[SW_NR] = {
	{ "events", &fwq_system_percpu_wq, false },
	{ "events_highpri", &fwq_system_highpri_wq, false },
	{ "events_long", &fwq_system_long_wq, false },
	{ "events_unbound", &fwq_system_dfl_wq, true },
	{ "events_dfl_long", &fwq_system_dfl_long_wq, true },
	/* unbound under power_efficient=1, checked in its own case */
	{ "events_power_efficient", &fwq_system_power_efficient_wq, false },
};

/* a debugfs wqs line's type: 1 unbound, 0 per-CPU, -1 not found */
static int sw_wq_unbound(const char *name)
{
	char *buf, *line, want[FWQ_NAME_LEN + 8];
	int ret = -1;

	buf = kzalloc(PAGE_SIZE * 4, GFP_KERNEL);
	if (!buf)
		return -1;
	if (fwqt_file_read("/sys/kernel/debug/fwq/wqs", buf,
			   PAGE_SIZE * 4 - 1) <= 0)
		goto out;
	snprintf(want, sizeof(want), "wq %s: ", name);
	for (line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (strncmp(line, want, strlen(want)))
			continue;
		line += strlen(want);
		if (!strncmp(line, "unbound", 7))
			ret = 1;
		else if (!strncmp(line, "percpu", 6))
			ret = 0;
		break;
	}
out:
	kfree(buf);
	return ret;
}

/* is fwq.ko's power_efficient on? */
static bool sw_pe_on(void)
{
	char buf[8];

	return fwqt_param_read("power_efficient", buf, sizeof(buf)) > 0 &&
	       buf[0] == 'Y';
}

/*
 * Invariant: the first hold creates the system workqueues, as many as
 * there are, with 7.3's names and types; a second hold shares them (no
 * new object, the same pointers); the first put keeps them; the last put
 * destroys them, the object counts back where they were and the
 * pointers cleared; a put without a hold is refused (misuse counted,
 * nothing destroyed).
 */
static void test_system_wqs_hold(struct fwq_ktap_test *t)
{
	long long base[FWQT_NR_OBJ], now[FWQT_NR_OBJ];
	struct fwq_workqueue *seen[SW_NR];
	long long misuse;
	int i, want;

	if (!FWQ_EXPECT(t, fwqt_objects_quiet(base)))
		return;
	for (i = 0; i < SW_NR; i++)
		FWQ_EXPECT(t, !*sw_wqs[i].wqp);
	misuse = fwqt_debug_counter("misuse");
	fwq_system_wqs_put();
	FWQ_EXPECT_EQ(t, fwqt_debug_counter("misuse"), misuse + 1);

	if (!FWQ_EXPECT_EQ(t, fwq_system_wqs_get(), 0))
		return;
	FWQ_EXPECT(t, fwqt_objects(now));
	FWQ_EXPECT_EQ(t, now[SW_OBJ_WQ], base[SW_OBJ_WQ] + SW_NR);
	for (i = 0; i < SW_NR; i++) {
		seen[i] = *sw_wqs[i].wqp;
		if (!FWQ_EXPECT(t, seen[i]))
			continue;
		want = sw_wqs[i].unbound;
		if (sw_wqs[i].wqp == &fwq_system_power_efficient_wq)
			want = sw_pe_on();
		if (!FWQ_EXPECT_EQ(t, sw_wq_unbound(sw_wqs[i].name), want))
			fwq_ktap_diag("%s: not listed, or not %s",
				      sw_wqs[i].name,
				      want ? "unbound" : "per-CPU");
	}

	/* a second hold: the same workqueues, nothing new */
	if (FWQ_EXPECT_EQ(t, fwq_system_wqs_get(), 0)) {
		FWQ_EXPECT(t, fwqt_objects(now));
		FWQ_EXPECT_EQ(t, now[SW_OBJ_WQ], base[SW_OBJ_WQ] + SW_NR);
		for (i = 0; i < SW_NR; i++)
			FWQ_EXPECT(t, *sw_wqs[i].wqp == seen[i]);
		fwq_system_wqs_put();
		for (i = 0; i < SW_NR; i++)
			FWQ_EXPECT(t, *sw_wqs[i].wqp == seen[i]);
	}

	fwq_system_wqs_put();
	for (i = 0; i < SW_NR; i++)
		FWQ_EXPECT(t, !*sw_wqs[i].wqp);
	if (!FWQ_EXPECT(t, fwqt_objects_settle(now, base)))
		fwqt_objects_dump();
}

/* queue, flush and cancel on @wq; @it and @d idle, their counts 0 */
static void sw_use(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
		   const char *name, struct fwqt_done_item *it,
		   struct fwqt_done_ditem *d)
{
	int runs = atomic_read(&it->runs);

	reinit_completion(&it->done);
	FWQ_EXPECT(t, fwq_queue_work(wq, &it->work));
	fwqt_wait(t, &it->done, name);
	fwq_flush_work(&it->work);
	if (!FWQ_EXPECT_EQ(t, atomic_read(&it->runs), runs + 1))
		fwq_ktap_diag("%s: the item ran %d times, want %d", name,
			      atomic_read(&it->runs), runs + 1);

	/* a delayed item: cancelled armed, never runs; flushed armed, runs */
	runs = atomic_read(&d->runs);
	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &d->dw, 60 * HZ));
	FWQ_EXPECT(t, fwq_cancel_delayed_work_sync(&d->dw));
	FWQ_EXPECT(t, fwq_queue_delayed_work(wq, &d->dw, 60 * HZ));
	fwq_flush_delayed_work(&d->dw);
	if (!FWQ_EXPECT_EQ(t, atomic_read(&d->runs), runs + 1))
		fwq_ktap_diag("%s: the delayed item ran %d times, want %d",
			      name, atomic_read(&d->runs), runs + 1);
	fwq_flush_workqueue(wq);
}

/*
 * Invariant: on each system workqueue an item runs once per queueing and
 * a flush waits for it; a delayed item cancelled while armed never runs
 * and one flushed while armed runs once; fwq_schedule_work(),
 * fwq_schedule_work_on(), fwq_schedule_delayed_work() and
 * fwq_schedule_delayed_work_on() queue to fwq_system_percpu_wq (its
 * queued count rises by one each). The last put leaves no object.
 */
static void test_system_wqs_use(struct fwq_ktap_test *t)
{
	long long base[FWQT_NR_OBJ], now[FWQT_NR_OBJ];
	struct fwq_wq_stats st0, st1;
	struct fwqt_done_ditem *d;
	struct fwqt_done_item *it;
	int cpu, i;

	if (!FWQ_EXPECT(t, fwqt_objects_quiet(base)))
		return;
	it = kzalloc(sizeof(*it), GFP_KERNEL);
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!FWQ_EXPECT(t, it && d))
		goto out_free;
	fwqt_done_item_init(it);
	FWQ_INIT_DELAYED_WORK(&d->dw, fwqt_done_ditem_fn);
	fwqt_done_ditem_reset(d);
	if (!FWQ_EXPECT_EQ(t, fwq_system_wqs_get(), 0))
		goto out_free;

	for (i = 0; i < SW_NR; i++)
		sw_use(t, *sw_wqs[i].wqp, sw_wqs[i].name, it, d);

	/* schedule_*(): to fwq_system_percpu_wq, on a CPU when asked */
	cpu = raw_smp_processor_id();
	fwq_workqueue_get_stats(fwq_system_percpu_wq, &st0);
	reinit_completion(&it->done);
	FWQ_EXPECT(t, fwq_schedule_work(&it->work));
	fwqt_wait(t, &it->done, "schedule_work");
	fwq_flush_work(&it->work);
	reinit_completion(&it->done);
	FWQ_EXPECT(t, fwq_schedule_work_on(cpu, &it->work));
	fwqt_wait(t, &it->done, "schedule_work_on");
	fwq_flush_work(&it->work);
	FWQ_EXPECT(t, fwq_schedule_delayed_work(&d->dw, 60 * HZ));
	fwq_flush_delayed_work(&d->dw);
	FWQ_EXPECT(t, fwq_schedule_delayed_work_on(cpu, &d->dw, 60 * HZ));
	FWQ_EXPECT(t, fwq_cancel_delayed_work_sync(&d->dw));
	FWQ_EXPECT(t, fwq_schedule_delayed_work_on(cpu, &d->dw, 1));
	fwq_flush_delayed_work(&d->dw);
	fwq_workqueue_get_stats(fwq_system_percpu_wq, &st1);
	if (!FWQ_EXPECT_EQ(t, st1.queued - st0.queued, 4))
		fwq_ktap_diag("fwq_system_percpu_wq: %llu queued, want 4",
			      st1.queued - st0.queued);
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), SW_NR + 2);
	FWQ_EXPECT_EQ(t, atomic_read(&d->runs), SW_NR + 2);

	fwq_system_wqs_put();
	if (!FWQ_EXPECT(t, fwqt_objects_settle(now, base)))
		fwqt_objects_dump();
out_free:
	kfree(d);
	kfree(it);
}

/* two first holds, racing */
struct sw_race {
	atomic_t ready;		/* threads at the start line */
	int ret[2];
	struct fwq_workqueue *seen[2];
};

static struct sw_race *sw_race_arg;

static void sw_race_fn(void *arg)
{
	struct sw_race *r = sw_race_arg;
	int me = (long)arg;

	atomic_inc(&r->ready);
	/* both on their CPUs before either takes the hold */
	while (atomic_read(&r->ready) < 2)
		cpu_relax();
	r->ret[me] = fwq_system_wqs_get();
	r->seen[me] = READ_ONCE(fwq_system_percpu_wq);
}

/*
 * Invariant: two first holds taken at once from two CPUs both succeed
 * and see the same workqueues; one set is created (the workqueue count
 * rises by the number of system workqueues, not twice that), and the two
 * puts leave no object.
 */
static void test_system_wqs_race(struct fwq_ktap_test *t)
{
	long long base[FWQT_NR_OBJ], now[FWQT_NR_OBJ];
	struct fwqt_thread th[2] = {};
	struct sw_race *r;
	int cpu[2], i, n = 0;

	if (num_online_cpus() < 2) {
		FWQ_KTAP_SKIP(t, "one CPU online");
		return;
	}
	cpus_read_lock();
	cpu[0] = cpumask_first(cpu_online_mask);
	cpu[1] = cpumask_next(cpu[0], cpu_online_mask);
	cpus_read_unlock();
	if (!FWQ_EXPECT(t, fwqt_objects_quiet(base)))
		return;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!FWQ_EXPECT(t, r))
		return;
	sw_race_arg = r;
	for (i = 0; i < 2; i++) {
		r->ret[i] = -EINPROGRESS;
		if (FWQ_EXPECT_EQ(t, fwqt_thread_start(&th[i], sw_race_fn,
						       (void *)(long)i, cpu[i],
						       "sw_race"), 0))
			n++;
	}
	/* a thread that did not start leaves the other at the line */
	if (n < 2)
		atomic_inc(&r->ready);
	for (i = 0; i < 2; i++)
		fwqt_thread_join(t, &th[i], NULL, NULL, "fwq_system_wqs_get");
	for (i = 0; i < 2; i++) {
		if (r->ret[i] == -EINPROGRESS)
			continue;
		if (FWQ_EXPECT_EQ(t, r->ret[i], 0))
			FWQ_EXPECT(t, r->seen[i]);
	}
	if (n == 2 && !r->ret[0] && !r->ret[1]) {
		FWQ_EXPECT(t, r->seen[0] == r->seen[1]);
		FWQ_EXPECT(t, fwqt_objects(now));
		FWQ_EXPECT_EQ(t, now[SW_OBJ_WQ], base[SW_OBJ_WQ] + SW_NR);
	}
	for (i = 0; i < 2; i++)
		if (!r->ret[i])
			fwq_system_wqs_put();
	FWQ_EXPECT(t, !fwq_system_percpu_wq);
	if (!FWQ_EXPECT(t, fwqt_objects_settle(now, base)))
		fwqt_objects_dump();
	sw_race_arg = NULL;
	kfree(r);
}

/*
 * Invariant: a workqueue allocated with FWQ_POWER_EFFICIENT is per-CPU
 * while power_efficient is off and unbound while it is on (read at
 * allocation, as 7.3's workqueue.power_efficient); the same for the
 * system power-efficient workqueue, created under either. Items run on
 * both.
 */
static void test_power_efficient(struct fwq_ktap_test *t)
{
	static const char * const vals[] = { "0", "1" };
	struct fwq_workqueue *wq;
	struct fwqt_done_item *it;
	char old[8];
	int i;

	if (!fwqt_param_save(t, "power_efficient", old, sizeof(old),
			     "fwq.ko has no power_efficient"))
		return;
	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!FWQ_EXPECT(t, it))
		goto out;
	fwqt_done_item_init(it);
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		if (!FWQ_EXPECT(t, fwqt_param_write("power_efficient",
						    vals[i]) > 0))
			break;
		wq = fwq_alloc_workqueue("fwqt-pe", FWQ_POWER_EFFICIENT, 0);
		if (!FWQ_EXPECT(t, wq))
			break;
		if (!FWQ_EXPECT_EQ(t, sw_wq_unbound("fwqt-pe"), i))
			fwq_ktap_diag("power_efficient=%s: fwqt-pe is not %s",
				      vals[i], i ? "unbound" : "per-CPU");
		reinit_completion(&it->done);
		FWQ_EXPECT(t, fwq_queue_work(wq, &it->work));
		fwqt_wait(t, &it->done, "fwqt-pe item");
		fwq_flush_work(&it->work);
		fwq_destroy_workqueue(wq);

		if (!FWQ_EXPECT_EQ(t, fwq_system_wqs_get(), 0))
			break;
		FWQ_EXPECT_EQ(t, sw_wq_unbound("events_power_efficient"), i);
		fwq_system_wqs_put();
	}
	FWQ_EXPECT_EQ(t, atomic_read(&it->runs), i);
out:
	fwqt_param_restore("power_efficient", old);
	kfree(it);
}

FWQ_KTAP_SUITE(fwq_suite_system_wq, "fwq_system_wq",
	       { .name = "system_wqs_hold", .run = test_system_wqs_hold },
	       { .name = "system_wqs_use", .run = test_system_wqs_use },
	       { .name = "system_wqs_race", .run = test_system_wqs_race },
	       { .name = "power_efficient", .run = test_power_efficient });
