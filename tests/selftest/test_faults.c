// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures, one at a time (kernels with CONFIG_FAULT_INJECTION
 * and CONFIG_FAILSLAB only: the lockdep lane's). With the task's fail-nth
 * set to N, the Nth slab allocation the test thread makes fails; N runs
 * from 1 until a call completes without reaching it, so every allocation
 * that creating or reconfiguring a workqueue makes in the caller's context
 * fails once. Each failing call must fail cleanly: an error or a NULL
 * workqueue, and nothing left behind (fwq_sanity checks the object counts
 * at the end of the run, kmemleak the memory); a call that absorbs the
 * failure must leave a workqueue that works.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

#define FT_FAILSLAB	"/sys/kernel/debug/failslab/"
#define FT_MAX_N	2000	/* more allocations than any call makes */

/* failslab: fail sleeping allocations too, quietly; or back to defaults */
static bool ft_failslab(bool on)
{
	const char *gfp = on ? "N" : "Y", *verbose = on ? "0" : "2";

	return fwqt_file_write(FT_FAILSLAB "ignore-gfp-wait", gfp, 1) > 0 &&
	       fwqt_file_write(FT_FAILSLAB "verbose", verbose, 1) > 0;
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

/*
 * Run @op with the Nth allocation failing, N = 1, 2, ... until @op makes
 * fewer than N allocations. @op returns 0 or a negative errno.
 */
static void ft_sweep(struct fwq_ktap_test *t, const char *what,
		     int (*op)(struct fwq_ktap_test *t, void *arg), void *arg)
{
	int n, refused = 0, absorbed = 0;
	bool done = false;

	for (n = 1; n <= FT_MAX_N && !t->failed; n++) {
		unsigned int left;
		int ret;

#ifdef CONFIG_FAULT_INJECTION
		WRITE_ONCE(current->fail_nth, n);
		ret = op(t, arg);
		left = READ_ONCE(current->fail_nth);
		WRITE_ONCE(current->fail_nth, 0);
#else
		ret = op(t, arg);
		left = 1;
#endif
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
	fwq_ktap_diag("%s: %d allocations failed in turn: %d calls failed, %d absorbed it",
		      what, n - 1, refused, absorbed);
	FWQ_EXPECT(t, done);
}

/* allocate a workqueue of the case's flush variant, use it, destroy it */
static int ft_alloc_op(struct fwq_ktap_test *t, void *arg)
{
	const unsigned int *flags = arg;
	struct fwq_workqueue *wq;
	struct fwq_variant v;

	fwqt_variant_of(FWQT_AXES_F, t->param, &v);
	wq = fwq_alloc_workqueue_variant(&v, "fwqt-ft", *flags, 0);
	if (!wq)
		return -ENOMEM;
	ft_works(t, wq);
	fwq_destroy_workqueue(wq);
	return 0;
}

/*
 * Invariant: creating a workqueue (per-CPU; unbound with a rescuer) fails
 * cleanly whichever of its allocations fails, or absorbs the failure and
 * works.
 */
static void test_alloc_fails_cleanly(struct fwq_ktap_test *t)
{
	unsigned int percpu = 0, unbound = FWQ_UNBOUND | FWQ_MEM_RECLAIM;

	if (!IS_ENABLED(CONFIG_FAILSLAB)) {
		FWQ_KTAP_SKIP(t, "needs CONFIG_FAILSLAB");
		return;
	}
	if (!FWQ_EXPECT(t, ft_failslab(true)))
		goto out;
	ft_sweep(t, "per-CPU workqueue", ft_alloc_op, &percpu);
	ft_sweep(t, "unbound workqueue with a rescuer", ft_alloc_op, &unbound);
out:
	ft_failslab(false);
}

struct ft_attrs_arg {
	struct fwq_workqueue *wq;
	struct fwq_workqueue_attrs *attrs;
};

/* move the workqueue to new attrs, then back; it must work throughout */
static int ft_attrs_op(struct fwq_ktap_test *t, void *arg)
{
	struct ft_attrs_arg *a = arg;
	int ret;

	a->attrs->affn_scope = FWQ_AFFN_CPU;
	a->attrs->nice = 5;
	ret = fwq_apply_workqueue_attrs(a->wq, a->attrs);
	ft_works(t, a->wq);
	if (ret)
		return ret;
	a->attrs->affn_scope = FWQ_AFFN_SYSTEM;
	a->attrs->nice = 0;
	ret = fwq_apply_workqueue_attrs(a->wq, a->attrs);
	ft_works(t, a->wq);
	return ret;
}

/*
 * Invariant: fwq_apply_workqueue_attrs() that fails on an allocation
 * leaves the workqueue on its old attrs, working.
 */
static void test_apply_attrs_fails_cleanly(struct fwq_ktap_test *t)
{
	struct ft_attrs_arg a = {};
	struct fwq_variant v;

	if (!IS_ENABLED(CONFIG_FAILSLAB)) {
		FWQ_KTAP_SKIP(t, "needs CONFIG_FAILSLAB");
		return;
	}
	fwqt_variant(t, &v, F);
	a.wq = fwqt_alloc_unbound(t, &v, 0, 0, FWQ_AFFN_SYSTEM, 0);
	a.attrs = fwq_alloc_workqueue_attrs();
	if (!a.wq || !FWQ_EXPECT(t, a.attrs))
		goto out;
	a.attrs->variant = v;
	cpumask_copy(a.attrs->cpumask, cpu_possible_mask);
	if (!FWQ_EXPECT(t, ft_failslab(true)))
		goto out_failslab;
	ft_sweep(t, "apply_workqueue_attrs", ft_attrs_op, &a);
out_failslab:
	ft_failslab(false);
out:
	fwq_free_workqueue_attrs(a.attrs);
	if (a.wq)
		fwq_destroy_workqueue(a.wq);
}

FWQ_KTAP_SUITE(fwq_suite_faults, "fwq_faults",
	       FWQT_CASE("alloc_fails_cleanly", test_alloc_fails_cleanly, F),
	       FWQT_CASE("apply_attrs_fails_cleanly",
			 test_apply_attrs_fails_cleanly, F));
