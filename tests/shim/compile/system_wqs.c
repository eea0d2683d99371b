// SPDX-License-Identifier: GPL-2.0
/* expect: builds */
#include <linux/module.h>
#include <linux/workqueue.h>

/*
 * The system workqueues and schedule_*() map onto fwq's, and the shim's
 * module_init() and module_exit() hold them around the module's own.
 */
static void fn(struct work_struct *w) { }
static DECLARE_WORK(w, fn);
static DECLARE_DELAYED_WORK(dw, fn);

static int __init shim_ct_init(void)
{
	struct workqueue_struct *wqs[] = {
		system_wq, system_percpu_wq, system_highpri_wq,
		system_long_wq, system_unbound_wq, system_dfl_wq,
		system_dfl_long_wq, system_power_efficient_wq,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(wqs); i++) {
		queue_work(wqs[i], &w);
		flush_work(&w);
	}
	schedule_work(&w);
	schedule_work_on(0, &w);
	schedule_delayed_work(&dw, 1);
	schedule_delayed_work_on(0, &dw, 1);
	cancel_delayed_work_sync(&dw);
	return 0;
}

static void __exit shim_ct_exit(void)
{
	cancel_work_sync(&w);
}

module_init(shim_ct_init);
module_exit(shim_ct_exit);
MODULE_LICENSE("GPL");
