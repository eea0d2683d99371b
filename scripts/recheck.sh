#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recheck.sh DIR: judge a saved results folder again, booting nothing
# (make recheck DIR=...): after a change to how runs are judged, or to
# see a copied folder's verdicts. DIR is what the harness left under
# results/: one vm-run.sh --out directory, a make check folder (a lane's
# run in NAME/, another kernel's in K/NAME/), a make bench folder
# (bench-*/: its boots' vm-*/ and results.jsonl; run1/ .. runN/ with
# REPEAT=N), or results/ itself.
#
# Every guest run in DIR (a directory holding console.log and ktap.txt)
# is judged as vm-run.sh judged it (fwq_vm_judge in lib.sh): the badness
# scan of console.log (console-scan.sh; up to diag-at.txt's offset for a
# diagnosed guest) and the KTAP summary of ktap.txt (ktap-summary.sh),
# written anew into its badness.txt, report.txt, kcsan-foreign.txt and
# tests.txt. A diagnosed run saved before vm-run.sh kept diag-at.txt is
# skipped: its console holds the SysRq output asked for, which the scan
# would take for a crash. Every bench folder (results.jsonl) gets its
# report again (bench/bench_report.py: table.txt, summary.md, plots/),
# and a REPEAT=N folder its repeatability.md (--compare).
#
# Prints one line per test in make check's format: a run's KTAP tests as
# in its tests.txt, and "vm.PRESET.PLAN.console" for its console; a bench
# folder's "bench_report" (and "bench_compare"). DIR itself and a run in
# PRESET.PLAN/ keep those names; a run in P/PRESET.PLAN/ is named "P:..."
# (make check's own "6.12:..." for its 6.12/ folder), any other run or
# bench folder "PATH:..." (a bench boot's "vm-enq:..."). Ends with "N
# passed, N failed"; exit 1 when a test failed, 2 when DIR does not exist,
# cannot be written or holds nothing of the above. What a run does not
# keep (QEMU's exit code, the guest's verdict line, a timeout) is not
# judged again: its summary.txt keeps vm-run.sh's word on them.
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -ne 1 ] || [ -z "$1" ]; then
	fwq_die 2 "usage: make recheck DIR=results/FOLDER (or $0 DIR)"
fi
case "$1" in
-h|--help) sed -n '4,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
[ -e "$1" ] || fwq_die 2 "recheck: $1 does not exist"
[ -d "$1" ] || fwq_die 2 "recheck: $1 is not a folder"
top=$(cd "$1" && pwd)
# the judgement is written into the runs' own folders, as vm-run.sh did
[ -w "$top" ] || fwq_die 2 "recheck: $1 is not writable (its judgement is written into it): copy it first"

mapfile -t runs < <(find "$top" -name ktap.txt -printf '%h\n' | LC_ALL=C sort |
	while IFS= read -r d; do
		[ -f "$d/console.log" ] && printf '%s\n' "$d"
	done)
mapfile -t benches < <(find "$top" -name results.jsonl -printf '%h\n' | LC_ALL=C sort)
[ ${#runs[@]} -gt 0 ] || [ ${#benches[@]} -gt 0 ] ||
	fwq_die 2 "recheck: nothing to judge in $1: no guest run (console.log and ktap.txt, as vm-run.sh --out leaves) and no bench results (results.jsonl)"

# rel DIR: DIR's path below top ("." for top itself)
rel() {
	local r=${1#"$top"}

	r=${r#/}
	echo "${r:-.}"
}

# name_of RUN: how a run is named: PRESET.PLAN from its summary line
# (vm-run.sh's last), else from the guest's command line
name_of() {
	local n

	n=$(grep -a '^vm-run: ' "$1/summary.txt" 2>/dev/null | tail -n 1 |
		awk '{ sub(/:$/, "", $4); print $3 "." $4 }')
	if [ -z "$n" ] || [ "$n" = . ]; then
		n=$(tr -d '\r' < "$1/console.log" |
			sed -n 's/.* fwq\.preset=\([^ ]*\) fwq\.plan=\([^ ]*\).*/\1.\2/p' |
			head -n 1)
	fi
	echo "$n"
}

# show FILE PFX: FILE's test lines, their names under PFX (make check's show)
show() {
	sed -E "s/^(ok|not ok|skip) /\1 $2/" "$1"
}

# recheck_run RUN: judge one guest run again
recheck_run() {
	local run=$1 r name pfx at='' tmp

	r=$(rel "$run")
	name=$(name_of "$run")
	if [ -z "$name" ]; then
		fwq_tap_result 1 "$r:vm" "no summary.txt or guest command line names its preset and plan" || :
		return
	fi
	# the test name prefix: none for a run named as make check names it
	# (top itself, PRESET.PLAN/), "K:" for K/PRESET.PLAN/, else "PATH:"
	case "$r" in
	.|"$name") pfx= ;;
	*/"$name") pfx=${r%/"$name"}: ;;
	*) pfx=$r: ;;
	esac
	if [ "$r" = "$name" ]; then echo "# $r"; else echo "# $r: $name"; fi
	if [ -s "$run/diag.txt" ]; then
		if [ ! -s "$run/diag-at.txt" ]; then
			echo "skip ${pfx}vm.$name # diagnosed guest saved without diag-at.txt: not judged again"
			fwq_tap_skipped=$((fwq_tap_skipped + 1))
			return
		fi
		read -r at < "$run/diag-at.txt"
	fi
	fwq_vm_judge "$run" "$name" "$at"
	tmp=$(mktemp)
	show "$run/tests.txt" "$pfx" | tee "$tmp"
	fwq_tap_count "$tmp"
	rm -f "$tmp"
	fwq_show_badness "$run"
	[ -s "$run/kcsan-foreign.txt" ] &&
		echo "# $(grep -c . "$run/kcsan-foreign.txt") KCSAN report(s) with no fwq frame, not counted (kcsan-foreign.txt)"
	if [ -s "$run/badness.txt" ]; then
		fwq_tap_result 1 "${pfx}vm.$name.console" "kernel badness on the console (see badness.txt)" || :
	else
		fwq_tap_result 0 "${pfx}vm.$name.console"
	fi
}

# recheck_bench BENCH: the report of one bench folder again
recheck_bench() {
	local b=$1 r pfx log rc=0

	r=$(rel "$b")
	pfx=
	[ "$r" = . ] || pfx=$r:
	log=$(mktemp)
	echo "# $b: bench results"
	python3 "$FWQ_TOP/bench/bench_report.py" "$b" > "$log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		grep -E '^(Verdict|bench_report: wrote)' "$log" | sed 's/^/# /'
	else
		tail -n 10 "$log" | sed 's/^/# /'
	fi
	rm -f "$log"
	fwq_tap_result $rc "${pfx}bench_report" "$([ $rc -eq 0 ] || echo "exit $rc")" || :
}

# recheck_compare TOP RUN...: a REPEAT=N folder's repeatability.md again
recheck_compare() {
	local t=$1 r pfx log rc=0

	shift
	r=$(rel "$t")
	pfx=
	[ "$r" = . ] || pfx=$r:
	log=$(mktemp)
	python3 "$FWQ_TOP/bench/bench_report.py" --compare "$t" "$@" > "$log" 2>&1 || rc=$?
	[ $rc -eq 0 ] || tail -n 10 "$log" | sed 's/^/# /'
	rm -f "$log"
	fwq_tap_result $rc "${pfx}bench_compare" "$([ $rc -eq 0 ] || echo "exit $rc")" || :
}

echo "# recheck $top: ${#runs[@]} guest run(s), ${#benches[@]} bench folder(s)"
for run in "${runs[@]}"; do
	recheck_run "$run"
done
for b in "${benches[@]}"; do
	recheck_bench "$b"
done
# REPEAT=N: a folder whose run1/ .. runN/ are bench folders, as bench.sh
# writes them, compared in that order
mapfile -t repeats < <(for b in "${benches[@]}"; do
		case "$(basename "$b")" in
		run[0-9]*) dirname "$b" ;;
		esac
	done | sort -u)
for t in "${repeats[@]}"; do
	reps=()
	for b in "${benches[@]}"; do
		case "$b" in
		"$t"/run[0-9]*) reps+=("$b") ;;
		esac
	done
	mapfile -t reps < <(printf '%s\n' "${reps[@]}" | sort -V)
	[ ${#reps[@]} -gt 1 ] && recheck_compare "$t" "${reps[@]}"
done
fwq_tap_summary
