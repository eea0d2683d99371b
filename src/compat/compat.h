/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq compat layer: the one place where kernel-version differences live.
 *
 * Kbuild.include force-includes this header into every fwq object
 * and passes the probes of src/compat/probe.sh as -DFWQ_HAVE_<NAME>. fwq's
 * code is written against the newest interface; where a probe says the
 * target kernel lacks it, this header maps it onto the older one. The
 * mappings are fwq_-prefixed macros, expanded where they are used, so this
 * header includes nothing that could define pr_fmt() before the file that
 * includes it does. Add a difference here as a probe plus a mapping, never
 * as a version test in the code.
 *
 * The supported series are enforced here too: probe.sh compares kbuild's
 * VERSION.PATCHLEVEL with them and says FWQ_KERNEL_TOO_OLD or
 * FWQ_KERNEL_UNTESTED.
 */
#ifndef _FWQ_COMPAT_H
#define _FWQ_COMPAT_H

#ifdef FWQ_KERNEL_TOO_OLD
#error "fwq: this kernel is older than the oldest series fwq supports"
#error "fwq: Supported kernels: Linux 6.1, 6.12 and 7.3, x86_64 (scripts/kernels/)."
#endif
#if defined(FWQ_KERNEL_UNTESTED) && !defined(FWQ_UNTESTED_KERNEL)
#error "fwq: an untested kernel series; FWQ_UNTESTED_KERNEL=y builds it anyway"
#error "fwq: Supported kernels: Linux 6.1, 6.12 and 7.3, x86_64 (scripts/kernels/)."
#endif

/*
 * timer_delete() and timer_delete_sync(): 6.2, and 6.1.y stable; 6.15
 * removes del_timer() and del_timer_sync().
 */
#ifdef FWQ_HAVE_TIMER_DELETE_SYNC
#define fwq_timer_delete(timer)		timer_delete(timer)
#define fwq_timer_delete_sync(timer)	timer_delete_sync(timer)
#else
#define fwq_timer_delete(timer)		del_timer(timer)
#define fwq_timer_delete_sync(timer)	del_timer_sync(timer)
#endif

/*
 * timer_destroy_on_stack(): after 6.12, the new name of
 * destroy_timer_on_stack(), which 7.3 no longer has
 */
#ifdef FWQ_HAVE_TIMER_DESTROY_ON_STACK
#define fwq_timer_destroy_on_stack(timer)	timer_destroy_on_stack(timer)
#else
#define fwq_timer_destroy_on_stack(timer)	destroy_timer_on_stack(timer)
#endif

/* call_rcu_hurry(): 6.2; before it, no callback was lazy */
#ifdef FWQ_HAVE_CALL_RCU_HURRY
#define fwq_call_rcu_hurry(head, func)	call_rcu_hurry(head, func)
#else
#define fwq_call_rcu_hurry(head, func)	call_rcu(head, func)
#endif

/* timer_container_of(): 6.16, which removes from_timer() */
#ifdef FWQ_HAVE_TIMER_CONTAINER_OF
#define fwq_timer_container_of(var, timer, field)	\
	timer_container_of(var, timer, field)
#else
#define fwq_timer_container_of(var, timer, field)	\
	from_timer(var, timer, field)
#endif

/*
 * kthread_run_worker(): 6.13, where kthread_create_worker() stops starting
 * the worker's thread. Before, kthread_create_worker() starts it.
 */
#ifdef FWQ_HAVE_KTHREAD_RUN_WORKER
#define fwq_kthread_run_worker(flags, namefmt, ...)	\
	kthread_run_worker(flags, namefmt, ##__VA_ARGS__)
#else
#define fwq_kthread_run_worker(flags, namefmt, ...)	\
	kthread_create_worker(flags, namefmt, ##__VA_ARGS__)
#endif

/*
 * DEFINE_SHOW_STORE_ATTRIBUTE(): not in 6.1. FWQ_DEFINE_SHOW_STORE_ATTRIBUTE(x)
 * wants x_show() and x_write() and defines x_open() and x_fops: a
 * single_open() file whose seq_file private is the inode's i_private.
 */
#ifdef FWQ_HAVE_SHOW_STORE_ATTRIBUTE
#define FWQ_DEFINE_SHOW_STORE_ATTRIBUTE(x)	DEFINE_SHOW_STORE_ATTRIBUTE(x)
#else
#define FWQ_DEFINE_SHOW_STORE_ATTRIBUTE(x)				\
static int x##_open(struct inode *inode, struct file *file)		\
{									\
	return single_open(file, x##_show, inode->i_private);		\
}									\
static const struct file_operations x##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = x##_open,						\
	.read = seq_read,						\
	.write = x##_write,						\
	.llseek = seq_lseek,						\
	.release = single_release,					\
}
#endif

/*
 * hrtimer_setup(): 6.13. hrtimer_init() is gone by 7.3, whose
 * hrtimer.function is __private: only hrtimer_setup() sets it.
 */
#ifdef FWQ_HAVE_HRTIMER_SETUP
#define fwq_hrtimer_setup(timer, fn, clock, mode)	\
	hrtimer_setup(timer, fn, clock, mode)
#else
#define fwq_hrtimer_setup(timer, fn, clock, mode)	\
	do {						\
		struct hrtimer *__fwq_t = (timer);	\
							\
		hrtimer_init(__fwq_t, clock, mode);	\
		__fwq_t->function = (fn);		\
	} while (0)
#endif

/*
 * WQ_PERCPU: 6.17, an enum constant. From then on a kernel workqueue says
 * whether it is per-CPU or unbound, and 7.3 WARNs at alloc_workqueue()
 * when it says neither. Before, per-CPU is what no WQ_UNBOUND means.
 */
#ifdef FWQ_HAVE_WQ_PERCPU
#define FWQ_WQ_PERCPU	WQ_PERCPU
#else
#define FWQ_WQ_PERCPU	0
#endif

/*
 * The kernel's system_percpu_wq and system_dfl_wq (fwq's own are
 * fwq_system_*): 6.17, the new names of system_wq and
 * system_unbound_wq, which 7.3 deprecates with a warning.
 */
#ifdef FWQ_HAVE_SYSTEM_PERCPU_WQ
#define fwq_kernel_percpu_wq	system_percpu_wq
#else
#define fwq_kernel_percpu_wq	system_wq
#endif
#ifdef FWQ_HAVE_SYSTEM_DFL_WQ
#define fwq_kernel_dfl_wq	system_dfl_wq
#else
#define fwq_kernel_dfl_wq	system_unbound_wq
#endif

/*
 * The LLC of a possible CPU that has never been online, as
 * cpus_share_cache() sees it (src/topology.c). Up to 6.12 the scheduler
 * leaves that CPU's sd_llc_id at its initial 0, CPU 0's LLC; 7.3 starts
 * every sd_llc_id at -1 and hands out ids only to CPUs it attaches a
 * domain to, so the never-online CPUs share an LLC of their own.
 */
#ifdef FWQ_HAVE_SCHED_LLC_ID_ALLOC
#define FWQ_ABSENT_CPUS_OWN_LLC		1
#else
#define FWQ_ABSENT_CPUS_OWN_LLC		0
#endif

/*
 * Preempt notifiers carry per-CPU concurrency management (src/cm.c). A
 * kernel built without CONFIG_PREEMPT_NOTIFIERS (KVM selects it, so most
 * distribution kernels have it) gets cm_mode=off, with one log line at
 * load. FWQ_COMPAT_FALLBACK=y builds that fallback on any kernel.
 */
#if defined(CONFIG_PREEMPT_NOTIFIERS) && !defined(FWQ_COMPAT_FALLBACK)
#define FWQ_HAVE_PREEMPT_NOTIFIERS	1
#else
#define FWQ_HAVE_PREEMPT_NOTIFIERS	0
#endif

#endif /* _FWQ_COMPAT_H */
