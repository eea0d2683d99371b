/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small KTAP (Documentation/dev-tools/ktap.rst) producer for fwq's test
 * modules. The 6.1 distro kernel has no KUnit, so suites and cases are
 * plain structs, and results go to printk in KTAP version 1.
 *
 * A test module lists its suites; fwq_ktap_run() prints
 *
 *	KTAP version 1
 *	1..<suites>
 *	    KTAP version 1
 *	    # Subtest: <suite>
 *	    1..<cases>
 *	    ok 1 <case>
 *	    not ok 2 <case>
 *	ok 1 <suite>
 *
 * and returns the number of failed cases.
 */
#ifndef _FWQ_KTAP_H
#define _FWQ_KTAP_H

#include <linux/printk.h>
#include <linux/types.h>

/**
 * struct fwq_ktap_test - the state of one running test case
 * @name: case name
 * @failed: set by a failed check
 * @skip_reason: set by FWQ_KTAP_SKIP(); the case is reported as skipped
 * @nr_checks: number of checks made
 * @param: the case's parameter (for example a variant index)
 */
struct fwq_ktap_test {
	const char *name;
	bool failed;
	const char *skip_reason;
	unsigned int nr_checks;
	unsigned long param;
};

/**
 * struct fwq_ktap_case - one test case
 * @name: name, printed in the result line
 * @run: the test body
 * @nr_params: run @run this many times with param 0..nr_params-1 as
 *	separate results (0 means once, with param 0)
 * @param_name: formats the name of one parameterised run, may be NULL
 * @param_wanted: whether parameter @param is run at all, may be NULL (every
 *	parameter is); a run it refuses is neither counted nor printed
 */
struct fwq_ktap_case {
	const char *name;
	void (*run)(struct fwq_ktap_test *t);
	unsigned int nr_params;
	void (*param_name)(unsigned long param, char *buf, size_t len);
	bool (*param_wanted)(unsigned long param);
};

/**
 * struct fwq_ktap_suite - a suite of test cases
 * @name: suite name
 * @cases: the cases, terminated by an entry with a NULL @run
 * @init: called before the first case; non-zero skips the suite
 * @exit: called after the last case
 */
struct fwq_ktap_suite {
	const char *name;
	const struct fwq_ktap_case *cases;
	int (*init)(void);
	void (*exit)(void);
};

/**
 * FWQ_KTAP_SUITE - define a suite and its table of cases
 * @_var: the suite's variable (declared in suites.h)
 * @_name: suite name
 * @...: the cases, as struct fwq_ktap_case initialisers; the table gets
 *	its terminating entry here
 */
#define FWQ_KTAP_SUITE(_var, _name, ...)				\
	static const struct fwq_ktap_case _var##_cases[] = {		\
		__VA_ARGS__,						\
		{}							\
	};								\
	const struct fwq_ktap_suite _var = {				\
		.name = (_name),					\
		.cases = _var##_cases,					\
	}

/**
 * struct fwq_ktap_hooks - calls around every run of every case
 * @before: before the run
 * @after: after it, skipped or not; its checks are the case's own (a
 *	failed one fails the case) but do not count as the case having
 *	checked something
 */
struct fwq_ktap_hooks {
	void (*before)(void);
	void (*after)(struct fwq_ktap_test *t);
};

/**
 * fwq_ktap_run - run suites and print KTAP
 * @suites: array of suite pointers
 * @nr: number of entries in @suites
 * @filter: globs over "suite.case" names, separated by commas (a run
 *	matching any of them runs), or NULL/"" for all
 * @repeat: how many times the selection runs, in one KTAP document (its
 *	suites appear that many times, in order); at least 1
 * @hooks: calls around each case run, or NULL
 * @passed: incremented per passed case (may be NULL)
 * @failed: incremented per failed case (may be NULL)
 *
 * Return: the number of failed cases.
 */
unsigned int fwq_ktap_run(const struct fwq_ktap_suite * const *suites,
			  unsigned int nr, const char *filter,
			  unsigned int repeat,
			  const struct fwq_ktap_hooks *hooks,
			  unsigned int *passed, unsigned int *failed);

bool __fwq_ktap_check(struct fwq_ktap_test *t, bool ok, const char *file,
		      int line, const char *cond);
bool __fwq_ktap_check_eq(struct fwq_ktap_test *t, long long a, long long b,
			 const char *file, int line, const char *cond);

/**
 * FWQ_EXPECT - check a condition; on failure mark the case failed
 * @t: the running test
 * @cond: the condition
 *
 * Evaluates to @cond so callers can bail out.
 */
#define FWQ_EXPECT(t, cond)						\
	__fwq_ktap_check((t), !!(cond), __FILE__, __LINE__, #cond)

/**
 * FWQ_EXPECT_EQ - check that two integer expressions are equal
 * @t: the running test
 * @a: left side
 * @b: right side
 *
 * Evaluates to whether they were equal; prints both values if not.
 */
#define FWQ_EXPECT_EQ(t, a, b)						\
	__fwq_ktap_check_eq((t), (a), (b), __FILE__, __LINE__,		\
			    #a " == " #b)

/**
 * FWQ_KTAP_SKIP - mark the running case as skipped
 * @t: the running test
 * @reason: a string literal
 */
#define FWQ_KTAP_SKIP(t, reason)	((t)->skip_reason = (reason))

/**
 * fwq_ktap_diag - print a KTAP diagnostic line for the running case
 * @fmt: printf format
 * @...: arguments
 */
#define fwq_ktap_diag(fmt, ...)	pr_info("        # " fmt "\n", ##__VA_ARGS__)

#endif /* _FWQ_KTAP_H */
