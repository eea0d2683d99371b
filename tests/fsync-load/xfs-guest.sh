# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# The guest's helpers of make check-xfs (scripts/plans/xfs-cycle.plan),
# on its disk (tests/fsync-load/xfs-image.sh): the plan copies this file
# from the disk to /tmp, sources it, and xg_fetch copies the rest. Needs
# guest-lib.sh's FWQ_MODDIR.

XG_D=/sys/kernel/debug/fwq

# xg_fetch: from the disk (/dev/vda, an xfs.ko loaded), the load program,
# these helpers and xr/ (mkfs.xfs, xfs_repair, their libraries) to /tmp
xg_fetch() {
	mkdir -p /mnt
	mount -t xfs /dev/vda /mnt || return 1
	cp /mnt/fsync_load /mnt/xfs-guest.sh /tmp/ && cp -r /mnt/xr /tmp/xr
	_xg_rc=$?
	umount /mnt || return 1
	[ $_xg_rc -eq 0 ] || return 1
	/tmp/fsync_load -h 2>&1 | grep -q THREADS
}

# xg_xr PROG ARGS...: one of xr/'s programs, through the dynamic loader
xg_xr() {
	_xg_p=$1
	shift
	/tmp/xr/ld.so --library-path /tmp/xr "/tmp/xr/$_xg_p" "$@"
}

# xg_ramdisk MIB: the RAM disk, /dev/ram0 (Debian's brd.ko, one device
# of MIB MiB; its pages are allocated as they are written), with a new
# XFS on it (mkfs.xfs -K: brd takes no discard)
xg_ramdisk() {
	insmod "$FWQ_MODDIR/brd.ko" rd_nr=1 rd_size=$(($1 * 1024)) max_part=0 ||
		return 1
	for _xg_i in 1 2 3 4 5 6 7 8 9 10; do
		[ -b /dev/ram0 ] && break
		sleep 1
	done
	[ -b /dev/ram0 ] || { echo "no /dev/ram0"; return 1; }
	xg_xr mkfs.xfs -q -f -K /dev/ram0 || return 1
	xg_xr xfs_repair -n /dev/ram0 > /tmp/xg.repair 2>&1 ||
		{ cat /tmp/xg.repair; return 1; }
}

# xg_wq_is WQ TYPE: WQ is a TYPE (percpu or unbound) workqueue on fwq
# (debugfs wqs)
xg_wq_is() {
	grep -q "^wq $1: $2[, ]" $XG_D/wqs ||
		{ echo "$1 is not $2: $(grep "^wq $1:" $XG_D/wqs)"; return 1; }
}
