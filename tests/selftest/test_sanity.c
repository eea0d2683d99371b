// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-run sanity: fwq's own consistency
 * checks (pool bookkeeping under the lock, run by reading
 * /sys/kernel/debug/fwq/check) found nothing during the selftests, no
 * deferred wakeup was issued under a pool lock, and every workqueue, pwq,
 * unbound pool and rescuer the selftests created is gone again (object
 * counts from /sys/kernel/debug/fwq/objects back at their value before the
 * first suite). A count that does not come back prints
 * /sys/kernel/debug/fwq/object_list: every object alive, each pwq with who
 * holds its references.
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

static long long sn_base[FWQT_NR_OBJ];
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

/* the counts before the case that runs now; sn_case_ok: they were read */
static long long sn_case[FWQT_NR_OBJ];
static bool sn_case_ok;

static void sn_case_before(void)
{
	sn_case_ok = fwqt_objects(sn_case);
}

/*
 * Invariant: a case leaves no workqueue, pwq, unbound pool or rescuer;
 * if it does, every object alive is listed, with who holds each pwq's
 * references.
 */
static void sn_case_after(struct fwq_ktap_test *t)
{
	long long now[FWQT_NR_OBJ] = { -1, -1, -1, -1 };
	int i;

	if (!sn_case_ok || fwqt_objects_settle(now, sn_case))
		return;
	for (i = 0; i < FWQT_NR_OBJ; i++)
		if (!FWQ_EXPECT_EQ(t, now[i], sn_case[i]))
			fwq_ktap_diag("%s: %lld before the case, %lld after it",
				      fwqt_obj_names[i], sn_case[i], now[i]);
	fwqt_objects_dump();
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
		for (i = 0; i < FWQT_NR_OBJ; i++) {
			sn_base[i] = sn_value(buf, fwqt_obj_names[i]);
			FWQ_EXPECT(t, sn_base[i] >= 0);
		}
		sn_have_base = !t->failed;
		fwq_ktap_diag("baseline: %s %lld, %s %lld, %s %lld, %s %lld",
			      fwqt_obj_names[0], sn_base[0],
			      fwqt_obj_names[1], sn_base[1],
			      fwqt_obj_names[2], sn_base[2],
			      fwqt_obj_names[3], sn_base[3]);
	}
	kfree(buf);
}

/*
 * Invariant: every workqueue, pwq, unbound pool and rescuer the
 * selftests created has been freed (release may be deferred: poll with a
 * hang guard); if not, every object alive is listed.
 */
static void test_objects_freed(struct fwq_ktap_test *t)
{
	long long now[FWQT_NR_OBJ] = { -1, -1, -1, -1 };
	bool settled;
	int i;

	if (!sn_have_base) {
		FWQ_KTAP_SKIP(t, "no baseline (run the whole module)");
		return;
	}
	settled = fwqt_objects_settle(now, sn_base);
	if (!settled)
		fwq_ktap_diag("the counts did not return to the baseline");
	for (i = 0; i < FWQT_NR_OBJ; i++)
		if (!FWQ_EXPECT_EQ(t, now[i], sn_base[i]))
			fwq_ktap_diag("%s: %lld at the start, %lld now",
				      fwqt_obj_names[i], sn_base[i], now[i]);
	if (!settled)
		fwqt_objects_dump();
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
