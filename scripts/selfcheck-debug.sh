#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selfcheck-debug.sh [--out DIR] [--only GLOB]: prove that the debug-kernel lanes of make
# check-debug catch what they are there to catch. Builds the deliberately
# buggy tests/selfcheck/fwq_selfcheck.ko against each lane's kernel (built
# already: make debug-kernel LANE=lockdep|kcsan) and boots it with
# scripts/plans/selfcheck-debug.plan, several bugs to a boot where their
# detectors allow it:
#   lockdep lane  lockinv (lockdep), sleep (atomic sleep), leak (kmemleak
#                 step fails); rawnest (PROVE_RAW_LOCK_NESTING), uaf
#                 (KASAN); flushself; flushown (fwq's flush-dependency
#                 lockdep maps, with fwq.ko and fwq_selfcheck_flush.ko
#                 built beside it). Lockdep reports once a boot, so every
#                 boot has one lockdep case, first; a KASAN report panics
#                 the guest, so uaf comes last.
#   kcsan lane    race (KCSAN)
# A boot must end in vm-run.sh's exit 3 (a kernel report), or 1 when its
# only case is leak; each case passes when that holds and the console
# holds its detector's own report. Prints and writes (DIR/tests.txt) one
# "ok"/"not ok LANE.MODE" line per case (--only: the cases GLOB matches,
# booted without the others); exit 1 on failure.
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP" || exit 2

out=$FWQ_TOP/results/$(date +%Y%m%d-%H%M%S)-selfcheck-debug
only='*'
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:-}; shift 2 || fwq_die 2 "--out needs a directory" ;;
	--only) only=${2:-}; shift 2 || fwq_die 2 "--only needs a glob" ;;
	-h|--help) sed -n '3,15p' "$0"; exit 0 ;;
	*) fwq_die 2 "unknown argument: $1" ;;
	esac
done
mkdir -p "$out" || fwq_die 2 "cannot create $out"
: > "$out/tests.txt"
failed=0

result() {
	echo "$1" | tee -a "$out/tests.txt"
	case "$1" in
	'not ok'*) failed=$((failed + 1)) ;;
	esac
}

# lane LANE: build fwq_selfcheck.ko for LANE's kernel; sets rel and mods
lane() {
	local info kdir bz

	info=$("$FWQ_TOP/scripts/debug-kernel.sh" --lane "$1" --no-build) ||
		return 1
	kdir=$(sed -n 's/^FWQ_DK_KDIR=//p' <<< "$info")
	bz=$(sed -n 's/^FWQ_DK_BZIMAGE=//p' <<< "$info")
	rel=$(sed -n 's/^FWQ_DK_RELEASE=//p' <<< "$info")
	mkdir -p "$FWQ_CACHE/kernel/$rel/boot" &&
		ln -sfn "$bz" "$FWQ_CACHE/kernel/$rel/boot/vmlinuz-$rel" || return 1
	mods=$out/modules-$1
	rm -rf "$mods"
	mkdir -p "$mods" || return 1
	if [ "$1" = lockdep ]; then
		# fwq.ko too, and the module that misuses it (the flush cases)
		fwq_copy_sources "$mods" tests/selfcheck || return 1
		echo 'obj-m += tests/selfcheck/' >> "$mods/Kbuild"
		make -C "$kdir" M="$mods" -j"$(nproc)" FWQ_TESTS=n \
			FWQ_SELFCHECK_FLUSH=m modules > "$mods/build.log" 2>&1
	else
		cp tests/selfcheck/fwq_selfcheck.c tests/selfcheck/Kbuild \
			"$mods/" &&
			make -C "$kdir" M="$mods" modules > "$mods/build.log" 2>&1
	fi
}

# boot LANE CMDLINE MODE RC REPORT [MODE RC REPORT...]: one boot on LANE
# (with CMDLINE added) of the MODEs --only selects, in the order given;
# want the highest of their exit codes RC, and each MODE's REPORT (a
# grep -E pattern) on the console
boot() {
	local lane=$1 extra=$2 modes='' want=0 dir rc start i name
	local -a sel=()

	shift 2
	while [ $# -ge 3 ]; do
		# shellcheck disable=SC2254 # a glob on purpose
		case "$lane.$1" in
		$only)
			sel+=("$1" "$2" "$3")
			modes=${modes:+$modes+}$1
			[ "$2" -le "$want" ] || want=$2
			;;
		esac
		shift 3
	done
	[ ${#sel[@]} -gt 0 ] || return 0
	dir=$out/$lane-${modes//+/-}
	start=$(fwq_now)
	KREL=$rel FWQ_VM_QUIET=1 "$FWQ_TOP/scripts/vm-run.sh" --modules "$mods" \
		--preset small --plan selfcheck-debug --timeout 300 --out "$dir" \
		--append "fwqsc.mode=$modes${extra:+ $extra}" > "$dir.log" 2>&1
	rc=$?
	for ((i = 0; i < ${#sel[@]}; i += 3)); do
		name=$lane.${sel[i]}
		if [ $rc -ne "$want" ]; then
			result "not ok $name # exit $rc, expected $want (see $dir.log)"
		elif ! grep -qE "${sel[i + 2]}" "$dir/console.log"; then
			result "not ok $name # exit $rc but no '${sel[i + 2]}' report on the console"
		else
			result "ok $name # exit $rc and '${sel[i + 2]}' on the console, boot of $modes $(fwq_elapsed "$start")s"
		fi
	done
}

if lane lockdep; then
	# lockinv before sleep: a mutex under a spinlock is an invalid wait
	# context too, and that report would turn lockdep off first
	boot lockdep "" \
		lockinv 3 'possible circular locking dependency' \
		sleep 3 'sleeping function called from invalid context' \
		leak 1 'unreferenced object'
	boot lockdep "" \
		rawnest 3 'BUG: Invalid wait context' \
		uaf 3 'KASAN: (slab-)?use-after-free'
	# fwq's flush-dependency maps: an item that flushes itself, or its
	# own workqueue, is a recursive acquisition of the map
	boot lockdep "" flushself 3 'possible recursive locking detected'
	boot lockdep "" flushown 3 'possible recursive locking detected'
else
	result "not ok lockdep # no lockdep kernel or module build failed"
fi
if lane kcsan; then
	# as the KCSAN lane boots (debug-kernel-run.sh): the report itself,
	# not a panic, must fail the run
	boot kcsan panic_on_warn=0 race 3 'KCSAN: data-race in sc_race_fn'
else
	result "not ok kcsan # no KCSAN kernel or module build failed"
fi
echo "# logs in $out"
[ "$failed" -eq 0 ]
