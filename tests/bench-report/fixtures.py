# SPDX-License-Identifier: GPL-2.0
"""The fixture suites of test_bench_report.py, as fwq_bench/1 runs.

Each fixture is a results.jsonl under fixtures/NAME/, in the layout and
key order fwq_bench writes (bench/main.c report_run(), bench/scenarios.c
bench_scenario_report()), with hand-picked per-repetition values: a
variant's k-th run is base's k-th run times the k-th factor of its list,
so every ratio, and so every interval and verdict, is known.
`python3 fixtures.py` writes them; test_bench_report.py checks that the
committed files are what this writes.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = "wake=locked,kicked_list=off,flush=each"
WAKE = [BASE, "wake=wakeq,kicked_list=on,flush=each", "wake=claim,kicked_list=off,flush=each",
        "wake=pick,kicked_list=off,flush=each"]
FLUSH = [BASE, "wake=locked,kicked_list=off,flush=coalesce",
         "wake=locked,kicked_list=off,flush=active",
         "wake=locked,kicked_list=off,flush=lockless"]


def run(scen, variant, rep, reps, metrics, label="enq", scope="cache", type_="unbound",
        ncpu=2, kernel="6.1.0-57-amd64", threads=2, items=20000, batch=0, wqs=1,
        work_us=0, nodes=2):
    """One run's JSON object; variant None: the kernel's own workqueue."""
    fwq = variant is not None
    r = {"schema": "fwq_bench/1", "scenario": scen, "target": "fwq" if fwq else "kwq",
         "type": type_}
    if fwq:
        r["scope"], r["variant"] = scope, variant
    else:
        r.update(scope="n/a", variant="kernel",
                 kwq_pwqs="6.1: per-node pwqs for unbound, per-cpu otherwise")
    r.update(strict=0, label=label, threads=threads, cpus="0-1", placement="round_robin_bound",
             items_per_thread=items, batch=batch, max_active=0, work_us=work_us, wqs=wqs,
             sample_every=8, rep=rep, reps=reps,
             spec=f"scenario={scen} label={label}")
    r["topology"] = {"nr_cpu_ids": ncpu, "possible_cpus": ncpu, "present_cpus": ncpu,
                     "online_cpus": 2, "nr_node_ids": nodes, "online_nodes": nodes,
                     "kernel": kernel, "fwq_bench_version": "0.0-test"}
    r["floor"] = {"lock_list_add_unlock_ns": 60.0, "test_and_set_ns": 20.0,
                  "clock_read_ns": 50.0, "mutex_pair_ns": 55.0, "spin_irq_pair_ns": 57.0,
                  "wake_remote_ns": 2100.0}
    probe = {"cpus": [0, 1], "pass_mns": [60000, 61000], "window_us": [2000, 2000],
             "stolen_us": [0, 0], "max_gap_us": [3, 4]}
    r["host"] = {"probe_before_x_best": 1.1, "probe_after_x_best": 1.1,
                 "slow_above_stolen_permille": 250, "slow": 0, "redone": 0, "redo": 3,
                 "counters": 0, "redo_budget_out": 0, "probe_before": probe,
                 "probe_after": probe}
    r["metrics"] = metrics
    r["text"] = "test_workqueue: fixture"
    return r


def s1_metrics(items, p95):
    """S1's metrics: items/s and the queue call's p95 (p50, p99 from it)."""
    return {"elapsed_ns": 100000000, "ops": items // 10, "items_per_sec": items,
            "rate_timing": "batched", "batched_ops": items // 10,
            "per_thread_ops_per_sec": items // 2, "items_per_sec_wall": items,
            "enq_p50_ns": p95 // 2, "enq_p95_ns": p95, "enq_p99_ns": p95 * 2,
            "wakeups_per_item": None, "wakeups_under_lock_per_item": None}


def flush_metrics(rate, p50, pwqs, cycles):
    return {"elapsed_ns": 100000000, "ops": rate // 10, "flushes_per_sec": rate,
            "rate_timing": "batched", "batched_ops": rate // 10,
            "per_thread_ops_per_sec": rate, "flushes_per_sec_wall": rate,
            "flush_p50_ns": p50, "flush_p99_ns": p50 * 3,
            "pwqs_visited_per_flush": pwqs, "lock_cycles_per_flush": cycles}


def times(x, f):
    """x times f, rounded: the fixtures' values are exact for their factors."""
    return int(round(x * f))


def s1_suite(reps, scopes, factors, wake=WAKE, kwq=True):
    """bench.sh's S1 order: per repetition, per scope, every wake variant,
    then kwq. factors[(scope, variant)] = ([items/s factor per rep],
    [p95 factor per rep]) against base; variants without one run as base."""
    out = []
    for k in range(reps):
        base_items, base_p95 = 100000 + 1000 * k, 8000 + 100 * k
        for sc in scopes:
            for v in wake:
                fi, fp = factors.get((sc, v), ([1.0] * reps, [1.0] * reps))
                out.append(run("s1", v, k, reps, s1_metrics(times(base_items, fi[k]),
                                                            times(base_p95, fp[k])),
                               scope=sc))
        if kwq:
            out.append(run("s1", None, k, reps, s1_metrics(base_items, base_p95)))
    return out


PICK, WAKEQ = WAKE[3], WAKE[1]
UP12 = [1.02, 1.03, 1.04, 1.05, 1.055, 1.06, 1.08, 1.09, 1.10, 1.11, 1.12, 1.13]
DOWN12 = [0.90, 0.85, 0.88, 0.93, 0.86, 0.91, 0.87, 0.94, 0.89, 0.92, 0.95, 0.84]
FLAT12 = [0.99, 1.01, 0.98, 1.02, 1.00, 0.97, 1.03, 0.995, 1.005, 0.985, 1.015, 0.975]
MIXED12 = [1.05, 0.95, 1.04, 0.96, 1.03, 0.97, 1.02, 0.98, 1.01, 0.99, 1.06, 0.94]


def fix_s1_holm():
    """12 repetitions, scopes cpu and system: 8 verdict cells (A2 and
    A2-wakeq, items/s and p95 in 2 scopes), 7 of them clear; the primary
    ones are items/s in system (A2 reproduced, A2-wakeq not shown), the
    other 6 secondary."""
    # wakeq's factors over base are pick's times wakeq/pick's
    wq = {}
    f = {("system", PICK): (UP12, DOWN12),
         ("cpu", PICK): (FLAT12, FLAT12)}
    # wakeq/pick: system items/s mixed (not shown), system p95 above 1.0
    # (contradicted: v3 over v5 claims lower); cpu items/s above, p95 below
    wq[("system", WAKEQ)] = ([a * b for a, b in zip(UP12, MIXED12)],
                             [a * b for a, b in zip(DOWN12, UP12)])
    wq[("cpu", WAKEQ)] = ([a * b for a, b in zip(FLAT12, [x + 0.15 for x in UP12])],
                          [a * b for a, b in zip(FLAT12, DOWN12)])
    f.update(wq)
    return s1_suite(12, ["cpu", "system"], f)


UP7 = [1.06, 1.02, 1.09, 1.04, 1.12, 1.03, 1.08]


def fix_s1_seven():
    """7 repetitions, scope system: every pick/base items/s ratio above
    1.0, so the 95% interval is [x(1), x(7)], 98.4%, excluding 1.0; 2
    primary cells (A2's and A2-wakeq's items/s), so Holm reads the first
    at 97.5%, which 7 pairs reach. The p95 cells are secondary."""
    return s1_suite(7, ["system"], {("system", PICK): (UP7, [1 / x for x in UP7])})


def fix_s1_three():
    """3 repetitions: too few for any 95% interval."""
    return s1_suite(3, ["system"], {("system", PICK): (UP7[:3], [1 / x for x in UP7[:3]])})


PERCPU7 = [44.0, 40.0, 47.0, 42.0, 45.0, 41.0, 48.0]
UNBOUND7 = [15.0, 14.5, 16.0, 17.5, 14.0, 16.5, 18.0]


FLAT7 = [0.99, 1.02, 0.97, 1.01, 1.03, 0.98, 1.00]


def s4a_boot(label, kernel, active, kwq, coalesce=None):
    """One boot's S4a, 7 repetitions, per type: base, coalesce, active,
    lockless, kwq; active[type], kwq[type]: the factors over base per
    repetition, coalesce[type] coalesce's (default 1.5)."""
    out = []
    for k in range(7):
        for t in ("percpu", "unbound"):
            base_rate = 15000 + 100 * k
            for v in FLUSH:
                f = active[t][k] if v.endswith("active") else 2.0 if v.endswith("lockless") \
                    else (coalesce[t][k] if coalesce else 1.5) if v.endswith("coalesce") \
                    else 1.0
                pwqs = 0.0 if v.endswith("active") else 192.0
                cycles = 2.0 if v.endswith("coalesce") else 0.0 if v.endswith("active") else 192.0
                out.append(run("s4a", v, k, 7, flush_metrics(times(base_rate, f),
                                                             times(60000, 1 / f), pwqs, cycles),
                               label=label, type_=t, ncpu=192, scope="default", kernel=kernel))
            out.append(run("s4a", None, k, 7,
                           flush_metrics(times(base_rate, kwq[t][k]), 30000, None, None),
                           label=label, type_=t, ncpu=192, kernel=kernel))
    return out


def wait_metrics(m, p50, p99, share):
    """m with the flush-mutex wait fields (S4b, S5, S6)."""
    m = dict(m)
    m.update(flush_mutex_waits=3200, flush_mutex_wait_mean_ns=p50, flush_mutex_wait_p50_ns=p50,
             flush_mutex_wait_p99_ns=p99, flush_mutex_wait_share=share,
             flush_mutex_wait_by="fwq")
    return m


# the other flush scenarios of the default kernel's p192 boot: per
# scenario, its types and each variant's factor over base per repetition
# (rate metrics; a latency is base's divided by it)
MORE7 = [1.50, 1.40, 1.60, 1.45, 1.55, 1.35, 1.65]
LESS7 = [0.80, 0.85, 0.78, 0.83, 0.81, 0.84, 0.79]


def flush_more(label, kernel):
    """S4b (both types), S4c (both types), S5 and S6 of one boot, 7
    repetitions, variants base, coalesce, active, lockless and kwq:
    flush=active MORE7 over base in S4b, LESS7 in S4c unbound and about
    1.0 (FLAT7) in S4c per-cpu, S5's p50 1/MORE7 of base's, S6's coalesce
    MORE7; every other variant at base's."""
    out = []
    for k in range(7):
        for scen, types in (("s4b", ("percpu", "unbound")), ("s4c", ("percpu", "unbound")),
                            ("s5", ("unbound",)), ("s6", ("unbound",))):
            for t in types:
                for v in FLUSH + [None]:
                    f = 1.0
                    if v and v.endswith("active"):
                        f = {"s4b": MORE7[k], "s5": MORE7[k],
                             "s4c": LESS7[k] if t == "unbound" else FLAT7[k]}.get(scen, 1.0)
                    if v and v.endswith("coalesce") and scen == "s6":
                        f = MORE7[k]
                    rate, p50 = times(30000 + 100 * k, f), times(40000, 1 / f)
                    m = flush_metrics(rate, p50, 192.0 if v and not v.endswith("active")
                                      else 1.0, 2.0 if v and v.endswith("coalesce") else 192.0)
                    m["fsync_p99_ns"] = p50 * 4
                    if scen == "s4c":
                        m["enq_p50_ns"] = 900
                    if scen != "s4c":
                        m = wait_metrics(m, times(8000, 1 / f), times(90000, 1 / f),
                                         round(0.2 / f, 3))
                    if v is None:
                        for key in ("pwqs_visited_per_flush", "lock_cycles_per_flush"):
                            m[key] = None
                        if scen != "s4c":
                            m["flush_mutex_wait_by"] = "kprobe"
                    out.append(run(scen, v, k, 7, m, label=label, type_=t, ncpu=192,
                                   scope="default" if v else "n/a", kernel=kernel,
                                   threads=16 if scen != "s4c" else 2, items=200,
                                   work_us=50 if scen == "s5" else 0,
                                   wqs=4 if scen == "s6" else 1))
    return out


def fix_flush():
    """The p192 boot on the default kernel: S4a (B1's two cells), S4b
    (B2's), S4c (B3's four), S5 (B4's two) and S6 (C1's one); and the same
    boot's S4a on 7.3 (designs.txt: its design), whose headline rows set
    fwq's copy of 7.3's flush (coalesce) and active and lockless against
    7.3's own workqueue. 7 primary cells (B1 2, B2 2, B3 1, B4 1, C1 1),
    so Holm's first level is 99.29%, which takes 9 pairs: 7 give "not
    shown (n<9)". On 7.3, coalesce runs at FLAT7 over kwq's rate, and kwq
    at 1.5 times base. icount.jsonl: the counts of B1's, B2's and 7.3's
    idle flush paths."""
    out = s4a_boot("p192", "6.1.0-57-amd64", {"percpu": PERCPU7, "unbound": UNBOUND7},
                   {"percpu": [2.0] * 7, "unbound": [2.0] * 7})
    out += flush_more("p192", "6.1.0-57-amd64")
    kwq = {"percpu": [1.5] * 7, "unbound": [1.5] * 7}
    coal = {t: [1.5 * f for f in FLAT7] for t in kwq}
    out += s4a_boot("p192:7.3", "7.3.4+bpo-amd64", {"percpu": PERCPU7, "unbound": UNBOUND7},
                    kwq, coal)
    return out


def count(label, op, type_, target, variant, insns, mem, spread=0.01, entry=None):
    """One fwq_icount/1 object (tools/icount/icount_report.py --jsonl)."""
    def mm(x):
        return {"median": x, "min": round(x * (1 - spread), 1), "max": round(x * (1 + spread), 1)}

    c = {"schema": "fwq_icount/1", "label": label, "op": op, "type": type_, "scope": "default",
         "target": target, "variant": variant if target == "fwq" else "kernel", "reps": 3,
         "insns": mm(insns), "mem": mm(mem), "events": {"mem": mem}}
    if entry:
        c["entry_insns"], c["entry_mem"] = entry
    return c


def flush_counts():
    """The counts of the flush fixture: S4a at 192 (B1: base 10000
    instructions, active 400), S4b's queue+flush (B2: per-cpu, active
    makes more instructions than base while its timing is faster), S6's
    (C1: coalesce's queue+flush against base's, their ranges overlapping),
    and 7.3's idle flush: fwq's coalesce against kwq (0.896x
    instructions, outside 0.90-1.10), and active, faster than kwq and
    per-cpu with more instructions (flagged)."""
    out = []
    for t in ("percpu", "unbound"):
        out.append(count("p192", "flush", t, "fwq", FLUSH[0], 10000.0, 3500.0,
                         entry=(60.0, 41.0)))
        out.append(count("p192", "flush", t, "fwq", FLUSH[2], 400.0, 180.0))
        out.append(count("p192", "qflush", t, "fwq", FLUSH[0], 8000.0, 3000.0, spread=0.03))
        out.append(count("p192", "qflush", t, "fwq", FLUSH[2],
                         9000.0 if t == "percpu" else 7000.0, 2900.0, spread=0.03))
        out.append(count("p192:7.3", "flush", t, "fwq", FLUSH[1], 9624.0, 3470.0,
                         entry=(60.0, 41.0)))
        out.append(count("p192:7.3", "flush", t, "kwq", None, 10740.0, 3638.0,
                         entry=(41.0, 25.0)))
        # on 7.3, flush=active's timing is faster than kwq's (secondary,
        # reproduced) while per-cpu it makes more instructions: flagged
        out.append(count("p192:7.3", "flush", t, "fwq", FLUSH[2],
                         12000.0 if t == "percpu" else 900.0, 3000.0))
    out.append(count("p192", "qflush", "unbound", "fwq", FLUSH[1], 7900.0, 2950.0, spread=0.03))
    return "".join(json.dumps(c) + "\n" for c in out)


def fix_baseline():
    """A registry whose first wake design is claim: both families run
    wake=claim,kicked_list=off,flush=each, which is then the baseline."""
    claim = "wake=claim,kicked_list=off,flush=each"
    wake = [claim, BASE, WAKE[1], PICK]
    out = s1_suite(7, ["cache"], {("cache", BASE): (UP7, UP7)}, wake=wake, kwq=False)
    for k in range(7):
        for v in [claim, "wake=claim,kicked_list=off,flush=active"]:
            out.append(run("s4a", v, k, 7, flush_metrics(20000, 50000, 1.0, 1.0),
                           label="p8", type_="percpu", ncpu=8, scope="default"))
    return out


FIXTURES = {"s1-holm": fix_s1_holm, "s1-seven": fix_s1_seven, "s1-three": fix_s1_three,
            "flush": fix_flush, "baseline": fix_baseline}


# the other files of a fixture's folder, as bench.sh writes them
EXTRA_FILES = {"flush": {"designs.txt": "7.3 wake=pick,kicked_list=off,flush=coalesce\n",
                         "icount.jsonl": flush_counts}}


def files(name):
    """{file name: text} of fixture NAME's folder."""
    out = {"results.jsonl": "".join(json.dumps(r, separators=(",", ":")) + "\n"
                                    for r in FIXTURES[name]())}
    for fn, text in EXTRA_FILES.get(name, {}).items():
        out[fn] = text() if callable(text) else text
    return out


def folder(name):
    return os.path.join(HERE, "fixtures", name)


def main():
    for name in FIXTURES:
        os.makedirs(folder(name), exist_ok=True)
        for fn, text in files(name).items():
            with open(os.path.join(folder(name), fn), "w") as f:
                f.write(text)
            print(f"wrote {os.path.relpath(os.path.join(folder(name), fn))}", file=sys.stderr)


if __name__ == "__main__":
    main()
