// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: /sys/kernel/debug/fwq/
 *
 *   version             the fwq version
 *   stats               per-workqueue counters (wq_monitor style) + globals
 *   pools               every pool (wq_dump style, plus kicked, nr_running,
 *                       worklist length, manager, progress age)
 *   pods                pods of every affinity scope
 *   wqs                 per workqueue: CPU -> pool map, flush state, and for
 *                       flush=active the per-node lists and mirror colors
 *   nr_active           per unbound workqueue: per-node nr/max
 *   variant_map         per workqueue: "NAME VARIANT SOURCE", SOURCE being
 *                       "caller" (the creator passed a variant),
 *                       "shim_map:PATTERN" (the shim_map rule that matched)
 *                       or "default" (the wake=/kicked_list=/flush=
 *                       defaults)
 *   variants            the registry (include/fwq/variants.h): "default
 *                       VARIANT", one "axis AXIS NAME..." line per axis (the
 *                       names scripts enumerate), one "desc AXIS NAME TEXT"
 *                       line per variant, "scopes NAME..." (the affinity
 *                       scopes), "prop flush NAME tracks_pwqs" for
 *                       each flush strategy that tracks the pwqs queued to
 *                       (an .enqueue hook), "pair wake NAME KICKED" for each
 *                       wake design (the kicked design it was posted with),
 *                       then every combination, one a line
 *   check               runs the pool bookkeeping checks; prints counters
 *   debug_counters      "name value" lines: kicked_reaped, cull_rekick, ...
 *   objects             live counts: workqueues, pools, unbound_pools, pwqs,
 *                       workers, rescuers (leak checks)
 *   object_list         every workqueue alive, listed or destroyed, its pwqs
 *                       with who holds their references, every unbound pool
 *                       (what a leak check that failed prints)
 *   fail_create_worker  0/1: make worker creation by the manager fail
 *   idle_timeout_ms     idle worker timeout (1..3600000)
 *                       (these two are params.c's parameters marked for
 *                       debugfs, with the same range and checks)
 *   lockstat            0/1: pool->lock hold/wait histograms (and dump)
 *   pending             per pwq with items waiting: its workqueue, pool and
 *                       counts, then its first pending_max items with
 *                       their functions, and a line saying how many more
 *   pending_max         items "pending" lists per pwq (0..1000, default 8)
 *
 * Every file rejects a bad write with -EINVAL, one log line, and no change;
 * the read-only ones reject every write the same way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "internal.h"
#include "ops.h"

/*
 * The files use read_iter/write_iter (not read/write) and are created
 * without the debugfs proxy, so kernel_read() and kernel_write() work on
 * them too (the selftests read and write them from the kernel). The fops
 * name THIS_MODULE as owner, so an open file pins the module, and every
 * file's data is module-global.
 */
static ssize_t fwq_ro_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	pr_warn("debugfs %pD is read-only: write rejected\n", iocb->ki_filp);
	return -EINVAL;
}

#define FWQ_DEBUGFS_RO(name)						\
static int fwq_##name##_open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, fwq_##name##_show, inode->i_private);	\
}									\
static const struct file_operations fwq_##name##_fops = {		\
	.owner = THIS_MODULE,						\
	.open = fwq_##name##_open,					\
	.read_iter = seq_read_iter,					\
	.llseek = seq_lseek,						\
	.release = single_release,					\
	.write_iter = fwq_ro_write_iter,				\
}

/* a read-only file written by one of the engine's dump functions */
#define FWQ_DEBUGFS_DUMP(name, dump)					\
static int fwq_##name##_show(struct seq_file *m, void *v)		\
{									\
	dump(m);							\
	return 0;							\
}									\
FWQ_DEBUGFS_RO(name)

static int fwq_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", FWQ_VERSION);
	return 0;
}

FWQ_DEBUGFS_RO(version);

FWQ_DEBUGFS_DUMP(stats_file, fwq_stats_show);
FWQ_DEBUGFS_DUMP(pools_file, fwq_pools_show);
FWQ_DEBUGFS_DUMP(pods, fwq_topology_show);
FWQ_DEBUGFS_DUMP(wqs_file, fwq_wqs_show);
FWQ_DEBUGFS_DUMP(nr_active_file, fwq_nr_active_show);
FWQ_DEBUGFS_DUMP(variant_map_file, fwq_variant_map_show);
FWQ_DEBUGFS_DUMP(object_list, fwq_objects_dump);

/* one variant of the registry, for the "variants" file */
struct fwq_variant_row {
	const char *name;
	const char *const *desc;	/* its ops' .desc */
};

#define FWQ_VARIANT_ROW(id, name, ops, ...)	{ #name, &(ops).desc },
/* a wake design and the kicked design it was posted with */
#define FWQ_WAKE_PAIR_LINE(id, name, ops, kicked)		\
	"pair wake " #name " " #kicked "\n"

static const struct fwq_variant_row fwq_wake_rows[] = {
	FWQ_WAKE_VARIANTS(FWQ_VARIANT_ROW)
};

static const struct fwq_variant_row fwq_kicked_rows[] = {
	FWQ_KICKED_VARIANTS(FWQ_VARIANT_ROW)
};

static const struct fwq_variant_row fwq_flush_rows[] = {
	FWQ_FLUSH_VARIANTS(FWQ_VARIANT_ROW)
};

/* one axis of the registry: its "axis" line, then its "desc" lines */
static void fwq_variants_axis(struct seq_file *m, const char *axis,
			      const struct fwq_variant_row *rows, int nr)
{
	int i;

	seq_printf(m, "axis %s", axis);
	for (i = 0; i < nr; i++)
		seq_printf(m, " %s", rows[i].name);
	seq_putc(m, '\n');
	for (i = 0; i < nr; i++)
		seq_printf(m, "desc %s %s %s\n", axis, rows[i].name,
			   *rows[i].desc);
}

static int fwq_variants_show(struct seq_file *m, void *v)
{
	struct fwq_variant dfl;
	char buf[96];
	int w, k, f, i;

	fwq_default_variant(&dfl);
	fwq_variant_str(&dfl, buf, sizeof(buf));
	seq_printf(m, "default %s\n", buf);
	fwq_variants_axis(m, "wake", fwq_wake_rows, FWQ_WAKE_NR);
	fwq_variants_axis(m, "kicked_list", fwq_kicked_rows, FWQ_KICKED_NR);
	fwq_variants_axis(m, "flush", fwq_flush_rows, FWQ_FLUSH_NR);
	seq_puts(m, "scopes");
	for (i = 0; i < FWQ_AFFN_NR_TYPES; i++)
		seq_printf(m, " %s", fwq_affn_scope_names[i]);
	seq_putc(m, '\n');
	seq_puts(m, FWQ_WAKE_VARIANTS(FWQ_WAKE_PAIR_LINE));
	for (f = 0; f < FWQ_FLUSH_NR; f++)
		if (fwq_flush_strategies[f]->enqueue)
			seq_printf(m, "prop flush %s tracks_pwqs\n",
				   fwq_flush_rows[f].name);
	for (w = 0; w < FWQ_WAKE_NR; w++)
		for (k = 0; k < FWQ_KICKED_NR; k++)
			for (f = 0; f < FWQ_FLUSH_NR; f++) {
				struct fwq_variant v = {
					.wake = w, .kicked = k, .flush = f,
				};

				fwq_variant_str(&v, buf, sizeof(buf));
				seq_printf(m, "%s\n", buf);
			}
	return 0;
}

FWQ_DEBUGFS_RO(variants);

static int fwq_debug_counters_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < fwq_nr_debug_counters; i++)
		seq_printf(m, "%s %llu\n", fwq_debug_counters[i].name,
			   (u64)atomic64_read(fwq_debug_counters[i].v));
	return 0;
}

FWQ_DEBUGFS_RO(debug_counters);

static int fwq_objects_show(struct seq_file *m, void *v)
{
	static const char *const names[FWQ_OBJ_NR] = {
		[FWQ_OBJ_WQ] = "workqueues",
		[FWQ_OBJ_POOL] = "pools",
		[FWQ_OBJ_UNBOUND_POOL] = "unbound_pools",
		[FWQ_OBJ_PWQ] = "pwqs",
		[FWQ_OBJ_WORKER] = "workers",
		[FWQ_OBJ_RESCUER] = "rescuers",
	};
	int i;

	for (i = 0; i < FWQ_OBJ_NR; i++)
		seq_printf(m, "%s %d\n", names[i], atomic_read(&fwq_objects[i]));
	return 0;
}

FWQ_DEBUGFS_RO(objects);

static void fwq_check_pool(struct fwq_pool *pool)
{
	fwq_pool_lock_irq(pool);
	fwq_pool_sanity(pool);
	fwq_pool_unlock_irq(pool);
}

static int fwq_check_show(struct seq_file *m, void *v)
{
	int cpu;

	mutex_lock(&fwq_pool_mutex);
	for_each_possible_cpu(cpu)
		fwq_cpu_pools_apply(cpu, fwq_check_pool);
	fwq_unbound_pools_apply(fwq_check_pool);
	mutex_unlock(&fwq_pool_mutex);
	seq_printf(m, "consistency_errors=%lld misuse=%lld deferred_issue_under_lock=%lld\n",
		   atomic64_read(&fwq_consistency_errors),
		   atomic64_read(&fwq_misuse_count),
		   atomic64_read(&fwq_deferred_under_lock));
	return 0;
}

FWQ_DEBUGFS_RO(check);

/* writable unsigned knobs: params.c's parameters marked debugfs, lockstat */
static int fwq_knob_show(struct seq_file *m, void *v)
{
	const struct fwq_uint_param *p = m->private;

	seq_printf(m, "%u\n", READ_ONCE(*p->val));
	return 0;
}

static ssize_t fwq_knob_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	const struct fwq_uint_param *p =
		((struct seq_file *)file->private_data)->private;
	char buf[24];

	if (!count || count >= sizeof(buf) ||
	    copy_from_user(buf, ubuf, count)) {
		pr_warn("debugfs %s: bad write of %zu bytes (want %u..%u), unchanged\n",
			p->name, count, p->min, p->max);
		return -EINVAL;
	}
	buf[count] = '\0';
	if (fwq_uint_param_store(p, buf, "debugfs"))
		return -EINVAL;
	return count;
}

FWQ_DEFINE_SHOW_STORE_ATTRIBUTE(fwq_knob);

static unsigned int fwq_lockstat_on;

static void fwq_lockstat_changed(void)
{
	fwq_lockstat_enable(READ_ONCE(fwq_lockstat_on));
}

/* debugfs only: the histograms cost a clock read per lock cycle */
static const struct fwq_uint_param fwq_lockstat_knob = {
	.name = "lockstat", .val = &fwq_lockstat_on, .min = 0, .max = 1,
	.changed = fwq_lockstat_changed, .debugfs = true,
};

static int fwq_lockstat_dump_show(struct seq_file *m, void *v)
{
	static const char *const names[FWQ_LS_NR] = { "enqueue", "chain" };
	struct fwq_lockstat *ls;
	int p, b;

	ls = kzalloc(sizeof(*ls), GFP_KERNEL);
	if (!ls)
		return -ENOMEM;
	fwq_lockstat_read(ls);
	seq_printf(m, "enabled=%u\n", READ_ONCE(fwq_lockstat_on));
	for (p = 0; p < FWQ_LS_NR; p++) {
		seq_printf(m, "%s wakeups_locked=%llu\n%s hold_ns_log2:", names[p],
			   ls->wakeups_locked[p], names[p]);
		for (b = 0; b < FWQ_LOCKSTAT_BUCKETS; b++)
			seq_printf(m, " %llu", ls->hold[p][b]);
		seq_printf(m, "\n%s wait_ns_log2:", names[p]);
		for (b = 0; b < FWQ_LOCKSTAT_BUCKETS; b++)
			seq_printf(m, " %llu", ls->wait[p][b]);
		seq_putc(m, '\n');
	}
	kfree(ls);
	return 0;
}

FWQ_DEBUGFS_RO(lockstat_dump);

/*
 * debugfs "pending": the items that wait on each pwq, in the order they
 * will run: the pool's worklist (queued and active, not started yet) and
 * then the pwq's inactive list (held back by max_active). Items already
 * handed to a worker (its scheduled list), running ones and delayed items
 * whose timer has not fired are not pending. One block per pwq that has
 * any:
 *
 *   pwq WQ pool=ID cpu=CPU|unbound active=A inactive=I
 *     active FUNC
 *     inactive FUNC
 *     ... N more
 *
 * at most pending_max item lines a pwq, the rest counted on the "more"
 * line. A and I count at most FWQ_PENDING_COUNT_MAX items each (then
 * "A+"): the walk holds the pool lock. The functions are copied under the
 * lock and printed after it is dropped.
 */
#define FWQ_PENDING_MAX_LIMIT	1000
#define FWQ_PENDING_COUNT_MAX	100000

static unsigned int fwq_pending_max = 8;

static const struct fwq_uint_param fwq_pending_max_knob = {
	.name = "pending_max", .val = &fwq_pending_max, .min = 0,
	.max = FWQ_PENDING_MAX_LIMIT, .debugfs = true,
};

struct fwq_pending_scan {
	unsigned int nr_active;
	unsigned int nr_inactive;
	unsigned int nr_funcs;
	unsigned int max;
	fwq_work_func_t *funcs;	/* [max]: the first items' functions */
};

/* count @work of @pwq, and keep its function while there is room */
static void fwq_pending_note(struct fwq_pending_scan *sc, unsigned int *nr,
			     struct fwq_work *work)
{
	if (sc->nr_funcs < sc->max)
		sc->funcs[sc->nr_funcs++] = work->func;
	(*nr)++;
}

static void fwq_pending_scan_pwq(struct fwq_pwq *pwq,
				 struct fwq_pending_scan *sc)
{
	struct fwq_pool *pool = pwq->pool;
	struct fwq_work *work;

	sc->nr_active = 0;
	sc->nr_inactive = 0;
	sc->nr_funcs = 0;
	fwq_pool_lock_irq(pool);
	list_for_each_entry(work, &pool->worklist, entry) {
		if (fwq_work_pwq(work) != pwq)
			continue;
		fwq_pending_note(sc, &sc->nr_active, work);
		if (sc->nr_active == FWQ_PENDING_COUNT_MAX)
			break;
	}
	list_for_each_entry(work, &pwq->inactive_works, entry) {
		fwq_pending_note(sc, &sc->nr_inactive, work);
		if (sc->nr_inactive == FWQ_PENDING_COUNT_MAX)
			break;
	}
	fwq_pool_unlock_irq(pool);
}

static void fwq_pending_show_pwq(struct seq_file *m, struct fwq_pwq *pwq,
				 struct fwq_pending_scan *sc)
{
	unsigned int i, total = sc->nr_active + sc->nr_inactive;

	if (!total)
		return;
	seq_printf(m, "pwq %s pool=%d ", pwq->wq->name, pwq->pool->id);
	if (pwq->pool->cpu >= 0)
		seq_printf(m, "cpu=%d", pwq->pool->cpu);
	else
		seq_puts(m, "unbound");
	seq_printf(m, " active=%u%s inactive=%u%s\n", sc->nr_active,
		   sc->nr_active == FWQ_PENDING_COUNT_MAX ? "+" : "",
		   sc->nr_inactive,
		   sc->nr_inactive == FWQ_PENDING_COUNT_MAX ? "+" : "");
	for (i = 0; i < sc->nr_funcs; i++)
		seq_printf(m, "  %s %ps\n",
			   i < min(sc->nr_active, sc->max) ? "active" : "inactive",
			   sc->funcs[i]);
	if (total > sc->nr_funcs)
		seq_printf(m, "  ... %u more\n", total - sc->nr_funcs);
}

static int fwq_pending_show(struct seq_file *m, void *v)
{
	struct fwq_pending_scan sc = { .max = READ_ONCE(fwq_pending_max) };
	struct fwq_workqueue *wq;
	struct fwq_pwq *pwq;

	if (sc.max) {
		sc.funcs = kcalloc(sc.max, sizeof(*sc.funcs), GFP_KERNEL);
		if (!sc.funcs)
			return -ENOMEM;
	}
	mutex_lock(&fwq_pool_mutex);
	list_for_each_entry(wq, &fwq_workqueues, list) {
		mutex_lock(&wq->mutex);
		list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
			fwq_pending_scan_pwq(pwq, &sc);
			fwq_pending_show_pwq(m, pwq, &sc);
		}
		mutex_unlock(&wq->mutex);
	}
	mutex_unlock(&fwq_pool_mutex);
	kfree(sc.funcs);
	return 0;
}

FWQ_DEBUGFS_RO(pending);

/*
 * CONFIG_HZ, for the tools that read fwq's memory with drgn
 * (tools/drgn/fwq.py): a worker's age is in jiffies, and no kernel symbol
 * holds HZ on every kernel fwq supports.
 */
static const unsigned int fwq_hz __used = HZ;

struct fwq_debugfs_file {
	const char *name;
	umode_t mode;
	void *data;
	const struct file_operations *fops;
};

static const struct fwq_debugfs_file fwq_debugfs_files[] = {
	{ "version", 0444, NULL, &fwq_version_fops },
	{ "stats", 0444, NULL, &fwq_stats_file_fops },
	{ "pools", 0444, NULL, &fwq_pools_file_fops },
	{ "pods", 0444, NULL, &fwq_pods_fops },
	{ "wqs", 0444, NULL, &fwq_wqs_file_fops },
	{ "nr_active", 0444, NULL, &fwq_nr_active_file_fops },
	{ "variant_map", 0444, NULL, &fwq_variant_map_file_fops },
	{ "variants", 0444, NULL, &fwq_variants_fops },
	{ "check", 0444, NULL, &fwq_check_fops },
	{ "debug_counters", 0444, NULL, &fwq_debug_counters_fops },
	{ "objects", 0444, NULL, &fwq_objects_fops },
	{ "object_list", 0444, NULL, &fwq_object_list_fops },
	{ "lockstat_dump", 0444, NULL, &fwq_lockstat_dump_fops },
	{ "lockstat", 0644, (void *)&fwq_lockstat_knob, &fwq_knob_fops },
	{ "pending", 0444, NULL, &fwq_pending_fops },
	{ "pending_max", 0644, (void *)&fwq_pending_max_knob, &fwq_knob_fops },
};

void fwq_debugfs_init(void)
{
	const struct fwq_debugfs_file *f;
	int i;

	for (i = 0; i < ARRAY_SIZE(fwq_debugfs_files); i++) {
		f = &fwq_debugfs_files[i];
		debugfs_create_file_unsafe(f->name, f->mode, fwq_debugfs_root,
					   f->data, f->fops);
	}
	for (i = 0; i < fwq_nr_uint_params; i++) {
		if (fwq_uint_params[i].debugfs)
			debugfs_create_file_unsafe(fwq_uint_params[i].name, 0644,
						   fwq_debugfs_root,
						   (void *)&fwq_uint_params[i],
						   &fwq_knob_fops);
	}
}
