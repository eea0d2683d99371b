// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's flush-mutex wait, for kwq's S4b, S5 and S6 runs: the time
 * from a flush_workqueue() call to __flush_workqueue() holding wq->mutex,
 * what fwq's engine counts for fwq_flush_workqueue() (<fwq/stats.h>,
 * fwq_flush_waits_read()).
 *
 * A module cannot instrument the kernel's flush but through a kprobe. At
 * load, fwq_bench looks in the first KWQ_WAIT_SCAN bytes of
 * __flush_workqueue() (exported) for a direct call to mutex_lock()
 * (exported too), the first one being the flush's own: "call rel32" whose
 * target is mutex_lock(), or a call thunk in the padding just before it
 * (call depth tracking patches call sites so). The instruction after that
 * call is where the flusher holds the mutex; kprobes refuse an address
 * that is not an instruction's (-EILSEQ). The probe is registered for the
 * timed pass of a kwq run of S4b, S5 or S6 only, so that no other run
 * pays for it. Each flush of the run's threads reads the clock just
 * before flush_workqueue() (bench_flush_timed()), as fwq's engine does on
 * entry, and the probe's handler reads it again. Where the call is not
 * found or the probe is refused, kwq's fields are null and
 * flush_mutex_wait_why says why.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "bench.h"

#define KWQ_WAIT_SCAN		512
/* a call thunk sits in the function's padding, at most this far before */
#define KWQ_WAIT_THUNK		64

static unsigned int kwq_wait_off;	/* 0: no probe site */
static const char *kwq_wait_why = "not looked for";

/* the run whose flushes the probe times; bench_mutex */
static struct bench_run *kwq_wait_run;
/* its waits, as fwq's engine counts them (atomics: two CPUs at once) */
static atomic64_t kwq_wait_n, kwq_wait_ns;
static atomic64_t kwq_wait_hist[FWQ_FLUSH_WAIT_BUCKETS];

/* the scenarios that report the flush-mutex wait (flush_wait=1 times it) */
bool bench_flush_wait_scenario(const struct bench_spec *s)
{
	return s->scenario == BS_S4B || s->scenario == BS_S5 ||
	       s->scenario == BS_S6;
}

/* Find the instruction after __flush_workqueue()'s call to mutex_lock(). */
void bench_kwq_wait_init(void)
{
	const u8 *fn = (const u8 *)__flush_workqueue;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	/* mutex_lock() is a macro there, calling mutex_lock_nested() */
	unsigned long to, lock = (unsigned long)mutex_lock_nested;
#else
	unsigned long to, lock = (unsigned long)mutex_lock;
#endif
	u8 *buf;
	unsigned int i;
	s32 rel;

	buf = kmalloc(KWQ_WAIT_SCAN, GFP_KERNEL);
	if (!buf) {
		kwq_wait_why = "out of memory";
		return;
	}
	if (copy_from_kernel_nofault(buf, fn, KWQ_WAIT_SCAN)) {
		kwq_wait_why = "__flush_workqueue() unreadable";
		goto out;
	}
	kwq_wait_why = "no call to mutex_lock() in __flush_workqueue()";
	for (i = 0; i + 5 <= KWQ_WAIT_SCAN; i++) {
		if (buf[i] != 0xe8)
			continue;
		memcpy(&rel, buf + i + 1, sizeof(rel));	/* x86: little endian */
		to = (unsigned long)fn + i + 5 + (long)rel;
		if (to <= lock && lock - to <= KWQ_WAIT_THUNK) {
			kwq_wait_off = i + 5;
			kwq_wait_why = NULL;
			break;
		}
	}
out:
	kfree(buf);
}

static int kwq_wait_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct bench_run *run = READ_ONCE(kwq_wait_run);
	u64 now = ktime_get_ns(), ns;
	unsigned int i;

	if (!run)
		return 0;
	for (i = 0; i < run->nthr; i++) {
		struct bench_thread *t = &run->thr[i];

		if (t->task != current || !t->flush_t0)
			continue;
		ns = now - t->flush_t0;
		t->flush_t0 = 0;
		atomic64_inc(&kwq_wait_n);
		atomic64_add(ns, &kwq_wait_ns);
		atomic64_inc(&kwq_wait_hist[fwq_flush_wait_bucket(ns)]);
		break;
	}
	return 0;
}

static struct kprobe kwq_wait_kp = {
	.symbol_name = "__flush_workqueue",
	.pre_handler = kwq_wait_pre,
};

/**
 * bench_kwq_wait_begin() - time kwq's flush-mutex waits in @run
 * @run: a kwq run of a flush_wait scenario, its threads set up
 *
 * Context: bench_mutex held. Return: 0, also when the waits cannot be
 * timed (@run->fw_why says why); -ENOMEM.
 */
int bench_kwq_wait_begin(struct bench_run *run)
{
	unsigned int b;
	int ret;

	if (!kwq_wait_off) {
		run->fw_why = kwq_wait_why;
		return 0;
	}
	run->fw1 = kzalloc(sizeof(*run->fw1), GFP_KERNEL);
	if (!run->fw1)
		return -ENOMEM;
	atomic64_set(&kwq_wait_n, 0);
	atomic64_set(&kwq_wait_ns, 0);
	for (b = 0; b < FWQ_FLUSH_WAIT_BUCKETS; b++)
		atomic64_set(&kwq_wait_hist[b], 0);
	WRITE_ONCE(kwq_wait_run, run);
	kwq_wait_kp.addr = NULL;
	kwq_wait_kp.flags = 0;
	kwq_wait_kp.offset = kwq_wait_off;
	ret = register_kprobe(&kwq_wait_kp);
	if (ret) {
		WRITE_ONCE(kwq_wait_run, NULL);
		kfree(run->fw1);
		run->fw1 = NULL;
		run->fw_why = "the kprobe after __flush_workqueue()'s mutex_lock() was refused";
		pr_info("kprobe at __flush_workqueue+%#x: %d\n", kwq_wait_off,
			ret);
		return 0;
	}
	run->kwq_wait = true;
	return 0;
}

/* The probe off again, and @run's waits into @run->fw1. */
void bench_kwq_wait_end(struct bench_run *run)
{
	unsigned int b;

	if (!run->kwq_wait)
		return;
	unregister_kprobe(&kwq_wait_kp);	/* waits for running handlers */
	WRITE_ONCE(kwq_wait_run, NULL);
	run->kwq_wait = false;
	run->fw1->flushes = atomic64_read(&kwq_wait_n);
	run->fw1->wait_ns = atomic64_read(&kwq_wait_ns);
	for (b = 0; b < FWQ_FLUSH_WAIT_BUCKETS; b++)
		run->fw1->hist[b] = atomic64_read(&kwq_wait_hist[b]);
}
