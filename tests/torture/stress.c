// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_torture: the stress threads and their invariants.
 *
 * Producers own their items: only the owner (and the item's own function,
 * for self-requeueing) queues or cancels an item, so right after an
 * owner's cancel_*_sync() the item is quiescent and its sequence accounting
 * must balance exactly. Chained items are queued only by another item's
 * function and are checked when everything is quiescent at the end.
 *
 * Flushers check that each flush covered every queueing counted before it
 * started: after fwq_flush_workqueue() (or fwq_flush_work()) returns,
 * nrun + nc >= the nq snapshot taken before the call, for every item whose
 * accounting no cancel overlapped. Delayed items are not covered by
 * fwq_flush_workqueue() (their timers may not have fired), so only the
 * immediate and chained items are listed per workqueue.
 *
 * Item functions check non-reentrancy, max_active and ordering.
 */
#define pr_fmt(fmt) "fwq-torture: " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#include "torture.h"

#define TT_ITEMS_PER_PRODUCER	12
#define TT_CHURN_ITEMS		16

static int tt_limit(struct tt_wq *tw)
{
	return READ_ONCE(tw->limit_hi);
}

static void tt_work_fn(struct fwq_work *work)
{
	struct tt_item *it = container_of(to_fwq_delayed_work(work),
					  struct tt_item, dw);
	struct tt_wq *tw = it->tw;
	unsigned long flags;
	int a, c, hwm;

	if (it->magic != TT_MAGIC) {
		tt_fail("item %p: bad magic %lx (run after free?)\n",
			it, it->magic);
		return;
	}
	if (atomic_inc_return(&it->running) != 1)
		tt_fail("item %p runs concurrently with itself\n", it);

	a = atomic_inc_return(&tw->active);
	hwm = atomic_read(&tw->hwm);
	while (a > hwm && !atomic_try_cmpxchg(&tw->hwm, &hwm, a))
		;
	if (tw->ordered) {
		if (a > 1)
			tt_fail("ordered wq: %d items active\n", a);
		/*
		 * Only probes carry a trustworthy number: any other item may
		 * be queued again between its dispatch and this read.
		 */
		if (it->kind == TT_PROBE) {
			spin_lock_irqsave(&tw->olock, flags);
			if (it->oseq <= tw->last_seq)
				tt_fail("ordered wq: probe seq %llu ran after %llu\n",
					it->oseq, tw->last_seq);
			tw->last_seq = it->oseq;
			spin_unlock_irqrestore(&tw->olock, flags);
			atomic64_inc(&tt_stats.order_checks);
		}
	} else if (tw->percpu) {
		c = atomic_inc_return(&tw->active_cpu[it->home_cpu]);
		if (c > tt_limit(tw))
			tt_fail("per-cpu wq: %d active on CPU %d, max_active %d\n",
				c, it->home_cpu, tt_limit(tw));
	} else if (a > tt_limit(tw) * ((int)nr_cpu_ids + 1)) {
		/*
		 * Unbound: max_active applies per pod pwq; without knowing the
		 * pods, only the bound over all of them can be checked.
		 */
		tt_fail("unbound wq: %d active, max_active %d\n",
			a, tt_limit(tw));
	}

	/* a little work: mostly busy, sometimes sleeping (CM wakes others) */
	switch (it->payload++ & 7) {
	case 0:
		usleep_range(20, 60);
		break;
	case 1:
	case 2:
		udelay(5);
		break;
	default:
		cpu_relax();
		break;
	}

	if (!READ_ONCE(tt_stopping)) {
		if (atomic_dec_if_positive(&it->requeue_budget) >= 0)
			tt_queue(it, tw->percpu ? TTQ_ON : TTQ_LOCAL, 0, NULL);
		if (it->chain_next &&
		    atomic_dec_if_positive(&it->chain_budget) >= 0)
			tt_queue(it->chain_next, TTQ_ON, 0, NULL);
	}

	if (tw->percpu && !tw->ordered)
		atomic_dec(&tw->active_cpu[it->home_cpu]);
	atomic_dec(&tw->active);
	/* selfcheck: one run goes uncounted, which the checks must catch */
	if (!atomic_read(&tt_selfcheck_armed) ||
	    atomic_cmpxchg(&tt_selfcheck_armed, 1, 0) != 1)
		atomic_inc(&it->nrun);
	atomic64_inc(&tt_stats.ran);
	atomic_dec(&it->running);
	if (it->kind == TT_PROBE)
		atomic_set_release(&it->busy, 0);
}

int tt_random_online_cpu(struct rnd_state *rs)
{
	int n = num_online_cpus();
	int cpu, i = rs ? tt_rand(rs, n) : 0;

	for_each_online_cpu(cpu)
		if (i-- == 0)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

static int tt_random_node(struct rnd_state *rs)
{
	int n, i;

	if (!rs || !tt_rand(rs, 4))
		return NUMA_NO_NODE;
	i = tt_rand(rs, num_online_nodes());
	for_each_online_node(n)
		if (i-- == 0)
			return n;
	return NUMA_NO_NODE;
}

/**
 * tt_queue - queue an item, with the accounting
 * @it: the item
 * @how: TTQ_*; adjusted to what the item's kind and workqueue allow
 * @delay: jiffies, for TTQ_DELAYED and TTQ_MOD
 * @rs: random state for the CPU/node choice, NULL from item functions
 *
 * Per-CPU workqueue items always go to their home CPU's pwq (directly, or
 * through the local-CPU path when that is the home CPU), so max_active can
 * be checked per CPU. Ordered workqueues queue and number under tw->olock,
 * so the numbering is the queueing order.
 *
 * Return: true if the item was queued (newly pending).
 */
bool tt_queue(struct tt_item *it, enum tt_how how, unsigned long delay,
	      struct rnd_state *rs)
{
	struct tt_wq *tw = it->tw;
	struct fwq_workqueue *wq = tw->wq;
	unsigned long flags;
	bool ret, counted;
	int cpu, dcpu;

	if (it->kind == TT_DELAYED) {
		if (how != TTQ_MOD)
			how = TTQ_DELAYED;
	} else if (how == TTQ_DELAYED || how == TTQ_MOD) {
		how = TTQ_ON;
	}

	if (tw->ordered) {
		spin_lock_irqsave(&tw->olock, flags);
		if (how == TTQ_NODE)
			ret = fwq_queue_work_node(tt_random_node(rs), wq,
						  &it->dw.work);
		else
			ret = fwq_queue_work(wq, &it->dw.work);
		if (ret && it->kind == TT_PROBE)
			it->oseq = ++tw->qseq;
		spin_unlock_irqrestore(&tw->olock, flags);
		counted = ret;
		goto out;
	}

	cpu = tw->percpu ? it->home_cpu :
	      (rs ? tt_random_online_cpu(rs) : raw_smp_processor_id());
	/* the delayed forms: the home CPU, or none on an unbound workqueue */
	dcpu = tw->percpu ? cpu : FWQ_CPU_UNBOUND;
	switch (how) {
	case TTQ_LOCAL:
		if (tw->percpu) {
			preempt_disable();
			if (smp_processor_id() == cpu)
				ret = fwq_queue_work(wq, &it->dw.work);
			else
				ret = fwq_queue_work_on(cpu, wq, &it->dw.work);
			preempt_enable();
		} else {
			ret = fwq_queue_work(wq, &it->dw.work);
		}
		counted = ret;
		break;
	case TTQ_NODE:
		if (!tw->percpu) {
			ret = fwq_queue_work_node(tt_random_node(rs), wq,
						  &it->dw.work);
			counted = ret;
			break;
		}
		fallthrough;
	case TTQ_ON:
	default:
		ret = fwq_queue_work_on(cpu, wq, &it->dw.work);
		counted = ret;
		break;
	case TTQ_DELAYED:
		ret = fwq_queue_delayed_work_on(dcpu, wq, &it->dw, delay);
		counted = ret;
		break;
	case TTQ_MOD:
		/* true: was pending, only the timer moved; false: queued */
		ret = fwq_mod_delayed_work_on(dcpu, wq, &it->dw, delay);
		counted = !ret;
		ret = counted;
		break;
	}
out:
	if (counted) {
		atomic_inc(&it->nq);
		atomic64_inc(&tt_stats.queued);
	}
	return ret;
}

/* cancel with the accounting; @sync waits */
static bool tt_cancel(struct tt_item *it, bool sync)
{
	bool ret;

	atomic_inc(&it->cancelling);
	/* a flusher's snapshot sees cancelling before our cancel's effect */
	smp_mb__after_atomic();
	if (it->kind == TT_DELAYED)
		ret = sync ? fwq_cancel_delayed_work_sync(&it->dw) :
			     fwq_cancel_delayed_work(&it->dw);
	else
		ret = sync ? fwq_cancel_work_sync(&it->dw.work) :
			     fwq_cancel_work(&it->dw.work);
	if (ret) {
		atomic_inc(&it->nc);
		atomic64_inc(&tt_stats.cancelled);
	}
	/* nc before cancel_gen: a flusher that sees the old gen sees old nc */
	smp_mb__before_atomic();
	atomic_inc(&it->cancel_gen);
	atomic_dec(&it->cancelling);
	return ret;
}

/**
 * tt_check_exact - the accounting of a quiescent item must balance
 * @it: the item; nothing may queue it meanwhile
 * @when: for the message
 *
 * Return: true if it balanced.
 */
bool tt_check_exact(struct tt_item *it, const char *when)
{
	int nq = atomic_read(&it->nq), nc = atomic_read(&it->nc);
	int nrun = atomic_read(&it->nrun);

	atomic64_inc(&tt_stats.exact_checks);
	if (nrun == nq - nc && !atomic_read(&it->running))
		return true;
	tt_fail("%s: item %p (kind %d) queued %d cancelled %d ran %d: %s\n",
		when, it, it->kind, nq, nc, nrun,
		nrun > nq - nc ? "ran twice" : "lost");
	return false;
}

/* a flush snapshot of one item */
struct tt_snap {
	int nq;
	int cancel_gen;
	bool busy;
};

static void tt_snap_take(struct tt_item *it, struct tt_snap *s)
{
	s->cancel_gen = atomic_read(&it->cancel_gen);
	/* pairs with the barriers in tt_cancel() */
	smp_rmb();
	s->busy = atomic_read(&it->cancelling);
	s->nq = atomic_read(&it->nq);
}

/* after the flush: everything counted in @s must have run or be cancelled */
static void tt_snap_check(struct tt_item *it, struct tt_snap *s,
			  const char *what)
{
	int nrun = atomic_read(&it->nrun), nc = atomic_read(&it->nc);

	/* counts before the cancel state, pairs with tt_cancel() */
	smp_rmb();
	if (s->busy || atomic_read(&it->cancelling) ||
	    atomic_read(&it->cancel_gen) != s->cancel_gen) {
		atomic64_inc(&tt_stats.flush_skipped);
		return;
	}
	atomic64_inc(&tt_stats.flush_checked);
	if (nrun + nc < s->nq)
		tt_fail("%s returned early: item %p queued %d before it, ran %d cancelled %d\n",
			what, it, s->nq, nrun, nc);
}

static void tt_flush_wq_checked(struct tt_wq *tw, struct tt_snap *snap)
{
	int i;

	for (i = 0; i < tw->nr_items; i++)
		tt_snap_take(tw->items[i], &snap[i]);
	fwq_flush_workqueue(tw->wq);
	atomic64_inc(&tt_stats.flush_wq);
	for (i = 0; i < tw->nr_items; i++)
		tt_snap_check(tw->items[i], &snap[i], "fwq_flush_workqueue");
}

static void tt_flush_item_checked(struct tt_item *it)
{
	struct tt_snap s;

	tt_snap_take(it, &s);
	if (it->kind == TT_DELAYED)
		fwq_flush_delayed_work(&it->dw);
	else
		fwq_flush_work(&it->dw.work);
	atomic64_inc(&tt_stats.flush_work);
	tt_snap_check(it, &s, it->kind == TT_DELAYED ?
		      "fwq_flush_delayed_work" : "fwq_flush_work");
}

/*
 * max_active churn: raise limit_hi first, lower it only after a flush that
 * started after the change, when no item activated under the old value
 * can still run.
 */
static void tt_set_max_active(struct tt_wq *tw, int ma, struct tt_snap *snap)
{
	int ret;

	if (tw->ordered)
		return;
	mutex_lock(&tw->ma_mutex);
	WRITE_ONCE(tw->limit_hi, max(tw->limit_hi, ma));
	ret = fwq_workqueue_set_max_active(tw->wq, ma);
	if (ret) {
		tt_fail("set_max_active(%d) failed: %d\n", ma, ret);
	} else {
		atomic64_inc(&tt_stats.set_max_active);
		tt_flush_wq_checked(tw, snap);
		WRITE_ONCE(tw->limit_hi, ma);
	}
	mutex_unlock(&tw->ma_mutex);
}

int tt_wq_init(struct tt_wq *tw, enum tt_wq_type type, int max_active,
	       const char *name)
{
	unsigned int flags = 0;

	memset(tw, 0, sizeof(*tw));
	tw->type = type;
	mutex_init(&tw->ma_mutex);
	spin_lock_init(&tw->olock);
	switch (type) {
	case TT_WQ_PERCPU:
		tw->percpu = true;
		break;
	case TT_WQ_HIGHPRI:
		tw->percpu = true;
		flags |= FWQ_HIGHPRI;
		break;
	case TT_WQ_UNBOUND:
		flags |= FWQ_UNBOUND;
		break;
	case TT_WQ_ORDERED:
		tw->ordered = true;
		max_active = 1;
		break;
	default:
		return -EINVAL;
	}
	if (tw->percpu) {
		tw->active_cpu = kcalloc(nr_cpu_ids, sizeof(atomic_t),
					 GFP_KERNEL);
		if (!tw->active_cpu)
			return -ENOMEM;
	}
	tw->limit_hi = max_active ? max_active : FWQ_DFL_ACTIVE;
	if (tw->ordered)
		tw->wq = fwq_alloc_ordered_workqueue_variant(&tt_variant, "%s",
							     0, name);
	else
		tw->wq = fwq_alloc_workqueue_variant(&tt_variant, "%s", flags,
						     max_active, name);
	if (!tw->wq) {
		kfree(tw->active_cpu);
		tw->active_cpu = NULL;
		return -ENOMEM;
	}
	return 0;
}

void tt_wq_exit(struct tt_wq *tw)
{
	if (tw->wq)
		fwq_destroy_workqueue(tw->wq);
	tw->wq = NULL;
	kfree(tw->active_cpu);
	tw->active_cpu = NULL;
	kfree(tw->items);
	tw->items = NULL;
}

void tt_item_init(struct tt_item *it, struct tt_wq *tw, enum tt_kind kind,
		  int home_cpu)
{
	memset(it, 0, sizeof(*it));
	FWQ_INIT_DELAYED_WORK(&it->dw, tt_work_fn);
	it->magic = TT_MAGIC;
	it->tw = tw;
	it->kind = kind;
	it->home_cpu = home_cpu;
}

/* ---- shared workqueues, producers, flushers ---------------------------- */

#define TT_PROBES	4

struct tt_producer {
	struct task_struct *task;
	int id;
	u32 seed;
	struct tt_item items[TT_ITEMS_PER_PRODUCER];
	struct tt_item chained[TT_ITEMS_PER_PRODUCER / 4];
	struct tt_item probes[TT_PROBES];	/* on the ordered wq, if any */
	int nr_probes;
	u64 ops;
	u64 last_ops;
};

static struct tt_wq tt_wqs[TT_WQ_NR];
static int tt_nr_wqs;
static struct tt_producer *tt_producers;
static int tt_nr_producers;
static struct task_struct **tt_flushers;
static int tt_nr_flushers;
static struct task_struct **tt_churners;
static int tt_nr_churners;
static int tt_max_active;

static void tt_producer_op(struct tt_producer *p, struct rnd_state *rs)
{
	struct tt_item *it = &p->items[tt_rand(rs, TT_ITEMS_PER_PRODUCER)];
	u32 op = tt_rand(rs, 100);

	if (op < 55) {
		if (it->kind != TT_DELAYED) {
			atomic_set(&it->requeue_budget, tt_rand(rs, 4) == 0 ?
				   tt_rand(rs, 4) : 0);
			if (it->chain_next)
				atomic_set(&it->chain_budget, tt_rand(rs, 3));
		}
		tt_queue(it, tt_rand(rs, TTQ_NR), tt_rand(rs, 3), rs);
	} else if (op < 70) {
		tt_cancel(it, false);
	} else if (op < 80) {
		tt_cancel(it, true);
		tt_check_exact(it, "cancel_sync");
	} else if (op < 85) {
		tt_flush_item_checked(it);
	} else if (op < 90) {
		/* ordering probes: each queued only once its last run ended */
		int i;

		for (i = 0; i < p->nr_probes; i++)
			if (!atomic_xchg(&p->probes[i].busy, 1))
				tt_queue(&p->probes[i], TTQ_LOCAL, 0, rs);
	} else {
		/* a burst on one item's workqueue */
		int i;

		for (i = 0; i < 8; i++)
			tt_queue(&p->items[tt_rand(rs, TT_ITEMS_PER_PRODUCER)],
				 TTQ_ON, 0, rs);
	}
	p->ops++;
	atomic64_inc(&tt_stats.ops);
}

static int tt_producer_fn(void *arg)
{
	struct tt_producer *p = arg;
	struct rnd_state rs;

	prandom_seed_state(&rs, p->seed);
	set_user_nice(current, MAX_NICE);
	while (!kthread_should_stop()) {
		if (tt_stutter_wait())
			continue;
		tt_producer_op(p, &rs);
		if (!tt_rand(&rs, 64))
			schedule_timeout_interruptible(1);
		else
			cond_resched();
	}
	return 0;
}

static int tt_flusher_fn(void *arg)
{
	struct rnd_state rs;
	struct tt_snap *snap;
	int i, max_items = 0;

	prandom_seed_state(&rs, (u32)(unsigned long)arg);
	for (i = 0; i < tt_nr_wqs; i++)
		max_items = max(max_items, tt_wqs[i].nr_items);
	snap = kcalloc(max(max_items, TT_CHURN_ITEMS), sizeof(*snap),
		       GFP_KERNEL);
	if (!snap) {
		tt_fail("flusher: no memory\n");
		return 0;
	}
	set_user_nice(current, MAX_NICE);
	while (!kthread_should_stop()) {
		struct tt_wq *tw = &tt_wqs[tt_rand(&rs, tt_nr_wqs)];
		u32 op = tt_rand(&rs, 100);

		if (op < 70) {
			tt_flush_wq_checked(tw, snap);
		} else if (op < 90 && tw->nr_items) {
			int n = tt_rand(&rs, tw->nr_items);

			tt_flush_item_checked(tw->items[n]);
		} else {
			int ma = 1 + tt_rand(&rs, 2 * tt_max_active);

			tt_set_max_active(tw, ma, snap);
		}
		schedule_timeout_interruptible(1 + tt_rand(&rs, 3));
	}
	kfree(snap);
	return 0;
}

/* alloc/destroy churn: private workqueues under load */
static void tt_churn_cycle(struct rnd_state *rs, struct tt_snap *snap)
{
	static const enum tt_wq_type types[] = {
		TT_WQ_PERCPU, TT_WQ_UNBOUND, TT_WQ_ORDERED,
	};
	struct tt_wq *tw;
	struct tt_item *items;
	int i, n, ma = 1 + tt_rand(rs, 4);

	tw = kzalloc(sizeof(*tw), GFP_KERNEL);
	items = kcalloc(TT_CHURN_ITEMS, sizeof(*items), GFP_KERNEL);
	if (!tw || !items)
		goto out_free;
	if (tt_wq_init(tw, types[tt_rand(rs, ARRAY_SIZE(types))], ma,
		       "fwqt_churn")) {
		tt_anomaly("churn: workqueue allocation failed\n");
		goto out_free;
	}
	tw->items = kcalloc(TT_CHURN_ITEMS, sizeof(*tw->items), GFP_KERNEL);
	if (!tw->items)
		goto out_wq;
	for (i = 0; i < TT_CHURN_ITEMS; i++) {
		enum tt_kind kind = (i & 3) == 3 && !tw->ordered ?
				    TT_DELAYED : TT_IMM;

		tt_item_init(&items[i], tw, kind, tt_random_online_cpu(rs));
		if (kind != TT_DELAYED)
			tw->items[tw->nr_items++] = &items[i];
	}
	for (i = 0; i + 1 < TT_CHURN_ITEMS; i += 4)
		items[i].chain_next = &items[i + 1];

	n = 32 + tt_rand(rs, 64);
	for (i = 0; i < n; i++) {
		struct tt_item *it = &items[tt_rand(rs, TT_CHURN_ITEMS)];

		atomic_set(&it->requeue_budget, tt_rand(rs, 3));
		atomic_set(&it->chain_budget, tt_rand(rs, 2));
		tt_queue(it, tt_rand(rs, TTQ_NR), tt_rand(rs, 2), rs);
		if (!tt_rand(rs, 16))
			tt_set_max_active(tw, 1 + tt_rand(rs, 8), snap);
		if (!tt_rand(rs, 16))
			tt_flush_wq_checked(tw, snap);
		if (!tt_rand(rs, 16))
			tt_cancel(&items[tt_rand(rs, TT_CHURN_ITEMS)],
				  tt_rand(rs, 2));
	}
	/* timers are the user's business before destroy */
	for (i = 0; i < TT_CHURN_ITEMS; i++)
		if (items[i].kind == TT_DELAYED)
			tt_cancel(&items[i], true);
	fwq_destroy_workqueue(tw->wq);
	tw->wq = NULL;
	for (i = 0; i < TT_CHURN_ITEMS; i++)
		tt_check_exact(&items[i], "destroy_workqueue");
	atomic64_inc(&tt_stats.churn_cycles);
out_wq:
	tt_wq_exit(tw);
out_free:
	kfree(items);
	kfree(tw);
}

static int tt_churn_fn(void *arg)
{
	struct rnd_state rs;
	struct tt_snap *snap;

	prandom_seed_state(&rs, (u32)(unsigned long)arg);
	snap = kcalloc(TT_CHURN_ITEMS, sizeof(*snap), GFP_KERNEL);
	if (!snap) {
		tt_fail("churn: no memory\n");
		return 0;
	}
	set_user_nice(current, MAX_NICE);
	while (!kthread_should_stop()) {
		if (tt_stutter_wait())
			continue;
		tt_churn_cycle(&rs, snap);
		schedule_timeout_interruptible(1 + tt_rand(&rs, 5));
	}
	kfree(snap);
	return 0;
}

static void tt_stop_threads(struct task_struct **t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!IS_ERR_OR_NULL(t[i]))
			kthread_stop(t[i]);
}

/* progress: did every producer do something since the last call? */
bool tt_stress_producers_progress(void)
{
	bool all = true;
	int i;

	for (i = 0; i < tt_nr_producers; i++) {
		u64 ops = READ_ONCE(tt_producers[i].ops);

		if (ops == tt_producers[i].last_ops)
			all = false;
		tt_producers[i].last_ops = ops;
	}
	return all;
}

/*
 * Start @n threads "<name>/<i>" of @fn, thread i with the argument
 * seed + @mul * i + @add, appending them to @tasks (*@nr of them so far).
 */
static int tt_start_seeded(struct task_struct **tasks, int *nr, int n,
			   int (*fn)(void *), u32 seed, int mul, int add,
			   const char *name)
{
	struct task_struct *t;
	int i;

	for (i = 0; i < n; i++) {
		t = kthread_run(fn, (void *)(unsigned long)(seed + mul * i + add),
				"%s/%d", name, i);
		if (IS_ERR(t))
			return PTR_ERR(t);
		tasks[(*nr)++] = t;
	}
	return 0;
}

int tt_stress_start(int nproducers, int nflushers, int nchurn, u32 seed,
		    int wq_types, int max_active)
{
	static const char *const names[TT_WQ_NR] = {
		"fwqt_percpu", "fwqt_unbound", "fwqt_ordered", "fwqt_highpri",
	};
	struct rnd_state rs;
	int i, j, k, ret, per_wq;

	prandom_seed_state(&rs, seed);
	tt_max_active = max_active;
	for (i = 0; i < TT_WQ_NR; i++) {
		if (!(wq_types & BIT(i)))
			continue;
		ret = tt_wq_init(&tt_wqs[tt_nr_wqs], i, max_active, names[i]);
		if (ret)
			return ret;
		tt_nr_wqs++;
	}
	if (!tt_nr_wqs)
		return -EINVAL;

	tt_producers = kcalloc(nproducers, sizeof(*tt_producers), GFP_KERNEL);
	tt_flushers = kcalloc(nflushers, sizeof(*tt_flushers), GFP_KERNEL);
	tt_churners = kcalloc(nchurn, sizeof(*tt_churners), GFP_KERNEL);
	if (!tt_producers || !tt_flushers || !tt_churners)
		return -ENOMEM;
	tt_nr_producers = nproducers;

	/* items, spread over the workqueues; flush lists per workqueue */
	per_wq = nproducers * (TT_ITEMS_PER_PRODUCER +
			       TT_ITEMS_PER_PRODUCER / 4);
	for (i = 0; i < tt_nr_wqs; i++) {
		tt_wqs[i].items = kcalloc(per_wq, sizeof(struct tt_item *),
					  GFP_KERNEL);
		if (!tt_wqs[i].items)
			return -ENOMEM;
	}
	for (i = 0; i < nproducers; i++) {
		struct tt_producer *p = &tt_producers[i];

		p->id = i;
		p->seed = seed + 1000 * (i + 1);
		for (j = 0; j < TT_ITEMS_PER_PRODUCER; j++) {
			struct tt_wq *tw = &tt_wqs[(i + j) % tt_nr_wqs];
			enum tt_kind kind = (j % 3 == 2 && !tw->ordered) ?
					    TT_DELAYED : TT_IMM;

			tt_item_init(&p->items[j], tw, kind,
				     tt_random_online_cpu(&rs));
			if (kind != TT_DELAYED)
				tw->items[tw->nr_items++] = &p->items[j];
		}
		for (k = 0; k < tt_nr_wqs; k++) {
			if (!tt_wqs[k].ordered)
				continue;
			for (j = 0; j < TT_PROBES; j++)
				tt_item_init(&p->probes[j], &tt_wqs[k],
					     TT_PROBE, 0);
			p->nr_probes = TT_PROBES;
		}
		/* every fourth immediate item feeds a chained item */
		for (k = 0; k < TT_ITEMS_PER_PRODUCER / 4; k++) {
			struct tt_item *head = &p->items[4 * k];
			struct tt_wq *tw = &tt_wqs[(i + k + 1) % tt_nr_wqs];

			tt_item_init(&p->chained[k], tw, TT_CHAINED,
				     tt_random_online_cpu(&rs));
			tw->items[tw->nr_items++] = &p->chained[k];
			if (head->kind != TT_DELAYED)
				head->chain_next = &p->chained[k];
		}
	}

	for (i = 0; i < nproducers; i++) {
		struct task_struct *t;

		t = kthread_run(tt_producer_fn, &tt_producers[i],
				"fwqt_prod/%d", i);
		if (IS_ERR(t))
			return PTR_ERR(t);
		tt_producers[i].task = t;
	}
	ret = tt_start_seeded(tt_flushers, &tt_nr_flushers, nflushers,
			      tt_flusher_fn, seed, 7, 3, "fwqt_flush");
	if (ret)
		return ret;
	return tt_start_seeded(tt_churners, &tt_nr_churners, nchurn,
			       tt_churn_fn, seed, 13, 5, "fwqt_churn");
}

/*
 * Stop everything and check the final accounting: stop the threads, stop
 * requeueing and chaining, cancel the delayed items, flush until quiescent,
 * then every item must balance exactly.
 */
void tt_stress_stop(void)
{
	int i, j, pass;

	for (i = 0; i < tt_nr_producers; i++)
		if (!IS_ERR_OR_NULL(tt_producers[i].task))
			kthread_stop(tt_producers[i].task);
	tt_stop_threads(tt_flushers, tt_nr_flushers);
	tt_stop_threads(tt_churners, tt_nr_churners);
	WRITE_ONCE(tt_stopping, true);

	if (tt_producers) {
		for (i = 0; i < tt_nr_producers; i++)
			for (j = 0; j < TT_ITEMS_PER_PRODUCER; j++)
				if (tt_producers[i].items[j].kind == TT_DELAYED)
					tt_cancel(&tt_producers[i].items[j],
						  true);
	}
	/* items already running may still chain once more: flush twice */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < tt_nr_wqs; i++)
			fwq_flush_workqueue(tt_wqs[i].wq);

	if (tt_producers) {
		for (i = 0; i < tt_nr_producers; i++) {
			struct tt_producer *p = &tt_producers[i];

			for (j = 0; j < TT_ITEMS_PER_PRODUCER; j++)
				tt_check_exact(&p->items[j], "end of test");
			for (j = 0; j < TT_ITEMS_PER_PRODUCER / 4; j++)
				tt_check_exact(&p->chained[j], "end of test");
			for (j = 0; j < p->nr_probes; j++)
				tt_check_exact(&p->probes[j], "end of test");
		}
	}
	for (i = 0; i < tt_nr_wqs; i++) {
		pr_info("wq %d type %d: max active seen %d, limit %d\n", i,
			tt_wqs[i].type, atomic_read(&tt_wqs[i].hwm),
			tt_wqs[i].limit_hi);
		tt_wq_exit(&tt_wqs[i]);
	}
	tt_nr_wqs = 0;
	kfree(tt_producers);
	kfree(tt_flushers);
	kfree(tt_churners);
	tt_nr_producers = 0;
	tt_nr_flushers = 0;
	tt_nr_churners = 0;
	tt_producers = NULL;
	tt_flushers = NULL;
	tt_churners = NULL;
}
