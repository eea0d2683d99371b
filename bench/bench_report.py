#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py DIR: summarize fwq_bench results.
bench_report.py --compare OUTDIR DIR1 DIR2 [DIR3...]: how well the ratios repeat.

Reads DIR/results.jsonl (one fwq_bench JSON object per run), groups runs by
configuration and variant, and writes:
  DIR/table.txt    the comparison table (also printed): medians with min-max,
                   each variant as a ratio to the pre-series baseline
                   (wake=locked,kicked_list=off,flush=each) with a paired
                   bootstrap 95% interval, and to kwq; floor-relative and
                   rate-against-latency columns where the runs carry them
  DIR/summary.md   the boots and their floors, the table, the seed claims
                   with a verdict each, notes
  DIR/plots/*.png  enqueue per scope per wake variant, flush cost against
                   possible CPUs per flush variant, S5 flush-latency CDF
                   (gnuplot; skipped with a warning if it is missing)
With --compare, reads DIRi/results.jsonl of two or more suites and writes
OUTDIR/repeatability.md (also printed): every ratio to base of the first
two metrics of each scenario in each suite, and whether they agree.
Only numbers found in results.jsonl are printed; nothing is estimated.
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
from collections import OrderedDict, defaultdict

BASE = "wake=locked,kicked_list=off,flush=each"

# what every flush scenario's rows end with: the work one flush does
FLUSH_COST = [("pwqs_visited_per_flush", "pwqs/flush", None),
              ("lock_cycles_per_flush", "lock cyc/flush", None)]

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
            ("flush_p99_ns", "p99 ns", False)] + FLUSH_COST,
    "s4c": [("flushes_per_sec", "flushes/s", True), ("enq_p50_ns", "queue p50 ns", False),
            ("enq_p99_ns", "queue p99 ns", False)] + FLUSH_COST,
    "s5": [("flush_p50_ns", "flush p50 ns", False), ("flush_p99_ns", "flush p99 ns", False),
           ("fsync_p99_ns", "fsync p99 ns", False)] + FLUSH_COST,
    "s6": [("flushes_per_sec", "flushes/s", True),
           ("flush_p99_ns", "p99 ns", False)] + FLUSH_COST,
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


def vname(r):
    if r["target"] == "kwq":
        return "kwq"
    v = r["variant"]
    if v == BASE:
        return "base"
    base = dict(kv.split("=") for kv in BASE.split(","))
    cur = dict(kv.split("=") for kv in v.split(",") if "=" in kv)
    diff = [f"{k}={cur[k]}" for k in ("wake", "kicked_list", "flush")
            if cur.get(k) != base[k]]
    return ",".join(diff) or "base"


def cfg_key(r):
    """Everything but the variant and the target's scope."""
    return (r["label"], r["topology"]["nr_cpu_ids"], r["scenario"], r["type"],
            r["threads"], r["batch"], r["wqs"], r["work_us"], r["items_per_thread"])


def load(path):
    runs = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                runs.append(json.loads(line))
            except json.JSONDecodeError as e:
                print(f"bench_report: skipping a bad line: {e}", file=sys.stderr)
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


# Significance of a ratio to base: a paired bootstrap over repetitions. The
# suite interleaves the variants, so the k-th run of a variant and the k-th
# run of base in the same (configuration, scope) group were made close in
# time; the statistic is the median of the per-repetition ratios.
CI_RESAMPLES = 2000
CI_SEED = 1
CI_MIN_PAIRS = 3
NO_EFFECT = "~"     # appended when the 95% interval contains 1.00x

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


def percentile(sorted_vals, p):
    """p-th percentile (0-100) of sorted values, linear between ranks."""
    x = (len(sorted_vals) - 1) * p / 100
    i = int(x)
    j = min(i + 1, len(sorted_vals) - 1)
    return sorted_vals[i] + (sorted_vals[j] - sorted_vals[i]) * (x - i)


def boot_ci(ratios):
    """(median, lo, hi, n) of per-repetition ratios with a percentile 95%
    bootstrap interval (CI_RESAMPLES resamples, seeded with CI_SEED so that
    the report is the same every time); lo and hi are None under
    CI_MIN_PAIRS pairs; None without any pair."""
    n = len(ratios)
    if not n:
        return None
    point = statistics.median(ratios)
    if n < CI_MIN_PAIRS:
        return (point, None, None, n)
    rng = random.Random(CI_SEED)
    meds = sorted(statistics.median(rng.choices(ratios, k=n)) for _ in range(CI_RESAMPLES))
    return (point, percentile(meds, 2.5), percentile(meds, 97.5), n)


def ci_ratio(var_runs, base_runs, metric):
    """Ratio of a variant to base over paired repetitions: (point, lo, hi, n)
    with point the median of the per-repetition ratios and [lo, hi] its
    paired bootstrap 95% interval (None, None under 3 pairs); None if no
    repetition has the metric in both."""
    return boot_ci(pair_ratios(var_runs, base_runs, metric))


def significant(ci):
    """The interval excludes 1.0."""
    return bool(ci) and ci[1] is not None and not ci[1] <= 1.0 <= ci[2]


def fmt_ci(ci):
    """1.23x [1.05-1.40], with NO_EFFECT after it if the interval holds 1.0;
    1.23x n<3 without an interval."""
    if ci is None:
        return "-"
    point, lo, hi, n = ci
    if lo is None:
        return f"{point:.2f}x n<{CI_MIN_PAIRS}"
    return f"{point:.2f}x [{bound(lo)}-{bound(hi)}]" + ("" if significant(ci) else NO_EFFECT)


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
    def __init__(self, runs):
        # groups[(cfg, scope)][variant name] -> list of runs
        self.groups = OrderedDict()
        self.kwq = {}
        self.slow_clock = slow_clock_boots(runs)
        for r in runs:
            scope = r["scope"]
            key = (cfg_key(r), scope)
            self.groups.setdefault(key, OrderedDict()).setdefault(vname(r), []).append(r)
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


def pick(data, scen, metric, variant, type_=None, scope=None, ncpu=None, kern=None):
    """Median of metric over the runs matching, on the default kernel's
    boots or on kernel kern's; None if absent."""
    s = stat([met(r, metric) for r in runs_for(data, scen, variant, type_, scope, ncpu, kern)])
    return s[0] if s else None


def ci_pick(data, scen, metric, variant, type_=None, scope=None, ncpu=None, kern=None):
    """ci_ratio() of variant to base over the groups matching: the
    repetitions are paired within each group and the pairs of all the groups
    bootstrapped together."""
    ratios = []
    for _, _, variants in groups_for(data, scen, type_, scope, ncpu, kern):
        ratios += pair_ratios(variants.get(variant), variants.get("base"), metric)
    return boot_ci(ratios)


WANT = {"up": "higher", "down": "lower", "same": "unchanged"}


def verdict(ci, want):
    """reproduced, contradicted or not shown, for a claimed direction want
    (up: ratio > 1, down: ratio < 1) or a claimed absence of change (same:
    reproduced if the interval holds 1.0 and lies within [0.75, 1.33])."""
    if ci is None:
        return "not shown (no data)"
    if ci[1] is None:
        return f"not shown (n<{CI_MIN_PAIRS})"
    _, lo, hi, _ = ci
    if want == "same":
        if not significant(ci):
            return "reproduced" if lo >= 0.75 and hi <= 1.33 else "not shown"
        return "contradicted"
    if not significant(ci):
        return "not shown"
    return "reproduced" if (lo > 1.0) == (want == "up") else "contradicted"


def overall(verdicts):
    """One verdict line for a claim's rows."""
    n = len(verdicts)
    rep = sum(v == "reproduced" for v in verdicts)
    con = sum(v == "contradicted" for v in verdicts)
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


def claims(data):
    """Seed claims beside what fwq measured in this run, with a verdict each
    from the paired bootstrap interval of the ratio to base; the default
    kernel's boots only."""
    out = ["## Seed claims and what fwq measured", "",
           "Each row: the medians of base and of the variant, the ratio variant/base with "
           "its 95% interval (paired bootstrap over repetitions), the structural counter "
           "of base and of the variant, the floor the metric is read against (lock+wake: "
           "lock+list_add+unlock + remote wake; flush: mutex pair + spin_irq pair x online "
           "nodes), and the verdict: reproduced (the interval excludes 1.00x in the claimed "
           "direction; for a claimed absence of change: holds 1.00x and lies within "
           "[0.75, 1.33]), contradicted (excludes 1.00x the other way; for no change: "
           "excludes it), not shown (otherwise, or under 3 repetitions). A row that covers "
           "several configurations (S1: every configuration of the scope; S5, S6: both "
           "types) pools their repetition pairs.", ""]
    ncpus = sorted({k[0][1] for k in data.groups})
    big = max((k[0][1] for k in data.groups
               if k[0][2] in ("s4a", "s4b", "s4c", "s5", "s6") and not boot_kernel(k[0][0])),
              default=None)

    def claim(name, title, items, counter, counter_lab):
        """items: (case, scen, metric, want, variant, type, scope, ncpu)"""
        rows, verdicts = [], []
        for case, scen, metric, want, vn, t, sc, n in items:
            ci = ci_pick(data, scen, metric, vn, t, sc, n)
            vd = verdict(ci, want)
            verdicts.append(vd.split(" (")[0])
            rows.append([case, f"{metric} {WANT[want]}",
                         f"{fmt(pick(data, scen, metric, 'base', t, sc, n))} -> "
                         f"{fmt(pick(data, scen, metric, vn, t, sc, n))}",
                         fmt_ci(ci),
                         f"{fmt(pick(data, scen, counter, 'base', t, sc, n))} -> "
                         f"{fmt(pick(data, scen, counter, vn, t, sc, n))}",
                         floor_text(runs_for(data, scen, "base", t, sc, n), metric), vd])
        out.append(title)
        out.append("")
        if rows:
            out.extend(render(["case", "metric (claimed)", "base -> variant", "ratio [95% CI]",
                               f"{counter_lab} base -> variant", "floor", "verdict"], rows))
            out.append("")
        out.append(f"Verdict {name}: {overall(verdicts)}")
        out.append("")

    items = []
    for sc in data.scopes():
        if pick(data, "s1", "items_per_sec", "base", scope=sc) is None:
            continue
        noise = sc in ("cpu", "smt")
        for vn in ("wake=wakeq,kicked_list=on", "wake=claim"):
            items.append((f"{sc} {vn}", "s1", "items_per_sec", "same" if noise else "up",
                          vn, None, sc, None))
            items.append((f"{sc} {vn}", "s1", "enq_p95_ns", "same" if noise else "down",
                          vn, None, sc, None))
    claim("A2", "**A2** (fastwake v2, contended scopes: ~+20% tput, ~-40% p95; cpu/smt within "
          "noise), S1:", items, "wakeups_under_lock_per_item", "locked wake/item")
    if big:
        claim("B1", "**B1** (idle flush, 192 CPUs: per-cpu 40k -> 4.2M/s, unbound 450k -> "
              f"4.3M/s); S4a at nr_cpu_ids={big}:",
              [(t, "s4a", "flushes_per_sec", "up", "flush=active", t, None, big)
               for t in ("percpu", "unbound")], "pwqs_visited_per_flush", "pwqs/flush")
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
        out.append("")
        claim("B2", "**B2** (sparse, 16 threads queue 1 + flush: per-cpu 30k -> 110k/s, unbound "
              "60k -> 180k/s):",
              [(t, "s4b", "flushes_per_sec", "up", "flush=active", t, None, big)
               for t in ("percpu", "unbound")], "pwqs_visited_per_flush", "pwqs/flush")
        out.append("- kwq: " + ", ".join(
            f"{t} {fmt(pick(data, 's4b', 'flushes_per_sec', 'kwq', t, ncpu=big))}/s"
            for t in ("percpu", "unbound")))
        out.append("")
        claim("B3", "**B3** (dense: per-cpu unchanged, unbound 15-20% slower; queue path "
              "unchanged):",
              [("percpu", "s4c", "flushes_per_sec", "same", "flush=active", "percpu", None, big),
               ("unbound", "s4c", "flushes_per_sec", "down", "flush=active", "unbound", None, big),
               ("percpu", "s4c", "enq_p50_ns", "same", "flush=active", "percpu", None, big),
               ("unbound", "s4c", "enq_p50_ns", "same", "flush=active", "unbound", None, big)],
              "pwqs_visited_per_flush", "pwqs/flush")
        claim("B4", "**B4** (XFS CIL, 128 CPUs: fsync flush 256-1000 us per-CPU pwqs vs 32-256 us; "
              "prep 2-64 us vs 2-8 us):",
              [(vn, "s5", "flush_p50_ns", "down", vn, None, None, big)
               for vn in ("flush=active", "flush=coalesce")],
              "pwqs_visited_per_flush", "pwqs/flush")
        out.append("- flush p99 ns: " + ", ".join(
            f"{vn} {fmt(pick(data, 's5', 'flush_p99_ns', vn, ncpu=big))}"
            for vn in ("base", "flush=coalesce", "flush=active", "kwq")))
        out.append("")
        claim("C1", "**C1** (85f0d8e: up to 65x on fio fsync; mechanism: lock cycles per flush "
              "nr_cpu_ids -> nr_pools), S6:",
              [("flush=coalesce", "s6", "flushes_per_sec", "up", "flush=coalesce", None, None,
                big)], "lock_cycles_per_flush", "lock cyc/flush")
        k, a = (pick(data, "s6", "flushes_per_sec", v, ncpu=big) for v in ("kwq", "flush=active"))
        out.append(f"- S6 kwq: {fmt(k)} flushes/s, flush=active: {fmt(a)} flushes/s")
        out.append("")
    return "\n".join(out)


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


def design_parts(design):
    return dict(kv.split("=", 1) for kv in design.split(",") if "=" in kv)


def design_name(design, axes):
    """The variant name (vname) that runs a design's axes, the other axes
    at the baseline's: for the enqueue scenarios (bench.sh's wake variants,
    on the baseline's flush) axes = ("wake", "kicked_list"); for the flush
    scenarios (the flush variants, on the baseline's wake) ("flush",)."""
    cur, base = design_parts(design), design_parts(BASE)
    diff = [f"{k}={cur[k]}" for k in ("wake", "kicked_list", "flush")
            if k in axes and cur.get(k, base[k]) != base[k]]
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
    kernel's own workqueue, in the same boot, with the paired bootstrap
    interval of fwq/kwq."""
    kerns = sorted({boot_kernel(k[0][0]) for k in data.groups} - {None}, key=kernel_order)
    out = []
    for kern in kerns:
        design = designs.get(kern)
        if not design:
            continue
        if not out:
            out = ["## Fidelity: fwq's copy of each kernel's design against the kernel's own "
                   "workqueue", "",
                   "Each row: fwq running the design of the kernel it is booted on "
                   "(FWQ_K_DESIGN in scripts/kernels/) against that kernel's own workqueue, "
                   "in the same boot; the ratio fwq/kwq of the medians' runs paired by "
                   "repetition, with its 95% interval. The enqueue rows (S1, S2) run the "
                   "design's wake and kicked-list axes and S4a its flush axis, each on the "
                   f"baseline's other axes (`{BASE}`): an idle flush wakes no worker. S5's "
                   "flush does, so S5 runs the whole design (a suite without it: the flush "
                   "axis, the walk's cost alone). S1, S2 and S4a run fwq with "
                   "`counters=0`, their counts taken in a counted pass of the same run; "
                   "S5 runs counted. fwq/kwq near 1.00x says the clone costs what the original "
                   "does; `make icount` counts the instructions of both without timing "
                   "noise.", "",
                   "| kernel | possible CPUs | scenario | metric | fwq variant | fwq | kwq | "
                   "fwq/kwq [95% CI] |",
                   "|---|---|---|---|---|---|---|---|"]
        for scen, t, sc, metric, axes in FIDELITY_ROWS:
            vn = design_name(design, axes)
            # bench.sh runs the whole design in S5, whose flush wakes a
            # worker; a run without it falls back to the flush axis alone
            whole = design_name(design, ("wake", "kicked_list", "flush"))
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
                out.append(f"| {kern} | {n} | {scen_name(scen, t)} | {metric} | "
                           f"{vn} | {fmt(e[0] if e else None)} | {fmt(k[0] if k else None)} | "
                           f"{fmt_ci(ci_ratio(vr, kr, metric))} |")
    if out:
        out.append("")
    return "\n".join(out)


def headline(data, designs):
    """The seed's headline claims on each non-default kernel at its largest
    possible-CPU count, against that kernel's own workqueue: B1 (S4a idle
    flush), B2 (S4b sparse flush) and B4 (S5, the XFS CIL load), for
    flush=active, flush=lockless and fwq's copy of the kernel's own flush."""
    kerns = sorted({boot_kernel(k[0][0]) for k in data.groups} - {None}, key=kernel_order)
    out = []
    for kern in kerns:
        big = max((k[0][1] for k in data.groups
                   if boot_kernel(k[0][0]) == kern and k[0][2] in ("s4a", "s4b", "s5")),
                  default=None)
        if big is None:
            continue
        own = design_name(designs.get(kern, BASE), ("flush",))
        rows = []
        for claim, scen, types, metric, want in (
                ("B1", "s4a", ("percpu", "unbound"), "flushes_per_sec", "up"),
                ("B2", "s4b", ("percpu", "unbound"), "flushes_per_sec", "up"),
                ("B4", "s5", (None,), "flush_p50_ns", "down")):
            for t in types:
                kr = runs_for(data, scen, "kwq", t, None, big, kern)
                if not kr:
                    continue
                for vn in dict.fromkeys((own, "flush=active", "flush=lockless")):
                    vr = runs_for(data, scen, vn, t, None, big, kern)
                    if not vr:
                        continue
                    ci = ci_ratio(vr, kr, metric)
                    e, k = (stat([met(r, metric) for r in rs]) for rs in (vr, kr))
                    rows.append([claim, scen_name(scen, t),
                                 f"{metric} {WANT[want]}", vn,
                                 f"{fmt(k[0] if k else None)} -> {fmt(e[0] if e else None)}",
                                 fmt_ci(ci), verdict(ci, "same" if vn == own else want)])
        if not rows:
            continue
        out += [f"## Headline on {kern}: fwq's flush designs against the kernel's own "
                f"workqueue at nr_cpu_ids={big}", "",
                "What the seed series would buy on this kernel: each row's ratio is fwq's "
                "variant over the kernel's own workqueue, runs paired by repetition in one "
                "boot, with the 95% bootstrap interval; the verdict reads it in the "
                "claimed direction (for fwq's copy of the kernel's own flush, "
                f"`{own}`: no change).", ""]
        out += render(["claim", "scenario", "metric (claimed)", "fwq variant",
                       "kwq -> fwq", "fwq/kwq [95% CI]", "verdict"], rows)
        out.append("")
    return "\n".join(out)


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


def host(runs):
    """Per boot: runs the host probe had redone, and runs kept while slow."""
    per, slack = OrderedDict(), None
    for r in runs:
        h = r.get("host")
        if not h:
            continue
        slack = h["slow_above_x_best"]
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
    return (f"Slow host (a probe before or after a run above {slack:.2f}x its CPU's best; "
            "bench/README.md, \"Slow host\"): " + "; ".join(parts) + ".\n")


LEGEND = (f"/base = ratio to `{BASE}`: the median over repetitions of the per-repetition "
          "ratio (the variant's k-th run against base's k-th run of the same configuration "
          "and scope, made close in time), with its 95% interval: paired bootstrap over "
          f"repetitions, ratio per repetition, median, {CI_RESAMPLES} resamples (seed "
          f"{CI_SEED}), percentile 95% interval. `{NO_EFFECT}` after the interval: it holds "
          f"1.00x (no effect shown); `n<{CI_MIN_PAIRS}`: under {CI_MIN_PAIRS} pairs, no "
          "interval. /kwq = ratio of the medians to the kernel's own workqueue (one kwq "
          "series per configuration, not paired).")


def compare(args):
    """bench_report.py --compare OUTDIR DIR1 DIR2 [DIR3...]"""
    if len(args) < 3 or any(a.startswith("-") for a in args):
        print(__doc__, file=sys.stderr)
        return 2
    outdir, dirs = args[0], args[1:]
    datas = []
    for d in dirs:
        path = os.path.join(d, "results.jsonl")
        if not os.path.isfile(path):
            print(f"bench_report: no {path}", file=sys.stderr)
            return 2
        runs = load(path)
        if not runs:
            print(f"bench_report: no results in {path}", file=sys.stderr)
            return 1
        datas.append(Data(runs))
    nd = len(datas)
    hdr = ["scenario", "boot", "cpus", "type", "scope", "variant", "metric"]
    hdr += [f"run{i + 1} ratio [ci]" for i in range(nd)]
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
                rel = [div(c and c[0], cis[0] and cis[0][0]) for c in cis[1:]]
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
            "work_us, items) + scope + variant, in each suite. " + LEGEND + " runN/run1: the "
            "ratio of the two points; significant-in: the runs whose interval excludes "
            "1.00x; agree: |runN/run1 - 1| <= 0.25 for every later run.", ""]
    out += render(hdr, rows) if rows else ["(no ratio present in both run1 and run2)"]
    out += ["", f"{sig_agree} of {sig_total} ratios significant in at least one run agree "
            f"within ±25% ({pct}); {quiet_agree} of {quiet_total} significant in no run agree.",
            ""]
    if sig_off:
        out += ["Significant in at least one run and not agreeing:", ""]
        out += [f"- {r[0]} {r[1]} {r[3]} {r[4]} {r[5]} {r[6]}: " + ", ".join(r[7:7 + nd])
                + " (" + ", ".join(f"run{i + 2}/run1 {x}" for i, x in enumerate(r[7 + nd:-2]))
                + ")" for r in sig_off]
        out.append("")
    text = "\n".join(out)
    print(text)
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
  is not exported to modules. The seed-claim lines above use the default
  kernel's boots only.
"""


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--compare":
        return compare(sys.argv[2:])
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    clocksources = load_clocksources(outdir)
    runs = load(os.path.join(outdir, "results.jsonl"))
    if not runs:
        print("bench_report: no results in results.jsonl", file=sys.stderr)
        return 1
    data = Data(runs)
    tab = table(data)
    with open(os.path.join(outdir, "table.txt"), "w") as f:
        f.write(tab + "\n" + LEGEND + "\n")
    print(tab)
    made = plots(data, outdir)
    cl = claims(data)
    designs = load_designs(outdir)
    for extra in (headline(data, designs), fidelity(data, designs)):
        if extra:
            cl += "\n\n" + extra
    print(cl)
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
        f.write(f"{len(runs)} runs. Boots:\n\n")
        for lab, t in topo.items():
            fl = f"{statistics.median(lfloor[lab]):.1f} ns" if lfloor[lab] else "-"
            f.write(f"- `{lab}`: kernel {t['kernel']}, nr_cpu_ids {t['nr_cpu_ids']}, "
                    f"online CPUs {t['online_cpus']}, nodes {t['online_nodes']}, "
                    f"floor lock+list_add+unlock median {fl}, "
                    f"clocksource {clocksources.get(lab, '-')}"
                    + (" (slow clock)" if lab in data.slow_clock else "") + "\n")
        f.write("\n" + floors(runs, clocksources) + "\n")
        f.write("Medians over repetitions with [min-max]. " + LEGEND + " Derived columns "
                "(p50/(lock+wake), p50/floor, rate*p50, queue share): see the notes.\n\n")
        f.write(tab + "\n\n" + (agree + "\n" if agree else "") + cl + "\n\n")
        for p in made:
            f.write(f"![{p}]({p})\n\n")
        crashes = os.path.join(outdir, "crashes.txt")
        if os.path.exists(crashes):
            f.write("## Runs that crashed the guest\n\nThe guest kernel crashed or hung during these "
                    "specs; the remaining runs of the same variant in that boot were skipped "
                    "(see vm-*/console.log):\n\n")
            with open(crashes) as c:
                for line in c:
                    f.write(f"- `{line.strip()}`\n")
            f.write("\n")
        f.write(NOTES)
    print(f"bench_report: wrote {outdir}/summary.md, table.txt, results.jsonl"
          + (", " + ", ".join(made) if made else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
