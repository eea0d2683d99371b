// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: workqueue allocation and destruction, pwqs (per-CPU for per-CPU and
 * unbound workqueues alike, as mainline since 636b927eba5b), attributes,
 * max_active and the per-node nr_active limits, mayday.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/suspend.h>

#include "dbg.h"
#include "internal.h"
#include "ops.h"

static bool fwq_variant_valid(const struct fwq_variant *v)
{
	return (unsigned int)v->wake < FWQ_WAKE_NR &&
	       (unsigned int)v->kicked < FWQ_KICKED_NR &&
	       (unsigned int)v->flush < FWQ_FLUSH_NR;
}

/* free the per-node nr_active slots; those never allocated are NULL */
static void fwq_wq_free_nna(struct fwq_workqueue *wq)
{
	int i;

	for (i = 0; i <= nr_node_ids; i++) {
		kfree(wq->nna[i]);
		wq->nna[i] = NULL;
	}
}

/*
 * Free a fully built @wq and what it owns directly, in the reverse order of
 * fwq_alloc_workqueue_variant(); the last reference's RCU callback. A
 * failed allocation unwinds step by step instead.
 */
static void fwq_free_wq(struct fwq_workqueue *wq)
{
	fwq_free_workqueue_attrs(wq->unbound_attrs);
	fwq_wq_free_nna(wq);
	if (wq->flush_ops->exit)
		wq->flush_ops->exit(wq);
	free_percpu(wq->cpu_pwq);
	free_percpu(wq->pcpu_stats);
	kfree(wq);
	atomic_dec(&fwq_objects[FWQ_OBJ_WQ]);
}

static void fwq_rcu_free_wq(struct rcu_head *rcu)
{
	fwq_free_wq(container_of(rcu, struct fwq_workqueue, rcu));
}

/*
 * drop a workqueue reference; the last one takes it off fwq_all_wqs and
 * frees it after a grace period (the leak dump walks the list under RCU)
 */
void fwq_wq_put(struct fwq_workqueue *wq)
{
	unsigned long flags;

	if (!refcount_dec_and_test(&wq->ref))
		return;
	raw_spin_lock_irqsave(&fwq_all_wqs_lock, flags);
	list_del_rcu(&wq->all_node);
	raw_spin_unlock_irqrestore(&fwq_all_wqs_lock, flags);
	call_rcu(&wq->rcu, fwq_rcu_free_wq);
}

static void fwq_rcu_free_pwq(struct rcu_head *rcu)
{
	atomic_dec(&fwq_objects[FWQ_OBJ_PWQ]);
	kmem_cache_free(fwq_pwq_cache, container_of(rcu, struct fwq_pwq, rcu));
}

/* on the release kthread_worker: the last reference of a pwq went away */
void fwq_pwq_release_workfn(struct kthread_work *work)
{
	struct fwq_pwq *pwq = container_of(work, struct fwq_pwq, release_work);
	struct fwq_workqueue *wq = pwq->wq;
	struct fwq_pool *pool = pwq->pool;
	bool is_last = false;

	if (!list_empty(&pwq->pending_node)) {
		struct fwq_nna *nna = fwq_wq_nna(wq, pool);

		raw_spin_lock_irq(&nna->lock);
		list_del_init(&pwq->pending_node);
		raw_spin_unlock_irq(&nna->lock);
	}

	mutex_lock(&wq->mutex);
	if (!list_empty(&pwq->pwqs_node)) {
		list_del_rcu(&pwq->pwqs_node);
		is_last = list_empty(&wq->pwqs);
	}
	if (wq->flush_ops->release)
		wq->flush_ops->release(pwq);
	mutex_unlock(&wq->mutex);

	if (pool->cpu < 0) {
		mutex_lock(&fwq_pool_mutex);
		fwq_put_unbound_pool(pool);
		mutex_unlock(&fwq_pool_mutex);
	}

	call_rcu(&pwq->rcu, fwq_rcu_free_pwq);
	if (is_last) {
		/* no item of @wq can run or be flushed any more */
		fwq_wq_lockdep_exit(wq);
		fwq_wq_put(wq);	/* the pwqs' reference */
	}
}

static struct fwq_pwq *fwq_alloc_pwq(struct fwq_workqueue *wq,
				     struct fwq_pool *pool)
{
	struct fwq_pwq *pwq;

	pwq = kmem_cache_zalloc(fwq_pwq_cache, GFP_KERNEL);
	if (!pwq)
		return NULL;
	atomic_inc(&fwq_objects[FWQ_OBJ_PWQ]);
	pwq->pool = pool;
	pwq->wq = wq;
	pwq->flush_color = -1;
	pwq->refcnt = 1;
	INIT_LIST_HEAD(&pwq->inactive_works);
	INIT_LIST_HEAD(&pwq->pending_node);
	INIT_LIST_HEAD(&pwq->pwqs_node);
	INIT_LIST_HEAD(&pwq->mayday_node);
	INIT_LIST_HEAD(&pwq->flush_node);
	kthread_init_work(&pwq->release_work, fwq_pwq_release_workfn);
	fwq_init_mayday_cursor(pwq);
	return pwq;
}

/* link a new pwq into wq->pwqs (idempotent), under wq->mutex */
static void fwq_link_pwq(struct fwq_pwq *pwq)
{
	struct fwq_workqueue *wq = pwq->wq;

	lockdep_assert_held(&wq->mutex);
	if (!list_empty(&pwq->pwqs_node))
		return;
	pwq->work_color = wq->work_color;
	list_add_tail_rcu(&pwq->pwqs_node, &wq->pwqs);
}

static int fwq_count_online(const struct cpumask *mask, int off_cpu)
{
	int cpu, n = 0;

	for_each_cpu_and(cpu, mask, fwq_online_cpumask)
		if (cpu != off_cpu)
			n++;
	return n;
}

/**
 * fwq_wq_update_node_max_active - split max_active across the nodes
 * @wq: an unbound workqueue
 * @off_cpu: a CPU going down, to be excluded, or -1
 *
 * Each node gets its share of online CPUs in the workqueue's cpumask,
 * clamped to [min_active, max_active]; the fallback slot gets max_active.
 * Context: wq->mutex held.
 */
void fwq_wq_update_node_max_active(struct fwq_workqueue *wq, int off_cpu)
{
	int max = READ_ONCE(wq->max_active);
	int min = READ_ONCE(wq->min_active);
	const struct cpumask *effective;
	int node, total;

	lockdep_assert_held(&wq->mutex);
	if (!fwq_wq_unbound(wq))
		return;

	effective = wq->unbound_attrs ? wq->unbound_attrs->cpumask :
		    cpu_possible_mask;
	total = fwq_count_online(effective, off_cpu);

	for (node = 0; node < nr_node_ids; node++) {
		int share = min;

		if (total) {
			cpumask_var_t tmp;
			int cnt = 0;

			if (zalloc_cpumask_var(&tmp, GFP_KERNEL)) {
				cpumask_and(tmp, effective, cpumask_of_node(node));
				cnt = fwq_count_online(tmp, off_cpu);
				free_cpumask_var(tmp);
			}
			share = clamp(DIV_ROUND_UP(max * cnt, total), min, max);
		}
		WRITE_ONCE(wq->nna[node]->max, share);
	}
	WRITE_ONCE(wq->nna[nr_node_ids]->max, max);
}

/* apply max/min_active and activate what now fits; under wq->mutex */
static void fwq_wq_adjust_max_active(struct fwq_workqueue *wq)
{
	bool activated;

	lockdep_assert_held(&wq->mutex);
	WRITE_ONCE(wq->max_active, wq->saved_max_active);
	WRITE_ONCE(wq->min_active, min(wq->saved_min_active,
				       wq->saved_max_active));
	fwq_wq_update_node_max_active(wq, -1);

	/* round robin: one item per pwq per pass, until nothing fits */
	do {
		struct fwq_pwq *pwq;

		activated = false;
		list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
			struct fwq_wake_batch wb = FWQ_WAKE_BATCH_INIT;

			fwq_pool_lock_irq(pwq->pool);
			if (fwq_pwq_activate_first_inactive(pwq, true)) {
				activated = true;
				fwq_kick_pool(pwq->pool, &wb, wq,
					      FWQ_SITE_ACTIVATE);
			}
			fwq_pool_unlock_irq_issue(pwq->pool, &wb);
		}
	} while (activated);
}

/* the pod slice of @cpu for @attrs; false if it has no online CPU */
static bool fwq_calc_pod_cpumask(const struct fwq_workqueue_attrs *attrs,
				 int cpu, int off_cpu, struct cpumask *out)
{
	enum fwq_affn_scope scope = fwq_resolve_scope(attrs->affn_scope);
	const struct fwq_pod_type *pt = fwq_pod_type(scope);
	int pod = pt->cpu_pod[cpu];

	cpumask_and(out, pt->pod_cpus[pod], attrs->cpumask);
	if (fwq_count_online(out, off_cpu))
		return true;
	cpumask_copy(out, attrs->cpumask);
	return false;
}

static struct fwq_pwq *fwq_alloc_unbound_pwq(struct fwq_workqueue *wq,
					     const struct fwq_pool_attrs *pattrs)
{
	struct fwq_pool *pool;
	struct fwq_pwq *pwq;

	lockdep_assert_held(&fwq_pool_mutex);
	pool = fwq_get_unbound_pool(pattrs);
	if (!pool)
		return NULL;
	pwq = fwq_alloc_pwq(wq, pool);
	if (!pwq)
		fwq_put_unbound_pool(pool);
	return pwq;
}

static void fwq_pool_attrs_from(struct fwq_pool_attrs *pattrs,
				const struct fwq_workqueue_attrs *attrs)
{
	pattrs->nice = attrs->nice;
	pattrs->affn_strict = attrs->affn_strict;
	pattrs->wake = attrs->variant.wake;
	pattrs->kicked = attrs->variant.kicked;
	cpumask_copy(pattrs->cpumask, attrs->cpumask);
}

/* free a pwq that never got linked or referenced by items */
static void fwq_free_unused_pwq(struct fwq_pwq *pwq)
{
	if (!pwq)
		return;
	if (pwq->pool->cpu < 0)
		fwq_put_unbound_pool(pwq->pool);
	atomic_dec(&fwq_objects[FWQ_OBJ_PWQ]);
	kmem_cache_free(fwq_pwq_cache, pwq);
}

/*
 * Free every pwq of a workqueue that never went live. Nothing but @wq
 * refers to them (no item, flusher, rescuer or hotplug walk can find
 * @wq), so they go at once, without the release worker.
 * Context: fwq_pool_mutex held.
 */
static void fwq_free_unused_pwqs(struct fwq_workqueue *wq)
{
	struct fwq_pwq *pwq, *n;
	int cpu;

	lockdep_assert_held(&fwq_pool_mutex);
	for_each_possible_cpu(cpu)
		RCU_INIT_POINTER(*per_cpu_ptr(wq->cpu_pwq, cpu), NULL);
	RCU_INIT_POINTER(wq->dfl_pwq, NULL);
	list_for_each_entry_safe(pwq, n, &wq->pwqs, pwqs_node) {
		list_del(&pwq->pwqs_node);
		fwq_free_unused_pwq(pwq);
	}
}

/*
 * Build and install the pwqs of an unbound workqueue for @attrs.
 * Context: cpus_read_lock() and fwq_pool_mutex held.
 */
static int fwq_apply_attrs_locked(struct fwq_workqueue *wq,
				  const struct fwq_workqueue_attrs *attrs)
{
	bool ordered = wq->flags & __FWQ_ORDERED;
	struct fwq_pool_attrs pattrs;
	struct fwq_pwq **tbl, *dfl, *old_dfl;
	int cpu, ret = -ENOMEM;

	lockdep_assert_held(&fwq_pool_mutex);

	if (fwq_pool_attrs_alloc(&pattrs))
		return -ENOMEM;
	tbl = kcalloc(nr_cpu_ids, sizeof(*tbl), GFP_KERNEL);
	if (!tbl)
		goto out_attrs;

	fwq_pool_attrs_from(&pattrs, attrs);
	cpumask_and(pattrs.cpumask, attrs->cpumask, cpu_possible_mask);

	/* dfl_pwq: the whole cpumask */
	cpumask_copy(pattrs.pod_cpumask, pattrs.cpumask);
	dfl = fwq_alloc_unbound_pwq(wq, &pattrs);
	if (!dfl)
		goto out_tbl;

	for_each_possible_cpu(cpu) {
		if (ordered) {
			tbl[cpu] = dfl;
			continue;
		}
		/*
		 * Every possible CPU gets its own pwq, as mainline since
		 * 636b927eba5b; a pod without online CPUs falls back to the
		 * whole cpumask (the dfl pool) but still has its own pwq.
		 */
		fwq_calc_pod_cpumask(attrs, cpu, -1, pattrs.pod_cpumask);
		tbl[cpu] = fwq_alloc_unbound_pwq(wq, &pattrs);
		if (!tbl[cpu])
			goto out_free;
	}

	/* commit */
	mutex_lock(&wq->mutex);
	cpumask_copy(wq->unbound_attrs->cpumask, pattrs.cpumask);
	wq->unbound_attrs->nice = attrs->nice;
	wq->unbound_attrs->affn_scope = attrs->affn_scope;
	wq->unbound_attrs->affn_strict = attrs->affn_strict;
	wq->unbound_attrs->variant = attrs->variant;
	wq->variant.wake = attrs->variant.wake;
	wq->variant.kicked = attrs->variant.kicked;

	for_each_possible_cpu(cpu) {
		struct fwq_pwq *new = tbl[cpu];

		fwq_link_pwq(new);
		if (new == dfl) {
			fwq_pool_lock_irq(dfl->pool);
			fwq_get_pwq(dfl);
			fwq_pool_unlock_irq(dfl->pool);
		}
		tbl[cpu] = rcu_replace_pointer(*per_cpu_ptr(wq->cpu_pwq, cpu),
					       new,
					       lockdep_is_held(&wq->mutex));
	}
	fwq_link_pwq(dfl);
	old_dfl = rcu_replace_pointer(wq->dfl_pwq, dfl,
				      lockdep_is_held(&wq->mutex));
	fwq_wq_update_node_max_active(wq, -1);
	mutex_unlock(&wq->mutex);

	/* drop the old pwqs; they die when their items are done */
	for_each_possible_cpu(cpu)
		fwq_put_pwq_unlocked(tbl[cpu]);
	fwq_put_pwq_unlocked(old_dfl);
	ret = 0;
	goto out_tbl;

out_free:
	for_each_possible_cpu(cpu) {
		if (tbl[cpu] && tbl[cpu] != dfl)
			fwq_free_unused_pwq(tbl[cpu]);
	}
	fwq_free_unused_pwq(dfl);
out_tbl:
	kfree(tbl);
out_attrs:
	fwq_pool_attrs_free(&pattrs);
	return ret;
}

/**
 * fwq_unbound_wq_update_pwq - re-pick the pwq of one CPU after hotplug
 * @wq: an unbound workqueue
 * @cpu: the CPU whose slot to update
 * @off_cpu: the CPU going down, or -1
 *
 * Context: fwq_pool_mutex held (hotplug callback).
 */
void fwq_unbound_wq_update_pwq(struct fwq_workqueue *wq, int cpu, int off_cpu)
{
	struct fwq_pool_attrs pattrs;
	struct fwq_pwq *old, *new = NULL, *dfl;

	lockdep_assert_held(&fwq_pool_mutex);
	if (!fwq_wq_unbound(wq) || (wq->flags & __FWQ_ORDERED) ||
	    (wq->flags & __FWQ_DESTROYING))
		return;
	if (fwq_pool_attrs_alloc(&pattrs))
		return;

	mutex_lock(&wq->mutex);
	fwq_pool_attrs_from(&pattrs, wq->unbound_attrs);
	old = rcu_dereference_protected(*per_cpu_ptr(wq->cpu_pwq, cpu),
					lockdep_is_held(&wq->mutex));
	dfl = rcu_dereference_protected(wq->dfl_pwq,
					lockdep_is_held(&wq->mutex));
	if (!old || !dfl)
		goto out_unlock;

	/* a pod without online CPUs falls back to the whole cpumask */
	fwq_calc_pod_cpumask(wq->unbound_attrs, cpu, off_cpu,
			     pattrs.pod_cpumask);
	if (cpumask_equal(pattrs.pod_cpumask, old->pool->attrs.pod_cpumask) &&
	    old != dfl)
		goto out_unlock;
	/* the slot cannot change meanwhile: attrs changes hold fwq_pool_mutex */
	mutex_unlock(&wq->mutex);
	new = fwq_alloc_unbound_pwq(wq, &pattrs);
	mutex_lock(&wq->mutex);
	if (!new) {
		/* no memory: use dfl_pwq, as mainline */
		if (old == dfl)
			goto out_unlock;
		new = dfl;
		fwq_pool_lock_irq(dfl->pool);
		fwq_get_pwq(dfl);
		fwq_pool_unlock_irq(dfl->pool);
	}
	fwq_link_pwq(new);
	old = rcu_replace_pointer(*per_cpu_ptr(wq->cpu_pwq, cpu), new,
				  lockdep_is_held(&wq->mutex));
	mutex_unlock(&wq->mutex);
	fwq_put_pwq_unlocked(old);
	fwq_pool_attrs_free(&pattrs);
	return;

out_unlock:
	mutex_unlock(&wq->mutex);
	fwq_pool_attrs_free(&pattrs);
}

struct fwq_workqueue_attrs *fwq_alloc_workqueue_attrs(void)
{
	struct fwq_workqueue_attrs *attrs;

	attrs = kzalloc(sizeof(*attrs), GFP_KERNEL);
	if (!attrs)
		return NULL;
	if (!alloc_cpumask_var(&attrs->cpumask, GFP_KERNEL)) {
		kfree(attrs);
		return NULL;
	}
	cpumask_copy(attrs->cpumask, cpu_possible_mask);
	attrs->affn_scope = FWQ_AFFN_DFL;
	fwq_default_variant(&attrs->variant);
	return attrs;
}
EXPORT_SYMBOL_GPL(fwq_alloc_workqueue_attrs);

void fwq_free_workqueue_attrs(struct fwq_workqueue_attrs *attrs)
{
	if (!attrs)
		return;
	free_cpumask_var(attrs->cpumask);
	kfree(attrs);
}
EXPORT_SYMBOL_GPL(fwq_free_workqueue_attrs);

int fwq_apply_workqueue_attrs(struct fwq_workqueue *wq,
			      const struct fwq_workqueue_attrs *attrs)
{
	int ret;

	if (!wq || !attrs || !fwq_wq_unbound(wq) ||
	    (wq->flags & __FWQ_ORDERED)) {
		pr_err("apply_workqueue_attrs: %s is not an unbound, non-ordered workqueue\n",
		       wq ? wq->name : "(null)");
		return -EINVAL;
	}
	if (!cpumask_intersects(attrs->cpumask, cpu_possible_mask) ||
	    attrs->nice < MIN_NICE || attrs->nice > MAX_NICE ||
	    (unsigned int)attrs->affn_scope >= FWQ_AFFN_NR_TYPES ||
	    !fwq_variant_valid(&attrs->variant) ||
	    attrs->variant.flush != wq->variant.flush) {
		pr_err("apply_workqueue_attrs: bad attributes for %s\n",
		       wq->name);
		return -EINVAL;
	}

	cpus_read_lock();
	mutex_lock(&fwq_pool_mutex);
	ret = fwq_apply_attrs_locked(wq, attrs);
	mutex_unlock(&fwq_pool_mutex);
	cpus_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(fwq_apply_workqueue_attrs);

/*
 * per-CPU workqueue: one pwq per possible CPU, on that CPU's pool; on
 * failure, none
 */
static int fwq_alloc_percpu_pwqs(struct fwq_workqueue *wq)
{
	bool highpri = wq->flags & FWQ_HIGHPRI;
	int cpu, ret;

	lockdep_assert_held(&fwq_pool_mutex);
	ret = fwq_cpu_pools_prepare(&wq->variant);
	if (ret)
		return ret;

	for_each_possible_cpu(cpu) {
		struct fwq_pool *pool = fwq_cpu_pool(cpu, &wq->variant,
						     highpri);
		struct fwq_pwq *pwq = fwq_alloc_pwq(wq, pool);

		if (!pwq) {
			fwq_free_unused_pwqs(wq);
			return -ENOMEM;
		}
		mutex_lock(&wq->mutex);
		fwq_link_pwq(pwq);
		rcu_assign_pointer(*per_cpu_ptr(wq->cpu_pwq, cpu), pwq);
		mutex_unlock(&wq->mutex);
	}
	return 0;
}

atomic64_t fwq_put_walk_waits;

/* drop the pwqs of a workqueue being destroyed; the last release frees it */
static void fwq_put_all_pwqs(struct fwq_workqueue *wq)
{
	struct fwq_pwq *pwq;
	int cpu;

	/*
	 * Once the last pwq reference is gone, the release worker drops the
	 * pwqs' reference to @wq, which frees it a grace period later: pin
	 * @wq until this walk is done with it.
	 */
	refcount_inc(&wq->ref);
	for_each_possible_cpu(cpu) {
		pwq = rcu_access_pointer(*per_cpu_ptr(wq->cpu_pwq, cpu));
		RCU_INIT_POINTER(*per_cpu_ptr(wq->cpu_pwq, cpu), NULL);
		fwq_put_pwq_unlocked(pwq);
	}
	/* H18 reproducer: the window the pin above closes */
	fwq_dbg_put_walk_pause();
	pwq = rcu_access_pointer(wq->dfl_pwq);
	RCU_INIT_POINTER(wq->dfl_pwq, NULL);
	fwq_put_pwq_unlocked(pwq);
	fwq_wq_put(wq);
}

/* the fields of a new workqueue that need no allocation */
static void fwq_wq_init_fields(struct fwq_workqueue *wq,
			       const struct fwq_variant *variant,
			       unsigned int flags, int max_active,
			       enum fwq_affn_scope *scope)
{
	wq->flags = flags;
	wq->saved_max_active = max_active;
	wq->saved_min_active = min_t(int, max_active, FWQ_MIN_ACTIVE);
	wq->max_active = max_active;
	wq->min_active = wq->saved_min_active;
	mutex_init(&wq->mutex);
	atomic_set(&wq->nr_pwqs_to_flush, 0);
	INIT_LIST_HEAD(&wq->pwqs);
	INIT_LIST_HEAD(&wq->flusher_queue);
	INIT_LIST_HEAD(&wq->flusher_overflow);
	INIT_LIST_HEAD(&wq->maydays);
	INIT_LIST_HEAD(&wq->list);
	INIT_LIST_HEAD(&wq->all_node);
	refcount_set(&wq->ref, 1);
	if (variant) {
		wq->variant = *variant;
		strscpy(wq->variant_src, "caller", sizeof(wq->variant_src));
	} else {
		/* and the type and scope of shim_map's rule, if it has them */
		fwq_shim_map_variant(wq->name, &wq->variant, wq->variant_src,
				     sizeof(wq->variant_src), &wq->flags,
				     scope);
	}
	wq->flush_ops = fwq_flush_strategies[wq->variant.flush];
}

/* the per-node nr_active slots of an unbound workqueue; all or none */
static int fwq_wq_alloc_nna(struct fwq_workqueue *wq)
{
	int i;

	for (i = 0; i <= nr_node_ids; i++) {
		struct fwq_nna *nna;

		nna = fwq_kzalloc_node_slot(sizeof(*nna), i);
		if (!nna) {
			fwq_wq_free_nna(wq);
			return -ENOMEM;
		}
		nna->max = wq->max_active;
		atomic_set(&nna->nr, 0);
		raw_spin_lock_init(&nna->lock);
		INIT_LIST_HEAD(&nna->pending_pwqs);
		wq->nna[i] = nna;
	}
	return 0;
}

/*
 * The pwqs of a new workqueue, linked and installed: per-CPU ones on the
 * CPUs' pools, or for an unbound one those of its default attrs. All or
 * none of them on return.
 */
static int fwq_wq_alloc_pwqs(struct fwq_workqueue *wq,
			     enum fwq_affn_scope scope)
{
	struct fwq_workqueue_attrs *attrs = NULL;
	int ret;

	if (wq->flags & FWQ_UNBOUND) {
		attrs = fwq_alloc_workqueue_attrs();
		if (!attrs)
			return -ENOMEM;
		attrs->nice = (wq->flags & FWQ_HIGHPRI) ? FWQ_HIGHPRI_NICE : 0;
		attrs->variant = wq->variant;
		attrs->affn_scope = scope;
	}

	cpus_read_lock();
	mutex_lock(&fwq_pool_mutex);
	if (attrs)
		ret = fwq_apply_attrs_locked(wq, attrs);
	else
		ret = fwq_alloc_percpu_pwqs(wq);
	mutex_unlock(&fwq_pool_mutex);
	cpus_read_unlock();
	fwq_free_workqueue_attrs(attrs);
	return ret;
}

__printf(2, 5) struct fwq_workqueue *
fwq_alloc_workqueue_variant(const struct fwq_variant *variant, const char *fmt,
			    unsigned int flags, int max_active, ...)
{
	enum fwq_affn_scope scope = FWQ_AFFN_DFL;
	struct fwq_workqueue *wq;
	va_list args;

	if (!fmt || (flags & ~FWQ_ALLOC_FLAGS) ||
	    ((flags & FWQ_UNBOUND) && (flags & FWQ_PERCPU)) ||
	    max_active < 0 || max_active > FWQ_MAX_ACTIVE ||
	    (variant && !fwq_variant_valid(variant))) {
		pr_err("alloc_workqueue: bad flags 0x%x, max_active %d or variant\n",
		       flags, max_active);
		return NULL;
	}
	/* as 7.3: unbound where power_efficient says so, else as asked */
	if ((flags & FWQ_POWER_EFFICIENT) && READ_ONCE(fwq_power_efficient))
		flags = (flags & ~FWQ_PERCPU) | FWQ_UNBOUND;
	if (flags & __FWQ_ORDERED) {
		flags |= FWQ_UNBOUND;
		flags &= ~FWQ_PERCPU;
		max_active = 1;
	}
	if (!(flags & FWQ_UNBOUND))
		flags |= FWQ_PERCPU;
	if (!max_active)
		max_active = FWQ_DFL_ACTIVE;

	wq = kzalloc(struct_size(wq, nna, nr_node_ids + 1), GFP_KERNEL);
	if (!wq)
		return NULL;
	atomic_inc(&fwq_objects[FWQ_OBJ_WQ]);

	va_start(args, max_active);
	vsnprintf(wq->name, sizeof(wq->name), fmt, args);
	va_end(args);
	fwq_wq_lockdep_init(wq);
	fwq_wq_init_fields(wq, variant, flags, max_active, &scope);
	flags = wq->flags;	/* shim_map may have changed the type */

	wq->pcpu_stats = alloc_percpu(struct fwq_wq_pcpu_stats);
	if (!wq->pcpu_stats)
		goto err_unreg_lockdep;
	wq->cpu_pwq = (struct fwq_pwq __rcu * __percpu *)
		       alloc_percpu(struct fwq_pwq *);
	if (!wq->cpu_pwq)
		goto err_free_pcpu_stats;
	if (wq->flush_ops->init && wq->flush_ops->init(wq))
		goto err_free_cpu_pwq;
	if (flags & FWQ_UNBOUND) {
		if (fwq_wq_alloc_nna(wq))
			goto err_flush_exit;
		wq->unbound_attrs = fwq_alloc_workqueue_attrs();
		if (!wq->unbound_attrs)
			goto err_free_nna;
	}
	if (fwq_wq_alloc_pwqs(wq, scope))
		goto err_free_unbound_attrs;
	if (fwq_init_rescuer(wq))
		goto err_free_pwqs;

	mutex_lock(&fwq_pool_mutex);
	mutex_lock(&wq->mutex);
	fwq_wq_adjust_max_active(wq);
	mutex_unlock(&wq->mutex);
	list_add_tail_rcu(&wq->list, &fwq_workqueues);
	mutex_unlock(&fwq_pool_mutex);
	raw_spin_lock_irq(&fwq_all_wqs_lock);
	list_add_tail_rcu(&wq->all_node, &fwq_all_wqs);
	raw_spin_unlock_irq(&fwq_all_wqs_lock);
	return wq;

err_free_pwqs:
	mutex_lock(&fwq_pool_mutex);
	fwq_free_unused_pwqs(wq);
	mutex_unlock(&fwq_pool_mutex);
err_free_unbound_attrs:
	fwq_free_workqueue_attrs(wq->unbound_attrs);
err_free_nna:
	fwq_wq_free_nna(wq);
err_flush_exit:
	if (wq->flush_ops->exit)
		wq->flush_ops->exit(wq);
err_free_cpu_pwq:
	free_percpu(wq->cpu_pwq);
err_free_pcpu_stats:
	free_percpu(wq->pcpu_stats);
err_unreg_lockdep:
	fwq_wq_lockdep_exit(wq);
	kfree(wq);
	atomic_dec(&fwq_objects[FWQ_OBJ_WQ]);
	return NULL;
}
EXPORT_SYMBOL_GPL(fwq_alloc_workqueue_variant);

/* the slots of @wq that point at @pwq: the references its installs hold */
static int fwq_pwq_slots(struct fwq_workqueue *wq, struct fwq_pwq *pwq)
{
	int cpu, n = 0;

	for_each_possible_cpu(cpu)
		n += rcu_access_pointer(*per_cpu_ptr(wq->cpu_pwq, cpu)) == pwq;
	return n + (rcu_access_pointer(wq->dfl_pwq) == pwq);
}

/**
 * struct fwq_pwq_snap - who holds a pwq's references, read under its lock
 * @refcnt: its references
 * @slots: the slots of its workqueue pointing at it, one reference each
 * @in_flight: its items in flight, queued or running, one reference each
 * @mayday: on its workqueue's mayday list, one reference
 * @nr_active: its active items
 * @inactive: items wait on its inactive list
 *
 * Every reference is one of these three kinds: refcnt - slots -
 * in_flight - mayday references are held by no one the engine knows.
 */
struct fwq_pwq_snap {
	int refcnt, slots, in_flight, mayday, nr_active;
	bool inactive;
};

static void fwq_pwq_snap(struct fwq_workqueue *wq, struct fwq_pwq *pwq,
			 struct fwq_pwq_snap *s)
{
	s->slots = fwq_pwq_slots(wq, pwq);
	fwq_pool_lock_irq(pwq->pool);
	s->refcnt = pwq->refcnt;
	s->in_flight = pwq->total_in_flight;
	s->nr_active = pwq->nr_active;
	s->inactive = !list_empty(&pwq->inactive_works);
	s->mayday = !list_empty(&pwq->mayday_node);
	fwq_pool_unlock_irq(pwq->pool);
}

/* one pwq's line of a dump: its pool, and who holds its references */
static void fwq_pwq_dump(struct seq_file *m, const char *indent,
			 struct fwq_pwq *pwq, const struct fwq_pwq_snap *s)
{
	struct fwq_pool *pool = pwq->pool;

	fwq_dump_printk(m, "%spwq %p pool %d (%s%d%s): refcnt %d = %d slots + %d in flight + %d mayday + %d unaccounted; nr_active %d%s\n",
			indent, pwq, pool->id, pool->cpu < 0 ? "unbound node " : "cpu ",
			pool->cpu < 0 ? pool->node : pool->cpu,
			pool->highpri ? "H" : "", s->refcnt, s->slots,
			s->in_flight, s->mayday,
			s->refcnt - s->slots - s->in_flight - s->mayday,
			s->nr_active, s->inactive ? ", inactive items" : "");
}

/*
 * Busy at destroy, as 7.3's pwq_busy(): items in flight or waiting, or
 * more references than its slots hold. 7.3 tests refcnt > 1 for every pwq
 * but the default one, which every slot that falls back to it references
 * too; counting the slots holds every pwq, the default one included, to
 * exactly its installs' references. After the drain and the rescuer's
 * stop, no item and no mayday may hold one.
 */
static bool fwq_pwq_busy(const struct fwq_pwq_snap *s)
{
	return s->in_flight || s->nr_active || s->inactive ||
	       s->refcnt > s->slots;
}

atomic64_t fwq_maydays_unserved;
atomic64_t fwq_rescuers_never_ran;

/*
 * After the rescuer's kthread_stop(): a rescuer empties wq->maydays
 * before it exits, but one stopped before its thread ever ran exits
 * without running its function (kthread()), and the references that
 * send_mayday took stay. Nothing can add one any more (wq->rescuer is
 * NULL), so drop them here, with one line, as the rescuer would have.
 */
static void fwq_wq_drop_maydays(struct fwq_workqueue *wq, bool never_ran)
{
	struct fwq_pwq *pwq;
	int n = 0;

	raw_spin_lock_irq(&fwq_mayday_lock);
	while ((pwq = list_first_entry_or_null(&wq->maydays, struct fwq_pwq,
					       mayday_node))) {
		list_del_init(&pwq->mayday_node);
		raw_spin_unlock_irq(&fwq_mayday_lock);
		fwq_pool_lock_irq(pwq->pool);
		list_del_init(&pwq->mayday_cursor.entry);
		fwq_put_pwq(pwq);
		fwq_pool_unlock_irq(pwq->pool);
		n++;
		raw_spin_lock_irq(&fwq_mayday_lock);
	}
	raw_spin_unlock_irq(&fwq_mayday_lock);
	if (n) {
		atomic64_add(n, &fwq_maydays_unserved);
		pr_warn("destroying %s: its rescuer%s exited with %d maydays unserved; their pwq references dropped\n",
			wq->name, never_ran ? ", stopped before it ever ran," : "",
			n);
	}
}

atomic64_t fwq_leaks_planted;

/* dbg_leak_pwq: one extra reference on @wq's default pwq, never put */
void fwq_dbg_plant_leak(struct fwq_workqueue *wq)
{
	struct fwq_pwq *pwq;

	mutex_lock(&wq->mutex);
	pwq = rcu_dereference_protected(wq->dfl_pwq,
					lockdep_is_held(&wq->mutex));
	if (pwq) {
		fwq_pool_lock_irq(pwq->pool);
		fwq_get_pwq(pwq);
		fwq_pool_unlock_irq(pwq->pool);
		atomic64_inc(&fwq_leaks_planted);
		pr_warn("dbg_leak_pwq: an extra reference planted on pwq %p of %s (pool %d)\n",
			pwq, wq->name, pwq->pool->id);
	}
	mutex_unlock(&wq->mutex);
}

void fwq_destroy_workqueue(struct fwq_workqueue *wq)
{
	struct fwq_worker *rescuer;
	struct fwq_pwq_snap snap;
	struct fwq_pwq *pwq;
	unsigned int armed;

	might_sleep();
	if (!wq || fwq_refuse_own_item(wq, "destroys"))
		return;

	mutex_lock(&wq->mutex);
	if (wq->flags & __FWQ_DESTROYING) {
		mutex_unlock(&wq->mutex);
		atomic64_inc(&fwq_misuse_count);
		pr_err("workqueue %s destroyed twice\n", wq->name);
		return;
	}
	WRITE_ONCE(wq->flags, wq->flags | __FWQ_DESTROYING);
	mutex_unlock(&wq->mutex);

	fwq_drain_workqueue(wq);

	raw_spin_lock_irq(&fwq_mayday_lock);
	rescuer = wq->rescuer;
	wq->rescuer = NULL;
	raw_spin_unlock_irq(&fwq_mayday_lock);
	if (rescuer) {
		/*
		 * It empties wq->maydays before it exits, if it ever ran:
		 * kthread() returns -EINTR for a thread stopped before its
		 * function was called.
		 */
		bool never_ran = kthread_stop(rescuer->task) == -EINTR;

		if (never_ran)
			atomic64_inc(&fwq_rescuers_never_ran);
		put_task_struct(rescuer->task);
		atomic_dec(&fwq_objects[FWQ_OBJ_RESCUER]);
		kfree(rescuer);
		fwq_wq_drop_maydays(wq, never_ran);
	}

	fwq_dbg_leak_pwq_at(wq, FWQ_DBG_LEAK_BEFORE_CHECK);
	/*
	 * The checks, under every lock an in-flight put_pwq() or install
	 * may hold. A busy pwq is reported with who holds its references,
	 * as 7.3 shows it, and the workqueue is leaked, as 7.3 leaves it:
	 * freeing it would free what the holder still uses. The unload
	 * reaps it (fwq_wqs_reap()).
	 */
	mutex_lock(&fwq_pool_mutex);
	mutex_lock(&wq->mutex);
	list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
		fwq_pwq_snap(wq, pwq, &snap);
		if (!fwq_pwq_busy(&snap))
			continue;
		atomic64_inc(&fwq_misuse_count);
		if (snap.in_flight || snap.nr_active || snap.inactive)
			pr_err("destroying %s with work still in flight: leaking it\n",
			       wq->name);
		else
			pr_err("destroying %s with an extra pwq reference: leaking it\n",
			       wq->name);
		fwq_pwq_dump(NULL, "  busy ", pwq, &snap);
		list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
			fwq_pwq_snap(wq, pwq, &snap);
			fwq_pwq_dump(NULL, "  ", pwq, &snap);
		}
		mutex_unlock(&wq->mutex);
		mutex_unlock(&fwq_pool_mutex);
		return;
	}
	mutex_unlock(&wq->mutex);
	list_del_rcu(&wq->list);
	mutex_unlock(&fwq_pool_mutex);

	armed = refcount_read(&wq->ref) - 1;
	if (armed) {
		/* their timers or RCU callbacks point here: the wq outlives them */
		atomic64_inc(&fwq_misuse_count);
		pr_err("destroying %s with %u delayed or RCU items armed; they will be dropped\n",
		       wq->name, armed);
	}

	/* a leak that the checks above cannot see: the unload must find it */
	fwq_dbg_leak_pwq_at(wq, FWQ_DBG_LEAK_AFTER_CHECK);
	fwq_put_all_pwqs(wq);
}
EXPORT_SYMBOL_GPL(fwq_destroy_workqueue);

int fwq_workqueue_set_max_active(struct fwq_workqueue *wq, int max_active)
{
	if (!wq || (wq->flags & __FWQ_ORDERED) || max_active < 1 ||
	    max_active > FWQ_MAX_ACTIVE) {
		pr_err("set_max_active: %d refused for %s\n", max_active,
		       wq ? wq->name : "(null)");
		return -EINVAL;
	}
	mutex_lock(&fwq_pool_mutex);
	mutex_lock(&wq->mutex);
	wq->saved_max_active = max_active;
	fwq_wq_adjust_max_active(wq);
	mutex_unlock(&wq->mutex);
	mutex_unlock(&fwq_pool_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(fwq_workqueue_set_max_active);

void fwq_workqueue_variant(struct fwq_workqueue *wq, struct fwq_variant *v)
{
	mutex_lock(&wq->mutex);
	*v = wq->variant;
	mutex_unlock(&wq->mutex);
}
EXPORT_SYMBOL_GPL(fwq_workqueue_variant);

void fwq_workqueue_get_stats(struct fwq_workqueue *wq, struct fwq_wq_stats *st)
{
	struct fwq_pwq *pwq;
	int cpu, s;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		struct fwq_wq_pcpu_stats *p = per_cpu_ptr(wq->pcpu_stats, cpu);

		st->queued += READ_ONCE(p->queued);
		st->started += READ_ONCE(p->started);
		st->completed += READ_ONCE(p->completed);
		st->flush_ns += READ_ONCE(p->flush_ns);
		for (s = 0; s < FWQ_SITE_NR; s++) {
			st->wakeups[s][0] += READ_ONCE(p->wakeups[s][0]);
			st->wakeups[s][1] += READ_ONCE(p->wakeups[s][1]);
		}
	}
	mutex_lock(&wq->mutex);
	st->flushes = wq->nr_flushes;
	st->flush_pwqs_visited = wq->flush_pwqs_visited;
	st->flush_lock_cycles = wq->flush_lock_cycles;
	list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
		st->repatriated += READ_ONCE(pwq->stats[PWQ_STAT_REPATRIATED]);
		st->cpu_intensive +=
			READ_ONCE(pwq->stats[PWQ_STAT_CPU_INTENSIVE]);
	}
	mutex_unlock(&wq->mutex);
}
EXPORT_SYMBOL_GPL(fwq_workqueue_get_stats);

static void fwq_wq_show_one(struct seq_file *m, struct fwq_workqueue *wq)
{
	struct fwq_flusher *f;
	struct fwq_pwq *pwq, *dfl;
	char vbuf[96];
	int nq = 0, no = 0, cpu;

	mutex_lock(&wq->mutex);
	fwq_variant_str(&wq->variant, vbuf, sizeof(vbuf));
	list_for_each_entry(f, &wq->flusher_queue, list)
		nq++;
	list_for_each_entry(f, &wq->flusher_overflow, list)
		no++;
	seq_printf(m, "wq %s: %s%s%s%s %s max_active=%d min_active=%d work_color=%d flush_color=%d flusher_queue=%d flusher_overflow=%d drainers=%d\n",
		   wq->name, fwq_wq_unbound(wq) ? "unbound" : "percpu",
		   (wq->flags & __FWQ_ORDERED) ? ",ordered" : "",
		   (wq->unbound_attrs && wq->unbound_attrs->affn_strict) ?
		   ",S" : "",
		   (wq->flags & FWQ_MEM_RECLAIM) ? ",reclaim" : "", vbuf,
		   wq->max_active, wq->min_active, wq->work_color,
		   wq->flush_color, nq, no, wq->nr_drainers);
	if (wq->unbound_attrs)
		seq_printf(m, "  scope=%s cpus=%*pbl nice=%d\n",
			   fwq_affn_scope_name(wq->unbound_attrs->affn_scope),
			   cpumask_pr_args(wq->unbound_attrs->cpumask),
			   wq->unbound_attrs->nice);
	seq_puts(m, "  cpu->pool:");
	for_each_online_cpu(cpu) {
		pwq = rcu_dereference_protected(*per_cpu_ptr(wq->cpu_pwq, cpu),
						lockdep_is_held(&wq->mutex));
		seq_printf(m, " %d:%d", cpu, pwq ? pwq->pool->id : -1);
	}
	dfl = rcu_dereference_protected(wq->dfl_pwq,
					lockdep_is_held(&wq->mutex));
	if (dfl)
		seq_printf(m, " dfl:%d", dfl->pool->id);
	seq_putc(m, '\n');
	if (wq->flush_ops->show)
		wq->flush_ops->show(m, wq);
	mutex_unlock(&wq->mutex);
}

void fwq_wqs_show(struct seq_file *m)
{
	struct fwq_workqueue *wq;

	mutex_lock(&fwq_pool_mutex);
	list_for_each_entry(wq, &fwq_workqueues, list)
		fwq_wq_show_one(m, wq);
	mutex_unlock(&fwq_pool_mutex);
}

void fwq_nr_active_show(struct seq_file *m)
{
	struct fwq_workqueue *wq;
	int i;

	mutex_lock(&fwq_pool_mutex);
	list_for_each_entry(wq, &fwq_workqueues, list) {
		if (!fwq_wq_unbound(wq))
			continue;
		seq_printf(m, "%s: min=%d max=%d", wq->name,
			   READ_ONCE(wq->min_active), READ_ONCE(wq->max_active));
		for (i = 0; i <= nr_node_ids; i++)
			seq_printf(m, " %s%d:%d/%d",
				   i == nr_node_ids ? "dfl" : "node",
				   i == nr_node_ids ? 0 : i,
				   atomic_read(&wq->nna[i]->nr),
				   READ_ONCE(wq->nna[i]->max));
		seq_putc(m, '\n');
	}
	mutex_unlock(&fwq_pool_mutex);
}

/* debugfs variant_map: "NAME VARIANT SOURCE" per workqueue */
void fwq_variant_map_show(struct seq_file *m)
{
	struct fwq_workqueue *wq;
	char vbuf[96];

	mutex_lock(&fwq_pool_mutex);
	list_for_each_entry(wq, &fwq_workqueues, list) {
		mutex_lock(&wq->mutex);
		fwq_variant_str(&wq->variant, vbuf, sizeof(vbuf));
		mutex_unlock(&wq->mutex);
		seq_printf(m, "%s %s %s\n", wq->name, vbuf, wq->variant_src);
	}
	mutex_unlock(&fwq_pool_mutex);
}

/* a line of a dump: to @m, or with @m NULL to the kernel log */
void fwq_dump_printk(struct seq_file *m, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	if (m) {
		seq_vprintf(m, fmt, args);
	} else {
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_err("%pV", &vaf);
	}
	va_end(args);
}

/**
 * fwq_objects_dump - every workqueue, pwq and unbound pool alive
 * @m: the debugfs file, or NULL for the kernel log
 *
 * Each workqueue from fwq_all_wqs, listed (alive for its creator) or
 * destroyed (alive for a reference someone still holds), each of its
 * pwqs with who holds its references (fwq_pwq_dump()), then every unbound
 * pool. Under RCU: the pwqs and pools it reaches are freed a grace period
 * after they leave the lists.
 */
void fwq_objects_dump(struct seq_file *m)
{
	struct fwq_workqueue *wq;
	struct fwq_pwq_snap snap;
	struct fwq_pwq *pwq;

	fwq_dump_printk(m, "objects: %d workqueues, %d pwqs, %d unbound pools, %d rescuers\n",
			atomic_read(&fwq_objects[FWQ_OBJ_WQ]),
			atomic_read(&fwq_objects[FWQ_OBJ_PWQ]),
			atomic_read(&fwq_objects[FWQ_OBJ_UNBOUND_POOL]),
			atomic_read(&fwq_objects[FWQ_OBJ_RESCUER]));
	rcu_read_lock();
	list_for_each_entry_rcu(wq, &fwq_all_wqs, all_node) {
		unsigned int flags = READ_ONCE(wq->flags);

		fwq_dump_printk(m, "wq %s: %s %s, ref %u\n", wq->name,
				(flags & FWQ_UNBOUND) ? "unbound" : "percpu",
				(flags & __FWQ_DESTROYING) ? "destroyed" :
				"listed", refcount_read(&wq->ref));
		list_for_each_entry_rcu(pwq, &wq->pwqs, pwqs_node) {
			fwq_pwq_snap(wq, pwq, &snap);
			fwq_pwq_dump(m, "  ", pwq, &snap);
		}
	}
	rcu_read_unlock();
	fwq_unbound_pools_dump(m);
}

/*
 * The unload's reaper (fwq_reap_leaks(), main.c, says why): release
 * every pwq of @wq as the release kthread releases one whose last
 * reference went. The last one puts the pwqs' reference on @wq.
 */
static void fwq_wq_reap(struct fwq_workqueue *wq)
{
	struct fwq_pwq_snap snap;
	struct fwq_pwq *pwq;

	for (;;) {
		mutex_lock(&wq->mutex);
		pwq = list_first_entry_or_null(&wq->pwqs, struct fwq_pwq,
					       pwqs_node);
		if (pwq)
			fwq_pwq_snap(wq, pwq, &snap);
		mutex_unlock(&wq->mutex);
		if (!pwq)
			break;
		fwq_dump_printk(NULL, "unload: %s: releasing leaked ", wq->name);
		fwq_pwq_dump(NULL, "", pwq, &snap);
		raw_spin_lock_irq(&fwq_mayday_lock);
		list_del_init(&pwq->mayday_node);
		raw_spin_unlock_irq(&fwq_mayday_lock);
		fwq_pool_lock_irq(pwq->pool);
		list_del_init(&pwq->mayday_cursor.entry);
		pwq->refcnt = 0;
		fwq_pool_unlock_irq(pwq->pool);
		fwq_pwq_release_workfn(&pwq->release_work);
	}
}

/* the unload's reaper for every workqueue still alive; see above */
void fwq_wqs_reap(void)
{
	struct fwq_workqueue *wq;

	for (;;) {
		bool pinned = false;

		raw_spin_lock_irq(&fwq_all_wqs_lock);
		list_for_each_entry(wq, &fwq_all_wqs, all_node) {
			if (wq->reaped)
				continue;
			wq->reaped = true;
			pinned = refcount_inc_not_zero(&wq->ref);
			if (pinned)
				break;
		}
		raw_spin_unlock_irq(&fwq_all_wqs_lock);
		if (!pinned)
			break;
		fwq_wq_reap(wq);
		if (refcount_read(&wq->ref) > 1)
			pr_err("unload: %s stays allocated: %u delayed items still armed on it\n",
			       wq->name, refcount_read(&wq->ref) - 1);
		fwq_wq_put(wq);
	}
}

/*
 * FWQ_FREEZABLE: fwq's workers are not frozen, so while a workqueue made
 * with it exists, suspend and hibernation are refused before the freezer
 * runs. Only this cold path looks at the flag.
 */
static int fwq_pm_notify(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	struct fwq_workqueue *wq;
	int ret = NOTIFY_DONE;

	if (action != PM_SUSPEND_PREPARE && action != PM_HIBERNATION_PREPARE)
		return NOTIFY_DONE;
	mutex_lock(&fwq_pool_mutex);
	list_for_each_entry(wq, &fwq_workqueues, list) {
		if (!(wq->flags & FWQ_FREEZABLE))
			continue;
		pr_warn("refusing %s: workqueue %s is FWQ_FREEZABLE and fwq does not freeze its workers\n",
			action == PM_SUSPEND_PREPARE ? "suspend" : "hibernation",
			wq->name);
		ret = notifier_from_errno(-EBUSY);
		break;
	}
	mutex_unlock(&fwq_pool_mutex);
	return ret;
}

static struct notifier_block fwq_pm_nb = {
	.notifier_call = fwq_pm_notify,
};

int fwq_pm_init(void)
{
	return register_pm_notifier(&fwq_pm_nb);
}

void fwq_pm_exit(void)
{
	unregister_pm_notifier(&fwq_pm_nb);
}
