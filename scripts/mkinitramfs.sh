#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT PLAN KO...: build the guest initramfs (gzip'd newc
# cpio) from busybox-static, scripts/guest-init.sh as /init, the plan as
# /plan and each KO under /modules/.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || fwq_die 2 "usage: $0 OUT.cpio.gz PLAN [KO...]"
out=$1
plan=$2
shift 2

busybox=${FWQ_BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] || fwq_die 2 "$busybox missing (apt-get install busybox-static)"
if ldd "$busybox" >/dev/null 2>&1; then
	fwq_die 2 "$busybox is dynamically linked; install busybox-static"
fi
[ -r "$plan" ] || fwq_die 2 "plan $plan not found"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,etc,modules,lib/fwq}
cp "$busybox" "$stage/bin/busybox"
cp "$FWQ_TOP/scripts/guest-init.sh" "$stage/init"
cp "$FWQ_TOP/scripts/guest-lib.sh" "$stage/lib/fwq/guest-lib.sh"
cp "$plan" "$stage/plan"
chmod 0755 "$stage/init"
cp "$FWQ_TOP/VERSION" "$stage/etc/fwq-version"
for ko in "$@"; do
	[ -r "$ko" ] || fwq_die 2 "module $ko not found"
	cp "$ko" "$stage/modules/"
done
(cd "$stage" && find . -print0 | sort -z |
	cpio --null -o -H newc --owner 0:0 --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
