#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install, with apt-get, the Debian packages fwq's build, tests,
# lint and bench need, when they are missing, and the target kernel's
# headers. Quick when nothing is missing: one dpkg-query, no apt-get at
# all. "apt-get update" runs only if an install fails without it. Then the
# guest kernel image, checkpatch.pl and the guests' QEMU are fetched into
# $FWQ_CACHE (see get-kernel.sh, get-checkpatch.sh, get-qemu.sh), and a
# kernel whose FWQ_K_TOOLCHAIN is a Debian suite gets that suite's build
# root, debootstrapped once into $FWQ_CACHE/root (mkroot.sh); one the host
# builds gets the compiler its headers name (FWQ_K_CC: gcc-12 on Debian
# 13 for 6.1 and 6.12). FWQ_DEPS_NO_ROOT=1 leaves the root to a later
# call (.ci/run makes it in the background, and fetches the rest first).
# The target: KDIR, else KREL, else KERNEL (a name in scripts/kernels/,
# default FWQ_KERNEL_DEFAULT in lib.sh), each in FLAVOUR ('' or rt).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

pkgs=(make gcc kmod perl python3 qemu-system-x86 busybox-static cpio gzip
      xz-utils dkms openssl sparse shellcheck python3-pyflakes gnuplot-nox git
      debhelper dh-dkms lintian)

# resolve_abi: the ABI that the suite's headers metapackage depends on,
# kept in $FWQ_CACHE/kernel/NAME.abi (a pin in the kernel's file wins).
resolve_abi() {
	local abi

	[ -n "$FWQ_K_ABI" ] && return 0
	abi=$(meta_abi) || {
		[ -n "$FWQ_K_SUITE" ] || "${sudo[@]}" apt-get update -q >&2
		abi=$(meta_abi)
	} || fwq_die 2 "cannot resolve the ABI of kernel $FWQ_K_NAME from linux-headers-$sfx${FWQ_K_SUITE:+ in $FWQ_K_SUITE}"
	mkdir -p "$FWQ_CACHE/kernel" && echo "$abi" > "$FWQ_CACHE/kernel/$FWQ_K_NAME.abi"
	fwq_log "kernel $FWQ_K_NAME: ABI $abi"
}

# meta_abi: the newest ABI of the kernel's series in its suite: the one
# the headers metapackage depends on, else (the suite has moved on to a
# newer series) the newest linux-headers-SERIES.*-FLAVOUR package there
meta_abi() {
	local abi

	# SERIES.x, maybe with Debian 12's "-N" ABI number (6.1.0-37), and
	# not the rt or cloud flavour's name when FLAVOUR is amd64
	abi="\(${FWQ_K_SERIES//./\\.}\.[^-]*\(-[0-9][^-]*\)\{0,1\}\)"

	fwq_apt_cache "$FWQ_K_SUITE" depends "linux-headers-$sfx" 2> /dev/null |
		sed -n "s/^ *Depends: linux-headers-$abi-$sfx\$/\1/p" |
		sort -V | tail -n 1 | grep . && return 0
	fwq_apt_cache "$FWQ_K_SUITE" pkgnames "linux-headers-$FWQ_K_SERIES." 2> /dev/null |
		sed -n "s/^linux-headers-$abi-$sfx\$/\1/p" |
		sort -V | tail -n 1 | grep .
}

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

pkgs+=(pahole)
# FWQ_DEPS_PKGS: more packages a target needs (make bench-xfs: xfsprogs)
read -r -a extra <<< "${FWQ_DEPS_PKGS:-}"
pkgs+=("${extra[@]}")

# The target's headers: KDIR's (nothing to install), KREL's package, or
# those of the kernel the harness tests, KERNEL (scripts/kernels/, default
# FWQ_KERNEL_DEFAULT) in FLAVOUR: installed with apt, or unpacked into
# the cache when the kernel's file says so.
headers=
unpack=
target=
toolchain=host
cc=
if [ -n "${KDIR:-}" ]; then
	headers=
elif [ -n "${KREL:-}" ]; then
	fwq_headers_dir "$KREL" > /dev/null || headers=linux-headers-$KREL
	if fwq_kernel_of_krel "$KREL"; then
		toolchain=$FWQ_K_TOOLCHAIN
		cc=$FWQ_K_CC
	fi
else
	fwq_kernel_load ||
		fwq_die 2 "unknown KERNEL '${KERNEL:-}' (known: $(fwq_kernel_names --all | tr '\n' ' '))"
	sfx=$(fwq_flavour_suffix "${FLAVOUR:-}") ||
		fwq_die 2 "unknown FLAVOUR '${FLAVOUR:-}' (want '' or rt)"
	if ! krel=$(fwq_kernel_krel "${FLAVOUR:-}") ||
	   ! fwq_headers_dir "$krel" > /dev/null; then
		resolve_abi
		krel=$(fwq_kernel_krel "${FLAVOUR:-}") ||
			fwq_die 2 "kernel $FWQ_K_NAME has no flavour $sfx"
	fi
	target=$krel
	toolchain=$FWQ_K_TOOLCHAIN
	cc=$FWQ_K_CC
	if ! fwq_headers_dir "$krel" > /dev/null; then
		case "$FWQ_K_HEADERS" in
		apt) headers=linux-headers-$krel ;;
		unpack) unpack=$krel ;;
		*) fwq_die 2 "scripts/kernels/$FWQ_K_NAME: bad FWQ_K_HEADERS '$FWQ_K_HEADERS'" ;;
		esac
	fi
fi
[ -n "$headers" ] && pkgs+=("$headers")
if [ "$toolchain" = host ]; then
	[ -z "$cc" ] || pkgs+=("$cc")
else
	pkgs+=(debootstrap)
fi

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

apt_install() {
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q \
		--no-install-recommends "$@"
}

if [ ${#missing[@]} -gt 0 ]; then
	if [ ${#sudo[@]} -gt 0 ] && ! command -v sudo >/dev/null; then
		fwq_die 2 "missing packages (need root): ${missing[*]}"
	fi
	fwq_log "installing: ${missing[*]}"
	if ! apt_install "${missing[@]}"; then
		fwq_log "retrying after apt-get update"
		"${sudo[@]}" apt-get update -q
		apt_install "${missing[@]}" || fwq_die 2 "apt-get install failed"
	fi
fi

[ -n "$unpack" ] && fwq_unpack_headers "$FWQ_K_SUITE" "$unpack"
# new headers must name the compiler that the kernel's file installs
if [ -n "$headers$unpack" ] && [ -n "$cc" ]; then
	kv=$(fwq_headers_dir "${headers#linux-headers-}$unpack" || :)/.kernelvariables
	if [ -r "$kv" ] && ! grep -Eq "^CC = .*[^a-z0-9-]$cc\$" "$kv"; then
		fwq_die 2 "the headers of ${headers#linux-headers-}$unpack want $(sed -n 's/^CC = .*[)-]\(gcc-[0-9]*\)$/\1/p' "$kv"), scripts/kernels/$FWQ_K_NAME says FWQ_K_CC=$cc"
	fi
fi
if [ "$toolchain" != host ] && [ -z "${FWQ_DEPS_NO_ROOT:-}" ]; then
	"$FWQ_TOP/scripts/mkroot.sh" "$toolchain" > /dev/null
fi
if [ -n "$target" ]; then
	krel=$target
	fwq_headers_dir "$krel" > /dev/null ||
		fwq_die 2 "no headers for $krel after installing"
else
	krel=$(fwq_krel) || fwq_die 2 "no kernel headers after installing (FLAVOUR='${FLAVOUR:-}')"
fi
"$FWQ_TOP/scripts/get-kernel.sh" "$krel" > /dev/null
"$FWQ_TOP/scripts/get-checkpatch.sh" > /dev/null
# The guests' QEMU: bookworm's 7.2 hangs guests that patch kernel text
# under multi-threaded TCG (docs/testing.md); the harness boots
# bookworm-backports' QEMU, unpacked into the cache.
"$FWQ_TOP/scripts/get-qemu.sh" "$FWQ_QEMU_SUITE" > /dev/null
fwq_log "dependencies ready for $krel"
