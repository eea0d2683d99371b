#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hang-matrix.sh [--preset P] [--runs N] [--steps S] [--plan PLAN]
#                [--append CMDLINE] [CONFIG...]
#
# Tell an emulator hang from an fwq one: boot PLAN (default keytoggle,
# which flips a kernel static key 10 times a step and runs no fwq code)
# RUNS times under each CONFIG and report, per run, the verdict and how
# many steps passed; a hung run is diagnosed by vm-run.sh (diag.txt).
# CONFIGs (default: all):
#   mttcg       the machine's QEMU (bookworm: 7.2), multi-threaded TCG
#   single      the machine's QEMU, -accel tcg,thread=single
#   bpo-mttcg   bookworm-backports' QEMU (scripts/get-qemu.sh; vm-run.sh's
#               default), multi-threaded TCG
#   bpo-single  bookworm-backports' QEMU, single-threaded TCG
# Prints one "ok"/"not ok" line per run and "N passed, N failed".
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

preset=wide
runs=3
steps=30
plan=keytoggle
append=
while [ $# -gt 0 ]; do
	case "$1" in
	--preset) preset=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--steps) steps=$2; shift 2 ;;
	--plan) plan=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	-h|--help) sed -n '3,18p' "$0"; exit 0 ;;
	-*) fwq_die 2 "unknown argument $1" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- mttcg single bpo-mttcg bpo-single

out=$FWQ_TOP/results/$(date +%Y%m%d-%H%M%S)-hang-matrix
mkdir -p "$out"
for cfg in "$@"; do
	qemu=
	accel=tcg,thread=multi
	case "$cfg" in
	mttcg) ;;
	single) accel=tcg,thread=single ;;
	bpo-mttcg|bpo-single)
		qemu=$("$FWQ_TOP/scripts/get-qemu.sh" bookworm-backports) ||
			fwq_die 2 "no bookworm-backports QEMU"
		[ "$cfg" = bpo-single ] && accel=tcg,thread=single ;;
	*) fwq_die 2 "unknown config $cfg" ;;
	esac
	r=1
	while [ "$r" -le "$runs" ]; do
		d=$out/$cfg-$r
		FWQ_QEMU=${qemu:-qemu-system-x86_64} FWQ_QEMU_ACCEL=$accel \
		FWQ_VM_QUIET=1 "$FWQ_TOP/scripts/vm-run.sh" --preset "$preset" \
			--plan "$plan" --out "$d" --stall 90 \
			--timeout $((steps * 30 + 120)) \
			--append "fwqkey.steps=$steps fwqcycle.n=$steps $append" \
			> "$d.log" 2>&1
		rc=$?
		ok=$(grep -cE '^ok [0-9]+ (toggle|cycle)_' "$d/ktap.txt")
		line="$cfg run $r: exit $rc, $ok/$steps steps, $(tail -n 1 "$d/summary.txt" | sed 's/.*; \([0-9.]*s\); .*/\1/')"
		if [ "$rc" -eq 0 ]; then
			fwq_tap_result 0 "$line"
		else
			fwq_tap_result "$rc" "$line" "$(tail -n 1 "$d/summary.txt")" || :
		fi
		r=$((r + 1))
	done
done
echo "# logs in $out"
fwq_tap_summary
