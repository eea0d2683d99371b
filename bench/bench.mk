# SPDX-License-Identifier: GPL-2.0
# fwq benchmark targets. Included from the top-level Makefile:
#   -include $(FWQ_TOP)/bench/bench.mk
#
#   make bench [REPEAT=N] [QUICK=1] [BENCH_ARGS="--quick | --reps N | --scale N | --boots 'enq p192'"]
#       install what is missing, build, boot the guest per topology and run
#       the default suite; writes results/bench-<timestamp>/. REPEAT=2 runs
#       the suite twice back to back and compares the runs
#       (repeatability.md)
#   make bench-local [BENCH_ARGS=...]
#       the same suite on this machine's own kernel (root, debugfs, no QEMU)
#       (bench/fwq-bench.sh, also the fwq-dkms package's /usr/bin/fwq-bench)
#   make bench-smoke
#       every scenario once, fields checked, no timings (also a check lane)

BENCH_ARGS ?=
REPEAT ?= 1

.PHONY: bench bench-local bench-smoke

## the benchmark suite in QEMU guests (REPEAT=N, QUICK=1 = --quick, BENCH_ARGS=...; bench/README.md)
bench:
	$(FWQ_TOP)/bench/bench.sh --repeat $(REPEAT) $(if $(QUICK),--quick) $(BENCH_ARGS)

## the same suite on this machine's running kernel (= fwq-bench)
bench-local:
	$(FWQ_TOP)/bench/fwq-bench.sh $(BENCH_ARGS)

## every bench scenario once, fields checked, no timings
bench-smoke: modules
	$(FWQ_TOP)/scripts/vm-run.sh --preset small --plan bench-smoke --timeout 600
