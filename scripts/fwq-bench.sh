#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fwq-bench [--quick] [--reps N] [--scale N] [--repeat N] [--redo N] [--out DIR]:
# the fwq_bench suite on this machine's running kernel (root, debugfs, no
# QEMU). It is "make bench-local" in a source tree and /usr/bin/fwq-bench in the
# fwq-dkms package: both run bench.sh --local next to this file, so the
# two are one code path. Exit codes: README.md, section
# "Real hardware: the fwq-dkms package and fwq-bench".
set -eu
exec "$(dirname "$(readlink -f "$0")")/bench.sh" --local "$@"
