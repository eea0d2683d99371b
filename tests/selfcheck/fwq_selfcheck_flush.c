// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_selfcheck_flush: the flush-dependency bugs that fwq's lockdep maps
 * must show on the lockdep lane ("make selfcheck-debug"). Built beside
 * fwq.ko, against it, only by scripts/selfcheck-debug.sh; never shipped.
 *
 * mode=flushself  an item calls fwq_flush_work() on itself
 * mode=flushown   an item calls fwq_flush_workqueue() on its own workqueue
 *
 * Either would wait for itself for ever; fwq refuses both (and counts them
 * as misuse), so the guest goes on, and lockdep must have reported the
 * recursive acquisition of the item's or the workqueue's map.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include <fwq/fwq.h>

static char *mode = "flushself";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "flushself or flushown");

static struct fwq_workqueue *scf_wq;
static struct fwq_work scf_work;
static DECLARE_COMPLETION(scf_done);

static void scf_flushself_fn(struct fwq_work *work)
{
	pr_info("item flushes itself\n");
	fwq_flush_work(work);
	complete(&scf_done);
}

static void scf_flushown_fn(struct fwq_work *work)
{
	pr_info("item flushes its own workqueue\n");
	fwq_flush_workqueue(scf_wq);
	complete(&scf_done);
}

static int __init scf_init(void)
{
	fwq_work_func_t fn;

	if (!strcmp(mode, "flushself")) {
		fn = scf_flushself_fn;
	} else if (!strcmp(mode, "flushown")) {
		fn = scf_flushown_fn;
	} else {
		pr_err("unknown mode '%s'\n", mode);
		return -EINVAL;
	}
	scf_wq = fwq_alloc_workqueue("fwqsc", 0, 0);
	if (!scf_wq)
		return -ENOMEM;
	FWQ_INIT_WORK(&scf_work, fn);
	fwq_queue_work(scf_wq, &scf_work);
	wait_for_completion(&scf_done);
	fwq_destroy_workqueue(scf_wq);
	pr_info("mode=%s done\n", mode);
	return 0;
}

static void __exit scf_exit(void)
{
}

module_init(scf_init);
module_exit(scf_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq harness self-check: deliberate flush-dependency bugs");
