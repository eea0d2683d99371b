/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq shim: run an existing module's workqueues on fwq, unchanged.
 *
 * A module's Kbuild force-includes this header into every object it
 * builds, with one line (docs/shim.md):
 *
 *   ccflags-y += -I$(FWQ_TOP)/include -I$(OUT_DIR) -include fwq/shim.h
 *
 * where OUT_DIR holds the fwq_shim_core.h that scripts/shim-gen.sh wrote
 * for the module: every core kernel header the module's sources include.
 * Those come first, so that their inline code (rhashtable's deferred
 * resize, for one) is parsed before any rename below and keeps the
 * kernel's workqueue. Then the kernel's workqueue API is renamed to fwq's
 * for the rest of the file, which is the module's own code:
 *
 * - the types (struct work_struct -> struct fwq_work, ...): a core
 *   object handed to fwq, or a module object handed to a core function
 *   that wants a kernel work item, has the other type and fails to
 *   compile (incompatible pointer types, an error here);
 * - the calls and initializers with the same meaning in fwq;
 * - the kernel's WQ_* flags, translated when a workqueue is allocated:
 *   WQ_FREEZABLE becomes FWQ_FREEZABLE (fwq.ko then refuses suspend and
 *   hibernation while the workqueue exists), WQ_PERCPU comes through the
 *   compat probe, and max_active 0 means the target kernel's
 *   WQ_DFL_ACTIVE;
 * - the system workqueues and schedule_work() and its kin, onto fwq's
 *   own (src/system_wq.c), which the module holds from before its init
 *   to after its exit: the shim wraps module_init() and module_exit();
 * - every interface fwq has no equivalent for (the freezable and BH
 *   system workqueues, set_worker_desc(), ...) fails to compile, with a
 *   static assertion that names it.
 *
 * A core header that the module first includes after this header is
 * renamed too: its inline code then fails to compile rather than running
 * a kernel work item on fwq. scripts/shim-gen.sh lists every header the
 * module names, so that only happens to a header included conditionally.
 */
#ifndef _FWQ_SHIM_H
#define _FWQ_SHIM_H

#include <fwq_shim_core.h>
/* the compat layer, with the probes that fwq_shim_core.h carries */
#include "../../src/compat/compat.h"
#include <linux/build_bug.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include <fwq/fwq.h>

/* a module object handed to the kernel's API, or the other way round */
#pragma GCC diagnostic error "-Wincompatible-pointer-types"

/*
 * __FWQ_SHIM_NONE - an interface fwq has no equivalent for
 * @name: its name, as a string
 * @why: the reason, as a string
 *
 * An expression that fails to compile wherever the module uses @name,
 * dead code included, with a message naming it.
 */
#define __FWQ_SHIM_NONE(name, why)					\
	({								\
		static_assert(0, "fwq shim: " name			\
			      " has no fwq equivalent: " why);		\
		0;							\
	})

/* the kernel's work_busy() bits are fwq's */
static_assert((int)WORK_BUSY_PENDING == (int)FWQ_BUSY_PENDING);
static_assert((int)WORK_BUSY_RUNNING == (int)FWQ_BUSY_RUNNING);
/* and so is the CPU that means "no particular one" */
static_assert((int)WORK_CPU_UNBOUND == (int)FWQ_CPU_UNBOUND);

/* Types. */
#define work_struct		fwq_work
#define delayed_work		fwq_delayed_work
#define workqueue_struct	fwq_workqueue
#define workqueue_attrs		fwq_workqueue_attrs
#define work_func_t		fwq_work_func_t

/* Flags: the kernel's WQ_* values, translated at allocation. */
#ifdef FWQ_HAVE_WQ_PERCPU
#define __FWQ_SHIM_PERCPU(f)	(((f) & WQ_PERCPU) ? FWQ_PERCPU : 0)
#else
#define __FWQ_SHIM_PERCPU(f)	0
#endif

/**
 * __fwq_shim_flags - fwq's flags for the kernel's WQ_* flags
 * @f: the module's flags
 *
 * WQ_SYSFS (no sysfs directory: fwq's debugfs lists every workqueue)
 * and __WQ_LEGACY are dropped; WQ_POWER_EFFICIENT follows fwq.ko's
 * power_efficient parameter, as the kernel's follows its own. WQ_BH fails
 * to compile (below). Folded at compile time for constant @f.
 *
 * Return: the FWQ_* flags.
 */
static __always_inline unsigned int __fwq_shim_flags(unsigned int f)
{
	return ((f & WQ_UNBOUND) ? FWQ_UNBOUND : 0) |
	       ((f & WQ_FREEZABLE) ? FWQ_FREEZABLE : 0) |
	       ((f & WQ_MEM_RECLAIM) ? FWQ_MEM_RECLAIM : 0) |
	       ((f & WQ_HIGHPRI) ? FWQ_HIGHPRI : 0) |
	       ((f & WQ_CPU_INTENSIVE) ? FWQ_CPU_INTENSIVE : 0) |
	       ((f & WQ_POWER_EFFICIENT) ? FWQ_POWER_EFFICIENT : 0) |
	       ((f & __WQ_ORDERED) ? __FWQ_ORDERED : 0) |
	       __FWQ_SHIM_PERCPU(f);
}

#define __FWQ_SHIM_FLAGS(f)	__fwq_shim_flags(f)

/* max_active 0: the default of the kernel built against, not fwq's */
#define __FWQ_SHIM_MAX_ACTIVE(m)	((m) ?: WQ_DFL_ACTIVE)

#undef WQ_BH
#define WQ_BH	__FWQ_SHIM_NONE("WQ_BH", "fwq items run in kthreads")

/* Allocation. */
#undef alloc_workqueue
#define alloc_workqueue(fmt, flags, max_active, args...)		\
	fwq_alloc_workqueue(fmt, __FWQ_SHIM_FLAGS(flags),		\
			    __FWQ_SHIM_MAX_ACTIVE(max_active), ##args)
#undef alloc_ordered_workqueue
#define alloc_ordered_workqueue(fmt, flags, args...)			\
	fwq_alloc_ordered_workqueue(fmt, __FWQ_SHIM_FLAGS(flags), ##args)
#undef create_workqueue
#define create_workqueue(name)						\
	fwq_alloc_workqueue("%s", FWQ_MEM_RECLAIM, 1, (name))
#undef create_freezable_workqueue
#define create_freezable_workqueue(name)				\
	fwq_alloc_workqueue("%s", FWQ_FREEZABLE | FWQ_UNBOUND |		\
			    FWQ_MEM_RECLAIM, 1, (name))
#undef create_singlethread_workqueue
#define create_singlethread_workqueue(name)				\
	fwq_alloc_ordered_workqueue("%s", FWQ_MEM_RECLAIM, (name))
#undef destroy_workqueue
#define destroy_workqueue(wq)		fwq_destroy_workqueue(wq)
#undef alloc_workqueue_attrs
#define alloc_workqueue_attrs()		fwq_alloc_workqueue_attrs()
#undef free_workqueue_attrs
#define free_workqueue_attrs(attrs)	fwq_free_workqueue_attrs(attrs)
#undef apply_workqueue_attrs
#define apply_workqueue_attrs(wq, attrs) fwq_apply_workqueue_attrs(wq, attrs)

/*
 * The kernel clamps max_active with a warning and returns nothing; fwq
 * refuses a value out of 1..FWQ_MAX_ACTIVE with a log line.
 */
#undef workqueue_set_max_active
#define workqueue_set_max_active(wq, max_active)			\
	((void)fwq_workqueue_set_max_active(wq, max_active))

/* Work items. */
#undef __WORK_INITIALIZER
#define __WORK_INITIALIZER(n, f)	FWQ_WORK_INITIALIZER(n, f)
#undef __DELAYED_WORK_INITIALIZER
#define __DELAYED_WORK_INITIALIZER(n, f, tflags)			\
	FWQ_DELAYED_WORK_INITIALIZER(n, f)
#undef DECLARE_WORK
#define DECLARE_WORK(n, f)						\
	struct fwq_work n = FWQ_WORK_INITIALIZER(n, f)
#undef DECLARE_DELAYED_WORK
#define DECLARE_DELAYED_WORK(n, f)					\
	struct fwq_delayed_work n = FWQ_DELAYED_WORK_INITIALIZER(n, f)
#undef DECLARE_DEFERRABLE_WORK
#define DECLARE_DEFERRABLE_WORK(n, f)					\
	struct fwq_delayed_work n = {					\
		.work = FWQ_WORK_INITIALIZER((n).work, (f)),		\
		.timer = __TIMER_INITIALIZER(fwq_delayed_work_timer_fn,	\
					     TIMER_IRQSAFE |		\
					     TIMER_DEFERRABLE),		\
	}

#undef INIT_WORK
#define INIT_WORK(_work, _func)		FWQ_INIT_WORK(_work, _func)
#undef INIT_WORK_ONSTACK
#define INIT_WORK_ONSTACK(_work, _func)	FWQ_INIT_WORK_ONSTACK(_work, _func)
#undef INIT_DELAYED_WORK
#define INIT_DELAYED_WORK(_work, _func)	FWQ_INIT_DELAYED_WORK(_work, _func)
#undef INIT_DELAYED_WORK_ONSTACK
#define INIT_DELAYED_WORK_ONSTACK(_work, _func)				\
	FWQ_INIT_DELAYED_WORK_ONSTACK(_work, _func)
#undef INIT_DEFERRABLE_WORK
#define INIT_DEFERRABLE_WORK(_work, _func)				\
	FWQ_INIT_DEFERRABLE_WORK(_work, _func)
#undef INIT_DEFERRABLE_WORK_ONSTACK
#define INIT_DEFERRABLE_WORK_ONSTACK(_work, _func)			\
	FWQ_INIT_DEFERRABLE_WORK_ONSTACK(_work, _func)
#undef destroy_work_on_stack
#define destroy_work_on_stack(work)	fwq_destroy_work_on_stack(work)
#undef destroy_delayed_work_on_stack
#define destroy_delayed_work_on_stack(dwork)				\
	fwq_destroy_delayed_work_on_stack(dwork)

#undef work_pending
#define work_pending(work)		fwq_work_pending(work)
#undef delayed_work_pending
#define delayed_work_pending(dwork)	fwq_delayed_work_pending(dwork)
#undef to_delayed_work
#define to_delayed_work(work)		to_fwq_delayed_work(work)
#undef work_busy
#define work_busy(work)			fwq_work_busy(work)

/**
 * __fwq_shim_enable_and_queue_work - enable_and_queue_work() on fwq
 * @wq: the workqueue
 * @work: the item
 *
 * Return: %true if @work was enabled (and queued), as the kernel's.
 */
static inline bool __fwq_shim_enable_and_queue_work(struct fwq_workqueue *wq,
						    struct fwq_work *work)
{
	if (!fwq_enable_work(work))
		return false;
	fwq_queue_work(wq, work);
	return true;
}

/* Queueing. */
#undef queue_work
#define queue_work(wq, work)		fwq_queue_work(wq, work)
#undef queue_work_on
#define queue_work_on(cpu, wq, work)	fwq_queue_work_on(cpu, wq, work)
#undef queue_work_node
#define queue_work_node(node, wq, work)	fwq_queue_work_node(node, wq, work)
#undef queue_delayed_work
#define queue_delayed_work(wq, dwork, delay)				\
	fwq_queue_delayed_work(wq, dwork, delay)
#undef queue_delayed_work_on
#define queue_delayed_work_on(cpu, wq, dwork, delay)			\
	fwq_queue_delayed_work_on(cpu, wq, dwork, delay)
#undef mod_delayed_work
#define mod_delayed_work(wq, dwork, delay)				\
	fwq_mod_delayed_work(wq, dwork, delay)
#undef mod_delayed_work_on
#define mod_delayed_work_on(cpu, wq, dwork, delay)			\
	fwq_mod_delayed_work_on(cpu, wq, dwork, delay)

/* Flush, cancel, disable. */
#undef flush_work
#define flush_work(work)		fwq_flush_work(work)
#undef flush_delayed_work
#define flush_delayed_work(dwork)	fwq_flush_delayed_work(dwork)
#undef flush_workqueue
#define flush_workqueue(wq)		fwq_flush_workqueue(wq)
#undef __flush_workqueue
#define __flush_workqueue(wq)		fwq_flush_workqueue(wq)
#undef drain_workqueue
#define drain_workqueue(wq)		fwq_drain_workqueue(wq)
#undef cancel_work
#define cancel_work(work)		fwq_cancel_work(work)
#undef cancel_work_sync
#define cancel_work_sync(work)		fwq_cancel_work_sync(work)
#undef cancel_delayed_work
#define cancel_delayed_work(dwork)	fwq_cancel_delayed_work(dwork)
#undef cancel_delayed_work_sync
#define cancel_delayed_work_sync(dwork)	fwq_cancel_delayed_work_sync(dwork)
#undef disable_work
#define disable_work(work)		fwq_disable_work(work)
#undef disable_work_sync
#define disable_work_sync(work)		fwq_disable_work_sync(work)
#undef enable_work
#define enable_work(work)		fwq_enable_work(work)
#undef disable_delayed_work
#define disable_delayed_work(dwork)	fwq_disable_delayed_work(dwork)
#undef disable_delayed_work_sync
#define disable_delayed_work_sync(dwork) fwq_disable_delayed_work_sync(dwork)
#undef enable_delayed_work
#define enable_delayed_work(dwork)	fwq_enable_delayed_work(dwork)
#undef enable_and_queue_work
#define enable_and_queue_work(wq, work)					\
	__fwq_shim_enable_and_queue_work(wq, work)
#undef current_is_workqueue_mem_reclaim
#define current_is_workqueue_mem_reclaim() fwq_current_is_mem_reclaim()

/*
 * The system workqueues: fwq's own, created for the first shimmed module
 * and destroyed with the last (fwq_system_wqs_get(), src/system_wq.c).
 * The module holds them from before its init to after its exit: its
 * module_init() and module_exit() run fwq_system_wqs_get() first and
 * fwq_system_wqs_put() last. So the pointers are valid in every context
 * the module's code runs in, interrupts included, and the enqueue pays
 * nothing for it. The wrappers emit what <linux/module.h>'s own emit for
 * a module: init_module() and cleanup_module(), aliases of the wrapper.
 * 7.3's deprecated system_wq and system_unbound_wq are its
 * system_percpu_wq and system_dfl_wq here.
 */
#ifdef MODULE
/**
 * __fwq_shim_init_call - a shimmed module's init, holding the system wqs
 * @initfn: the module's own init
 *
 * Return: what @initfn returned, or fwq_system_wqs_get()'s error; the hold
 * is given back when it is not 0.
 */
static __always_inline int __fwq_shim_init_call(int (*initfn)(void))
{
	int ret = fwq_system_wqs_get();

	if (ret)
		return ret;
	ret = initfn();
	if (ret)
		fwq_system_wqs_put();
	return ret;
}

#undef module_init
#define module_init(initfn)						\
	static int __init __fwq_shim_init_##initfn(void)		\
	{								\
		return __fwq_shim_init_call(initfn);			\
	}								\
	int __copy(__fwq_shim_init_##initfn)				\
		__alias(__fwq_shim_init_##initfn) init_module(void);	\
	___ADDRESSABLE(init_module, __initdata)
#undef module_exit
#define module_exit(exitfn)						\
	static void __exit __fwq_shim_exit_##exitfn(void)		\
	{								\
		exitfn();						\
		fwq_system_wqs_put();					\
	}								\
	void __copy(__fwq_shim_exit_##exitfn)				\
		__alias(__fwq_shim_exit_##exitfn) cleanup_module(void);	\
	___ADDRESSABLE(cleanup_module, __exitdata)
#endif

#define system_wq		fwq_system_percpu_wq
#define system_percpu_wq	fwq_system_percpu_wq
#define system_highpri_wq	fwq_system_highpri_wq
#define system_long_wq		fwq_system_long_wq
#define system_unbound_wq	fwq_system_dfl_wq
#define system_dfl_wq		fwq_system_dfl_wq
#define system_dfl_long_wq	fwq_system_dfl_long_wq
#define system_power_efficient_wq fwq_system_power_efficient_wq
#undef schedule_work
#define schedule_work(work)		fwq_schedule_work(work)
#undef schedule_work_on
#define schedule_work_on(cpu, work)	fwq_schedule_work_on(cpu, work)
#undef schedule_delayed_work
#define schedule_delayed_work(dwork, delay)				\
	fwq_schedule_delayed_work(dwork, delay)
#undef schedule_delayed_work_on
#define schedule_delayed_work_on(cpu, dwork, delay)			\
	fwq_schedule_delayed_work_on(cpu, dwork, delay)

/* No fwq equivalent: the rest of the system workqueues' API. */
#define __FWQ_SHIM_FREEZABLE						\
	"fwq does not freeze its workers, and a freezable fwq workqueue "	\
	"makes fwq.ko refuse suspend; allocate one if that is meant"
#define system_freezable_wq						\
	__FWQ_SHIM_NONE("system_freezable_wq", __FWQ_SHIM_FREEZABLE)
#define system_freezable_power_efficient_wq				\
	__FWQ_SHIM_NONE("system_freezable_power_efficient_wq",		\
			__FWQ_SHIM_FREEZABLE)
#define system_bh_wq							\
	__FWQ_SHIM_NONE("system_bh_wq", "fwq items run in kthreads")
#define system_bh_highpri_wq						\
	__FWQ_SHIM_NONE("system_bh_highpri_wq", "fwq items run in kthreads")
/* 7.3 warns at compile time on it: flush the module's own items */
#undef flush_scheduled_work
#define flush_scheduled_work(...)					\
	__FWQ_SHIM_NONE("flush_scheduled_work()",			\
			"flushing a system workqueue is deprecated; "	\
			"flush your own items")
#define __FWQ_SHIM_SYSWQ "not in fwq"
#undef schedule_on_each_cpu
#define schedule_on_each_cpu(...)					\
	__FWQ_SHIM_NONE("schedule_on_each_cpu()", __FWQ_SHIM_SYSWQ)
#undef execute_in_process_context
#define execute_in_process_context(...)					\
	__FWQ_SHIM_NONE("execute_in_process_context()", __FWQ_SHIM_SYSWQ)
#undef work_on_cpu
#define work_on_cpu(...)	__FWQ_SHIM_NONE("work_on_cpu()", __FWQ_SHIM_SYSWQ)
#undef work_on_cpu_safe
#define work_on_cpu_safe(...)	__FWQ_SHIM_NONE("work_on_cpu_safe()", __FWQ_SHIM_SYSWQ)

/*
 * __FWQ_SHIM_NO_TYPE - a struct type fwq has no equivalent for
 * @name: its name, as a string
 * @why: the reason, as a string
 *
 * "struct execute_work" becomes an anonymous struct whose only member is
 * a failed static assertion.
 */
#define __FWQ_SHIM_NO_TYPE(name, why)					\
	{ static_assert(0, "fwq shim: " name " has no fwq equivalent: " why); }

/* RCU work items. */
#define rcu_work		fwq_rcu_work
#undef INIT_RCU_WORK
#define INIT_RCU_WORK(_rwork, _func)	FWQ_INIT_RCU_WORK(_rwork, _func)
#undef INIT_RCU_WORK_ONSTACK
#define INIT_RCU_WORK_ONSTACK(_rwork, _func)				\
	FWQ_INIT_RCU_WORK_ONSTACK(_rwork, _func)
#undef queue_rcu_work
#define queue_rcu_work(wq, rwork)	fwq_queue_rcu_work(wq, rwork)
#undef flush_rcu_work
#define flush_rcu_work(rwork)		fwq_flush_rcu_work(rwork)
#undef to_rcu_work
#define to_rcu_work(work)		to_fwq_rcu_work(work)

/* What the running task and a workqueue's state say. */
#undef current_work
#define current_work()			fwq_current_work()
#undef current_is_workqueue_rescuer
#define current_is_workqueue_rescuer()	fwq_current_is_workqueue_rescuer()
#undef workqueue_congested
#define workqueue_congested(cpu, wq)	fwq_workqueue_congested(cpu, wq)

/* No fwq equivalent: the rest. */
#define execute_work							\
	__FWQ_SHIM_NO_TYPE("struct execute_work", __FWQ_SHIM_SYSWQ)
#undef workqueue_set_min_active
#define workqueue_set_min_active(...)					\
	__FWQ_SHIM_NONE("workqueue_set_min_active()", "not in fwq")
#undef set_worker_desc
#define set_worker_desc(...)						\
	__FWQ_SHIM_NONE("set_worker_desc()", "fwq workers are not the kernel's")
#undef workqueue_sysfs_register
#define workqueue_sysfs_register(...)					\
	__FWQ_SHIM_NONE("workqueue_sysfs_register()", "fwq has no sysfs")
#undef show_one_workqueue
#define show_one_workqueue(...)						\
	__FWQ_SHIM_NONE("show_one_workqueue()", "read /sys/kernel/debug/fwq/wqs")
#undef work_data_bits
#define work_data_bits(...)						\
	__FWQ_SHIM_NONE("work_data_bits()", "fwq_work's data is fwq's own")
#undef devm_alloc_workqueue
#define devm_alloc_workqueue(...)					\
	__FWQ_SHIM_NONE("devm_alloc_workqueue()", "no devres in fwq")
#undef devm_alloc_ordered_workqueue
#define devm_alloc_ordered_workqueue(...)				\
	__FWQ_SHIM_NONE("devm_alloc_ordered_workqueue()", "no devres in fwq")
#undef alloc_workqueue_lockdep_map
#define alloc_workqueue_lockdep_map(...)				\
	__FWQ_SHIM_NONE("alloc_workqueue_lockdep_map()", "not in fwq")
#undef alloc_ordered_workqueue_lockdep_map
#define alloc_ordered_workqueue_lockdep_map(...)			\
	__FWQ_SHIM_NONE("alloc_ordered_workqueue_lockdep_map()", "not in fwq")

#endif /* _FWQ_SHIM_H */
