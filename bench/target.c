// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_bench targets: fwq (fwq.ko, any variant) or kwq (the running kernel's
 * own workqueue). Every scenario goes through these helpers, so both targets
 * run exactly the same benchmark code. fwq_bench links against fwq.ko.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "bench.h"

static void bench_item_body(struct bench_item *it)
{
	struct bench_run *run = it->run;

	/* no clock read for an item nobody times (t_queue 0, no busy time) */
	if (it->t_queue || run->work_ns)
		it->t_start = ktime_get_ns();
	if (run->work_ns) {
		u64 end = it->t_start + run->work_ns;

		while (ktime_get_ns() < end)
			cpu_relax();
	}
	if (it->left) {
		if (atomic_dec_and_test(it->left))
			complete(it->done);
	} else if (it->done) {
		complete(it->done);
	}
}

static void bench_kwq_fn(struct work_struct *w)
{
	bench_item_body(container_of(w, struct bench_item, kw));
}

static int bench_kwq_create(struct bench_run *run, struct bench_wq *bwq,
			    unsigned int idx)
{
	const struct bench_spec *s = run->spec;
	unsigned int flags = 0;

	if (s->scenario == BS_S5)
		flags |= WQ_MEM_RECLAIM | WQ_FREEZABLE;
	switch (s->type) {
	case BW_UNBOUND:
		bwq->kwq = alloc_workqueue("fwqb_k%u", flags | WQ_UNBOUND,
					   run->max_active, idx);
		break;
	case BW_PERCPU:
		bwq->kwq = alloc_workqueue("fwqb_k%u", flags | FWQ_WQ_PERCPU,
					   run->max_active, idx);
		break;
	case BW_ORDERED:
		bwq->kwq = alloc_ordered_workqueue("fwqb_k%u", flags, idx);
		break;
	}
	return bwq->kwq ? 0 : -ENOMEM;
}

static void bench_fwq_fn(struct fwq_work *w)
{
	bench_item_body(container_of(w, struct bench_item, fw));
}

int bench_variant_check(const char *s, char *norm, size_t len)
{
	struct fwq_variant v;
	int ret;

	fwq_default_variant(&v);
	ret = fwq_variant_parse(s, &v);
	if (ret)
		return ret;
	if (norm)
		fwq_variant_str(&v, norm, len);
	return 0;
}

static int bench_fwq_create(struct bench_run *run, struct bench_wq *bwq,
			    unsigned int idx)
{
	const struct bench_spec *s = run->spec;
	struct fwq_workqueue_attrs *attrs;
	unsigned int flags = 0;
	struct fwq_variant v;
	int ret;

	fwq_default_variant(&v);
	if (fwq_variant_parse(s->variant, &v))
		return -EINVAL;
	if (s->scenario == BS_S5)
		flags |= FWQ_MEM_RECLAIM;

	switch (s->type) {
	case BW_UNBOUND:
		bwq->fwq = fwq_alloc_workqueue_variant(&v, "fwqb_f%u",
						       flags | FWQ_UNBOUND,
						       run->max_active, idx);
		break;
	case BW_PERCPU:
		bwq->fwq = fwq_alloc_workqueue_variant(&v, "fwqb_f%u",
						       flags | FWQ_PERCPU,
						       run->max_active, idx);
		break;
	case BW_ORDERED:
		bwq->fwq = fwq_alloc_ordered_workqueue_variant(&v, "fwqb_f%u",
							       flags, idx);
		break;
	}
	if (!bwq->fwq)
		return -ENOMEM;

	if (s->type != BW_UNBOUND ||
	    (s->scope == FWQ_AFFN_DFL && !s->strict))
		return 0;

	attrs = fwq_alloc_workqueue_attrs();
	if (!attrs) {
		ret = -ENOMEM;
		goto err;
	}
	attrs->affn_scope = s->scope;
	attrs->affn_strict = s->strict;
	attrs->variant = v;
	ret = fwq_apply_workqueue_attrs(bwq->fwq, attrs);
	fwq_free_workqueue_attrs(attrs);
	if (ret) {
		pr_warn("fwq_apply_workqueue_attrs(scope=%s) failed: %d\n",
			fwq_affn_scope_names[s->scope], ret);
		goto err;
	}
	return 0;
err:
	fwq_destroy_workqueue(bwq->fwq);
	bwq->fwq = NULL;
	return ret;
}

static void bench_fwq_destroy(struct bench_wq *bwq)
{
	fwq_destroy_workqueue(bwq->fwq);
}

static void bench_fwq_item_init(struct bench_item *it)
{
	FWQ_INIT_WORK(&it->fw, bench_fwq_fn);
}

static bool bench_fwq_queue(struct bench_wq *bwq, int cpu,
			    struct bench_item *it)
{
	return fwq_queue_work_on(cpu, bwq->fwq, &it->fw);
}

static void bench_fwq_flush(struct bench_wq *bwq)
{
	fwq_flush_workqueue(bwq->fwq);
}

static bool bench_fwq_pending(struct bench_item *it)
{
	return fwq_work_pending(&it->fw);
}

bool bench_stats(struct bench_run *run, struct fwq_wq_stats *st)
{
	struct fwq_wq_stats one;
	unsigned int i, j, k;

	memset(st, 0, sizeof(*st));
	if (run->spec->target != BT_FWQ)
		return false;
	for (i = 0; i < run->nwq; i++) {
		if (!run->wq[i].fwq)
			continue;
		fwq_workqueue_get_stats(run->wq[i].fwq, &one);
		st->queued += one.queued;
		st->started += one.started;
		st->completed += one.completed;
		st->flushes += one.flushes;
		st->flush_pwqs_visited += one.flush_pwqs_visited;
		st->flush_lock_cycles += one.flush_lock_cycles;
		for (j = 0; j < FWQ_SITE_NR; j++)
			for (k = 0; k < 2; k++)
				st->wakeups[j][k] += one.wakeups[j][k];
	}
	return true;
}

int bench_lockstat_begin(struct bench_run *run)
{
	run->ls = kzalloc(sizeof(*run->ls), GFP_KERNEL);
	if (!run->ls)
		return -ENOMEM;
	fwq_lockstat_enable(true);
	return 0;
}

void bench_lockstat_end(struct bench_run *run)
{
	if (!run->ls)
		return;
	fwq_lockstat_read(run->ls);
	fwq_lockstat_enable(false);
}

int bench_wq_create(struct bench_run *run, struct bench_wq *bwq,
		    unsigned int idx)
{
	bwq->target = run->spec->target;
	if (bwq->target == BT_KWQ)
		return bench_kwq_create(run, bwq, idx);
	return bench_fwq_create(run, bwq, idx);
}

void bench_wq_destroy(struct bench_wq *bwq)
{
	if (bwq->kwq)
		destroy_workqueue(bwq->kwq);
	if (bwq->fwq)
		bench_fwq_destroy(bwq);
	bwq->kwq = NULL;
	bwq->fwq = NULL;
}

/*
 * Initialize (or re-initialize, as test_workqueue does before every queueing)
 * a work item for the target of @bwq.
 */
void bench_item_init(struct bench_item *it, struct bench_wq *bwq,
		     struct bench_run *run)
{
	it->run = run;
	it->t_queue = 0;
	if (bwq->target == BT_KWQ)
		INIT_WORK(&it->kw, bench_kwq_fn);
	else
		bench_fwq_item_init(it);
}

/* @cpu: a CPU, or -1 for the local CPU's pwq. */
bool bench_queue(struct bench_wq *bwq, int cpu, struct bench_item *it)
{
	if (bwq->target == BT_KWQ)
		return queue_work_on(cpu < 0 ? WORK_CPU_UNBOUND : cpu,
				     bwq->kwq, &it->kw);
	return bench_fwq_queue(bwq, cpu < 0 ? FWQ_CPU_UNBOUND : cpu, it);
}

void bench_flush(struct bench_wq *bwq)
{
	if (bwq->target == BT_KWQ)
		flush_workqueue(bwq->kwq);
	else
		bench_fwq_flush(bwq);
}

bool bench_item_pending(struct bench_wq *bwq, struct bench_item *it)
{
	if (bwq->target == BT_KWQ)
		return work_pending(&it->kw);
	return bench_fwq_pending(it);
}
