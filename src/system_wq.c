// SPDX-License-Identifier: GPL-2.0
/*
 * fwq's system workqueues: Linux 7.3's system_percpu_wq, system_dfl_wq
 * and the others, for schedule_work() and its kin on fwq.
 *
 * The kernel creates its system workqueues at boot and never frees them.
 * fwq.ko alone must leave no workqueue (the cycle plan checks it), so
 * fwq's exist only while someone holds them: fwq_system_wqs_get() creates
 * them all when the first holder comes, fwq_system_wqs_put() destroys
 * them when the last one goes. The shim takes a hold in the module's init
 * before the module's own init runs and gives it back after its exit
 * (include/fwq/shim.h), so a shimmed module finds them in every context,
 * atomic ones included: creating a workqueue sleeps, so it cannot be done
 * on the first queueing, which may come from an interrupt.
 *
 * fwq_system_mutex serializes the holds: the first get creates under it,
 * and a racing second get waits for the first and finds them made, so
 * there is never a second set to throw away. The pointers are written
 * under the mutex, before the count that makes them visible to a holder
 * rises (the mutex orders them for every later get), and cleared after
 * the last put; a holder reads them bare. Nothing on the enqueue or
 * flush path looks at any of this.
 *
 * Each is allocated without a variant, so shim_map picks its design by
 * name as for any workqueue. 7.3's freezable ones are left out: a
 * freezable fwq workqueue makes fwq.ko refuse suspend (src/wq.c), and a
 * system one would exist whenever a shimmed module is loaded. The BH
 * ones are left out: fwq has no BH pools.
 */
#include <linux/module.h>
#include <linux/mutex.h>

#include "internal.h"

struct fwq_workqueue *fwq_system_percpu_wq __read_mostly;
EXPORT_SYMBOL_GPL(fwq_system_percpu_wq);
struct fwq_workqueue *fwq_system_highpri_wq __read_mostly;
EXPORT_SYMBOL_GPL(fwq_system_highpri_wq);
struct fwq_workqueue *fwq_system_long_wq __read_mostly;
EXPORT_SYMBOL_GPL(fwq_system_long_wq);
struct fwq_workqueue *fwq_system_dfl_wq __read_mostly;
EXPORT_SYMBOL_GPL(fwq_system_dfl_wq);
struct fwq_workqueue *fwq_system_dfl_long_wq __read_mostly;
EXPORT_SYMBOL_GPL(fwq_system_dfl_long_wq);
struct fwq_workqueue *fwq_system_power_efficient_wq __read_mostly;
EXPORT_SYMBOL_GPL(fwq_system_power_efficient_wq);

/* one system workqueue: where it goes, and 7.3's name and flags for it */
struct fwq_system_wq_def {
	struct fwq_workqueue **wqp;
	const char *name;
	unsigned int flags;
	int max_active;
};

static const struct fwq_system_wq_def fwq_system_wq_defs[] = {
	{ &fwq_system_percpu_wq, "events", FWQ_PERCPU, 0 },
	{ &fwq_system_highpri_wq, "events_highpri",
	  FWQ_PERCPU | FWQ_HIGHPRI, 0 },
	{ &fwq_system_long_wq, "events_long", FWQ_PERCPU, 0 },
	{ &fwq_system_dfl_wq, "events_unbound", FWQ_UNBOUND, FWQ_MAX_ACTIVE },
	{ &fwq_system_dfl_long_wq, "events_dfl_long", FWQ_UNBOUND,
	  FWQ_MAX_ACTIVE },
	{ &fwq_system_power_efficient_wq, "events_power_efficient",
	  FWQ_PERCPU | FWQ_POWER_EFFICIENT, 0 },
};

static DEFINE_MUTEX(fwq_system_mutex);
/* the holds; the workqueues exist while it is above 0 (fwq_system_mutex) */
static unsigned int fwq_system_holds;

/* destroy the first @n system workqueues; fwq_system_mutex held */
static void fwq_system_wqs_destroy(unsigned int n)
{
	while (n--) {
		const struct fwq_system_wq_def *d = &fwq_system_wq_defs[n];

		fwq_destroy_workqueue(*d->wqp);
		*d->wqp = NULL;
	}
}

/**
 * fwq_system_wqs_get - hold fwq's system workqueues, creating them
 *
 * Context: may sleep.
 * Return: 0, after which fwq_system_percpu_wq and the others are valid
 * until the matching fwq_system_wqs_put(); or -ENOMEM, with nothing
 * held.
 */
int fwq_system_wqs_get(void)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&fwq_system_mutex);
	if (fwq_system_holds)
		goto hold;
	for (i = 0; i < ARRAY_SIZE(fwq_system_wq_defs); i++) {
		const struct fwq_system_wq_def *d = &fwq_system_wq_defs[i];

		*d->wqp = fwq_alloc_workqueue("%s", d->flags, d->max_active,
					      d->name);
		if (!*d->wqp) {
			pr_err("cannot allocate the system workqueue %s\n",
			       d->name);
			fwq_system_wqs_destroy(i);
			ret = -ENOMEM;
			goto out;
		}
	}
hold:
	fwq_system_holds++;
out:
	mutex_unlock(&fwq_system_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(fwq_system_wqs_get);

/**
 * fwq_system_wqs_put - give back a hold of fwq_system_wqs_get()
 *
 * The last one destroys the system workqueues, which drains them: the
 * caller has cancelled or flushed its own items (a module's exit does,
 * as for the kernel's system workqueues). A put without a hold is
 * refused with one log line.
 *
 * Context: may sleep.
 */
void fwq_system_wqs_put(void)
{
	mutex_lock(&fwq_system_mutex);
	if (!fwq_system_holds) {
		atomic64_inc(&fwq_misuse_count);
		pr_err("%s() without a hold: ignored\n", __func__);
	} else if (!--fwq_system_holds) {
		fwq_system_wqs_destroy(ARRAY_SIZE(fwq_system_wq_defs));
	}
	mutex_unlock(&fwq_system_mutex);
}
EXPORT_SYMBOL_GPL(fwq_system_wqs_put);

/**
 * fwq_system_wqs_exit - at unload: no hold can be left
 *
 * Every holder is a module that uses fwq.ko, so none is loaded any more;
 * a hold left is a leak (a put missed), reported and reaped here.
 */
void fwq_system_wqs_exit(void)
{
	mutex_lock(&fwq_system_mutex);
	if (fwq_system_holds) {
		pr_err("unload: %u holds of the system workqueues leaked; destroying them\n",
		       fwq_system_holds);
		atomic64_inc(&fwq_misuse_count);
		fwq_system_holds = 0;
		fwq_system_wqs_destroy(ARRAY_SIZE(fwq_system_wq_defs));
	}
	mutex_unlock(&fwq_system_mutex);
}
