#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trace-cost.sh [--rounds N] [--spec "S1 SPEC"] [--out DIR]: what fwq's
# tracepoints cost on the enqueue path. Builds fwq.ko and fwq_bench.ko
# again with FWQ_TRACE=n (no tracepoints) in a scratch copy of the tree and
# boots scripts/plans/trace-cost.plan with them added to the tree's own
# build. The guest runs fwq_bench S1 on the builds interleaved (events off,
# no tracepoints, events on, and no tracepoints again as an A/A control);
# this prints per build the median of enq_p50_ns and items_per_sec over
# every repetition, and the ratios to the build without tracepoints. Build
# the tree first (make). Output in DIR (default
# results/<timestamp>-trace-cost/): the guest's run (vm/results.txt: one
# "cost COND ROUND JSON" line per repetition) and summary.txt.
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP" || exit 2

rounds=5
spec=
out=
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=${2:-}; shift 2 || exit 2 ;;
	--spec) spec=${2:-}; shift 2 || exit 2 ;;
	--out) out=${2:-}; shift 2 || exit 2 ;;
	-h|--help) sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) fwq_die 2 "unknown argument $1" ;;
	esac
done
case "$rounds" in ''|*[!0-9]*|0) fwq_die 2 "--rounds needs a positive number" ;; esac
if [ ! -r src/fwq.ko ] || [ ! -r bench/fwq_bench.ko ]; then
	fwq_die 2 "build the tree first (make)"
fi
kdir=$(fwq_kdir) || fwq_die 2 "no kernel headers"
[ -n "$out" ] || out=$FWQ_TOP/results/$(date +%Y%m%d-%H%M%S)-trace-cost
mkdir -p "$out/ko" || fwq_die 2 "cannot create $out"
out=$(cd "$out" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -co --exclude-standard -z |
	grep -zvE '\.(o|ko|mod|mod\.c|cmd|symvers|order)$' |
	tar -c --null -T - | tar -x -C "$tmp"
fwq_log "building fwq.ko and fwq_bench.ko with FWQ_TRACE=n"
make -C "$kdir" M="$tmp" FWQ_TRACE=n FWQ_TESTS=n modules > "$out/build-notrace.log" 2>&1 ||
	fwq_die 2 "FWQ_TRACE=n build failed, see $out/build-notrace.log"
cp "$tmp/src/fwq.ko" "$out/ko/fwq_notrace.ko"
cp "$tmp/bench/fwq_bench.ko" "$out/ko/fwq_bench_notrace.ko"

append="fwqt.cost_rounds=$rounds"
[ -z "$spec" ] || append+=" fwqt.cost_spec=$(echo "$spec" | tr ' ' ',')"
# about 10 s per run under TCG; generous
scripts/vm-run.sh --preset small --plan trace-cost \
	--timeout $((120 + rounds * 4 * 60)) --out "$out/vm" --append "$append" \
	--ko "$out/ko/fwq_notrace.ko" --ko "$out/ko/fwq_bench_notrace.ko"
rc=$?

scripts/trace_cost_report.py "$out/vm/results.txt" > "$out/summary.txt"
cat "$out/summary.txt"
exit $rc
