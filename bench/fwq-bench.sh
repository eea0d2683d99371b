#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fwq-bench [--quick] [--reps N] [--scale N] [--repeat N] [--redo N] [--out DIR]:
# the fwq_bench suite on this machine's running kernel (root, debugfs, no
# QEMU). It is "make bench-local" in a source tree and /usr/bin/fwq-bench in the
# fwq-dkms package: both run bench.sh --local next to this file, so the
# two are one code path. Exit codes: docs/hardware.md, "Exit codes and
# Secure Boot" (/usr/share/doc/fwq-dkms/hardware.md in the package).
set -eu
exec "$(dirname "$(readlink -f "$0")")/bench.sh" --local "$@"
