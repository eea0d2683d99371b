#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# get-checkpatch.sh: make sure checkpatch.pl (with spelling.txt and
# const_structs.checkpatch next to it) is in $FWQ_CACHE/checkpatch and print
# its path. The kernel headers do not ship it; it is extracted once from
# the source package of the default kernel (scripts/kernels/, FWQ_K_SOURCE:
# linux-source-6.1; the .deb is downloaded, not installed, unless
# /usr/src/linux-source-6.1.tar.xz is already there).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

dir=$FWQ_CACHE/checkpatch
cp=$dir/checkpatch.pl
if [ -x "$cp" ] && [ -r "$dir/spelling.txt" ] && [ -r "$dir/const_structs.checkpatch" ]; then
	printf '%s\n' "$cp"
	exit 0
fi

fwq_cache_lock "$FWQ_CACHE/.checkpatch.lock" .cp
if [ ! -x "$cp" ]; then
	fwq_kernel_load "$FWQ_KERNEL_DEFAULT" ||
		fwq_die 2 "no scripts/kernels/$FWQ_KERNEL_DEFAULT"
	src=$FWQ_K_SOURCE
	tarball=${FWQ_LINUX_SOURCE_TARBALL:-/usr/src/$src.tar.xz}
	if [ ! -r "$tarball" ]; then
		fwq_log "downloading $src for checkpatch.pl (not installing it)"
		(cd "$FWQ_TMP" && fwq_apt "$FWQ_K_SUITE" download -q "$src") >&2 ||
			fwq_die 2 "apt-get download $src failed"
		dpkg-deb --fsys-tarfile "$FWQ_TMP/$src"_*.deb |
			tar -x -C "$FWQ_TMP" "./usr/src/$src.tar.xz"
		tarball=$FWQ_TMP/usr/src/$src.tar.xz
	fi
	fwq_log "extracting checkpatch.pl from $tarball"
	tar -xJf "$tarball" -C "$FWQ_TMP" --wildcards --strip-components=2 \
		"$src/scripts/checkpatch.pl" \
		"$src/scripts/spelling.txt" \
		"$src/scripts/const_structs.checkpatch"
	mkdir -p "$dir"
	for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
		[ -r "$FWQ_TMP/$f" ] || fwq_die 2 "$f missing from $tarball"
		cp "$FWQ_TMP/$f" "$dir/$f"
	done
	chmod +x "$cp"
fi
printf '%s\n' "$cp"
