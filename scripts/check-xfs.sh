#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-xfs.sh [--cycles N] [--threads T] [--seconds S] [--onoff MS]
#              [--corrupt K] [--timeout S] [--stall S] [--preset P]
#              [--disk ram|virtio] [--ram-mb M]
#              [--out DIR] [--own-build] [--prepare-only]
#
# make check-xfs: the correctness cycle of the shimmed xfs.ko of KERNEL
# (default 6.1) in a guest (scripts/plans/xfs-cycle.plan), on a RAM disk
# of M MiB (default 384: Debian's brd.ko from the kernel's own image
# package, /dev/ram0, made with mkfs.xfs in the guest) or with --disk
# virtio on the virtio disk: N cycles (default 20) of mount, an fsync load
# writing a known pattern under CPU hotplug churn (one operation every MS
# ms, default 200; 0: none), unmount, remount and verify every byte,
# unmount, xfs_repair -n, rmmod xfs and rmmod fwq, xfs-cil/* on each flush
# design in turn; in every other cycle xfs-inodegc/* is made unbound
# (shim_map type=unbound) and a 1 s unlink storm feeds it, under the
# churn too. The load is tests/fsync-load/fsync_load.c, T threads
# (default 4) for S seconds (default 3). The disk is a sparse image
# (tests/fsync-load/xfs-image.sh) holding the load program and a copy of
# the host's mkfs.xfs and xfs_repair with their libraries. With --disk
# virtio, xfs_repair -n runs once more here after the guest, on the image.
# --corrupt K overwrites one byte of a load file in cycle K: the check
# must then fail (it shows the check can). --timeout S: the guest's hard
# limit (default 240 + N * (S + 150) s); --stall S: vm-run.sh's limit on
# a silent guest (default 180 s); --preset P: the guest's vm-run.sh
# preset (default timing; small has 4 vCPUs and lets idle ones halt).
# The shimmed xfs.ko is built alone (module-build.sh --shim-only; the
# cycle needs no stock control) against the tree's src/fwq.ko and
# Module.symvers (make modules first), or with --own-build against a copy
# of the sources built on its own in .cache/xfs-build/KERNEL (so that a
# make clean or a build for another kernel in the tree cannot meet it:
# .ci/run builds it in a background job). Both builds
# are cached by content. --prepare-only stops after the builds.
#
# Writes OUT (default results/check-xfs-<timestamp>/): results.jsonl (one
# line per cycle), the guest's vm-run directory (guest/), repair.txt
# (--disk virtio) and tests.txt, the test lines make check's lanes count:
# the guest's (each step of each cycle), "guest" (vm-run.sh's verdict),
# one per cycle ("cycleN": every step ok and every byte the load wrote
# verified) and with --disk virtio "host_repair".
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
stall=${FWQ_VM_STALL:-180}
preset=timing
disk=ram
rammb=384
out=
own=0
prepare=0
while [ $# -gt 0 ]; do
	case "$1" in
	--cycles) cycles=${2:-}; shift 2 ;;
	--threads) threads=${2:-}; shift 2 ;;
	--seconds) secs=${2:-}; shift 2 ;;
	--onoff) onoff=${2:-}; shift 2 ;;
	--corrupt) corrupt=${2:-}; shift 2 ;;
	--timeout) timeout=${2:-}; shift 2 ;;
	--stall) stall=${2:-}; shift 2 ;;
	--preset) preset=${2:-}; shift 2 ;;
	--disk) disk=${2:-}; shift 2 ;;
	--ram-mb) rammb=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--own-build) own=1; shift ;;
	--prepare-only) prepare=1; shift ;;
	-h|--help) sed -n '4,44p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) fwq_die 2 "unknown argument $1 (--help)" ;;
	esac
done
for v in "$cycles" "$threads" "$secs" "$onoff" "$corrupt" "$timeout" "$stall" "$rammb"; do
	case "$v" in
	''|*[!0-9]*) fwq_die 2 "not a whole number: '$v'" ;;
	esac
done
if [ "$cycles" -lt 1 ] || [ "$threads" -lt 1 ] || [ "$secs" -lt 1 ]; then
	fwq_die 2 "--cycles, --threads and --seconds must be at least 1"
fi
case "$disk" in
ram) dev=ram ;;
virtio) dev=vda ;;
*) fwq_die 2 "--disk ram or virtio, not '$disk'" ;;
esac
[ "$rammb" -ge 300 ] || fwq_die 2 "--ram-mb: XFS needs at least 300 MiB"
case "$preset" in
''|*[!a-z]*) fwq_die 2 "bad --preset '$preset'" ;;
esac
[ -r "$FWQ_TOP/scripts/presets/$preset" ] || fwq_die 2 "no preset scripts/presets/$preset"
for t in mkfs.xfs xfs_repair ldd; do
	command -v "$t" > /dev/null || fwq_die 2 "no $t (scripts/deps.sh with FWQ_DEPS_PKGS=xfsprogs)"
done

start=$(fwq_now)
fwqdir=$FWQ_TOP
if [ $own -eq 1 ]; then
	fwq_kernel_load || fwq_die 2 "unknown KERNEL '${KERNEL:-}' (scripts/kernels/)"
	krel=$(fwq_kernel_krel) || fwq_die 2 "kernel $FWQ_K_NAME: no ABI yet (scripts/deps.sh)"
	kdir=$(fwq_headers_dir "$krel") || fwq_die 2 "no headers for $krel (scripts/deps.sh)"
	# fwq's sources copied and built on their own (FWQ_TESTS=n), again
	# only when they or the kernel changed; one build at a time
	fwqdir=$FWQ_TOP/.cache/xfs-build/$FWQ_K_NAME
	mkdir -p "$FWQ_TOP/.cache/xfs-build" || fwq_die 2 "cannot create $fwqdir"
	exec 9> "$fwqdir.lock"
	flock 9
	rm -rf "$fwqdir.src"
	mkdir -p "$fwqdir.src"
	fwq_copy_sources "$fwqdir.src" || fwq_die 2 "copying the sources failed"
	srcid=$( { echo "$kdir $krel"; cd "$fwqdir.src" && find . -type f | sort | xargs sha256sum; } |
		sha256sum | cut -c1-16)
	if [ "$(cat "$fwqdir/.fwq-srcid" 2> /dev/null)" = "$srcid" ]; then
		rm -rf "$fwqdir.src"
	else
		rm -rf "$fwqdir"
		mv "$fwqdir.src" "$fwqdir"
		fwq_log "building fwq for $krel in $fwqdir"
		"$FWQ_TOP/scripts/toolchain.sh" "$kdir" -- \
			nice -n 10 make -C "$kdir" M="$fwqdir" -j"$(nproc)" FWQ_TESTS=n modules \
			> "$fwqdir/build.log" 2>&1 ||
			{ tail -n 30 "$fwqdir/build.log" >&2; fwq_die 2 "fwq build failed ($fwqdir/build.log)"; }
		echo "$srcid" > "$fwqdir/.fwq-srcid"
	fi
fi
fwq_module_stage xfs --shim-only --fwq "$fwqdir"
built=$(fwq_elapsed "$start")
if [ $prepare -eq 1 ]; then
	fwq_log "check-xfs: prepared in ${built} s ($FWQ_MB_SHIM)"
	exit 0
fi

# the guest's modules: the kernel's own in load order as NN-NAME.ko,
# brd.ko, fwq and the shimmed xfs.ko
fwq_stage_guest check-xfs
for m in $FWQ_MB_EXTRA; do
	cp "$m" "$tmp/mods/"
done
[ -r "$tmp/mods/brd.ko" ] || fwq_die 2 "no brd.ko from the kernel's image package"
cp "$fwqdir/src/fwq.ko" "$tmp/mods/fwq.ko"
cp "$FWQ_MB_SHIM" "$tmp/mods/xfs-shim.ko"

# the disk: the load program, the guest's helpers, mkfs.xfs and xfs_repair
"$FWQ_TOP/tests/fsync-load/xfs-image.sh" "$tmp/xfs.img" ||
	fwq_die 2 "cannot make the disk image"

if [ "$timeout" -eq 0 ]; then
	timeout=$((240 + cycles * (secs + 150)))
fi
rc=0
vm_rc=0
FWQ_VM_QUIET=1 "$FWQ_TOP/scripts/vm-run.sh" --preset "$preset" \
	--plan xfs-cycle --modules "$tmp/mods" --disk "$tmp/xfs.img" \
	--timeout "$timeout" --stall "$stall" --out "$out/guest" \
	--append "xfsc.cycles=$cycles xfsc.threads=$threads xfsc.secs=$secs xfsc.onoff=$onoff xfsc.corrupt=$corrupt xfsc.dev=$dev xfsc.ram_mb=$rammb" ||
	vm_rc=$?
[ "$vm_rc" -eq 0 ] || rc=1
guest=$(fwq_elapsed "$start")
tr -d '\r' < "$out/guest/results.txt" 2>/dev/null | grep '^{"cycle"' > "$out/results.jsonl" || :

# the last state of the virtio disk, checked once more by the host's
# xfs_repair (the RAM disk's went with the guest)
repair_rc=-
if [ "$dev" = vda ]; then
	if xfs_repair -n -f "$tmp/xfs.img" > "$out/repair.txt" 2>&1; then
		repair_rc=0
	else
		repair_rc=$?
		rc=1
	fi
fi

{
	cat "$out/guest/tests.txt" 2> /dev/null
	if [ "$vm_rc" -eq 0 ]; then
		echo "ok guest"
	else
		echo "not ok guest # vm-run.sh exit $vm_rc ($out/guest/summary.txt)"
	fi
} > "$out/tests.txt"
python3 - "$out/results.jsonl" "$cycles" "$out/tests.txt" "$repair_rc" <<'PY' || rc=1
import json, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = int(sys.argv[2])
tests = open(sys.argv[3], "a")
bad = 0
seen = set()
for r in rows:
    ld, vf = r.get("load") or {}, r.get("verify") or {}
    rcs = [r[k] for k in ("write_rc", "verify_rc", "repair_rc", "unload_rc")]
    ok = not any(rcs) and vf.get("bad") == 0 and \
        vf.get("verified_bytes") == ld.get("fsyncs", -1) * 4096 > 0
    bad += not ok
    seen.add(r["cycle"])
    why = "" if ok else " # rc write/verify/repair/unload " + \
        "/".join(map(str, rcs)) + f", {vf.get('bad')} bad blocks"
    tests.write(f"{'ok' if ok else 'not ok'} cycle{r['cycle']}{why}\n")
    un = r.get("unlink") or {}
    print(f"cycle {r['cycle']:3} {r['design'].split('flush=')[-1]:10} "
          f"{'inodegc unbound' if r.get('inodegc_unbound') else 'inodegc percpu '} "
          f"{'ok' if ok else 'NOT OK'}: {ld.get('fsyncs', 0)} fsyncs, "
          f"{vf.get('verified_bytes', 0)} bytes verified, "
          f"{r['hotplug_ops']} hotplug ops ({r['hotplug_refused']} refused), "
          + (f"{un.get('fsyncs', 0)} files unlinked, " if un else "") +
          f"rc write/verify/repair/unload {'/'.join(map(str, rcs))}")
for c in range(1, want + 1):
    if c not in seen:
        tests.write(f"not ok cycle{c} # not reported (guest/)\n")
if sys.argv[4] != "-":
    tests.write("ok host_repair\n" if sys.argv[4] == "0" else
                f"not ok host_repair # xfs_repair -n rc {sys.argv[4]} (repair.txt)\n")
print(f"{len(rows)} of {want} cycles reported, {bad} not ok")
sys.exit(1 if bad or len(rows) != want else 0)
PY
fwq_log "check-xfs: xfs build ${built} s, total $(fwq_elapsed "$start") s (guest done at ${guest} s); host xfs_repair -n rc $repair_rc; $out"
exit $rc
