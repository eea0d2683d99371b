#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# get-qemu.sh SUITE: unpack the QEMU (qemu-system-x86, its data and
# seabios) of another Debian suite, e.g. bookworm-backports, into
# $FWQ_CACHE/qemu/SUITE (never installed), and print the path of its
# qemu-system-x86_64; vm-run.sh takes it as FWQ_QEMU. The apt source is
# derived from this machine's configured Debian source: the same URIs and
# keyring, the other suite. Quick when it is unpacked already.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

suite=${1:?usage: get-qemu.sh SUITE}
dir=$FWQ_CACHE/qemu/$suite
bin=$dir/usr/bin/qemu-system-x86_64
if [ -x "$bin" ]; then
	printf '%s\n' "$bin"
	exit 0
fi

fwq_cache_lock "$FWQ_CACHE/qemu/.lock" .dl
if [ ! -x "$bin" ]; then
	# the first deb822 stanza whose URIs end in /debian, or a one-line
	# "deb URI bookworm main" entry
	src=$FWQ_TMP/sources.list
	uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }')
	keyring=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^Signed-By:/ { print $2; exit }')
	if [ -z "$uri" ]; then
		uri=$(awk '$1 == "deb" && $2 !~ /^\[/ && $2 ~ /\/debian\/?$/ { print $2; exit }' \
			/etc/apt/sources.list 2>/dev/null)
	fi
	[ -n "$uri" ] || fwq_die 2 "no Debian source configured in /etc/apt"
	echo "deb ${keyring:+[signed-by=$keyring] }$uri $suite main" > "$src"
	mkdir -p "$FWQ_TMP/lists/partial"
	apt_o=(-o "Dir::Etc::sourcelist=$src" -o Dir::Etc::sourceparts=-
	       -o "Dir::State::Lists=$FWQ_TMP/lists")
	apt-get "${apt_o[@]}" update -q >&2 || fwq_die 2 "apt-get update for $suite failed"
	(cd "$FWQ_TMP" && apt-get "${apt_o[@]}" download -q qemu-system-x86 \
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
