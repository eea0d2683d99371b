#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py DIR: summarize fwq_bench results.

Reads DIR/results.jsonl (one fwq_bench JSON object per run), groups runs by
configuration and variant, and writes:
  DIR/table.txt    the comparison table (also printed): medians with min-max,
                   each variant as a ratio to the pre-series baseline
                   (wake=locked,kicked_list=off,flush=each) and to kwq
  DIR/summary.md   the table, the seed claims beside what fwq measured, notes
  DIR/plots/*.png  enqueue per scope per wake variant, flush cost against
                   possible CPUs per flush variant, S5 flush-latency CDF
                   (gnuplot; skipped with a warning if it is missing)
Only numbers found in results.jsonl are printed; nothing is estimated.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
from collections import OrderedDict, defaultdict

BASE = "wake=locked,kicked_list=off,flush=each"
SCOPES = ["cpu", "smt", "cache_shard", "cache", "numa", "system"]

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
    "s4a": [("flushes_per_sec", "flushes/s", True), ("flush_p50_ns", "p50 ns", False),
            ("pwqs_visited_per_flush", "pwqs/flush", None),
            ("lock_cycles_per_flush", "lock cyc/flush", None)],
    "s4b": [("flushes_per_sec", "flushes/s", True), ("flush_p99_ns", "p99 ns", False),
            ("pwqs_visited_per_flush", "pwqs/flush", None),
            ("lock_cycles_per_flush", "lock cyc/flush", None)],
    "s4c": [("flushes_per_sec", "flushes/s", True), ("enq_p50_ns", "queue p50 ns", False),
            ("enq_p99_ns", "queue p99 ns", False),
            ("pwqs_visited_per_flush", "pwqs/flush", None),
            ("lock_cycles_per_flush", "lock cyc/flush", None)],
    "s5": [("flush_p50_ns", "flush p50 ns", False), ("flush_p99_ns", "flush p99 ns", False),
           ("fsync_p99_ns", "fsync p99 ns", False),
           ("pwqs_visited_per_flush", "pwqs/flush", None),
           ("lock_cycles_per_flush", "lock cyc/flush", None)],
    "s6": [("flushes_per_sec", "flushes/s", True), ("flush_p99_ns", "p99 ns", False),
           ("pwqs_visited_per_flush", "pwqs/flush", None),
           ("lock_cycles_per_flush", "lock cyc/flush", None)],
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


class Data:
    def __init__(self, runs):
        # groups[(cfg, scope)][variant name] -> list of runs
        self.groups = OrderedDict()
        self.kwq = {}
        for r in runs:
            scope = r["scope"]
            key = (cfg_key(r), scope)
            self.groups.setdefault(key, OrderedDict()).setdefault(vname(r), []).append(r)
            if r["target"] == "kwq":
                self.kwq.setdefault(cfg_key(r), []).append(r)

    def med(self, runs, metric):
        s = stat([r["metrics"].get(metric) for r in runs])
        return s


def table(data):
    lines = []
    for scen in METRICS:
        rows = [(k, v) for k, v in data.groups.items() if k[0][2] == scen]
        if not rows:
            continue
        mets = METRICS[scen]
        lines.append(f"## {TITLES[scen]}")
        hdr = ["boot", "cpus", "type", "scope", "variant", "n"]
        for i, (m, lab, _) in enumerate(mets):
            hdr.append(lab + (" med [min-max]" if i == 0 else ""))
            if i < 2:
                hdr += ["/base", "/kwq"]
        out = [hdr]
        for (cfg, scope), variants in rows:
            if scope == "n/a" and len(variants) == 1 and "kwq" in variants:
                # kwq rows once per configuration
                pass
            base_runs = variants.get("base")
            kwq_runs = data.kwq.get(cfg)
            for vn, rs in variants.items():
                shown = f"kwq-{series(rs[0]['topology']['kernel'])}" if vn == "kwq" else vn
                row = [cfg[0], str(cfg[1]), cfg[3], scope, shown]
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
                        b = data.med(base_runs, m) if base_runs else None
                        k = data.med(kwq_runs, m) if kwq_runs else None
                        row.append(ratio(s and s[0], b and b[0]) if vn != "base" else "1.00x" if s else "-")
                        row.append(ratio(s and s[0], k and k[0]))
                out.append(row)
        widths = [max(len(r[i]) for r in out) for i in range(len(hdr))]
        lines.append("")
        lines.append("| " + " | ".join(h.ljust(w) for h, w in zip(hdr, widths)) + " |")
        lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        for r in out[1:]:
            lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
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


def pick(data, scen, metric, variant, type_=None, scope=None, ncpu=None, kern=None):
    """Median of metric over the runs matching, on the default kernel's
    boots or on kernel kern's; None if absent."""
    vals = []
    for (cfg, sc), variants in data.groups.items():
        if cfg[2] != scen or (type_ and cfg[3] != type_):
            continue
        if boot_kernel(cfg[0]) != kern:
            continue
        if scope and sc != scope and not (variant == "kwq"):
            continue
        if ncpu and cfg[1] != ncpu:
            continue
        for r in variants.get(variant, []):
            vals.append(r["metrics"].get(metric))
    s = stat(vals)
    return s[0] if s else None


def claims(data):
    """Seed claims beside what fwq measured in this run."""
    out = ["## Seed claims and what fwq measured", ""]
    ncpus = sorted({k[0][1] for k in data.groups})
    big = max((k[0][1] for k in data.groups if k[0][2] in ("s4a", "s4b", "s4c", "s5", "s6")),
              default=None)

    def pct(a, b):
        if a is None or b is None or b == 0:
            return "n/a"
        return f"{(a / b - 1) * 100:+.1f}%"

    def flush_vs_active(scen, t):
        """Flushes/s of base, flush=active and kwq, then pwqs visited per
        flush of base and flush=active, at the largest CPU count."""
        return (pick(data, scen, "flushes_per_sec", "base", t, ncpu=big),
                pick(data, scen, "flushes_per_sec", "flush=active", t, ncpu=big),
                pick(data, scen, "flushes_per_sec", "kwq", t, ncpu=big),
                pick(data, scen, "pwqs_visited_per_flush", "base", t, ncpu=big),
                pick(data, scen, "pwqs_visited_per_flush", "flush=active", t, ncpu=big))

    out.append("**A2** (fastwake v2, contended scopes: ~+20% tput, ~-40% p95; cpu/smt within noise):")
    for sc in SCOPES:
        b_t = pick(data, "s1", "items_per_sec", "base", scope=sc)
        b_p = pick(data, "s1", "enq_p95_ns", "base", scope=sc)
        if b_t is None:
            continue
        parts = []
        for vn in ("wake=wakeq,kicked_list=on", "wake=claim"):
            t = pick(data, "s1", "items_per_sec", vn, scope=sc)
            p = pick(data, "s1", "enq_p95_ns", vn, scope=sc)
            lw = pick(data, "s1", "wakeups_under_lock_per_item", vn, scope=sc)
            parts.append(f"{vn}: tput {pct(t, b_t)}, p95 {pct(p, b_p)}, locked wakeups/item {fmt(lw)}")
        blw = pick(data, "s1", "wakeups_under_lock_per_item", "base", scope=sc)
        out.append(f"- {sc}: base {fmt(b_t)} items/s, p95 {fmt(b_p)} ns, locked wakeups/item {fmt(blw)}; "
                   + "; ".join(parts))
    out.append("")
    if big:
        out.append(f"**B1** (idle flush, 192 CPUs: per-cpu 40k -> 4.2M/s, unbound 450k -> 4.3M/s); "
                   f"fwq at nr_cpu_ids={big}:")
        for t in ("percpu", "unbound"):
            e, a, k, pe, pa = flush_vs_active("s4a", t)
            c = pick(data, "s4a", "flushes_per_sec", "flush=coalesce", t, ncpu=big)
            le = pick(data, "s4a", "lock_cycles_per_flush", "base", t, ncpu=big)
            lc = pick(data, "s4a", "lock_cycles_per_flush", "flush=coalesce", t, ncpu=big)
            la = pick(data, "s4a", "lock_cycles_per_flush", "flush=active", t, ncpu=big)
            out.append(f"- {t}: each {fmt(e)}/s -> active {fmt(a)}/s ({ratio(a, e)}); coalesce {fmt(c)}/s; "
                       f"kwq {fmt(k)}/s. pwqs visited/flush each {fmt(pe)} vs active {fmt(pa)}; "
                       f"lock cycles/flush each {fmt(le)}, coalesce {fmt(lc)}, active {fmt(la)}")
        out.append("- flush cost against possible CPUs (S4a flushes/s, base -> active): " + "; ".join(
            f"{n}: percpu {fmt(pick(data, 's4a', 'flushes_per_sec', 'base', 'percpu', ncpu=n))} -> "
            f"{fmt(pick(data, 's4a', 'flushes_per_sec', 'flush=active', 'percpu', ncpu=n))}"
            for n in ncpus if pick(data, 's4a', 'flushes_per_sec', 'base', 'percpu', ncpu=n)))
        out.append("")
        out.append("**B2** (sparse, 16 threads queue 1 + flush: per-cpu 30k -> 110k/s, unbound 60k -> 180k/s):")
        for t in ("percpu", "unbound"):
            e, a, k, pe, pa = flush_vs_active("s4b", t)
            out.append(f"- {t}: each {fmt(e)}/s -> active {fmt(a)}/s ({ratio(a, e)}), kwq {fmt(k)}/s; "
                       f"pwqs visited/flush {fmt(pe)} -> {fmt(pa)}")
        out.append("")
        out.append("**B3** (dense: per-cpu unchanged, unbound 15-20% slower; queue path unchanged):")
        for t in ("percpu", "unbound"):
            e = pick(data, "s4c", "flushes_per_sec", "base", t, ncpu=big)
            a = pick(data, "s4c", "flushes_per_sec", "flush=active", t, ncpu=big)
            qe = pick(data, "s4c", "enq_p50_ns", "base", t, ncpu=big)
            qa = pick(data, "s4c", "enq_p50_ns", "flush=active", t, ncpu=big)
            out.append(f"- {t}: flushes/s each {fmt(e)} -> active {fmt(a)} ({pct(a, e)}); "
                       f"queue p50 {fmt(qe)} -> {fmt(qa)} ns ({pct(qa, qe)})")
        out.append("")
        out.append("**B4** (XFS CIL, 128 CPUs: fsync flush 256-1000 us per-CPU pwqs vs 32-256 us; "
                   "prep 2-64 us vs 2-8 us):")
        for vn in ("base", "flush=coalesce", "flush=active", "kwq"):
            p50 = pick(data, "s5", "flush_p50_ns", vn, ncpu=big)
            p99 = pick(data, "s5", "flush_p99_ns", vn, ncpu=big)
            pv = pick(data, "s5", "pwqs_visited_per_flush", vn, ncpu=big)
            if p50 is None:
                continue
            out.append(f"- {vn}: flush p50 {fmt(p50)} ns, p99 {fmt(p99)} ns, pwqs visited/flush {fmt(pv)}")
        out.append("")
        out.append("**C1** (85f0d8e: up to 65x on fio fsync; mechanism: lock cycles per flush "
                   "nr_cpu_ids -> nr_pools):")
        for vn in ("base", "flush=coalesce", "flush=active", "kwq"):
            f = pick(data, "s6", "flushes_per_sec", vn, ncpu=big)
            lc = pick(data, "s6", "lock_cycles_per_flush", vn, ncpu=big)
            if f is None:
                continue
            out.append(f"- S6 {vn}: {fmt(f)} flushes/s, lock cycles/flush {fmt(lc)}")
        out.append("")
    return "\n".join(out)


def fidelity(data):
    """fwq's flush=each against the kernel's own workqueue of every
    non-default kernel, S4a idle flush in the same boot."""
    kerns = sorted({boot_kernel(k[0][0]) for k in data.groups} - {None})
    out = []
    for kern in kerns:
        ncpus = sorted({k[0][1] for k in data.groups
                        if boot_kernel(k[0][0]) == kern and k[0][2] == "s4a"})
        if not ncpus:
            continue
        if not out:
            out = ["## Fidelity: fwq flush=each against the kernel's own workqueue", "",
                   "S4a idle flush, the same boot. On 6.12 kwq is the design the seed "
                   "series starts from (one pwq per possible CPU for unbound workqueues, "
                   "a flush walk that locks every pwq's pool), which fwq's "
                   f"`{BASE}` re-implements; fwq/kwq near 1.00x says the clone costs "
                   "what the original does.", "",
                   "| kernel | possible CPUs | type | fwq each flushes/s | kwq flushes/s | "
                   "fwq/kwq | fwq pwqs/flush | fwq lock cyc/flush |",
                   "|---|---|---|---|---|---|---|---|"]
        for n in ncpus:
            for t in ("percpu", "unbound"):
                e = pick(data, "s4a", "flushes_per_sec", "base", t, ncpu=n, kern=kern)
                k = pick(data, "s4a", "flushes_per_sec", "kwq", t, ncpu=n, kern=kern)
                pv = pick(data, "s4a", "pwqs_visited_per_flush", "base", t, ncpu=n, kern=kern)
                lc = pick(data, "s4a", "lock_cycles_per_flush", "base", t, ncpu=n, kern=kern)
                if e is None and k is None:
                    continue
                out.append(f"| {kern} | {n} | {t} | {fmt(e)} | {fmt(k)} | {ratio(e, k)} | "
                           f"{fmt(pv)} | {fmt(lc)} |")
    if out:
        out.append("")
    return "\n".join(out)


def gnuplot(plotdir, name, script):
    path = os.path.join(plotdir, name + ".gp")
    with open(path, "w") as f:
        f.write(script)
    r = subprocess.run(["gnuplot", path], cwd=plotdir, capture_output=True, text=True)
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
            for i, sc in enumerate(SCOPES):
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
- The floor (uncontended lock+list_add+unlock, atomic test-and-set) is
  measured in every run; the *_x_floor fields in results.jsonl express the
  latencies in that unit, which is comparable across machines.
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
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    runs = load(os.path.join(outdir, "results.jsonl"))
    if not runs:
        print("bench_report: no results in results.jsonl", file=sys.stderr)
        return 1
    data = Data(runs)
    tab = table(data)
    with open(os.path.join(outdir, "table.txt"), "w") as f:
        f.write(tab + "\n")
    print(tab)
    made = plots(data, outdir)
    cl = claims(data)
    fid = fidelity(data)
    if fid:
        cl += "\n\n" + fid
    print(cl)
    topo = OrderedDict()
    for r in runs:
        topo[r["label"]] = r["topology"]
    floors = defaultdict(list)
    for r in runs:
        floors[r["label"]].append(r["floor"]["lock_list_add_unlock_ns"])
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("# fwq_bench results\n\n")
        f.write(f"{len(runs)} runs. Boots:\n\n")
        for lab, t in topo.items():
            f.write(f"- `{lab}`: kernel {t['kernel']}, nr_cpu_ids {t['nr_cpu_ids']}, "
                    f"online CPUs {t['online_cpus']}, nodes {t['online_nodes']}, "
                    f"floor lock+list_add+unlock median {statistics.median(floors[lab]):.1f} ns\n")
        f.write("\nMedians over repetitions with [min-max]; /base = ratio to "
                f"`{BASE}`, /kwq = ratio to the kernel's own workqueue.\n\n")
        f.write(tab + "\n\n" + cl + "\n\n")
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
