// SPDX-License-Identifier: GPL-2.0
/*
 * fwq_bench: contention and flush benchmarks for the fwq variants and the
 * kernel's own workqueue, driven through /sys/kernel/debug/fwq_bench/.
 *
 *   spec      (rw) one-line run description, "key=value ..."; a write
 *                  replaces the whole spec (unnamed keys get defaults)
 *   knobs/KEY (rw) the same keys one by one
 *   control   (w)  "run": run the spec synchronously in the writer's
 *                  context; "stop": stop a run in progress
 *   run       (w)  "1" or "run": same as "run" to control
 *   results   (r)  one JSON object per repetition of the last run
 *   text      (r)  the same runs as test_workqueue-style lines
 *   status    (r)  idle/running, current repetition, last error
 *   targets   (r)  the targets this build supports: "kwq" or "kwq fwq"
 *
 * A run holds bench_mutex; any spec change or second run meanwhile gets
 * -EBUSY. "stop" or a signal to the writer end a run early; the write then
 * fails with -ECANCELED (not -EINTR, which libc-style writers retry) and the
 * partial repetition is dropped. Unloading needs every file closed, so it
 * is refused (-EBUSY from delete_module) while a run is in progress.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "bench.h"

#define BENCH_LINE_MAX		1024
#define BENCH_RESULTS_SIZE	(512 * 1024)
#define BENCH_JSON_SIZE		(16 * 1024)
#define BENCH_TEXT_SIZE		256
#define BENCH_MAX_ITEMS		10000000U
#define BENCH_MAX_WORK_US	100000U

const char * const bench_scenario_names[BS_NR] = {
	[BS_FLOOR] = "floor", [BS_S1] = "s1", [BS_S2] = "s2", [BS_S3] = "s3",
	[BS_S4A] = "s4a", [BS_S4B] = "s4b", [BS_S4C] = "s4c", [BS_S5] = "s5",
	[BS_S6] = "s6",
};

static const char * const bench_target_names[] = {
	[BT_FWQ] = "fwq", [BT_KWQ] = "kwq",
};

const char * const bench_type_names[] = {
	[BW_UNBOUND] = "unbound", [BW_PERCPU] = "percpu",
	[BW_ORDERED] = "ordered",
};

static DEFINE_MUTEX(bench_mutex);	/* protects the specs; held by a run */
static u64 bench_redo_spent_ns;		/* bench_mutex: redos' cost since load */
static struct bench_spec bench_cur;	/* bench_mutex */
static struct bench_spec bench_tmp;	/* bench_mutex: parse scratch */

/* a debugfs file's text, one line per run; size fixed at load */
struct bench_buf {
	char *buf;
	size_t len;
	size_t size;
};

static DEFINE_MUTEX(results_mutex);	/* protects everything below */
static struct bench_buf results_out = { .size = BENCH_RESULTS_SIZE };
static struct bench_buf text_out = { .size = BENCH_RESULTS_SIZE / 8 };
static char status_buf[160] = "idle";

static struct dentry *bench_root;

/* ----------------------------------------------------------------- spec */

enum bench_key {
	BK_SCENARIO, BK_TARGET, BK_TYPE, BK_SCOPE, BK_STRICT, BK_VARIANT,
	BK_WAKE, BK_KICKED, BK_FLUSH, BK_THREADS, BK_CPUS, BK_ITEMS,
	BK_BATCH, BK_MAX_ACTIVE, BK_WORK_US, BK_REPS, BK_WQS, BK_SAMPLE, BK_REDO,
	BK_COUNTERS, BK_FLUSH_WAIT, BK_LABEL,
	BK_NR,
};

/*
 * One spec key, and debugfs file knobs/NAME. A key with @names (a value
 * name per enum value) or with @hi (a number in @lo..@hi) is an unsigned
 * int or enum field at @off of struct bench_spec, which spec_set() and
 * spec_value() handle from this table; they handle the other keys one by one.
 */
struct bench_knob {
	const char *name;
	size_t off;
	const char * const *names;
	unsigned int nr_names;
	unsigned int lo, hi;
};

/* the enum fields are accessed as unsigned int, like the number fields */
static_assert(sizeof(enum bench_scenario) == sizeof(unsigned int));
static_assert(sizeof(enum bench_target) == sizeof(unsigned int));
static_assert(sizeof(enum bench_wq_type) == sizeof(unsigned int));
static_assert(sizeof(enum fwq_affn_scope) == sizeof(unsigned int));

#define KNOB_ENUM(n, f, tbl, nr)					\
	{ .name = n, .off = offsetof(struct bench_spec, f),		\
	  .names = tbl, .nr_names = nr }
#define KNOB_UINT(n, f, l, h)						\
	{ .name = n, .off = offsetof(struct bench_spec, f), .lo = l, .hi = h }

static const struct bench_knob bench_knobs[BK_NR] = {
	[BK_SCENARIO] = KNOB_ENUM("scenario", scenario, bench_scenario_names,
				  BS_NR),
	[BK_TARGET] = KNOB_ENUM("target", target, bench_target_names,
				ARRAY_SIZE(bench_target_names)),
	[BK_TYPE] = KNOB_ENUM("type", type, bench_type_names,
			      ARRAY_SIZE(bench_type_names)),
	[BK_SCOPE] = KNOB_ENUM("scope", scope, fwq_affn_scope_names,
			       FWQ_AFFN_NR_TYPES),
	[BK_STRICT] = { .name = "strict" },
	[BK_VARIANT] = { .name = "variant" },
	[BK_WAKE] = { .name = "wake" },
	[BK_KICKED] = { .name = "kicked_list" },
	[BK_FLUSH] = { .name = "flush" },
	[BK_THREADS] = KNOB_UINT("threads", threads, 0, BENCH_MAX_THREADS),
	[BK_CPUS] = { .name = "cpus" },
	[BK_ITEMS] = KNOB_UINT("items", items, 0, BENCH_MAX_ITEMS),
	[BK_BATCH] = KNOB_UINT("batch", batch, 1, BENCH_MAX_BATCH),
	[BK_MAX_ACTIVE] = KNOB_UINT("max_active", max_active, 0,
				    FWQ_MAX_ACTIVE),
	[BK_WORK_US] = KNOB_UINT("work_us", work_us, 0, BENCH_MAX_WORK_US),
	[BK_REPS] = KNOB_UINT("reps", reps, 1, BENCH_MAX_REPS),
	[BK_WQS] = KNOB_UINT("wqs", wqs, 1, BENCH_MAX_WQS),
	[BK_SAMPLE] = KNOB_UINT("sample", sample, 0, BENCH_MAX_SAMPLE),
	[BK_REDO] = KNOB_UINT("redo", redo, 0, BENCH_MAX_REDO),
	[BK_COUNTERS] = KNOB_UINT("counters", counters, 0, 1),
	[BK_FLUSH_WAIT] = KNOB_UINT("flush_wait", flush_wait, 0, 1),
	[BK_LABEL] = { .name = "label" },
};

static unsigned int *spec_field(struct bench_spec *s, enum bench_key k)
{
	return (unsigned int *)((char *)s + bench_knobs[k].off);
}

static unsigned int spec_get(const struct bench_spec *s, enum bench_key k)
{
	return *(const unsigned int *)((const char *)s + bench_knobs[k].off);
}

static void spec_defaults(struct bench_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->scenario = BS_S1;
	s->target = BT_FWQ;
	s->type = BW_UNBOUND;
	s->scope = FWQ_AFFN_DFL;
	s->cpus_all = true;
	cpumask_copy(&s->cpus, cpu_online_mask);
	s->batch = 1;
	s->reps = 1;
	s->wqs = 4;
	s->counters = 1;
	s->flush_wait = 1;
}

static int match_name(const char * const *names, int n, const char *v)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], v))
			return i;
	return -EINVAL;
}

static int match_key(const char *v)
{
	int k;

	for (k = 0; k < BK_NR; k++)
		if (!strcmp(bench_knobs[k].name, v))
			return k;
	return -EINVAL;
}

static int parse_uint(const char *key, const char *v, unsigned int lo,
		      unsigned int hi, unsigned int *out)
{
	unsigned int x;

	if (kstrtouint(v, 0, &x) || x < lo || x > hi) {
		pr_warn("bad spec: %s=%s (want %u..%u)\n", key, v, lo, hi);
		return -EINVAL;
	}
	*out = x;
	return 0;
}

/* Merge "key=value" into the variant string of @s (for wake= etc.). */
static int variant_add(struct bench_spec *s, const char *key, const char *v)
{
	char buf[BENCH_VARIANT_LEN];
	int n;

	n = snprintf(buf, sizeof(buf), "%s%s%s=%s", s->variant,
		     s->variant[0] ? "," : "", key, v);
	if (n >= sizeof(buf)) {
		pr_warn("bad spec: variant too long\n");
		return -EINVAL;
	}
	strscpy(s->variant, buf, sizeof(s->variant));
	return 0;
}

static int spec_set(struct bench_spec *s, enum bench_key k, const char *v)
{
	const struct bench_knob *kn = &bench_knobs[k];
	const char *key = kn->name;
	unsigned int x;
	int r;

	if (kn->names) {
		r = match_name(kn->names, kn->nr_names, v);
		if (r < 0) {
			pr_warn("bad spec: %s=%s (unknown value)\n", key, v);
			return -EINVAL;
		}
		*spec_field(s, k) = r;
		return 0;
	}
	if (kn->hi)
		return parse_uint(key, v, kn->lo, kn->hi, spec_field(s, k));

	switch (k) {
	case BK_STRICT:
		if (parse_uint(key, v, 0, 1, &x))
			return -EINVAL;
		s->strict = x;
		return 0;
	case BK_VARIANT:
		if (!strcmp(v, "default")) {
			s->variant[0] = '\0';
			return 0;
		}
		if (strlen(v) >= sizeof(s->variant) ||
		    bench_variant_check(v, NULL, 0)) {
			pr_warn("bad spec: variant=%s (want wake=W,kicked_list=K,flush=F; W:"
				FWQ_WAKE_VARIANTS(__FWQ_VARIANT_NAME_STR) "; K:"
				FWQ_KICKED_VARIANTS(__FWQ_VARIANT_NAME_STR) "; F:"
				FWQ_FLUSH_VARIANTS(__FWQ_VARIANT_NAME_STR) ")\n",
				v);
			return -EINVAL;
		}
		strscpy(s->variant, v, sizeof(s->variant));
		return 0;
	case BK_WAKE:
	case BK_KICKED:
	case BK_FLUSH: {
		char one[48];

		snprintf(one, sizeof(one), "%s=%s", key, v);
		if (bench_variant_check(one, NULL, 0)) {
			pr_warn("bad spec: %s\n", one);
			return -EINVAL;
		}
		return variant_add(s, key, v);
	}
	case BK_CPUS:
		if (!strcmp(v, "all")) {
			s->cpus_all = true;
			cpumask_copy(&s->cpus, cpu_online_mask);
			return 0;
		}
		if (cpulist_parse(v, &s->cpus) ||
		    !cpumask_intersects(&s->cpus, cpu_online_mask)) {
			pr_warn("bad spec: cpus=%s (want \"all\" or a list of online CPUs)\n",
				v);
			return -EINVAL;
		}
		s->cpus_all = false;
		return 0;
	case BK_LABEL: {
		const char *p;

		if (strlen(v) >= sizeof(s->label))
			goto bad_label;
		for (p = v; *p; p++)
			if (!isalnum(*p) && !strchr("_.:+-", *p))
				goto bad_label;
		strscpy(s->label, v, sizeof(s->label));
		return 0;
bad_label:
		pr_warn("bad spec: label=%s (want up to %d of [A-Za-z0-9_.:+-])\n",
			v, BENCH_LABEL_LEN - 1);
		return -EINVAL;
	}
	default:
		break;
	}
	return -EINVAL;
}

/* Apply "key=value" tokens separated by white space. */
static int spec_apply_line(struct bench_spec *s, char *line)
{
	char *tok, *eq;
	int k;

	while ((tok = strsep(&line, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		eq = strchr(tok, '=');
		if (!eq) {
			pr_warn("bad spec: \"%s\" is not key=value\n", tok);
			return -EINVAL;
		}
		*eq = '\0';
		k = match_key(tok);
		if (k < 0) {
			pr_warn("bad spec: unknown key \"%s\"\n", tok);
			return -EINVAL;
		}
		if (!eq[1] && k != BK_LABEL) {
			pr_warn("bad spec: %s has no value\n", tok);
			return -EINVAL;
		}
		if (spec_set(s, k, eq + 1))
			return -EINVAL;
	}
	return 0;
}

/* Cross-key checks, made before every run and on every spec line. */
static int spec_validate(const struct bench_spec *s)
{
	unsigned int threads = s->threads ?: bench_default_threads(s);
	unsigned int items = s->items ?: bench_default_items(s);
	const char *why = NULL;

	if (s->target == BT_FWQ && s->variant[0] &&
	    bench_variant_check(s->variant, NULL, 0))
		why = "variant does not parse";
	else if (s->target == BT_KWQ && s->variant[0])
		why = "variant/wake/kicked_list/flush apply to target=fwq only";
	else if (s->target == BT_KWQ &&
		 s->scope != FWQ_AFFN_DFL && s->scope != FWQ_AFFN_NUMA)
		why = "target=kwq: 6.1 exports no affinity scopes (scope=default|numa only)";
	else if (s->target == BT_KWQ && s->strict)
		why = "target=kwq: strict is not available on 6.1";
	else if (s->type != BW_UNBOUND &&
		 (s->scope != FWQ_AFFN_DFL || s->strict))
		why = "scope/strict need type=unbound";
	else if (s->scenario == BS_S3 && s->target != BT_FWQ)
		why = "s3 reads fwq's lock statistics: target=fwq only";
	else if (s->batch > 1 && s->scenario != BS_S2 && s->scenario != BS_S3)
		why = "batch applies to s2 and s3 only";
	else if (s->scenario == BS_S6 && s->type == BW_ORDERED)
		why = "s6 needs unbound or percpu workqueues";
	else if (!cpumask_intersects(&s->cpus, cpu_online_mask))
		why = "no online CPU in cpus";
	else if (s->scenario != BS_FLOOR && !threads)
		why = "threads is 0";
	else if ((u64)threads * items > BENCH_MAX_SAMPLES)
		why = "threads * items exceeds the sample buffer (16M)";

	if (why) {
		pr_warn("bad spec: %s\n", why);
		return -EINVAL;
	}
	return 0;
}

static void spec_value(const struct bench_spec *s, enum bench_key k,
		       char *buf, size_t len)
{
	const struct bench_knob *kn = &bench_knobs[k];
	char v[BENCH_VARIANT_LEN];

	if (kn->names) {
		snprintf(buf, len, "%s", kn->names[spec_get(s, k)]);
		return;
	}
	if (kn->hi) {
		snprintf(buf, len, "%u", spec_get(s, k));
		return;
	}

	switch (k) {
	case BK_STRICT:
		snprintf(buf, len, "%d", s->strict);
		break;
	case BK_VARIANT:
		if (!s->variant[0]) {
			snprintf(buf, len, "default");
			break;
		}
		bench_variant_check(s->variant, v, sizeof(v));
		strreplace(v, ' ', ',');
		snprintf(buf, len, "%s", v);
		break;
	case BK_WAKE:
	case BK_KICKED:
	case BK_FLUSH: {
		const char *p, *key = kn->name;

		bench_variant_check(s->variant, v, sizeof(v));
		strreplace(v, ' ', ',');
		p = strstr(v, key);
		if (p && p[strlen(key)] == '=') {
			snprintf(buf, len, "%s", p + strlen(key) + 1);
			strreplace(buf, ',', '\0');
		} else {
			snprintf(buf, len, "default");
		}
		break;
	}
	case BK_CPUS:
		if (s->cpus_all)
			snprintf(buf, len, "all");
		else
			snprintf(buf, len, "%*pbl", cpumask_pr_args(&s->cpus));
		break;
	case BK_LABEL:
		snprintf(buf, len, "%s", s->label);
		break;
	default:
		buf[0] = '\0';
		break;
	}
}

static void spec_line(const struct bench_spec *s, char *buf, size_t len)
{
	char v[BENCH_VARIANT_LEN + 8];
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < BK_NR; k++) {
		if (k == BK_WAKE || k == BK_KICKED || k == BK_FLUSH)
			continue;
		spec_value(s, k, v, sizeof(v));
		n += scnprintf(buf + n, len - n, "%s%s=%s", k ? " " : "",
			       bench_knobs[k].name, v);
	}
}

/* -------------------------------------------------------------- results */

static void status_set(const char *fmt, ...) __printf(1, 2);
static void status_set(const char *fmt, ...)
{
	va_list ap;

	mutex_lock(&results_mutex);
	va_start(ap, fmt);
	vsnprintf(status_buf, sizeof(status_buf), fmt, ap);
	va_end(ap);
	mutex_unlock(&results_mutex);
}

static void results_clear(void)
{
	mutex_lock(&results_mutex);
	results_out.len = 0;
	text_out.len = 0;
	mutex_unlock(&results_mutex);
}

/* Called with results_mutex held. */
static void bench_buf_add(struct bench_buf *b, const char *line)
{
	b->len += scnprintf(b->buf + b->len, b->size - b->len, "%s\n", line);
}

static void results_append(const char *json, const char *text)
{
	mutex_lock(&results_mutex);
	bench_buf_add(&results_out, json);
	bench_buf_add(&text_out, text);
	mutex_unlock(&results_mutex);
}

static void report_topology(struct bench_out *o)
{
	bo_open(o, "topology");
	bo_u64(o, "nr_cpu_ids", nr_cpu_ids);
	bo_u64(o, "possible_cpus", num_possible_cpus());
	bo_u64(o, "present_cpus", num_present_cpus());
	bo_u64(o, "online_cpus", num_online_cpus());
	bo_u64(o, "nr_node_ids", nr_node_ids);
	bo_u64(o, "online_nodes", num_online_nodes());
	bo_str(o, "kernel", init_utsname()->release);
	bo_str(o, "fwq_bench_version", FWQ_VERSION);
	bo_close(o);
}

/*
 * Is the host slow around @run: did the probe before or after it find a
 * vCPU that did not run for a good part of its window (bench_probe_slow())?
 */
static bool bench_host_slow(const struct bench_run *run)
{
	return bench_probe_slow(&run->probe_before) ||
	       bench_probe_slow(&run->probe_after);
}

/* a probe's figures, per CPU: cpus, pass_mns, window_us, stolen_us, max_gap_us */
static void report_probe(struct bench_out *o, const char *key,
			 const struct bench_probe *pr)
{
	unsigned int i;

	bo_open(o, key);
	bo_arr_open(o, "cpus");
	for (i = 0; i < pr->ncpu; i++)
		bo_arr_u64(o, pr->cpu_id[i]);
	bo_arr_close(o);
	bo_arr_open(o, "pass_mns");
	for (i = 0; i < pr->ncpu; i++)
		bo_arr_u64(o, pr->cpu[i].pass_mns);
	bo_arr_close(o);
	bo_arr_open(o, "window_us");
	for (i = 0; i < pr->ncpu; i++)
		bo_arr_u64(o, div_u64(pr->cpu[i].window_ns, NSEC_PER_USEC));
	bo_arr_close(o);
	bo_arr_open(o, "stolen_us");
	for (i = 0; i < pr->ncpu; i++)
		bo_arr_u64(o, div_u64(pr->cpu[i].stolen_ns, NSEC_PER_USEC));
	bo_arr_close(o);
	bo_arr_open(o, "max_gap_us");
	for (i = 0; i < pr->ncpu; i++)
		bo_arr_u64(o, div_u64(pr->cpu[i].max_gap_ns, NSEC_PER_USEC));
	bo_arr_close(o);
	bo_close(o);
}

static void report_run(struct bench_run *run, struct bench_out *o,
		       char *text, size_t tlen)
{
	const struct bench_spec *s = run->spec;
	char v[BENCH_LINE_MAX];
	char *line = v;

	o->first = true;
	bo_raw(o, "{");
	bo_str(o, "schema", "fwq_bench/1");
	bo_str(o, "scenario", bench_scenario_names[s->scenario]);
	bo_str(o, "target", bench_target_names[s->target]);
	bo_str(o, "type", bench_type_names[s->type]);
	if (s->target == BT_KWQ) {
		bo_str(o, "scope", "n/a");
		bo_str(o, "variant", "kernel");
		bo_str(o, "kwq_pwqs", "6.1: per-node pwqs for unbound, per-cpu otherwise");
	} else {
		bo_str(o, "scope", fwq_affn_scope_names[s->scope]);
		spec_value(s, BK_VARIANT, v, sizeof(v));
		if (!strcmp(v, "default"))
			bench_variant_check("", v, sizeof(v));
		strreplace(v, ' ', ',');
		bo_str(o, "variant", v);
	}
	bo_u64(o, "strict", s->strict);
	bo_str(o, "label", s->label);
	bo_u64(o, "threads", run->threads);
	snprintf(v, sizeof(v), "%*pbl", cpumask_pr_args(&s->cpus));
	bo_str(o, "cpus", v);
	bo_str(o, "placement", "round_robin_bound");
	bo_u64(o, "items_per_thread", run->items);
	bo_u64(o, "batch", s->batch);
	bo_u64(o, "max_active", run->max_active);
	bo_u64(o, "work_us", s->work_us);
	bo_u64(o, "wqs", run->nwq);
	bo_u64(o, "sample_every", run->sample);
	bo_u64(o, "rep", run->rep);
	bo_u64(o, "reps", s->reps);
	spec_line(s, line, sizeof(v));
	bo_str(o, "spec", line);
	report_topology(o);
	bo_open(o, "floor");
	bo_milli(o, "lock_list_add_unlock_ns", run->floor.lock_mns);
	bo_milli(o, "test_and_set_ns", run->floor.tas_mns);
	bo_milli(o, "clock_read_ns", run->floor.clock_mns);
	bo_milli(o, "mutex_pair_ns", run->floor.mutex_mns);
	bo_milli(o, "spin_irq_pair_ns", run->floor.spin_irq_mns);
	if (run->floor.wake_mns)
		bo_milli(o, "wake_remote_ns", run->floor.wake_mns);
	else
		bo_null(o, "wake_remote_ns");
	bo_close(o);
	bo_open(o, "host");
	bo_milli(o, "probe_before_x_best", run->host_before);
	bo_milli(o, "probe_after_x_best", run->host_after);
	bo_u64(o, "slow_above_stolen_permille", BENCH_SLOW_STOLEN_PERMILLE);
	bo_u64(o, "slow", bench_host_slow(run));
	bo_u64(o, "redone", run->redone);
	bo_u64(o, "redo", s->redo);
	bo_u64(o, "counters", s->counters);
	bo_u64(o, "redo_budget_out", run->redo_budget_out);
	report_probe(o, "probe_before", &run->probe_before);
	report_probe(o, "probe_after", &run->probe_after);
	bo_close(o);
	if (s->scenario != BS_FLOOR)
		bench_scenario_report(run, o, text, tlen);
	else
		snprintf(text, tlen,
			 "floor: lock+list_add+unlock %llu.%03llu ns, test_and_set %llu.%03llu ns",
			 run->floor.lock_mns / 1000, run->floor.lock_mns % 1000,
			 run->floor.tas_mns / 1000, run->floor.tas_mns % 1000);
	bo_str(o, "text", text);
	bo_raw(o, "}");
}

/*
 * Before a redo: wait, up to BENCH_REDO_WAIT_MS, for a host probe that
 * is not slow (bench_probe_slow()). Interruptible by a signal
 * (-EINTR) and by stop.
 */
static int bench_redo_wait(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(BENCH_REDO_WAIT_MS);
	struct bench_probe *pr;
	int ret = 0;

	pr = kmalloc(sizeof(*pr), GFP_KERNEL);
	if (!pr)
		return -ENOMEM;
	while (time_before(jiffies, end) && !bench_should_stop()) {
		if (msleep_interruptible(50)) {
			ret = -EINTR;
			break;
		}
		bench_host_probe(pr);
		if (!bench_probe_slow(pr))
			break;
	}
	kfree(pr);
	return ret;
}

/*
 * One repetition of @s into @run: the floors, the run between two host
 * probes, and up to s->redo redos while the probes say the host was slow
 * (bench/README.md, "Slow host"). A redo first waits for a quiet probe
 * (bench_redo_wait()); the waits and the runs redone may cost
 * BENCH_REDO_BUDGET_S in all per module load, after which a slow run is
 * kept. The last run is kept, slow or not; its JSON says how many were
 * redone and what its probes read.
 */
static int bench_rep_run(const struct bench_spec *s, struct bench_run *run,
			 unsigned int rep)
{
	unsigned int redone;
	int ret = 0;
	u64 t0 = 0;	/* the end of the last run: a redo costs from there */

	for (redone = 0; ; redone++) {
		if (redone) {
			bench_run_free(run);
			ret = bench_redo_wait();
			if (ret)
				return ret;
		}
		memset(run, 0, sizeof(*run));
		run->spec = s;
		run->rep = rep;
		run->redone = redone;
		run->threads = s->threads ?: bench_default_threads(s);
		run->items = s->items ?: bench_default_items(s);
		run->sample = s->sample ?: bench_default_sample(s);
		run->max_active = s->max_active;
		if (!run->max_active && s->scenario == BS_S5)
			run->max_active = 4;
		run->work_ns = (u64)s->work_us * NSEC_PER_USEC;
		status_set("running %s %s rep %u/%u%s",
			   bench_scenario_names[s->scenario],
			   bench_target_names[s->target], rep, s->reps,
			   redone ? " (redo, slow host)" : "");

		bench_floor_measure(&run->floor);
		run->host_before = bench_host_probe(&run->probe_before);
		if (s->scenario != BS_FLOOR)
			ret = bench_scenario_run(run);
		run->host_after = bench_host_probe(&run->probe_after);
		/* the first run is not a redo: only what follows it is */
		if (redone)
			bench_redo_spent_ns += ktime_get_ns() - t0;
		t0 = ktime_get_ns();
		if (ret || bench_should_stop() || redone >= s->redo ||
		    !bench_host_slow(run))
			return ret;
		if (bench_redo_spent_ns >= BENCH_REDO_BUDGET_S * NSEC_PER_SEC) {
			run->redo_budget_out = true;
			return 0;
		}
	}
}

/* Run bench_cur; bench_mutex held. */
static int bench_run_spec(void)
{
	const struct bench_spec *s = &bench_cur;
	struct bench_out o = {};
	struct bench_run *run;
	char text[BENCH_TEXT_SIZE];
	unsigned int rep;
	int ret;

	ret = spec_validate(s);
	if (ret)
		return ret;
	o.size = BENCH_JSON_SIZE;
	o.buf = kvmalloc(o.size, GFP_KERNEL);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!o.buf || !run) {
		ret = -ENOMEM;
		goto out;
	}
	bench_stop_clear();
	results_clear();

	for (rep = 1; rep <= s->reps && !ret; rep++) {
		ret = bench_rep_run(s, run, rep);
		if (!ret && bench_should_stop())
			ret = -EINTR;
		if (!ret) {
			o.len = 0;
			o.overflow = false;
			text[0] = '\0';
			report_run(run, &o, text, sizeof(text));
			if (o.overflow) {
				pr_warn("result of %s too large for the JSON buffer\n",
					bench_scenario_names[s->scenario]);
				ret = -EOVERFLOW;
			} else {
				results_append(o.buf, text);
				pr_info("[%s %s rep %u] %s\n",
					bench_scenario_names[s->scenario],
					bench_target_names[s->target], rep,
					text);
			}
		}
		bench_run_free(run);
	}
out:
	if (ret == -EINTR) {
		pr_info("run stopped\n");
		ret = -ECANCELED;
	}
	status_set("idle (last run: %s, %d)",
		   bench_scenario_names[s->scenario], ret);
	kfree(run);
	kvfree(o.buf);
	return ret;
}

/* --------------------------------------------------------------- debugfs */

static char *bench_get_line(const char __user *ubuf, size_t len)
{
	if (len >= BENCH_LINE_MAX) {
		pr_warn("bad spec: line longer than %d bytes\n",
			BENCH_LINE_MAX - 1);
		return ERR_PTR(-EINVAL);
	}
	return memdup_user_nul(ubuf, len);
}

/*
 * spec and knobs/KEY: i_private is the key, BK_NR for the whole spec line.
 * A write to spec replaces the whole spec, one to a knob changes that key.
 */
static int spec_show(struct seq_file *m, void *v)
{
	enum bench_key k = (uintptr_t)m->private;
	char *buf;

	if (!mutex_trylock(&bench_mutex))
		return -EBUSY;
	buf = kmalloc(BENCH_LINE_MAX, GFP_KERNEL);
	if (buf) {
		if (k == BK_NR)
			spec_line(&bench_cur, buf, BENCH_LINE_MAX);
		else
			spec_value(&bench_cur, k, buf, BENCH_VARIANT_LEN + 8);
		seq_printf(m, "%s\n", buf);
	}
	mutex_unlock(&bench_mutex);
	kfree(buf);
	return buf ? 0 : -ENOMEM;
}

static ssize_t spec_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	enum bench_key k = (uintptr_t)file_inode(file)->i_private;
	char *line = bench_get_line(ubuf, len);
	int ret;

	if (IS_ERR(line))
		return PTR_ERR(line);
	if (k != BK_NR)
		strim(line);
	if (!mutex_trylock(&bench_mutex)) {
		kfree(line);
		return -EBUSY;
	}
	if (k == BK_NR) {
		spec_defaults(&bench_tmp);
		ret = spec_apply_line(&bench_tmp, line);
		if (!ret)
			ret = spec_validate(&bench_tmp);
	} else if (!*line && k != BK_LABEL) {
		pr_warn("bad spec: %s has no value\n", bench_knobs[k].name);
		ret = -EINVAL;
	} else {
		bench_tmp = bench_cur;
		ret = spec_set(&bench_tmp, k, line);
	}
	if (!ret)
		bench_cur = bench_tmp;
	mutex_unlock(&bench_mutex);
	kfree(line);
	return ret ?: len;
}

FWQ_DEFINE_SHOW_STORE_ATTRIBUTE(spec);

static ssize_t bench_do_run(size_t len)
{
	int ret;

	if (!mutex_trylock(&bench_mutex))
		return -EBUSY;
	ret = bench_run_spec();
	mutex_unlock(&bench_mutex);
	return ret ?: len;
}

/*
 * The trigger files: "control" takes run or stop, "run" takes 1 or run.
 * The inode's i_private is the file's struct bench_trigger.
 */
struct bench_trigger {
	const char *name;
	const char *alias;	/* taken as "run" too */
	bool stop;		/* "stop" is taken */
	const char *want;
};

static const struct bench_trigger bench_control = {
	.name = "control", .alias = "run", .stop = true, .want = "run or stop",
};

static const struct bench_trigger bench_run = {
	.name = "run", .alias = "1", .want = "1 or run",
};

static ssize_t trigger_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	const struct bench_trigger *t = file_inode(file)->i_private;
	char *line = bench_get_line(ubuf, len);
	ssize_t ret;

	if (IS_ERR(line))
		return PTR_ERR(line);
	strim(line);
	if (!strcmp(line, "run") || !strcmp(line, t->alias)) {
		ret = bench_do_run(len);
	} else if (t->stop && !strcmp(line, "stop")) {
		bench_stop_request();
		ret = len;
	} else {
		pr_warn("bad %s command \"%s\" (want %s)\n", t->name, line,
			t->want);
		ret = -EINVAL;
	}
	kfree(line);
	return ret;
}

static const struct file_operations trigger_fops = {
	.owner = THIS_MODULE,
	.write = trigger_write,
	.llseek = noop_llseek,
};

/* "results" and "text": the file's data is its struct bench_buf */
static int bench_buf_show(struct seq_file *m, void *v)
{
	struct bench_buf *b = m->private;

	mutex_lock(&results_mutex);
	seq_write(m, b->buf, b->len);
	mutex_unlock(&results_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench_buf);

static int status_show(struct seq_file *m, void *v)
{
	mutex_lock(&results_mutex);
	seq_printf(m, "%s\n", status_buf);
	mutex_unlock(&results_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static int targets_show(struct seq_file *m, void *v)
{
	seq_puts(m, "kwq fwq\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(targets);

static int __init fwq_bench_init(void)
{
	struct dentry *knobs;
	uintptr_t k;

	results_out.buf = kvzalloc(results_out.size, GFP_KERNEL);
	text_out.buf = kvzalloc(text_out.size, GFP_KERNEL);
	if (!results_out.buf || !text_out.buf) {
		kvfree(results_out.buf);
		kvfree(text_out.buf);
		return -ENOMEM;
	}
	spec_defaults(&bench_cur);
	bench_kwq_wait_init();

	bench_root = debugfs_create_dir("fwq_bench", NULL);
	debugfs_create_file("spec", 0644, bench_root, (void *)BK_NR,
			    &spec_fops);
	debugfs_create_file("control", 0200, bench_root, (void *)&bench_control,
			    &trigger_fops);
	debugfs_create_file("run", 0200, bench_root, (void *)&bench_run,
			    &trigger_fops);
	debugfs_create_file("results", 0444, bench_root, &results_out,
			    &bench_buf_fops);
	debugfs_create_file("text", 0444, bench_root, &text_out,
			    &bench_buf_fops);
	debugfs_create_file("status", 0444, bench_root, NULL, &status_fops);
	debugfs_create_file("targets", 0444, bench_root, NULL, &targets_fops);
	knobs = debugfs_create_dir("knobs", bench_root);
	for (k = 0; k < BK_NR; k++)
		debugfs_create_file(bench_knobs[k].name, 0644, knobs, (void *)k,
				    &spec_fops);
	pr_info("fwq_bench %s loaded\n", FWQ_VERSION);
	return 0;
}

static void __exit fwq_bench_exit(void)
{
	/*
	 * An open file pins the module, so no run can be in progress here;
	 * stop anyway in case a future caller runs without a file.
	 */
	bench_stop_request();
	debugfs_remove_recursive(bench_root);
	mutex_lock(&bench_mutex);
	mutex_unlock(&bench_mutex);
	kvfree(results_out.buf);
	kvfree(text_out.buf);
}

module_init(fwq_bench_init);
module_exit(fwq_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fwq benchmarks: enqueue, lock hold and flush scenarios");
MODULE_VERSION(FWQ_VERSION);
