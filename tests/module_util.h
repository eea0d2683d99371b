/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test modules outside the selftest share: the variant= module
 * parameter of those that build their workqueues from a variant string
 * (fwq_icount.ko, fwq_torture.ko), and the debugfs files that take a
 * count (fwq_stall.ko, fwq_workload.ko).
 */
#ifndef _FWQT_MODULE_UTIL_H
#define _FWQT_MODULE_UTIL_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <fwq/fwq.h>

/*
 * FWQT_VARIANT_PARAM(def): the module's parameter variant, @def unless
 * given; fwqt_variant_param() reads it.
 */
#define FWQT_VARIANT_PARAM(def)						\
	static char *variant = def;					\
	module_param(variant, charp, 0444);				\
	MODULE_PARM_DESC(variant, "the fwq variant over fwq's defaults (fwq_variant_parse())")

/**
 * fwqt_variant_param - the variant a variant= parameter names
 * @s: the parameter's value
 * @v: set to fwq's default variant (fwq_default_variant()) with @s
 *	applied over it
 *
 * Return: 0, or -EINVAL, said in the log, when @s does not parse.
 */
static inline int fwqt_variant_param(const char *s, struct fwq_variant *v)
{
	fwq_default_variant(v);
	if (fwq_variant_parse(s ? s : "", v)) {
		pr_err("invalid parameter variant=%s\n", s);
		return -EINVAL;
	}
	return 0;
}

/**
 * fwqt_count_write - a debugfs file's write: a count, then an operation
 * @ubuf: the write's buffer
 * @count: its length
 * @min: the smallest count taken
 * @max: the largest
 * @what: the file, for the log
 * @lock: the module's mutex, held across @op
 * @op: the operation, given the count: 0 or an -errno
 *
 * Return: @count; -EINVAL, said in the log, for anything but a number in
 * @min..@max; or @op's error.
 */
static inline ssize_t fwqt_count_write(const char __user *ubuf, size_t count,
				       unsigned int min, unsigned int max,
				       const char *what, struct mutex *lock,
				       int (*op)(unsigned int n))
{
	unsigned int n;
	int ret;

	if (kstrtouint_from_user(ubuf, count, 0, &n) || n < min || n > max) {
		pr_warn("%s: want a count %u..%u\n", what, min, max);
		return -EINVAL;
	}
	mutex_lock(lock);
	ret = op(n);
	mutex_unlock(lock);
	return ret ? ret : count;
}

#endif /* _FWQT_MODULE_UTIL_H */
