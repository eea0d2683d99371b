// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: what the running task can ask about fwq's workers, and whether a
 * workqueue is congested; Linux 7.3's current_work(),
 * current_is_workqueue_rescuer() and workqueue_congested() on fwq's own
 * workers and pwqs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "internal.h"

struct fwq_work *fwq_current_work(void)
{
	struct fwq_worker *worker = fwq_current_worker();

	/* only this thread writes its worker's current_work */
	return worker ? worker->current_work : NULL;
}
EXPORT_SYMBOL_GPL(fwq_current_work);

bool fwq_current_is_workqueue_rescuer(void)
{
	struct fwq_worker *worker = fwq_current_worker();

	return worker && worker->rescue_wq;
}
EXPORT_SYMBOL_GPL(fwq_current_is_workqueue_rescuer);

bool fwq_workqueue_congested(int cpu, struct fwq_workqueue *wq)
{
	struct fwq_pwq *pwq;
	bool ret = false;

	if (unlikely(!wq || (cpu != FWQ_CPU_UNBOUND &&
			     ((unsigned int)cpu >= nr_cpu_ids ||
			      !cpu_possible(cpu))))) {
		atomic64_inc(&fwq_misuse_count);
		pr_err_ratelimited("workqueue_congested: bad cpu %d or NULL workqueue\n",
				   cpu);
		return false;
	}

	rcu_read_lock();
	if (cpu == FWQ_CPU_UNBOUND)
		cpu = raw_smp_processor_id();
	pwq = rcu_dereference(*per_cpu_ptr(wq->cpu_pwq, cpu));
	/* a hint, read without the pool lock, as mainline's */
	if (pwq)
		ret = !list_empty(&pwq->inactive_works);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(fwq_workqueue_congested);
