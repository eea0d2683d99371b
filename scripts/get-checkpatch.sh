#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# get-checkpatch.sh: make sure checkpatch.pl (with spelling.txt and
# const_structs.checkpatch next to it) is in $FWQ_CACHE/checkpatch and print
# its path. The kernel headers do not ship it; it is extracted once from
# Debian's linux-source-6.1 tarball (the .deb is downloaded, not installed,
# unless /usr/src/linux-source-6.1.tar.xz is already there).
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
	tarball=${FWQ_LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
	if [ ! -r "$tarball" ]; then
		fwq_log "downloading linux-source-6.1 for checkpatch.pl (not installing it)"
		(cd "$FWQ_TMP" && apt-get download -q linux-source-6.1) >&2 ||
			fwq_die 2 "apt-get download linux-source-6.1 failed"
		dpkg-deb --fsys-tarfile "$FWQ_TMP"/linux-source-6.1_*.deb |
			tar -x -C "$FWQ_TMP" ./usr/src/linux-source-6.1.tar.xz
		tarball=$FWQ_TMP/usr/src/linux-source-6.1.tar.xz
	fi
	fwq_log "extracting checkpatch.pl from $tarball"
	tar -xJf "$tarball" -C "$FWQ_TMP" --wildcards --strip-components=2 \
		'linux-source-6.1/scripts/checkpatch.pl' \
		'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch'
	mkdir -p "$dir"
	for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
		[ -r "$FWQ_TMP/$f" ] || fwq_die 2 "$f missing from $tarball"
		cp "$FWQ_TMP/$f" "$dir/$f"
	done
	chmod +x "$cp"
fi
printf '%s\n' "$cp"
