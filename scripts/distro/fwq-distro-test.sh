#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fwq-distro-test.sh: runs once at boot in the check-distro guest (installed as
# /usr/local/sbin/fwq-distro-test, run by fwq-distro-test.service), as a user of the fwq-dkms package
# would: modprobe, fwq-bench on a short suite (and its --help, --list, a
# filtered run, compare, replay and a bad argument), /sys/kernel/debug/fwq/,
# modprobe -r, and two of fwq-bench's errors. fwq_distro=full on the kernel
# command line runs the suite; fwq_distro=loadlock loads, reads and
# unloads, then locks the kernel down as Secure Boot would
# (module.sig_enforce=1 and lockdown=integrity, both raised at run time,
# which the kernel allows in that direction only) and produces fwq-bench's
# lockdown, Secure Boot and missing-headers errors with the real kernel
# and tools. One "ok N NAME # S s" or "not ok ..." line per test in
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

# err_is WANT TEXT CMD...: CMD exits with WANT and says TEXT
err_is() {
	want=$1
	text=$2
	shift 2
	rc=0
	"$@" > "$out/err.txt" 2>&1 || rc=$?
	cat "$out/err.txt"
	echo "exit $rc"
	[ "$rc" -eq "$want" ] && grep -qF -- "$text" "$out/err.txt"
}

# headers_missing: fwq-bench with the DKMS modules and the headers link
# of the running kernel moved away (and back). No depmod either way (a
# minute each under TCG): modinfo fails on an indexed module whose file
# is gone, as it does on one that is not indexed.
headers_missing() {
	k=$(uname -r)
	h=/run/fwq-hidden
	mkdir -p "$h"
	mv "/lib/modules/$k"/updates/dkms/fwq*.ko* "/lib/modules/$k/build" "$h/"
	hm_rc=0
	err_is 5 "apt-get install linux-headers-$k" \
		env FWQ_LOCKDOWN=/dev/null fwq-bench --quick --out "$eo" || hm_rc=1
	mv "$h"/fwq*.ko* "/lib/modules/$k/updates/dkms/"
	mv "$h/build" "/lib/modules/$k/build"
	return $hm_rc
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

# lock_down: signatures enforced and lockdown=integrity, as booting with
# module.sig_enforce=1 lockdown=integrity would leave them
lock_down() {
	echo 1 > /sys/module/module/parameters/sig_enforce || return 1
	echo integrity > /sys/kernel/security/lockdown || return 1
	grep -qx Y /sys/module/module/parameters/sig_enforce &&
		grep -q '\[integrity\]' /sys/kernel/security/lockdown
}

uname -r > "$out/krel"
eo=/run/fwq-bench-error # scratch: an error case leaves an empty directory at most
t dkms_built sh -c "dkms status fwq | grep \"$(uname -r).*installed\""
t modprobe_fwq modprobe fwq
t modprobe_fwq_bench modprobe fwq_bench
if [ "$mode" = full ]; then
	t fwq_bench_help sh -c 'fwq-bench --help && fwq-bench --help | grep -q -- "--scenario LIST"'
	t fwq_bench_list sh -c 'fwq-bench --list --quick --scenario s1 --variant kwq --variant wake=pick | tee /dev/stderr | grep -q "^kwq "'
	t fwq_bench_quick fwq-bench --quick --scale 1 --redo 0 --out "$out/bench"
	# S1's kwq and baseline cells again, compared with the full run's;
	# the first run's results replayed (no --out: the report, no plots)
	t fwq_bench_filtered fwq-bench --quick --scale 1 --redo 0 \
		--scenario s1 --variant kwq --variant wake=pick --out "$out/bench-s1"
	t fwq_bench_compare fwq-bench compare "$out/bench" "$out/bench-s1"
	t fwq_bench_replay sh -c "fwq-bench replay '$out/bench/results.jsonl' | tee /dev/stderr | grep -q '^Verdict '"
	t error_bad_argument err_is 2 "--reps" fwq-bench --reps zero --out "$eo"
fi
t read_debugfs_fwq read_debugfs
t modprobe_r modprobe -r fwq_bench fwq
t not_loaded sh -c '! grep -q "^fwq" /proc/modules'
if [ "$mode" = loadlock ]; then
	t lock_down lock_down
	t error_lockdown err_is 8 "kernel lockdown is 'integrity'" fwq-bench --quick --out "$eo"
	# past the lockdown check, the kernel itself refuses the unsigned module
	t error_key_rejected err_is 6 "mokutil --import /var/lib/dkms/mok.pub" \
		env FWQ_LOCKDOWN=/dev/null fwq-bench --quick --out "$eo"
	t error_headers_missing headers_missing
	t not_loaded_locked sh -c '! grep -q "^fwq" /proc/modules'
fi
if [ "$mode" = full ]; then
	mkdir -p /run/fwq-no-debugfs
	t error_not_root err_is 3 "run it with sudo" \
		setpriv --reuid=65534 --regid=65534 --clear-groups fwq-bench --quick --out "$eo"
	t error_debugfs_not_mounted err_is 4 "mount -t debugfs none /run/fwq-no-debugfs" \
		env FWQ_DEBUGFS=/run/fwq-no-debugfs fwq-bench --quick --out "$eo"
fi
dmesg > "$out/dmesg.txt"
echo "fwq-distro-test: done" > /dev/console
tar -cf /dev/vdb -C "$out" .
sync
systemctl --no-block poweroff
