#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# toolchain.sh KDIR [--bind DIR]... [--] COMMAND [ARG...]: run COMMAND, in
# the current directory, with the toolchain that builds modules against
# the headers tree KDIR: FWQ_K_TOOLCHAIN of the kernel (scripts/kernels/)
# whose series KDIR's release belongs to, fitted to the host
# (fwq_kernel_host). For host (on Debian 12 6.1 and 6.12, on Debian 13
# all three, and any release no kernel file names), COMMAND just runs.
# For a Debian suite (on Debian 12 7.3: trixie; on a host with no gcc-12
# 6.1 and 6.12: bookworm), it runs chrooted into that suite's build root
# (scripts/mkroot.sh), as the calling user, with the same paths as
# outside: the tree (FWQ_TOP), the current directory, the headers
# ($FWQ_CACHE/headers, read-only) and every --bind DIR are bind-mounted at
# their own paths, with /dev and a /proc. The mounts live in a mount
# namespace of this command's own (unshare), so none outlives it, however
# it ends. Entering the root needs root; a user is asked for sudo, and
# COMMAND still runs as that user.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || fwq_die 2 "usage: $0 KDIR [--bind DIR]... [--] COMMAND [ARG...]"
kdir=$1
shift
binds=()
while [ $# -gt 0 ]; do
	case "$1" in
	--bind)
		[ $# -ge 2 ] || fwq_die 2 "--bind needs a directory"
		binds+=("$2")
		shift 2
		;;
	--bind=*)
		binds+=("${1#--bind=}")
		shift
		;;
	--)
		shift
		break
		;;
	*)
		break
		;;
	esac
done
[ $# -gt 0 ] || fwq_die 2 "no command to run"

tc=$(fwq_toolchain_of_kdir "$kdir")
if [ "$tc" = host ]; then
	exec "$@"
fi
root=$(fwq_root_dir "$tc")
[ -r "$root/.fwq-root" ] ||
	fwq_die 2 "no $tc build root in $root for $kdir (scripts/deps.sh makes it)"

user=${FWQ_TOOLCHAIN_USER:-$(id -u):$(id -g)}
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo > /dev/null ||
		fwq_die 2 "entering the $tc build root needs root or sudo"
	exec sudo --preserve-env FWQ_TOOLCHAIN_USER="$user" "$0" "$kdir" \
		"${binds[@]/#/--bind=}" -- "$@"
fi
if [ "${FWQ_TOOLCHAIN_NS:-}" != "$tc" ]; then
	# again, in a private mount namespace
	FWQ_TOOLCHAIN_NS=$tc FWQ_TOOLCHAIN_USER=$user exec unshare -m \
		--propagation private "$0" "$kdir" "${binds[@]/#/--bind=}" -- "$@"
fi
unset FWQ_TOOLCHAIN_NS FWQ_TOOLCHAIN_USER

# bind DIR [ro]: DIR at its own path in the root
bind() {
	local d

	d=$(realpath -e "$1") || fwq_die 2 "cannot bind $1: no such directory"
	mkdir -p "$root$d"
	mount --bind "$d" "$root$d"
	if [ "${2:-}" = ro ]; then
		mount -o remount,bind,ro "$root$d"
	fi
}

hdrs=$FWQ_CACHE/headers
[ -d "$hdrs" ] && bind "$hdrs" ro
case "$(realpath -e "$kdir")/" in
"$(realpath -m "$hdrs")"/*) ;;
*) bind "$kdir" ro ;;
esac
bind "$FWQ_TOP"
[ "$(realpath -e .)" = "$(realpath -e "$FWQ_TOP")" ] || bind .
for d in "${binds[@]}"; do
	bind "$d"
done
mount --bind /dev "$root/dev"
mount -t proc proc "$root/proc"
# shellcheck disable=SC2016 # $1 and $@ are the inner shell's
exec chroot --userspec="$user" "$root" /bin/sh -c 'cd "$1" && shift && exec "$@"' \
	sh "$(realpath -e .)" "$@"
