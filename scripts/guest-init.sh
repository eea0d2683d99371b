#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# PID 1 of the fwq test guest (busybox sh). It sets up the guest, sources
# the plan (/plan, from scripts/plans/) and reports on three serial ports:
#   ttyS0  console (console.log on the host)
#   ttyS1  result channel (results.txt): fwq_result lines, then the verdict
#   ttyS2  KTAP channel (ktap.txt): one result line per step, with the KTAP
#          a module printed during the step nested under it
#   ttyS3  heartbeat (heartbeat.log): the uptime every 5 s, from a
#          background loop; the host counts a guest whose channels all
#          stay silent as stalled (vm-run.sh --stall)
# The verdict also leaves through isa-debug-exit (port 0xf4): 0x10 pass,
# 0x11 test failure, 0x12 setup error. If this script dies the kernel
# panics and QEMU exits 0, which the host counts as a crash.

/bin/busybox mkdir -p /proc /sys /dev /tmp /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
exec < /dev/console > /dev/console 2>&1

# shellcheck source=scripts/guest-lib.sh
. /lib/fwq/guest-lib.sh
echo 0 > /tmp/fwq.nr
echo 0 > /tmp/fwq.failed
# Raw serial lines: no echo, no CR/LF mangling.
stty -F "$FWQ_RES" raw -echo 2>/dev/null
stty -F "$FWQ_KTAP" raw -echo 2>/dev/null
stty -F /dev/ttyS3 raw -echo 2>/dev/null
# shellcheck disable=SC2034 # _x takes the idle time
# With the uptime, whenever the loaded modules change, their text section
# addresses ("mods", then "sec MODULE SECTION ADDRESS"), so that the host
# can name a hung vCPU's module function (scripts/vm-diag.py).
echo 0 > /proc/sys/kernel/kptr_restrict
(
	_mods=
	while read -r _up _x < /proc/uptime; do
		echo "hb $_up"
		_m=$(cat /proc/modules)
		if [ "$_m" != "$_mods" ]; then
			_mods=$_m
			echo mods
			for _s in /sys/module/*/sections/.text*; do
				[ -r "$_s" ] || continue
				_n=${_s%/sections/*}
				echo "sec ${_n##*/} ${_s##*/} $(cat "$_s")"
			done
		fi
		sleep 5
	done > /dev/ttyS3 2>/dev/null
) < /dev/null &
echo $! > /tmp/fwq.hb.pid

FWQ_MODDIR=/modules
FWQ_VERSION=$(cat /etc/fwq-version 2>/dev/null)
FWQ_PRESET=$(sed -n 's/.*fwq\.preset=\([^ ]*\).*/\1/p' /proc/cmdline)
FWQ_PLAN=$(sed -n 's/.*fwq\.plan=\([^ ]*\).*/\1/p' /proc/cmdline)
export FWQ_MODDIR FWQ_VERSION FWQ_PRESET FWQ_PLAN

echo "fwq-guest: preset=$FWQ_PRESET plan=$FWQ_PLAN version=$FWQ_VERSION" > /dev/console
if [ ! -r /plan ] || [ ! -e "$FWQ_RES" ] || [ ! -e "$FWQ_KTAP" ]; then
	echo "fwq-guest: setup error: no plan or no result channel" > /dev/console
	fwq_exit_code 022
fi

# The plan runs in a subshell: an "exit" or a syntax error in it cannot take
# PID 1 down with it, and still counts as a failure.
# shellcheck disable=SC1091 # the plan is copied in by mkinitramfs.sh
( . /plan )
rc=$?
if [ $rc -ne 0 ]; then
	n=$(( $(cat /tmp/fwq.nr) + 1 ))
	echo "$n" > /tmp/fwq.nr
	fwq_ktap "not ok $n plan_completed # plan exited with $rc"
	echo $(( $(cat /tmp/fwq.failed) + 1 )) > /tmp/fwq.failed
fi

# Taint: only O (4096, out of tree), E (8192, unsigned) and N (262144,
# test module) are expected.
taint=$(cat /proc/sys/kernel/tainted)
n=$(( $(cat /tmp/fwq.nr) + 1 ))
echo "$n" > /tmp/fwq.nr
if [ $(( taint & ~(4096 | 8192 | 262144) )) -eq 0 ]; then
	fwq_ktap "ok $n taint # tainted=$taint"
else
	fwq_ktap "not ok $n taint # tainted=$taint"
	echo $(( $(cat /tmp/fwq.failed) + 1 )) > /tmp/fwq.failed
fi

nr=$(cat /tmp/fwq.nr)
failed=$(cat /tmp/fwq.failed)
if [ "$failed" -eq 0 ]; then
	fwq_result "fwq-verdict: PASS $nr/$nr"
	sync
	fwq_exit_code 020
fi
fwq_result "fwq-verdict: FAIL $((nr - failed))/$nr"
sync
fwq_exit_code 021
