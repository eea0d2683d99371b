#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install, with apt-get, the Debian packages fwq's build, tests,
# lint and bench need, when they are missing. Quick when nothing is
# missing: one dpkg-query, no apt-get at all. "apt-get update" runs only if
# an install fails without it. Then the guest kernel image and checkpatch.pl
# are fetched into $FWQ_CACHE (see get-kernel.sh, get-checkpatch.sh).
# Honours KDIR, KREL and FLAVOUR (rt) for the headers package.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

pkgs=(make gcc kmod perl python3 qemu-system-x86 busybox-static cpio gzip
      xz-utils dkms openssl sparse shellcheck gnuplot-nox git)

# The headers package: the one that matches KREL, or the running Debian
# kernel; for FLAVOUR=rt the -rt build of the newest installed generic ABI.
headers=
if [ -n "${KDIR:-}" ]; then
	headers=
elif [ -n "${KREL:-}" ]; then
	headers=linux-headers-$KREL
elif [ "${FLAVOUR:-}" = rt ]; then
	if ! fwq_kdir >/dev/null 2>&1; then
		generic=$(FLAVOUR='' fwq_kdir 2>/dev/null || true)
		if [ -n "$generic" ]; then
			abi=$(fwq_krel_of "$generic")
			headers=linux-headers-${abi%-amd64}-rt-amd64
		else
			headers=linux-headers-rt-amd64
		fi
	fi
elif ! fwq_kdir >/dev/null 2>&1; then
	case "$(uname -r)" in
	*-amd64) headers=linux-headers-$(uname -r) ;;
	*) headers=linux-headers-amd64 ;;
	esac
fi
[ -n "$headers" ] && pkgs+=("$headers")

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
	sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null ||
			fwq_die 2 "missing packages (need root): ${missing[*]}"
		sudo=(sudo)
	fi
	fwq_log "installing: ${missing[*]}"
	if ! apt_install "${missing[@]}"; then
		fwq_log "retrying after apt-get update"
		"${sudo[@]}" apt-get update -q
		if ! apt_install "${missing[@]}"; then
			# No headers package for the running (non-Debian?) kernel:
			# take the distribution's current one instead.
			if [ -z "$headers" ] || [ -n "${KREL:-}" ]; then
				fwq_die 2 "apt-get install failed"
			fi
			fwq_log "$headers is not available; using the metapackage"
			missing=("${missing[@]/#$headers/linux-headers-${FLAVOUR:+$FLAVOUR-}amd64}")
			apt_install "${missing[@]}" || fwq_die 2 "apt-get install failed"
		fi
	fi
fi

krel=$(fwq_krel) || fwq_die 2 "no kernel headers after installing (FLAVOUR='${FLAVOUR:-}')"
"$FWQ_TOP/scripts/get-kernel.sh" "$krel" > /dev/null
"$FWQ_TOP/scripts/get-checkpatch.sh" > /dev/null
# The guests' QEMU: bookworm's 7.2 hangs guests that patch kernel text
# under multi-threaded TCG (docs/testing.md); the harness boots
# bookworm-backports' QEMU, unpacked into the cache.
"$FWQ_TOP/scripts/get-qemu.sh" "$FWQ_QEMU_SUITE" > /dev/null
fwq_log "dependencies ready for $krel"
