#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# probe.sh SRCTREE VERSION PATCHLEVEL: the compile-time probes of fwq's
# compat layer. Prints one -DFWQ_HAVE_<NAME> flag per kernel interface that
# SRCTREE's headers declare; src/compat/compat.h supplies what is missing.
# Also places the kernel (VERSION.PATCHLEVEL, kbuild's own variables)
# against the supported series: -DFWQ_KERNEL_TOO_OLD or -DFWQ_KERNEL_UNTESTED,
# which compat.h turns into an #error. Called by Kbuild.include
# through $(shell), once per directory built.
# FWQ_COMPAT_FALLBACK=y (make variable, exported to the environment by
# kbuild) prints nothing, so that every fallback gets built and tested on
# a kernel that does not need it.
#
# A probe is a fixed-string grep of one header: cheap, and it reads the
# interface itself, not a version number that distributions backport
# around.
srctree=${1:?usage: probe.sh SRCTREE VERSION PATCHLEVEL}
kv=$(( ${2:?no VERSION} * 256 + ${3:?no PATCHLEVEL} ))

# Supported kernels: Linux 6.1, 6.12 and 7.3, x86_64 (scripts/kernels/).
# Those series build; before 6.1 is too old, and any other series is
# untested (compat.h's #error, unless FWQ_UNTESTED_KERNEL=y). make lint's
# docs check keeps this list equal to scripts/kernels/.
case "$kv" in
$((6 * 256 + 1))|$((6 * 256 + 12))|$((7 * 256 + 3))) ;;
*)
	if [ "$kv" -lt $((6 * 256 + 1)) ]; then
		printf ' -DFWQ_KERNEL_TOO_OLD'
	else
		printf ' -DFWQ_KERNEL_UNTESTED'
	fi
	;;
esac

if [ "${FWQ_COMPAT_FALLBACK:-n}" = y ]; then
	echo
	exit 0
fi

# probe NAME HEADER STRING: -DFWQ_HAVE_NAME if HEADER contains STRING
probe() {
	if grep -qF -- "$3" "$srctree/$2" 2>/dev/null; then
		printf ' -DFWQ_HAVE_%s' "$1"
	fi
}

# 6.2 (and 6.1.y stable): timer_delete{,_sync}(); del_timer{,_sync}() go in 6.15
probe TIMER_DELETE_SYNC include/linux/timer.h 'int timer_delete_sync(struct timer_list'
# 6.16: timer_container_of() replaces from_timer()
probe TIMER_CONTAINER_OF include/linux/timer.h 'define timer_container_of('
# 6.13: kthread_create_worker() no longer starts the worker
probe KTHREAD_RUN_WORKER include/linux/kthread.h 'kthread_run_worker('
# after 6.1: DEFINE_SHOW_STORE_ATTRIBUTE(), a seq_file show with a write
probe SHOW_STORE_ATTRIBUTE include/linux/seq_file.h 'define DEFINE_SHOW_STORE_ATTRIBUTE('
# after 6.12: timer_destroy_on_stack() replaces destroy_timer_on_stack()
# (7.3 has only the new name)
probe TIMER_DESTROY_ON_STACK include/linux/timer.h 'void timer_destroy_on_stack(struct timer_list'
# 6.13: hrtimer_setup() sets the callback; hrtimer_init() is gone by 7.3,
# where hrtimer.function is __private
probe HRTIMER_SETUP include/linux/hrtimer.h 'extern void hrtimer_setup(struct hrtimer *timer'
# 6.17: WQ_PERCPU; a per-CPU workqueue made without it WARNs on 7.3
probe WQ_PERCPU include/linux/workqueue.h 'WQ_PERCPU'
# 6.17: system_percpu_wq and system_dfl_wq; 7.3 warns on system_wq and
# system_unbound_wq
probe SYSTEM_PERCPU_WQ include/linux/workqueue.h 'extern struct workqueue_struct *system_percpu_wq;'
probe SYSTEM_DFL_WQ include/linux/workqueue.h 'extern struct workqueue_struct *system_dfl_wq;'
# 6.2: call_rcu_hurry(), a callback that lazy RCU does not batch
probe CALL_RCU_HURRY include/linux/rcupdate.h 'call_rcu_hurry(struct rcu_head *head'
# struct module_use in module.h (6.1, 6.12; the module selftest reads the
# dependency list through it); 7.3 keeps it private
probe MODULE_USE include/linux/module.h 'struct module_use {'
# the scheduler numbers its LLCs from an allocator and starts every
# CPU's sd_llc_id at -1 (7.3): the series that did it, cache-aware
# scheduling, declares sched_update_llc_bytes() in this header
probe SCHED_LLC_ID_ALLOC include/linux/sched/topology.h 'void sched_update_llc_bytes('
echo
