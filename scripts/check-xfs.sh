#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-xfs.sh [--cycles N] [--threads T] [--seconds S] [--onoff MS]
#              [--corrupt K] [--timeout S] [--out DIR]
#
# make check-xfs: the correctness cycle of the shimmed xfs.ko of KERNEL
# (default 6.1) in a guest (scripts/plans/xfs-cycle.plan): N cycles
# (default 20) of mount, an fsync load writing a known pattern under CPU
# hotplug churn (one operation every MS ms, default 200; 0: none),
# unmount, remount and verify every byte, unmount, xfs_repair -n, rmmod
# xfs and rmmod fwq, xfs-cil/* on each flush design in turn. The load is
# tests/fsync-load/fsync_load.c, T threads (default 4) for S seconds
# (default 3). The disk is a sparse image made here with mkfs.xfs, holding
# the load program and a copy of the host's xfs_repair with its libraries.
# After the guest, xfs_repair -n runs once more here, on the image.
# --corrupt K overwrites one byte of a load file in cycle K: the check
# must then fail (it shows the check can).
#
# Writes OUT (default results/check-xfs-<timestamp>/): results.jsonl (one
# line per cycle), the guest's vm-run directory (guest/) and repair.txt.
# Exit 0 when every step of every cycle passed and the final repair was
# clean, 1 otherwise, 2 on a setup error.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

cycles=20
threads=4
secs=3
onoff=200
corrupt=0
timeout=0
out=
while [ $# -gt 0 ]; do
	case "$1" in
	--cycles) cycles=${2:-}; shift 2 ;;
	--threads) threads=${2:-}; shift 2 ;;
	--seconds) secs=${2:-}; shift 2 ;;
	--onoff) onoff=${2:-}; shift 2 ;;
	--corrupt) corrupt=${2:-}; shift 2 ;;
	--timeout) timeout=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	-h|--help) sed -n '4,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) fwq_die 2 "unknown argument $1 (--help)" ;;
	esac
done
for v in "$cycles" "$threads" "$secs" "$onoff" "$corrupt" "$timeout"; do
	case "$v" in
	''|*[!0-9]*) fwq_die 2 "not a whole number: '$v'" ;;
	esac
done
if [ "$cycles" -lt 1 ] || [ "$threads" -lt 1 ] || [ "$secs" -lt 1 ]; then
	fwq_die 2 "--cycles, --threads and --seconds must be at least 1"
fi
for t in mkfs.xfs xfs_repair ldd; do
	command -v "$t" > /dev/null || fwq_die 2 "no $t (scripts/deps.sh with FWQ_DEPS_PKGS=xfsprogs)"
done

start=$(fwq_now)
mb=$("$FWQ_TOP/scripts/module-build.sh" xfs | tail -n 5) ||
	fwq_die 2 "module-build.sh xfs failed"
FWQ_MB_SHIM='' FWQ_MB_GUEST=''
eval "$mb"
[ -n "$FWQ_MB_SHIM" ] || fwq_die 2 "no shimmed xfs.ko"
built=$(fwq_elapsed "$start")

out=${out:-$FWQ_TOP/results/check-xfs-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || fwq_die 2 "cannot create $out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the guest's modules: the kernel's own in load order as NN-NAME.ko, fwq
# and the shimmed xfs.ko
mkdir -p "$tmp/mods"
n=10
for m in $FWQ_MB_GUEST; do
	cp "$m" "$tmp/mods/$n-$(basename "$m")"
	n=$((n + 1))
done
cp "$FWQ_TOP/src/fwq.ko" "$tmp/mods/fwq.ko"
cp "$FWQ_MB_SHIM" "$tmp/mods/xfs-shim.ko"

# the load program, static; xfs_repair with the libraries ldd names and
# the dynamic loader, which the guest runs as /tmp/xr/ld.so
gcc -O2 -Wall -static -pthread -o "$tmp/fsync_load" \
	"$FWQ_TOP/tests/fsync-load/fsync_load.c" || fwq_die 2 "cannot build fsync_load"
repair=$(command -v xfs_repair)
{
	printf '%s\n' /dev/null "0 0" "d--755 0 0" \
		"fsync_load ---755 0 0 $tmp/fsync_load" "xr d--755 0 0" \
		"xfs_repair ---755 0 0 $repair"
	ldd "$repair" | awk '
		$2 == "=>" && $3 ~ /^\// { print $1 " ---644 0 0 " $3 }
		$1 ~ /^\/.*ld-linux/ { print "ld.so ---755 0 0 " $1 }'
	printf '%s\n' '$' '$'
} > "$tmp/proto"
grep -q '^ld.so ' "$tmp/proto" || fwq_die 2 "no dynamic loader in ldd $repair"
truncate -s 1G "$tmp/xfs.img"
mkfs.xfs -q -p "$tmp/proto" "$tmp/xfs.img" || fwq_die 2 "mkfs.xfs failed"

if [ "$timeout" -eq 0 ]; then
	timeout=$((240 + cycles * (secs + 150)))
fi
rc=0
FWQ_VM_QUIET=1 "$FWQ_TOP/scripts/vm-run.sh" --preset timing \
	--plan xfs-cycle --modules "$tmp/mods" --disk "$tmp/xfs.img" \
	--timeout "$timeout" --out "$out/guest" \
	--append "xfsc.cycles=$cycles xfsc.threads=$threads xfsc.secs=$secs xfsc.onoff=$onoff xfsc.corrupt=$corrupt" ||
	rc=1
guest=$(fwq_elapsed "$start")
tr -d '\r' < "$out/guest/results.txt" 2>/dev/null | grep '^{"cycle"' > "$out/results.jsonl" || :

# the last state of the disk, checked once more by the host's xfs_repair
if xfs_repair -n -f "$tmp/xfs.img" > "$out/repair.txt" 2>&1; then
	repair_rc=0
else
	repair_rc=$?
	rc=1
fi

python3 - "$out/results.jsonl" "$cycles" <<'PY' || rc=1
import json, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = int(sys.argv[2])
bad = 0
for r in rows:
    ld, vf = r.get("load") or {}, r.get("verify") or {}
    rcs = [r[k] for k in ("write_rc", "verify_rc", "repair_rc", "unload_rc")]
    ok = not any(rcs) and vf.get("bad") == 0 and \
        vf.get("verified_bytes") == ld.get("fsyncs", -1) * 4096 > 0
    bad += not ok
    print(f"cycle {r['cycle']:3} {r['design'].split('flush=')[-1]:10} "
          f"{'ok' if ok else 'NOT OK'}: {ld.get('fsyncs', 0)} fsyncs, "
          f"{vf.get('verified_bytes', 0)} bytes verified, "
          f"{r['hotplug_ops']} hotplug ops ({r['hotplug_refused']} refused), "
          f"rc write/verify/repair/unload {'/'.join(map(str, rcs))}")
print(f"{len(rows)} of {want} cycles reported, {bad} not ok")
sys.exit(1 if bad or len(rows) != want else 0)
PY
fwq_log "check-xfs: xfs build ${built} s, total $(fwq_elapsed "$start") s (guest done at ${guest} s); host xfs_repair -n rc $repair_rc; $out"
exit $rc
