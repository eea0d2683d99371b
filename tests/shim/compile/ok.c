// SPDX-License-Identifier: GPL-2.0
/* expect: builds */
/*
 * Every mapped interface, as a module uses it: must compile. The test
 * module (../module/) runs most of them.
 */
#include <linux/module.h>
#include <linux/workqueue.h>

static void fn(struct work_struct *w)
{
	struct delayed_work *dw = to_delayed_work(w);

	(void)delayed_work_pending(dw);
	(void)(current_work() == w);
	(void)current_is_workqueue_rescuer();
}

static void rfn(struct work_struct *w)
{
	struct rcu_work *rw = to_rcu_work(w);

	(void)rw;
}

static struct rcu_work rw;

static DECLARE_WORK(w, fn);
static DECLARE_DELAYED_WORK(dw, fn);
static DECLARE_DEFERRABLE_WORK(dfw, fn);
static struct workqueue_struct *wq;
static work_func_t f = fn;

static int __init shim_ct_init(void)
{
	struct work_struct sw;
	struct delayed_work sdw, idw;
	struct rcu_work srw;

	wq = alloc_workqueue("shim_ct/%d", WQ_UNBOUND | WQ_FREEZABLE |
			     WQ_MEM_RECLAIM | WQ_HIGHPRI | WQ_CPU_INTENSIVE |
			     WQ_SYSFS | WQ_POWER_EFFICIENT, 0, 1);
	if (!wq)
		return -ENOMEM;
	INIT_WORK_ONSTACK(&sw, f);
	INIT_DELAYED_WORK_ONSTACK(&sdw, fn);
	INIT_DELAYED_WORK(&idw, fn);
	INIT_DEFERRABLE_WORK(&dfw, fn);
	queue_work(wq, &sw);
	queue_work_on(0, wq, &w);
	queue_work_node(NUMA_NO_NODE, wq, &w);
	queue_delayed_work(wq, &sdw, 1);
	queue_delayed_work_on(0, wq, &dw, 1);
	mod_delayed_work(wq, &dw, 1);
	mod_delayed_work_on(0, wq, &idw, 1);
	flush_work(&sw);
	flush_delayed_work(&sdw);
	cancel_work(&w);
	cancel_work_sync(&w);
	cancel_delayed_work(&dw);
	cancel_delayed_work_sync(&idw);
	cancel_delayed_work_sync(&dfw);
	disable_work_sync(&w);
	enable_work(&w);
	(void)work_pending(&w);
	(void)work_busy(&w);
	INIT_RCU_WORK(&rw, rfn);
	INIT_RCU_WORK_ONSTACK(&srw, rfn);
	queue_rcu_work(wq, &rw);
	queue_rcu_work(wq, &srw);
	flush_rcu_work(&rw);
	flush_rcu_work(&srw);
	(void)workqueue_congested(WORK_CPU_UNBOUND, wq);
	flush_workqueue(wq);
	drain_workqueue(wq);
	workqueue_set_max_active(wq, 8);
	destroy_work_on_stack(&sw);
	destroy_delayed_work_on_stack(&sdw);
	return 0;
}

static void __exit shim_ct_exit(void)
{
	destroy_workqueue(wq);
}

module_init(shim_ct_init);
module_exit(shim_ct_exit);
MODULE_LICENSE("GPL");
