// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_icount: one operation in a loop between two markers, for the
 * instruction-counting QEMU plugin of make icount (tools/icount/).
 *
 * Each load runs one phase (the plan unloads it again): it allocates a
 * workqueue (fwq with variant=, or the kernel's own with target=kwq) of
 * type= percpu or unbound, uses every CPU's pwq once, moves the loading
 * task to cpu=, marks, runs op= n times, marks again, and logs one
 * "fwq_icount: phase ..." line. The plugin pairs
 * the markers of one vCPU in order; scripts/icount.sh pairs its phases
 * with these lines.
 *   op=flush   flush the idle workqueue (the bench's S4a)
 *   op=queue   queue n items on cpu= itself with preemption off, so that
 *              none runs before the end marker and every kick after the
 *              first finds its worker woken already (the same work in
 *              each boot); they run, and are flushed, after it
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <fwq/fwq.h>

static char *target = "fwq";
module_param(target, charp, 0444);
MODULE_PARM_DESC(target, "fwq or kwq (the kernel's workqueue)");
static char *variant = "mainline";
module_param(variant, charp, 0444);
MODULE_PARM_DESC(variant, "the fwq variant (fwq_variant_parse())");
static char *op = "flush";
module_param(op, charp, 0444);
MODULE_PARM_DESC(op, "flush or queue");
static char *type = "percpu";
module_param(type, charp, 0444);
MODULE_PARM_DESC(type, "percpu or unbound");
/*
 * Both workqueues get the same max_active, the kernel's largest (their
 * defaults differ: 256 in 6.1 and 6.12, fwq's 1024); op=queue keeps n
 * under it, so that every item is activated and kicks, in both.
 */
#define ICOUNT_MAX_ACTIVE	512
static unsigned int n = 400;
module_param(n, uint, 0444);
MODULE_PARM_DESC(n, "operations between the markers (1..100000; op=queue: up to 512)");
static unsigned int cpu;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "the CPU the loop runs on");

struct icount_item {
	struct work_struct kw;
	struct fwq_work fw;
};

/* the marker the plugin watches: xchg %bx,%bx, which changes nothing */
static __always_inline void icount_mark(void)
{
	asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
}

static void icount_kfn(struct work_struct *w) {}
static void icount_ffn(struct fwq_work *w) {}

static int __init fwq_icount_init(void)
{
	bool kwq = !strcmp(target, "kwq"), unbound = !strcmp(type, "unbound");
	bool queue = !strcmp(op, "queue");
	struct workqueue_struct *kw = NULL;
	struct fwq_workqueue *fw = NULL;
	struct icount_item *items;
	unsigned int i, c;
	struct fwq_variant v;
	int ret;

	if ((!kwq && strcmp(target, "fwq")) ||
	    (!unbound && strcmp(type, "percpu")) ||
	    (!queue && strcmp(op, "flush")) || !n || n > 100000 ||
	    (queue && n > ICOUNT_MAX_ACTIVE) ||
	    cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		pr_err("bad parameters: target=%s type=%s op=%s n=%u cpu=%u\n",
		       target, type, op, n, cpu);
		return -EINVAL;
	}
	fwq_default_variant(&v);
	if (!kwq && fwq_variant_parse(variant, &v)) {
		pr_err("bad variant '%s'\n", variant);
		return -EINVAL;
	}
	items = kcalloc(n, sizeof(*items), GFP_KERNEL);
	if (!items)
		return -ENOMEM;
	if (kwq)
		kw = alloc_workqueue("fwq_icount", unbound ? WQ_UNBOUND :
				     FWQ_WQ_PERCPU, ICOUNT_MAX_ACTIVE);
	else
		fw = fwq_alloc_workqueue_variant(&v, "fwq_icount",
						 unbound ? FWQ_UNBOUND :
						 FWQ_PERCPU,
						 ICOUNT_MAX_ACTIVE);
	ret = -ENOMEM;
	if (!kw && !fw)
		goto out_free;
	for (i = 0; i < n; i++) {
		INIT_WORK(&items[i].kw, icount_kfn);
		FWQ_INIT_WORK(&items[i].fw, icount_ffn);
	}
	/* every online CPU's pwq used once, as the bench's flush scenarios */
	for_each_online_cpu(c) {
		if (kw)
			queue_work_on(c, kw, &items[0].kw);
		else
			fwq_queue_work_on(c, fw, &items[0].fw);
		if (kw)
			flush_workqueue(kw);
		else
			fwq_flush_workqueue(fw);
	}
	ret = set_cpus_allowed_ptr(current, cpumask_of(cpu));
	if (ret)
		goto out_destroy;
	if (kw)
		flush_workqueue(kw);
	else
		fwq_flush_workqueue(fw);

	if (queue)
		preempt_disable();
	icount_mark();
	for (i = 0; i < n; i++) {
		if (queue && kw)
			queue_work_on(cpu, kw, &items[i].kw);
		else if (queue)
			fwq_queue_work_on(cpu, fw, &items[i].fw);
		else if (kw)
			flush_workqueue(kw);
		else
			fwq_flush_workqueue(fw);
	}
	icount_mark();
	if (queue)
		preempt_enable();
	if (kw)
		flush_workqueue(kw);
	else
		fwq_flush_workqueue(fw);

	pr_info("phase target=%s variant=%s op=%s type=%s n=%u cpu=%u\n",
		kwq ? "kwq" : "fwq", kwq ? "-" : variant, op, type, n, cpu);
	ret = 0;
out_destroy:
	if (kw)
		destroy_workqueue(kw);
	else
		fwq_destroy_workqueue(fw);
out_free:
	kfree(items);
	return ret;
}
module_init(fwq_icount_init);

static void __exit fwq_icount_exit(void) {}
module_exit(fwq_icount_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq: one operation between two markers, for make icount");
