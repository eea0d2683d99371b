// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-run sanity: fwq's own consistency
 * checks (pool bookkeeping under the lock, run by reading
 * /sys/kernel/debug/fwq/check) found nothing during the selftests, no
 * deferred wakeup was issued under a pool lock, and every workqueue, pwq,
 * unbound pool and rescuer the selftests created is gone again (object
 * counts from /sys/kernel/debug/fwq/objects back at their value before the
 * first suite).
 *
 * fwq_suite_baseline runs first and records the counts; fwq_suite_sanity
 * runs last. Between them, fwqt_balance_hooks check the same counts
 * around every case run, so that a case that leaves an object alive
 * fails by name, not only the whole run at its end.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "suites.h"
#include "util.h"

#define SN_OBJECTS	"/sys/kernel/debug/fwq/objects"
#define SN_CHECK	"/sys/kernel/debug/fwq/check"
#define SN_BUF		1024

/* objects that must return to their baseline; workers vary with load */
static const char * const sn_names[] = {
	"workqueues", "pwqs", "unbound_pools", "rescuers",
};

static long long sn_base[ARRAY_SIZE(sn_names)];
static bool sn_have_base;

/* The value of "@key N" or "@key=N" in @buf, or -1. */
static long long sn_value(const char *buf, const char *key)
{
	size_t len = strlen(key);
	const char *p = buf;
	long long v;

	while ((p = strstr(p, key))) {
		if ((p == buf || p[-1] == '\n' || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '=') &&
		    sscanf(p + len + 1, "%lld", &v) == 1)
			return v;
		p += len;
	}
	return -1;
}

static bool sn_read(struct fwq_ktap_test *t, const char *path, char *buf)
{
	ssize_t n = fwqt_file_read(path, buf, SN_BUF);

	if (!FWQ_EXPECT(t, n > 0)) {
		fwq_ktap_diag("cannot read %s: %zd", path, n);
		return false;
	}
	return true;
}

/* the counts into @v, without a test to fail: false if unreadable */
static bool sn_counts(char *buf, long long *v)
{
	int i;

	if (fwqt_file_read(SN_OBJECTS, buf, SN_BUF) <= 0)
		return false;
	for (i = 0; i < ARRAY_SIZE(sn_names); i++) {
		v[i] = sn_value(buf, sn_names[i]);
		if (v[i] < 0)
			return false;
	}
	return true;
}

/*
 * Poll the counts into @now until they equal @want (release is deferred
 * to a kthread_worker and RCU), with a hang guard. Return: equal.
 */
static bool sn_settle(char *buf, long long *now, const long long *want)
{
	unsigned long end = jiffies + msecs_to_jiffies(FWQT_HANG_MS);

	for (;;) {
		if (!sn_counts(buf, now))
			return false;
		if (!memcmp(now, want, sizeof(*now) * ARRAY_SIZE(sn_names)))
			return true;
		if (!time_before(jiffies, end))
			return false;
		msleep(20);
	}
}

/* the counts before the case that runs now; sn_case_ok: they were read */
static long long sn_case[ARRAY_SIZE(sn_names)];
static bool sn_case_ok;

static void sn_case_before(void)
{
	char *buf = kmalloc(SN_BUF, GFP_KERNEL);

	sn_case_ok = buf && sn_counts(buf, sn_case);
	kfree(buf);
}

/* Invariant: a case leaves no workqueue, pwq, unbound pool or rescuer. */
static void sn_case_after(struct fwq_ktap_test *t)
{
	long long now[ARRAY_SIZE(sn_names)] = { -1, -1, -1, -1 };
	char *buf;
	int i;

	if (!sn_case_ok)
		return;
	buf = kmalloc(SN_BUF, GFP_KERNEL);
	if (!FWQ_EXPECT(t, buf))
		return;
	if (!sn_settle(buf, now, sn_case))
		for (i = 0; i < ARRAY_SIZE(sn_names); i++)
			if (!FWQ_EXPECT_EQ(t, now[i], sn_case[i]))
				fwq_ktap_diag("%s: %lld before the case, %lld after it",
					      sn_names[i], sn_case[i], now[i]);
	kfree(buf);
}

const struct fwq_ktap_hooks fwqt_balance_hooks = {
	.before = sn_case_before,
	.after = sn_case_after,
};

/* Record the object counts before any suite creates a workqueue. */
static void test_baseline(struct fwq_ktap_test *t)
{
	char *buf = kmalloc(SN_BUF, GFP_KERNEL);
	int i;

	if (!FWQ_EXPECT(t, buf))
		return;
	if (sn_read(t, SN_OBJECTS, buf)) {
		for (i = 0; i < ARRAY_SIZE(sn_names); i++) {
			sn_base[i] = sn_value(buf, sn_names[i]);
			FWQ_EXPECT(t, sn_base[i] >= 0);
		}
		sn_have_base = !t->failed;
		fwq_ktap_diag("baseline: %s %lld, %s %lld, %s %lld, %s %lld",
			      sn_names[0], sn_base[0], sn_names[1], sn_base[1],
			      sn_names[2], sn_base[2], sn_names[3], sn_base[3]);
	}
	kfree(buf);
}

/*
 * Invariant: every workqueue, pwq, unbound pool and rescuer the
 * selftests created has been freed (release may be deferred: poll with a
 * hang guard).
 */
static void test_objects_freed(struct fwq_ktap_test *t)
{
	long long now[ARRAY_SIZE(sn_names)] = { -1, -1, -1, -1 };
	char *buf;
	int i;

	if (!sn_have_base) {
		FWQ_KTAP_SKIP(t, "no baseline (run the whole module)");
		return;
	}
	buf = kmalloc(SN_BUF, GFP_KERNEL);
	if (!FWQ_EXPECT(t, buf))
		return;
	if (!sn_settle(buf, now, sn_base))
		fwq_ktap_diag("the counts did not return to the baseline");
	for (i = 0; i < ARRAY_SIZE(sn_names); i++)
		if (!FWQ_EXPECT_EQ(t, now[i], sn_base[i]))
			fwq_ktap_diag("%s: %lld at the start, %lld now",
				      sn_names[i], sn_base[i], now[i]);
	kfree(buf);
}

/*
 * Invariant: reading fwq's check file runs the pool
 * bookkeeping checks on every pool; no consistency check failed during the
 * whole run, and no deferred wakeup was ever issued under a pool lock.
 */
static void test_no_consistency_errors(struct fwq_ktap_test *t)
{
	char *buf = kmalloc(SN_BUF, GFP_KERNEL);
	long long errs, under;

	if (!FWQ_EXPECT(t, buf))
		return;
	if (sn_read(t, SN_CHECK, buf)) {
		errs = sn_value(buf, "consistency_errors");
		under = sn_value(buf, "deferred_issue_under_lock");
		fwq_ktap_diag("%s", strim(buf));
		FWQ_EXPECT_EQ(t, errs, 0);
		FWQ_EXPECT_EQ(t, under, 0);
	}
	kfree(buf);
}

FWQ_KTAP_SUITE(fwq_suite_baseline, "fwq_baseline",
	       { .name = "record_object_counts", .run = test_baseline });

FWQ_KTAP_SUITE(fwq_suite_sanity, "fwq_sanity",
	       { .name = "objects_freed", .run = test_objects_freed },
	       { .name = "no_consistency_errors",
		 .run = test_no_consistency_errors });
