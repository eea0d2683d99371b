#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fwq-bench: the fwq_bench suite on this machine's running kernel (root,
# debugfs, no QEMU), and its results' reports. It is "make bench-local" in
# a source tree and /usr/bin/fwq-bench in the fwq-dkms package: both run
# bench.sh --local next to this file, so the two are one code path;
# compare and replay are bench_report.py's --compare and --replay. Its
# --help is below (help()); exit codes: debian/fwq-bench.1 and
# docs/hardware.md, "Exit codes and Secure Boot"
# (/usr/share/doc/fwq-dkms/hardware.md in the package).
set -eu
here=$(dirname "$(readlink -f "$0")")

help() {
	cat <<'EOF'
usage: fwq-bench [OPTION...]             run the suite on this kernel
       fwq-bench --list [OPTION...]      list the runs it would make
       fwq-bench compare [--out DIR] DIR1 DIR2 [DIR...]
       fwq-bench replay [--out DIR] RESULTS

Runs fwq_bench's suite (fwq's variants against the running kernel's own
workqueue, kwq) through /sys/kernel/debug/fwq_bench/, as root; loads fwq
and fwq_bench if they are not loaded. Results and the report go to
./bench-TIMESTAMP-local/ (results/ in a source tree) or --out DIR.

Options:
  --quick             one repetition and small sizes
  --reps N            repetitions of every run (default 7)
  --primary-reps N    repetitions of the primary verdict cells' runs (default 9)
  --scale N           multiply the item counts (default 20)
  --repeat N          the whole suite N times, into DIR/run1..runN, and
                      their ratios compared (DIR/repeatability.md)
  --redo N            redo a run on a slow host up to N times (0-5, default 3)
  --scenario LIST     only these scenarios (s1,s4a,...; see --list)
  --variant V         only runs of variant V: kwq, a full name, or some of
                      its axes (wake=pick, flush=coalesce); repeatable
  --out DIR           write the results and the report to DIR
  --list              print the scenarios and variants the suite (with the
                      filters above) would run, and run nothing
  -h, --help          this text

compare DIR1 DIR2 [DIR...]: every ratio to the baseline in each results
  folder, with its interval, and whether they agree (the report's
  intervals); --out DIR also writes DIR/repeatability.md.
replay RESULTS: the report (table and claims) of a results.jsonl, or a
  folder holding one, again; --out DIR also writes summary.md, table.txt
  and plots there.

Exit status: 0 done, 1 a run or the report failed, 2 bad arguments,
3-8 the machine cannot run it (fwq-bench(1)).
EOF
}

bad() {
	printf 'fwq-bench: %s (fwq-bench --help)\n' "$*" >&2
	exit 2
}

# report MODE ARGS: compare or replay, through bench_report.py; "--out DIR"
# anywhere in ARGS
report() {
	mode=$1 out=-
	shift
	# the operands go round to the end of "$@", after a sentinel
	set -- "$@" --fwq-bench-end
	while [ "$1" != --fwq-bench-end ]; do
		case $1 in
		--out)
			if [ "$2" = --fwq-bench-end ] || [ -z "$2" ]; then
				bad "--out needs a folder"
			fi
			out=$2
			shift 2
			continue
			;;
		-h|--help) help; exit 0 ;;
		-*) bad "$mode: unknown option $1" ;;
		esac
		set -- "$@" "$1"
		shift
	done
	shift
	case $mode in
	compare)
		[ $# -ge 2 ] || bad "compare needs two results folders or more"
		exec python3 "$here/bench_report.py" --compare "$out" "$@"
		;;
	replay)
		[ $# -eq 1 ] || bad "replay needs one results file (results.jsonl) or folder"
		[ -e "$1" ] || bad "replay: $1: no such file"
		if [ "$out" = - ]; then
			exec python3 "$here/bench_report.py" --replay "$1"
		fi
		exec python3 "$here/bench_report.py" --replay "$1" "$out"
		;;
	esac
}

case ${1:-} in
compare|replay) report "$@" ;;
esac
for a; do
	case $a in
	-h|--help) help; exit 0 ;;
	esac
done
exec "$here/bench.sh" --local "$@"
