#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""record_probes.py DIR NAME [NOTE]: keep the host probes of a make bench
run (DIR/results.jsonl) as the slow-host fixture fixtures/host-NAME/
(probes.jsonl: per run its boot, scenario, target and host block; NOTE,
how it was recorded, into fixtures/host-NAME/NOTE). test_bench_report.py's
HostProbe reads them: host-idle (nothing else running), host-loaded
(other jobs, or a busy loop, on the host's cores)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    src, name = argv[0], argv[1]
    out = os.path.join(HERE, "fixtures", f"host-{name}")
    rows = []
    with open(os.path.join(src, "results.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            h = r.get("host", {})
            if "probe_before" not in h:
                continue
            rows.append({"label": r["label"], "scenario": r["scenario"], "target": r["target"],
                         "host": h})
    if not rows:
        print(f"record_probes: {src}: no run with the probes' figures", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "probes.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    if len(argv) == 3:
        with open(os.path.join(out, "NOTE"), "w") as f:
            f.write(argv[2].rstrip("\n") + "\n")
    print(f"record_probes: {len(rows)} runs into {os.path.relpath(out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
