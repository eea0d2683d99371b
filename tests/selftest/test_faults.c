// SPDX-License-Identifier: GPL-2.0
/*
 * docs/hazards.md H19, a pwq reference that outlives its workqueue.
 *
 * Allocation failures, one at a time (kernels with CONFIG_FAULT_INJECTION
 * and CONFIG_FAILSLAB only: the lockdep lane's). With the task's fail-nth
 * set to N, the Nth slab allocation the test thread makes fails; N runs
 * from 1 until a call completes without reaching it, so every allocation
 * that creating or reconfiguring a workqueue makes in the caller's context
 * fails once. Each failing call must fail cleanly: an error or a NULL
 * workqueue, and nothing left behind; a call that absorbs the failure
 * must leave a workqueue that works.
 *
 * Whether a call creates an unbound pool or reuses one depended on timing:
 * on whether the asynchronous release of the pwqs of a workqueue destroyed
 * or reconfigured just before had put their pools yet. So every sweep runs
 * twice, each pass until its own clean run, with the pool mode fixed
 * (fwq.ko's dbg_release_hold):
 *  - fresh: every release has run before the call (and between its
 *    stages), so each pool it needs is created, and its creation fails
 *    in turn;
 *  - reuse: a workqueue with the call's attributes is kept alive, and the
 *    releases are held during the call, so each pool it needs exists
 *    already: the call must create no unbound pool at all.
 * After every step the releases run, and the workqueue, pwq, unbound pool
 * and rescuer counts must be back at the pass's baseline; if not, every
 * object alive is listed and the pass stops. kmemleak checks the memory.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define FT_FAILSLAB	"/sys/kernel/debug/failslab/"
#define FT_MAX_N	2000	/* more allocations than any call makes */
#define FT_OBJ_UNBOUND	2	/* fwqt_obj_names[]: "unbound_pools" */

/* failslab: fail sleeping allocations too, quietly; or back to defaults */
static bool ft_failslab(bool on)
{
	const char *gfp = on ? "N" : "Y", *verbose = on ? "0" : "2";

	return fwqt_file_write(FT_FAILSLAB "ignore-gfp-wait", gfp, 1) > 0 &&
	       fwqt_file_write(FT_FAILSLAB "verbose", verbose, 1) > 0;
}

/*
 * The task's fail-nth countdown, stopped while the test itself writes a
 * file (its allocations are not the call's): the value to resume with.
 */
static unsigned int ft_nth_pause(void)
{
#ifdef CONFIG_FAULT_INJECTION
	unsigned int n = READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return n;
#else
	return 0;
#endif
}

static void ft_nth_resume(unsigned int n)
{
#ifdef CONFIG_FAULT_INJECTION
	WRITE_ONCE(current->fail_nth, n);
#endif
}

/*
 * Fresh mode, between two stages of a call: let every release run, so
 * that the next stage finds no pool its predecessor left behind.
 */
static void ft_fresh_point(bool fresh)
{
	unsigned int n;

	if (!fresh)
		return;
	n = ft_nth_pause();
	fwqt_release_hold(false);
	ft_nth_resume(n);
}

struct ft_item {
	struct fwq_work work;
	atomic_t ran;
};

static void ft_item_fn(struct fwq_work *work)
{
	atomic_inc(&container_of(work, struct ft_item, work)->ran);
}

/* does @wq still run an item? */
static bool ft_works(struct fwq_ktap_test *t, struct fwq_workqueue *wq)
{
	struct ft_item it = { .ran = ATOMIC_INIT(0) };

	FWQ_INIT_WORK(&it.work, ft_item_fn);
	if (!FWQ_EXPECT(t, fwq_queue_work(wq, &it.work)))
		return false;
	fwq_flush_workqueue(wq);
	return FWQ_EXPECT_EQ(t, atomic_read(&it.ran), 1);
}

/**
 * struct ft_call - a call the sweep fails allocation by allocation
 * @what: its name, for the diagnostics
 * @op: the call; returns 0 or a negative errno. @fresh: fresh mode, for
 *	ft_fresh_point() between its stages
 * @pin: reuse mode: keep alive what makes every pool of @op exist; false
 *	(and the test failed) if it cannot
 * @unpin: undo @pin
 * @reset: after each step, outside the failures: back to the state the
 *	next step starts from, or NULL
 * @arg: for all of them
 */
struct ft_call {
	const char *what;
	int (*op)(struct fwq_ktap_test *t, void *arg, bool fresh);
	bool (*pin)(struct fwq_ktap_test *t, void *arg);
	void (*unpin)(void *arg);
	void (*reset)(struct fwq_ktap_test *t, void *arg);
	void *arg;
};

/* the counts after a step's releases ran: back at @base? */
static bool ft_step_balanced(struct fwq_ktap_test *t, const char *what,
			     const char *mode, int n, const long long *base)
{
	long long now[FWQT_NR_OBJ];
	int i;

	fwqt_release_hold(false);
	if (fwqt_objects_settle(now, base))
		return true;
	for (i = 0; i < FWQT_NR_OBJ; i++)
		if (!FWQ_EXPECT_EQ(t, now[i], base[i]))
			fwq_ktap_diag("%s, %s, step %d: %s %lld, %lld before",
				      what, mode, n, fwqt_obj_names[i], now[i],
				      base[i]);
	fwqt_objects_dump();
	return false;
}

/*
 * One pass of the sweep: run @c->op with the Nth allocation failing,
 * N = 1, 2, ... until @op makes fewer than N allocations, in one pool
 * mode, checking the object counts after every step.
 */
static void ft_sweep_mode(struct fwq_ktap_test *t, const struct ft_call *c,
			  bool fresh)
{
	const char *mode = fresh ? "fresh" : "reused";
	int n, refused = 0, absorbed = 0;
	long long base[FWQT_NR_OBJ];
	bool done = false;

	if (!fresh && c->pin && !c->pin(t, c->arg))
		return;
	if (!FWQ_EXPECT(t, fwqt_objects_quiet(base)))
		goto out;

	for (n = 1; n <= FT_MAX_N && !t->failed; n++) {
		long long held[FWQT_NR_OBJ];
		unsigned int left;
		int ret;

		if (!fresh && !FWQ_EXPECT(t, fwqt_release_hold(true)))
			break;
#ifdef CONFIG_FAULT_INJECTION
		WRITE_ONCE(current->fail_nth, n);
		ret = c->op(t, c->arg, fresh);
		left = READ_ONCE(current->fail_nth);
		WRITE_ONCE(current->fail_nth, 0);
#else
		ret = c->op(t, c->arg, fresh);
		left = 1;
#endif
		/*
		 * Reused: with the releases still held, the call found every
		 * pool it needed, so it created none, and none went.
		 */
		if (!fresh && FWQ_EXPECT(t, fwqt_objects(held)) &&
		    !FWQ_EXPECT_EQ(t, held[FT_OBJ_UNBOUND], base[FT_OBJ_UNBOUND]))
			fwq_ktap_diag("%s, reused, step %d: %lld unbound pools held, %lld before",
				      c->what, n, held[FT_OBJ_UNBOUND],
				      base[FT_OBJ_UNBOUND]);
		/* reused: the releases still held, the reset reuses too */
		if (c->reset)
			c->reset(t, c->arg);
		if (!ft_step_balanced(t, c->what, mode, n, base))
			break;
		if (left) {
			/* fewer than n allocations: the clean run */
			FWQ_EXPECT_EQ(t, ret, 0);
			done = true;
			break;
		}
		if (ret)
			refused++;
		else
			absorbed++;
	}
	fwq_ktap_diag("%s, %s pools: %d failed in turn: %d refused, %d absorbed",
		      c->what, mode, n - 1, refused, absorbed);
	FWQ_EXPECT(t, done);
out:
	fwqt_release_hold(false);
	if (!fresh && c->unpin) {
		c->unpin(c->arg);
		fwqt_release_hold(false);
	}
}

/* both passes of a call: pools always created, pools always reused */
static void ft_sweep(struct fwq_ktap_test *t, const struct ft_call *c)
{
	ft_sweep_mode(t, c, true);
	if (!t->failed)
		ft_sweep_mode(t, c, false);
}

/* the sweeps need failslab and fwq.ko's dbg_release_hold; else a skip */
static bool ft_can_run(struct fwq_ktap_test *t)
{
	if (!IS_ENABLED(CONFIG_FAILSLAB)) {
		FWQ_KTAP_SKIP(t, "needs CONFIG_FAILSLAB");
		return false;
	}
	if (!fwqt_param_exists("dbg_release_hold")) {
		FWQ_KTAP_SKIP(t, "fwq.ko has no dbg_release_hold parameter");
		return false;
	}
	return true;
}

struct ft_alloc_arg {
	unsigned int flags;
	struct fwq_variant v;
	struct fwq_workqueue *pin;
};

/* allocate a workqueue of the case's flush variant, use it, destroy it */
static int ft_alloc_op(struct fwq_ktap_test *t, void *arg, bool fresh)
{
	struct ft_alloc_arg *a = arg;
	struct fwq_workqueue *wq;

	wq = fwq_alloc_workqueue_variant(&a->v, "fwqt-ft", a->flags, 0);
	if (!wq)
		return -ENOMEM;
	ft_works(t, wq);
	fwq_destroy_workqueue(wq);
	return 0;
}

/* the same workqueue, kept: its pools are those ft_alloc_op() needs */
static bool ft_alloc_pin(struct fwq_ktap_test *t, void *arg)
{
	struct ft_alloc_arg *a = arg;

	a->pin = fwq_alloc_workqueue_variant(&a->v, "fwqt-ft-pin", a->flags,
					     0);
	return FWQ_EXPECT(t, a->pin);
}

static void ft_alloc_unpin(void *arg)
{
	struct ft_alloc_arg *a = arg;

	fwq_destroy_workqueue(a->pin);
	a->pin = NULL;
}

/*
 * Invariant: creating a workqueue (per-CPU; unbound with a rescuer) fails
 * cleanly whichever of its allocations fails, or absorbs the failure and
 * works, whether its unbound pools are created or reused, and leaves no
 * object behind after any step.
 */
static void test_alloc_fails_cleanly(struct fwq_ktap_test *t)
{
	struct ft_alloc_arg percpu = { .flags = 0 };
	struct ft_alloc_arg unbound = {
		.flags = FWQ_UNBOUND | FWQ_MEM_RECLAIM,
	};
	struct ft_call c = {
		.op = ft_alloc_op,
		.pin = ft_alloc_pin,
		.unpin = ft_alloc_unpin,
	};

	if (!ft_can_run(t))
		return;
	fwqt_variant_of(FWQT_AXES_F, t->param, &percpu.v);
	unbound.v = percpu.v;
	if (!FWQ_EXPECT(t, ft_failslab(true)))
		goto out;
	c.what = "per-CPU workqueue";
	c.arg = &percpu;
	ft_sweep(t, &c);
	c.what = "unbound workqueue with a rescuer";
	c.arg = &unbound;
	ft_sweep(t, &c);
out:
	ft_failslab(false);
}

struct ft_attrs_arg {
	struct fwq_workqueue *wq;
	struct fwq_workqueue_attrs *attrs;
	struct fwq_workqueue *pin;
	struct fwq_variant v;
};

#define FT_NICE_MOVED	5
/*
 * The scope moved to: a pool per NUMA node besides the default one, so
 * that a failure can strike a table of pwqs on several pools half built.
 * (Per CPU would be more pools of the same, each with a worker kthread
 * to create and stop at every step of the fresh pass.)
 */
#define FT_SCOPE_MOVED	FWQ_AFFN_NUMA

static int ft_attrs_apply(struct ft_attrs_arg *a, enum fwq_affn_scope scope,
			  int nice)
{
	a->attrs->affn_scope = scope;
	a->attrs->nice = nice;
	return fwq_apply_workqueue_attrs(a->wq, a->attrs);
}

/* move the workqueue to new attrs, then back; it must work throughout */
static int ft_attrs_op(struct fwq_ktap_test *t, void *arg, bool fresh)
{
	struct ft_attrs_arg *a = arg;
	int ret;

	ret = ft_attrs_apply(a, FT_SCOPE_MOVED, FT_NICE_MOVED);
	ft_works(t, a->wq);
	if (ret)
		return ret;
	/* fresh: the pools of the attrs left are gone before the way back */
	ft_fresh_point(fresh);
	ret = ft_attrs_apply(a, FWQ_AFFN_SYSTEM, 0);
	ft_works(t, a->wq);
	return ret;
}

/* a workqueue on the attrs the op moves to, kept: their pools exist */
static bool ft_attrs_pin(struct fwq_ktap_test *t, void *arg)
{
	struct ft_attrs_arg *a = arg;

	a->pin = fwqt_alloc_unbound(t, &a->v, 0, 0, FT_SCOPE_MOVED,
				    FT_NICE_MOVED);
	return a->pin;
}

static void ft_attrs_unpin(void *arg)
{
	struct ft_attrs_arg *a = arg;

	fwq_destroy_workqueue(a->pin);
	a->pin = NULL;
}

/* a failed way back leaves the workqueue on the moved attrs: undo it */
static void ft_attrs_reset(struct fwq_ktap_test *t, void *arg)
{
	FWQ_EXPECT_EQ(t, ft_attrs_apply(arg, FWQ_AFFN_SYSTEM, 0), 0);
}

/*
 * Invariant: fwq_apply_workqueue_attrs() that fails on an allocation
 * leaves the workqueue on its old attrs, working, whether the pools of
 * the new attrs (and of the old ones, on the way back) are created or
 * reused, and leaves no object behind after any step.
 */
static void test_apply_attrs_fails_cleanly(struct fwq_ktap_test *t)
{
	struct ft_attrs_arg a = {};
	struct ft_call c = {
		.what = "apply_workqueue_attrs",
		.op = ft_attrs_op,
		.pin = ft_attrs_pin,
		.unpin = ft_attrs_unpin,
		.reset = ft_attrs_reset,
		.arg = &a,
	};

	if (!ft_can_run(t))
		return;
	fwqt_variant(t, &a.v, F);
	a.wq = fwqt_alloc_unbound(t, &a.v, 0, 0, FWQ_AFFN_SYSTEM, 0);
	a.attrs = fwq_alloc_workqueue_attrs();
	if (!a.wq || !FWQ_EXPECT(t, a.attrs))
		goto out;
	a.attrs->variant = a.v;
	cpumask_copy(a.attrs->cpumask, cpu_possible_mask);
	if (!FWQ_EXPECT(t, ft_failslab(true)))
		goto out_failslab;
	ft_sweep(t, &c);
out_failslab:
	ft_failslab(false);
out:
	fwq_free_workqueue_attrs(a.attrs);
	fwqt_destroy_wq(a.wq);
}

FWQ_KTAP_SUITE(fwq_suite_faults, "fwq_faults",
	       FWQT_CASE("alloc_fails_cleanly", test_alloc_fails_cleanly, F),
	       FWQT_CASE("apply_attrs_fails_cleanly",
			 test_apply_attrs_fails_cleanly, F));
