// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: the variant registry's tables (names, strategies; the registry
 * itself is include/fwq/variants.h), variant and affinity-scope names,
 * parsing, and the module parameters that give new workqueues their
 * defaults.
 *
 * The variant of a workqueue is fixed when it is created; these parameters
 * only decide what fwq_alloc_workqueue() picks when the caller passes no
 * variant. They may be changed at run time through
 * /sys/module/fwq/parameters/. A bad value is refused with -EINVAL, logged
 * once, and changes nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include <fwq/fwq.h>

#include "internal.h"
#include "ops.h"
#include "topology.h"

/*
 * The registry's lists, in enum order: for each axis, the names
 * (fwq_<axis>_names); for the flush axis, the pointers to the ops
 * (fwq_flush_strategies), which a new workqueue takes its flush_ops from.
 * The wake and kicked_list designs are dispatched by name (src/wake.c):
 * no table of their ops.
 */
#define FWQ_NAME_OF(id, name, ops, ...)	__stringify(name),
#define FWQ_OPS_OF(id, name, ops, ...)	(&(ops)),
#define FWQ_AXIS_NAMES(axis, AXIS)					\
	static const char * const fwq_##axis##_names[FWQ_##AXIS##_NR] = { \
		FWQ_##AXIS##_VARIANTS(FWQ_NAME_OF)			\
	}

FWQ_AXIS_NAMES(wake, WAKE);
FWQ_AXIS_NAMES(kicked, KICKED);
FWQ_AXIS_NAMES(flush, FLUSH);

const struct fwq_flush_ops *const fwq_flush_strategies[FWQ_FLUSH_NR] = {
	FWQ_FLUSH_VARIANTS(FWQ_OPS_OF)
};

const char * const fwq_affn_scope_names[FWQ_AFFN_NR_TYPES] = {
	FWQ_AFFN_SCOPE_NAMES(__FWQ_AFFN_SCOPE_INIT)
};
EXPORT_SYMBOL_GPL(fwq_affn_scope_names);

/* Defaults: Linux 7.3's own design, the "mainline" variant */
int fwq_param_wake = FWQ_MAINLINE_WAKE;
int fwq_param_kicked = FWQ_MAINLINE_KICKED;
int fwq_param_flush = FWQ_MAINLINE_FLUSH;
int fwq_param_affn_scope = FWQ_AFFN_CACHE_SHARD;

/*
 * Match the first @len characters of @s against a name table. Returns the
 * index, or -EINVAL.
 */
static int fwq_match_name(const char * const *names, int nr, const char *s,
			  size_t len)
{
	int i;

	for (i = 0; i < nr; i++)
		if (names[i] && strlen(names[i]) == len &&
		    !strncmp(names[i], s, len))
			return i;
	return -EINVAL;
}

/* Length of @s without one trailing newline, as sysfs writes carry it. */
static size_t fwq_param_len(const char *s)
{
	size_t len = strlen(s);

	if (len && s[len - 1] == '\n')
		len--;
	return len;
}

/**
 * fwq_wake_name - the name of a wake variant
 * @w: the variant
 *
 * Return: its name, or "invalid".
 */
const char *fwq_wake_name(enum fwq_wake w)
{
	return (unsigned int)w < FWQ_WAKE_NR ? fwq_wake_names[w] : "invalid";
}
EXPORT_SYMBOL_GPL(fwq_wake_name);

/**
 * fwq_kicked_name - the name of a kicked_list variant
 * @k: the variant
 *
 * Return: its name, or "invalid".
 */
const char *fwq_kicked_name(enum fwq_kicked k)
{
	return (unsigned int)k < FWQ_KICKED_NR ? fwq_kicked_names[k] : "invalid";
}
EXPORT_SYMBOL_GPL(fwq_kicked_name);

/**
 * fwq_flush_name - the name of a flush variant
 * @f: the variant
 *
 * Return: its name, or "invalid".
 */
const char *fwq_flush_name(enum fwq_flush f)
{
	return (unsigned int)f < FWQ_FLUSH_NR ? fwq_flush_names[f] : "invalid";
}
EXPORT_SYMBOL_GPL(fwq_flush_name);

const char *fwq_affn_scope_name(enum fwq_affn_scope scope)
{
	return (unsigned int)scope < FWQ_AFFN_NR_TYPES ?
		fwq_affn_scope_names[scope] : "invalid";
}
EXPORT_SYMBOL_GPL(fwq_affn_scope_name);

int fwq_affn_scope_parse(const char *s)
{
	return fwq_match_name(fwq_affn_scope_names, FWQ_AFFN_NR_TYPES, s,
			      fwq_param_len(s));
}
EXPORT_SYMBOL_GPL(fwq_affn_scope_parse);

enum fwq_affn_scope fwq_resolve_scope(enum fwq_affn_scope scope)
{
	if (scope == FWQ_AFFN_DFL)
		return READ_ONCE(fwq_param_affn_scope);
	return scope;
}

void fwq_default_variant(struct fwq_variant *v)
{
	v->wake = READ_ONCE(fwq_param_wake);
	v->kicked = READ_ONCE(fwq_param_kicked);
	v->flush = READ_ONCE(fwq_param_flush);
}
EXPORT_SYMBOL_GPL(fwq_default_variant);

int fwq_variant_str(const struct fwq_variant *v, char *buf, size_t len)
{
	return snprintf(buf, len, "wake=%s,kicked_list=%s,flush=%s",
			fwq_wake_name(v->wake), fwq_kicked_name(v->kicked),
			fwq_flush_name(v->flush));
}
EXPORT_SYMBOL_GPL(fwq_variant_str);

static bool fwq_is_sep(char c)
{
	return c == ',' || isspace(c);
}

int fwq_variant_parse(const char *s, struct fwq_variant *v)
{
	struct fwq_variant n = *v;

	if (!s)
		return -EINVAL;

	while (*s) {
		const char *key, *val, *end;
		size_t klen, vlen;
		int idx;

		while (*s && fwq_is_sep(*s))
			s++;
		if (!*s)
			break;
		key = s;
		while (*s && *s != '=' && !fwq_is_sep(*s))
			s++;
		klen = s - key;
		if (*s != '=') {
			static const struct fwq_variant mainline =
				FWQ_VARIANT_MAINLINE;

			if (klen != 8 || strncmp(key, "mainline", 8))
				return -EINVAL;
			n = mainline;
			continue;
		}
		val = ++s;
		while (*s && !fwq_is_sep(*s))
			s++;
		end = s;
		vlen = end - val;

		if (klen == 4 && !strncmp(key, "wake", 4)) {
			idx = fwq_match_name(fwq_wake_names, FWQ_WAKE_NR, val,
					     vlen);
			if (idx < 0)
				return idx;
			n.wake = idx;
		} else if ((klen == 11 && !strncmp(key, "kicked_list", 11)) ||
			   (klen == 6 && !strncmp(key, "kicked", 6))) {
			idx = fwq_match_name(fwq_kicked_names, FWQ_KICKED_NR,
					     val, vlen);
			if (idx < 0)
				return idx;
			n.kicked = idx;
		} else if (klen == 5 && !strncmp(key, "flush", 5)) {
			idx = fwq_match_name(fwq_flush_names, FWQ_FLUSH_NR, val,
					     vlen);
			if (idx < 0)
				return idx;
			n.flush = idx;
		} else {
			return -EINVAL;
		}
	}
	*v = n;
	return 0;
}
EXPORT_SYMBOL_GPL(fwq_variant_parse);

/*
 * Module parameters taking a name from a table. kp->arg points to the int;
 * the table travels in the ops wrapper below.
 */
struct fwq_name_param {
	const struct kernel_param_ops ops;
	const char * const *names;
	int nr;
	int first;	/* lowest accepted index */
	const char *what;
};

static const struct fwq_name_param *fwq_name_param_of(const struct kernel_param *kp)
{
	return container_of(kp->ops, struct fwq_name_param, ops);
}

static int fwq_name_param_set(const char *val, const struct kernel_param *kp)
{
	const struct fwq_name_param *np = fwq_name_param_of(kp);
	int idx = fwq_match_name(np->names, np->nr, val, fwq_param_len(val));

	if (idx < np->first) {
		char list[128];
		int i, n = 0;

		/* the accepted names, from the table the match used */
		for (i = np->first; i < np->nr; i++)
			n += scnprintf(list + n, sizeof(list) - n, " %s",
				       np->names[i]);
		pr_err("invalid %s '%.*s' (one of:%s)\n", np->what,
		       (int)min_t(size_t, fwq_param_len(val), 32), val, list);
		return -EINVAL;
	}
	WRITE_ONCE(*(int *)kp->arg, idx);
	return 0;
}

static int fwq_name_param_get(char *buf, const struct kernel_param *kp)
{
	const struct fwq_name_param *np = fwq_name_param_of(kp);
	int idx = READ_ONCE(*(int *)kp->arg);

	return sysfs_emit(buf, "%s\n", np->names[idx]);
}

#define FWQ_NAME_PARAM(_var, _names, _nr, _first, _what)		\
	static const struct fwq_name_param _var = {			\
		.ops = {						\
			.set = fwq_name_param_set,			\
			.get = fwq_name_param_get,			\
		},							\
		.names = (_names),					\
		.nr = (_nr),						\
		.first = (_first),					\
		.what = (_what),					\
	}

FWQ_NAME_PARAM(fwq_wake_param, fwq_wake_names, FWQ_WAKE_NR, 0,
	       "wake variant");
FWQ_NAME_PARAM(fwq_kicked_param, fwq_kicked_names, FWQ_KICKED_NR, 0,
	       "kicked_list variant");
FWQ_NAME_PARAM(fwq_flush_param, fwq_flush_names, FWQ_FLUSH_NR, 0,
	       "flush variant");
FWQ_NAME_PARAM(fwq_scope_param, fwq_affn_scope_names, FWQ_AFFN_NR_TYPES,
	       FWQ_AFFN_CPU, "affinity scope");

module_param_cb(wake, &fwq_wake_param.ops, &fwq_param_wake, 0644);
MODULE_PARM_DESC(wake, "default wake variant, one of:"
		 FWQ_WAKE_VARIANTS(__FWQ_VARIANT_NAME_STR) " (default pick)");
module_param_cb(kicked_list, &fwq_kicked_param.ops, &fwq_param_kicked, 0644);
MODULE_PARM_DESC(kicked_list, "default kicked_list variant, one of:"
		 FWQ_KICKED_VARIANTS(__FWQ_VARIANT_NAME_STR) " (default off)");
module_param_cb(flush, &fwq_flush_param.ops, &fwq_param_flush, 0644);
MODULE_PARM_DESC(flush, "default flush variant, one of:"
		 FWQ_FLUSH_VARIANTS(__FWQ_VARIANT_NAME_STR) " (default coalesce)");
module_param_cb(default_affinity_scope, &fwq_scope_param.ops,
		&fwq_param_affn_scope, 0644);
MODULE_PARM_DESC(default_affinity_scope,
		 "affinity scope of unbound workqueues that ask for the default (default cache_shard)");
