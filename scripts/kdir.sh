#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel headers tree (--kdir, default) or the target release
# (--krel) fwq builds against. Honours KDIR, KREL and FLAVOUR (rt) from the
# environment; see fwq_kdir in lib.sh for the search order.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

case "${1:---kdir}" in
--kdir)
	fwq_kdir || fwq_die 2 "no kernel headers found (FLAVOUR='${FLAVOUR:-}'); run scripts/deps.sh or set KDIR="
	;;
--krel)
	fwq_krel || fwq_die 2 "cannot read the release from the headers' include/generated/utsrelease.h"
	;;
*)
	fwq_die 2 "usage: $0 [--kdir|--krel]"
	;;
esac
