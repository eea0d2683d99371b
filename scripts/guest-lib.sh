# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# Helpers for fwq guest plans (busybox sh). /init sources this file, then
# the plan; a step's command runs in a subshell, so it can be any command,
# one of these helpers or a function the plan defined.

FWQ_RES=/dev/ttyS1
FWQ_KTAP=/dev/ttyS2

fwq_exit_code() {
	# isa-debug-exit: QEMU exits with (value << 1) | 1. $1 is octal.
	# shellcheck disable=SC2059 # the byte is built from the format
	printf "\\$1" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
}

# fwq_ktap LINE...: one line to the KTAP channel and the console.
fwq_ktap() {
	printf '%s\n' "$@" > "$FWQ_KTAP"
	printf '%s\n' "$@" > /dev/console
}

# fwq_arg KEY DEFAULT: the value of KEY=VALUE on the kernel command line,
# or DEFAULT when KEY is not there.
fwq_arg() {
	local _v

	_v=$(tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${_v:-$2}"
}

# fwq_clocksource_quiet: the clocksource watchdog does not run here. It
# watches a clocksource from a timer that fires every 0.5 s; the step
# traces timer expiries for 2 s and fails if that timer is among them,
# printing the current clocksource either way. Every guest boots with
# tsc=reliable (vm-run.sh), which leaves nothing to watch: 7.3's watchdog can
# deadlock a booting guest against stop_machine() (docs/testing.md, VM
# harness, "Guest command line").
fwq_clocksource_quiet() {
	local _t=/sys/kernel/tracing _ev _n _cs

	[ -d "$_t/events" ] || mount -t tracefs tracefs "$_t" || return 1
	_ev=$_t/events/timer/timer_expire_entry/enable
	[ -w "$_ev" ] || { echo "no timer_expire_entry event"; return 1; }
	echo > "$_t/trace"
	echo 1 > "$_t/tracing_on"
	echo 1 > "$_ev"
	sleep 2
	echo 0 > "$_ev"
	_n=$(grep -c 'function=clocksource_watchdog ' "$_t/trace")
	echo > "$_t/trace"
	_cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
	echo "clocksource $_cs; the watchdog's timer ran $_n times in 2 s"
	[ "$_n" -eq 0 ]
}

# fwq_axis AXIS: the variant names of AXIS (wake, kicked_list, flush), in
# registry order, from the loaded fwq.ko (debugfs "variants", which prints
# include/fwq/variants.h). Plans enumerate variants only through this.
fwq_axis() {
	sed -n "s/^axis $1 //p" /sys/kernel/debug/fwq/variants
}

# fwq_flush_has PROP NAME: flush variant NAME has property PROP (a
# "prop flush NAME PROP" line of debugfs "variants"; tracks_pwqs: it
# tracks the pwqs queued to, so a flush may skip the idle ones).
fwq_flush_has() {
	grep -qx "prop flush $2 $1" /sys/kernel/debug/fwq/variants
}

# fwq_nth N WORD...: WORD number N modulo the count (N from 0).
fwq_nth() {
	local _i=$1

	shift
	shift $((_i % $#))
	echo "$1"
}

# fwq_flush_spread: every flush variant once, each paired with the next
# wake and kicked_list variants in turn, as full variant strings, one a
# line: one run per flush strategy that still varies the other axes.
fwq_flush_spread() {
	local _i=0 _f _w _k

	_w=$(fwq_axis wake)
	_k=$(fwq_axis kicked_list)
	for _f in $(fwq_axis flush); do
		# shellcheck disable=SC2086 # the name lists are split on purpose
		echo "wake=$(fwq_nth $_i $_w),kicked_list=$(fwq_nth $_i $_k),flush=$_f"
		_i=$((_i + 1))
	done
}

# fwq_debug_counter NAME: fwq's global debug counter NAME (a line of debugfs
# debug_counters), or nothing when fwq is not loaded or has no such counter.
fwq_debug_counter() {
	awk -v n="$1" '$1 == n { print $2 }' \
		/sys/kernel/debug/fwq/debug_counters 2>/dev/null
}

# fwq_consistency_ok: fwq's own consistency checks (fwq_check(), counted in
# debugfs debug_counters) found nothing. Every plan that runs a workload
# makes this a step before it unloads fwq, so no verdict can pass while
# the engine counted an inconsistency.
fwq_consistency_ok() {
	local _n

	_n=$(fwq_debug_counter consistency_errors)
	echo "consistency_errors=${_n:-unreadable}"
	[ "$_n" = 0 ]
}

# fwq_result TEXT: one line to the result channel (results.txt).
fwq_result() {
	printf '%s\n' "$*" > "$FWQ_RES"
}

# fwq_kill_tree PID: SIGKILL PID and all its descendants.
fwq_kill_tree() {
	local _child

	for _child in $(ps -o pid,ppid | awk -v p="$1" '$2 == p { print $1 }'); do
		fwq_kill_tree "$_child"
	done
	kill -9 "$1" 2>/dev/null
}

# fwq_step NAME TIMEOUT CMD...: run CMD with a TIMEOUT (seconds), capture
# the KTAP modules printed to the kernel log meanwhile and report the step
# as one KTAP result. The step fails when CMD exits non-zero, times out, or
# the captured KTAP has a failed top-level result. Returns CMD's status.
fwq_step() {
	_name=$1
	_to=$2
	shift 2
	_n=$(( $(cat /tmp/fwq.nr) + 1 ))
	echo "$_n" > /tmp/fwq.nr
	dmesg -c > /dev/null
	echo "# fwq_step $_n $_name: $*" > /dev/console
	# The command runs in a subshell of this shell, so it may be a function
	# the plan defined; a watchdog kills its process tree at the timeout.
	rm -f /tmp/fwq.timedout
	( "$@" ) < /dev/null > /tmp/fwq.out 2>&1 &
	_pid=$!
	( sleep "$_to" && touch /tmp/fwq.timedout && fwq_kill_tree "$_pid" ) &
	_wd=$!
	wait "$_pid"
	_rc=$?
	fwq_kill_tree "$_wd"
	wait "$_wd" 2>/dev/null
	[ -e /tmp/fwq.timedout ] && _rc=124
	dmesg | sed 's/^\[[^]]*\] //' |
		grep -E '^ *(KTAP version [0-9]|[0-9]+\.\.[0-9]+$|(not )?ok [0-9]|# )' \
		> /tmp/fwq.ktap
	sed 's/^/    # /' /tmp/fwq.out > /tmp/fwq.diag
	[ -s /tmp/fwq.diag ] && fwq_ktap "$(cat /tmp/fwq.diag)"
	if [ -s /tmp/fwq.ktap ]; then
		# Nest the module's document under this step, naming it.
		fwq_ktap "$(awk -v n="$_name" '
			{ print "    " $0 }
			!done && /^KTAP version/ { print "    # Subtest: " n; done = 1 }
			' /tmp/fwq.ktap)"
	fi
	_why=
	if [ -e /tmp/fwq.timedout ]; then
		_why=" # TIMEOUT ${_to}s"
	elif [ $_rc -ne 0 ]; then
		_why=" # exit=$_rc"
	elif grep -E '^not ok [0-9]' /tmp/fwq.ktap | grep -qv '# SKIP'; then
		_why=" # KTAP reported a failure"
	fi
	if [ -z "$_why" ]; then
		fwq_ktap "ok $_n $_name"
	else
		fwq_ktap "not ok $_n $_name$_why"
		echo $(( $(cat /tmp/fwq.failed) + 1 )) > /tmp/fwq.failed
	fi
	return $_rc
}

# fwq_read_debugfs DIR: read every readable file under DIR (a debugfs
# directory); fails, naming the file, if any read fails or nothing was read.
fwq_read_debugfs() {
	local _f _mode _n=0 _bad=0

	for _f in $(find "$1" -type f | sort); do
		_mode=$(stat -c %a "$_f")
		[ $(( 0$_mode & 0444 )) -ne 0 ] || continue
		if cat "$_f" > /dev/null; then
			_n=$((_n + 1))
		else
			echo "read failed: $_f"
			_bad=1
		fi
	done
	echo "read $_n files under $1"
	[ $_bad -eq 0 ] && [ $_n -gt 0 ]
}

# fwq_workers_pinned: no fwq kthread (worker "fwq/N:M", "fwq/uN:M" or
# rescuer "fwq/R-...") lets user space change its affinity: taskset must
# fail and the affinity stay as it was, as for the kernel's workers
# (PF_NO_SETAFFINITY). Fails if there is no per-CPU worker to try.
fwq_workers_pinned() {
	local _c _p _comm _before _n=0 _pcpu=0 _bad=0

	for _c in /proc/[0-9]*/comm; do
		read -r _comm 2>/dev/null < "$_c" || continue
		case "$_comm" in
		fwq/[0-9]*:*) _pcpu=$((_pcpu + 1)) ;;
		fwq/u*|fwq/R-*) ;;
		*) continue ;;
		esac
		_p=${_c#/proc/}
		_p=${_p%/comm}
		_before=$(taskset -p "$_p" 2>/dev/null) || continue
		_n=$((_n + 1))
		if taskset -p 1 "$_p" > /dev/null 2>&1; then
			echo "taskset moved $_comm (pid $_p)"
			_bad=1
		fi
		if [ "$(taskset -p "$_p" 2>/dev/null)" != "$_before" ]; then
			echo "affinity of $_comm (pid $_p) changed"
			_bad=1
		fi
	done
	echo "$_n fwq kthreads tried ($_pcpu per-CPU workers)"
	[ $_bad -eq 0 ] && [ $_pcpu -gt 0 ]
}

# fwq_cpus_cycle: offline, then online, every CPU but 0 (those that can).
fwq_cpus_cycle() {
	for _c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ -w "$_c/online" ] || continue
		echo 0 > "$_c/online" || return 1
	done
	grep -qx 0 /sys/devices/system/cpu/online || return 1
	for _c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ -w "$_c/online" ] || continue
		echo 1 > "$_c/online" || return 1
	done
	[ "$(cat /sys/devices/system/cpu/online)" = \
	  "$(cat /sys/devices/system/cpu/present)" ]
}


# fwq_kmemleak_check: two kmemleak scans (an object must look unreferenced
# twice to be reported); print the count and the first reports to the
# console, and fail if there is any. Run it as a step: fwq_step NAME 600
# fwq_kmemleak_check.
fwq_kmemleak_check() {
	_kml=/sys/kernel/debug/kmemleak
	[ -w "$_kml" ] || { echo "no kmemleak in this kernel"; return 1; }
	echo scan > "$_kml"
	sleep 2
	echo scan > "$_kml"
	_n=$(grep -c "unreferenced object" "$_kml")
	echo "kmemleak: $_n unreferenced objects"
	head -n 60 "$_kml" > /dev/console
	[ "$_n" -eq 0 ]
}
