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
    r["host"] = {"probe_before_x_best": 1.1, "probe_after_x_best": 1.1,
                 "slow_above_x_best": 1.25, "slow": 0, "redone": 0, "redo": 3,
                 "counters": 0, "redo_budget_out": 0}
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
    """12 repetitions, scopes cpu and cache: 8 verdict cells (A2 and
    A2-wakeq, items/s and p95 in 2 scopes), 7 of them clear."""
    # wakeq's factors over base are pick's times wakeq/pick's
    wq = {}
    f = {("cache", PICK): (UP12, DOWN12),
         ("cpu", PICK): (FLAT12, FLAT12)}
    # wakeq/pick: cache items/s mixed (not shown), cache p95 above 1.0
    # (contradicted: v3 over v5 claims lower); cpu items/s above, p95 below
    wq[("cache", WAKEQ)] = ([a * b for a, b in zip(UP12, MIXED12)],
                            [a * b for a, b in zip(DOWN12, UP12)])
    wq[("cpu", WAKEQ)] = ([a * b for a, b in zip(FLAT12, [x + 0.15 for x in UP12])],
                          [a * b for a, b in zip(FLAT12, DOWN12)])
    f.update(wq)
    return s1_suite(12, ["cpu", "cache"], f)


UP7 = [1.06, 1.02, 1.09, 1.04, 1.12, 1.03, 1.08]


def fix_s1_seven():
    """7 repetitions, scope cache: every pick/base items/s ratio above 1.0,
    so the 95% interval is [x(1), x(7)], 98.4%, excluding 1.0; 4 cells, so
    Holm reads the first at 98.75%, which 7 pairs cannot reach."""
    return s1_suite(7, ["cache"], {("cache", PICK): (UP7, [1 / x for x in UP7])})


def fix_s1_three():
    """3 repetitions: too few for any 95% interval."""
    return s1_suite(3, ["cache"], {("cache", PICK): (UP7[:3], [1 / x for x in UP7[:3]])})


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


def fix_flush():
    """The p192 boot's S4a on the default kernel, B1's two cells, and the
    same boot on 7.3 (designs.txt: its design), whose headline rows set
    fwq's copy of 7.3's flush (coalesce) and active and lockless against
    7.3's own workqueue: 8 verdict cells in all. On 7.3, coalesce runs at
    FLAT7 over kwq's rate, and kwq at 1.5 times base."""
    out = s4a_boot("p192", "6.1.0-57-amd64", {"percpu": PERCPU7, "unbound": UNBOUND7},
                   {"percpu": [2.0] * 7, "unbound": [2.0] * 7})
    kwq = {"percpu": [1.5] * 7, "unbound": [1.5] * 7}
    coal = {t: [1.5 * f for f in FLAT7] for t in kwq}
    out += s4a_boot("p192:7.3", "7.3.4+bpo-amd64", {"percpu": PERCPU7, "unbound": UNBOUND7},
                    kwq, coal)
    return out


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
EXTRA_FILES = {"flush": {"designs.txt": "7.3 wake=pick,kicked_list=off,flush=coalesce\n"}}


def files(name):
    """{file name: text} of fixture NAME's folder."""
    out = {"results.jsonl": "".join(json.dumps(r, separators=(",", ":")) + "\n"
                                    for r in FIXTURES[name]())}
    out.update(EXTRA_FILES.get(name, {}))
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
