// SPDX-License-Identifier: GPL-2.0
/*
 * docs/hazards.md H19, a pwq reference that outlives its workqueue.
 *
 * The stress loop of the pwq references: attribute changes, mayday
 * traffic and CPU hotplug at once, on one unbound FWQ_MEM_RECLAIM
 * workqueue. Each of them takes and drops pwq references of its own: an
 * attrs change installs new pwqs and puts the old ones, which items in
 * flight and maydays may still hold; a mayday pins a pwq until the
 * rescuer is done with it; a hotplug event re-picks the pwq of each CPU of
 * the pod it changes. With worker creation made to fail
 * (fail_create_worker), the one worker of each pool keeps trying to
 * create a second one, and the pools' items are served by the rescuer
 * only. Every item must run, and once the workqueue is destroyed and the
 * releases have run, no workqueue, pwq, unbound pool or rescuer may be
 * left. Bounded by ST_MAX_MS of guest time, not timed.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

/*
 * The three run together for ST_MIN_MS at least, and until the attrs
 * thread has made ST_MIN_APPLIES changes and the hotplug thread ST_MIN_HP
 * cycles (debug kernels are slow at both), or for ST_MAX_MS at most: a
 * bound, not a timing to meet.
 */
#define ST_MIN_MS	1000
#define ST_MAX_MS	20000
#define ST_MIN_APPLIES	6
#define ST_MIN_HP	2
#define ST_ITEMS	32
#define ST_NICE		15	/* and 16: pools of the case's own */
#define ST_KNOB		"fail_create_worker"

struct st_ctx {
	struct fwq_workqueue *wq;
	struct fwq_variant v;
	bool stop;
	atomic_t done;
	atomic_t by_rescuer;
	int applied, apply_failed;	/* written by the attrs thread */
	int hotplugs, hotplug_failed;	/* written by the hotplug thread */
	int cpu;		/* the CPU the hotplug thread cycles, or -1 */
};

struct st_item {
	struct fwq_work work;
	struct st_ctx *c;
};

/* a short sleep: the pool's one worker cannot run a second item meanwhile */
static void st_item_fn(struct fwq_work *work)
{
	struct st_item *it = container_of(work, struct st_item, work);

	usleep_range(300, 600);
	if (fwqt_current_is_rescuer())
		atomic_inc(&it->c->by_rescuer);
	atomic_inc(&it->c->done);
}

/* attribute changes: scope, nice, strictness and cpumask in turn */
static void st_attrs_fn(void *arg)
{
	static const enum fwq_affn_scope scopes[] = {
		FWQ_AFFN_CPU, FWQ_AFFN_SMT, FWQ_AFFN_SYSTEM, FWQ_AFFN_CACHE,
	};
	struct st_ctx *c = arg;
	struct fwq_workqueue_attrs *attrs;
	unsigned int i = 0;

	attrs = fwq_alloc_workqueue_attrs();
	if (!attrs)
		return;
	attrs->variant = c->v;
	while (!READ_ONCE(c->stop)) {
		attrs->affn_scope = scopes[i % ARRAY_SIZE(scopes)];
		attrs->nice = ST_NICE + (i & 1);
		attrs->affn_strict = (i % 3) == 2;
		cpumask_copy(attrs->cpumask, cpu_possible_mask);
		/* every other round, the workqueue on the first CPU only */
		if ((i % 4) == 3 && num_possible_cpus() > 1)
			cpumask_copy(attrs->cpumask,
				     cpumask_of(cpumask_first(cpu_online_mask)));
		if (fwq_apply_workqueue_attrs(c->wq, attrs))
			WRITE_ONCE(c->apply_failed, c->apply_failed + 1);
		else
			WRITE_ONCE(c->applied, c->applied + 1);
		i++;
		usleep_range(5000, 10000);
	}
	fwq_free_workqueue_attrs(attrs);
}

/* CPU hotplug: one CPU off and on again, over and over */
static void st_hotplug_fn(void *arg)
{
	struct st_ctx *c = arg;

	while (!READ_ONCE(c->stop)) {
		if (remove_cpu(c->cpu)) {
			WRITE_ONCE(c->hotplug_failed, c->hotplug_failed + 1);
			msleep(20);
			continue;
		}
		if (add_cpu(c->cpu))
			WRITE_ONCE(c->hotplug_failed, c->hotplug_failed + 1);
		else
			WRITE_ONCE(c->hotplugs, c->hotplugs + 1);
		usleep_range(5000, 10000);
	}
}

static void st_unstick(void *arg)
{
	WRITE_ONCE(((struct st_ctx *)arg)->stop, true);
}

/*
 * Invariant: attribute changes, maydays and CPU hotplug at once lose no
 * item and leak no pwq reference: every item queued runs, some of them
 * in the rescuer, and after the destroy every workqueue, pwq, unbound pool
 * and rescuer is gone again, with no misuse or consistency error counted.
 */
static void test_attrs_mayday_hotplug(struct fwq_ktap_test *t)
{
	long long before[FWQT_NR_OBJ], after[FWQT_NR_OBJ] = { -1, -1, -1, -1 };
	long long misuse, errors;
	struct fwqt_thread attrs_th, hp_th = {};
	struct st_item *items;
	struct st_ctx c = { .cpu = -1 };
	unsigned long start;
	int i, queued = 0;
	char old[32];

	if (!fwqt_param_save(t, ST_KNOB, old, sizeof(old),
			     "fwq.ko has no " ST_KNOB " parameter"))
		return;
	items = kcalloc(ST_ITEMS, sizeof(*items), GFP_KERNEL);
	if (!FWQ_EXPECT(t, items))
		return;
	if (!FWQ_EXPECT(t, fwqt_objects_quiet(before)))
		goto out_free;
	misuse = fwqt_debug_counter("misuse");
	errors = fwqt_debug_counter("consistency_errors");

	fwq_default_variant(&c.v);
	c.wq = fwqt_alloc_unbound(t, &c.v, FWQ_MEM_RECLAIM, 0, FWQ_AFFN_SYSTEM,
				  ST_NICE);
	if (!c.wq)
		goto out_free;
	for (i = 0; i < ST_ITEMS; i++) {
		FWQ_INIT_WORK(&items[i].work, st_item_fn);
		items[i].c = &c;
	}
	/* the last online CPU but the boot CPU goes off and on */
	if (num_online_cpus() > 1) {
		c.cpu = cpumask_last(cpu_online_mask);
		if (c.cpu == cpumask_first(cpu_online_mask))
			c.cpu = -1;
	}

	if (!FWQ_EXPECT(t, fwqt_param_write(ST_KNOB, "1") > 0))
		goto out_destroy;
	if (!FWQ_EXPECT_EQ(t, fwqt_thread_start(&attrs_th, st_attrs_fn, &c,
						-1, "st-attrs"), 0))
		goto out_knob;
	if (c.cpu >= 0 &&
	    !FWQ_EXPECT_EQ(t, fwqt_thread_start(&hp_th, st_hotplug_fn, &c, -1,
						"st-hotplug"), 0))
		c.cpu = -1;

	start = jiffies;
	while (time_before(jiffies, start + msecs_to_jiffies(ST_MAX_MS)) &&
	       (time_before(jiffies, start + msecs_to_jiffies(ST_MIN_MS)) ||
		READ_ONCE(c.applied) < ST_MIN_APPLIES ||
		(c.cpu >= 0 && READ_ONCE(c.hotplugs) < ST_MIN_HP))) {
		for (i = 0; i < ST_ITEMS; i++)
			queued += fwq_queue_work(c.wq, &items[i].work);
		usleep_range(1000, 2000);
	}
	WRITE_ONCE(c.stop, true);
	fwqt_thread_join(t, &attrs_th, st_unstick, &c, "attrs changes");
	fwqt_thread_join(t, &hp_th, st_unstick, &c, "CPU hotplug");
out_knob:
	fwqt_param_restore(ST_KNOB, old);
	fwq_flush_workqueue(c.wq);
	fwq_ktap_diag("%d items queued, %d ran, %d of them in the rescuer",
		      queued, atomic_read(&c.done), atomic_read(&c.by_rescuer));
	fwq_ktap_diag("%d attrs changes (%d refused); CPU %d: %d hotplug cycles (%d refused)",
		      c.applied, c.apply_failed, c.cpu, c.hotplugs,
		      c.hotplug_failed);
	FWQ_EXPECT_EQ(t, atomic_read(&c.done), queued);
	FWQ_EXPECT(t, queued > 0);
	/* the mayday traffic: items served by the rescuer */
	FWQ_EXPECT(t, atomic_read(&c.by_rescuer) > 0);
	FWQ_EXPECT(t, c.applied > 0);
	FWQ_EXPECT_EQ(t, c.apply_failed, 0);
	if (c.cpu >= 0)
		FWQ_EXPECT(t, c.hotplugs > 0);
out_destroy:
	fwq_destroy_workqueue(c.wq);
	if (c.cpu >= 0 && !cpu_online(c.cpu))
		FWQ_EXPECT_EQ(t, add_cpu(c.cpu), 0);
	/* the releases run: every object the case made is gone */
	fwqt_release_hold(false);
	if (!FWQ_EXPECT(t, fwqt_objects_settle(after, before)))
		fwqt_objects_dump();
	for (i = 0; i < FWQT_NR_OBJ; i++)
		FWQ_EXPECT_EQ(t, after[i], before[i]);
	FWQ_EXPECT_EQ(t, fwqt_debug_counter("misuse"), misuse);
	FWQ_EXPECT_EQ(t, fwqt_debug_counter("consistency_errors"), errors);
out_free:
	kfree(items);
}

FWQ_KTAP_SUITE(fwq_suite_stress, "fwq_stress",
	       { .name = "attrs_mayday_hotplug",
		 .run = test_attrs_mayday_hotplug });
