#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lanes.sh [--lanes GLOB] [--kernel K] [--one-kernel]: what make check
# would run, and run nothing (make check DRYRUN=1, make check-debug
# DRYRUN=1, make check-quick DRYRUN=1), as rcutorture's kvm.sh --dryrun
# prints its scenarios. One line per lane and kernel pass, in the order
# scripts/check.sh runs them, read from the lane files of
# scripts/check.d/ (GLOB as FWQ_CHECK_LANES, default "*": the top-level
# lists; "debug/*" and "quick/*" are make check-debug's and make
# check-quick's) and the kernels of scripts/kernels/:
#
#   KERNEL  LIST  KIND  NAME  PRESET  TIMEOUT  WHAT
#
# KIND is vm (a guest: PRESET, the plan NAME, TIMEOUT seconds) or cmd (a
# host command, which may boot guests of its own: WHAT). Each pass also
# runs deps, build and lint first (lint only "build compat" on a kernel
# other than the default; FWQ_CHECK_SKIP_BUILD=1 and FWQ_CHECK_SKIP_LINT=1,
# as make check-debug sets them, leave them out), listed as steps. The documents
# point here instead of copying the lane table. Exit 2 on a bad option
# or an unknown kernel.
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$FWQ_TOP" || exit 2

glob=${FWQ_CHECK_LANES:-*}
one=
only=${KERNEL:-}
while [ $# -gt 0 ]; do
	case "$1" in
	--lanes) glob=${2:-}; shift 2 || fwq_die 2 "--lanes needs a glob" ;;
	--kernel) only=${2:-}; shift 2 || fwq_die 2 "--kernel needs a name" ;;
	--one-kernel) one=1; shift ;;
	-h|--help) sed -n '4,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) fwq_die 2 "lanes.sh: unknown argument '$1' (--help)" ;;
	esac
done
[ -n "$one" ] && [ -z "$only" ] && only=$FWQ_KERNEL_DEFAULT
if [ -n "$only" ]; then
	fwq_kernel_load "$only" ||
		fwq_die 2 "unknown KERNEL '$only' (known: $(fwq_kernel_names --all | tr '\n' ' '))"
	passes=$only
else
	passes=$(fwq_kernel_names | sort -V)
fi

n=0
printf '%-5s %-22s %-4s %-26s %-7s %-7s %s\n' KERNEL LIST KIND NAME PRESET TIMEOUT WHAT
for k in $passes; do
	lint="all"
	[ "$k" = "$FWQ_KERNEL_DEFAULT" ] || lint="build compat"
	printf '%-5s %-22s %-4s %-26s %-7s %-7s %s\n' "$k" - step deps - - "scripts/deps.sh"
	[ "${FWQ_CHECK_SKIP_BUILD:-0}" = 1 ] ||
		printf '%-5s %-22s %-4s %-26s %-7s %-7s %s\n' "$k" - step build - - "make modules W=1 C=2"
	[ "${FWQ_CHECK_SKIP_LINT:-0}" = 1 ] ||
		printf '%-5s %-22s %-4s %-26s %-7s %-7s %s\n' "$k" - step lint - - "scripts/lint.sh $lint"
	for list in scripts/check.d/$glob.list; do
		[ -r "$list" ] || continue
		while IFS= read -r line || [ -n "$line" ]; do
			case "$line" in
			''|'#'*) continue ;;
			esac
			# the words as check.sh splits them, variables left as
			# they are written
			read -r -a w <<< "$line"
			kind=${w[0]}
			kind=$(fwq_lane_kind "$kind" "$k") || continue
			l=${list#scripts/check.d/}
			case "$kind" in
			vm)
				printf '%-5s %-22s %-4s %-26s %-7s %-7s %s\n' "$k" "$l" vm \
					"${w[2]}" "${w[1]}" "${w[3]}" "${w[*]:4}"
				;;
			cmd)
				printf '%-5s %-22s %-4s %-26s %-7s %-7s %s\n' "$k" "$l" cmd \
					"${w[1]}" - - "${w[*]:2}"
				;;
			*)
				fwq_die 2 "$list: unknown lane kind '$kind'"
				;;
			esac
			n=$((n + 1))
		done < "$list"
	done
done
echo "# $n lanes over the passes: $(echo "$passes" | tr '\n' ' ')(lane files scripts/check.d/$glob.list)"
