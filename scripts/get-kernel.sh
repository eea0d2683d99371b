#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# get-kernel.sh [KREL]: make sure the guest kernel image for KREL (default:
# the release of the headers fwq builds against) is in the cache, and print
# its path. The Debian image package is fetched with "apt-get download" and
# unpacked with dpkg-deb; it is never installed and /boot is never touched.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

krel=${1:-$(fwq_krel)} || fwq_die 2 "cannot determine the target release"
img=$(fwq_vmlinuz "$krel")
if [ -r "$img" ]; then
	printf '%s\n' "$img"
	exit 0
fi

mkdir -p "$FWQ_CACHE/kernel" || fwq_die 2 "cannot create $FWQ_CACHE"
exec 9>"$FWQ_CACHE/kernel/.lock"
flock 9
if [ ! -r "$img" ]; then
	tmp=$(mktemp -d "$FWQ_CACHE/kernel/.dl.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# apt drops privileges to _apt for the download when it can write there.
	chmod 0755 "$tmp"
	chown _apt "$tmp" 2>/dev/null || true
	got=
	for pkg in "linux-image-$krel-unsigned" "linux-image-$krel"; do
		fwq_log "downloading $pkg (not installing it)"
		if (cd "$tmp" && apt-get download -q "$pkg") >&2; then
			got=$pkg
			break
		fi
	done
	[ -n "$got" ] || fwq_die 2 "no kernel image package for $krel (apt-get update?)"
	mkdir -p "$tmp/x"
	dpkg-deb --fsys-tarfile "$tmp"/"$got"_*.deb | tar -x -C "$tmp/x" ./boot/
	[ -r "$tmp/x/boot/vmlinuz-$krel" ] || fwq_die 2 "$got has no boot/vmlinuz-$krel"
	rm -rf "$FWQ_CACHE/kernel/$krel"
	mkdir -p "$FWQ_CACHE/kernel/$krel"
	mv "$tmp/x/boot" "$FWQ_CACHE/kernel/$krel/boot"
fi
printf '%s\n' "$img"
