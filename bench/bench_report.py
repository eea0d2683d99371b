#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py DIR: summarize fwq_bench results.
bench_report.py --compare OUTDIR|- DIR1 DIR2 [DIR3...]: how well the ratios repeat.
bench_report.py --replay RESULTS [OUTDIR]: the report of a results file again.

Reads DIR/results.jsonl (one fwq_bench JSON object per run), groups runs by
configuration and variant, and writes:
  DIR/table.txt    the comparison table (also printed): medians with min-max,
                   each variant as a ratio to the pre-series baseline (the
                   variant that both the enqueue and the flush scenarios ran,
                   read from the results) with a distribution-free interval
                   for the median ratio and its coverage, and to kwq;
                   floor-relative and rate-against-latency columns where the
                   runs carry them
  DIR/summary.md   the boots and their floors, the table, the claims with a
                   verdict each under a family-wise error control, notes
  DIR/plots/*.png  enqueue per scope per wake variant, flush cost against
                   possible CPUs per flush variant, S5 flush-latency CDF
                   (gnuplot; skipped with a warning if it is missing)
With --compare, reads DIRi/results.jsonl of two or more suites and writes
OUTDIR/repeatability.md (also printed; OUTDIR "-": printed only): every
ratio to base of the first two metrics of each scenario in each suite, and
whether they agree.
With --replay, reads RESULTS (a results.jsonl, or a folder holding one)
and the files bench.sh wrote beside it, prints the table and the claims
as DIR's report does, and writes nothing; with OUTDIR, writes the report
(summary.md, table.txt, plots/) there (fwq-bench replay).
Only numbers found in results.jsonl are printed; nothing is estimated.
Bad input (a missing or empty results.jsonl, a line that is not a whole
JSON object, a run without a field the report reads) is one error line on
stderr and exit 2.
"""
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
from collections import Counter, OrderedDict, defaultdict
from fractions import Fraction
from functools import lru_cache

USAGE = ("usage: bench_report.py DIR | bench_report.py --compare OUTDIR|- DIR1 DIR2 [DIR...] | "
         "bench_report.py --replay RESULTS [OUTDIR] | "
         "bench_report.py --count-phases DIR LABEL BOOTS")

# the variant axes, in the order a variant names them
AXES = ("wake", "kicked_list", "flush")

# what every flush scenario's rows end with: the work one flush does
FLUSH_COST = [("pwqs_visited_per_flush", "pwqs/flush", None),
              ("lock_cycles_per_flush", "lock cyc/flush", None)]

# the flush-mutex wait (S4b, S5, S6): from a flush call to holding
# wq->mutex, per flush, and its share of the flush time (mean over mean)
FLUSH_WAIT = [("flush_mutex_wait_p50_ns", "mutex wait p50 ns", None),
              ("flush_mutex_wait_p99_ns", "mutex wait p99 ns", None),
              ("flush_mutex_wait_share", "mutex wait share", None)]

# scenario -> [(metric key, label, higher is better)]
METRICS = {
    "s1": [("items_per_sec", "items/s", True), ("enq_p95_ns", "p95 ns", False),
           ("enq_p50_ns", "p50 ns", False), ("enq_p99_ns", "p99 ns", False),
           ("wakeups_per_item", "wake/item", None),
           ("wakeups_under_lock_per_item", "locked wake/item", None)],
    "s2": [("items_per_sec", "items/s", True), ("enq_p99_ns", "p99 ns", False),
           ("wakeups_per_item", "wake/item", None),
           ("wakeups_under_lock_per_item", "locked wake/item", None)],
    "s3": [("items_per_sec", "items/s", True),
           ("lock_hold_enqueue_p50_bucket_ns", "enq hold p50 bkt ns", False),
           ("lock_hold_chain_p50_bucket_ns", "chain hold p50 bkt ns", False),
           ("lock_wait_enqueue_p50_bucket_ns", "enq wait p50 bkt ns", False),
           ("wakeups_under_lock_per_item", "locked wake/item", None)],
    "s4a": [("flushes_per_sec", "flushes/s", True),
            ("flush_p50_ns", "p50 ns", False)] + FLUSH_COST,
    "s4b": [("flushes_per_sec", "flushes/s", True),
            ("flush_p99_ns", "p99 ns", False)] + FLUSH_COST + FLUSH_WAIT,
    "s4c": [("flushes_per_sec", "flushes/s", True), ("enq_p50_ns", "queue p50 ns", False),
            ("enq_p99_ns", "queue p99 ns", False)] + FLUSH_COST,
    "s5": [("flush_p50_ns", "flush p50 ns", False), ("flush_p99_ns", "flush p99 ns", False),
           ("fsync_p99_ns", "fsync p99 ns", False)] + FLUSH_COST + FLUSH_WAIT,
    "s6": [("flushes_per_sec", "flushes/s", True),
           ("flush_p99_ns", "p99 ns", False)] + FLUSH_COST + FLUSH_WAIT,
}

TITLES = {
    "s1": "S1 enqueue (one in flight per producer)",
    "s2": "S2 batched enqueue",
    "s3": "S3 pool->lock hold (fwq_lockstat)",
    "s4a": "S4a idle flush",
    "s4b": "S4b sparse flush (16 threads: queue 1, flush)",
    "s4c": "S4c dense flush (every CPU queueing)",
    "s5": "S5 XFS CIL (UNBOUND|MEM_RECLAIM, max_active 4)",
    "s6": "S6 flush storm (4 unbound wqs)",
}


def parts(variant):
    """{axis: design} of a variant string ("wake=pick,kicked_list=off,...")."""
    return dict(kv.split("=", 1) for kv in variant.split(",") if "=" in kv)


def vname(r, base):
    """A run's variant as the report names it: "kwq" for the kernel's own
    workqueue, "base" for the baseline, else the axes where it differs from
    the baseline ("wake=pick", "flush=active")."""
    if r["target"] == "kwq":
        return "kwq"
    return diff_name(r["variant"], base)


def diff_name(variant, base):
    """The axes of @variant that differ from @base's, "base" if none."""
    if base is None or variant == base:
        return "base" if variant == base else variant
    b, cur = parts(base), parts(variant)
    diff = [f"{k}={cur[k]}" for k in AXES if k in cur and cur[k] != b.get(k)]
    return ",".join(diff) or "base"


# The scenarios of each variant family of bench.sh: the enqueue scenarios
# run every wake design on the first flush design, the flush scenarios
# every flush design on the first wake design (include/fwq/variants.h's
# first lines); the baseline is the one variant both families run.
WAKE_FAMILY = ("s1", "s2", "s3")
FLUSH_FAMILY = ("s4a", "s4b", "s4c", "s5", "s6")


def baseline(runs):
    """The pre-series baseline that the ratios divide by, from the results:
    the fwq variant that both the enqueue (S1-S3) and the flush scenarios
    (S4a-S6) ran; with one family only (an enq or a flush boot alone), the
    variant each (configuration, scope) group ran first, as bench.sh runs
    the baseline first in every repetition. None without fwq runs."""
    wake, flush, first = set(), set(), OrderedDict()
    for r in runs:
        if r["target"] != "fwq":
            continue
        (wake if r["scenario"] in WAKE_FAMILY else
         flush if r["scenario"] in FLUSH_FAMILY else set()).add(r["variant"])
        first.setdefault((cfg_key(r), r["scope"]), r["variant"])
    both = wake & flush
    if len(both) == 1:
        return both.pop()
    if not first:
        return None
    # the most groups' first variant; a tie goes to the one seen first
    counts = Counter(first.values())
    top = max(counts.values())
    return next(v for v in first.values() if counts[v] == top)


def cfg_key(r):
    """Everything but the variant and the target's scope."""
    return (r["label"], r["topology"]["nr_cpu_ids"], r["scenario"], r["type"],
            r["threads"], r["batch"], r["wqs"], r["work_us"], r["items_per_thread"])


class ReportError(Exception):
    """Bad input: its message is the one line the report prints."""


SCHEMA = "fwq_bench/1"

# the fields the report reads, with their JSON types (bool is not a number)
INT, STR, OBJ, NUM = "an integer", "a string", "an object", "a number"
RUN_FIELDS = [("schema", STR), ("scenario", STR), ("target", STR), ("type", STR),
              ("scope", STR), ("variant", STR), ("label", STR), ("threads", INT),
              ("batch", INT), ("wqs", INT), ("work_us", INT), ("items_per_thread", INT),
              ("topology", OBJ), ("topology.nr_cpu_ids", INT), ("topology.kernel", STR),
              ("topology.online_cpus", INT)]
# present in every run of a scenario (not in a floor run)
METRIC_FIELDS = [("metrics", OBJ)]
# optional blocks, checked when present
HOST_FIELDS = [("host.slow", INT), ("host.redone", INT), ("host.redo", INT)]
# a probe's figures, per CPU (bench/main.c report_probe()), when present
PROBE_LISTS = ("cpus", "pass_mns", "window_us", "stolen_us", "max_gap_us")


def is_type(v, want):
    if want == INT:
        return isinstance(v, int) and not isinstance(v, bool)
    if want == NUM:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, {STR: str, OBJ: dict}[want])


def field(r, path):
    """(True, value) of a dotted path in run r, (False, None) if absent."""
    cur = r
    for k in path.split("."):
        if not isinstance(cur, dict) or k not in cur:
            return False, None
        cur = cur[k]
    return True, cur


def check_run(r, where):
    """Raise ReportError if run r (line @where) lacks a field the report
    reads or has one of the wrong type."""
    if not isinstance(r, dict):
        raise ReportError(f"{where}: not a JSON object")
    if r.get("schema") != SCHEMA:
        raise ReportError(f"{where}: schema {json.dumps(r.get('schema'))}, not \"{SCHEMA}\"")
    fields = RUN_FIELDS + (METRIC_FIELDS if r.get("scenario") != "floor" else [])
    fields += HOST_FIELDS if "host" in r else []
    for path, want in fields:
        ok, v = field(r, path)
        if not ok:
            raise ReportError(f"{where}: the run has no \"{path}\"")
        if not is_type(v, want):
            raise ReportError(f"{where}: \"{path}\" is {json.dumps(v)}, not {want}")
    if r["target"] not in ("fwq", "kwq"):
        raise ReportError(f"{where}: unknown target {json.dumps(r['target'])}")
    if r["target"] == "fwq" and set(parts(r["variant"])) != set(AXES):
        raise ReportError(f"{where}: variant {json.dumps(r['variant'])} does not name "
                          f"the axes {', '.join(AXES)}")
    nodes = r["topology"].get("online_nodes")
    if nodes is not None and not is_type(nodes, INT) and not is_type(nodes, STR):
        raise ReportError(f"{where}: \"topology.online_nodes\" is {json.dumps(nodes)}, "
                          "not a count or a node list")
    for blk in ("floor", "host"):
        if blk in r and not isinstance(r[blk], dict):
            raise ReportError(f"{where}: \"{blk}\" is {json.dumps(r[blk])}, not {OBJ}")
    for pk in ("probe_before", "probe_after"):
        pr = r.get("host", {}).get(pk)
        if pr is None:
            continue
        lists = [pr.get(k) if isinstance(pr, dict) else None for k in PROBE_LISTS]
        if any(not isinstance(x, list) or not all(is_type(v, INT) for v in x) for x in lists) \
                or len({len(x) for x in lists}) != 1:
            raise ReportError(f"{where}: \"host.{pk}\" is not per-CPU lists of integers "
                              f"({', '.join(PROBE_LISTS)})")


def load(path):
    """The runs of a results.jsonl, one JSON object a line (blank lines
    skipped); ReportError on a missing or empty file, a line that is not a
    whole JSON object (a truncated write) or a run check_run() refuses."""
    runs = []
    try:
        with open(path, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError as e:
                    msg = getattr(e, "msg", str(e))
                    raise ReportError(f"{path}:{i}: not a whole JSON object ({msg}): "
                                      "a truncated or corrupt line") from None
                check_run(r, f"{path}:{i}")
                runs.append(r)
    except OSError as e:
        raise ReportError(f"{path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{path}: not UTF-8 text") from None
    if not runs:
        raise ReportError(f"{path}: no runs (the file is empty)")
    return runs


def stat(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return (statistics.median(vals), min(vals), max(vals), len(vals))


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 1e6:
        return f"{v / 1e6:.2f}M"
    if abs(v) >= 1e4:
        return f"{v / 1e3:.1f}k"
    if v == int(v):
        return str(int(v))
    return f"{v:.2f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}x"


# floor fields (floor.*, ns), in the order they are shown; others found in
# results.jsonl are shown after them under their own name
FLOOR_FIELDS = [("lock_list_add_unlock_ns", "lock+list_add+unlock"),
                ("test_and_set_ns", "test_and_set"), ("clock_read_ns", "clock read"),
                ("mutex_pair_ns", "mutex pair"), ("spin_irq_pair_ns", "spin_irq pair"),
                ("wake_remote_ns", "remote wake")]


def num(v):
    """v if it is a number (not a bool), else None."""
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def met(r, key):
    return num(r.get("metrics", {}).get(key))


def flo(r, key):
    return num(r.get("floor", {}).get(key))


def cpulist_count(s):
    """How many ids a CPU-list style string ("0-1", "0,2-3") names; None if
    it does not parse."""
    n = 0
    try:
        for part in s.split(","):
            part = part.strip()
            if not part:
                continue
            if "-" in part:
                a, b = part.split("-", 1)
                n += int(b) - int(a) + 1
            else:
                int(part)
                n += 1
    except ValueError:
        return None
    return n or None


def online_nodes(r):
    """The number of online nodes of a run's boot: topology.online_nodes is a
    count (an int) or a node list ("0-1")."""
    v = r.get("topology", {}).get("online_nodes")
    if isinstance(v, str):
        return cpulist_count(v)
    return num(v)


def div(a, b):
    return a / b if a is not None and b is not None and b != 0 else None


def lock_wake_floor(r):
    """lock+list_add+unlock plus the waker's cost of a remote wake: the least
    a queue call that adds the work and wakes an idle worker can cost."""
    lk, wk = flo(r, "lock_list_add_unlock_ns"), flo(r, "wake_remote_ns")
    return lk + wk if lk is not None and wk is not None else None


def flush_floor(r):
    """One mutex pair (wq->mutex) plus one spin_lock_irq pair per online node:
    the least an idle flush that locks one pool per node can cost."""
    m, s, n = flo(r, "mutex_pair_ns"), flo(r, "spin_irq_pair_ns"), online_nodes(r)
    return m + s * n if m is not None and s is not None and n is not None else None


def rate_x_p50(key):
    """per-thread batched rate times one op's p50 latency: 1.00 when the rate
    and 1/p50 agree; for S1-S3 the share of an op spent in the queue call."""
    def f(r):
        rate, p50 = met(r, "per_thread_ops_per_sec"), met(r, key)
        return rate * p50 / 1e9 if rate is not None and p50 is not None else None
    return f


# scenario -> [(column, per-run value)]: derived columns of the table, each
# the median over the runs of the value computed from the run's own floor
# and metrics; "-" where the runs lack the fields
EXTRA = {
    "s1": [("p50/(lock+wake)", lambda r: div(met(r, "enq_p50_ns"), lock_wake_floor(r))),
           ("queue share", rate_x_p50("enq_p50_ns"))],
    "s2": [("queue share", rate_x_p50("enq_p50_ns"))],
    "s3": [("queue share", rate_x_p50("enq_p50_ns"))],
    "s4a": [("p50/floor", lambda r: div(met(r, "flush_p50_ns"), flush_floor(r))),
            ("rate*p50", rate_x_p50("flush_p50_ns"))],
    "s4b": [("rate*p50", rate_x_p50("flush_p50_ns"))],
    "s5": [("rate*p50", rate_x_p50("flush_p50_ns"))],
    "s6": [("rate*p50", rate_x_p50("flush_p50_ns"))],
}


def med_fn(runs, fn):
    """Median of fn(run) over runs, None where no run has a value."""
    vals = [v for v in (fn(r) for r in runs or []) if v is not None]
    return statistics.median(vals) if vals else None


def fmt_x(v):
    """A dimensionless figure (a ratio or a share)."""
    if v is None:
        return "-"
    if abs(v) >= 100:
        return fmt(v)
    return f"{v:.2f}" if abs(v) >= 0.1 or v == 0 else f"{v:.3f}"


def pair_ratios(var_runs, base_runs, metric):
    """v_k / b_k for the k-th run of the variant and the k-th run of base (in
    file order, as many pairs as the shorter list has runs); pairs where
    either value is missing or base's is 0 are left out."""
    out = []
    for v, b in zip(var_runs or [], base_runs or []):
        a, c = met(v, metric), met(b, metric)
        if a is not None and c is not None and c != 0:
            out.append(a / c)
    return out


# The interval of a ratio: the median of the per-repetition ratios, with a
# distribution-free interval for the median of their distribution. The
# suite interleaves the variants, so the k-th run of a variant and the k-th
# run of base in the same (configuration, scope) group were made close in
# time. With n ratios sorted, x(1) <= ... <= x(n), the interval
# [x(d), x(n+1-d)] holds the median of any continuous distribution they are
# drawn from with probability 1 - 2 P(Bin(n, 1/2) <= d-1): exactly, for
# every n, with no assumption on the shape. The report takes the largest d
# (the narrowest interval) whose coverage reaches LEVEL and prints that
# coverage: [x(1), x(7)], 98.4% for 7 ratios. Under MIN_PAIRS ratios not
# even [x(1), x(n)] reaches it: "not shown (n<6)".
LEVEL = 0.95
# The family-wise error of one report's verdicts (see Family).
ALPHA = Fraction(1, 20)
NO_EFFECT = "~"     # appended when the interval contains 1.00x


@lru_cache(maxsize=None)
def _tails(n):
    """(P(Bin(n, 1/2) <= k) for k = 0..n), exact."""
    acc, out = 0, []
    for k in range(n + 1):
        acc += math.comb(n, k)
        out.append(Fraction(acc, 2 ** n))
    return tuple(out)


def tail(n, k):
    """P(Bin(n, 1/2) <= k), exact (a Fraction)."""
    if k < 0:
        return Fraction(0)
    return _tails(n)[min(k, n)]


def coverage(n, d):
    """The coverage of [x(d), x(n+1-d)] of n sorted draws for their
    distribution's median: 1 - 2 P(Bin(n, 1/2) <= d-1)."""
    return 1 - 2 * tail(n, d - 1)


@lru_cache(maxsize=None)
def order_d(n, level):
    """The largest d, 1 <= d <= n/2, with coverage(n, d) >= level: the
    narrowest interval [x(d), x(n+1-d)] that reaches level; None if not
    even [x(1), x(n)] does."""
    best = None
    for d in range(1, n // 2 + 1):
        if coverage(n, d) < level:
            break
        best = d
    return best


@lru_cache(maxsize=None)
def min_pairs(level):
    """The fewest ratios whose widest interval [x(1), x(n)] reaches level."""
    n = 2
    while coverage(n, 1) < level:
        n += 1
    return n


class CI:
    """The median of n ratios with its order-statistic interval at a level:
    point, n, level, d (None when n is too small for the level), lo = x(d),
    hi = x(n+1-d) and cov, the interval's exact coverage."""

    def __init__(self, ratios, level=LEVEL):
        s = sorted(ratios)
        self.n, self.level, self.sorted = len(s), level, s
        self.point = statistics.median(s)
        self.d = order_d(self.n, level)
        self.lo = self.hi = self.cov = None
        if self.d:
            self.lo, self.hi = s[self.d - 1], s[self.n - self.d]
            self.cov = float(coverage(self.n, self.d))

    def at(self, level):
        """The same ratios' interval at another level."""
        return CI(self.sorted, level)

    def need(self):
        """The fewest ratios whose interval reaches this level."""
        return min_pairs(self.level)

    def holds(self, x):
        return self.d is not None and self.lo <= x <= self.hi


def median_ci(ratios, level=LEVEL):
    """CI of the ratios, None without any."""
    return CI(ratios, level) if ratios else None


def ci_ratio(var_runs, base_runs, metric, level=LEVEL):
    """The ratio of a variant to base over paired repetitions: a CI of the
    per-repetition ratios; None if no repetition has the metric in both."""
    return median_ci(pair_ratios(var_runs, base_runs, metric), level)


def significant(ci):
    """The interval excludes 1.0."""
    return bool(ci) and ci.d is not None and not ci.holds(1.0)


def fmt_pct(c):
    """A coverage or a level in percent, with the decimals that tell it from
    100%: 98.4%, 99.95%."""
    for dec in (1, 2, 3, 4, 5):
        s = f"{100 * float(c):.{dec}f}"
        if float(s) < 100 or dec == 5:
            return s + "%"


def fmt_level(x):
    """A level or an error rate in percent, exact to 3 decimals, no trailing
    zeros: 95%, 99.375%."""
    return f"{100 * float(x):.3f}".rstrip("0").rstrip(".") + "%"


def fmt_iv(ci):
    """[lo-hi], coverage; or not shown (n<N)."""
    if ci.d is None:
        return f"not shown (n<{ci.need()})"
    return f"[{bound(ci.lo)}-{bound(ci.hi)}]" + ("" if significant(ci) else NO_EFFECT) + \
        f", {fmt_pct(ci.cov)}"


def fmt_ci(ci):
    """1.23x [1.05-1.40], 98.4%, with NO_EFFECT after the interval if it
    holds 1.0; 1.23x, not shown (n<6) without one."""
    if ci is None:
        return "-"
    return f"{fmt_ratio(ci.point)} " + fmt_iv(ci) if ci.d else \
        f"{fmt_ratio(ci.point)}, {fmt_iv(ci)}"


def fmt_ratio(x):
    """A measured ratio: 1.08x, 44.28x, 105x."""
    return f"{x:.2f}x" if abs(x) < 100 else f"{x:.0f}x"


def bound(x):
    """An interval bound to 2 decimals, or more where 2 would show 1.00 for
    a bound that is not 1.0 (so that the side of 1.0 it is on shows)."""
    for d in (2, 3, 4):
        s = f"{x:.{d}f}"
        if x == 1.0 or float(s) != 1.0:
            break
    return s


def render(hdr, rows):
    """A markdown table with padded columns."""
    widths = [max(len(r[i]) for r in [hdr] + rows) for i in range(len(hdr))]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(hdr, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    return lines


# A boot whose clock read costs more than this many times its lock floor
# (lock+list_add+unlock) is marked: every sampled latency takes two clock
# reads, so its latency cells are mostly clock (a TSC the guest dropped for
# HPET, say).
SLOW_CLOCK_X = 4.0


def clock_x_lock(runs):
    """Median clock read over median lock floor of @runs, or None."""
    c = stat([flo(r, "clock_read_ns") for r in runs])
    lk = stat([flo(r, "lock_list_add_unlock_ns") for r in runs])
    return div(c and c[0], lk and lk[0])


def slow_clock_boots(runs):
    """The boot labels whose clock read exceeds SLOW_CLOCK_X lock floors."""
    byboot = defaultdict(list)
    for r in runs:
        byboot[r["label"]].append(r)
    return {lab for lab, rs in byboot.items()
            if (clock_x_lock(rs) or 0) > SLOW_CLOCK_X}


def load_clocksources(outdir):
    """LABEL -> "start=CS end=CS" from bench.sh's clocksource.txt, if any."""
    cs = {}
    try:
        with open(os.path.join(outdir, "clocksource.txt")) as f:
            for line in f:
                lab, _, rest = line.strip().partition(" ")
                if lab:
                    cs[lab] = rest
    except OSError:
        pass
    return cs


class Data:
    def __init__(self, runs, counts=None):
        # the variant the ratios divide by, from the results
        self.base = baseline(runs)
        self.counts = counts or Counts()
        # groups[(cfg, scope)][variant name] -> list of runs
        self.groups = OrderedDict()
        self.kwq = {}
        self.slow_clock = slow_clock_boots(runs)
        for r in runs:
            scope = r["scope"]
            key = (cfg_key(r), scope)
            self.groups.setdefault(key, OrderedDict()).setdefault(vname(r, self.base),
                                                                  []).append(r)
            if r["target"] == "kwq":
                self.kwq.setdefault(cfg_key(r), []).append(r)

    def scopes(self):
        """The S1 scopes that were run, in the order bench.sh ran them (the
        registry's, include/fwq/variants.h), so no list of names is kept
        here."""
        seen = []
        for (cfg, sc), vs in self.groups.items():
            if cfg[2] == "s1" and sc not in seen and any(v != "kwq" for v in vs):
                seen.append(sc)
        return seen

    def med(self, runs, metric):
        s = stat([met(r, metric) for r in runs])
        return s


def table(data):
    lines = []
    for scen in METRICS:
        rows = [(k, v) for k, v in data.groups.items() if k[0][2] == scen]
        if not rows:
            continue
        mets = METRICS[scen]
        extras = EXTRA.get(scen, [])
        lines.append(f"## {TITLES[scen]}")
        hdr = ["boot", "cpus", "type", "scope", "variant", "n"]
        for i, (m, lab, _) in enumerate(mets):
            hdr.append(lab + (" med [min-max]" if i == 0 else ""))
            if i < 2:
                hdr += ["/base", "/kwq"]
        hdr += [lab for lab, _ in extras]
        out = []
        for (cfg, scope), variants in rows:
            if scope == "n/a" and len(variants) == 1 and "kwq" in variants:
                # kwq rows once per configuration
                pass
            base_runs = variants.get("base")
            kwq_runs = data.kwq.get(cfg)
            for vn, rs in variants.items():
                shown = f"kwq-{series(rs[0]['topology']['kernel'])}" if vn == "kwq" else vn
                boot = cfg[0] + (" (slow clock)" if cfg[0] in data.slow_clock else "")
                row = [boot, str(cfg[1]), cfg[3], scope, shown]
                first = True
                row.append(str(len(rs)))
                for i, (m, lab, _) in enumerate(mets):
                    s = data.med(rs, m)
                    if s is None:
                        row.append("-")
                    elif first:
                        row.append(f"{fmt(s[0])} [{fmt(s[1])}-{fmt(s[2])}]")
                    else:
                        row.append(fmt(s[0]))
                    first = False
                    if i < 2:
                        k = data.med(kwq_runs, m) if kwq_runs else None
                        if vn == "base":
                            row.append("1.00x" if s else "-")
                        else:
                            row.append(fmt_ci(ci_ratio(rs, base_runs, m)) if base_runs else "-")
                        row.append(ratio(s and s[0], k and k[0]))
                row += [fmt_x(med_fn(rs, fn)) for _, fn in extras]
                out.append(row)
        lines.append("")
        lines += render(hdr, out)
        lines.append("")
    return "\n".join(lines)


def boot_kernel(label):
    """The kernel a boot label names (BOOT:KERNEL), None for the default."""
    return label.split(":", 1)[1] if ":" in label else None


def series(release):
    """6.12 of 6.12.95+deb12-amd64, 6.1 of 6.1.0-57-amd64."""
    parts = release.split(".")
    minor = "".join(c for c in parts[1].split("-")[0] if c.isdigit()) if len(parts) > 1 else ""
    return f"{parts[0]}.{minor}" if minor else parts[0]


def groups_for(data, scen, type_=None, scope=None, ncpu=None, kern=None, any_scope=False):
    """The (cfg, scope, variants) groups of scenario scen matching, on the
    default kernel's boots or on kernel kern's."""
    for (cfg, sc), variants in data.groups.items():
        if cfg[2] != scen or (type_ and cfg[3] != type_):
            continue
        if boot_kernel(cfg[0]) != kern:
            continue
        if scope and sc != scope and not any_scope:
            continue
        if ncpu and cfg[1] != ncpu:
            continue
        yield cfg, sc, variants


def runs_for(data, scen, variant, type_=None, scope=None, ncpu=None, kern=None):
    """The runs of variant in the groups groups_for() matches (kwq runs,
    which have no scope, whatever the scope)."""
    runs = []
    for _, _, variants in groups_for(data, scen, type_, scope, ncpu, kern,
                                     any_scope=variant == "kwq"):
        runs += variants.get(variant, [])
    return runs


def count_of(data, scen, variant, type_=None, scope=None, ncpu=None, kern=None):
    """The count (Counts) of the path variant's runs of scen time."""
    rs = runs_for(data, scen, variant, type_, scope, ncpu, kern)
    return data.counts.get(scen, rs[0] if rs else None, scope)


def wait_text(data, scen, variants, type_=None, ncpu=None, kern=None):
    """The flush-mutex wait, p50, p99 (ns) and share of the flush time,
    medians over the runs, of each of variants: "p50 a -> b, ..."."""
    def three(v):
        return [pick(data, scen, m, v, type_, None, ncpu, kern)
                for m in ("flush_mutex_wait_p50_ns", "flush_mutex_wait_p99_ns",
                          "flush_mutex_wait_share")]

    vals = [three(v) for v in variants]
    if all(x is None for v in vals for x in v):
        return "-"
    return ", ".join(f"{lab} " + " -> ".join(fmt(v[i]) for v in vals)
                     for i, lab in enumerate(("p50", "p99", "share")))


def pick(data, scen, metric, variant, type_=None, scope=None, ncpu=None, kern=None):
    """Median of metric over the runs matching, on the default kernel's
    boots or on kernel kern's; None if absent."""
    s = stat([met(r, metric) for r in runs_for(data, scen, variant, type_, scope, ncpu, kern)])
    return s[0] if s else None


def pair_pick(data, scen, metric, variant, against="base", type_=None, scope=None, ncpu=None,
              kern=None):
    """The per-repetition ratios variant/against over the groups matching:
    the repetitions are paired within each group, and the pairs of all the
    groups pooled."""
    ratios = []
    for _, _, variants in groups_for(data, scen, type_, scope, ncpu, kern):
        ratios += pair_ratios(variants.get(variant), variants.get(against), metric)
    return ratios


def resolve(data, scen, axes):
    """The variant name (vname) of scenario scen's runs whose axes include
    @axes (a dict, {"wake": "wakeq"}), the other axes whatever the suite ran
    them with (bench.sh runs each wake design with the kicked-list design it
    was posted with); where none ran, the name @axes would have on the
    baseline's other axes."""
    base = parts(data.base or "")
    for (cfg, _), variants in data.groups.items():
        if cfg[2] != scen:
            continue
        for vn in variants:
            if vn == "kwq":
                continue
            full = dict(base, **(parts(vn) if vn != "base" else {}))
            if all(full.get(k) == v for k, v in axes.items()):
                return vn
    return diff_name(",".join(f"{k}={dict(base, **axes).get(k)}" for k in AXES), data.base)


# The claims: data, which claims() and headline() read. Each figure is the
# source's own; bench/README.md ("The claims") cites every source.
#
# "workqueue: Shrink the lock time" (fastwake), lib/test_workqueue.c's
# benchmark per affinity scope, patched against unpatched: (items/s
# change, p95 enqueue latency change) in percent, from each version's mail:
# v5, the version applied for 7.3 (the worker claimed under pool->lock,
# woken by wake_up_process() after the unlock; fwq's wake=pick), and v3
# (the wakeup through a wake_q; fwq's wake=wakeq) on a 72-CPU arm64
# machine (NVIDIA Grace); v2 (a wake_q, kicked workers parked on a list)
# on an 8-vCPU x86 VM, 8 producers x 200000 items.
FASTWAKE = {
    "v5": {"cpu": (-2.6, 3.5), "smt": (-0.9, 2.8), "cache_shard": (7.5, -4.2),
           "cache": (10.8, -9.8), "numa": (10.3, -10.3), "system": (10.7, -10.0)},
    "v3": {"cpu": (17.9, -13.6), "smt": (17.7, -14.0), "cache_shard": (39.4, -37.1),
           "cache": (34.7, -30.1), "numa": (24.5, -20.5), "system": (17.2, -21.1)},
    "v2": {"cpu": (-1.2, 4.6), "smt": (-1.4, 6.1), "cache_shard": (17.3, -36.8),
           "cache": (24.9, -41.9), "numa": (19.8, -38.0), "system": (24.7, -37.5)},
}


def flush_case(scen, typ, metric, claimed, **more):
    """A case of the flush claims B1-B3: flush=active against the baseline
    on the per-cpu or unbound (typ) workqueue of scenario scen; more: its
    "headline" and "primary" marks."""
    return {"case": typ, "scen": scen, "type": typ, "metric": metric,
            "variant": {"flush": "active"}, "claimed": claimed, **more}


def flush_headline(scen, percpu, unbound):
    """The cases of a headline flush claim (B1, B2): flushes/s of scen on
    the per-cpu and on the unbound workqueue, each claimed (from, to)."""
    return [flush_case(scen, typ, "flushes_per_sec", claimed, headline=True, primary=True)
            for typ, claimed in (("percpu", percpu), ("unbound", unbound))]


# A claim of kind "scopes": one row per S1 scope, variant against
# "against" (None: the baseline), scored against the version(s) of
# "figures" (one: its change; two, a and b: (1 + a) / (1 + b), a's change
# over b's, each against its own unpatched kernel); "same" scopes claim no
# change. A claim of kind "cases": one row per case, variant against the
# baseline at the largest possible-CPU count the flush boots ran; claimed:
# (from, to) figures (the ratio to/from), ("range", lo, hi), ("upto", x)
# or ("same",); headline: the case is also set against each non-default
# kernel's own workqueue (headline()).
# primary: the claim's headline cell, one per claim row (for "scopes", the
# scope and metric), in the family that Holm's method controls (Family);
# every other cell is secondary, read at its own 95% interval.
CLAIMS = [
    {"id": "A2", "kind": "scopes", "scen": "s1",
     "title": "fastwake v5, applied for 7.3 and run by fwq as `wake=pick`, against the "
              "baseline, per scope; the claim: v5's figures (lib/test_workqueue.c, 72-CPU "
              "arm64), on cpu and smt no change; v2's figures (8-vCPU x86 VM) are history, "
              "not scored",
     "variant": {"wake": "pick"}, "against": None, "figures": ("v5",), "history": "v2",
     "same": ("cpu", "smt"), "primary": ("system", "items_per_sec"),
     "metrics": [("items_per_sec", "items/s"), ("enq_p95_ns", "p95 ns")],
     "counter": ("wakeups_under_lock_per_item", "locked wake/item")},
    {"id": "A2-wakeq", "kind": "scopes", "scen": "s1",
     "title": "`wake=wakeq` (v3's wake_q) against `wake=pick` (v5) per scope; the claim: v3's "
              "change over v5's, each against its own unpatched kernel on a 72-CPU arm64 "
              "machine (their baselines differ: cache_shard 572k and 3.40M items/s)",
     "variant": {"wake": "wakeq"}, "against": {"wake": "pick"}, "figures": ("v3", "v5"),
     "history": None, "same": (), "primary": ("system", "items_per_sec"),
     "metrics": [("items_per_sec", "items/s"), ("enq_p95_ns", "p95 ns")],
     "counter": ("wakeups_under_lock_per_item", "locked wake/item")},
    {"id": "B1", "kind": "cases",
     "title": "idle flush, 192 CPUs: per-cpu 40k -> 4.2M/s, unbound 450k -> 4.3M/s; S4a",
     "counter": ("pwqs_visited_per_flush", "pwqs/flush"),
     "cases": flush_headline("s4a", (40e3, 4.2e6), (450e3, 4.3e6))},
    {"id": "B2", "kind": "cases",
     "title": "sparse, 16 threads queue 1 + flush: per-cpu 30k -> 110k/s, unbound 60k -> "
              "180k/s; S4b",
     "counter": ("pwqs_visited_per_flush", "pwqs/flush"),
     "cases": flush_headline("s4b", (30e3, 110e3), (60e3, 180e3))},
    {"id": "B3", "kind": "cases",
     "title": "dense: per-cpu unchanged, unbound 15-20% slower; queue path unchanged; S4c",
     "counter": ("pwqs_visited_per_flush", "pwqs/flush"),
     "cases": [flush_case("s4c", "percpu", "flushes_per_sec", ("same",)),
               flush_case("s4c", "unbound", "flushes_per_sec", ("range", 0.80, 0.85),
                          primary=True),
               flush_case("s4c", "percpu", "enq_p50_ns", ("same",)),
               flush_case("s4c", "unbound", "enq_p50_ns", ("same",))]},
    {"id": "B4", "kind": "cases",
     "title": "XFS CIL, 128 CPUs: fsync flush 256-1000 us per-CPU pwqs vs 32-256 us; prep "
              "2-64 us vs 2-8 us; S5",
     "counter": ("pwqs_visited_per_flush", "pwqs/flush"),
     "cases": [{"case": "flush=active", "scen": "s5", "metric": "flush_p50_ns",
                "variant": {"flush": "active"}, "claimed": ("range", 32 / 256, 256 / 1000),
                "headline": True, "primary": True},
               {"case": "flush=coalesce", "scen": "s5", "metric": "flush_p50_ns",
                "variant": {"flush": "coalesce"}, "claimed": ("range", 32 / 256, 256 / 1000)}]},
    {"id": "C1", "kind": "cases",
     "title": "85f0d8e: up to 65x on fio fsync; mechanism: lock cycles per flush nr_cpu_ids "
              "-> nr_pools; S6",
     "counter": ("lock_cycles_per_flush", "lock cyc/flush"),
     "cases": [{"case": "flush=coalesce", "scen": "s6", "metric": "flushes_per_sec",
                "variant": {"flush": "coalesce"}, "claimed": ("upto", 65),
                "primary": True}]},
]

# a claimed absence of change: the ratio's interval within these bounds
SAME_BOUNDS = (0.75, 1.33)
WANT = {"up": "higher", "down": "lower", "same": "unchanged"}


def claimed_ratio(claimed):
    """(want, the claimed ratio or (lo, hi) range, its text) of a case's
    claimed figures."""
    if claimed[0] == "same":
        return "same", 1.0, "no change"
    if claimed[0] == "range":
        lo, hi = claimed[1:]
        return ("up" if lo > 1 else "down"), (lo, hi), f"{fmt_claim(lo)}-{fmt_claim(hi)}x"
    if claimed[0] == "upto":
        return "up", claimed[1], f"up to {fmt_claim(claimed[1])}x"
    r = claimed[1] / claimed[0]
    return ("up" if r > 1 else "down"), r, f"{fmt_claim(r)}x"


def fmt_claim(x):
    """A claimed ratio: 105, 9.6, 1.075, 0.958."""
    if x >= 10:
        return f"{x:.0f}"
    if x >= 2:
        return f"{x:.1f}"
    return f"{x:.3f}"


def direction(metric, side):
    """The word for a ratio above (side "up") or below 1.0 of a metric."""
    rate = metric.endswith("_per_sec")
    if side == "up":
        return "faster" if rate else "higher"
    return "slower" if rate else "lower"


class Cell:
    """One verdict cell: the paired ratios of a variant against what it is
    set against, for a claimed direction (want "up": ratio > 1, "down": < 1)
    or a claimed absence of change ("same": within SAME_BOUNDS).

    Its test is the sign test, exact: with n ratios, the interval
    [x(d), x(n+1-d)] lies above 1.0 exactly when at most d-1 ratios are
    <= 1.0, which under a median of 1.0 has probability P(Bin(n, 1/2) <=
    d-1). So the two-sided p-value 2 P(Bin(n, 1/2) <= k), k the ratios on
    the smaller side (ties counted against the effect), is the least 1 -
    coverage at which the order-statistic interval excludes 1.0: the p-value
    and the interval are one test. For "same", p is that of the interval
    lying within SAME_BOUNDS (both one-sided counts) or outside them,
    whichever is smaller. Family.holm() sets the level each cell is read at.
    """

    def __init__(self, ratios, want, metric, claimed=None, claimed_text="", primary=False):
        self.ci = median_ci(ratios)
        self.n = len(ratios)
        self.want, self.metric = want, metric
        self.claimed, self.claimed_text = claimed, claimed_text
        self.primary = primary
        self.p, self.side = self._test(sorted(ratios))
        self.adj = self.level = self.fw = None
        self.rejected = False
        self.counts = None      # (variant's, comparator's) counts, if counted
        self.key = ""           # which cell, for --compare

    def _test(self, r):
        n = len(r)
        if not n:
            return None, None
        if self.want == "same":
            lo, hi = SAME_BOUNDS
            p_in = 2 * max(tail(n, sum(x < lo for x in r)), tail(n, sum(x > hi for x in r)))
            above, below = tail(n, sum(x <= hi for x in r)), tail(n, sum(x >= lo for x in r))
            p_out = 2 * min(above, below)
            if p_in < p_out:
                return min(Fraction(1), p_in), "in"
            side = "up" if above < below else "down" if below < above else None
            return min(Fraction(1), p_out), side if p_out < p_in else None
        up, down = tail(n, sum(x <= 1 for x in r)), tail(n, sum(x >= 1 for x in r))
        side = "up" if up < down else "down" if down < up else None
        return min(Fraction(1), 2 * min(up, down)), side

    def word(self):
        """reproduced, contradicted or not shown, with why in brackets; a
        secondary cell's says so."""
        sec = "" if self.primary else "; secondary"
        if not self.n:
            return "not shown (no data)"
        if self.rejected:
            if self.want == "same":
                return f"reproduced (no change{sec})" if self.side == "in" else \
                    f"contradicted ({direction(self.metric, self.side)}{sec})"
            return ("reproduced" if self.side == self.want else "contradicted") + \
                f" ({direction(self.metric, self.side)}{sec})"
        need = min_pairs(LEVEL)
        if self.n < need:
            return f"not shown (n<{need}{sec})"
        if self.fw is not None and self.fw.d is None:
            return f"not shown (n<{self.fw.need()}{sec})"
        return f"not shown ({sec[2:]})" if sec else "not shown"

    def verdict(self):
        """The word, the measured ratio against the claimed one, and where
        the counts go the other way (Counts.note())."""
        w = self.word()
        if self.n and self.claimed_text:
            w += f", {fmt_ratio(self.ci.point)} against {self.claimed_text} claimed"
        return w + (count_note(self, *self.counts) if self.counts else "")

    def holm_text(self):
        """Holm's adjusted p-value and the cell's interval at the level Holm
        reads it at; a secondary cell's own p-value and its 95% interval."""
        if not self.n or self.fw is None:
            return "-"
        if not self.primary:
            return f"secondary: p {fmt_p(self.p)}; >={fmt_level(self.level)}: {fmt_iv(self.fw)}"
        return f"p {fmt_p(self.adj)}; >={fmt_level(self.level)}: {fmt_iv(self.fw)}"


def fmt_p(p):
    p = float(p)
    return "1" if p >= 1 else f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


class Family:
    """The verdict cells of one report. The primary ones (a claim's headline
    cell, CLAIMS' "primary") are under Holm's step-down method (Holm 1979)
    at family-wise error ALPHA: sorted by their p-values p(1) <= ... <=
    p(m), cell j is rejected (reproduced or contradicted, by the side its
    ratios fall on) while p(i) <= ALPHA / (m - i + 1) for every i <= j;
    equivalently while its adjusted p-value max over i <= j of (m - i + 1)
    p(i) is <= ALPHA. Each is read at the level 1 - ALPHA / (m - j + 1) of
    its rank j (the first rank among equal p-values), where its
    order-statistic interval excludes 1.0 exactly when p(j) is under that
    bound. m counts the primary cells with at least one ratio. Every other
    cell is secondary: read on its own at 1 - ALPHA, rejected when its own
    p-value is <= ALPHA, with no control of the error over them."""

    def __init__(self):
        self.cells = []
        self.m = 0

    def add(self, cell):
        self.cells.append(cell)
        return cell

    def holm(self, alpha=ALPHA):
        cells = sorted((c for c in self.cells if c.n and c.primary), key=lambda c: c.p)
        self.m = m = len(cells)
        adj, first = Fraction(0), {}
        for j, c in enumerate(cells, 1):
            r0 = first.setdefault(c.p, j)
            c.level = 1 - Fraction(alpha) / (m - r0 + 1)
            adj = max(adj, min(Fraction(1), (m - j + 1) * c.p))
            c.adj = adj
            c.rejected = adj <= alpha and c.side is not None
            c.fw = c.ci.at(c.level)
        for c in self.cells:
            if c.n and not c.primary:
                c.level = 1 - Fraction(alpha)
                c.adj = c.p
                c.rejected = c.p <= alpha and c.side is not None
                c.fw = c.ci.at(c.level)

    def first_level(self, alpha=ALPHA):
        """The level of the first cell tested: 1 - ALPHA / m."""
        return 1 - Fraction(alpha) / self.m if self.m else None

    def summary(self, alpha=ALPHA):
        sec = [c for c in self.cells if c.n and not c.primary]
        if not self.m and not sec:
            return "No verdict cell has data."

        def pairs(cells):
            ns = sorted(c.n for c in cells)
            return f"{ns[0]} pairs each" if ns[0] == ns[-1] else f"{ns[0]} to {ns[-1]} pairs"

        out = []
        if self.m:
            prim = [c for c in self.cells if c.n and c.primary]
            first = self.first_level(alpha)
            rep = sum(c.rejected for c in prim)
            out.append(
                f"Family-wise error control: Holm's step-down method over the {self.m} "
                f"primary verdict cells of this report with data (each claim's headline "
                f"cell: CLAIMS' \"primary\", bench/README.md \"Reading the report\"), "
                f"family-wise error {fmt_level(alpha)}; {rep} of them reproduced or "
                f"contradicted. Each primary cell's verdict reads its sign test's "
                f"Holm-adjusted p-value, and the same ratios' order-statistic interval at "
                f"the level Holm sets for it (column \"Holm\"; the first cell's is "
                f"{fmt_level(first)}, which takes at least {min_pairs(first)} pairs); the "
                f"cells have {pairs(prim)}.")
        else:
            out.append("No primary verdict cell has data: no family-wise error control.")
        if sec:
            rep = sum(c.rejected for c in sec)
            out.append(
                f"The other {len(sec)} cells with data are secondary (\"secondary\" in their "
                f"verdict): each is read on its own, at its sign test's p-value and its "
                f"{fmt_level(1 - alpha)} interval, with no control of the error over them "
                f"({rep} reproduced or contradicted; {pairs(sec)}).")
        return " ".join(out)


def lazy(fn):
    """A block of claims()'s output that is rendered after Family.holm()."""
    fn.lazy = True
    return fn


def text_of(x):
    return x() if callable(x) else x


def finish(blocks):
    """The text of a list of str and lazy blocks."""
    return "\n".join(text_of(b) for b in blocks)


def lazy_table(hdr, rows):
    return lazy(lambda: "\n".join(render(hdr, [[text_of(c) for c in r] for r in rows])))


def overall(cells):
    """One verdict line for a claim's rows."""
    words = [c.word().split(" (")[0] for c in cells]
    n = len(words)
    rep = sum(v == "reproduced" for v in words)
    con = sum(v == "contradicted" for v in words)
    if not n:
        word = "no data"
    elif rep == n:
        word = "reproduced"
    elif rep and con:
        word = "mixed"
    elif con:
        word = "contradicted" if con == n else "contradicted in part"
    elif rep:
        word = "partly reproduced"
    else:
        word = "not shown"
    return f"{word} ({rep} reproduced, {con} contradicted, {n - rep - con} not shown of {n})"


def floor_text(runs, metric):
    """The floor a metric is read against, medians over runs: lock+list_add+
    unlock + remote wake for the queue path, mutex pair + spin_irq pair x
    online nodes for a flush."""
    if metric.startswith("flush"):
        m = med_fn(runs, lambda r: flo(r, "mutex_pair_ns"))
        s = med_fn(runs, lambda r: flo(r, "spin_irq_pair_ns"))
        n = med_fn(runs, online_nodes)
        t = med_fn(runs, flush_floor)
        if t is None:
            return "-"
        return f"{fmt(m)}+{fmt(s)}x{fmt(n)} = {fmt(t)} ns"
    lk = med_fn(runs, lambda r: flo(r, "lock_list_add_unlock_ns"))
    wk = med_fn(runs, lambda r: flo(r, "wake_remote_ns"))
    if lk is None:
        return "-"
    if wk is None:
        return f"lock {fmt(lk)} ns, wake -"
    return f"{fmt(lk)}+{fmt(wk)} = {fmt(lk + wk)} ns"


def pct(x):
    return f"{x:+.1f}%"


def scope_claim(cl, sc, i):
    """(want, claimed ratio, text) of metric i of a "scopes" claim in scope
    sc; None where a version has no figure for the scope."""
    figs = [FASTWAKE[v].get(sc) for v in cl["figures"]]
    if any(f is None for f in figs):
        return None
    r = 1 + figs[0][i] / 100
    for f in figs[1:]:
        r /= 1 + f[i] / 100
    want = "same" if sc in cl["same"] else "up" if r > 1 else "down"
    return want, r, f"{fmt_claim(r)}x"


def claim_scopes(data, fam, cl, out):
    """A "scopes" claim: a row per S1 scope, two verdict cells each."""
    scen = cl["scen"]
    vn = resolve(data, scen, cl["variant"])
    an = "base" if cl["against"] is None else resolve(data, scen, cl["against"])
    cname, clab = cl["counter"]
    versions = " over ".join(cl["figures"])
    hdr = ["scope", f"claimed ({versions})"]
    if cl["history"]:
        hdr.append(f"{cl['history']} (history)")
    for _, lab in cl["metrics"]:
        hdr += [f"{lab} {an} -> {vn}", f"{lab} ratio [95% interval], coverage",
                f"{lab} Holm", f"{lab} verdict"]
    hdr.append(f"{clab} {an} -> {vn}")
    if data.counts:
        hdr.append(f"count per op {an} -> {vn}")
    rows, cells, notes = [], [], []
    for sc in data.scopes():
        if pick(data, scen, cl["metrics"][0][0], an, scope=sc) is None:
            continue
        cl_i = [scope_claim(cl, sc, i) for i in range(len(cl["metrics"]))]
        if None in cl_i:
            notes.append(f"- {sc}: no claimed figure for this scope, no verdict")
            continue
        figs = [FASTWAKE[v][sc] for v in cl["figures"]]
        claimed = "; ".join(f"{v} " + " / ".join(pct(x) for x in f)
                            for v, f in zip(cl["figures"], figs))
        if len(figs) > 1:
            claimed += ": " + " / ".join(f"{fmt_claim(c[1])}x" for c in cl_i)
        row = [sc, claimed + (" (no change)" if sc in cl["same"] else "")]
        if cl["history"]:
            h = FASTWAKE[cl["history"]].get(sc)
            row.append(" / ".join(pct(x) for x in h) if h else "-")
        cv, ca = (count_of(data, scen, x, scope=sc) for x in (vn, an))
        for (metric, _), (want, r, text) in zip(cl["metrics"], cl_i):
            c = fam.add(Cell(pair_pick(data, scen, metric, vn, an, scope=sc), want, metric,
                             r, text, primary=cl.get("primary") == (sc, metric)))
            c.key = f"{cl['id']} {sc} {metric}"
            if cv and ca:
                c.counts = (cv, ca)
            cells.append(c)
            row += [f"{fmt(pick(data, scen, metric, an, scope=sc))} -> "
                    f"{fmt(pick(data, scen, metric, vn, scope=sc))}",
                    fmt_ci(c.ci), c.holm_text, c.verdict]
        row.append(f"{fmt(pick(data, scen, cname, an, scope=sc))} -> "
                   f"{fmt(pick(data, scen, cname, vn, scope=sc))}")
        if data.counts:
            row.append(fmt_count_pair(cv, ca))
        rows.append(row)
    out += [f"**{cl['id']}** ({cl['title']}), S1, `{vn}` against `{an}`:", ""]
    if rows:
        out += [lazy_table(hdr, rows), ""]
    out += notes + ([""] if notes else [])
    out += [lazy(lambda: f"Verdict {cl['id']}: {overall(cells)}"), ""]


def claim_cases(data, fam, cl, big, out):
    """A "cases" claim: a row per case at nr_cpu_ids=big, one verdict cell
    each."""
    cname, clab = cl["counter"]
    rows, cells = [], []
    for case in cl["cases"]:
        scen, t, metric = case["scen"], case.get("type"), case["metric"]
        vn = resolve(data, scen, case["variant"])
        want, r, text = claimed_ratio(case["claimed"])
        c = fam.add(Cell(pair_pick(data, scen, metric, vn, "base", t, None, big), want, metric,
                         r, text, primary=bool(case.get("primary"))))
        c.key = f"{cl['id']} {case['case']} {scen} {t or '-'} {metric}"
        cv, cb = (count_of(data, scen, x, t, None, big) for x in (vn, "base"))
        if cv and cb:
            c.counts = (cv, cb)
        cells.append(c)
        row = [case["case"], f"{metric} {WANT[want]}",
               f"{fmt(pick(data, scen, metric, 'base', t, None, big))} -> "
               f"{fmt(pick(data, scen, metric, vn, t, None, big))}",
               fmt_ci(c.ci), c.holm_text,
               f"{fmt(pick(data, scen, cname, 'base', t, None, big))} -> "
               f"{fmt(pick(data, scen, cname, vn, t, None, big))}"]
        if cl["id"] == "C1":
            row.append(wait_text(data, scen, ("base", vn), t, big))
        if data.counts:
            row.append(fmt_count_pair(cv, cb) if scen in COUNT_OP else "not counted")
        rows.append(row + [floor_text(runs_for(data, scen, "base", t, None, big), metric),
                           c.verdict])
    out += [f"**{cl['id']}** ({cl['title']} at nr_cpu_ids={big}):", ""]
    if rows:
        hdr = ["case", "metric (claimed)", "base -> variant", "ratio [95% interval], coverage",
               "Holm", f"{clab} base -> variant"]
        if cl["id"] == "C1":
            hdr.append("flush-mutex wait p50, p99, share base -> variant")
        if data.counts:
            hdr.append("count per op base -> variant")
        out += [lazy_table(hdr + ["floor", "verdict"], rows), ""]
    out += [lazy(lambda: f"Verdict {cl['id']}: {overall(cells)}"), ""]


def claim_notes(data, cid, big, ncpus):
    """The lines printed under a claim's verdict: the other variants and the
    kernel's own workqueue beside it (no verdict)."""
    out = []
    if cid == "B1":
        for t in ("percpu", "unbound"):
            le, lc, la = (pick(data, "s4a", "lock_cycles_per_flush", v, t, ncpu=big)
                          for v in ("base", "flush=coalesce", "flush=active"))
            c, k = (pick(data, "s4a", "flushes_per_sec", v, t, ncpu=big)
                    for v in ("flush=coalesce", "kwq"))
            out.append(f"- {t}: coalesce {fmt(c)}/s, kwq {fmt(k)}/s; lock cycles/flush "
                       f"each {fmt(le)}, coalesce {fmt(lc)}, active {fmt(la)}")
        out.append("- flush cost against possible CPUs (S4a flushes/s, base -> active): " + "; ".join(
            f"{n}: percpu {fmt(pick(data, 's4a', 'flushes_per_sec', 'base', 'percpu', ncpu=n))} -> "
            f"{fmt(pick(data, 's4a', 'flushes_per_sec', 'flush=active', 'percpu', ncpu=n))}"
            for n in ncpus if pick(data, 's4a', 'flushes_per_sec', 'base', 'percpu', ncpu=n)))
    elif cid == "B2":
        out.append("- kwq: " + ", ".join(
            f"{t} {fmt(pick(data, 's4b', 'flushes_per_sec', 'kwq', t, ncpu=big))}/s"
            for t in ("percpu", "unbound")))
        for t in ("percpu", "unbound"):
            out.append(f"- {t} flush-mutex wait, base -> flush=active -> kwq: "
                       + wait_text(data, "s4b", ("base", "flush=active", "kwq"), t, big))
    elif cid == "B4":
        out.append("- flush p99 ns: " + ", ".join(
            f"{vn} {fmt(pick(data, 's5', 'flush_p99_ns', vn, ncpu=big))}"
            for vn in ("base", "flush=coalesce", "flush=active", "kwq")))
        out.append("- flush-mutex wait, base -> flush=coalesce -> flush=active -> kwq: "
                   + wait_text(data, "s5", ("base", "flush=coalesce", "flush=active", "kwq"),
                               None, big))
    elif cid == "C1":
        k, a = (pick(data, "s6", "flushes_per_sec", v, ncpu=big) for v in ("kwq", "flush=active"))
        out.append(f"- S6 kwq: {fmt(k)} flushes/s, flush=active: {fmt(a)} flushes/s")
        out.append("- S6 flush-mutex wait, flush=coalesce -> kwq: "
                   + wait_text(data, "s6", ("flush=coalesce", "kwq"), None, big)
                   + ". The mechanism of the robot's +8.6% (aim7, 70-76% of all cycles "
                   "spinning on __flush_workqueue()'s mutex) is this wait, which the pool-lock "
                   "cycles per flush shorten: C1 reads both")
    return out + [""] if out else []


def claims(data, fam):
    """The claims (CLAIMS) beside what fwq measured in this run, their
    verdict cells added to fam; the default kernel's boots only. Returns
    blocks for finish(), after fam.holm()."""
    out = ["## Claims and what fwq measured", "",
           lazy(lambda: fam.summary()), "",
           "Each row: the medians of what is compared, the median of the per-repetition "
           f"ratios with its {fmt_level(LEVEL)} order-statistic interval and that interval's "
           "exact coverage, the family-wise reading (\"Holm\": the Holm-adjusted p-value of "
           "the sign test, and the interval at the level Holm reads the cell at), the "
           "structural counter, and the verdict: reproduced (the family-wise interval "
           "excludes 1.00x in the claimed direction; for a claimed absence of change: lies "
           f"within [{SAME_BOUNDS[0]}, {SAME_BOUNDS[1]}]), contradicted (it excludes 1.00x "
           "the other way; for no change: lies outside those bounds), not shown (otherwise; "
           f"n<N: fewer pairs than the level takes), then the measured ratio against the "
           "claimed one. A row that covers several configurations (S5, S6: both types) "
           "pools their repetition pairs. The claims and their sources: bench/README.md, "
           "\"The claims\".", ""]
    ncpus = sorted({k[0][1] for k in data.groups})
    big = max((k[0][1] for k in data.groups
               if k[0][2] in FLUSH_FAMILY and not boot_kernel(k[0][0])), default=None)
    for cl in CLAIMS:
        if cl["kind"] == "scopes":
            claim_scopes(data, fam, cl, out)
        elif big:
            claim_cases(data, fam, cl, big, out)
            out += claim_notes(data, cl["id"], big, ncpus)
    return out


# The counts (bench/README.md, "Counts"): guest instructions and memory
# accesses per operation, which make bench's count boots measure with the
# TCG plugin of tools/icount/ (icount.jsonl, one object per operation,
# type, scope and variant: tools/icount/icount_report.py --jsonl). Each
# timed scenario's path: S1's queue call wakes an idle worker (kick), S2's
# finds it woken (queue), S4a flushes an idle workqueue (flush; its
# "entry": the flush function's own instructions), S4b and S6 queue one
# item and flush (qflush), S5 does that on its workqueue (s5). S1 and S2
# are counted in the kernel's count boot with the most possible CPUs, the
# others in the one with the timed row's possible CPUs.
COUNT_OP = {"s1": "kick", "s2": "queue", "s4a": "flush", "s4b": "qflush", "s5": "s5",
            "s6": "qflush"}
COUNT_SCHEMA = "fwq_icount/1"
# the operations per phase (tests/icount/: op=kick, qflush and s5 sleep
# between two, so fewer)
COUNT_N = {"kick": 50, "queue": 400, "flush": 400, "qflush": 50, "s5": 50}


def count_boot_cpus(label):
    """192 of a count boot label "p192" or "p192:7.3"; None otherwise."""
    b = label.split(":", 1)[0]
    return int(b[1:]) if b[:1] == "p" and b[1:].isdigit() else None


class Counts:
    """The counts of a run, by (count boot label, op, type, scope, target,
    variant). With record=BOOTS (the count boots' possible-CPU counts) it
    counts nothing and keeps what get() was asked for instead, the phases
    a count boot is to run (--count-phases)."""

    def __init__(self, recs=(), record=None):
        self.by = {}
        self.record = record
        self.asked = OrderedDict()
        for r in recs:
            self.by[(r["label"], r["op"], r["type"], r["scope"], r["target"],
                     r["variant"])] = r

    def __bool__(self):
        return bool(self.by) or self.record is not None

    def boots(self, kern):
        """The count boots' possible CPUs of kernel kern (None: the
        default one)."""
        if self.record is not None:
            return self.record
        return sorted({count_boot_cpus(k[0]) for k in self.by
                       if boot_kernel(k[0]) == kern} - {None})

    def get(self, scen, run, scope=None):
        """The count of what a timed run of scen times (a run of the
        configuration: its target, variant, type, label and possible
        CPUs); None if not counted. scope: S1's scope, where run is kwq's."""
        op = COUNT_OP.get(scen)
        if op is None or run is None:
            return None
        kern = boot_kernel(run["label"])
        if scen in ("s1", "s2"):
            ncpu = max(self.boots(kern), default=None)
        else:
            ncpu = run["topology"]["nr_cpu_ids"]
        if ncpu is None:
            return None
        label = f"p{ncpu}" + (f":{kern}" if kern else "")
        t = "unbound" if scen in ("s1", "s2", "s5", "s6") else run["type"]
        if run["target"] == "kwq":
            key = (label, op, t, "default", "kwq", "kernel")
        else:
            sc = {"s1": scope or run["scope"], "s2": "cache"}.get(scen, "default")
            key = (label, op, t, sc, "fwq", run["variant"])
        if self.record is not None:
            if ncpu in self.record:
                self.asked[key] = True
            return None
        return self.by.get(key)

    def phases(self, label):
        """The phases count boot label is to run, as scripts/plans/icount.plan
        reads them ("OP TYPE TARGET VARIANT SCOPE N"): those that run with
        every CPU online first (flush, queue), then those that wait for
        their item (kick, qflush, s5)."""
        keys = [k for k in self.asked if k[0] == label]
        keys.sort(key=lambda k: k[1] in ("kick", "qflush", "s5"))
        return [f"{op} {t} {tg} {'-' if tg == 'kwq' else v} {sc} {COUNT_N[op]}"
                for _, op, t, sc, tg, v in keys]


def load_counts(outdir):
    """Counts of DIR/icount.jsonl; empty without one. Bad lines are one
    error (ReportError), as results.jsonl's are."""
    path = os.path.join(outdir, "icount.jsonl")
    if not os.path.exists(path):
        return Counts()
    recs = []
    try:
        with open(path, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except ValueError:
                    raise ReportError(f"{path}:{i}: not a whole JSON object: a truncated "
                                      "or corrupt line") from None
                if not isinstance(r, dict) or r.get("schema") != COUNT_SCHEMA:
                    raise ReportError(f"{path}:{i}: not a {COUNT_SCHEMA} object")
                for k in ("label", "op", "type", "scope", "target", "variant"):
                    if not isinstance(r.get(k), str):
                        raise ReportError(f"{path}:{i}: the count has no \"{k}\"")
                for k in ("insns", "mem"):
                    v = r.get(k)
                    if not isinstance(v, dict) or any(
                            num(v.get(x)) is None for x in ("median", "min", "max")):
                        raise ReportError(f"{path}:{i}: \"{k}\" is not a median, min and "
                                          "max")
                recs.append(r)
    except OSError as e:
        raise ReportError(f"{path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{path}: not UTF-8 text") from None
    return Counts(recs)


def count_side(a, b, key):
    """"up" when count a's whole [min-max] of key lies above b's, "down"
    below, None where they overlap (or either is missing)."""
    if not a or not b:
        return None
    if a[key]["min"] > b[key]["max"]:
        return "up"
    if a[key]["max"] < b[key]["min"]:
        return "down"
    return None


def fmt_n(x):
    """A count per operation: 10740, 497, 2.5; "-" for none."""
    if x is None:
        return "-"
    return f"{x:.0f}" if abs(x) >= 100 or x == int(x) else f"{x:.1f}"


def fmt_count_pair(a, b):
    """"insns 2615 -> 2851 (1.090x), mem 900 -> 950 (1.056x)", b then a;
    "-" for a side not counted."""
    def one(key, lab):
        x, y = (c[key]["median"] if c else None for c in (b, a))
        if x is None and y is None:
            return None
        r = f" ({y / x:.3f}x)" if x and y else ""
        return f"{lab} {fmt_n(x)} -> {fmt_n(y)}{r}"

    parts = [p for p in (one("insns", "insns"), one("mem", "mem")) if p]
    return ", ".join(parts) if parts else "-"


def count_note(cell, a, b):
    """Where a verdict's direction and the counts' disagree: a rate
    reproduced or contradicted as faster (higher) while the variant makes
    more instructions or memory accesses per operation (their ranges apart),
    or a latency lower while it makes more, and the reverse. "" otherwise."""
    if not cell.rejected or cell.want == "same" or cell.side not in ("up", "down"):
        return ""
    rate = cell.metric.endswith("_per_sec")
    cheaper = cell.side == "up" if rate else cell.side == "down"
    bad = []
    for key, lab in (("insns", "instructions"), ("mem", "memory accesses")):
        side = count_side(a, b, key)
        if side and (side == "down") != cheaper:
            bad.append(f"{lab} {a[key]['median'] / b[key]['median']:.3f}x")
    return f"; TIMING AND COUNT DISAGREE ({', '.join(bad)})" if bad else ""


def load_designs(outdir):
    """{kernel: fwq's copy of its design} from designs.txt, which bench.sh
    writes from each kernel's FWQ_K_DESIGN (scripts/kernels/); {} without
    it."""
    out = {}
    try:
        with open(os.path.join(outdir, "designs.txt")) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    out[parts[0]] = parts[1]
    except OSError:
        pass
    return out


def design_name(design, axes, base):
    """The variant name (vname) that runs a design's axes, the other axes
    at the baseline's: for the enqueue scenarios (bench.sh's wake variants,
    on the baseline's flush) axes = ("wake", "kicked_list"); for the flush
    scenarios (the flush variants, on the baseline's wake) ("flush",)."""
    cur, b = parts(design), parts(base or "")
    diff = [f"{k}={cur[k]}" for k in AXES
            if k in axes and k in cur and cur[k] != b.get(k)]
    return ",".join(diff) or "base"


# The fidelity rows: (scenario, type, scope, metric, the design's axes that
# the scenario's variants vary)
FIDELITY_ROWS = [
    ("s1", None, "cache", "items_per_sec", ("wake", "kicked_list")),
    ("s1", None, "cache", "enq_p50_ns", ("wake", "kicked_list")),
    ("s2", None, "cache", "items_per_sec", ("wake", "kicked_list")),
    ("s4a", "percpu", None, "flushes_per_sec", ("flush",)),
    ("s4a", "unbound", None, "flushes_per_sec", ("flush",)),
    ("s5", None, None, "flush_p50_ns", ("flush",)),
]


def scen_name(scen, t=None):
    """S4a percpu of ("s4a", "percpu")."""
    return scen[:1].upper() + scen[1:] + (f" {t}" if t else "")


def kernel_order(kern):
    try:
        return tuple(int(x) for x in kern.split("."))
    except ValueError:
        return (999,)


def fidelity(data, designs):
    """fwq's copy of the design of every non-default kernel against that
    kernel's own workqueue, in the same boot, with the order-statistic
    interval of fwq/kwq (no verdict)."""
    kerns = sorted({boot_kernel(k[0][0]) for k in data.groups} - {None}, key=kernel_order)
    out = []
    rows = inside = 0
    for kern in kerns:
        seen = set()
        design = designs.get(kern)
        if not design:
            continue
        if not out:
            out = ["## Fidelity: fwq's copy of each kernel's design against the kernel's own "
                   "workqueue", "",
                   "Each row: fwq running the design of the kernel it is booted on "
                   "(FWQ_K_DESIGN in scripts/kernels/) against that kernel's own workqueue, "
                   "in the same boot; the ratio fwq/kwq of the medians' runs paired by "
                   f"repetition, with its {fmt_level(LEVEL)} order-statistic interval and the "
                   "interval's exact coverage. The enqueue rows (S1, S2) run the "
                   "design's wake and kicked-list axes and S4a its flush axis, each on the "
                   f"baseline's other axes (`{data.base}`): an idle flush wakes no worker. "
                   "S5's flush does, so S5 runs the whole design (a suite without it: the "
                   "flush axis, the walk's cost alone). S1, S2 and S4a run fwq with "
                   "`counters=0`, their counts taken in a counted pass of the same run; "
                   "S5 runs counted. fwq/kwq near 1.00x says the clone costs what the original "
                   "does. The counts, without timing noise: guest instructions and memory "
                   "accesses per operation of the row's path, fwq and kwq, medians of the "
                   "count boots' repetitions (\"Counts\" in bench/README.md); for S4a also "
                   "the flush entry, the instructions of the flush function itself "
                   "(fwq_flush_workqueue(), __flush_workqueue()) without the walk.", "",
                   "| kernel | possible CPUs | scenario | metric | fwq variant | fwq | kwq | "
                   "fwq/kwq [95% interval], coverage | insns fwq, kwq, fwq/kwq | "
                   "mem fwq, kwq, fwq/kwq | flush entry insns fwq, kwq |",
                   "|---|---|---|---|---|---|---|---|---|---|---|"]
        for scen, t, sc, metric, axes in FIDELITY_ROWS:
            vn = design_name(design, axes, data.base)
            # bench.sh runs the whole design in S5, whose flush wakes a
            # worker; a run without it falls back to the flush axis alone
            whole = design_name(design, AXES, data.base)
            if scen == "s5" and runs_for(data, scen, whole, t, sc, None, kern):
                vn = whole
            ncpus = sorted({k[0][1] for k in data.groups
                            if boot_kernel(k[0][0]) == kern and k[0][2] == scen})
            for n in ncpus:
                vr = runs_for(data, scen, vn, t, sc, n, kern)
                kr = runs_for(data, scen, "kwq", t, sc, n, kern)
                if not vr or not kr:
                    continue
                e, k = (stat([met(r, metric) for r in rs]) for rs in (vr, kr))
                cf, ck = (data.counts.get(scen, rs[0]) for rs in (vr, kr))
                cells = [fmt_count3(cf, ck, key) for key in ("insns", "mem")]
                ent = "-"
                if cf and ck and "entry_insns" in cf and "entry_insns" in ck:
                    ent = f"{fmt_n(cf['entry_insns'])}, {fmt_n(ck['entry_insns'])}"
                if cf and ck and (scen, t, sc, n) not in seen:
                    seen.add((scen, t, sc, n))
                    rows += 1
                    inside += all(0.90 <= cf[x]["median"] / ck[x]["median"] <= 1.10
                                  for x in ("insns", "mem"))
                out.append(f"| {kern} | {n} | {scen_name(scen, t)} | {metric} | "
                           f"{vn} | {fmt(e[0] if e else None)} | {fmt(k[0] if k else None)} | "
                           f"{fmt_ci(ci_ratio(vr, kr, metric))} | {cells[0]} | {cells[1]} | "
                           f"{ent} |")
    if out:
        out.append("")
        if rows:
            out.append(f"Counts: {inside} of {rows} counted paths within 0.90-1.10 of kwq's "
                       "on both instructions and memory accesses per operation (a path "
                       "counted once per kernel and possible-CPU count, whatever rows time "
                       "it).")
            out.append("")
    return "\n".join(out)


def fmt_count3(a, b, key):
    """"497, 420, 1.18x" of two counts' key medians; "-" without both."""
    if not a or not b:
        return "-"
    x, y = a[key]["median"], b[key]["median"]
    return f"{fmt_n(x)}, {fmt_n(y)}, {x / y:.3f}x" if y else f"{fmt_n(x)}, {fmt_n(y)}"


def headline(data, designs, fam):
    """The headline claims (CLAIMS' cases marked headline: B1's S4a idle
    flush, B2's S4b sparse flush, B4's S5 XFS CIL load) on each non-default
    kernel at its largest possible-CPU count, against that kernel's own
    workqueue, for flush=active, flush=lockless and fwq's copy of the
    kernel's own flush; their verdict cells added to fam. Returns blocks for
    finish(), after fam.holm()."""
    kerns = sorted({boot_kernel(k[0][0]) for k in data.groups} - {None}, key=kernel_order)
    cases = [(cl["id"], c) for cl in CLAIMS if cl["kind"] == "cases"
             for c in cl["cases"] if c.get("headline")]
    out = []
    for kern in kerns:
        big = max((k[0][1] for k in data.groups
                   if boot_kernel(k[0][0]) == kern and
                   k[0][2] in {c["scen"] for _, c in cases}), default=None)
        if big is None:
            continue
        own = design_name(designs.get(kern, data.base or ""), ("flush",), data.base)
        rows = []
        for cid, case in cases:
            scen, t, metric = case["scen"], case.get("type"), case["metric"]
            kr = runs_for(data, scen, "kwq", t, None, big, kern)
            if not kr:
                continue
            for vn in dict.fromkeys((own, "flush=active", "flush=lockless")):
                vr = runs_for(data, scen, vn, t, None, big, kern)
                if not vr:
                    continue
                want, r, text = claimed_ratio(("same",) if vn == own else case["claimed"])
                c = fam.add(Cell(pair_ratios(vr, kr, metric), want, metric, r, text))
                c.key = f"headline {kern} {cid} {scen} {t or '-'} {metric} {vn}"
                cv, ck = (data.counts.get(scen, rs[0]) for rs in (vr, kr))
                if cv and ck:
                    c.counts = (cv, ck)
                e, k = (stat([met(x, metric) for x in rs]) for rs in (vr, kr))
                row = [cid, scen_name(scen, t), f"{metric} {WANT[want]}", vn,
                       f"{fmt(k[0] if k else None)} -> {fmt(e[0] if e else None)}",
                       fmt_ci(c.ci), c.holm_text]
                if data.counts:
                    row.append(fmt_count_pair(cv, ck))
                rows.append(row + [c.verdict])
        if not rows:
            continue
        out += [f"## Headline on {kern}: fwq's flush designs against the kernel's own "
                f"workqueue at nr_cpu_ids={big}", "",
                "What the seed series would buy on this kernel: each row's ratio is fwq's "
                "variant over the kernel's own workqueue, runs paired by repetition in one "
                f"boot, with its {fmt_level(LEVEL)} order-statistic interval and coverage; the "
                "verdict, secondary (\"Reading the report\" in bench/README.md), reads the "
                "interval at 95% in the claimed direction "
                f"(for fwq's copy of the kernel's own flush, `{own}`: no change).", "",
                lazy_table(["claim", "scenario", "metric (claimed)", "fwq variant",
                            "kwq -> fwq", "fwq/kwq [95% interval], coverage", "Holm"]
                           + (["count per op kwq -> fwq"] if data.counts else [])
                           + ["verdict"], rows), ""]
    return out


def floors(runs, clocksources=None):
    """Medians of every floor field over each boot's runs, with the two
    floors the table divides by, the clock read in lock floors and the
    boot's clocksource (bench.sh's clocksource.txt)."""
    clocksources = clocksources or {}
    fields = list(FLOOR_FIELDS)
    known = {k for k, _ in fields}
    byboot = OrderedDict()
    for r in runs:
        byboot.setdefault(r["label"], []).append(r)
        for k in r.get("floor", {}):
            if k not in known:
                known.add(k)
                fields.append((k, k))
    hdr = ["boot", "runs"] + [f"{lab} ns" for _, lab in fields] + ["lock+wake ns",
                                                                     "flush floor ns",
                                                                     "clock/lock",
                                                                     "clocksource"]
    rows = []
    for lab, rs in byboot.items():
        cx = clock_x_lock(rs)
        mark = " slow" if cx is not None and cx > SLOW_CLOCK_X else ""
        rows.append([lab, str(len(rs))]
                    + [fmt(med_fn(rs, lambda r, k=k: flo(r, k))) for k, _ in fields]
                    + [fmt(med_fn(rs, lock_wake_floor)), fmt(med_fn(rs, flush_floor)),
                       fmt_x(cx) + mark, clocksources.get(lab, "-")])
    out = ["## Floors", "",
           "Medians over each boot's runs (every run measures them first); \"-\": not in "
           "these runs (an older fwq_bench) or not measurable (remote wake with one CPU). "
           "lock+wake = lock+list_add+unlock + remote wake (S1 p50/(lock+wake)); flush floor "
           "= mutex pair + spin_irq pair x online nodes (S4a p50/floor). clock/lock: one "
           f"clock read in lock floors; above {SLOW_CLOCK_X:.0f}x the boot is marked slow, "
           "and so are its rows in the tables (\"(slow clock)\"), whose latencies then "
           "hold two slow clock reads each. clocksource: the guest's before and after the "
           "suite (every guest boots with tsc=reliable).", ""]
    return "\n".join(out + render(hdr, rows)) + "\n"


def agreement(data):
    """S4a rows, default kernel, whose rate*p50 is more than 10% off 1.00."""
    rows = []
    fn = rate_x_p50("flush_p50_ns")
    for cfg, sc, variants in groups_for(data, "s4a"):
        for vn, rs in variants.items():
            v = med_fn(rs, fn)
            if v is not None:
                rows.append((cfg, sc, vn, v))
    if not rows:
        return ""
    off = [f"{cfg[0]} {cfg[3]} {vn} {fmt_x(v)}" for cfg, sc, vn, v in rows if abs(v - 1) > 0.10]
    return (f"Rate against latency: S4a rate*p50 within 10% of 1.00 in {len(rows) - len(off)} "
            f"of {len(rows)} rows" + (" (outside: " + "; ".join(off) + ")" if off else "") + ".\n")


def spread_cells(data, keep):
    """S1 cells over the runs @keep accepts: (cells, [outside])."""
    cells, off = 0, []
    for (cfg, sc), variants in data.groups.items():
        if cfg[2] != "s1":
            continue
        for vn, rs in variants.items():
            s = data.med([r for r in rs if keep(r)], "items_per_sec")
            if s is None or s[3] < 2 or not s[0]:
                continue
            cells += 1
            lo, hi = s[1] / s[0], s[2] / s[0]
            if lo < 0.7 or hi > 1.3:
                off.append(f"{cfg[0]} {sc} {vn} {lo:.2f}-{hi:.2f}")
    return cells, off


def spread(data):
    """S1 cells (every boot) whose items/s min-max leaves +-30% of the median."""
    cells, off = spread_cells(data, lambda r: True)
    if not cells:
        return ""
    out = (f"Spread: S1 items/s min-max within +-30% of the median in {cells - len(off)} of "
           f"{cells} cells" + (" (outside, min/median-max/median: " + "; ".join(off) + ")"
                               if off else "") + ".\n")
    if any(r.get("host", {}).get("slow") for rs in data.groups.values() for v in rs.values()
           for r in v):
        c2, off2 = spread_cells(data, lambda r: not r.get("host", {}).get("slow"))
        out += (f"Spread over the runs not marked slow (see \"Slow host\"): {c2 - len(off2)} of "
                f"{c2} cells within +-30%" + (" (outside: " + "; ".join(off2) + ")"
                                              if off2 else "") + ".\n")
    return out


# The slow-host rule (bench/README.md, "Slow host"), bench/bench.h's
# bench_probe_slow(): a probe is slow when on some CPU the vCPU did not run
# for at least SLOW_STOLEN_PERMILLE of the steal window (whole microseconds,
# as the JSON gives them); a run is slow when its probe before or after it
# is. tests/bench-report/ checks it, and that fwq_bench's "slow" agrees, on
# probes recorded on an idle and on a loaded host.
SLOW_STOLEN_PERMILLE = 250


def probe_slow(probe, permille=SLOW_STOLEN_PERMILLE):
    """One probe's verdict: its per-CPU stolen_us and window_us lists."""
    return any(st * 1000 >= permille * win
               for st, win in zip(probe["stolen_us"], probe["window_us"]))


def run_slow(h, permille=SLOW_STOLEN_PERMILLE):
    """The rule on a run's host block; None without the probes' figures
    (an older fwq_bench: its "slow" stands)."""
    if "probe_before" not in h or "probe_after" not in h:
        return None
    return probe_slow(h["probe_before"], permille) or probe_slow(h["probe_after"], permille)


def host(runs):
    """Per boot: runs the host probe had redone, and runs kept while slow."""
    per, rule = OrderedDict(), None
    for r in runs:
        h = r.get("host")
        if not h:
            continue
        if "slow_above_stolen_permille" in h:
            rule = (f"a probe before or after a run finding a vCPU that did not run for "
                    f"{h['slow_above_stolen_permille'] / 10:g}% of its window or more")
        elif "slow_above_x_best" in h and rule is None:
            rule = f"a probe before or after a run above {h['slow_above_x_best']:.2f}x its best"
        n = per.setdefault(r["label"], [0, 0, 0, 0, 0, 0])
        n[0] += 1
        n[1] += h["redone"] > 0
        n[2] += h["redone"]
        n[3] += h["slow"]
        n[4] = max(n[4], h["redo"])
        n[5] += h.get("redo_budget_out", 0)
    if not per:
        return ""
    parts = [f"`{lab}` {n[1]} of {n[0]} runs redone ({n[2]} redos, up to {n[4]} a run), "
             f"{n[3]} kept slow ({n[5]} with the redo budget spent)" for lab, n in per.items()]
    return (f"Slow host ({rule or 'fwq_bench gave no rule'}; bench/README.md, \"Slow "
            "host\"): " + "; ".join(parts) + ".\n")


def run_time(outdir):
    """Where the run's time went, from bench.sh's timing.txt: per boot its
    wall time, the guest's uptime when the suite started and the suite's
    own time; per count boot its wall time. "" without the file."""
    try:
        with open(os.path.join(outdir, "timing.txt")) as f:
            lines = [ln.split() for ln in f if ln.strip()]
    except OSError:
        return ""
    rows, total = [], 0
    for w in lines:
        kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
        wall = kv.get("wall_s")
        if wall is None or not wall.isdigit():
            continue
        total += int(wall)
        n = kv.get("runs", kv.get("phases", "-"))
        rows.append([w[0], n, wall, kv.get("suite_start_s", "-"), kv.get("suite_s", "-")])
    if not rows:
        return ""
    out = ["## Where the time went", "",
           "Per boot (timing.txt): its runs (a count boot: its phases, each run "
           "--count-reps times), its wall time, the guest's uptime when the suite "
           "started (the boot and the module loads) and the suite's own time; the rest "
           "of a boot's wall time is outside the guest (the initramfs, QEMU's start and "
           f"end). {total} s in the boots in all; the builds and the report come on top.",
           ""]
    return "\n".join(out + render(["boot", "runs", "wall s", "suite start s", "suite s"],
                                  rows)) + "\n"


def legend(base):
    """What the /base and /kwq cells of the table are."""
    return (f"/base = ratio to the baseline `{base}` (the variant both the enqueue and the "
            "flush scenarios ran, read from results.jsonl): the median over repetitions of "
            "the per-repetition ratio (the variant's k-th run against base's k-th run of the "
            "same configuration and scope, made close in time), with the narrowest interval "
            "[x(d), x(n+1-d)] of the n sorted ratios whose coverage of their median, "
            f"1 - 2 P(Bin(n, 1/2) <= d-1), reaches {fmt_level(LEVEL)}, and that coverage "
            f"(distribution-free, exact: [x(1), x(7)], 98.4% for 7 pairs). `{NO_EFFECT}` "
            "after the interval: it holds 1.00x (no effect shown); `not shown (n<"
            f"{min_pairs(LEVEL)})`: too few pairs for {fmt_level(LEVEL)}. Each cell's interval "
            "holds on its own; the verdicts under \"Claims\" control the error over all "
            "of them. /kwq = ratio of the medians to the kernel's own workqueue (one kwq "
            "series per configuration, not paired).")


def compare(args):
    """bench_report.py --compare OUTDIR|- DIR1 DIR2 [DIR3...]"""
    if len(args) < 3 or args[0] == "" or any(a.startswith("-") for a in args[1:]) or \
            (args[0].startswith("-") and args[0] != "-"):
        print(USAGE, file=sys.stderr)
        return 2
    outdir, dirs = args[0], args[1:]
    datas = [Data(load(os.path.join(d, "results.jsonl")), load_counts(d)) for d in dirs]
    nd = len(datas)
    verdicts, fid = [], []
    for d, data in zip(dirs, datas):
        fam = Family()
        claims(data, fam)
        designs = load_designs(d)
        headline(data, designs, fam)
        fam.holm()
        verdicts.append({c.key: c.word() for c in fam.cells if c.key})
        fid.append([ln for ln in fidelity(data, designs).splitlines()
                    if ln.startswith("Counts: ")])
    hdr = ["scenario", "boot", "cpus", "type", "scope", "variant", "metric"]
    hdr += [f"run{i + 1} ratio [95% interval], coverage" for i in range(nd)]
    hdr += [f"run{i + 1}/run1" for i in range(1, nd)]
    hdr += ["significant-in", "agree"]
    rows, sig_total, sig_agree, sig_off, quiet_total, quiet_agree = [], 0, 0, [], 0, 0
    for (cfg, sc), variants in datas[0].groups.items():
        scen = cfg[2]
        other = datas[1].groups.get((cfg, sc))
        if scen not in METRICS or not other:
            continue
        for vn in variants:
            if vn in ("base", "kwq") or vn not in other:
                continue
            for m, _, _ in METRICS[scen][:2]:
                cis = []
                for d in datas:
                    g = d.groups.get((cfg, sc), {})
                    cis.append(ci_ratio(g.get(vn), g.get("base"), m) if "base" in g else None)
                if cis[0] is None and cis[1] is None:
                    continue
                rel = [div(c and c.point, cis[0] and cis[0].point) for c in cis[1:]]
                sig = [i + 1 for i, c in enumerate(cis) if significant(c)]
                if not sig:
                    sig_in = "none"
                elif len(sig) == nd:
                    sig_in = "both" if nd == 2 else "all"
                else:
                    sig_in = ",".join(map(str, sig))
                known = [x for x in rel if x is not None]
                agree = None
                if rel[0] is not None:
                    agree = all(abs(x - 1) <= 0.25 for x in known)
                row = [scen, cfg[0], str(cfg[1]), cfg[3], sc, vn, m] + [fmt_ci(c) for c in cis]
                row += [fmt_x(x) for x in rel]
                row += [sig_in, "-" if agree is None else "yes" if agree else "no"]
                rows.append(row)
                if agree is None:
                    continue
                if sig:
                    sig_total += 1
                    sig_agree += agree
                    if not agree:
                        sig_off.append(row)
                else:
                    quiet_total += 1
                    quiet_agree += agree
    pct = f"{100 * sig_agree / sig_total:.0f}%" if sig_total else "n/a"
    out = ["# fwq_bench repeatability", ""]
    out += [f"- run{i + 1}: `{d}`" for i, d in enumerate(dirs)]
    out += ["", "Every ratio to base of the first two metrics of each scenario, matched on "
            "configuration (boot label, nr_cpu_ids, scenario, type, threads, batch, wqs, "
            "work_us, items) + scope + variant, in each suite. " + legend(datas[0].base) +
            " runN/run1: the "
            "ratio of the two points; significant-in: the runs whose interval excludes "
            "1.00x; agree: |runN/run1 - 1| <= 0.25 for every later run.", ""]
    out += render(hdr, rows) if rows else ["(no ratio present in both run1 and run2)"]
    out += ["", f"{sig_agree} of {sig_total} ratios significant in at least one run agree "
            f"within ±25% ({pct}); {quiet_agree} of {quiet_total} significant in no run agree.",
            ""]
    keys = list(dict.fromkeys(k for v in verdicts for k in v))
    if keys:
        same = [k for k in keys if len({v.get(k, "(none)") for v in verdicts}) == 1]
        out += ["## Verdicts", "",
                f"{len(same)} of {len(keys)} verdict cells (the claims' and the headline "
                "rows') give the same verdict in every run.", ""]
        out += render(["cell"] + [f"run{i + 1}" for i in range(nd)] + ["same"],
                      [[k] + [v.get(k, "(none)") for v in verdicts]
                       + ["yes" if k in same else "NO"] for k in keys])
        out.append("")
    for i, lines in enumerate(fid):
        out += [f"run{i + 1} fidelity: {ln}" for ln in lines]
    if any(fid):
        out.append("")
    if sig_off:
        out += ["Significant in at least one run and not agreeing:", ""]
        out += [f"- {r[0]} {r[1]} {r[3]} {r[4]} {r[5]} {r[6]}: " + ", ".join(r[7:7 + nd])
                + " (" + ", ".join(f"run{i + 2}/run1 {x}" for i, x in enumerate(r[7 + nd:-2]))
                + ")" for r in sig_off]
        out.append("")
    text = "\n".join(out)
    print(text)
    if outdir == "-":
        return 0
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "repeatability.md"), "w") as f:
        f.write(text + "\n")
    print(f"bench_report: wrote {outdir}/repeatability.md", file=sys.stderr)
    return 0


def gnuplot(plotdir, name, script):
    path = os.path.join(plotdir, name + ".gp")
    with open(path, "w") as f:
        f.write(script)
    # gnuplot runs in plotdir: the script by its name there, so that a
    # relative DIR works
    r = subprocess.run(["gnuplot", name + ".gp"], cwd=plotdir, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"bench_report: gnuplot {name}: {r.stderr.strip()}", file=sys.stderr)
        return False
    return True


def plots(data, outdir):
    if not shutil.which("gnuplot"):
        print("bench_report: gnuplot not found (apt-get install gnuplot-nox): no plots",
              file=sys.stderr)
        return []
    plotdir = os.path.join(outdir, "plots")
    os.makedirs(plotdir, exist_ok=True)
    made = []
    term = "set terminal pngcairo noenhanced size 1200,500 font ',10'\n"

    # 1. enqueue throughput and p95 per scope per wake variant
    variants = []
    for (cfg, sc), vs in data.groups.items():
        if cfg[2] == "s1":
            for vn in vs:
                if vn != "kwq" and vn not in variants:
                    variants.append(vn)
    if variants:
        with open(os.path.join(plotdir, "enqueue.dat"), "w") as f:
            f.write("# scope " + " ".join(f'"{v}"' for v in variants) + " (items/s then p95 ns)\n")
            for i, sc in enumerate(data.scopes()):
                t = [pick(data, "s1", "items_per_sec", v, scope=sc) for v in variants]
                p = [pick(data, "s1", "enq_p95_ns", v, scope=sc) for v in variants]
                f.write(f"{i} {sc} " + " ".join("NaN" if x is None else str(x) for x in t + p) + "\n")
        kt = pick(data, "s1", "items_per_sec", "kwq")
        kp = pick(data, "s1", "enq_p95_ns", "kwq")
        nv = len(variants)
        s = term + "set output 'enqueue.png'\nset multiplot layout 1,2 title 'S1 enqueue per affinity scope'\n"
        s += "set xtics rotate by -30\nset grid\nset key top right\n"
        s += "set ylabel 'items/s'\nset title 'throughput (higher is better)'\n"
        s += "plot " + ", ".join(
            f"'enqueue.dat' u 1:{3 + i}:xtic(2) w lp t '{v}'" for i, v in enumerate(variants))
        if kt:
            s += f", {kt} w l dt 2 t 'kwq (6.1, no scopes)'"
        s += "\nset ylabel 'ns'\nset title 'queue call p95 (lower is better)'\nset logscale y\n"
        s += "plot " + ", ".join(
            f"'enqueue.dat' u 1:{3 + nv + i}:xtic(2) w lp t '{v}'" for i, v in enumerate(variants))
        if kp:
            s += f", {kp} w l dt 2 t 'kwq (6.1, no scopes)'"
        s += "\nunset multiplot\n"
        if gnuplot(plotdir, "enqueue", s):
            made.append("plots/enqueue.png")

    # 2. flush cost against possible CPUs per flush variant (S4a)
    ncpus = sorted({cfg[1] for (cfg, _) in data.groups
                    if cfg[2] == "s4a" and not boot_kernel(cfg[0])})
    # every flush variant the run measured (bench.sh takes them from the
    # registry, include/fwq/variants.h), in the order they first appear
    fvars = ["base"]
    for (cfg, _), variants in data.groups.items():
        fvars += [vn for vn in variants
                  if cfg[2] == "s4a" and vn.startswith("flush=") and vn not in fvars]
    fvars.append("kwq")
    if ncpus:
        for t in ("percpu", "unbound"):
            with open(os.path.join(plotdir, f"flush_{t}.dat"), "w") as f:
                f.write("# nr_cpu_ids flushes/s[" + " ".join(fvars) + "] pwqs/flush[...] lockcyc/flush[...]\n")
                for n in ncpus:
                    row = [pick(data, "s4a", "flushes_per_sec", v, t, ncpu=n) for v in fvars]
                    row += [pick(data, "s4a", "pwqs_visited_per_flush", v, t, ncpu=n) for v in fvars]
                    row += [pick(data, "s4a", "lock_cycles_per_flush", v, t, ncpu=n) for v in fvars]
                    f.write(f"{n} " + " ".join("NaN" if x is None else str(x) for x in row) + "\n")
        s = term.replace("1200,500", "1200,900") + "set output 'flush_scaling.png'\n"
        s += "set multiplot layout 2,2 title 'S4a idle flush against possible CPUs (nr_cpu_ids)'\n"
        s += "set grid\nset logscale x 2\nset xlabel 'possible CPUs'\nset key top right\n"
        for t in ("percpu", "unbound"):
            s += f"set title '{t}: flushes/s'\nset logscale y\nset ylabel 'flushes/s'\n"
            s += "plot " + ", ".join(
                f"'flush_{t}.dat' u 1:{2 + i} w lp t '{v}'" for i, v in enumerate(fvars)) + "\n"
        for t in ("percpu", "unbound"):
            s += f"set title '{t}: pwqs visited and lock cycles per flush (fwq)'\nunset logscale y\n"
            s += "set ylabel 'per flush'\n"
            s += "plot " + ", ".join(
                f"'flush_{t}.dat' u 1:{2 + len(fvars) + i} w lp t 'pwqs {v}'"
                for i, v in enumerate(fvars[:3]))
            s += ", " + ", ".join(
                f"'flush_{t}.dat' u 1:{2 + 2 * len(fvars) + i} w lp dt 2 t 'lock cycles {v}'"
                for i, v in enumerate(fvars[:3])) + "\n"
        s += "unset multiplot\n"
        if gnuplot(plotdir, "flush_scaling", s):
            made.append("plots/flush_scaling.png")

    # 3. S5 flush latency CDF, per variant (median of each percentile over reps)
    cdfs = {}
    for (cfg, sc), vs in data.groups.items():
        if cfg[2] != "s5" or boot_kernel(cfg[0]):
            continue
        for vn, rs in vs.items():
            arrs = [r["metrics"].get("flush_cdf_ns_p0_to_p100_step5") for r in rs]
            arrs = [a for a in arrs if a]
            if arrs:
                cdfs[(cfg[1], vn)] = [statistics.median(col) for col in zip(*arrs)]
    if cdfs:
        with open(os.path.join(plotdir, "s5_cdf.dat"), "w") as f:
            for (n, vn), arr in sorted(cdfs.items()):
                f.write(f'# "{vn} ({n} CPUs)"\n')
                for i, v in enumerate(arr):
                    f.write(f"{max(v, 1)} {i * 0.05:.2f}\n")
                f.write("\n\n")
        s = term.replace("1200,500", "900,600") + "set output 's5_cdf.png'\n"
        s += "set title 'S5 XFS CIL: flush_workqueue latency CDF'\nset grid\nset logscale x\n"
        s += "set xlabel 'flush latency (ns)'\nset ylabel 'fraction of flushes'\nset key bottom right\n"
        s += "plot " + ", ".join(
            f"'s5_cdf.dat' index {i} u 1:2 w lp t '{vn} ({n} CPUs)'"
            for i, (n, vn) in enumerate(sorted(cdfs))) + "\n"
        if gnuplot(plotdir, "s5_cdf", s):
            made.append("plots/s5_cdf.png")
    return made


NOTES = """## Reading these numbers (TCG)

- These runs are QEMU TCG guests on a 2-core host: vCPUs are host threads
  that the host scheduler preempts at will, IPIs and wakeups are emulated,
  and an instruction costs 10-50x bare metal. Absolute rates are far below
  the seed machines', and anything that measures a wakeup (queue-call
  latency under contention, queue_to_start, S5 tails) is dominated by vCPU
  scheduling noise. A vCPU preempted while holding pool->lock shows up as
  multi-millisecond p95/p99 outliers.
- The floor (uncontended lock+list_add+unlock, atomic test-and-set, and in
  newer runs a mutex_lock+mutex_unlock pair, a spin_lock_irq+spin_unlock_irq
  pair and the waker's cost of waking an idle kthread on another CPU) is
  measured in every run; the *_x_floor fields in results.jsonl express the
  latencies in the lock unit, which is comparable across machines.
- How close to the physical limit: S1 p50/(lock+wake) is the queue call's
  p50 over lock+list_add+unlock + remote wake, what a queue call that adds
  the work under the pool lock and wakes an idle worker elsewhere cannot
  go below (a deferred wake can take part of it off the queue call, so
  under 1.0 is possible); S4a p50/floor is one idle flush's p50 over a
  mutex pair (wq->mutex) + one spin_lock_irq pair per online node (the
  pools an idle flush must at least lock). Both are medians over the
  repetitions of each run's own figure; 1.0 is the limit, larger is
  overhead above it.
- Rate against latency: the rates are timed over batches of operations,
  without a clock read per op, and latency is sampled 1 in sample_every
  ops. rate*p50 (S4a, S4b, S5, S6: one op is one flush) is
  per_thread_ops_per_sec x flush p50, the median op against the mean op:
  1.00 says the batched rate and 1/p50 agree, 0.93 that the rate is 7%
  below 1/p50 (a heavier tail, or time outside the flush). The goal is
  within 10% in S4a. In S1-S3 the latency is the queue call only, a part
  of each op, and the same figure is the queue share: the fraction of each
  op's time spent in the queue call.
- Significance: a ratio to base whose interval holds 1.00x (marked `~`)
  shows no effect at this number of repetitions, whatever its point value.
- The structural counters do not depend on timing and show each mechanism
  directly: pwqs visited per flush (flush=active visits only pwqs used since
  the last flush, flush=each/coalesce visit one per possible CPU), pool-lock
  cycles per flush (flush=coalesce takes each pool's lock once instead of
  once per pwq), and wakeups issued under pool->lock (0 for the deferred
  wake variants).
- kwq is the guest's own workqueue (kwq-6.1, kwq-6.12 in the tables). On
  6.1 unbound workqueues have per-node pwqs, so its flush cost follows
  nodes, not possible CPUs, and it has no affinity scopes (one kwq S1 line
  is the reference for every scope). On 6.12 (boots labelled BOOT:6.12)
  unbound workqueues have one pwq per possible CPU and affinity scopes;
  its kwq runs in the default scope (cache), since apply_workqueue_attrs()
  is not exported to modules. The claim lines above use the default
  kernel's boots only.
"""


def report(outdir, results=None):
    """bench_report.py DIR: DIR/results.jsonl's report, into DIR. results:
    that file's runs instead, with the files bench.sh writes beside it
    (clocksource.txt, icount.jsonl, designs.txt, crashes.txt, timing.txt)
    read from its folder; outdir None: printed only, nothing written."""
    results = results or os.path.join(outdir, "results.jsonl")
    side = os.path.dirname(results) or "."
    clocksources = load_clocksources(side)
    runs = load(results)
    data = Data(runs, load_counts(side))
    tab = table(data)
    leg = legend(data.base)
    if outdir is not None:
        os.makedirs(outdir, exist_ok=True)
        with open(os.path.join(outdir, "table.txt"), "w") as f:
            f.write(tab + "\n" + leg + "\n")
    print(tab)
    made = plots(data, outdir) if outdir is not None else []
    fam = Family()
    blocks = claims(data, fam)
    designs = load_designs(side)
    hl = headline(data, designs, fam)
    fam.holm()
    cl = finish(blocks)
    for extra in (finish(hl), fidelity(data, designs)):
        if extra:
            cl += "\n\n" + extra
    print(cl)
    if outdir is None:
        return 0
    topo = OrderedDict()
    for r in runs:
        topo[r["label"]] = r["topology"]
    lfloor = defaultdict(list)
    for r in runs:
        v = flo(r, "lock_list_add_unlock_ns")
        if v is not None:
            lfloor[r["label"]].append(v)
    agree = agreement(data) + spread(data) + host(runs)
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("# fwq_bench results\n\n")
        f.write(f"{len(runs)} runs. Baseline (the variant the /base ratios divide by, read "
                f"from the runs): `{data.base}`. Boots:\n\n")
        for lab, t in topo.items():
            fl = f"{statistics.median(lfloor[lab]):.1f} ns" if lfloor[lab] else "-"
            f.write(f"- `{lab}`: kernel {t['kernel']}, nr_cpu_ids {t['nr_cpu_ids']}, "
                    f"online CPUs {t['online_cpus']}, nodes {t.get('online_nodes', '-')}, "
                    f"floor lock+list_add+unlock median {fl}, "
                    f"clocksource {clocksources.get(lab, '-')}"
                    + (" (slow clock)" if lab in data.slow_clock else "") + "\n")
        f.write("\n" + floors(runs, clocksources) + "\n")
        f.write("Medians over repetitions with [min-max]. " + leg + " Derived columns "
                "(p50/(lock+wake), p50/floor, rate*p50, queue share): see the notes.\n\n")
        f.write(tab + "\n\n" + (agree + "\n" if agree else "") + cl + "\n\n")
        for p in made:
            f.write(f"![{p}]({p})\n\n")
        crashes = os.path.join(side, "crashes.txt")
        if os.path.exists(crashes):
            f.write("## Runs that crashed the guest\n\nThe guest kernel crashed or hung during these "
                    "specs; the remaining runs of the same variant in that boot were skipped "
                    "(see vm-*/console.log):\n\n")
            with open(crashes) as c:
                for line in c:
                    f.write(f"- `{line.strip()}`\n")
            f.write("\n")
        rt = run_time(side)
        if rt:
            f.write(rt + "\n")
        f.write(NOTES)
    print(f"bench_report: wrote {outdir}/summary.md, table.txt"
          + (", " + ", ".join(made) if made else ""), file=sys.stderr)
    return 0


def replay(args):
    """bench_report.py --replay RESULTS [OUTDIR]"""
    if len(args) not in (1, 2) or any(not a or a.startswith("-") for a in args):
        print(USAGE, file=sys.stderr)
        return 2
    results = args[0]
    if os.path.isdir(results):
        results = os.path.join(results, "results.jsonl")
    return report(args[1] if len(args) == 2 else None, results)


def count_phases(args):
    """bench_report.py --count-phases DIR LABEL BOOTS: the phases that count
    boot LABEL ("p192", "p8:7.3") is to run, one a line, for the cells this
    report will read from the runs in DIR/results.jsonl so far; BOOTS: the
    possible CPUs of the kernel's count boots ("8 192")."""
    if len(args) != 3:
        print(USAGE, file=sys.stderr)
        return 2
    outdir, label, boots = args
    try:
        record = [int(x) for x in boots.split()]
    except ValueError:
        raise ReportError(f"--count-phases: bad count boots \"{boots}\"") from None
    data = Data(load(os.path.join(outdir, "results.jsonl")), Counts(record=record))
    fam = Family()
    claims(data, fam)
    designs = load_designs(outdir)
    headline(data, designs, fam)
    fidelity(data, designs)
    for line in data.counts.phases(label):
        print(line)
    return 0


def main(argv):
    if len(argv) >= 1 and argv[0] == "--compare":
        run, args = compare, argv[1:]
    elif len(argv) >= 1 and argv[0] == "--replay":
        run, args = replay, argv[1:]
    elif len(argv) >= 1 and argv[0] == "--count-phases":
        run, args = count_phases, argv[1:]
    elif len(argv) == 1 and not argv[0].startswith("-"):
        run, args = report, argv[0]
    else:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        return run(args)
    except ReportError as e:
        print(f"bench_report: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"bench_report: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
