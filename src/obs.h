/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fwq observation: the counters the engine keeps for debugfs, the stats
 * and the leak checks, and the functions that show them. It needs none of
 * the engine's objects, so src/internal.h includes it; the tracepoints are
 * in src/fwq_trace.h.
 */
#ifndef _FWQ_OBS_H
#define _FWQ_OBS_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/types.h>

#include <fwq/fwq.h>

struct dentry;
struct seq_file;

/* per-CPU workqueue counters */
struct fwq_wq_pcpu_stats {
	u64 queued;
	u64 started;
	u64 completed;
	u64 wakeups[FWQ_SITE_NR][2];
	u64 rejected;
	u64 flush_ns;		/* fwq_flush_workqueue(), while counted */
};

/* live object counts, debugfs "objects" (leak checks); main.c */
enum fwq_obj {
	FWQ_OBJ_WQ,
	FWQ_OBJ_POOL,
	FWQ_OBJ_UNBOUND_POOL,
	FWQ_OBJ_PWQ,
	FWQ_OBJ_WORKER,
	FWQ_OBJ_RESCUER,
	FWQ_OBJ_NR,
};

extern atomic_t fwq_objects[FWQ_OBJ_NR];

/*
 * The global debug counters, debugfs "debug_counters" (the table
 * fwq_debug_counters[] in main.c names them; the reproducers' own are in
 * dbg.h), each with the file that defines it.
 */
/* main.c */
extern atomic64_t fwq_misuse_count;
extern atomic64_t fwq_consistency_errors;
/* cull.c */
extern atomic64_t fwq_kicked_reaped;
extern atomic64_t fwq_cull_rekicks;
/* watchdog.c */
extern atomic64_t fwq_watchdog_reports;
/* flush.c: flushes a reclaim path should not make (check_flush_dependency) */
extern atomic64_t fwq_flush_dependencies;
/* rescuer.c: a rescuer put a pwq back on the mayday list after a batch */
extern atomic64_t fwq_rescuer_requeues;
/*
 * wq.c: maydays a destroy found left behind by its stopped rescuer (one
 * stopped before its thread ever ran serves none), their references dropped
 */
extern atomic64_t fwq_maydays_unserved;
/* wq.c: rescuers a destroy stopped before their thread ever ran */
extern atomic64_t fwq_rescuers_never_ran;
/* wake.c: wakeups by site, [site][under a pool lock] */
extern atomic64_t fwq_global_wakeups[FWQ_SITE_NR][2];
extern atomic64_t fwq_deferred_under_lock;

/* main.c: a global debug counter by name, for debugfs and fwq_debug_counter() */
struct fwq_debug_counter_ent {
	const char *name;
	atomic64_t *v;
};

extern const struct fwq_debug_counter_ent fwq_debug_counters[];
extern const unsigned int fwq_nr_debug_counters;
extern struct dentry *fwq_debugfs_root;

/* debugfs.c */
void fwq_debugfs_init(void);

/* stats.c */
DECLARE_STATIC_KEY_FALSE(fwq_lockstat_key);

/*
 * Test the key at each site, not once into a local: a local turns every
 * later test into a real branch on a register, and keeps the stamps' setup
 * on the path while lockstat is off. A stamp taken while the key was off
 * is 0, which the recording site checks, so a switch in the middle of a
 * path records nothing wrong.
 */
static __always_inline bool fwq_lockstat_active(void)
{
	return static_branch_unlikely(&fwq_lockstat_key);
}

void fwq_lockstat_record(enum fwq_lockstat_path path, s64 wait_ns,
			 s64 hold_ns);
void fwq_lockstat_wakeup_locked(enum fwq_lockstat_path path);
void fwq_stats_show(struct seq_file *m);

/* pool.c */
void fwq_pools_show(struct seq_file *m);

/* wq.c */
void fwq_wqs_show(struct seq_file *m);
void fwq_nr_active_show(struct seq_file *m);

/*
 * wq.c, pool.c: every workqueue alive, listed or destroyed, each of its
 * pwqs (references, the slots that account for them, items in flight),
 * and every unbound pool (debugfs "object_list"; with @m NULL, to the
 * kernel log, as the unload's leak report)
 */
void fwq_objects_dump(struct seq_file *m);
void fwq_unbound_pools_dump(struct seq_file *m);
__printf(2, 3) void fwq_dump_printk(struct seq_file *m, const char *fmt, ...);

#endif /* _FWQ_OBS_H */
