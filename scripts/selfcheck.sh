#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selfcheck.sh: prove the VM harness cannot mistake a bad run for a pass.
# Builds the deliberately misbehaving tests/selfcheck/fwq_selfcheck.ko and
# runs vm-run.sh once per case, checking the exit code:
#   ktapfail              a "not ok" KTAP case (module loads fine) exits 1
#   warn                  a WARN during insmod (panic_on_warn=1) exits 3
#   warn, panic_on_warn=0 the WARNING is found on the console, exits 3;
#                         the summary shows its RIP and call trace
#   panic_hang            a guest that hangs in panic() (panic=0) is
#                         stopped once its console is quiet: 3, not 124
#   hang                  a step overrunning its budget is "not ok" and a
#                         guest that never finishes hits --timeout: 124
#   stuck                 a silent hang (IRQs off on CPU 1, D state on CPU
#                         2) hits --timeout: 124, and diag.txt names both
#                         threads, from the guest's own SysRq backtraces
#   silent                a guest whose channels all go quiet (its heartbeat
#                         stopped) is stalled after --stall: 124, diagnosed
#   int3_stale            a first boot whose oops is a trap on an int3 no
#                         longer in memory (an emulator fault) is booted
#                         again: the second boot's 0, the first kept
#   int3_real             the same oops with the int3 really there: 3
#   pass_timer_check      the control, a clean run: exits 0, though the
#                         guest has no PIT or HPET, so its boot-time
#                         IO-APIC timer check cannot see a tick (vm-run.sh
#                         gives every guest no_timer_check), and though
#                         a folder where it runs has the plan's name
#   missing plan          setup error, exits 2
# and, on the host, that console-scan.sh holds back a KCSAN report only
# when no frame of its accesses is fwq's (an interrupt's: above its
# entry), and that stale-int3.sh tells the emulator
# fault from other oopses (fixtures in tests/selfcheck/console/).
# Prints "ok"/"not ok" per case and "N passed, N failed"; exit 1 on failure.
# Usage: selfcheck.sh [OUT] (default results/<timestamp>-selfcheck).
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP" || exit 2

kdir=$(fwq_kdir) || fwq_die 2 "no kernel headers"
out=${1:-$FWQ_TOP/results/$(date +%Y%m%d-%H%M%S)-selfcheck}
mkdir -p "$out" || fwq_die 2 "cannot create $out"
out=$(cd "$out" && pwd)
if ! make -C "$kdir" M="$FWQ_TOP/tests/selfcheck" -j"$(nproc)" modules > "$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	fwq_die 2 "building the self-check module failed"
fi
make -s -j"$(nproc)" modules > "$out/build-tree.log" 2>&1 || fwq_die 2 "make modules failed"
ko=$FWQ_TOP/tests/selfcheck/fwq_selfcheck.ko

# every case's result line is also kept in OUT/tests.txt (make check lists
# the cases of its selfcheck_harness lane from there)
: > "$out/tests.txt"
FWQ_TAP_LOG=$out/tests.txt

# judge NAME OK-COMMENT NOT-OK-COMMENT CMD...: a case whose verdict is
# CMD's exit status (a check of what an earlier case left behind)
judge() {
	local name=$1 okc=$2 nokc=$3

	shift 3
	if "$@"; then
		fwq_tap_result 0 "selfcheck.$name" "$okc"
	else
		fwq_tap_result 1 "selfcheck.$name" "$nokc" || :
	fi
}
# expect NAME RC VM-RUN-ARGS...
expect() {
	local name=$1 want=$2 rc start

	shift 2
	start=$(fwq_now)
	FWQ_VM_QUIET=1 "$FWQ_TOP/scripts/vm-run.sh" --ko "$ko" \
		--out "$out/$name" "$@" > "$out/$name.log" 2>&1
	rc=$?
	tail -n 1 "$out/$name.log" | sed 's/^/# /'
	if [ "$rc" -eq "$want" ]; then
		fwq_tap_result 0 "selfcheck.$name" \
			"exit $rc as expected, $(fwq_elapsed "$start")s"
	else
		fwq_tap_result 1 "selfcheck.$name" "exit $rc, expected $want" || :
	fi
}

# scan NAME RC FOREIGN: console-scan.sh on tests/selfcheck/console/NAME.log
# must exit RC and hold back FOREIGN KCSAN titles (host only, no guest)
scan() {
	local fix=$FWQ_TOP/tests/selfcheck/console/$1.log rc n

	"$FWQ_TOP/scripts/console-scan.sh" --foreign "$out/scan-$1.foreign" \
		< "$fix" > "$out/scan-$1.badness"
	rc=$?
	n=$(grep -c . "$out/scan-$1.foreign")
	if [ "$rc" -eq "$2" ] && [ "$n" -eq "$3" ]; then
		fwq_tap_result 0 "selfcheck.scan_$1" \
			"exit $rc, $n foreign KCSAN report(s), as expected"
	else
		fwq_tap_result 1 "selfcheck.scan_$1" \
			"exit $rc and $n foreign, expected $2 and $3" || :
	fi
}
scan kcsan-foreign 0 1
scan kcsan-fwq 1 0
scan kcsan-foreign-warn 1 1
scan kcsan-cut 1 0
scan kcsan-irq-foreign 0 1
scan kcsan-irq-fwq 1 0
scan cpumask-fail 0 0
scan cpumask-fail-warn 1 0
# stale NAME RC: stale-int3.sh on tests/selfcheck/console/NAME.log must
# exit RC (0: an emulator fault)
stale() {
	local rc

	"$FWQ_TOP/scripts/stale-int3.sh" \
		< "$FWQ_TOP/tests/selfcheck/console/$1.log" > /dev/null
	rc=$?
	if [ "$rc" -eq "$2" ]; then
		fwq_tap_result 0 "selfcheck.stale_$1" "exit $rc, as expected"
	else
		fwq_tap_result 1 "selfcheck.stale_$1" "exit $rc, expected $2" || :
	fi
}
stale int3-stale 0
stale int3-real 1
stale kcsan-fwq 1
stale cpumask-fail-warn 1

expect ktapfail 1 --preset small --plan selfcheck-ktapfail --timeout 120
expect warn 3 --preset small --plan selfcheck-warn --timeout 120
expect warn_no_panic 3 --preset small --plan selfcheck-warn --timeout 120 \
	--append panic_on_warn=0
# a report on the summary: the console from the first badness line on
has_report() {
	grep -q '^report: .*RIP: ' "$1" && grep -q '^report: .*Call Trace:' "$1"
}
judge warn_report "the summary shows the WARNING's RIP and call trace" \
	"no RIP and call trace in warn/summary.txt" \
	has_report "$out/warn/summary.txt"
# the selfcheck-int3 plan writes the oops: a stale int3 is booted again
expect int3_stale 0 --preset small --plan selfcheck-int3 --timeout 120
judge int3_stale_first_boot "the first boot is kept, its fault named" \
	"no first-boot/emulator.txt in int3_stale" \
	test -s "$out/int3_stale/first-boot/emulator.txt"
expect int3_real 3 --preset small --plan selfcheck-int3 --timeout 120 \
	--append fwqt.int3=real
# panic=0: the guest spins in panic() instead of rebooting; it is stopped
# once its console is quiet, long before the stall limit and --timeout
expect panic_hang 3 --preset small --plan selfcheck-warn --timeout 150 \
	--append panic=0
judge panic_hang_stopped "a hung panic is stopped, not waited out" \
	"$(tail -n 1 "$out/panic_hang/summary.txt")" \
	grep -q 'its panic path hung' "$out/panic_hang/summary.txt"
expect hang 124 --preset small --plan selfcheck-hang --timeout 35
judge step_budget "an overrun step is reported not ok" \
	"no TIMEOUT result in hang/ktap.txt" \
	grep -q '^not ok 1 step_overruns_budget # TIMEOUT' "$out/hang/ktap.txt"
# has_diag CASE WHAT PATTERN: the diagnosis of CASE shows PATTERN
diag_shows() {
	grep -q "$2" "$out/$1/diag.txt" 2>/dev/null &&
		grep -q "diagnosis in $out/$1/diag.txt" "$out/$1/summary.txt"
}
has_diag() {
	judge "$1_diag_$2" "diag.txt shows $3" \
		"no '$3' in $1/diag.txt (or no pointer in summary.txt)" \
		diag_shows "$1" "$3"
}
quiet="rcupdate.rcu_cpu_stall_suppress=1 hung_task_timeout_secs=0 nosoftlockup"
expect stuck 124 --preset small --plan selfcheck-stuck --timeout 45 \
	--append "$quiet"
has_diag stuck irqoff_cpu 'sc_stuck_irqoff_fn'
has_diag stuck dstate_task 'sc_stuck_dstate_fn'
has_diag stuck vcpus '^CPU#3 RIP='
expect silent 124 --preset small --plan selfcheck-silent --timeout 300 \
	--stall 20
judge silent_is_stall "reported as a stall, not a timeout" \
	"$(tail -n 1 "$out/silent/summary.txt")" \
	grep -q 'stalled: no output on any channel' "$out/silent/summary.txt"
has_diag silent vcpus '^CPU#0 RIP='
# the control, a clean run that must exit 0, is also: a guest whose
# timer interrupt never reaches the IO-APIC timer check (no PIT, no HPET:
# what a starved QEMU main loop looks like to it) boots and passes
# (vm-run.sh's no_timer_check; without it: exit 3, a panic); and it runs
# where a folder has the plan's name (as make vm PLAN=tools in the
# tree's top), whose plan is still scripts/plans/'s
mkdir -p "$out/plan-cwd/selfcheck-pass"
cd "$out/plan-cwd" || exit 2
FWQ_QEMU_ARGS="${FWQ_QEMU_ARGS:+$FWQ_QEMU_ARGS }-machine pit=off,hpet=off" \
	expect pass_timer_check 0 --preset small --plan selfcheck-pass --timeout 120
cd "$FWQ_TOP" || exit 2
expect missing_plan 2 --preset small --plan "$out/no-such.plan"
echo "# logs in $out"
fwq_tap_summary
