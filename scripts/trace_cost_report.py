#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace_cost_report.py RESULTS: the summary of a trace-cost.plan run.

RESULTS is the guest's results.txt, one "cost COND ROUND JSON" line per
fwq_bench repetition (scripts/trace-cost.sh). Per build: the median of
enq_p50_ns over every repetition and its ratio to the build without
tracepoints ("none"), the median [min-max] over the rounds of the
per-round ratio to "none" (each round runs every build once, back to
back), and the same for items_per_sec.
"""

import json
import statistics
import sys

CONDS = ("off", "none", "on", "none2")
LEGEND = ("off: fwq.ko, fwq events disabled; none: FWQ_TRACE=n; on: every "
          "fwq event enabled;\nnone2: FWQ_TRACE=n again (the A/A control: "
          "the noise between two runs of one build)")


def main():
    runs = {}
    with open(sys.argv[1], errors="replace") as f:
        for line in f:
            w = line.split(" ", 3)
            if len(w) < 4 or w[0] != "cost" or not w[3].startswith("{"):
                continue
            m = json.loads(w[3])["metrics"]
            runs.setdefault(w[1], {}).setdefault(int(w[2]), []).append(
                (m["enq_p50_ns"], m["items_per_sec"]))
    if "none" not in runs:
        sys.exit("trace_cost_report: no runs of the build without "
                 "tracepoints")

    def med(cond, k, rnd=None):
        v = [x[k] for r, xs in runs.get(cond, {}).items()
             if rnd is None or r == rnd for x in xs]
        return statistics.median(v) if v else None

    print("build   reps  enq_p50_ns  ratio  per-round ratio         "
          "items/s  ratio  per-round ratio")
    for cond in CONDS:
        if cond not in runs:
            continue
        n = sum(len(xs) for xs in runs[cond].values())
        line = f"{cond:6} {n:5}"
        for k, width in ((0, 11), (1, 9)):
            v = med(cond, k)
            pr = [med(cond, k, r) / med("none", k, r) for r in runs[cond]
                  if r in runs["none"]]
            line += (f" {v:{width}.0f} {v / med('none', k):6.3f}  "
                     f"{statistics.median(pr):.3f} "
                     f"[{min(pr):.3f}-{max(pr):.3f}]")
        print(line)
    print(LEGEND)


if __name__ == "__main__":
    main()
