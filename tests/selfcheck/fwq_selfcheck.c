// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_selfcheck: misbehaves on purpose, so that "make selfcheck-harness"
 * and "make selfcheck-debug" can prove the VM harness and the debug-kernel
 * lanes turn each kind of misbehaviour into a failed verdict. Never shipped
 * and never part of a normal build.
 *
 * mode=pass      print a passing KTAP document (the control case)
 * mode=ktapfail  print a KTAP document with one failing case, load fine
 * mode=warn      WARN() during module init, load fine
 * mode=stuck     hang on purpose, silently: one kthread spins with IRQs off
 *                on CPU 1, another sleeps in D state for ever on CPU 2 (the
 *                harness must name both in its diagnosis of the hung guest)
 * Debug-kernel lanes only (each is a real bug, caught by one detector):
 * mode=lockinv   take two mutexes in both orders (lockdep)
 * mode=uaf       read a kmalloc()ed object after kfree() (KASAN)
 * mode=sleep     take a mutex under a spinlock (DEBUG_ATOMIC_SLEEP)
 * mode=rawnest   take a spinlock_t under a raw_spinlock_t, a sleeping lock
 *                under a spinning one on PREEMPT_RT (PROVE_RAW_LOCK_NESTING)
 * mode=leak      lose the only pointer to a kmalloc()ed object (kmemleak)
 * mode=race      two threads increment one plain int for a while (KCSAN)
 */
#define pr_fmt(fmt) fmt

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *mode = "pass";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "pass, ktapfail, warn, stuck, lockinv, uaf, sleep, rawnest, leak or race");

static DEFINE_MUTEX(sc_lock_a);
static DEFINE_MUTEX(sc_lock_b);
static DEFINE_SPINLOCK(sc_spin);
static DEFINE_RAW_SPINLOCK(sc_raw);

/* AB then BA, in one thread: no deadlock, but lockdep sees the cycle */
static void sc_lockinv(void)
{
	mutex_lock(&sc_lock_a);
	mutex_lock(&sc_lock_b);
	mutex_unlock(&sc_lock_b);
	mutex_unlock(&sc_lock_a);

	mutex_lock(&sc_lock_b);
	mutex_lock(&sc_lock_a);
	mutex_unlock(&sc_lock_a);
	mutex_unlock(&sc_lock_b);
}

static void sc_uaf(void)
{
	int *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return;
	*p = 1;
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("fwq_selfcheck: read after free: %d\n", READ_ONCE(*p));
}

/* mutex_lock() may sleep (might_sleep()), here with a spinlock held */
static void sc_sleep(void)
{
	spin_lock(&sc_spin);
	mutex_lock(&sc_lock_a);
	mutex_unlock(&sc_lock_a);
	spin_unlock(&sc_spin);
}

static void sc_rawnest(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sc_raw, flags);
	spin_lock(&sc_spin);	/* the deliberate bug */
	spin_unlock(&sc_spin);
	raw_spin_unlock_irqrestore(&sc_raw, flags);
}

static void *sc_leaked;

static void sc_leak(void)
{
	sc_leaked = kmalloc(512, GFP_KERNEL);
	/* drop the only reference: kmemleak finds it unreferenced */
	WRITE_ONCE(sc_leaked, NULL);
}

static int sc_counter;

static int sc_race_fn(void *arg)
{
	while (!kthread_should_stop()) {
		sc_counter++;	/* the deliberate data race */
		cpu_relax();
	}
	return 0;
}

static void sc_race(void)
{
	struct task_struct *t[2];
	int i;

	for (i = 0; i < 2; i++) {
		t[i] = kthread_run(sc_race_fn, NULL, "fwq_sc_race/%d", i);
		if (IS_ERR(t[i]))
			t[i] = NULL;
		else
			get_task_struct(t[i]);
	}
	msleep(2000);
	for (i = 0; i < 2; i++) {
		if (t[i]) {
			kthread_stop(t[i]);
			put_task_struct(t[i]);
		}
	}
	pr_info("fwq_selfcheck: racy counter %d\n", sc_counter);
}

/* never completed: the D-state thread of mode=stuck waits on it for ever */
static DECLARE_COMPLETION(sc_never);

static noinline int sc_stuck_irqoff_fn(void *arg)
{
	/* let the module load finish first: it flushes every CPU's TLB */
	msleep(3000);
	local_irq_disable();
	for (;;)
		cpu_relax();
	return 0;
}

static noinline int sc_stuck_dstate_fn(void *arg)
{
	wait_for_completion(&sc_never);
	return 0;
}

/* the two threads of mode=stuck; the module cannot be unloaded after it */
static void sc_stuck(void)
{
	struct task_struct *t;

	if (num_online_cpus() < 3) {
		pr_err("fwq_selfcheck: mode=stuck needs 3 online CPUs\n");
		return;
	}
	t = kthread_create(sc_stuck_irqoff_fn, NULL, "fwq_sc_irqoff");
	if (!IS_ERR(t)) {
		kthread_bind(t, 1);
		wake_up_process(t);
	}
	t = kthread_create(sc_stuck_dstate_fn, NULL, "fwq_sc_dstate");
	if (!IS_ERR(t)) {
		kthread_bind(t, 2);
		wake_up_process(t);
	}
	__module_get(THIS_MODULE);
}

static const struct {
	const char *name;
	void (*fn)(void);
} sc_bugs[] = {
	{ "stuck", sc_stuck },
	{ "lockinv", sc_lockinv },
	{ "uaf", sc_uaf },
	{ "sleep", sc_sleep },
	{ "rawnest", sc_rawnest },
	{ "leak", sc_leak },
	{ "race", sc_race },
};

static int __init fwq_selfcheck_init(void)
{
	int i;

	if (!strcmp(mode, "warn")) {
		WARN(1, "fwq_selfcheck: deliberate WARN for the harness self-check\n");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(sc_bugs); i++) {
		if (!strcmp(mode, sc_bugs[i].name)) {
			pr_info("fwq_selfcheck: deliberate bug: %s\n", mode);
			sc_bugs[i].fn();
			return 0;
		}
	}
	if (strcmp(mode, "pass") && strcmp(mode, "ktapfail")) {
		pr_err("fwq_selfcheck: unknown mode '%s'\n", mode);
		return -EINVAL;
	}
	pr_info("KTAP version 1\n");
	pr_info("1..1\n");
	pr_info("    KTAP version 1\n");
	pr_info("    # Subtest: fwq_selfcheck\n");
	pr_info("    1..2\n");
	pr_info("    ok 1 always_passes\n");
	if (!strcmp(mode, "ktapfail")) {
		pr_info("    # deliberate failure for the harness self-check\n");
		pr_info("    not ok 2 fails_on_purpose\n");
		pr_info("not ok 1 fwq_selfcheck\n");
	} else {
		pr_info("    ok 2 fails_on_purpose # SKIP mode=pass\n");
		pr_info("ok 1 fwq_selfcheck\n");
	}
	/* Loads fine either way: the verdict must come from the KTAP. */
	return 0;
}

static void __exit fwq_selfcheck_exit(void)
{
}

module_init(fwq_selfcheck_init);
module_exit(fwq_selfcheck_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq harness self-check (deliberately failing module)");
MODULE_INFO(test, "Y");
