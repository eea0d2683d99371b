/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the fwq selftests: the variant matrix behind
 * parameterised cases, hang guards, helper kthreads, fwq.ko knobs and
 * worker counting.
 *
 * Rules every test follows:
 *  - no timed assertion: a wait with a timeout is only a hang guard
 *    (FWQT_HANG_MS, generous for TCG); hitting it is a failure with a
 *    diagnostic, never a performance verdict;
 *  - every test cleans up (gates opened, threads stopped, workqueues
 *    destroyed) even after a failed check.
 */
#ifndef _FWQ_TEST_UTIL_H
#define _FWQ_TEST_UTIL_H

#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/types.h>

#include <fwq/fwq.h>
#include "ktap.h"

/*
 * Hang guard for any single wait, in ms. TCG is slow; keep it generous.
 * Mutation runs (a deliberately broken fwq.ko) may build with a shorter one.
 */
#ifndef FWQT_HANG_MS
#define FWQT_HANG_MS		30000
#endif

/*
 * Variant axes. A case that exercises a path lists the axes that touch it
 * and runs once per combination of those axes; the other axes take the
 * fwq module parameter defaults (printed in a diagnostic line).
 */
#define FWQT_AX_WAKE		0x1
#define FWQT_AX_KICKED		0x2
#define FWQT_AX_FLUSH		0x4

/* Axis sets used by the suites; each has a param_name function below. */
#define FWQT_AXES_W		(FWQT_AX_WAKE)
#define FWQT_AXES_WK		(FWQT_AX_WAKE | FWQT_AX_KICKED)
#define FWQT_AXES_F		(FWQT_AX_FLUSH)
#define FWQT_AXES_WF		(FWQT_AX_WAKE | FWQT_AX_FLUSH)
#define FWQT_AXES_WKF		(FWQT_AX_WAKE | FWQT_AX_KICKED | FWQT_AX_FLUSH)

/* Number of combinations of each axis set. */
#define FWQT_NR_W		FWQ_WAKE_NR
#define FWQT_NR_WK		(FWQ_WAKE_NR * FWQ_KICKED_NR)
#define FWQT_NR_F		FWQ_FLUSH_NR
#define FWQT_NR_WF		(FWQ_WAKE_NR * FWQ_FLUSH_NR)
#define FWQT_NR_WKF		(FWQ_WAKE_NR * FWQ_KICKED_NR * FWQ_FLUSH_NR)

void fwqt_name_W(unsigned long p, char *buf, size_t len);
void fwqt_name_WK(unsigned long p, char *buf, size_t len);
void fwqt_name_F(unsigned long p, char *buf, size_t len);
void fwqt_name_WF(unsigned long p, char *buf, size_t len);
void fwqt_name_WKF(unsigned long p, char *buf, size_t len);

bool fwqt_wanted_W(unsigned long p);
bool fwqt_wanted_WK(unsigned long p);
bool fwqt_wanted_F(unsigned long p);
bool fwqt_wanted_WF(unsigned long p);
bool fwqt_wanted_WKF(unsigned long p);

/**
 * fwqt_set_axes - choose the axes that cases vary
 * @s: a comma-separated subset of "wake", "kicked" and "flush", or "none"
 *
 * A case runs once per combination of the axes of its set that @s names;
 * an axis @s leaves out takes the fwq module parameter default, so that a
 * case runs at least once. The default is all three.
 *
 * Return: 0, or -EINVAL for a word that is not an axis (nothing changes).
 */
int fwqt_set_axes(const char *s);
/* the FWQT_AX_* bits fwqt_set_axes() chose (the fwq_variant suite's own) */
extern unsigned int fwqt_axes;

/*
 * FWQT_CASE - a case run once per combination of the axis set @ax (one of
 * W, WK, F, WF, WKF) that fwqt_set_axes() left varying. The body reads its
 * variant with fwqt_variant(t, ax).
 */
#define FWQT_CASE(_name, _fn, ax) {					\
	.name = (_name),						\
	.run = (_fn),							\
	.nr_params = FWQT_NR_##ax,				\
	.param_name = fwqt_name_##ax,					\
	.param_wanted = fwqt_wanted_##ax,				\
}

/**
 * fwqt_variant_of - the variant of parameter @p of axis set @axes
 * @axes: FWQT_AX_* mask
 * @p: the case parameter
 * @v: filled in; axes not in @axes keep the module defaults
 */
void fwqt_variant_of(unsigned int axes, unsigned long p, struct fwq_variant *v);

/* The variant of the running case; prints it as a diagnostic. */
#define fwqt_variant(t, v, ax)	__fwqt_variant((t), (v), FWQT_AXES_##ax)
void __fwqt_variant(struct fwq_ktap_test *t, struct fwq_variant *v,
		    unsigned int axes);

/**
 * fwqt_wait - hang guard around wait_for_completion
 * @t: running test; marked failed on timeout
 * @c: completion
 * @what: printed on timeout
 *
 * Return: true if @c completed.
 */
bool fwqt_wait(struct fwq_ktap_test *t, struct completion *c, const char *what);

/**
 * fwqt_wait_atomic - hang guard: poll until *@a >= @target
 * @t: running test; marked failed on timeout
 * @a: counter
 * @target: value to reach
 * @what: printed on timeout
 */
bool fwqt_wait_atomic(struct fwq_ktap_test *t, atomic_t *a, int target,
		      const char *what);

/*
 * A helper kthread that runs @fn(@arg) once, then parks until stopped.
 * fwqt_thread_join() waits for @fn with a hang guard; if the guard trips it
 * reports, calls @unstick (which must release whatever @fn waits for) and
 * then waits without a bound, because the thread runs module code and must
 * not outlive the module.
 */
struct fwqt_thread {
	struct task_struct *task;
	struct completion done;
	void (*fn)(void *arg);
	void *arg;
};

int fwqt_thread_start(struct fwqt_thread *th, void (*fn)(void *), void *arg,
		      int cpu, const char *name);
bool fwqt_thread_join(struct fwq_ktap_test *t, struct fwqt_thread *th,
		      void (*unstick)(void *), void *unstick_arg,
		      const char *what);
/**
 * fwqt_flush_wq_fn - fwqt_thread_start() body: flush a workqueue
 * @wq: the struct fwq_workqueue to flush
 */
void fwqt_flush_wq_fn(void *wq);

/* Has @fn returned yet? (no waiting) */
static inline bool fwqt_thread_done(struct fwqt_thread *th)
{
	return completion_done(&th->done);
}

/*
 * fwq.ko module parameters, through /sys/module/fwq/parameters/<name>.
 * read returns the length read (newline stripped) or -errno; write returns
 * the byte count or -errno.
 */
int fwqt_param_read(const char *name, char *buf, size_t len);
int fwqt_param_write(const char *name, const char *val);
bool fwqt_param_exists(const char *name);

/**
 * fwqt_param_save - save a fwq.ko parameter a case is about to change
 * @t: running test; marked skipped if fwq.ko has no such parameter
 * @name: parameter name
 * @old: gets the current value, for fwqt_param_restore()
 * @len: size of @old
 * @reason: the skip reason (a string literal)
 *
 * Return: true if @old holds the value; false after skipping @t.
 */
bool fwqt_param_save(struct fwq_ktap_test *t, const char *name,
		     char *old, size_t len, const char *reason);

/*
 * fwq.ko's debug knob that makes worker creation fail, so that a case's
 * pool cannot grow and its MEM_RECLAIM items need the rescuer
 */
#define FWQT_NO_CREATE_KNOB	"fail_create_worker"

/**
 * fwqt_starve_items - begin a case that starves its pool of workers
 * @t: running test; skipped if fwq.ko has no FWQT_NO_CREATE_KNOB, failed
 *	if the items cannot be allocated
 * @old: gets the knob's value, for fwqt_param_restore()
 * @len: size of @old
 * @v: gets the case's variant (fwqt_variant(), axes W)
 * @n: how many items
 * @size: an item's size
 *
 * The case sets the knob once its workqueue is ready.
 *
 * Return: the items (zeroed; kfree() them), or NULL: skipped or failed.
 */
void *fwqt_starve_items(struct fwq_ktap_test *t, char *old, size_t len,
			struct fwq_variant *v, size_t n, size_t size);

/**
 * fwqt_param_restore - write back a fwq.ko parameter a case changed
 * @name: parameter name
 * @old: the value to write, as saved before the case changed it
 *
 * Runs on cleanup paths, after the checks: a failure is logged, not
 * counted against the case.
 */
void fwqt_param_restore(const char *name, const char *old);

/* Generic file helpers (debugfs, sysfs) from kernel space. */
ssize_t fwqt_file_read(const char *path, char *buf, size_t len);
ssize_t fwqt_file_write(const char *path, const char *val, size_t len);

/* any nice level, for fwqt_count_workers() */
#define FWQT_ANY_NICE	INT_MIN

/**
 * fwqt_count_workers - count live fwq worker kthreads with a nice level
 * @prefix: comm prefix, e.g. "fwq/u" (unbound workers) or "fwq/R-"
 * @nice: nice level, or FWQT_ANY_NICE; tests give their pools a nice level
 *	no other pool has
 *
 * Return: the number of matching tasks that are not exiting.
 */
int fwqt_count_workers(const char *prefix, int nice);

/* Is current an fwq rescuer thread ("fwq/R-<wq>")? */
bool fwqt_current_is_rescuer(void);

/* a line of fwq's debugfs debug_counters by name, or -1 */
long long fwqt_debug_counter(const char *name);

/*
 * The live objects a leak check compares (debugfs "objects"): workqueues,
 * pwqs, unbound pools and rescuers, in fwqt_obj_names[] order. Workers
 * vary with load and are not compared.
 */
#define FWQT_NR_OBJ	4
extern const char * const fwqt_obj_names[FWQT_NR_OBJ];

/* read the counts into @v; false if the file cannot be read or parsed */
bool fwqt_objects(long long *v);

/*
 * The counts with nothing in transit: every pwq release queued has run
 * (fwqt_release_hold(false)) and every object it freed is gone
 * (rcu_barrier()). A baseline to compare with fwqt_objects_settle().
 */
bool fwqt_objects_quiet(long long *v);

/*
 * Poll the counts into @now until they equal @want (releases are deferred
 * to a kthread_worker and RCU), with a hang guard. Return: equal.
 */
bool fwqt_objects_settle(long long *now, const long long *want);

/*
 * A failed leak check's evidence: every object alive, with who holds
 * each pwq's references (debugfs "object_list"), as diagnostics.
 */
void fwqt_objects_dump(void);

/*
 * fwq.ko's pwq release kthread held (dbg_release_hold=1) or let go (0,
 * which also waits for every queued release: an unbound pool whose last
 * pwq went is destroyed on return, and freed, with the pwqs, a grace
 * period later, which fwqt_objects_settle() waits for). Return: written.
 */
bool fwqt_release_hold(bool hold);

/*
 * A work item that counts its runs and completes @done each time it
 * runs; tests reinit_completion() it between runs.
 */
struct fwqt_done_item {
	struct fwq_work work;
	atomic_t runs;
	struct completion done;
};

/* its function: counts the run, then completes @done */
void fwqt_done_item_fn(struct fwq_work *work);

/* the count at 0 and @done not done, for an item initialised elsewhere */
static inline void fwqt_done_item_reset(struct fwqt_done_item *it)
{
	atomic_set(&it->runs, 0);
	init_completion(&it->done);
}

/**
 * fwqt_done_item_init - initialise a fwqt_done_item
 * @it: the item; its function is fwqt_done_item_fn()
 */
void fwqt_done_item_init(struct fwqt_done_item *it);

/* The same, delayed: the test initialises @dw (on the stack, deferrable) */
struct fwqt_done_ditem {
	struct fwq_delayed_work dw;
	atomic_t runs;
	struct completion done;
};

/* its function: counts the run, then completes @done */
void fwqt_done_ditem_fn(struct fwq_work *work);

static inline void fwqt_done_ditem_reset(struct fwqt_done_ditem *d)
{
	atomic_set(&d->runs, 0);
	init_completion(&d->done);
}

/*
 * A blocker: a work item that records that it started, then sleeps until the
 * test opens its gate. Tests always open the gate on their cleanup path.
 */
struct fwqt_blocker {
	struct fwq_work work;
	struct completion gate;
	struct completion started;
	atomic_t runs;		/* started */
	atomic_t done;		/* returned */
	int cpu;
};

void fwqt_blocker_init(struct fwqt_blocker *b);
void fwqt_blocker_fn(struct fwq_work *work);

static inline void fwqt_blocker_open(struct fwqt_blocker *b)
{
	complete_all(&b->gate);
}

/* a blocker with its gate open: an item that runs through, counted */
static inline void fwqt_blocker_init_open(struct fwqt_blocker *b)
{
	fwqt_blocker_init(b);
	fwqt_blocker_open(b);
}

/*
 * A hopper: a work item that requeues itself from its own function to a
 * random online CPU, until the test sets @stop. Each run spins (stays a
 * running item, never asleep) for @spin_us before the requeue and for
 * @spin_after_us after it, and counts itself in @runs and, while it runs,
 * in @running.
 */
struct fwqt_hopper {
	struct fwq_work work;
	struct fwq_workqueue *wq;
	unsigned int spin_us;
	unsigned int spin_after_us;
	unsigned int requeue_pct;	/* chance of a requeue per run, in % */
	atomic_t runs;
	atomic_t running;
	atomic_t max_running;		/* high-water mark of @running */
	atomic_t requeued;		/* requeues that queued the item */
	atomic_t requeue_failed;	/* requeues that did not */
	bool stop;			/* no more requeues (WRITE_ONCE) */
};

/**
 * fwqt_hopper_init - initialise a fwqt_hopper
 * @h: the hopper; its counters start at zero
 * @wq: the workqueue it requeues itself to
 * @spin_us: how long each run spins before the requeue
 * @spin_after_us: how long it spins after the requeue
 * @requeue_pct: the chance, in percent, that a run requeues (100: every run)
 */
void fwqt_hopper_init(struct fwqt_hopper *h, struct fwq_workqueue *wq,
		      unsigned int spin_us, unsigned int spin_after_us,
		      unsigned int requeue_pct);

/*
 * A blocking call on one work item (fwq_flush_work, fwq_cancel_work_sync)
 * made from a helper thread while the fwqt_blocker @gate holds the item up,
 * so that the test can check the call keeps waiting and then let it go.
 */
struct fwqt_call {
	struct fwqt_thread th;
	bool (*fn)(struct fwq_work *work);
	struct fwq_work *work;
	struct fwqt_blocker *gate;
	atomic_t entered;	/* the thread is about to call fn */
	bool ret;		/* what fn returned */
};

/**
 * fwqt_call_start - call @fn(@work) in a helper thread
 * @t: running test; marked failed if the thread cannot be created
 * @c: the call
 * @fn: the blocking call
 * @work: its argument
 * @gate: the blocker that holds @work up; opened if the start fails
 * @name: thread name
 *
 * Return: 0, or -errno after failing @t and opening @gate.
 */
int fwqt_call_start(struct fwq_ktap_test *t, struct fwqt_call *c,
		    bool (*fn)(struct fwq_work *), struct fwq_work *work,
		    struct fwqt_blocker *gate, const char *name);

/**
 * fwqt_call_finish - open the gate and wait for the call to return
 * @t: running test
 * @c: a started call
 * @what: printed if the hang guard trips (which opens the gate again)
 *
 * Return: as fwqt_thread_join(); the call's result is in @c->ret.
 */
bool fwqt_call_finish(struct fwq_ktap_test *t, struct fwqt_call *c,
		      const char *what);

/*
 * fwqt_alloc_wq - allocate a workqueue of a variant; fails the test on NULL
 * @t: running test
 * @v: variant
 * @flags: FWQ_* flags
 * @max_active: as fwq_alloc_workqueue_variant()
 */
static inline struct fwq_workqueue *
fwqt_alloc_wq(struct fwq_ktap_test *t, const struct fwq_variant *v,
	      unsigned int flags, int max_active)
{
	struct fwq_workqueue *wq;

	wq = fwq_alloc_workqueue_variant(v, "fwqt-%s", flags, max_active,
					 t->name);
	if (!FWQ_EXPECT(t, wq))
		fwq_ktap_diag("%s: fwq_alloc_workqueue_variant(flags %#x, max_active %d) failed",
			      t->name, flags, max_active);
	return wq;
}

/* for a case's cleanup, where a workqueue may not have been allocated */
static inline void fwqt_destroy_wq(struct fwq_workqueue *wq)
{
	if (wq)
		fwq_destroy_workqueue(wq);
}

/**
 * fwqt_case_wq - allocate a workqueue of the running case's variant
 * @t: running test; failed if the allocation fails
 * @ax: the case's axis set (W, WK, F, WF, WKF); the variant is printed as
 *	a diagnostic, as fwqt_variant() does
 * @flags: FWQ_* flags
 * @max_active: as fwq_alloc_workqueue_variant()
 *
 * For cases that need the variant only to allocate their one workqueue.
 *
 * Return: the workqueue, or NULL.
 */
#define fwqt_case_wq(t, ax, flags, max_active)				\
	__fwqt_case_wq((t), FWQT_AXES_##ax, (flags), (max_active))
struct fwq_workqueue *__fwqt_case_wq(struct fwq_ktap_test *t,
				     unsigned int axes, unsigned int flags,
				     int max_active);

/**
 * fwqt_case_wq_obj - allocate a case's zeroed object and its workqueue
 * @t: running test; failed if an allocation fails
 * @ax: as fwqt_case_wq()
 * @flags: as fwqt_case_wq()
 * @max_active: as fwqt_case_wq()
 * @size: the object's size (kzalloc())
 * @wqp: set to the workqueue (fwqt_case_wq())
 *
 * For cases whose items live in one object off the stack (a timer or an
 * RCU head in it would be an unannotated stack object). Both or neither:
 * the case destroys *@wqp, then kfree()s the object.
 *
 * Return: the object, or NULL with nothing allocated.
 */
#define fwqt_case_wq_obj(t, ax, flags, max_active, size, wqp)		\
	__fwqt_case_wq_obj((t), FWQT_AXES_##ax, (flags), (max_active),	\
			   (size), (wqp))
void *__fwqt_case_wq_obj(struct fwq_ktap_test *t, unsigned int axes,
			 unsigned int flags, int max_active, size_t size,
			 struct fwq_workqueue **wqp);

/**
 * fwqt_alloc_unbound_mask - an unbound workqueue of a variant with attrs
 * @t: running test; failed if the workqueue or its attrs cannot be had
 * @v: variant
 * @flags: FWQ_* flags besides FWQ_UNBOUND
 * @max_active: as fwq_alloc_workqueue_variant()
 * @mask: the workqueue's cpumask
 * @scope: its affinity scope
 * @strict: its affn_strict
 * @nice: its nice level
 *
 * Return: the workqueue, or NULL (nothing left allocated).
 */
struct fwq_workqueue *
fwqt_alloc_unbound_mask(struct fwq_ktap_test *t, const struct fwq_variant *v,
			unsigned int flags, int max_active,
			const struct cpumask *mask, enum fwq_affn_scope scope,
			bool strict, int nice);

/*
 * fwqt_alloc_unbound - an unbound workqueue with a given scope and nice
 * level, on all possible CPUs, not strict. A nice level no other test uses
 * gives the workqueue pools of its own, so that the test can count their
 * workers.
 */
static inline struct fwq_workqueue *
fwqt_alloc_unbound(struct fwq_ktap_test *t, const struct fwq_variant *v,
		   unsigned int flags, int max_active,
		   enum fwq_affn_scope scope, int nice)
{
	return fwqt_alloc_unbound_mask(t, v, flags, max_active,
				       cpu_possible_mask, scope, false, nice);
}

/**
 * fwqt_run_on - run a case body on a new workqueue of a variant
 * @t: running test
 * @v: variant
 * @flags: FWQ_* flags
 * @max_active: as fwq_alloc_workqueue_variant()
 * @body: called with the workqueue and @kind, which is destroyed
 *	afterwards; a workqueue that cannot be allocated fails @t and @body
 *	is not called
 * @kind: what @body gets as its kind, e.g. "percpu"
 */
void fwqt_run_on(struct fwq_ktap_test *t, const struct fwq_variant *v,
		 unsigned int flags, int max_active,
		 void (*body)(struct fwq_ktap_test *t, struct fwq_workqueue *wq,
			      const char *kind),
		 const char *kind);

/**
 * fwqt_run_percpu_unbound - run a case body on two workqueues of a variant
 * @t: running test
 * @v: variant
 * @scope: affinity scope of the unbound workqueue; FWQ_AFFN_DFL allocates
 *	it plainly (the module default scope, no attrs applied), any other
 *	scope as fwqt_alloc_unbound() with nice 0
 * @body: called with a per-CPU workqueue ("percpu"), then with the unbound
 *	one ("unbound" or "unbound,scope=<name>"), each with max_active 0 and
 *	destroyed afterwards; a workqueue that cannot be allocated fails @t
 *	and is skipped
 */
void fwqt_run_percpu_unbound(struct fwq_ktap_test *t,
			     const struct fwq_variant *v,
			     enum fwq_affn_scope scope,
			     void (*body)(struct fwq_ktap_test *t,
					  struct fwq_workqueue *wq,
					  const char *kind));

/**
 * fwqt_kind_is_percpu - is a fwqt_run_percpu_unbound() body on the per-CPU
 *	workqueue?
 * @kind: the kind the body was called with
 *
 * For bodies that pick a CPU per item on a per-CPU workqueue and
 * FWQ_CPU_UNBOUND on an unbound one.
 *
 * Return: true for "percpu", false for the unbound kinds.
 */
static inline bool fwqt_kind_is_percpu(const char *kind)
{
	return !strcmp(kind, "percpu");
}

/**
 * fwqt_case_percpu_unbound - fwqt_run_percpu_unbound() on the variant of
 *	the running case
 * @t: running test
 * @ax: the case's axis set (W, WK, F, WF, WKF); the variant is printed as
 *	a diagnostic, as fwqt_variant() does
 * @scope: as fwqt_run_percpu_unbound()
 * @body: as fwqt_run_percpu_unbound()
 */
#define fwqt_case_percpu_unbound(t, ax, scope, body)			\
	__fwqt_case_percpu_unbound((t), FWQT_AXES_##ax, (scope), (body))
void __fwqt_case_percpu_unbound(struct fwq_ktap_test *t, unsigned int axes,
				enum fwq_affn_scope scope,
				void (*body)(struct fwq_ktap_test *t,
					     struct fwq_workqueue *wq,
					     const char *kind));

/*
 * Has @c completed within @ms? Used only to show that something which must
 * not happen yet (a flush or cancel returning early) did not: a correct
 * engine never completes @c here, however slow the machine.
 */
static inline bool fwqt_done_within(struct completion *c, unsigned int ms)
{
	return wait_for_completion_timeout(c, msecs_to_jiffies(ms)) != 0;
}

/* Keep the CPU busy for @us without sleeping (stay a running item). */
static inline void fwqt_spin_us(unsigned int us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

/**
 * fwqt_busy_until - stay running, never asleep, until *@flag is set
 * @flag: set by the test with smp_store_release()
 * @end: hang guard: give up at this jiffies value
 *
 * For a work item that must stay counted in nr_running: cond_resched()
 * lets the test thread run if it shares the CPU, and a preemption is not
 * a sleep.
 */
static inline void fwqt_busy_until(const bool *flag, unsigned long end)
{
	/* pairs with the test's smp_store_release(): see what it published */
	while (!smp_load_acquire(flag) && time_before(jiffies, end))
		cond_resched();
}

/* Raise *@max to @val if it is lower (concurrency high-water marks). */
static inline void fwqt_atomic_max(atomic_t *max, int val)
{
	int old = atomic_read(max);

	while (val > old) {
		int prev = atomic_cmpxchg(max, old, val);

		if (prev == old)
			break;
		old = prev;
	}
}

/* A random CPU among the online ones. */
int fwqt_random_online_cpu(void);

#endif /* _FWQ_TEST_UTIL_H */
