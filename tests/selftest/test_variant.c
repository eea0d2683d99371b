// SPDX-License-Identifier: GPL-2.0
/*
 * Variant and affinity-scope names: parsing, formatting and rejection of bad
 * strings (hazard H15: scope names match exactly).
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include <fwq/fwq.h>

#include "suites.h"
#include "util.h"

static bool fwqt_variant_eq(const struct fwq_variant *a,
			    const struct fwq_variant *b)
{
	return a->wake == b->wake && a->kicked == b->kicked &&
	       a->flush == b->flush;
}

/*
 * Invariant: fwq_variant_str() and fwq_variant_parse() round-trip every
 * variant, and parsing one key leaves the other axes untouched.
 */
static void test_variant_roundtrip(struct fwq_ktap_test *t)
{
	struct fwq_variant v, back;
	char buf[96];
	int n;

	fwqt_variant_of(FWQT_AXES_WKF, t->param, &v);
	n = fwq_variant_str(&v, buf, sizeof(buf));
	FWQ_EXPECT(t, n > 0 && n < sizeof(buf));
	back.wake = (v.wake + 1) % FWQ_WAKE_NR;
	back.kicked = (v.kicked + 1) % FWQ_KICKED_NR;
	back.flush = (v.flush + 1) % FWQ_FLUSH_NR;
	FWQ_EXPECT_EQ(t, fwq_variant_parse(buf, &back), 0);
	if (!FWQ_EXPECT(t, fwqt_variant_eq(&v, &back)))
		fwq_ktap_diag("'%s' parsed as %d/%d/%d", buf, back.wake,
			      back.kicked, back.flush);

	/* One key changes one axis only. */
	back = v;
	snprintf(buf, sizeof(buf), "flush=%s",
		 fwq_flush_name((v.flush + 1) % FWQ_FLUSH_NR));
	FWQ_EXPECT_EQ(t, fwq_variant_parse(buf, &back), 0);
	FWQ_EXPECT_EQ(t, back.wake, v.wake);
	FWQ_EXPECT_EQ(t, back.kicked, v.kicked);
	FWQ_EXPECT_EQ(t, back.flush, (v.flush + 1) % FWQ_FLUSH_NR);
}

/*
 * Invariant: a malformed variant string is refused with -EINVAL and leaves
 * the variant unchanged (bad input changes nothing).
 */
static void test_variant_rejects_bad(struct fwq_ktap_test *t)
{
	static const char * const bad[] = {
		"wake", "wake=", "wake=lock", "wake=lockedx", "wake=LOCKED",
		"kicked_list=maybe", "flush=eac", "=locked",
		"nosuchkey=1", "wake=claim,flush=all", "wake=claim;flush=each",
		"flush", "kicked_lis=on", "wake = claim", "mainlin",
		"mainlinex", "mainline=1", "mainline,wake=none",
	};
	const struct fwq_variant orig = {
		.wake = FWQ_WAKE_WAKEQ, .kicked = FWQ_KICKED_ON,
		.flush = FWQ_FLUSH_ACTIVE,
	};
	struct fwq_variant v;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		v = orig;
		ret = fwq_variant_parse(bad[i], &v);
		if (!FWQ_EXPECT_EQ(t, ret, -EINVAL))
			fwq_ktap_diag("'%s' returned %d", bad[i], ret);
		if (!FWQ_EXPECT(t, fwqt_variant_eq(&v, &orig)))
			fwq_ktap_diag("'%s' changed the variant", bad[i]);
	}
	v = orig;
	FWQ_EXPECT_EQ(t, fwq_variant_parse(NULL, &v), -EINVAL);
	FWQ_EXPECT(t, fwqt_variant_eq(&v, &orig));

	/* Out-of-range enum values have a name, not an out-of-bounds read. */
	FWQ_EXPECT(t, !strcmp(fwq_wake_name(FWQ_WAKE_NR), "invalid"));
	FWQ_EXPECT(t, !strcmp(fwq_kicked_name(FWQ_KICKED_NR), "invalid"));
	FWQ_EXPECT(t, !strcmp(fwq_flush_name(FWQ_FLUSH_NR), "invalid"));
}

/*
 * Invariant: the word "mainline" is Linux 7.3's design, wake=pick,
 * kicked_list=off, flush=coalesce, whatever the variant held before; keys
 * after it override it, keys before it do not survive it.
 */
static void test_variant_mainline(struct fwq_ktap_test *t)
{
	const struct fwq_variant mainline = {
		.wake = FWQ_WAKE_PICK, .kicked = FWQ_KICKED_OFF,
		.flush = FWQ_FLUSH_COALESCE,
	};
	struct fwq_variant v = {
		.wake = FWQ_WAKE_WAKEQ, .kicked = FWQ_KICKED_ON,
		.flush = FWQ_FLUSH_ACTIVE,
	};

	FWQ_EXPECT_EQ(t, fwq_variant_parse("mainline", &v), 0);
	FWQ_EXPECT(t, fwqt_variant_eq(&v, &mainline));

	FWQ_EXPECT_EQ(t, fwq_variant_parse("mainline,flush=active", &v), 0);
	FWQ_EXPECT_EQ(t, v.wake, FWQ_WAKE_PICK);
	FWQ_EXPECT_EQ(t, v.flush, FWQ_FLUSH_ACTIVE);

	FWQ_EXPECT_EQ(t, fwq_variant_parse("wake=locked mainline", &v), 0);
	FWQ_EXPECT(t, fwqt_variant_eq(&v, &mainline));
}

/*
 * shim_map (src/params.c): a workqueue made without a variant takes the
 * first rule whose glob matches its name, on top of the defaults; no
 * match is the defaults; an explicit variant ignores the map; a bad map
 * is refused and leaves the old one.
 */
static void test_variant_shim_map(struct fwq_ktap_test *t)
{
	static const char map[] =
		"fwqt-sm-a*=flush=each;fwqt-sm-*=wake=claim,flush=active";
	const struct fwq_variant mainline = FWQ_VARIANT_MAINLINE;
	struct fwq_workqueue *a, *b, *c, *d;
	struct fwq_variant dfl, want, v;
	static char old[1024];
	char buf[sizeof(map) + 8];

	if (!fwqt_param_save(t, "shim_map", old, sizeof(old),
			     "fwq.ko has no shim_map"))
		return;
	if (!FWQ_EXPECT(t, fwqt_param_write("shim_map", map) >= 0))
		goto out;
	fwq_default_variant(&dfl);
	a = fwq_alloc_workqueue("fwqt-sm-ab", FWQ_UNBOUND, 0);
	b = fwq_alloc_workqueue("fwqt-sm-x", 0, 0);
	c = fwq_alloc_workqueue("fwqt-other", 0, 0);
	d = fwq_alloc_workqueue_variant(&mainline, "fwqt-sm-ay", 0, 0);
	if (FWQ_EXPECT(t, a && b && c && d)) {
		/* the first rule: flush=each over the defaults */
		want = dfl;
		want.flush = FWQ_FLUSH_EACH;
		fwq_workqueue_variant(a, &v);
		FWQ_EXPECT(t, fwqt_variant_eq(&v, &want));
		/* the second rule */
		want = dfl;
		want.wake = FWQ_WAKE_CLAIM;
		want.flush = FWQ_FLUSH_ACTIVE;
		fwq_workqueue_variant(b, &v);
		FWQ_EXPECT(t, fwqt_variant_eq(&v, &want));
		/* no rule matches */
		fwq_workqueue_variant(c, &v);
		FWQ_EXPECT(t, fwqt_variant_eq(&v, &dfl));
		/* the caller's variant wins over a matching rule */
		fwq_workqueue_variant(d, &v);
		FWQ_EXPECT(t, fwqt_variant_eq(&v, &mainline));
	}
	/* a bad rule after a good one: refused, the map unchanged */
	FWQ_EXPECT_EQ(t, fwqt_param_write("shim_map",
					  "fwqt-*=mainline;fwqt-sm-*=flush=nope"),
		      -EINVAL);
	FWQ_EXPECT(t, fwqt_param_read("shim_map", buf, sizeof(buf)) > 0 &&
		   !strcmp(buf, map));
	fwqt_destroy_wq(a);
	fwqt_destroy_wq(b);
	fwqt_destroy_wq(c);
	fwqt_destroy_wq(d);
out:
	/* an empty map is written as a newline: sysfs drops empty writes */
	fwqt_param_restore("shim_map", old[0] ? old : "\n");
}

/*
 * Invariant (H15): scope names match exactly; "cache" and "cache_shard" are
 * different scopes, and prefixes or extensions of a name are refused.
 */
static void test_scope_names_exact(struct fwq_ktap_test *t)
{
	static const char * const bad[] = {
		"", "cach", "cache_", "cache_shar", "cache_shardx", "cachex",
		"CPU", "numa0", "sys", " system", "default",
	};
	int s, i;

	for (s = FWQ_AFFN_CPU; s < FWQ_AFFN_NR_TYPES; s++) {
		const char *name = fwq_affn_scope_name(s);

		FWQ_EXPECT_EQ(t, fwq_affn_scope_parse(name), s);
	}
	FWQ_EXPECT_EQ(t, fwq_affn_scope_parse("cache"), FWQ_AFFN_CACHE);
	FWQ_EXPECT_EQ(t, fwq_affn_scope_parse("cache_shard"),
		      FWQ_AFFN_CACHE_SHARD);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = fwq_affn_scope_parse(bad[i]);

		/* "default" is a name of FWQ_AFFN_DFL; accept either answer */
		if (!strcmp(bad[i], "default")) {
			FWQ_EXPECT(t, ret == FWQ_AFFN_DFL || ret == -EINVAL);
			continue;
		}
		if (!FWQ_EXPECT_EQ(t, ret, -EINVAL))
			fwq_ktap_diag("scope '%s' parsed as %d", bad[i], ret);
	}
	FWQ_EXPECT(t, !strcmp(fwq_affn_scope_name(FWQ_AFFN_NR_TYPES),
			      "invalid"));
}

/* The runs of axis set WK that fwqt_wanted_WK() keeps. */
static unsigned int fwqt_nr_wanted_wk(void)
{
	unsigned int n = 0;
	unsigned long p;

	for (p = 0; p < FWQT_NR_WK; p++)
		n += fwqt_wanted_WK(p);
	return n;
}

/*
 * fwq_test's axes parameter: a case runs once per value of each axis it
 * names, once with the default on the others, and a bad value is refused
 * and changes nothing.
 */
static void test_axes_select_runs(struct fwq_ktap_test *t)
{
	static const char * const bad[] = {
		"", "wak", "wake,", ",wake", "wake,,flush", "kicked_list",
		"all", "wake flush",
	};
	unsigned int saved = fwqt_axes;
	struct fwq_variant def, v;
	unsigned long p;
	int i;

	FWQ_EXPECT_EQ(t, fwqt_set_axes("wake,kicked,flush"), 0);
	FWQ_EXPECT_EQ(t, fwqt_nr_wanted_wk(), FWQT_NR_WK);
	FWQ_EXPECT_EQ(t, fwqt_set_axes("wake"), 0);
	FWQ_EXPECT_EQ(t, fwqt_nr_wanted_wk(), FWQ_WAKE_NR);
	FWQ_EXPECT_EQ(t, fwqt_set_axes("flush,kicked"), 0);
	FWQ_EXPECT_EQ(t, fwqt_nr_wanted_wk(), FWQ_KICKED_NR);
	FWQ_EXPECT_EQ(t, fwqt_set_axes("none"), 0);
	FWQ_EXPECT_EQ(t, fwqt_nr_wanted_wk(), 1);
	/* the one run left is the defaults' */
	fwq_default_variant(&def);
	for (p = 0; p < FWQT_NR_WK; p++) {
		if (!fwqt_wanted_WK(p))
			continue;
		fwqt_variant_of(FWQT_AXES_WK, p, &v);
		FWQ_EXPECT(t, fwqt_variant_eq(&v, &def));
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (!FWQ_EXPECT_EQ(t, fwqt_set_axes(bad[i]), -EINVAL))
			fwq_ktap_diag("axes '%s' accepted", bad[i]);
		FWQ_EXPECT_EQ(t, fwqt_nr_wanted_wk(), 1);
	}
	fwqt_axes = saved;
}

FWQ_KTAP_SUITE(fwq_suite_variant, "fwq_variant",
	       FWQT_CASE("variant_str_parse_roundtrip",
			 test_variant_roundtrip, WKF),
	       { .name = "variant_parse_rejects_bad_input",
		 .run = test_variant_rejects_bad },
	       { .name = "variant_mainline",
		 .run = test_variant_mainline },
	       { .name = "variant_shim_map",
		 .run = test_variant_shim_map },
	       { .name = "scope_names_match_exactly",
		 .run = test_scope_names_exact },
	       { .name = "axes_select_runs",
		 .run = test_axes_select_runs });
