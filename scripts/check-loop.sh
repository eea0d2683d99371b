#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-loop.sh [--out DIR] [--timeout S] [--mib N]: a second module on fwq
# through the shim. Builds the loop block driver of KERNEL (default 6.1)
# stock and shimmed (scripts/module-build.sh loop; the stock build's
# imports must be Debian's own), then boots a guest (vm-run.sh, preset
# small, plan loop-shim) that loads fwq.ko and the shimmed loop.ko, writes
# a pattern of N MiB (default 8) through a loop device over a file on
# tmpfs, reads it back after a detach, checks that loop's workqueue is on
# fwq and that a wrong pattern or a changed byte is found
# (scripts/plans/loop-shim.plan, docs/shim.md). Prints the build's and
# the guest's seconds. Exit: vm-run.sh's (0 pass, 1 test failure, 2
# setup error, 3 kernel badness, 124 timeout).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

out=
timeout=600
mib=8
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:-}; shift 2 || fwq_die 2 "--out needs a value" ;;
	--timeout) timeout=${2:-}; shift 2 || fwq_die 2 "--timeout needs a value" ;;
	--mib) mib=${2:-}; shift 2 || fwq_die 2 "--mib needs a value" ;;
	-h|--help) sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) fwq_die 2 "unknown argument $1" ;;
	esac
done
case "$mib" in
''|*[!0-9]*|0) fwq_die 2 "--mib: a positive number of MiB, not '$mib'" ;;
esac
case "$timeout" in
''|*[!0-9]*) fwq_die 2 "--timeout: seconds, not '$timeout'" ;;
esac

t0=$(fwq_now)
fwq_module_stage loop
fwq_log "loop.ko stock and shimmed ready in $(fwq_elapsed "$t0") s"

out=${out:-$FWQ_TOP/results/check-loop-$(date +%Y%m%d-%H%M%S)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$FWQ_TOP/src/fwq.ko" "$tmp/fwq.ko"
cp "$FWQ_MB_SHIM" "$tmp/loop-shim.ko"

t0=$(fwq_now)
rc=0
"$FWQ_TOP/scripts/vm-run.sh" --preset small --plan loop-shim \
	--modules "$tmp" --timeout "$timeout" --out "$out" \
	--append "loopc.mib=$mib" || rc=$?
fwq_log "guest: $(fwq_elapsed "$t0") s, exit $rc ($out)"
exit $rc
