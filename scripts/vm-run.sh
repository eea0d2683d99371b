#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-run.sh --preset small|wide|timing --plan FILE [--timeout S] [--stall S]
#           [--out DIR] [--append "CMDLINE"] [--flavour rt] [--modules DIR]
#           [--ko FILE]... [--disk FILE]
#
# Boot the Debian kernel under QEMU TCG with a busybox initramfs holding
# fwq's built modules (guest path /modules/), run a guest plan
# (scripts/plans/NAME.plan, or a path) and classify the run. Exit codes:
#   0   pass
#   1   test failure (a step or KTAP case failed)
#   2   setup error (no kernel image, no modules, vermagic mismatch, QEMU)
#   3   kernel crash or badness (panic, BUG, WARNING, Oops, lockup, stall,
#       hung task, lockdep/KASAN/KCSAN/UBSAN report, bad taint); a KCSAN
#       report with no fwq frame is not counted (console-scan.sh)
#   124 timeout: the hard limit (--timeout) was hit, or the guest stalled:
#       nothing new on any of its serial channels, its heartbeat included,
#       for --stall seconds (default 180, FWQ_VM_STALL; 0 turns it off)
# A boot whose first report is an emulator fault, a vCPU trapping on an
# int3 that memory no longer holds (scripts/stale-int3.sh), is no verdict:
# its files go to OUT/first-boot/ and the run boots once more, into OUT;
# the exit code is the second boot's, where the same fault is a crash (3).
# OUT (default results/<timestamp>-<preset>-<plan>/) keeps console.log,
# results.txt (result channel), ktap.txt, heartbeat.log, summary.txt,
# qemu-cmd. Before a timed-out or stalled guest is killed, vm-diag.py asks
# it where it is (QEMU's view of every vCPU, then SysRq l and w): diag.txt
# and diag-regs.txt, named in the summary line. The badness scan reads the
# console only up to that request (its byte offset kept in diag-at.txt, for
# make recheck), so the requested backtraces are not mistaken for a crash.
#
# possible_cpus=N on the guest's command line (the wide preset, the bench's
# pN boots) also makes the firmware list N CPUs, the vCPUs and N minus
# them hot-pluggable (QEMU's maxcpus, the extra sockets spread over the
# NUMA nodes). A kernel from 6.9 on counts a disabled MADT entry as
# possible only on an ACPI 6.3 FADT with the online-capable flag, or when
# it detects a hypervisor, and it detects none under TCG: such boots look
# like VMware to the kernel (no CPUID hypervisor bit, a "VMware" DMI
# serial, QEMU's VMware port answering the version query), which it
# detects with no paravirt feature under QEMU but a reliable TSC
# (docs/testing.md, "Possible CPUs").
#
# --modules DIR boots the *.ko files found under DIR instead of the tree's
# src/ and bench/ modules; --ko FILE adds one module (repeatable).
# --disk FILE attaches the raw image FILE as a virtio-blk disk (/dev/vda
# once the guest loads the virtio_blk stack), written in place; with
# cache=unsafe, so the guest's flushes never reach the host's disk.
# Environment: KREL (target release), FWQ_CACHE, FWQ_QEMU (the QEMU binary,
# default the one scripts/get-qemu.sh unpacked from FWQ_QEMU_SUITE, default
# bookworm-backports; one unpacked under <root>/usr/bin gets
# <root>/usr/share's firmware),
# FWQ_QEMU_ACCEL (default "tcg,thread=multi"), FWQ_QEMU_ARGS (more QEMU
# arguments, split at blanks: make icount's -plugin), FWQ_VM_QUIET=1 (no per-test lines), FWQ_VM_STALL,
# FWQ_VM_PANIC_GRACE (a guest that hangs after "Kernel panic" is stopped
# once its console is quiet this long, default 20 s: exit 3).
# report.txt: the console from the first badness line on (40 lines, the
# register dump left out), also printed under the summary.
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	sed -n '4,6p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# the arguments, for the second boot after an emulator fault
vm_args=("$@")
preset=
plan=
timeout=300
stall=${FWQ_VM_STALL:-180}
out=
append=
flavour=${FLAVOUR:-}
moddir=
disk=
extra_ko=()
while [ $# -gt 0 ]; do
	case "$1" in
	--preset) preset=${2:-}; shift 2 || usage ;;
	--plan) plan=${2:-}; shift 2 || usage ;;
	--timeout) timeout=${2:-}; shift 2 || usage ;;
	--stall) stall=${2:-}; shift 2 || usage ;;
	--out) out=${2:-}; shift 2 || usage ;;
	--append) append=${2:-}; shift 2 || usage ;;
	--flavour|--flavor) flavour=${2:-}; shift 2 || usage ;;
	--modules) moddir=${2:-}; shift 2 || usage ;;
	--ko) extra_ko+=("${2:-}"); shift 2 || usage ;;
	--disk) disk=${2:-}; shift 2 || usage ;;
	-h|--help) usage ;;
	*) fwq_log "unknown argument $1"; usage ;;
	esac
done
if [ -z "$preset" ] || [ -z "$plan" ]; then
	usage
fi
case "$flavour" in
''|rt) ;;
*) fwq_die 2 "unknown flavour '$flavour' (only rt)" ;;
esac
case "$timeout" in
''|*[!0-9]*) fwq_die 2 "--timeout needs whole seconds" ;;
esac
case "$stall" in
''|*[!0-9]*) fwq_die 2 "--stall needs whole seconds" ;;
esac

[ -z "$disk" ] || [ -f "$disk" ] || fwq_die 2 "--disk $disk: no such file"
presetf=$FWQ_TOP/scripts/presets/$preset
[ -r "$presetf" ] || fwq_die 2 "unknown preset '$preset' (see scripts/presets/)"
# a plan's name wins over a folder of that name where it runs (tools/)
if [ ! -f "$plan" ] && [ -r "$FWQ_TOP/scripts/plans/$plan.plan" ]; then
	plan=$FWQ_TOP/scripts/plans/$plan.plan
fi
if [ ! -f "$plan" ] || [ ! -r "$plan" ]; then
	fwq_die 2 "plan '$plan' not found"
fi
planname=$(basename "$plan" .plan)

if [ -z "$out" ]; then
	out=$FWQ_TOP/results/$(date +%Y%m%d-%H%M%S)-$preset-$planname${flavour:+-$flavour}
fi
mkdir -p "$out" || fwq_die 2 "cannot create $out"
out=$(cd "$out" && pwd)
rm -f "$out"/{console.log,results.txt,ktap.raw,ktap.txt,tests.txt,summary.txt,badness.txt,report.txt,kcsan-foreign.txt,emulator.txt,qemu.log,heartbeat.log,diag.txt,diag-regs.txt,diag-at.txt}
[ -n "${FWQ_VM_FIRST_BOOT:-}" ] || rm -rf "$out/first-boot"

FWQ_SMP='' FWQ_MEM_MB='' FWQ_NODES='' FWQ_APPEND=''
# shellcheck source=scripts/presets/small
. "$presetf"

krel=$(FLAVOUR=$flavour fwq_krel) || fwq_die 2 "cannot determine the target release (FLAVOUR='$flavour')"
kernel=$("$FWQ_TOP/scripts/get-kernel.sh" "$krel") || fwq_die 2 "no guest kernel for $krel"

if [ -n "$moddir" ]; then
	mapfile -t kos < <(find "$moddir" -name '*.ko' | sort)
else
	# tests/selfcheck/ holds the self-checks' buggy modules: those boot
	# only when named with --ko (selfcheck.sh)
	mapfile -t kos < <(find "$FWQ_TOP/src" "$FWQ_TOP/bench" "$FWQ_TOP/tests" \
		-path "$FWQ_TOP/tests/selfcheck" -prune -o -name '*.ko' -print |
		sort)
fi
kos+=("${extra_ko[@]}")
[ ${#kos[@]} -gt 0 ] || fwq_die 2 "no modules to boot: run make first"
for ko in "${kos[@]}"; do
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{ print $1 }')
	[ "$vm" = "$krel" ] || fwq_die 2 "$ko was built for '$vm', the guest runs $krel (rebuild: make${flavour:+ FLAVOUR=$flavour})"
done

"$FWQ_TOP/scripts/mkinitramfs.sh" "$out/initramfs.cpio.gz" "$plan" "${kos[@]}" ||
	fwq_die 2 "initramfs build failed"

numa=()
mem=${FWQ_MEM_MB:-1024}
read -r -a nodes <<< "$FWQ_NODES"
nodecpus=("${nodes[@]}")

# possible_cpus=N (the last one given): the topology's sockets repeated
# up to N CPUs, those past the vCPUs hot-pluggable, socket S on node S mod
# the node count
smp=$FWQ_SMP
platform=()
possible=$(grep -o 'possible_cpus=[0-9]*' <<< "${FWQ_APPEND:-} ${append:-}" |
	tail -n 1 | cut -d= -f2)
IFS=, read -r -a smpf <<< "$FWQ_SMP"
vcpus=${smpf[0]}
if [ -n "$possible" ] && [ "$possible" -gt "$vcpus" ]; then
	cores=1
	threads=1
	for f in "${smpf[@]:1}"; do
		case "$f" in
		cores=*) cores=${f#*=} ;;
		threads=*) threads=${f#*=} ;;
		sockets=*|maxcpus=*) ;;
		*) fwq_die 2 "possible_cpus=$possible: cannot extend -smp $FWQ_SMP ($f)" ;;
		esac
	done
	per_socket=$((cores * threads))
	if [ $((possible % per_socket)) -ne 0 ] || [ $((vcpus % per_socket)) -ne 0 ]; then
		fwq_die 2 "possible_cpus=$possible: not a whole number of ${per_socket}-CPU sockets"
	fi
	smp=$vcpus,sockets=$((possible / per_socket)),cores=$cores,threads=$threads,maxcpus=$possible
	for ((sk = vcpus / per_socket; sk < possible / per_socket; sk++)); do
		[ ${#nodes[@]} -gt 0 ] || break
		i=$((sk % ${#nodes[@]}))
		nodecpus[i]+=",cpus=$((sk * per_socket))-$(((sk + 1) * per_socket - 1))"
	done
	# shellcheck disable=SC2054 # commas are qemu option syntax
	platform=(-smbios type=1,serial=VMware-fwq)
fi
if [ ${#nodes[@]} -gt 0 ]; then
	per=$((mem / ${#nodes[@]}))
	mem=$((per * ${#nodes[@]}))
	for i in "${!nodes[@]}"; do
		numa+=(-object "memory-backend-ram,id=mem$i,size=${per}M"
		       -numa "node,nodeid=$i,memdev=mem$i,cpus=${nodecpus[$i]}")
	done
fi

# Oops and WARN are fatal; the detectors stay on but get TCG-sized
# thresholds (2 host CPUs may run 8 vCPUs).
cmdline="console=ttyS0 panic=-1 oops=panic panic_on_warn=1"
cmdline+=" softlockup_panic=1 hung_task_panic=1 watchdog_thresh=30"
cmdline+=" rcupdate.rcu_cpu_stall_timeout=60 log_buf_len=4M"
# For vm-diag.py: nokaslr, so that vCPU RIPs resolve against System.map;
# SysRq on, with device interrupts (the keyboard's) on CPU 0 from boot (a
# legacy IRQ cannot be moved off a CPU that no longer takes interrupts);
# its last resort, an NMI, panics the guest with every task's stack.
cmdline+=" nokaslr sysrq_always_enabled irqaffinity=0"
cmdline+=" unknown_nmi_panic panic_print=0x1"
# tsc=reliable: no clocksource watchdog. 7.3's, run from a timer while a
# CPU waits in stop_machine() early in boot with the timekeeping still on
# jiffies, can wait for ever for a CPU that has interrupts off; and a
# watchdog that marks the TCG TSC unstable moves a bench boot to HPET,
# where one clock read costs microseconds (docs/testing.md, "Guest command
# line"; bench/README.md, "The guest clock").
cmdline+=" tsc=reliable"
# no_timer_check: the IO-APIC timer check at boot counts the timer ticks
# that arrive while the boot CPU spins for a fixed TSC span, and panics
# ("IO-APIC + timer doesn't work!") with fewer than five. Under TCG those
# ticks come from QEMU's main loop, which a loaded host can starve for
# that long: a 7.3 boot panicked so at 0.028 s in a .ci/run beside four
# other jobs. The selfcheck-harness case timer_check boots with no PIT or
# HPET, where the check always fails, and expects a pass.
cmdline+=" no_timer_check"
cmdline+=" fwq.preset=$preset fwq.plan=$planname"
# a second boot after an emulator fault says so (the selfcheck-int3 plan)
[ -z "${FWQ_VM_FIRST_BOOT:-}" ] || cmdline+=" fwq.boot=2"
cmdline+="${FWQ_APPEND:+ $FWQ_APPEND}${append:+ $append}"

# the monitor socket: a short path (a UNIX socket name has 107 bytes)
mondir=$(mktemp -d /tmp/fwq-mon.XXXXXX) || fwq_die 2 "mktemp failed"
trap 'rm -rf "$mondir"' EXIT
monitor=$mondir/monitor.sock
# FWQ_QEMU, else the QEMU that deps.sh unpacked (get-qemu.sh), else the
# machine's own (whose 7.2 can hang a guest that patches kernel text)
qemu_bin=${FWQ_QEMU:-$FWQ_CACHE/qemu/$FWQ_QEMU_SUITE/usr/bin/qemu-system-x86_64}
if [ -z "${FWQ_QEMU:-}" ] && [ ! -x "$qemu_bin" ]; then
	fwq_log "no $FWQ_QEMU_SUITE QEMU in the cache (scripts/deps.sh): using the machine's"
	qemu_bin="qemu-system-x86_64"
fi
# shellcheck disable=SC2054 # commas are qemu option syntax
qemu=("$qemu_bin" -nodefaults -display none -no-reboot
      -monitor "unix:$monitor,server=on,wait=off"
      -machine "pc${platform[*]:+,vmport=on}" -accel "${FWQ_QEMU_ACCEL:-tcg,thread=multi}"
      -cpu "max,vendor=GenuineIntel${platform[*]:+,-hypervisor}" "${platform[@]}"
      -smp "$smp" -m "${mem}M" "${numa[@]}"
      -kernel "$kernel" -initrd "$out/initramfs.cpio.gz" -append "$cmdline"
      -serial "file:$out/console.log" -serial "file:$out/results.txt"
      -serial "file:$out/ktap.raw" -serial "file:$out/heartbeat.log"
      -device isa-debug-exit,iobase=0xf4,iosize=0x04)
# shellcheck disable=SC2054 # commas are qemu option syntax
[ -z "$disk" ] || qemu+=(-drive "file=$disk,format=raw,if=none,id=disk0,cache=unsafe"
			 -device virtio-blk-pci,drive=disk0)
command -v "$qemu_bin" >/dev/null || fwq_die 2 "$qemu_bin missing (scripts/deps.sh)"
# a QEMU unpacked outside /usr (FWQ_QEMU=<root>/usr/bin/...): its firmware
qroot=$(dirname "$(dirname "$(command -v "$qemu_bin")")")
for d in "$qroot/share/seabios" "$qroot/share/qemu"; do
	[ "$qroot" = /usr ] || [ ! -d "$d" ] || qemu+=(-L "$d")
done
# shellcheck disable=SC2206 # FWQ_QEMU_ARGS is a list of words
[ -z "${FWQ_QEMU_ARGS:-}" ] || qemu+=($FWQ_QEMU_ARGS)
printf '%q ' "${qemu[@]}" > "$out/qemu-cmd"
echo >> "$out/qemu-cmd"

fwq_log "booting $krel, preset $preset, plan $planname (timeout ${timeout}s), out $out"
# sysmap: System.map of the guest kernel, for vm-diag.py: in the build
# tree of a built kernel (the cached image links to its bzImage), else
# from Debian's -dbg package (its image ships a stub), fetched only when
# a guest is diagnosed
sysmap() {
	local m

	m=$(readlink -f "$kernel")
	m=${m%/arch/x86/boot/bzImage}/System.map
	if [ -s "$m" ]; then
		printf '%s\n' "$m"
	else
		"$FWQ_TOP/scripts/get-sysmap.sh" "$krel" 2>/dev/null
	fi
}

# vm_size: bytes on all serial channels (the progress measure)
vm_size() {
	stat -c %s "$out/console.log" "$out/results.txt" "$out/ktap.raw" \
		"$out/heartbeat.log" 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'
}

# diagnose WHY: ask the guest where it is (diag.txt), then stop QEMU.
# Sets diag_at: the console size when the SysRq requests were made.
diag_at=
diagnose() {
	local why=$1 i kargs

	fwq_log "$why: asking the guest where it is ($out/diag.txt)"
	kargs=()
	for i in "${kos[@]}"; do
		kargs+=(--ko "$i")
	done
	diag_at=$(timeout -k 5 300 python3 "$FWQ_TOP/scripts/vm-diag.py" --monitor "$monitor" \
		--console "$out/console.log" --out "$out" \
		--system-map "$(sysmap)" --heartbeat "$out/heartbeat.log" \
		"${kargs[@]}" --why "$why" 2> "$out/diag.log" | tail -n 1)
	[ -z "$diag_at" ] || echo "$diag_at" > "$out/diag-at.txt"
	kill "$qpid" 2>/dev/null
	for i in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$qpid" 2>/dev/null || break
		sleep 1
	done
	kill -9 "$qpid" 2>/dev/null
}

start=$(fwq_now)
"${qemu[@]}" < /dev/null > "$out/qemu.log" 2>&1 &
qpid=$!
# Watch the guest: the hard limit, and the stall limit on progress (the
# guest's /init writes a heartbeat to ttyS3 every 5 s, so a quiet step is
# not a stall; a guest whose userspace stops running is).
stalled=
timedout=
panicked=
panic_hung=
last=-1
last_t=$SECONDS
t0=$SECONDS
while kill -0 "$qpid" 2>/dev/null; do
	sleep 2
	kill -0 "$qpid" 2>/dev/null || break
	now=$SECONDS
	size=$(vm_size)
	if [ "$size" != "$last" ]; then
		last=$size
		last_t=$now
	fi
	if [ $((now - t0)) -ge "$timeout" ]; then
		timedout=1
		diagnose "timed out after ${timeout}s"
		break
	fi
	# a panicking guest reboots (panic=-1) and QEMU exits (-no-reboot);
	# one whose panic path hangs is stopped once its console is quiet
	# for FWQ_VM_PANIC_GRACE seconds, not after the stall limit
	if [ -z "$panicked" ] &&
	   grep -aq -m 1 'Kernel panic - not syncing' "$out/console.log"; then
		panicked=$now
	fi
	if [ -n "$panicked" ] &&
	   [ $((now - last_t)) -ge "${FWQ_VM_PANIC_GRACE:-20}" ]; then
		fwq_log "the guest panicked and hangs: stopping it"
		panic_hung=$((now - last_t))
		kill "$qpid" 2>/dev/null
		sleep 2
		kill -9 "$qpid" 2>/dev/null
		break
	fi
	if [ "$stall" -gt 0 ] && [ $((now - last_t)) -ge "$stall" ]; then
		stalled=$((now - last_t))
		diagnose "stalled: no output on any channel for ${stalled}s"
		break
	fi
done
wait "$qpid"
qrc=$?
[ -z "$timedout$stalled" ] || qrc=124
wall=$(fwq_elapsed "$start")

# Assemble ktap.txt: the guest sends one result per step (with nested
# module KTAP); the header and plan are added here.
touch "$out/console.log" "$out/results.txt" "$out/ktap.raw"
tr -d '\r' < "$out/ktap.raw" > "$out/ktap.body"
nres=$(grep -cE '^(not )?ok [0-9]+' "$out/ktap.body")
{
	echo "KTAP version 1"
	echo "1..$nres"
	cat "$out/ktap.body"
} > "$out/ktap.txt"
rm -f "$out/ktap.raw" "$out/ktap.body"

# The console's badness scan and the KTAP summary (fwq_vm_judge, which
# make recheck runs again on a saved run): badness.txt, report.txt,
# kcsan-foreign.txt and tests.txt. The requested SysRq output (after
# diag_at) is not a crash.
fwq_vm_judge "$out" "$preset.$planname" "$diag_at"
krc=$?
verdict=$(grep -a '^fwq-verdict:' "$out/results.txt" | tail -n 1 | tr -d '\r')

if [ -s "$out/emulator.txt" ] && [ -z "${FWQ_VM_FIRST_BOOT:-}" ]; then
	rc=5 why="emulator fault: $(cat "$out/emulator.txt"); booting again"
elif [ -s "$out/badness.txt" ]; then
	rc=3 why="kernel badness on the console (see badness.txt)"
elif [ -n "$stalled" ]; then
	rc=124 why="stalled: no output on any channel for ${stalled}s (limit ${stall}s)"
elif [ -n "$timedout" ]; then
	rc=124 why="timed out after ${timeout}s"
elif [ -n "$panic_hung" ]; then
	rc=3 why="guest panicked"
elif [ $qrc -eq 0 ]; then
	rc=3 why="guest died without a verdict (panic or reboot)"
elif [ $qrc -eq 33 ]; then
	if [ $krc -ne 0 ]; then
		rc=1 why="guest passed but the KTAP document has failures"
	elif [ "${verdict%% *}" != "fwq-verdict:" ] || [ "$(echo "$verdict" | awk '{print $2}')" != PASS ]; then
		rc=3 why="pass exit code but no PASS verdict on the result channel"
	elif [ "$nres" -eq 0 ]; then
		rc=1 why="no test results"
	else
		rc=0 why="$verdict"
	fi
elif [ $qrc -eq 35 ]; then
	rc=1 why="${verdict:-test failure}"
elif [ $qrc -eq 37 ]; then
	rc=2 why="guest setup error"
else
	rc=2 why="qemu exited with $qrc (see qemu.log)"
fi

case $rc in
0) word=PASS ;;
1) word=FAIL ;;
2) word=SETUP-ERROR ;;
3) word=CRASH ;;
5) word=EMULATOR-FAULT ;;
*) word=TIMEOUT ;;
esac
[ -n "${FWQ_VM_FIRST_BOOT:-}" ] &&
	why+="; the second boot, after an emulator fault in the first ($FWQ_VM_FIRST_BOOT)"
{
	[ "${FWQ_VM_QUIET:-0}" = 1 ] || cat "$out/tests.txt"
	[ -s "$out/badness.txt" ] && sed 's/^/badness: /' "$out/badness.txt" | head -n 10
	[ -s "$out/report.txt" ] && sed 's/^/report: /' "$out/report.txt"
	[ -s "$out/diag.txt" ] && why+="; diagnosis in $out/diag.txt"
	[ -n "$panic_hung" ] &&
		why+="; its panic path hung, stopped after ${panic_hung}s of silence"
	[ -s "$out/kcsan-foreign.txt" ] &&
		why+="; $(grep -c . "$out/kcsan-foreign.txt") KCSAN report(s) with no fwq frame, not counted (kcsan-foreign.txt)"
	echo "vm-run: $word $preset $planname${flavour:+ ($flavour)}: $why; exit $rc; qemu rc $qrc; ${wall}s; $out"
} | tee "$out/summary.txt"
# An emulator fault (stale-int3.sh) is no verdict on the guest: its files
# move to OUT/first-boot/ and the run boots once more, into OUT.
if [ $rc -eq 5 ]; then
	rm -rf "$out/first-boot"
	mkdir "$out/first-boot" || fwq_die 2 "cannot create $out/first-boot"
	find "$out" -maxdepth 1 -type f -exec mv -t "$out/first-boot" {} +
	FWQ_VM_FIRST_BOOT=$out/first-boot exec "$0" "${vm_args[@]}" --out "$out"
fi
exit $rc
