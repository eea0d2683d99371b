#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-xfs.sh [--threads N] [--seconds S] [--reps R] [--possible "P..."]
#              [--timeout S] [--out DIR]
#
# make bench-xfs: an fsync-heavy load on XFS in a guest of KERNEL (default
# 6.1), on the stock xfs.ko and on the shimmed one with xfs-cil/* on each
# flush design and each wake design (scripts/plans/bench-xfs.plan; the
# designs are interleaved over R rounds, default 3). One boot per
# possible-CPU count P (default 192), on the timing preset (2 vCPUs).
# The load is tests/fsync-load/fsync_load.c, built static here, N threads
# (default 8) each appending 4 KiB and calling fsync for S seconds
# (default 5). The disk is a sparse image made here with mkfs.xfs, the
# program in it (mkfs.xfs -p), attached with vm-run.sh --disk.
#
# Writes OUT (default results/bench-xfs-<timestamp>/): results.jsonl, one
# line per run (possible_cpus added), table.md (medians per design, the
# min..max over the rounds, ratios to the stock module of the same boot)
# and one vm-run directory per boot (pP/); under it, per design, the p50
# and p99 latency over stock's of the same round, paired, with 95%
# order-statistic intervals and their coverage. TCG timing is noisy: read
# the ratios within one boot, never a time across boots.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

threads=8
secs=5
reps=3
possible=192
timeout=0
out=
while [ $# -gt 0 ]; do
	case "$1" in
	--threads) threads=${2:-}; shift 2 ;;
	--seconds) secs=${2:-}; shift 2 ;;
	--reps) reps=${2:-}; shift 2 ;;
	--possible) possible=${2:-}; shift 2 ;;
	--timeout) timeout=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	-h|--help) sed -n '4,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) fwq_die 2 "unknown argument $1 (--help)" ;;
	esac
done
for v in "$threads" "$secs" "$reps" "$timeout" $possible; do
	case "$v" in
	''|*[!0-9]*) fwq_die 2 "not a whole number: '$v'" ;;
	esac
done
if [ "$threads" -lt 1 ] || [ "$secs" -lt 1 ] || [ "$reps" -lt 1 ]; then
	fwq_die 2 "--threads, --seconds and --reps must be at least 1"
fi
command -v mkfs.xfs > /dev/null || fwq_die 2 "no mkfs.xfs (scripts/deps.sh with FWQ_DEPS_PKGS=xfsprogs)"

start=$(fwq_now)
fwq_module_stage xfs
# the guest's modules: the kernel's own in load order as NN-NAME.ko, fwq
# and both xfs.ko
fwq_stage_guest bench-xfs
cp "$FWQ_TOP/src/fwq.ko" "$tmp/mods/fwq.ko"
cp "$FWQ_MB_STOCK" "$tmp/mods/xfs-stock.ko"
cp "$FWQ_MB_SHIM" "$tmp/mods/xfs-shim.ko"

# the load program, static, on a fresh XFS image
gcc -O2 -Wall -static -pthread -o "$tmp/fsync_load" \
	"$FWQ_TOP/tests/fsync-load/fsync_load.c" || fwq_die 2 "cannot build fsync_load"
printf '%s\n' /dev/null "0 0" "d--755 0 0" \
	"fsync_load ---755 0 0 $tmp/fsync_load" '$' > "$tmp/proto"
truncate -s 1G "$tmp/xfs.img"
mkfs.xfs -q -p "$tmp/proto" "$tmp/xfs.img" || fwq_die 2 "mkfs.xfs failed"

ndesigns=9
if [ "$timeout" -eq 0 ]; then
	timeout=$((180 + reps * ndesigns * (secs + 15)))
fi
: > "$out/results.jsonl"
rc=0
for p in $possible; do
	cp --sparse=always "$tmp/xfs.img" "$tmp/disk.img"
	FWQ_VM_QUIET=1 "$FWQ_TOP/scripts/vm-run.sh" --preset timing \
		--plan bench-xfs --modules "$tmp/mods" --disk "$tmp/disk.img" \
		--timeout "$timeout" --out "$out/p$p" \
		--append "possible_cpus=$p xfsb.threads=$threads xfsb.secs=$secs xfsb.reps=$reps" ||
		rc=1
	tr -d '\r' < "$out/p$p/results.txt" | grep '^{"design"' |
		sed "s/^{/{\"possible_cpus\":$p,/" >> "$out/results.jsonl" || :
done
rm -f "$tmp/disk.img"

python3 - "$out/results.jsonl" "$FWQ_TOP/bench" > "$out/table.md" <<'EOF'
import json, statistics, sys

sys.path.insert(0, sys.argv[2])
from bench_report import median_ci, fmt_ci

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("# make bench-xfs\n")
print("Medians over the rounds, [min..max] below them; ratios are to the")
print("stock xfs.ko's median in the same boot (fsyncs/s: higher is better,")
print("latencies: lower is better). Per flush: xfs-cil/vda's pwqs visited")
print("and lock cycles over its flushes during the load (fwq's debugfs stats).\n")
for p in sorted({r["possible_cpus"] for r in rows}):
    runs = [r for r in rows if r["possible_cpus"] == p]
    designs = []
    for r in runs:
        if r["design"] not in designs:
            designs.append(r["design"])
    t = runs[0]["threads"]
    print(f"## possible_cpus={p}, {t} threads, {len(runs)} runs\n")
    print("| design | runs | fsyncs/s | x stock | p50 us | x stock | p99 us | x stock | max us | flushes | pwqs/flush | locks/flush |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    base = {}
    for d in designs:
        rs = [r for r in runs if r["design"] == d]
        med = {k: statistics.median(r[k] for r in rs)
               for k in ("fsyncs_per_sec", "p50_us", "p99_us", "max_us")}
        if d == "stock":
            base = med
        def cell(k):
            lo = min(r[k] for r in rs)
            hi = max(r[k] for r in rs)
            return f"{med[k]:.0f} [{lo:.0f}..{hi:.0f}]"
        def ratio(k):
            return f"{med[k] / base[k]:.2f}" if base.get(k) else "-"
        fl = sum(r.get("cil_flushes", 0) for r in rs)
        pv = sum(r.get("cil_pwqs_visited", 0) for r in rs)
        lc = sum(r.get("cil_lock_cycles", 0) for r in rs)
        per = (f"{fl // len(rs)} | {pv / fl:.2f} | {lc / fl:.2f}" if fl
               else "- | - | -")
        print(f"| {d} | {len(rs)} | {cell('fsyncs_per_sec')} | {ratio('fsyncs_per_sec')} "
              f"| {cell('p50_us')} | {ratio('p50_us')} | {cell('p99_us')} | {ratio('p99_us')} "
              f"| {med['max_us']:.0f} | {per} |")
    print()
    # each round ran every design once: pair a design's run with stock's
    # of the same round
    stock = {r["round"]: r for r in runs if r["design"] == "stock"}
    print("Paired by round: the median over the rounds of the design's")
    print("latency over the stock module's in the same round, with its")
    print("95% order-statistic interval and that interval's coverage")
    print("(bench/bench_report.py's median_ci; ~: the interval holds 1.00).\n")
    print("| design | pairs | p50 x stock [95%], coverage | p99 x stock [95%], coverage |")
    print("|---|---|---|---|")
    for d in designs:
        if d == "stock":
            continue
        prs = [(r, stock[r["round"]]) for r in runs
               if r["design"] == d and r["round"] in stock]
        cis = [median_ci([v[k] / b[k] for v, b in prs if b[k]])
               for k in ("p50_us", "p99_us")]
        print(f"| {d} | {len(prs)} | {fmt_ci(cis[0])} | {fmt_ci(cis[1])} |")
    print()
EOF
cat "$out/table.md"
fwq_log "bench-xfs: $(wc -l < "$out/results.jsonl") runs in $(fwq_elapsed "$start") s; $out"
exit $rc
