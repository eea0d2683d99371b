#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# get-qemu.sh SUITE: unpack the QEMU (qemu-system-x86, its data and
# seabios) of another Debian suite, e.g. bookworm-backports, into
# $FWQ_CACHE/qemu/SUITE (never installed), and print the path of its
# qemu-system-x86_64; vm-run.sh takes it as FWQ_QEMU. The apt source is
# derived from this machine's configured Debian source (fwq_apt in
# lib.sh). Quick when it is unpacked already. SUITE the host's own
# release (FWQ_HOST_RELEASE: lib.sh's FWQ_QEMU_SUITE on a host other than
# Debian 12) is the machine's installed QEMU (deps.sh installs
# qemu-system-x86): linked there, not unpacked.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

suite=${1:?usage: get-qemu.sh SUITE}
case "$suite" in
*/*|.*) fwq_die 2 "get-qemu.sh: bad suite '$suite'" ;;
esac
dir=$FWQ_CACHE/qemu/$suite
bin=$dir/usr/bin/qemu-system-x86_64
if [ -x "$bin" ]; then
	printf '%s\n' "$bin"
	exit 0
fi

fwq_cache_lock "$FWQ_CACHE/qemu/.lock" .dl
if [ "$suite" = "$FWQ_HOST_RELEASE" ]; then
	[ -x /usr/bin/qemu-system-x86_64 ] ||
		fwq_die 2 "no /usr/bin/qemu-system-x86_64: apt-get install qemu-system-x86 (scripts/deps.sh)"
	mkdir -p "$dir/usr/bin"
	ln -sfn /usr/bin/qemu-system-x86_64 "$bin"
elif [ ! -x "$bin" ]; then
	(cd "$FWQ_TMP" && fwq_apt "$suite" download -q qemu-system-x86 \
		qemu-system-common qemu-system-data seabios) >&2 ||
		fwq_die 2 "downloading QEMU from $suite failed"
	mkdir -p "$FWQ_TMP/root"
	for deb in "$FWQ_TMP"/*.deb; do
		dpkg-deb -x "$deb" "$FWQ_TMP/root"
	done
	"$FWQ_TMP/root/usr/bin/qemu-system-x86_64" --version > /dev/null ||
		fwq_die 2 "the QEMU of $suite does not run here (missing libraries?)"
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	mv "$FWQ_TMP/root" "$dir"
fi
printf '%s\n' "$bin"
