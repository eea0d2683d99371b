#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selfcheck-debug.sh [--out DIR] [--only GLOB]: prove that the debug-kernel lanes of make
# check-debug catch what they are there to catch. Builds the deliberately
# buggy scripts/selfcheck/fwq_selfcheck.ko against each lane's kernel (built
# already: make debug-kernel LANE=lockdep|kcsan) and boots it once per bug
# with scripts/plans/selfcheck-debug.plan:
#   lockdep lane  lockinv (lockdep), uaf (KASAN), sleep (atomic sleep),
#                 rawnest (PROVE_RAW_LOCK_NESTING), flushself and
#                 flushown (fwq's flush-dependency lockdep maps, with
#                 fwq.ko and fwq_selfcheck_flush.ko built beside it):
#                 vm-run.sh exit 3; leak (kmemleak step fails): exit 1
#   kcsan lane    race (KCSAN): exit 3
# A case passes when the exit code is the expected one and the console
# holds the detector's own report. Prints and writes (DIR/tests.txt) one
# "ok"/"not ok LANE.MODE" line per case (--only: the cases GLOB matches);
# exit 1 on failure.
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
		fwq_copy_sources "$mods" scripts/selfcheck || return 1
		echo 'obj-m += scripts/selfcheck/' >> "$mods/Kbuild"
		make -C "$kdir" M="$mods" -j"$(nproc)" FWQ_TESTS=n \
			FWQ_SELFCHECK_FLUSH=m modules > "$mods/build.log" 2>&1
	else
		cp scripts/selfcheck/fwq_selfcheck.c scripts/selfcheck/Kbuild \
			"$mods/" &&
			make -C "$kdir" M="$mods" modules > "$mods/build.log" 2>&1
	fi
}

# expect LANE MODE RC REPORT [CMDLINE]: boot MODE on LANE (with CMDLINE
# added); want exit RC and REPORT (a grep -E pattern) on the console
expect() {
	local name=$1.$2 dir=$out/$1-$2 rc start

	# shellcheck disable=SC2254 # a glob on purpose
	case "$name" in
	$only) ;;
	*) return 0 ;;
	esac
	start=$(fwq_now)
	KREL=$rel FWQ_VM_QUIET=1 "$FWQ_TOP/scripts/vm-run.sh" --modules "$mods" \
		--preset small --plan selfcheck-debug --timeout 300 --out "$dir" \
		--append "fwqsc.mode=$2${5:+ $5}" > "$dir.log" 2>&1
	rc=$?
	if [ $rc -ne "$3" ]; then
		result "not ok $name # exit $rc, expected $3 (see $dir.log)"
	elif ! grep -qE "$4" "$dir/console.log"; then
		result "not ok $name # exit $rc but no '$4' report on the console"
	else
		result "ok $name # exit $rc and '$4' on the console, $(fwq_elapsed "$start")s"
	fi
}

if lane lockdep; then
	expect lockdep lockinv 3 'possible circular locking dependency'
	expect lockdep uaf 3 'KASAN: (slab-)?use-after-free'
	expect lockdep sleep 3 'sleeping function called from invalid context'
	expect lockdep rawnest 3 'BUG: Invalid wait context'
	expect lockdep leak 1 'unreferenced object'
	# fwq's flush-dependency maps: an item that flushes itself, or its
	# own workqueue, is a recursive acquisition of the map
	expect lockdep flushself 3 'possible recursive locking detected'
	expect lockdep flushown 3 'possible recursive locking detected'
else
	result "not ok lockdep # no lockdep kernel or module build failed"
fi
if lane kcsan; then
	# as the KCSAN lane boots (debug-kernel-run.sh): the report itself,
	# not a panic, must fail the run
	expect kcsan race 3 'KCSAN: data-race in sc_race_fn' panic_on_warn=0
else
	result "not ok kcsan # no KCSAN kernel or module build failed"
fi
echo "# logs in $out"
[ "$failed" -eq 0 ]
