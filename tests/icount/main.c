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
 *   op=kick    queue one item on cpu= whose worker is asleep, so that the
 *              queue call wakes it (the bench's S1): only the queue call
 *              counts, with preemption off; the item's run and a short
 *              sleep, after which the worker sleeps again, do not (the
 *              plugin's pause and resume markers)
 *   op=qflush  queue one item on cpu= and flush the workqueue (the bench's
 *              S4b and S6): the whole operation counts, the item's run
 *              and the flusher's wakeup included; a short sleep between
 *              two does not
 *   op=s5      op=qflush on S5's workqueue (the bench's XFS CIL one):
 *              unbound, FWQ_MEM_RECLAIM (kwq: WQ_MEM_RECLAIM |
 *              WQ_FREEZABLE), max_active 4
 * scope= (fwq, unbound): the affinity scope, as the bench's scope= key;
 * "default" leaves the workqueue's own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <fwq/fwq.h>

#include "../module_util.h"

static char *target = "fwq";
module_param(target, charp, 0444);
MODULE_PARM_DESC(target, "fwq or kwq (the kernel's workqueue)");
FWQT_VARIANT_PARAM("mainline");
static char *op = "flush";
module_param(op, charp, 0444);
MODULE_PARM_DESC(op, "flush, queue, kick, qflush or s5");
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
static char *scope = "default";
module_param(scope, charp, 0444);
MODULE_PARM_DESC(scope, "fwq unbound: the affinity scope (fwq_affn_scope_parse())");

struct icount_item {
	struct work_struct kw;
	struct fwq_work fw;
};

/* the marker the plugin watches: xchg %bx,%bx, which changes nothing */
static __always_inline void icount_mark(void)
{
	asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
}

/* the plugin's pause (xchg %cx,%cx) and resume (xchg %dx,%dx) markers */
static __always_inline void icount_pause(void)
{
	asm volatile(".byte 0x66, 0x87, 0xc9" ::: "memory");
}

static __always_inline void icount_resume(void)
{
	asm volatile(".byte 0x66, 0x87, 0xd2" ::: "memory");
}

/* op=kick: the item's run, which the loop waits for */
static DECLARE_COMPLETION(icount_done);

static void icount_kfn(struct work_struct *w)
{
	complete(&icount_done);
}

static void icount_ffn(struct fwq_work *w)
{
	complete(&icount_done);
}

enum icount_op { OP_FLUSH, OP_QUEUE, OP_KICK, OP_QFLUSH, OP_S5, OP_NR };

static const char * const icount_ops[OP_NR] = {
	[OP_FLUSH] = "flush", [OP_QUEUE] = "queue", [OP_KICK] = "kick",
	[OP_QFLUSH] = "qflush", [OP_S5] = "s5",
};

/* fwq, unbound: scope= applied to @fw; 0 for "default" */
static int icount_scope(struct fwq_workqueue *fw, struct fwq_variant *v,
			int sc)
{
	struct fwq_workqueue_attrs *attrs;
	int ret;

	attrs = fwq_alloc_workqueue_attrs();
	if (!attrs)
		return -ENOMEM;
	attrs->affn_scope = sc;
	attrs->variant = *v;
	ret = fwq_apply_workqueue_attrs(fw, attrs);
	fwq_free_workqueue_attrs(attrs);
	return ret;
}

static void icount_queue(struct workqueue_struct *kw, struct fwq_workqueue *fw,
			 struct icount_item *it)
{
	if (kw)
		queue_work_on(cpu, kw, &it->kw);
	else
		fwq_queue_work_on(cpu, fw, &it->fw);
}

static void icount_flush(struct workqueue_struct *kw, struct fwq_workqueue *fw)
{
	if (kw)
		flush_workqueue(kw);
	else
		fwq_flush_workqueue(fw);
}

/*
 * A short sleep, while paused: the worker that ran the last item goes to
 * sleep before the next operation, which then finds it as the first one
 * did.
 */
static void icount_settle(void)
{
	usleep_range(200, 300);
}

/*
 * @o @n times between two markers. A kick, a qflush and an s5 count only
 * the operation itself, each one segment from a resume to a pause (the
 * plugin keeps every segment's count, and the report their median); the
 * waits and sleeps between them are paused.
 */
static void icount_loop(enum icount_op o, struct workqueue_struct *kw,
			struct fwq_workqueue *fw, struct icount_item *items)
{
	bool seg = o == OP_KICK || o == OP_QFLUSH || o == OP_S5;
	unsigned int i;

	if (o == OP_QUEUE)
		preempt_disable();
	icount_mark();
	if (seg)
		icount_pause();
	for (i = 0; i < n; i++) {
		switch (o) {
		case OP_FLUSH:
			icount_flush(kw, fw);
			break;
		case OP_QUEUE:
			icount_queue(kw, fw, &items[i]);
			break;
		case OP_KICK:
			icount_settle();
			reinit_completion(&icount_done);
			preempt_disable();
			icount_resume();
			icount_queue(kw, fw, &items[0]);
			icount_pause();
			preempt_enable();
			wait_for_completion(&icount_done);
			break;
		case OP_QFLUSH:
		case OP_S5:
			icount_settle();
			icount_resume();
			icount_queue(kw, fw, &items[0]);
			icount_flush(kw, fw);
			icount_pause();
			break;
		default:
			break;
		}
	}
	if (seg)
		icount_resume();
	icount_mark();
	if (o == OP_QUEUE)
		preempt_enable();
}

/*
 * " entry=ADDR/SIZE": where the flush function itself lies, the kernel's
 * __flush_workqueue() or fwq_flush_workqueue(), whose own instructions
 * are a flush's entry (bench/README.md, "Counts"); its size from
 * sprint_symbol()'s "name+0x0/0xSIZE", so that the host needs no kallsyms
 */
static void icount_entry(struct workqueue_struct *kw, char *buf, size_t len)
{
	unsigned long addr = kw ? (unsigned long)__flush_workqueue :
				  (unsigned long)fwq_flush_workqueue;
	char sym[KSYM_SYMBOL_LEN], hex[20];
	unsigned long size;
	const char *p;
	size_t n;

	buf[0] = '\0';
	sprint_symbol(sym, addr);
	p = strstr(sym, "+0x0/0x");
	if (!p)
		return;
	p += strlen("+0x0/0x");
	n = strspn(p, "0123456789abcdef");
	if (!n || n >= sizeof(hex))
		return;
	memcpy(hex, p, n);
	hex[n] = '\0';
	if (!kstrtoul(hex, 16, &size))
		snprintf(buf, len, " entry=%lx/%lx", addr, size);
}

static int __init fwq_icount_init(void)
{
	bool kwq = !strcmp(target, "kwq"), unbound = !strcmp(type, "unbound");
	int o = match_string(icount_ops, OP_NR, op), sc = 0;
	struct workqueue_struct *kw = NULL;
	struct fwq_workqueue *fw = NULL;
	unsigned int i, c, max_active = ICOUNT_MAX_ACTIVE;
	unsigned int kflags = 0, fflags = 0;
	struct icount_item *items;
	struct fwq_variant v;
	char entry[64];
	int ret;

	if (strcmp(scope, "default")) {
		sc = fwq_affn_scope_parse(scope);
		if (sc < 0 || kwq)
			o = -EINVAL;
	}
	if (o == OP_S5) {
		/* the bench's S5 workqueue (bench/target.c) */
		unbound = true;
		max_active = 4;
		kflags = WQ_MEM_RECLAIM | WQ_FREEZABLE;
		fflags = FWQ_MEM_RECLAIM;
	}
	if ((!kwq && strcmp(target, "fwq")) ||
	    (!unbound && strcmp(type, "percpu")) || o < 0 ||
	    (sc && !unbound) || !n || n > 100000 ||
	    (o == OP_QUEUE && n > ICOUNT_MAX_ACTIVE) ||
	    cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		pr_err("bad parameters: target=%s type=%s op=%s scope=%s n=%u cpu=%u\n",
		       target, type, op, scope, n, cpu);
		return -EINVAL;
	}
	if (!kwq && fwqt_variant_param(variant, &v))
		return -EINVAL;
	items = kcalloc(n, sizeof(*items), GFP_KERNEL);
	if (!items)
		return -ENOMEM;
	if (kwq)
		kw = alloc_workqueue("fwq_icount", kflags | (unbound ? WQ_UNBOUND :
				     FWQ_WQ_PERCPU), max_active);
	else
		fw = fwq_alloc_workqueue_variant(&v, "fwq_icount", fflags |
						 (unbound ? FWQ_UNBOUND :
						  FWQ_PERCPU), max_active);
	ret = -ENOMEM;
	if (!kw && !fw)
		goto out_free;
	if (sc) {
		ret = icount_scope(fw, &v, sc);
		if (ret)
			goto out_destroy;
	}
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
		icount_flush(kw, fw);
	}
	ret = set_cpus_allowed_ptr(current, cpumask_of(cpu));
	if (ret)
		goto out_destroy;
	icount_flush(kw, fw);

	icount_loop(o, kw, fw, items);
	icount_flush(kw, fw);

	icount_entry(kw, entry, sizeof(entry));
	pr_info("phase target=%s variant=%s op=%s type=%s scope=%s n=%u cpu=%u%s\n",
		kwq ? "kwq" : "fwq", kwq ? "-" : variant, op,
		unbound ? "unbound" : "percpu", scope, n, cpu,
		o == OP_FLUSH ? entry : "");
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
