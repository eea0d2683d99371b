#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkroot.sh SUITE [PACKAGE...]: make sure the build root of the toolchain
# SUITE (a Debian suite, e.g. trixie: FWQ_K_TOOLCHAIN in scripts/kernels/)
# is in $FWQ_CACHE/root/SUITE, and print its path. PACKAGEs are installed
# in it too (sid's: gcc-16, which its kernels' headers name; make
# check-compile). A kernel whose headers need a compiler or C library the
# build host lacks (7.3 on Debian 12: gcc-14's -fmin-function-alignment,
# linux-kbuild's libc6 2.38; 6.1 and 6.12 on a host with no gcc-12) is
# built in there by scripts/toolchain.sh.
#
# The root is made once, with debootstrap (minbase, plus what kbuild and
# fwq's lint need), from the system's configured Debian archive
# (fwq_debian_source) with the other suite: /etc/apt is never changed. It
# is built beside its final place and moved there only when complete; the
# file .fwq-root in it lists the packages it was made with, and a root
# made with another list is made again. debootstrap runs in a mount
# namespace of its own, so no mount of its outlives it.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

suite=${1:?usage: mkroot.sh SUITE}
case "$suite" in
''|host|*/*|.*) fwq_die 2 "mkroot.sh: bad suite '$suite'" ;;
esac
# kbuild of out-of-tree modules, with the compiler that the headers of
# the release's kernels name (FWQ_K_CC: bookworm's 6.1 and 6.12 gcc-12,
# trixie's 7.3 gcc-14; sid's root, make check-compile's, has gcc-14 too),
# and the lint build's sparse
case "$suite" in
bookworm) cc=gcc-12 ;;
*) cc=gcc-14 ;;
esac
pkgs=$cc,gcc,make,bc,bison,flex,libelf-dev,libssl-dev,sparse,kmod,cpio,perl,python3,dwarves,xz-utils,libc6-dev
shift
for p in "$@"; do
	case "$p" in
	''|*[!a-z0-9.+-]*) fwq_die 2 "mkroot.sh: bad package name '$p'" ;;
	esac
	pkgs=$pkgs,$p
done
root=$(fwq_root_dir "$suite")
stamp="fwq build root: $suite $pkgs"

if [ -r "$root/.fwq-root" ] && [ "$(cat "$root/.fwq-root")" = "$stamp" ]; then
	printf '%s\n' "$root"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || fwq_die 2 "making the $suite build root needs root (debootstrap)"
command -v debootstrap > /dev/null ||
	fwq_die 2 "debootstrap is not installed (scripts/deps.sh)"
fwq_cache_lock "$FWQ_CACHE/root/.lock" ".$suite"
if [ ! -r "$root/.fwq-root" ] || [ "$(cat "$root/.fwq-root")" != "$stamp" ]; then
	fwq_debian_source || fwq_die 2 "no Debian archive to debootstrap $suite from"
	start=$(fwq_now)
	fwq_log "debootstrapping a $suite build root into $root (once)"
	# in a mount namespace of its own: the /proc and /sys that
	# debootstrap mounts in the root go with it, even if it fails
	nice unshare -m --propagation private debootstrap --variant=minbase --include="$pkgs" \
		${fwq_src_keyring:+--keyring="$fwq_src_keyring"} \
		"$suite" "$FWQ_TMP/root" "$fwq_src_uri" > "$FWQ_TMP/debootstrap.log" 2>&1 || {
		tail -n 20 "$FWQ_TMP/debootstrap.log" >&2
		fwq_die 2 "debootstrap of $suite failed"
	}
	echo "$stamp" > "$FWQ_TMP/root/.fwq-root"
	rm -rf "$root"
	mv "$FWQ_TMP/root" "$root"
	fwq_log "$suite build root made in $(fwq_elapsed "$start")s, $(du -sh "$root" | cut -f1)"
fi
printf '%s\n' "$root"
