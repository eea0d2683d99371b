#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""icount_report.py [--equal VARIANT] [--top N] [--jsonl FILE --label L]
ICOUNT.TXT RESULTS.TXT: the report of make icount (scripts/icount.sh).
Pairs the plugin's phases (tools/icount/fwq-icount.c) with the guest's
"icount phase ..." lines in order, turns
the blocks' addresses into functions with the guest's own kallsyms (in
RESULTS.TXT), and prints guest instructions per operation (the median
operation's where the loop brackets each one, a kick's queue call or a
queue and flush, else the loop's mean): one table per
operation and workqueue type (median over the repetitions, the ratio to
the kernel's own workqueue), then for the fwq variant that copies the
booted kernel's design (--equal, from FWQ_K_DESIGN in scripts/kernels/)
the functions where it and kwq spend their instructions. A phase run with
an affinity scope other than the default is its type and scope
("unbound scope=cache"). --jsonl appends one JSON object per operation,
type and target to FILE, labelled L, for make bench (bench/bench.sh,
bench/bench_report.py): the medians of instructions and memory accesses
per operation with their min and max, the events, and for a flush the
instructions of the flush function itself ("entry": __flush_workqueue(),
fwq_flush_workqueue(), without the walk and what they call: the blocks in
the span "entry=ADDR/SIZE" of the guest's phase line gives, else those
the guest's kallsyms name)."""
import base64
import bisect
import gzip
import json
import re
import statistics
import sys
from collections import OrderedDict, defaultdict


# the plugin's event counters, in its order (fwq-icount.c, ev_names)
EVENTS = ["tbs", "irq_on", "irq_off", "locked", "indirect", "xpage", "serial",
          "mem"]
# its counts of a whole loop, not divided by the operations (pages=on)
LOOP = ["loop_dpages", "loop_cpages"]
# the segments' (one an operation, where the guest brackets each with the
# plugin's resume and pause markers): their number, and the medians of
# their instructions and memory accesses
SEGS = ["segs", "seg_insns", "seg_mem"]


def read_icount(path):
    phases, cur = [], None
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "phase":
                ev = dict(x.split("=", 1) for x in w if "=" in x)
                cur = {"insns": int(w[5]), "blocks": {},
                       "ev": {k: int(v) for k, v in ev.items() if k in EVENTS},
                       "loop": {k: int(v) for k, v in ev.items() if k in LOOP},
                       "seg": {k: int(v) for k, v in ev.items() if k in SEGS},
                       "full": "pages_full" in ev}
                phases.append(cur)
            elif cur is not None and len(w) in (2, 3):
                # ADDR COUNT [MEM]: an older plugin wrote no MEM
                cur["blocks"][int(w[0], 16)] = (int(w[1]),
                                                int(w[2]) if len(w) == 3 else None)
    return phases


def read_results(path):
    labels, b64, ins = [], [], False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip().replace("\r", "")
            if line == "icount-ksyms-begin":
                ins = True
            elif line == "icount-ksyms-end":
                ins = False
            elif ins:
                b64.append(line)
            elif line.startswith("icount phase "):
                kv = dict(re.findall(r"(\w+)=(\S+)", line))
                labels.append(kv)
    syms = []
    if b64:
        text = gzip.decompress(base64.b64decode("".join(b64))).decode()
        for s in text.splitlines():
            w = s.split()
            if len(w) >= 3:
                name = w[2] + (" " + w[3] if len(w) > 3 else "")
                syms.append((int(w[0], 16), name))
    syms.sort()
    return labels, syms


def symbolize(addr, addrs, syms):
    i = bisect.bisect_right(addrs, addr) - 1
    if i < 0 or addr - addrs[i] > 1 << 20:
        return "?"
    return syms[i][1]


def median_rows(names, table, optyp, keys, fmt):
    """One table row per target: the median of each key's counts, "-" for none."""
    for v in names:
        e = table[optyp + (v,)]
        cells = [format(statistics.median(e[x]), fmt) if x in e else "-"
                 for x in keys]
        print(f"| {v} | " + " | ".join(cells) + " |")
    print()


# the flush function proper, whose own instructions are a flush's entry
ENTRY = ("__flush_workqueue", "fwq_flush_workqueue [fwq]")


def write_jsonl(path, label, runs, evs, funcs, mfuncs, entries):
    """One JSON object per (op, type, target) to path (appended)."""
    def mm(v):
        return {"median": round(statistics.median(v), 1), "min": round(min(v), 1),
                "max": round(max(v), 1)}

    with open(path, "a") as f:
        for key, r in runs.items():
            op, typ, name = key
            t, _, sc = typ.partition(" scope=")
            obj = {"schema": "fwq_icount/1", "label": label, "op": op, "type": t,
                   "scope": sc or "default", "target": "kwq" if name == "kwq" else "fwq",
                   "variant": "kernel" if name == "kwq" else name, "reps": len(r),
                   "insns": mm(r)}
            if "mem" in evs[key]:
                obj["mem"] = mm(evs[key]["mem"])
            obj["events"] = {e: round(statistics.median(v), 2) for e, v in evs[key].items()}
            if op == "flush" and entries[key]["insns"]:
                obj["entry_insns"] = round(statistics.median(entries[key]["insns"]), 1)
                obj["entry_mem"] = round(statistics.median(entries[key]["mem"]), 1)
            elif op == "flush":
                for fn in ENTRY:
                    if fn in funcs[key]:
                        obj["entry_insns"] = round(statistics.median(funcs[key][fn]), 1)
                        if fn in mfuncs[key]:
                            obj["entry_mem"] = round(statistics.median(mfuncs[key][fn]), 1)
            f.write(json.dumps(obj, sort_keys=False) + "\n")


def main(argv):
    top = 12
    equal = []
    if "--top" in argv:
        i = argv.index("--top")
        top = int(argv[i + 1])
        del argv[i:i + 2]
    if "--equal" in argv:
        i = argv.index("--equal")
        equal = [argv[i + 1]]
        del argv[i:i + 2]
    jsonl = label = None
    for opt in ("--jsonl", "--label"):
        if opt in argv:
            i = argv.index(opt)
            if opt == "--jsonl":
                jsonl = argv[i + 1]
            else:
                label = argv[i + 1]
            del argv[i:i + 2]
    if len(argv) != 3:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    phases = read_icount(argv[1])
    labels, syms = read_results(argv[2])
    if len(phases) != len(labels):
        print(f"icount_report: {len(phases)} plugin phases, {len(labels)} guest "
              "phases: not the same run?", file=sys.stderr)
        return 1
    addrs = [a for a, _ in syms]
    runs = defaultdict(list)
    evs = defaultdict(lambda: defaultdict(list))
    loops = defaultdict(lambda: defaultdict(list))
    full = set()
    entries = defaultdict(lambda: defaultdict(list))
    funcs = defaultdict(lambda: defaultdict(list))
    mfuncs = defaultdict(lambda: defaultdict(list))
    have_mem = False
    for ph, lab in zip(phases, labels):
        n = int(lab["n"])
        sc = lab.get("scope", "default")
        key = (lab["op"], lab["type"] + (f" scope={sc}" if sc != "default" else ""),
               "kwq" if lab["target"] == "kwq" else lab["variant"])
        # an operation's count: the median segment where the loop has one
        # an operation, else the loop's mean
        seg = ph["seg"] if ph["seg"].get("segs") else None
        runs[key].append(seg["seg_insns"] if seg else ph["insns"] / n)
        for e, c in ph["ev"].items():
            evs[key][e].append(seg["seg_mem"] if seg and e == "mem" else c / n)
        for e, c in ph["loop"].items():
            loops[key][e].append(c)
        if ph["full"]:
            full.add(key)
        # the flush function's own blocks, where the guest said where it lies
        if "entry" in lab:
            a, _, z = lab["entry"].partition("/")
            lo, hi = int(a, 16), int(a, 16) + int(z or "0", 16)
            inside = [(c, m) for b, (c, m) in ph["blocks"].items() if lo <= b < hi]
            entries[key]["insns"].append(sum(c for c, _ in inside) / n)
            entries[key]["mem"].append(sum(m or 0 for _, m in inside) / n)
        per = defaultdict(int)
        mper = defaultdict(int)
        for a, (c, m) in ph["blocks"].items():
            fn = symbolize(a, addrs, syms)
            per[fn] += c
            if m is not None:
                mper[fn] += m
                have_mem = True
        # a function this repetition did not run counts 0 in it, so that
        # one repetition's interrupt or contention is not the median
        reps = len(runs[key])
        for table, counts in ((funcs[key], per), (mfuncs[key], mper)):
            for fn in table:
                if fn not in counts:
                    table[fn].append(0.0)
            for fn, c in counts.items():
                table[fn] = [0.0] * (reps - 1 - len(table[fn])) + \
                    table[fn] + [c / n]
    groups = OrderedDict()
    for key in runs:
        groups.setdefault(key[:2], []).append(key[2])
    if jsonl:
        write_jsonl(jsonl, label, runs, evs, funcs, mfuncs, entries)
    print("# Guest instructions per operation (make icount)\n")
    print("Counted by the QEMU plugin on the vCPU that runs the loop, between two "
          "markers; median over the repetitions [min-max]. Interrupts that hit "
          "the loop count too.\n")
    for (op, typ), names in groups.items():
        k = statistics.median(runs[(op, typ, "kwq")]) if (op, typ, "kwq") in runs else None
        print(f"## {op}, {typ}\n")
        print("| target | insns/op [min-max] | /kwq |")
        print("|---|---|---|")
        for v in names:
            r = runs[(op, typ, v)]
            m = statistics.median(r)
            ratio = f"{m / k:.2f}x" if k else "-"
            print(f"| {v} | {m:.0f} [{min(r):.0f}-{max(r):.0f}] | {ratio} |")
        print()
        names_ev = [e for e in EVENTS if any(e in evs[(op, typ, v)] for v in names)]
        if names_ev:
            print("TCG events per operation (median), the ones that cost TCG more "
                  "than an instruction (tools/icount/fwq-icount.c):\n")
            print("| target | " + " | ".join(names_ev) + " |")
            print("|---|" + "---|" * len(names_ev))
            median_rows(names, evs, (op, typ), names_ev, ".1f")
        if any(loops[(op, typ, v)] for v in names):
            print("Distinct guest pages (4 KiB, virtual) the whole loop touched, "
                  "median (make icount PAGES=1): data, the loads' and stores'; "
                  "code, the pages its blocks began on." +
                  (" A set filled up: those counts stop at its size."
                   if any((op, typ, v) in full for v in names) else "") +
                  "\n")
            print("| target | data pages | code pages |")
            print("|---|---|---|")
            median_rows(names, loops, (op, typ), LOOP, ".0f")
        for v in equal:
            if (op, typ, v) not in runs or not k:
                continue
            a, b = funcs[(op, typ, v)], funcs[(op, typ, "kwq")]
            ma, mb = mfuncs[(op, typ, v)], mfuncs[(op, typ, "kwq")]

            def med(t, f):
                return statistics.median(t[f]) if f in t else 0

            if have_mem:
                print(f"Where {v} and kwq spend them ({op}, {typ}; instructions "
                      "and memory accesses per operation, median):\n")
                print(f"| function | {v} insns | kwq insns | {v} mem | kwq mem |")
                print("|---|---|---|---|---|")
            else:
                print(f"Where {v} and kwq spend them ({op}, {typ}; insns/op, median):\n")
                print(f"| function | {v} | kwq |")
                print("|---|---|---|")
            rows = sorted(set(a) | set(b), key=lambda f: (-max(med(a, f), med(b, f)), f))
            for f in rows[:top]:
                cells = f"| {f} | {med(a, f):.1f} | {med(b, f):.1f} |"
                if have_mem:
                    cells += f" {med(ma, f):.1f} | {med(mb, f):.1f} |"
                print(cells)
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
