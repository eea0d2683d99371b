# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by fwq's host-side scripts. Source it; do not run it.
# shellcheck disable=SC2034 # FWQ_TOP, FWQ_CACHE, FWQ_QEMU_SUITE and FWQ_TMP are for the sourcing script

FWQ_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FWQ_CACHE=${FWQ_CACHE:-/var/cache/fwq}
# the Debian suite whose QEMU boots the guests (scripts/get-qemu.sh)
FWQ_QEMU_SUITE=${FWQ_QEMU_SUITE:-bookworm-backports}

fwq_log() {
	printf 'fwq: %s\n' "$*" >&2
}

# fwq_die RC MSG: print MSG and exit with RC (2 = setup error).
fwq_die() {
	local rc=$1

	shift
	printf 'fwq: error: %s\n' "$*" >&2
	exit "$rc"
}

# fwq_krel_of KDIR: the release string of a headers tree, from utsrelease.h
# (Debian's "make kernelrelease" prints the upstream version, not the ABI).
fwq_krel_of() {
	local h=$1/include/generated/utsrelease.h

	[ -r "$h" ] || return 1
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$h"
}

# fwq_newest_headers FLAVOUR: newest /usr/src/linux-headers-*-amd64 tree of
# that flavour ("" = generic, "rt" = PREEMPT_RT).
fwq_newest_headers() {
	local flavour=$1 d

	for d in /usr/src/linux-headers-*-amd64; do
		[ -r "$d/include/generated/utsrelease.h" ] || continue
		case "$d" in
		*-rt-amd64) [ "$flavour" = rt ] || continue ;;
		*-cloud-amd64) continue ;;
		*) [ "$flavour" = rt ] && continue ;;
		esac
		printf '%s\n' "$d"
	done | sort -V | tail -n 1
}

# fwq_kdir: print the headers tree to build against. KDIR wins, then KREL,
# then the running kernel's build dir, then the newest installed Debian
# headers of the requested FLAVOUR.
fwq_kdir() {
	local flavour=${FLAVOUR:-} d

	if [ -n "${KDIR:-}" ]; then
		printf '%s\n' "$KDIR"
		return 0
	fi
	if [ -n "${KREL:-}" ]; then
		for d in "/lib/modules/$KREL/build" "/usr/src/linux-headers-$KREL"; do
			if [ -d "$d" ]; then
				printf '%s\n' "$d"
				return 0
			fi
		done
		return 1
	fi
	d=/lib/modules/$(uname -r)/build
	if [ -r "$d/include/generated/utsrelease.h" ]; then
		case "$(uname -r)" in
		*-rt-*) [ "$flavour" = rt ] && { printf '%s\n' "$d"; return 0; } ;;
		*) [ "$flavour" = rt ] || { printf '%s\n' "$d"; return 0; } ;;
		esac
	fi
	d=$(fwq_newest_headers "$flavour")
	[ -n "$d" ] || return 1
	printf '%s\n' "$d"
}

# fwq_krel: the target release (KREL, or read from the headers).
fwq_krel() {
	local kdir

	if [ -n "${KREL:-}" ]; then
		printf '%s\n' "$KREL"
		return 0
	fi
	kdir=$(fwq_kdir) || return 1
	fwq_krel_of "$kdir"
}

# fwq_vmlinuz KREL: path of the cached guest kernel image.
fwq_vmlinuz() {
	printf '%s\n' "$FWQ_CACHE/kernel/$1/boot/vmlinuz-$1"
}

# fwq_cache_lock LOCKFILE PREFIX: create LOCKFILE's directory in the cache,
# hold LOCKFILE (fd 9) until the script exits, so that concurrent scripts
# fill the cache once, and set FWQ_TMP to a new scratch directory PREFIX.*
# next to it, removed at exit. apt may download into FWQ_TMP: apt drops
# privileges to _apt for the download when it can write there.
fwq_cache_lock() {
	local dir

	dir=$(dirname "$1")
	mkdir -p "$dir" || fwq_die 2 "cannot create $FWQ_CACHE"
	exec 9>"$1"
	flock 9
	FWQ_TMP=$(mktemp -d "$dir/$2.XXXXXX")
	trap 'rm -rf "$FWQ_TMP"' EXIT
	chmod 0755 "$FWQ_TMP"
	chown _apt "$FWQ_TMP" 2>/dev/null || true
}

fwq_now() {
	date +%s.%N
}

# fwq_elapsed START: seconds since START (from fwq_now), one decimal.
fwq_elapsed() {
	awk -v s="$1" -v e="$(fwq_now)" 'BEGIN { printf "%.1f", e - s }'
}
