#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xfs-image.sh IMAGE: the disk that make check-xfs gives its guest
# (vm-run.sh --disk): a 1 GiB sparse XFS image made with the host's
# mkfs.xfs (mkfs.xfs -p, so nothing is mounted here), holding
#   fsync_load     tests/fsync-load/fsync_load.c, built static here;
#   xfs-guest.sh   the guest's helpers (tests/fsync-load/xfs-guest.sh);
#   xr/            the host's mkfs.xfs and xfs_repair, with the libraries
#                  ldd names and the dynamic loader (ld.so), which the
#                  busybox guest runs through the loader.
# The guest puts XFS on a RAM disk and makes it with xr/mkfs.xfs, or uses
# this image's own XFS (the virtio disk). The guest and the host are both
# x86_64 Debian: the host's binaries need nothing but those libraries.
# Needs gcc with a static libc (libc6-dev) and xfsprogs
# (FWQ_DEPS_PKGS="xfsprogs libc6-dev" scripts/deps.sh).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

[ $# -eq 1 ] || fwq_die 2 "usage: $0 IMAGE"
img=$1
for t in mkfs.xfs xfs_repair ldd gcc; do
	command -v "$t" > /dev/null ||
		fwq_die 2 "no $t (scripts/deps.sh with FWQ_DEPS_PKGS=\"xfsprogs libc6-dev\")"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

here=$FWQ_TOP/tests/fsync-load
gcc -O2 -Wall -static -pthread -o "$tmp/fsync_load" "$here/fsync_load.c" ||
	fwq_die 2 "cannot build fsync_load (a static libc: libc6-dev)"
mkfs=$(command -v mkfs.xfs)
repair=$(command -v xfs_repair)
{
	printf '%s\n' /dev/null "0 0" "d--755 0 0" \
		"fsync_load ---755 0 0 $tmp/fsync_load" \
		"xfs-guest.sh ---644 0 0 $here/xfs-guest.sh" "xr d--755 0 0" \
		"xfs_repair ---755 0 0 $repair" "mkfs.xfs ---755 0 0 $mkfs"
	ldd "$repair" "$mkfs" | awk '
		$2 == "=>" && $3 ~ /^\// && !seen[$1]++ { print $1 " ---644 0 0 " $3 }
		$1 ~ /^\/.*ld-linux/ && !seen["ld.so"]++ { print "ld.so ---755 0 0 " $1 }'
	printf '%s\n' '$' '$'
} > "$tmp/proto"
grep -q '^ld.so ' "$tmp/proto" || fwq_die 2 "no dynamic loader in ldd $repair"
rm -f "$img"
truncate -s 1G "$img"
mkfs.xfs -q -p "$tmp/proto" "$img" || fwq_die 2 "mkfs.xfs failed"
