// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP producer for fwq's test modules; see ktap.h.
 */
#define pr_fmt(fmt) fmt

#include <linux/glob.h>
#include <linux/kernel.h>
#include <linux/sched.h>

#include "ktap.h"

static void fwq_ktap_fail(struct fwq_ktap_test *t, const char *file,
			  int line, const char *cond)
{
	t->failed = true;
	pr_info("        # %s: EXPECTATION FAILED at %s:%d: %s\n",
		t->name, file, line, cond);
}

bool __fwq_ktap_check(struct fwq_ktap_test *t, bool ok, const char *file,
		      int line, const char *cond)
{
	t->nr_checks++;
	if (!ok)
		fwq_ktap_fail(t, file, line, cond);
	return ok;
}

bool __fwq_ktap_check_eq(struct fwq_ktap_test *t, long long a, long long b,
			 const char *file, int line, const char *cond)
{
	t->nr_checks++;
	if (a == b)
		return true;
	fwq_ktap_fail(t, file, line, cond);
	pr_info("        # %lld != %lld\n", a, b);
	return false;
}

/* The name of run @p of @c: "case", or "case.<param name>". */
static void fwq_ktap_run_name(const struct fwq_ktap_case *c, unsigned long p,
			      char *name, size_t len)
{
	if (c->nr_params && c->param_name) {
		int n = scnprintf(name, len, "%s.", c->name);

		c->param_name(p, name + n, len - n);
	} else if (c->nr_params) {
		scnprintf(name, len, "%s.%lu", c->name, p);
	} else {
		strscpy(name, c->name, len);
	}
}

/* Does one glob of a filter (@len characters of @glob) match @name? */
static bool fwq_ktap_glob(const char *glob, size_t len, const char *name)
{
	char one[128];

	if (len >= sizeof(one))
		return false;
	memcpy(one, glob, len);
	one[len] = '\0';
	return glob_match(one, name);
}

/*
 * Does @filter match @name: the whole filter as one glob, or any of its
 * comma-separated globs? A run's name holds commas of its own
 * ("fwq_cull.idle_cull_to_floor.wake=claim,kicked=on"), so the whole
 * filter is tried first: a glob with a comma in it works alone, not in a
 * list.
 */
static bool fwq_ktap_filter_match(const char *filter, const char *name)
{
	const char *g = filter;

	if (glob_match(filter, name))
		return true;
	for (;;) {
		size_t len = strcspn(g, ",");

		if (len && fwq_ktap_glob(g, len, name))
			return true;
		if (!g[len])
			return false;
		g += len + 1;
	}
}

/*
 * Does run @p of @c match @filter? The filter is one glob or a list of
 * globs, comma separated (fwq_ktap_filter_match()), each over
 * "suite.case" (every run of the case) or "suite.case.<param name>" (one
 * run). A run the case's @param_wanted
 * refuses matches no filter.
 */
static bool fwq_ktap_match(const char *filter, const char *suite,
			   const struct fwq_ktap_case *c, unsigned long p)
{
	char full[160];
	int n;

	if (c->nr_params && c->param_wanted && !c->param_wanted(p))
		return false;
	if (!filter || !*filter)
		return true;
	snprintf(full, sizeof(full), "%s.%s", suite, c->name);
	if (fwq_ktap_filter_match(filter, full))
		return true;
	if (!c->nr_params)
		return false;
	n = scnprintf(full, sizeof(full), "%s.", suite);
	fwq_ktap_run_name(c, p, full + n, sizeof(full) - n);
	return fwq_ktap_filter_match(filter, full);
}

static unsigned int fwq_ktap_nr_runs(const struct fwq_ktap_case *c)
{
	return c->nr_params ? c->nr_params : 1;
}

static unsigned int fwq_ktap_count(const struct fwq_ktap_suite *s,
				   const char *filter)
{
	const struct fwq_ktap_case *c;
	unsigned int n = 0;
	unsigned long p;

	for (c = s->cases; c->run; c++)
		for (p = 0; p < fwq_ktap_nr_runs(c); p++)
			if (fwq_ktap_match(filter, s->name, c, p))
				n++;
	return n;
}

static bool fwq_ktap_run_one(const struct fwq_ktap_case *c, unsigned long p,
			     unsigned int idx,
			     const struct fwq_ktap_hooks *hooks,
			     unsigned int *passed, unsigned int *failed)
{
	struct fwq_ktap_test t = { .param = p };
	unsigned int checks;
	char name[96];

	fwq_ktap_run_name(c, p, name, sizeof(name));
	t.name = name;
	if (hooks && hooks->before)
		hooks->before();
	c->run(&t);
	checks = t.nr_checks;
	if (hooks && hooks->after)
		hooks->after(&t);
	cond_resched();

	if (t.skip_reason && !t.failed) {
		pr_info("    ok %u %s # SKIP %s\n", idx, name, t.skip_reason);
		return true;
	}
	if (!t.failed && !checks) {
		/* A case that checked nothing has proven nothing. */
		pr_info("        # %s: no checks were made\n", name);
		t.failed = true;
	}
	pr_info("    %sok %u %s\n", t.failed ? "not " : "", idx, name);
	if (t.failed) {
		if (failed)
			(*failed)++;
		return false;
	}
	if (passed)
		(*passed)++;
	return true;
}

unsigned int fwq_ktap_run(const struct fwq_ktap_suite * const *suites,
			  unsigned int nr, const char *filter,
			  unsigned int repeat,
			  const struct fwq_ktap_hooks *hooks,
			  unsigned int *passed, unsigned int *failed)
{
	unsigned int i, nr_suites = 0, done = 0, nr_failed = 0;

	for (i = 0; i < nr; i++)
		if (fwq_ktap_count(suites[i], filter))
			nr_suites++;

	pr_info("KTAP version 1\n");
	pr_info("1..%u\n", nr_suites * repeat);

	for (i = 0; i < nr * repeat; i++) {
		const struct fwq_ktap_suite *s = suites[i % nr];
		const struct fwq_ktap_case *c;
		unsigned int n = fwq_ktap_count(s, filter), idx = 0;
		bool ok = true;

		if (!n)
			continue;
		done++;
		pr_info("    KTAP version 1\n");
		pr_info("    # Subtest: %s\n", s->name);
		pr_info("    1..%u\n", n);
		if (repeat > 1)
			pr_info("    # repetition %u of %u\n", i / nr + 1, repeat);
		if (s->init && s->init()) {
			for (c = s->cases; c->run; c++) {
				unsigned long p;

				for (p = 0; p < fwq_ktap_nr_runs(c); p++)
					if (fwq_ktap_match(filter, s->name, c, p))
						pr_info("    ok %u %s # SKIP suite init failed\n",
							++idx, c->name);
			}
			pr_info("ok %u %s # SKIP suite init failed\n", done,
				s->name);
			continue;
		}
		for (c = s->cases; c->run; c++) {
			unsigned long p;

			for (p = 0; p < fwq_ktap_nr_runs(c); p++) {
				if (!fwq_ktap_match(filter, s->name, c, p))
					continue;
				if (!fwq_ktap_run_one(c, p, ++idx, hooks,
						      passed, failed)) {
					ok = false;
					nr_failed++;
				}
			}
		}
		if (s->exit)
			s->exit();
		pr_info("%sok %u %s\n", ok ? "" : "not ", done, s->name);
	}
	return nr_failed;
}
