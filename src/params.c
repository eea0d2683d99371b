// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: the engine's module parameters, each written once in the tables
 * below with its range, and the debugfs knobs made from them. The variant
 * and scope defaults (wake=, kicked_list=, flush= and
 * default_affinity_scope=) are in variant.c: their values come from the
 * registry, include/fwq/variants.h.
 *
 * Every parameter takes exactly its range: a bad value (at load or later,
 * through /sys/module/fwq/parameters/ or the debugfs knob) gets -EINVAL,
 * one log line naming the range, and no change. A parameter's hook runs
 * after each accepted write, one at load time (before the module's init)
 * included.
 *
 * Debug knobs for the race reproducers default to 0, the production
 * behaviour; each one's text says which hazard it opens (docs/hazards.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/glob.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dbg.h"
#include "internal.h"

unsigned int fwq_idle_timeout_ms = 300000;
unsigned int fwq_fail_create_worker;
unsigned int fwq_cpu_intensive_thresh_us = 10000;
unsigned int fwq_dbg_kick_delay_us;
unsigned int fwq_dbg_cm_sb;
unsigned int fwq_dbg_release_hold;
unsigned int fwq_dbg_leak_pwq;
bool fwq_cm_enabled = true;
bool fwq_cull_rekick = true;
bool fwq_power_efficient = IS_ENABLED(CONFIG_WQ_POWER_EFFICIENT_DEFAULT);
bool fwq_dbg_force_cull;
bool fwq_dbg_flush_skip_idle;
bool fwq_dbg_put_walk_wait;

DEFINE_STATIC_KEY_FALSE(fwq_dbg_key);
static DEFINE_MUTEX(fwq_dbg_key_mutex);

/**
 * fwq_dbg_knobs_changed - switch fwq_dbg_key after a debug knob's write
 *
 * The key is on while any knob whose hook sits on a hot path is nonzero
 * (src/dbg.h). Runs after every write of one of them, the writes at load
 * time included: the module's jump labels are ready before its parameters
 * are parsed.
 */
void fwq_dbg_knobs_changed(void)
{
	bool on;

	mutex_lock(&fwq_dbg_key_mutex);
	on = READ_ONCE(fwq_dbg_kick_delay_us) || READ_ONCE(fwq_dbg_cm_sb) ||
	     READ_ONCE(fwq_dbg_force_cull) ||
	     READ_ONCE(fwq_dbg_flush_skip_idle);
	if (on)
		static_branch_enable(&fwq_dbg_key);
	else
		static_branch_disable(&fwq_dbg_key);
	mutex_unlock(&fwq_dbg_key_mutex);
}

/*
 * FWQ_UINT_PARAMS(X): every unsigned parameter, as
 * X(name, variable, min, max, hook after a write or NULL, debugfs knob too,
 *   description).
 */
#define FWQ_UINT_PARAMS(X)						\
	X(idle_timeout_ms, fwq_idle_timeout_ms, 1, 3600000, NULL, true,	\
	  "idle worker timeout in ms before the cull "			\
	  "(1..3600000; mainline: 300 s)")				\
	X(cpu_intensive_thresh_us, fwq_cpu_intensive_thresh_us, 0,	\
	  10000000, NULL, false,					\
	  "CPU time in us after which a per-CPU item is "		\
	  "CPU-intensive and leaves concurrency management (0 "		\
	  "off, 0..10000000; see cm.c)")				\
	X(fail_create_worker, fwq_fail_create_worker, 0, 1, NULL, true,	\
	  "1: the manager's worker creation fails (the first "		\
	  "worker of a pool is exempt)")				\
	X(watchdog_thresh_ms, fwq_watchdog_thresh_ms, 0, 3600000,	\
	  fwq_watchdog_thresh_changed, false,				\
	  "stall watchdog: report a pool with pending work and "	\
	  "no progress for this long, in ms (0 = off, "			\
	  "0..3600000; see watchdog.c)")				\
	X(dbg_kick_delay_us, fwq_dbg_kick_delay_us, 0, 100000,		\
	  fwq_dbg_knobs_changed, false,					\
	  "debug: busy-wait between a kick's pick and its "		\
	  "deferred wakeup (H1; 0..100000)")				\
	X(dbg_cm_sb, fwq_dbg_cm_sb, 0, 2, fwq_dbg_knobs_changed, false,	\
	  "debug: an enqueue onto a per-CPU pool waits under "		\
	  "pool->lock for the running worker to block (H17): 0 "	\
	  "off, 1 the order before the fix, 2 the fixed order "		\
	  "(see cm.c)")							\
	X(dbg_release_hold, fwq_dbg_release_hold, 0, 1,			\
	  fwq_dbg_release_changed, false,				\
	  "debug: 1 holds every pwq release (unbound pools stay "	\
	  "alive to be reused); 0 runs them all and waits for them "	\
	  "(each write of 0 does), for the fault sweep's pool modes")	\
	X(dbg_leak_pwq, fwq_dbg_leak_pwq, 0, 2, NULL, false,		\
	  "debug: plant one leak, an extra reference on the default "	\
	  "pwq of the next unbound workqueue destroyed: 1 before the "	\
	  "destroy's checks (it must refuse), 2 after them (the "	\
	  "unload must clean it up); then back to 0")

/*
 * FWQ_BOOL_PARAMS(X): every bool parameter, as X(name, variable,
 * description). Each takes exactly 0/1/y/n/Y/N/on/off.
 */
#define FWQ_BOOL_PARAMS(X)						\
	X(cull_rekick, fwq_cull_rekick,					\
	  "1 (default): an idle cull that finds work pending "		\
	  "after reaping kicks a worker, so a kicked worker "		\
	  "culled before it ran strands nothing (H1); 0 keeps "		\
	  "the hole open for the reproducer")				\
	X(dbg_force_cull, fwq_dbg_force_cull,				\
	  "debug: with dbg_kick_delay_us, every kick queues a "		\
	  "cull that reaps every idle worker, no floor, no age "	\
	  "(H1)")							\
	X(dbg_flush_skip_idle, fwq_dbg_flush_skip_idle,			\
	  "debug: a broken flush that skips pwqs with nothing in flight (H8)") \
	X(dbg_put_walk_wait, fwq_dbg_put_walk_wait,			\
	  "debug: a destroy's pwq put walk waits for the "		\
	  "per-CPU pwqs' release and a grace period before it "		\
	  "reads the default pwq (H18)")

#define FWQ_UINT_PARAM_ENT(_name, _var, _min, _max, _hook, _knob, _desc) \
	{ .name = #_name, .val = &(_var), .min = _min, .max = _max,	\
	  .changed = _hook, .debugfs = _knob },

const struct fwq_uint_param fwq_uint_params[] = {
	FWQ_UINT_PARAMS(FWQ_UINT_PARAM_ENT)
};

const unsigned int fwq_nr_uint_params = ARRAY_SIZE(fwq_uint_params);

/**
 * fwq_uint_param_store - parse and store a value of an unsigned parameter
 * @p: the parameter (an entry of fwq_uint_params[], or a debugfs-only knob)
 * @val: the text written
 * @where: "parameter" or "debugfs", for the log line
 *
 * Stores the value and runs @p's hook if it is a number in @p's range;
 * otherwise logs one line and changes nothing.
 *
 * Return: 0 or -EINVAL.
 */
int fwq_uint_param_store(const struct fwq_uint_param *p, const char *val,
			 const char *where)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < p->min || v > p->max) {
		pr_warn("%s %s: bad value '%.*s' (want %u..%u), unchanged\n",
			where, p->name, (int)strcspn(val, "\n"), val, p->min,
			p->max);
		return -EINVAL;
	}
	WRITE_ONCE(*p->val, v);
	if (p->changed)
		p->changed();
	return 0;
}

static int fwq_uint_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i;

	for (i = 0; i < fwq_nr_uint_params; i++) {
		if (fwq_uint_params[i].val == kp->arg)
			return fwq_uint_param_store(&fwq_uint_params[i], val,
						    "parameter");
	}
	return -EINVAL;
}

static const struct kernel_param_ops fwq_uint_param_ops = {
	.set = fwq_uint_param_set,
	.get = param_get_uint,
};

#define FWQ_UINT_PARAM_DECL(_name, _var, _min, _max, _hook, _knob, _desc) \
	module_param_cb(_name, &fwq_uint_param_ops, &(_var), 0644);	\
	MODULE_PARM_DESC(_name, _desc);

FWQ_UINT_PARAMS(FWQ_UINT_PARAM_DECL)

static int fwq_strict_bool_set(const char *val, const struct kernel_param *kp)
{
	static const char *const yes[] = { "1", "y", "Y", "on" };
	static const char *const no[] = { "0", "n", "N", "off" };
	int i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (sysfs_streq(val, yes[i])) {
			WRITE_ONCE(*(bool *)kp->arg, true);
			fwq_dbg_knobs_changed();
			return 0;
		}
		if (sysfs_streq(val, no[i])) {
			WRITE_ONCE(*(bool *)kp->arg, false);
			fwq_dbg_knobs_changed();
			return 0;
		}
	}
	pr_warn("parameter %s: bad value '%s' (want 0|1|y|n|on|off), unchanged\n",
		kp->name, val);
	return -EINVAL;
}

static const struct kernel_param_ops fwq_strict_bool_ops = {
	.set = fwq_strict_bool_set,
	.get = param_get_bool,
};

#define FWQ_BOOL_PARAM_DECL(_name, _var, _desc)				\
	module_param_cb(_name, &fwq_strict_bool_ops, &(_var), 0644);	\
	MODULE_PARM_DESC(_name, _desc);

FWQ_BOOL_PARAMS(FWQ_BOOL_PARAM_DECL)

/* cm_mode: "notifier" or "off", read at load only (see cm.c) */
static int fwq_cm_mode_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "notifier")) {
		fwq_cm_enabled = true;
		return 0;
	}
	if (sysfs_streq(val, "off")) {
		fwq_cm_enabled = false;
		return 0;
	}
	pr_warn("parameter cm_mode: bad value '%s' (want notifier|off), unchanged\n",
		val);
	return -EINVAL;
}

static int fwq_cm_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", fwq_cm_enabled ? "notifier" : "off");
}

static const struct kernel_param_ops fwq_cm_mode_ops = {
	.set = fwq_cm_mode_set,
	.get = fwq_cm_mode_get,
};
module_param_cb(cm_mode, &fwq_cm_mode_ops, NULL, 0444);
MODULE_PARM_DESC(cm_mode, "per-CPU concurrency management: notifier (default) or off; read at load only");

/*
 * power_efficient: as 7.3's workqueue.power_efficient, with the default of
 * the kernel built against. Read when a workqueue is allocated, so a write
 * changes only the workqueues allocated after it (7.3's is read-only).
 */
module_param_cb(power_efficient, &fwq_strict_bool_ops, &fwq_power_efficient,
		0644);
MODULE_PARM_DESC(power_efficient, "FWQ_POWER_EFFICIENT workqueues allocated from now on are unbound (default: CONFIG_WQ_POWER_EFFICIENT_DEFAULT)");

/*
 * shim_map: "PATTERN=SPEC;..." gives a workqueue made without a variant
 * (variant NULL in fwq_alloc_workqueue_variant(), as every workqueue of a
 * module built with include/fwq/shim.h) its variant, and may change its
 * type and affinity scope: the first rule whose glob PATTERN matches the
 * workqueue's name wins. SPEC is a list of keys (docs/shim.md): the
 * variant's, read as fwq_variant_parse() reads them on top of the wake=,
 * kicked_list= and flush= defaults of that moment, plus type=percpu|unbound
 * and scope=SCOPE (an unbound workqueue's affinity scope). No match: the
 * defaults, and the type the module asked for. The map is swapped whole
 * under RCU; a bad string is refused with -EINVAL and one log line naming
 * the rule and what is wrong with it, and the old map stays.
 */
#define FWQ_SHIM_MAP_MAX	1024
#define FWQ_SHIM_WHY_LEN	160

struct fwq_shim_rule {
	const char *pattern;
	const char *variant;		/* SPEC less type= and scope= */
	unsigned int type;		/* FWQ_PERCPU, FWQ_UNBOUND or 0: keep */
	enum fwq_affn_scope scope;
	bool has_scope;
};

struct fwq_shim_map {
	struct rcu_head rcu;
	unsigned int nr;
	char *text;			/* the string as written */
	char *buf;			/* the rules' strings, split */
	struct fwq_shim_rule rules[];
};

static struct fwq_shim_map __rcu *fwq_shim_map;
static DEFINE_MUTEX(fwq_shim_map_mutex);

static void fwq_shim_map_free(struct fwq_shim_map *map)
{
	if (!map)
		return;
	kfree(map->text);
	kfree(map->buf);
	kfree(map);
}

static void fwq_shim_map_free_rcu(struct rcu_head *rcu)
{
	fwq_shim_map_free(container_of(rcu, struct fwq_shim_map, rcu));
}

/*
 * A PATTERN that glob_match() reads as it was meant: printable ASCII
 * without blanks, every '[' class closed, no '\' at the end (glob_match()
 * reads an unclosed '[' literally and a trailing '\' as the name's end),
 * and short enough for a name of FWQ_NAME_LEN - 1 characters to match.
 * Return: NULL, or what is wrong with it.
 */
static const char *fwq_shim_pattern_bad(const char *p)
{
	unsigned int min = 0;

	for (; *p; p++) {
		if (*p <= ' ' || *p > '~')
			return "a blank or non-ASCII character in the pattern";
		if (*p == '*')
			continue;
		min++;
		if (*p == '\\') {
			if (!*++p)
				return "a '\\' at the end of the pattern";
		} else if (*p == '[') {
			p += p[1] == '!';
			p += p[1] == ']';	/* a first ']' is a member */
			do {
				if (!*++p)
					return "an unclosed '[' in the pattern";
				if (*p <= ' ' || *p > '~')
					return "a blank or non-ASCII character in the pattern";
			} while (*p != ']');
		}
	}
	if (min >= FWQ_NAME_LEN)
		return "a pattern longer than any workqueue name";
	return NULL;
}

/* the SEP characters between a SPEC's keys, as fwq_variant_parse()'s */
#define FWQ_SHIM_SEPS	", \t\n\v\f\r"

/*
 * Parse @spec, a rule's SPEC, into @r: type= and scope= taken out, the
 * variant's keys left in @spec (compacted in place) and checked.
 * Return: 0, or -EINVAL with @why filled in.
 */
static int fwq_shim_spec_parse(char *spec, struct fwq_shim_rule *r,
			       char *why)
{
	char *out = spec, *s = spec, *tok;
	struct fwq_variant v;
	int i, n;

	while ((tok = strsep(&s, FWQ_SHIM_SEPS))) {
		size_t len = strlen(tok);

		if (!len)
			continue;
		if (str_has_prefix(tok, "type=")) {
			if (!strcmp(tok + 5, "percpu")) {
				r->type = FWQ_PERCPU;
			} else if (!strcmp(tok + 5, "unbound")) {
				r->type = FWQ_UNBOUND;
			} else {
				snprintf(why, FWQ_SHIM_WHY_LEN,
					 "unknown type '%.32s' (want percpu|unbound)",
					 tok + 5);
				return -EINVAL;
			}
		} else if (str_has_prefix(tok, "scope=")) {
			i = fwq_affn_scope_parse(tok + 6);
			if (i < 0) {
				n = snprintf(why, FWQ_SHIM_WHY_LEN,
					     "unknown scope '%.32s' (want ",
					     tok + 6);
				for (i = 0; i < FWQ_AFFN_NR_TYPES; i++)
					n += scnprintf(why + n,
						       FWQ_SHIM_WHY_LEN - n,
						       "%s%s", i ? "|" : "",
						       fwq_affn_scope_names[i]);
				scnprintf(why + n, FWQ_SHIM_WHY_LEN - n, ")");
				return -EINVAL;
			}
			r->scope = i;
			r->has_scope = true;
		} else {
			if (out != spec)
				*out++ = ',';
			memmove(out, tok, len);
			out += len;
		}
	}
	*out = '\0';
	fwq_default_variant(&v);
	if (fwq_variant_parse(spec, &v)) {
		snprintf(why, FWQ_SHIM_WHY_LEN,
			 "bad variant '%.64s' (debugfs variants lists the designs)",
			 spec);
		return -EINVAL;
	}
	if (r->type == FWQ_PERCPU && r->has_scope) {
		snprintf(why, FWQ_SHIM_WHY_LEN,
			 "scope= is an unbound workqueue's, not type=percpu's");
		return -EINVAL;
	}
	r->variant = spec;
	return 0;
}

/*
 * Parse @val into a new map; NULL, and @why filled in, for a bad string.
 * Every rule is checked here, so a map that is installed never fails at
 * allocation time.
 */
static struct fwq_shim_map *fwq_shim_map_parse(const char *val, char *why)
{
	size_t len = strcspn(val, "\n");
	struct fwq_shim_map *map;
	unsigned int nr = 0, i;
	char *s, *rule;

	if (len >= FWQ_SHIM_MAP_MAX) {
		snprintf(why, FWQ_SHIM_WHY_LEN,
			 "%zu characters, %d at most", len,
			 FWQ_SHIM_MAP_MAX - 1);
		return NULL;
	}
	for (i = 0; i < len; i++)
		nr += val[i] == ';';
	map = kzalloc(struct_size(map, rules, nr + 1), GFP_KERNEL);
	if (!map)
		goto nomem;
	map->text = kstrndup(val, len, GFP_KERNEL);
	map->buf = kstrndup(val, len, GFP_KERNEL);
	if (!map->text || !map->buf)
		goto nomem;

	s = map->buf;
	while ((rule = strsep(&s, ";"))) {
		/* the rule as written, for the log line */
		const char *text = map->text + (rule - map->buf);
		int tlen = min_t(size_t, strcspn(text, ";"), 64);
		char what[FWQ_SHIM_WHY_LEN];
		struct fwq_shim_rule *r = &map->rules[map->nr];
		const char *bad;
		char *eq;

		if (!*rule)
			continue;	/* empty rule: "a=b;" or "" */
		eq = strchr(rule, '=');
		if (!eq || eq == rule || !eq[1]) {
			snprintf(why, FWQ_SHIM_WHY_LEN,
				 "rule '%.*s' is not PATTERN=SPEC (docs/shim.md)",
				 tlen, text);
			goto bad;
		}
		*eq = '\0';
		bad = fwq_shim_pattern_bad(rule);
		if (bad) {
			snprintf(why, FWQ_SHIM_WHY_LEN, "rule '%.*s': %s",
				 tlen, text, bad);
			goto bad;
		}
		r->pattern = rule;
		if (fwq_shim_spec_parse(eq + 1, r, what)) {
			/* cut to fit: scnprintf(), not snprintf() (W=1) */
			scnprintf(why, FWQ_SHIM_WHY_LEN, "rule '%.*s': %s",
				  tlen, text, what);
			goto bad;
		}
		map->nr++;
	}
	return map;
nomem:
	snprintf(why, FWQ_SHIM_WHY_LEN, "no memory");
bad:
	fwq_shim_map_free(map);
	return NULL;
}

static int fwq_shim_map_set(const char *val, const struct kernel_param *kp)
{
	struct fwq_shim_map *map, *old;
	char why[FWQ_SHIM_WHY_LEN];

	map = fwq_shim_map_parse(val, why);
	if (!map) {
		pr_warn("parameter shim_map: %s; unchanged\n", why);
		return -EINVAL;
	}
	mutex_lock(&fwq_shim_map_mutex);
	old = rcu_replace_pointer(fwq_shim_map, map,
				  lockdep_is_held(&fwq_shim_map_mutex));
	mutex_unlock(&fwq_shim_map_mutex);
	if (old)
		call_rcu(&old->rcu, fwq_shim_map_free_rcu);
	return 0;
}

static int fwq_shim_map_get(char *buf, const struct kernel_param *kp)
{
	struct fwq_shim_map *map;
	int n;

	rcu_read_lock();
	map = rcu_dereference(fwq_shim_map);
	n = sysfs_emit(buf, "%s\n", map ? map->text : "");
	rcu_read_unlock();
	return n;
}

static const struct kernel_param_ops fwq_shim_map_ops = {
	.set = fwq_shim_map_set,
	.get = fwq_shim_map_get,
};
module_param_cb(shim_map, &fwq_shim_map_ops, NULL, 0644);
MODULE_PARM_DESC(shim_map,
		 "variant, type and scope per workqueue name for workqueues made without a variant: \"PATTERN=SPEC;...\", glob PATTERN, first match wins, SPEC the variant's keys and type=percpu|unbound, scope=SCOPE (docs/shim.md)");

/**
 * fwq_shim_map_variant - shim_map's rule for a new workqueue made without
 *	a variant
 * @name: the workqueue's name
 * @v: set to the variant
 * @src: set to where it came from: "shim_map:PATTERN" or "default"
 * @len: size of @src
 * @flags: the workqueue's flags; a rule's type= makes them FWQ_PERCPU or
 *	FWQ_UNBOUND, except an ordered workqueue's, which stays unbound
 * @scope: set to a rule's scope=, else left alone; it is read for an
 *	unbound workqueue only
 */
void fwq_shim_map_variant(const char *name, struct fwq_variant *v, char *src,
			  size_t len, unsigned int *flags,
			  enum fwq_affn_scope *scope)
{
	const struct fwq_shim_rule *r;
	struct fwq_shim_map *map;
	unsigned int i;

	fwq_default_variant(v);
	rcu_read_lock();
	map = rcu_dereference(fwq_shim_map);
	for (i = 0; map && i < map->nr; i++) {
		r = &map->rules[i];
		if (!glob_match(r->pattern, name))
			continue;
		/* checked when the map was written: cannot fail */
		WARN_ON_ONCE(fwq_variant_parse(r->variant, v));
		if (r->type && (*flags & __FWQ_ORDERED)) {
			if (r->type == FWQ_PERCPU)
				pr_info("shim_map: %s is ordered and stays unbound (rule %s)\n",
					name, r->pattern);
		} else if (r->type) {
			*flags &= ~(FWQ_PERCPU | FWQ_UNBOUND);
			*flags |= r->type;
		}
		if (r->has_scope)
			*scope = r->scope;
		snprintf(src, len, "shim_map:%s", r->pattern);
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	strscpy(src, "default", len);
}

/* unload: the map of the last write */
void fwq_shim_map_exit(void)
{
	fwq_shim_map_free(rcu_dereference_protected(fwq_shim_map, true));
	RCU_INIT_POINTER(fwq_shim_map, NULL);
}
