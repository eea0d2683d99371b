#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# get-kernel.sh [KREL]: make sure the guest kernel image for KREL (default:
# the release of the headers fwq builds against) is in the cache, and print
# its path. The Debian image package is fetched with "apt-get download" and
# unpacked with dpkg-deb; it is never installed and /boot is never touched.
# The image is linux-image-KREL-unsigned's or linux-image-KREL's
# boot/vmlinuz-KREL, or, where linux-image-KREL only depends on the
# pieces (7.3), linux-binary-KREL's usr/lib/modules/KREL/vmlinuz.
# It comes from the suite of the kernel (scripts/kernels/) whose series
# KREL belongs to, else from the system's configured sources.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

krel=${1:-$(fwq_krel)} || fwq_die 2 "cannot determine the target release"
img=$(fwq_vmlinuz "$krel")
if [ -r "$img" ]; then
	printf '%s\n' "$img"
	exit 0
fi

fwq_cache_lock "$FWQ_CACHE/kernel/.lock" .dl
if [ ! -r "$img" ]; then
	got=
	suite=
	fwq_kernel_of_krel "$krel" && suite=$FWQ_K_SUITE
	for pkg in "linux-image-$krel-unsigned" "linux-binary-$krel" \
		   "linux-image-$krel"; do
		fwq_log "downloading $pkg${suite:+ from $suite} (not installing it)"
		if (cd "$FWQ_TMP" && fwq_apt "$suite" download -q "$pkg") >&2; then
			got=$pkg
			break
		fi
	done
	[ -n "$got" ] || fwq_die 2 "no kernel image package for $krel (apt-get update?)"
	mkdir -p "$FWQ_TMP/x"
	# tar fails for the member the package does not have
	dpkg-deb --fsys-tarfile "$FWQ_TMP"/"$got"_*.deb |
		tar -x -C "$FWQ_TMP/x" --wildcards ./boot/ \
			"./usr/lib/modules/$krel/vmlinuz" 2> /dev/null || :
	if [ -r "$FWQ_TMP/x/usr/lib/modules/$krel/vmlinuz" ]; then
		mkdir -p "$FWQ_TMP/x/boot"
		mv "$FWQ_TMP/x/usr/lib/modules/$krel/vmlinuz" \
			"$FWQ_TMP/x/boot/vmlinuz-$krel"
	fi
	[ -r "$FWQ_TMP/x/boot/vmlinuz-$krel" ] || fwq_die 2 "$got has no vmlinuz for $krel"
	rm -rf "$FWQ_CACHE/kernel/$krel"
	mkdir -p "$FWQ_CACHE/kernel/$krel"
	mv "$FWQ_TMP/x/boot" "$FWQ_CACHE/kernel/$krel/boot"
fi
printf '%s\n' "$img"
