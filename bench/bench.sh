#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--local] [--quick] [--reps N] [--primary-reps N] [--scale N]
#          [--boots LIST] [--kernels LIST] [--repeat N] [--preset P]
#          [--redo N] [--counts LIST] [--count-reps N] [--out DIR]
#          [--scenario LIST] [--variant V]... [--list]
#
# The fwq benchmark suite: every seed claim side by side, fwq's
# variants against the running kernel's own workqueue (kwq), in one command.
#
# Default (make bench): install what is missing, build, then boot the Debian
# 6.1 guest under QEMU once per topology and run the suite there. Every boot
# uses the "timing" preset (scripts/presets/timing: no more vCPUs than host
# cores, 2 NUMA nodes; --preset to change), so that no vCPU is descheduled
# by the host while it holds a lock:
#   enq   preset small: S1 scope sweep x wake variants, S2, S3 (+ kwq)
#   p8    possible_cpus=8:   S4a idle flush x flush variants (+ kwq)
#   p64   possible_cpus=64:  S4a
#   p192  possible_cpus=192: S4a, S4b, S4c, S5, S6
# then the same boots on the 6.12 and 7.3 guests (--kernels, default
# "6.1 6.12 7.3"; names from scripts/kernels/), with a shorter suite: S1 in
# the cache scope, S2, S4a, S4b, S5 and S6, and S3 and S4c too on a kernel
# whose scripts/kernels/ file sets FWQ_K_BENCH_FULL=y (7.3, today's
# kernel: every scenario against its own workqueue). Their boots are labelled
# BOOT:KERNEL, and their kwq is that kernel's own workqueue: 6.12's, the
# pre-seed mainline design, against fwq's flush=each, and 7.3's, with the
# coalesced flush walk, against fwq's flush=coalesce, in one boot (the
# report's fidelity rows).
# S1, S2 and S4a run fwq with counters=0: no wakeup or walk counting
# while timed, which kwq does not pay either; their wakeups, pwqs and lock
# cycles come from a counted pass of the same run (S1, S2: the first pass,
# an eighth of the items before the timed one, which kwq's runs make too;
# S4a: 64 flushes after it; bench/README.md).
# The fidelity rows set them against kwq. S4b, S4c, S5 and S6 run counted.
# Variants run interleaved (A B C A B C ...) within one boot, --reps times
# (default 7); the runs behind the report's primary verdict cells (S1 in the
# system scope, and every run of the default kernel's largest flush boot)
# --primary-reps times (default 9; bench/README.md, "The family-wise
# error"). Results go to results/bench-<timestamp>/: results.jsonl
# (one JSON object per run), summary.md, table.txt and PNG plots
# (bench/bench_report.py). That mode is the harness's: it needs the source
# tree's scripts/ (scripts/lib.sh, vm-run.sh, deps.sh).
#
# --local drives fwq_bench on this machine's running kernel (root, debugfs;
# no QEMU): real hardware, one topology. bench/fwq-bench.sh (make
# bench-local, /usr/bin/fwq-bench) runs it, on the helpers of
# bench/runner-lib.sh alone. If fwq_bench is not loaded it
# loads src/fwq.ko and bench/fwq_bench.ko from the tree when they are built
# for the running kernel, else modprobes the installed (DKMS) modules. Each
# way this can fail has one line saying what to do and its own exit code
# (docs/hardware.md, "Exit codes and Secure Boot"). Results
# go to results/ in a source tree, else to the current directory.
# --quick: 1 repetition and small sizes (a few minutes); --scale N multiplies
# the item counts (default 1 under QEMU, 20 with --local); --boots picks
# boots from "enq p8 p64 p192". --repeat N (make bench REPEAT=N) runs the
# whole suite N times back to back into DIR/run1 .. runN, each with its own
# report, then compares them ratio by ratio in DIR/repeatability.md
# (bench_report.py --compare).
# --redo N (default 3, 0: off): an enqueue run (S1 to S3) whose host probe
# says the host was slow around it is redone up to N times, the last one
# kept and marked (fwq_bench's redo key; bench/README.md, "Slow host");
# the flush scenarios' runs are never redone.
# --scenario LIST (s1,s4a,...) and --variant V (repeatable; kwq, a whole
# variant name, or some of its axes: wake=pick) keep only the suite's runs
# that match (spec_filter); --list prints the runs the suite would make,
# per scenario and per variant, and runs nothing. With --local this is
# fwq-bench's CLI: its --help (bench/fwq-bench.sh) lists what works there,
# and the QEMU options (--boots, --kernels, --preset, --counts,
# --count-reps) are bad arguments.
set -u
# shellcheck source=bench/runner-lib.sh
. "$(dirname "$0")/runner-lib.sh"

# bad MSG: bad arguments, one line, exit 2, before anything is changed
bad() {
	printf '%s: %s (%s --help)\n' "$prog" "$*" "$prog" >&2
	exit 2
}

# need OPTION ARGC VALUE: OPTION takes a value, not ""
need() {
	if [ "$2" -lt 2 ] || [ -z "$3" ]; then
		bad "$1 needs a value"
	fi
}

local_mode=0
reps=7
primary_reps=9
scale=
boots="enq p8 p64 p192"
kernels="6.1 6.12 7.3"
out=
quick=0
repeat=1
preset=timing
redo=3
counts="p8 p192"
count_reps=3
scenarios=
variants=()
list=0
prog=bench.sh
[ "${1:-}" = --local ] && prog=fwq-bench
while [ $# -gt 0 ]; do
	case "$1" in
	--local) local_mode=1; shift ;;
	--quick) quick=1; reps=1; primary_reps=1; count_reps=1; shift ;;
	--list) list=1; shift ;;
	--boots|--kernels|--preset|--counts|--count-reps)
		[ $local_mode = 0 ] ||
			bad "$1 is make bench's (QEMU guests); fwq-bench runs on this machine's kernel"
		;;&
	--reps|--primary-reps|--count-reps|--scale|--boots|--kernels|--out|\
	--repeat|--preset|--redo|--counts|--scenario|--variant)
		need "$1" $# "${2:-}"
		case "$1" in
		--reps) reps=$2 ;;
		--primary-reps) primary_reps=$2 ;;
		--count-reps) count_reps=$2 ;;
		--scale) scale=$2 ;;
		--boots) boots=$2 ;;
		--kernels) kernels=$2 ;;
		--out) out=$2 ;;
		--repeat) repeat=$2 ;;
		--preset) preset=$2 ;;
		--redo) redo=$2 ;;
		--counts) counts=$2 ;;
		--scenario) scenarios+="${scenarios:+,}$2" ;;
		--variant) variants+=("$2") ;;
		esac
		shift 2
		;;
	-h|--help)
		if [ $local_mode = 1 ]; then
			exec "$(dirname "$0")/fwq-bench.sh" --help
		fi
		awk 'NR >= 4 && !/^#/ { exit } NR >= 4' "$0" |
			sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) bad "unknown argument $1" ;;
	esac
done
# the QEMU suite boots the harness's guests: its helpers (kernels,
# presets) are the source tree's, which the package does not ship
if [ $local_mode = 0 ]; then
	[ -r "$FWQ_TOP/scripts/lib.sh" ] ||
		fwq_die 2 "the QEMU suite needs fwq's source tree (make bench); on this machine's kernel: fwq-bench"
	# shellcheck source=scripts/lib.sh
	. "$FWQ_TOP/scripts/lib.sh"
fi
# The local run's failures, one exit code each (docs/hardware.md,
# "Exit codes and Secure Boot"): 3 not root, 4
# debugfs not mounted, 5 fwq not built for the running kernel, 6 Secure
# Boot refused the module, 7 another load failure, 8 kernel lockdown.
# FWQ_DEBUGFS (default /sys/kernel/debug, mounted if it is not) and
# FWQ_LOCKDOWN (default /sys/kernel/security/lockdown) let
# scripts/fwq-bench-test.sh fake them.
local_krel=
local_debugfs=${FWQ_DEBUGFS:-/sys/kernel/debug}

local_preflight() {
	local lockdown=${FWQ_LOCKDOWN:-/sys/kernel/security/lockdown} mode

	[ "$(id -u)" = 0 ] ||
		fwq_die 3 "fwq-bench needs root (it loads modules and writes debugfs): run it with sudo"
	if ! mountpoint -q "$local_debugfs"; then
		if [ -n "${FWQ_DEBUGFS:-}" ] ||
		   ! mount -t debugfs debugfs "$local_debugfs" 2>/dev/null; then
			fwq_die 4 "debugfs is not mounted on $local_debugfs: mount -t debugfs none $local_debugfs"
		fi
	fi
	# lockdown (on by default under Secure Boot) refuses every open of a
	# writable debugfs file, and fwq_bench's spec and control are written
	if [ -r "$lockdown" ]; then
		mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$lockdown")
		[ -z "$mode" ] || [ "$mode" = none ] ||
			fwq_die 8 "kernel lockdown is '$mode' (Secure Boot): it refuses the debugfs writes fwq_bench needs; boot with Secure Boot disabled to benchmark"
	fi
	local_krel=$(uname -r)
}

case "$reps" in ''|*[!0-9]*|0) bad "--reps needs a positive number" ;; esac
case "$primary_reps" in ''|*[!0-9]*|0) bad "--primary-reps needs a positive number" ;; esac
case "$count_reps" in ''|*[!0-9]*|0) bad "--count-reps needs a positive number" ;; esac
case "$repeat" in ''|*[!0-9]*|0) bad "--repeat needs a positive number" ;; esac
case "$redo" in ''|*[!0-9]*) bad "--redo needs a number, 0 to 5 (0: off)" ;; esac
for b in $counts; do
	case $b in p8|p192) ;; *) bad "--counts: unknown count boot '$b' (p8 p192, or \"\")" ;; esac
done
[ "$redo" -le 5 ] || bad "--redo needs a number, 0 to 5 (0: off)"
# the package's runner (--local) has no presets: they are for QEMU guests
[ $local_mode = 1 ] || [ -r "$FWQ_TOP/scripts/presets/$preset" ] ||
	bad "--preset: unknown preset '$preset' (see scripts/presets/)"
for k in $kernels; do
	[ $local_mode = 1 ] && break # the running kernel, not scripts/kernels/
	fwq_kernel_load "$k" ||
		bad "--kernels: unknown kernel '$k' (known: $(fwq_kernel_names --all | tr '\n' ' '))"
done
[ -n "$scale" ] || scale=$([ $local_mode = 1 ] && echo 20 || echo 1)
case "$scale" in ''|*[!0-9]*|0) bad "--scale needs a positive number" ;; esac

if [ -z "$out" ]; then
	# a source tree keeps results/; the package's copy writes to the cwd
	out=.
	[ -e "$FWQ_TOP/Kbuild" ] && out=$FWQ_TOP/results
	out=$out/bench-$(date +%Y%m%d-%H%M%S)$([ $local_mode = 1 ] && echo -local)
fi

# axis_names AXIS: the variant names of AXIS (wake, kicked_list, flush) in
# registry order: include/fwq/variants.h in a source tree (fwq_registry),
# else (the package's runner, after run_local loaded fwq.ko) debugfs
# "variants".
axis_names() {
	if [ -r "$FWQ_TOP/include/fwq/variants.h" ]; then
		fwq_registry "$1"
	else
		sed -n "s/^axis $1 //p" "$local_debugfs/fwq/variants" | tr ' ' '\n'
	fi
}

# wake_pairs: "NAME KICKED" per wake design, in registry order: the design
# and the kicked_list design it was posted with (the wake lines' fourth
# field in include/fwq/variants.h, else debugfs "pair wake" lines).
wake_pairs() {
	if [ -r "$FWQ_TOP/include/fwq/variants.h" ]; then
		fwq_registry pairs
	else
		sed -n "s/^pair wake //p" "$local_debugfs/fwq/variants"
	fi
}

# The variants that matter per scenario family, all from the registry.
# wake_variants: each wake design with the kicked_list design it was
# posted with, on the first flush design; the first of them is the
# pre-series baseline (wake=locked,kicked_list=off,flush=each), which
# bench_report.py divides by. flush_variants: the baseline, then every
# other flush design on the baseline's wake/kicked_list.
wake_variants() {
	local f w k

	f=$(axis_names flush | head -n 1)
	wake_pairs | while read -r w k; do
		echo "wake=$w,kicked_list=$k,flush=$f"
	done
}
flush_variants() {
	local base f

	base=$(wake_variants | head -n 1)
	echo "$base"
	for f in $(axis_names flush); do
		[ "${base%,flush=*},flush=$f" = "$base" ] ||
			echo "${base%,flush=*},flush=$f"
	done
}
# scope_names: the affinity scopes S1 sweeps, in the registry's order
# (include/fwq/variants.h in a source tree, else debugfs "scopes"), but
# "default", which names no scope of its own
scope_names() {
	if [ -r "$FWQ_TOP/include/fwq/variants.h" ]; then
		fwq_registry scopes
	else
		sed -n "s/^scopes //p" "$local_debugfs/fwq/variants" | tr ' ' '\n'
	fi | grep -vx default
}

# n BASE: BASE items scaled (and shrunk for --quick). The bases make a
# timed run last about 0.1-1 s in the timing preset under TCG: shorter runs
# leave a few scheduler ticks deciding a cell.
n() {
	local v=$(($1 * scale))

	[ $quick = 1 ] && v=$(((v + 19) / 20))
	echo $((v > 0 ? v : 1))
}

# big_boot: the largest flush boot of --boots (p192 by default), whose runs
# the primary cells B1 to C1 read; "local" with --local
big_boot() {
	[ $local_mode = 1 ] && { echo local; return; }
	printf '%s\n' "$boots" | tr ' ' '\n' | sed -n 's/^p\([0-9]*\)$/\1 &/p' |
		sort -n | tail -n 1 | cut -d' ' -f2
}

# suite BOOT [KERNEL]: the spec lines of one boot, variants interleaved per
# rep. A kernel other than the default gets S1 in the cache scope only, S3
# and S4c only with FWQ_K_BENCH_FULL=y, and its boot's label names it
# (BOOT:KERNEL; fwq_bench takes no @). No KERNEL (--local: the running
# kernel): the full suite.
suite() {
	local boot=$1 k=${2:-} v scope type
	local cpus="threads=0" scopes full=1 label=$1 design
	local FLUSH_VARIANTS WAKE_VARIANTS S5_VARIANTS

	FLUSH_VARIANTS=$(flush_variants | tr '\n' ' ')
	scopes=$(scope_names | tr '\n' ' ')
	WAKE_VARIANTS=$(wake_variants | tr '\n' ' ')

	if [ -n "$k" ] && [ "$k" != "$FWQ_KERNEL_DEFAULT" ]; then
		full=$(fwq_kernel_load "$k" && [ "$FWQ_K_BENCH_FULL" = y ] &&
			echo 1 || echo 0)
		scopes=cache
		label=$boot:$k
	fi
	# S5's flush wakes a worker, so its fidelity row needs fwq's copy of
	# the kernel's whole design (FWQ_K_DESIGN), not its flush axis on the
	# baseline's wake: a variant of its own where none of the flush
	# variants is that design
	S5_VARIANTS=$FLUSH_VARIANTS
	design=$([ -n "$k" ] && fwq_kernel_load "$k" && echo "$FWQ_K_DESIGN")
	case " $FLUSH_VARIANTS " in
	*" $design "*) ;;
	*) [ -z "$design" ] || S5_VARIANTS+="$design " ;;
	esac

	# the primary cells' runs (bench/README.md, "The family-wise error"):
	# S1 in the system scope on the default kernel, and every run of its
	# largest flush boot, primary_reps times; the rest reps times
	local big=0 prim=0 rep last more
	[ "$full" = 1 ] && [ "$label" = "$boot" ] && prim=1
	[ "$boot" = "$(big_boot)" ] && big=1
	last=$reps
	[ $prim = 1 ] && [ "$primary_reps" -gt "$last" ] && last=$primary_reps
	echo "# fwq_bench suite, boot $label, $reps reps$([ $prim = 1 ] && echo ", primary cells' runs $primary_reps"), scale $scale"
	for rep in $(seq 1 "$last"); do
		# past reps: only the primary cells' runs
		more=1
		[ "$rep" -le "$reps" ] || more=0
		[ $more = 1 ] || [ $prim = 1 ] || continue
		case $boot in
		enq|local)
			for scope in $scopes; do
				[ $more = 1 ] || [ "$scope" = system ] || continue
				for v in $WAKE_VARIANTS; do
					echo "scenario=s1 $cpus scope=$scope variant=$v counters=0 items=$(n 20000) label=$boot"
				done
			done
			# past reps: S1 in the system scope only
			if [ $more = 1 ]; then
				echo "scenario=s1 $cpus target=kwq items=$(n 20000) label=$boot"
				for v in $WAKE_VARIANTS; do
					echo "scenario=s2 $cpus scope=cache variant=$v counters=0 batch=16 items=$(n 20000) label=$boot"
				done
				echo "scenario=s2 $cpus target=kwq batch=16 items=$(n 20000) label=$boot"
				if [ "$full" = 1 ]; then
					for v in $WAKE_VARIANTS; do
						echo "scenario=s3 $cpus scope=cache variant=$v items=$(n 10000) label=$boot"
					done
				fi
			fi
			;;
		esac
		# the flush boots: past reps, only the largest one's runs
		[ $more = 1 ] || [ $big = 1 ] || continue
		case $boot in
		p*|local)
			for type in percpu unbound; do
				for v in $FLUSH_VARIANTS; do
					echo "scenario=s4a type=$type variant=$v counters=0 items=$(n 20000) label=$boot"
				done
				echo "scenario=s4a type=$type target=kwq items=$(n 20000) label=$boot"
			done
			;;
		esac
		case $boot in
		p192|local)
			for type in percpu unbound; do
				for v in $FLUSH_VARIANTS; do
					echo "scenario=s4b type=$type threads=16 variant=$v items=$(n 200) label=$boot"
				done
				echo "scenario=s4b type=$type threads=16 target=kwq items=$(n 200) label=$boot"
			done
			for type in percpu unbound; do
				[ "$full" = 1 ] || continue
				for v in $FLUSH_VARIANTS; do
					echo "scenario=s4c type=$type threads=2 variant=$v items=$(n 200) label=$boot"
				done
				echo "scenario=s4c type=$type threads=2 target=kwq items=$(n 200) label=$boot"
			done
			for v in $S5_VARIANTS; do
				echo "scenario=s5 threads=16 work_us=50 variant=$v items=$(n 100) label=$boot"
			done
			echo "scenario=s5 threads=16 work_us=50 target=kwq items=$(n 100) label=$boot"
			for v in $FLUSH_VARIANTS; do
				echo "scenario=s6 threads=16 wqs=4 variant=$v items=$(n 200) label=$boot"
			done
			echo "scenario=s6 threads=16 wqs=4 target=kwq items=$(n 200) label=$boot"
			;;
		esac
	done | sed -E -e "s/^(scenario=s[123] .*) label=$boot\$/\1 redo=$redo label=$label/" \
		-e t -e "s/ label=$boot\$/ redo=0 label=$label/"
}

# progress LABEL DONE TOTAL START: the progress line, with an ETA from
# the runs' mean time so far (the reps interleave the variants, so every
# stretch of runs is alike)
progress() {
	local el=$(( $(date +%s) - $4 )) eta=--:--

	if [ "$2" -gt 0 ] && [ "$2" -le "$3" ]; then
		eta=$(( el * ($3 - $2) / $2 ))
		eta=$(printf '%d:%02d' $((eta / 60)) $((eta % 60)))
	fi
	printf '\rfwq: bench %-10s %4d/%d runs  %3ds  ETA %s ' "$1" "$2" "$3" "$el" "$eta" >&2
}

count_runs() {
	local c

	c=$(grep -c '^{"schema":"fwq_bench/1"' "$1" 2>/dev/null)
	echo "${c:-0}"
}

# tree_ko NAME PATH: PATH, if it is a module built for the running kernel
tree_ko() {
	local vm

	[ -f "$2" ] || return 1
	vm=$(modinfo -F vermagic "$2" 2>/dev/null | awk '{ print $1 }')
	[ "$vm" = "$local_krel" ]
}

# local_load NAME PATH: load module NAME, from PATH in the tree if that is
# built for the running kernel, else the installed one
local_load() {
	local name=$1 ko=$2 err rc=0 log

	lsmod | grep -q "^$name " && return 0
	if tree_ko "$name" "$ko"; then
		fwq_log "loading $ko"
		err=$(insmod "$ko" 2>&1) || rc=$?
	elif modinfo -k "$local_krel" "$name" > /dev/null 2>&1; then
		fwq_log "loading $name (modprobe)"
		err=$(modprobe "$name" 2>&1) || rc=$?
	elif [ ! -e "/lib/modules/$local_krel/build" ]; then
		fwq_die 5 "$name is not built for the running kernel $local_krel, whose headers are missing: apt-get install linux-headers-$local_krel (DKMS then builds fwq)"
	else
		fwq_die 5 "$name is not built for the running kernel $local_krel: dkms autoinstall -k $local_krel (fwq-dkms; 'dkms status fwq' and /var/lib/dkms/fwq/*/build/make.log say why), or make in the source tree"
	fi
	[ $rc -eq 0 ] && return 0
	log=$(dmesg 2>/dev/null | tail -n 20)
	case "$err$log" in
	*"Key was rejected"*|*"Required key not available"*|*"unsigned module loading is restricted"*|*"Loading of unsigned module is rejected"*)
		fwq_die 6 "Secure Boot refused the unsigned module $name: enroll DKMS's signing key (mokutil --import /var/lib/dkms/mok.pub, reboot, confirm in MokManager)"
		;;
	esac
	fwq_die 7 "loading $name failed: $(printf '%s' "$err" | tail -n 1) (see dmesg)"
}

# local_modules: fwq and fwq_bench loaded (after local_preflight)
local_modules() {
	BENCH_DIR=$local_debugfs/fwq_bench
	if [ ! -d "$BENCH_DIR" ]; then
		local_load fwq "$FWQ_TOP/src/fwq.ko"
		local_load fwq_bench "$FWQ_TOP/bench/fwq_bench.ko"
		[ -d "$BENCH_DIR" ] ||
			fwq_die 7 "fwq_bench is loaded but $BENCH_DIR is missing"
	fi
}

run_local() {
	local specs=$out/local.specs total start pid

	local_modules
	printf '%s\n' "$suite_specs" > "$specs"
	total=$(grep -vc '^#' "$specs")
	start=$(date +%s)
	fwq_log "running $total specs on $(nproc) CPUs; results in $out"
	(
		# shellcheck source=bench/bench-driver.sh
		. "$FWQ_TOP/bench/bench-driver.sh"
		# shellcheck disable=SC2317 # called by bench_drive
		bench_emit() { printf '%s\n' "$1"; }
		bench_drive < "$specs"
	) > "$out/results.txt" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		progress local "$(count_runs "$out/results.txt")" "$total" "$start"
		sleep 2
	done
	wait "$pid" || failed="$failed local"
	echo >&2
	grep '^{"schema":"fwq_bench/1"' "$out/results.txt" >> "$out/results.jsonl"
	grep '^bench-error' "$out/results.txt" >&2 || true
}

# boot_plan TODO LIMIT: a guest plan that runs the spec lines in TODO
boot_plan() {
	echo "# fwq_bench suite plan (generated by bench/bench.sh)"
	echo "cat > /tmp/bench-driver.sh <<'FWQ_BENCH_EOF'"
	echo ". /lib/fwq/guest-lib.sh"
	cat "$FWQ_TOP/bench/bench-driver.sh"
	echo "bench_emit() { fwq_result \"\$1\"; }"
	echo "bench_progress() { fwq_result \"bench-begin: \$2\"; }"
	echo "FWQ_BENCH_EOF"
	echo "cat > /tmp/bench.specs <<'FWQ_BENCH_EOF'"
	cat "$1"
	echo "FWQ_BENCH_EOF"
	echo "fwq_step load_fwq 60 insmod \"\$FWQ_MODDIR/fwq.ko\""
	echo "fwq_step load_fwq_bench 60 insmod \"\$FWQ_MODDIR/fwq_bench.ko\""
	echo "fwq_result \"bench-targets: \$(cat /sys/kernel/debug/fwq_bench/targets)\""
	# the clocksource before and after the suite: a switch shows
	echo "bench_cs=/sys/devices/system/clocksource/clocksource0/current_clocksource"
	echo "bench_cs0=\$(cat \$bench_cs 2>/dev/null)"
	# the guest's uptime before and after the suite: where a boot's time goes
	echo "fwq_result \"bench-uptime: start \$(cut -d' ' -f1 /proc/uptime)\""
	echo "fwq_step bench_suite $2 sh -c '. /tmp/bench-driver.sh && bench_drive < /tmp/bench.specs'"
	echo "fwq_result \"bench-uptime: end \$(cut -d' ' -f1 /proc/uptime)\""
	echo "fwq_result \"bench-clocksource: start=\${bench_cs0:-?} end=\$(cat \$bench_cs 2>/dev/null || echo ?)\""
	echo "fwq_step unload_fwq_bench 60 rmmod fwq_bench"
	# numbers from an engine that broke its own invariants are void
	echo "fwq_step consistency 10 fwq_consistency_ok"
	echo "fwq_step unload_fwq 60 rmmod fwq"
}

# run_boot BOOT KERNEL: the boot's suite in one VM of KERNEL. If the guest crashes (or hangs)
# the spec it was running is recorded in crashes.txt, the remaining specs of
# that variant are dropped (a crash usually repeats) and the rest continue
# in a fresh boot, up to 4 boots.
run_boot() {
	local boot=$1 kern=$2 name=$1
	[ "$kern" = "$FWQ_KERNEL_DEFAULT" ] || name=$boot@$kern
	local append="" specs=$out/$name.specs todo=$out/$name.todo
	local total start pid rc limit vmout attempt=0 before=0 res
	local crashed k v

	case $boot in
	enq) ;;
	p[0-9]*) append="possible_cpus=${boot#p}" ;;
	*) fwq_die 2 "unknown boot '$boot' (enq p8 p64 p192, or pN)" ;;
	esac
	suite "$boot" "$kern" | spec_filter "$scenarios" "${variants[@]}" > "$specs"
	grep -v '^#' "$specs" > "$todo"
	total=$(wc -l < "$todo")
	if [ "$total" = 0 ]; then
		fwq_log "boot $name: no run left by --scenario/--variant"
		return
	fi
	fwq_log "boot $name${append:+ ($append)}: $total runs"
	start=$(date +%s)
	while [ -s "$todo" ] && [ $attempt -lt 4 ]; do
		attempt=$((attempt + 1))
		vmout=$out/vm-$name$([ $attempt -gt 1 ] && echo "-$attempt")
		# generous: the host is shared and TCG speed varies
		limit=$((300 + $(wc -l < "$todo") * 6 * scale))
		boot_plan "$todo" "$limit" > "$out/$name.plan"
		KERNEL=$kern FWQ_VM_QUIET=1 "$FWQ_TOP/scripts/vm-run.sh" --preset "$preset" \
			--plan "$out/$name.plan" --timeout $((limit + 120)) \
			--out "$vmout" ${append:+--append "$append"} \
			> "$vmout.log" 2>&1 &
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			progress "$name" $((before + $(count_runs "$vmout/results.txt"))) "$total" "$start"
			sleep 3
		done
		wait "$pid"
		rc=$?
		res=$vmout/results.clean
		tr -d '\r' < "$vmout/results.txt" > "$res" 2>/dev/null
		before=$((before + $(count_runs "$res")))
		progress "$name" "$before" "$total" "$start"
		echo >&2
		grep '^{"schema":"fwq_bench/1"' "$res" >> "$out/results.jsonl"
		# "LABEL start=CS end=CS" (the report's boot label: BOOT:KERNEL)
		sed -n "s/^bench-clocksource: /${name/@/:} /p" "$res" >> "$out/clocksource.txt"
		grep -E '^bench-(error|targets)' "$res" | sed "s/^/fwq: $name: /" >&2
		[ $rc -eq 0 ] && break
		fwq_log "boot $name: $(tail -n 1 "$vmout.log")"
		failed="$failed $name"
		[ $rc -eq 3 ] || [ $rc -eq 124 ] || break
		# the spec in progress: the last one begun without a result after it
		crashed=$(awk '/^bench-begin: /{ s = substr($0, 14); open = 1; next }
			/^(\{"schema"|bench-error)/{ open = 0 }
			END { if (open) print s }' "$res")
		[ -n "$crashed" ] || break
		k=$(grep -c '^bench-begin: ' "$res")
		echo "$name: $(tail -n 1 "$vmout.log" | sed 's/;.*//'): $crashed" >> "$out/crashes.txt"
		fwq_log "boot $name: crashed during: $crashed"
		tail -n +$((k + 1)) "$todo" > "$todo.next"
		v=$(printf '%s\n' "$crashed" | sed -n 's/.*\(variant=[^ ]*\).*/\1/p')
		if [ -n "$v" ]; then
			fwq_log "boot $name: skipping the remaining $v runs"
			grep -v -F -- "$v " "$todo.next" > "$todo" || true
		else
			mv "$todo.next" "$todo"
		fi
	done
	boot_timing "${name/@/:}" "$start" "$total" "$out/vm-$name/results.clean"
}

# boot_timing LABEL START RUNS RESULTS: one line of timing.txt, where a
# boot's time went: its wall time (every attempt), the guest's uptime when
# the suite started (boot, module loads) and the suite's own time, from
# the first attempt's bench-uptime lines (RESULTS)
boot_timing() {
	local label=$1 start=$2 runs=$3 wall
	shift 3
	wall=$(( $(date +%s) - start ))
	[ -r "$1" ] || set -- /dev/null
	awk -v l="$label" -v w="$wall" -v n="$runs" '
		/^bench-uptime: start / && s == "" { s = $3 }
		/^bench-uptime: end / && e == "" { e = $3 }
		END {
			printf "%s runs=%d wall_s=%d", l, n, w
			if (s != "") printf " suite_start_s=%.1f", s
			if (s != "" && e != "") printf " suite_s=%.1f", e - s
			printf "\n"
		}' "$@" < /dev/null >> "$out/timing.txt"
}

# The counts (bench/README.md, "Counts"): guest instructions and memory
# accesses per operation of every path a verdict or fidelity row times,
# counted by the TCG plugin of tools/icount/ in boots of their own
# (scripts/icount.sh --phases), with the timed boots' preset and possible
# CPUs. count_boot BOOT KERNEL: count boot BOOT (p8, p192) of KERNEL, after
# its timed boots: bench_report.py --count-phases says which paths, fwq
# variants and kwq the report will read for that boot's possible CPUs
# (scripts/plans/icount.plan runs them); none, no boot. Its counts go to
# icount.jsonl, labelled as the timed boots are.
count_boot() {
	local boot=$1 k=$2 label=$1 name=$1 start n cpus
	[ "$k" = "$FWQ_KERNEL_DEFAULT" ] || { label=$boot:$k; name=$boot@$k; }
	local dir=$out/count-$name

	mkdir -p "$dir"
	cpus=$(printf '%s\n' "$counts" | tr ' ' '\n' | sed -n 's/^p//p' | tr '\n' ' ')
	python3 "$FWQ_TOP/bench/bench_report.py" --count-phases "$out" "$label" "$cpus" \
		> "$dir/phases" || { failed="$failed count-$name"; return; }
	n=$(wc -l < "$dir/phases")
	if [ "$n" = 0 ]; then
		rm -r "$dir"
		return
	fi
	fwq_log "count boot $name: $n phases x $count_reps"
	start=$(date +%s)
	if ! "$FWQ_TOP/scripts/icount.sh" --kernels "$k" --no-build \
		--reps "$count_reps" --preset "$preset" --possible "${boot#p}" \
		--phases "$dir/phases" --jsonl "$out/icount.jsonl" \
		--label "$label" --out "$dir" > "$dir/icount.log" 2>&1; then
		fwq_log "count boot $name failed: $(tail -n 1 "$dir/icount.log")"
		failed="$failed count-$name"
	fi
	echo "count:$label phases=$n wall_s=$(( $(date +%s) - start ))" >> "$out/timing.txt"
}

# run_dir R: the directory of suite run R
run_dir() {
	if [ "$repeat" -gt 1 ]; then
		echo "$top/run$1"
	else
		echo "$top"
	fi
}

# spec_field_awk: the awk function spec_filter and list_specs read a spec
# line with: spec_field(NAME), the value of the line's NAME=VALUE field,
# "" when it has none
# shellcheck disable=SC2016 # awk code
spec_field_awk='
function spec_field(name,    i, n) {
	n = length(name) + 2
	for (i = 1; i <= NF; i++)
		if (substr($i, 1, n - 1) == name "=")
			return substr($i, n)
	return ""
}
'

# spec_filter SCENARIOS [VARIANT...]: the spec lines of stdin of those
# scenarios (a comma-separated list; "": all) and variants (none: all);
# "#" lines pass. A VARIANT is "kwq" (target=kwq), or axis=design pairs
# that a run's variant= all holds.
spec_filter() {
	local sc=$1

	shift
	awk -v sc="$sc" -v vs="$*" "$spec_field_awk"'
		function vmatch(var, kwq,  i, j, n, p, ok) {
			for (i = 1; i <= nv; i++) {
				if (v[i] == "kwq") {
					if (kwq)
						return 1
					continue
				}
				if (kwq)
					continue
				n = split(v[i], p, ",")
				ok = 1
				for (j = 1; j <= n; j++)
					if (!index("," var ",", "," p[j] ","))
						ok = 0
				if (ok)
					return 1
			}
			return 0
		}
		BEGIN {
			ns = split(sc, s, ",")
			for (i = 1; i <= ns; i++)
				want[s[i]] = 1
			nv = split(vs, v, " ")
		}
		/^#/ { print; next }
		{
			scen = spec_field("scenario")
			var = spec_field("variant")
			kwq = spec_field("target") == "kwq"
			if (ns && !(scen in want))
				next
			if (nv && !vmatch(var, kwq))
				next
			print
		}'
}

# all_specs: every spec line the suite makes, unfiltered: the running
# kernel's (--local), else every boot of every kernel of --kernels
all_specs() {
	local k b

	if [ $local_mode = 1 ]; then
		suite local
		return
	fi
	for k in $kernels; do
		for b in $boots; do
			[ "$b" = p64 ] && [ "$k" != "$FWQ_KERNEL_DEFAULT" ] && continue
			suite "$b" "$k"
		done
	done
}

# list_specs FROM: --list, the spec lines of stdin per scenario and per
# variant (FROM: where the variants came from)
list_specs() {
	awk -v from="$1" -v head="reps $reps, primary reps $primary_reps, scale $scale" "$spec_field_awk"'
		/^#/ { next }
		{
			scen = spec_field("scenario")
			var = spec_field("target") == "kwq" ? "kwq" : spec_field("variant")
			typ = spec_field("type")
			scope = spec_field("scope")
			n++
			if (!(scen in sn))
				so[++nso] = scen
			sn[scen]++
			if (typ != "" && !((scen, "t", typ) in seen)) {
				seen[scen, "t", typ] = 1
				st[scen] = st[scen] " " typ
			}
			if (scope != "" && !((scen, "s", scope) in seen)) {
				seen[scen, "s", scope] = 1
				ss[scen] = ss[scen] " " scope
			}
			if (!(var in vn))
				vo[++nvo] = var
			vn[var]++
			if (!((var, scen) in seen)) {
				seen[var, scen] = 1
				vs[var] = vs[var] " " scen
			}
		}
		END {
			printf "%d runs (%s); variants from %s\n\n", n, head, from
			printf "%-8s %6s  %-16s %s\n", "scenario", "runs", "types", "scopes"
			for (i = 1; i <= nso; i++) {
				s = so[i]
				printf "%-8s %6d  %-16s %s\n", s, sn[s],
					st[s] == "" ? "-" : substr(st[s], 2),
					ss[s] == "" ? "-" : substr(ss[s], 2)
			}
			printf "\n%-44s %6s  %s\n", "variant", "runs", "scenarios"
			for (i = 1; i <= nvo; i++)
				printf "%-44s %6d  %s\n", vo[i], vn[vo[i]], substr(vs[vo[i]], 2)
		}'
}

# The suite's runs, filtered, before anything is changed. In a source tree
# the variants come from include/fwq/variants.h; the package's runner reads
# the loaded fwq's debugfs "variants", so a run loads the modules first and
# --list, which loads nothing, needs them loaded.
preflown=0
if [ $local_mode = 1 ] && [ ! -r "$FWQ_TOP/include/fwq/variants.h" ] &&
   [ ! -r "$local_debugfs/fwq/variants" ]; then
	[ $list = 0 ] ||
		fwq_die 1 "fwq is not loaded, and its debugfs 'variants' names the suite's variants: modprobe fwq (as root), then fwq-bench --list"
	local_preflight
	local_modules
	preflown=1
fi
# make bench makes its specs per boot, after deps.sh has installed the
# compiler the registry is read with: here only to filter or list
if [ $local_mode = 1 ] || [ $list = 1 ] || [ -n "$scenarios" ] ||
   [ ${#variants[@]} -gt 0 ]; then
	variants_from="fwq's debugfs variants ($local_debugfs/fwq/variants)"
	[ -r "$FWQ_TOP/include/fwq/variants.h" ] &&
		variants_from="the registry ($FWQ_TOP/include/fwq/variants.h)"
	suite_specs=$(all_specs)
	all=$(printf '%s\n' "$suite_specs" | grep -v '^#')
	for sc in $(printf '%s\n' "$scenarios" | tr ',' ' '); do
		printf '%s\n' "$all" | grep -q -- "^scenario=$sc " ||
			bad "--scenario: the suite has no scenario '$sc' (it has: $(printf '%s\n' "$all" |
				sed 's/^scenario=\([^ ]*\).*/\1/' | awk '!s[$0]++' | tr '\n' ' ' | sed 's/ $//'))"
	done
	for v in "${variants[@]}"; do
		case $v in
		''|*' '*) bad "--variant: bad variant '$v'" ;;
		esac
		printf '%s\n' "$all" | spec_filter "" "$v" | grep -q . ||
			bad "--variant: no run of the suite has variant '$v' (fwq-bench --list names them)"
	done
	suite_specs=$(printf '%s\n' "$suite_specs" | spec_filter "$scenarios" "${variants[@]}")
	printf '%s\n' "$suite_specs" | grep -qv '^#' ||
		bad "no run of the suite is both --scenario $scenarios and --variant ${variants[*]}"
	if [ $list = 1 ]; then
		printf '%s\n' "$suite_specs" | list_specs "$variants_from"
		exit 0
	fi
fi
[ $local_mode = 1 ] && [ $preflown = 0 ] && local_preflight
mkdir -p "$out" || fwq_die 2 "cannot create $out"
out=$(cd "$out" && pwd)
top=$out

failed=
t0=$(date +%s)
for r in $(seq 1 "$repeat"); do
	mkdir -p "$(run_dir "$r")"
	: > "$(run_dir "$r")/results.jsonl"
done
if [ $local_mode = 1 ]; then
	for r in $(seq 1 "$repeat"); do
		out=$(run_dir "$r")
		run_local
	done
else
	# one build per kernel: its boots of every suite run, back to back
	unset KDIR KREL
	for k in $kernels; do
		KERNEL=$k "$FWQ_TOP/scripts/deps.sh" >&2 ||
			fwq_die 2 "dependency installation failed (kernel $k)"
		make -C "$FWQ_TOP" KERNEL="$k" modules > "$top/build-$k.log" 2>&1 ||
			{ tail -n 30 "$top/build-$k.log" >&2; fwq_die 2 "build failed (see $top/build-$k.log)"; }
		for r in $(seq 1 "$repeat"); do
			out=$(run_dir "$r")
			[ "$repeat" -gt 1 ] && fwq_log "suite run $r of $repeat, kernel $k: $out"
			# fwq's copy of the kernel's design, for the report's
			# fidelity rows
			(fwq_kernel_load "$k" && [ -n "$FWQ_K_DESIGN" ] &&
				echo "$k $FWQ_K_DESIGN" >> "$out/designs.txt") || :
			for b in $boots; do
				# p64: the default kernel's flush-scaling plot only
				[ "$b" = p64 ] && [ "$k" != "$FWQ_KERNEL_DEFAULT" ] && continue
				run_boot "$b" "$k"
			done
			for b in $counts; do
				count_boot "$b" "$k"
			done
		done
	done
fi

runs=
for r in $(seq 1 "$repeat"); do
	python3 "$FWQ_TOP/bench/bench_report.py" "$(run_dir "$r")" ||
		fwq_die 1 "report failed"
	runs="$runs $(run_dir "$r")"
done
if [ "$repeat" -gt 1 ]; then
	# shellcheck disable=SC2086 # one directory per word
	python3 "$FWQ_TOP/bench/bench_report.py" --compare "$top" $runs ||
		fwq_die 1 "repeatability report failed"
fi
fwq_log "bench finished in $(( $(date +%s) - t0 ))s: $top"
if [ -n "$failed" ]; then
	fwq_log "boots with failures:$failed (results above are partial; see the vm-*/ and results.txt files under $top)"
	exit 1
fi
