#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fwq-distro-test.sh: runs once at boot in the check-distro guest (installed as
# /usr/local/sbin/fwq-distro-test, run by fwq-distro-test.service), as a user of the fwq-dkms package
# would: modprobe, fwq-bench on a short suite, /sys/kernel/debug/fwq/,
# modprobe -r, and two of fwq-bench's errors. fwq_distro=full on the kernel
# command line runs the suite; fwq_distro=load only loads, reads and
# unloads. One "ok N NAME # S s" or "not ok ..." line per test in
# /root/fwq-distro/tests.txt (and on the console); the directory is written
# as a tar archive to the second disk, /dev/vdb, then the guest powers off.
set -u
out=/root/fwq-distro
rm -rf "$out"
mkdir -p "$out/debugfs"
mode=$(sed -n 's/.*fwq_distro=\([a-z]*\).*/\1/p' /proc/cmdline)
n=0

# t NAME CMD...: one test; its output in NAME.log
t() {
	name=$1
	shift
	n=$((n + 1))
	s=$(date +%s.%N)
	if "$@" > "$out/$name.log" 2>&1; then r="ok"; else r="not ok"; fi
	e=$(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	echo "$r $n $name # ${e}s" | tee -a "$out/tests.txt" > /dev/console
}

# rc_is WANT CMD...: CMD exits with WANT
rc_is() {
	want=$1
	shift
	rc=0
	"$@" || rc=$?
	echo "exit $rc"
	[ "$rc" -eq "$want" ]
}

read_debugfs() {
	for f in /sys/kernel/debug/fwq/*; do
		if [ ! -f "$f" ] || [ ! -r "$f" ]; then
			continue
		fi
		cat "$f" > "$out/debugfs/$(basename "$f")" || { echo "read $f failed"; return 1; }
	done
	cat "$out/debugfs/version"
}

uname -r > "$out/krel"
t dkms_built sh -c "dkms status fwq | grep \"$(uname -r).*installed\""
t modprobe_fwq modprobe fwq
t modprobe_fwq_bench modprobe fwq_bench
if [ "$mode" = full ]; then
	t fwq_bench_quick fwq-bench --quick --scale 1 --out "$out/bench"
fi
t read_debugfs_fwq read_debugfs
t modprobe_r modprobe -r fwq_bench fwq
t not_loaded sh -c '! grep -q "^fwq" /proc/modules'
if [ "$mode" = full ]; then
	mkdir -p /run/fwq-no-debugfs
	t error_not_root rc_is 3 setpriv --reuid=65534 --regid=65534 --clear-groups fwq-bench --quick
	t error_debugfs_not_mounted rc_is 4 env FWQ_DEBUGFS=/run/fwq-no-debugfs fwq-bench --quick
fi
dmesg > "$out/dmesg.txt"
echo "fwq-distro-test: done" > /dev/console
tar -cf /dev/vdb -C "$out" .
sync
systemctl --no-block poweroff
