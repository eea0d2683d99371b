# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# fwq_bench suite driver, POSIX sh (busybox in the guest, any sh on real
# hardware). Source it, define bench_emit LINE (where result lines go) and
# optionally bench_progress N SPEC, then feed spec lines to bench_drive:
#
#   bench_drive < specs
#
# Each spec line is written to /sys/kernel/debug/fwq_bench/spec and run;
# every JSON line of its results goes to bench_emit. A spec that fails is
# reported as "bench-error: <errno text>: <spec>" and the suite goes on.
# Blank lines and lines starting with '#' are skipped.

BENCH_DIR=${BENCH_DIR:-/sys/kernel/debug/fwq_bench}

bench_drive() {
	_bd_n=0
	_bd_fail=0
	while read -r _bd_spec; do
		case "$_bd_spec" in
		''|'#'*) continue ;;
		esac
		_bd_n=$((_bd_n + 1))
		if command -v bench_progress > /dev/null 2>&1; then
			bench_progress "$_bd_n" "$_bd_spec"
		fi
		if ! _bd_err=$( { echo "$_bd_spec" > "$BENCH_DIR/spec"; } 2>&1 ); then
			bench_emit "bench-error: spec rejected ($_bd_err): $_bd_spec"
			_bd_fail=$((_bd_fail + 1))
			continue
		fi
		if ! _bd_err=$( { echo run > "$BENCH_DIR/control"; } 2>&1 ); then
			bench_emit "bench-error: run failed ($_bd_err): $_bd_spec"
			_bd_fail=$((_bd_fail + 1))
			continue
		fi
		while read -r _bd_line; do
			bench_emit "$_bd_line"
		done < "$BENCH_DIR/results"
	done
	bench_emit "bench-done: $_bd_n specs, $_bd_fail failed"
	[ "$_bd_fail" -eq 0 ]
}
