#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# get-sysmap.sh KREL: print the path of a real System.map for the Debian
# guest kernel KREL, fetching it into the cache the first time. Debian's
# image package ships only a stub System.map; the real one is in
# linux-image-KREL-dbg, which is downloaded with "apt-get download" (never
# installed) and left as soon as the map is out (it is near the start of
# the archive). vm-run.sh calls this only when it diagnoses a hung guest.
# Exit 1 (and print nothing) when there is none to be had.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

krel=${1:?usage: get-sysmap.sh KREL}
map=$FWQ_CACHE/kernel/$krel/System.map-$krel
if [ -s "$map" ]; then
	printf '%s\n' "$map"
	exit 0
fi
fwq_cache_lock "$FWQ_CACHE/kernel/.lock" .map
if [ ! -s "$map" ]; then
	(cd "$FWQ_TMP" && apt-get download -q "linux-image-$krel-dbg") >&2 ||
		exit 1
	dpkg-deb --fsys-tarfile "$FWQ_TMP"/linux-image-"$krel"-dbg_*.deb 2>/dev/null |
		tar -x -C "$FWQ_TMP" --occurrence=1 \
			"./usr/lib/debug/boot/System.map-$krel" 2>/dev/null || true
	[ -s "$FWQ_TMP/usr/lib/debug/boot/System.map-$krel" ] || exit 1
	mkdir -p "$(dirname "$map")"
	mv "$FWQ_TMP/usr/lib/debug/boot/System.map-$krel" "$map"
fi
printf '%s\n' "$map"
