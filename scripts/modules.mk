# SPDX-License-Identifier: GPL-2.0
# A kernel's own modules rebuilt out of tree, stock and on fwq through the
# shim (scripts/module-build.sh, scripts/modules/), the XFS bench and the
# loop check.
# Included from the top-level Makefile. docs/xfs.md describes the first
# two, docs/shim.md the loop check.
#
#   make xfs [KERNEL=6.1]        build XFS's stock and shimmed xfs.ko
#   make loop [KERNEL=6.1]       build the loop driver's stock and shimmed loop.ko
#   make check-loop [KERNEL=6.1] [LOOP_ARGS=...]
#       data through the shimmed loop.ko on fwq in a guest (docs/shim.md)
#   make bench-xfs [KERNEL=6.1] [XFS_ARGS=...]
#       fsync load on an XFS disk in a guest: the stock module, then the
#       shimmed one with xfs-cil on each flush and wake design
#   make check-xfs [KERNEL=6.1] [CYCLES=20] [XFS_CHECK_ARGS=...]
#       the correctness cycle of the shimmed xfs.ko, CYCLES cycles
#   make check-xfs-short        the same, 3 cycles of 2 s of load (make
#       check-debug's xfs_cycle lane runs them on the small preset, and
#       .ci/run runs that lane, docs/xfs.md)

XFS_KERNEL = $(if $(KERNEL),$(KERNEL),6.1)
XFS_ARGS ?=
LOOP_ARGS ?=
CYCLES ?= 20
XFS_CHECK_ARGS ?=

.PHONY: xfs bench-xfs check-xfs check-xfs-short

## XFS's xfs.ko of KERNEL (default 6.1): stock and on fwq (docs/xfs.md)
xfs:
	@KERNEL=$(XFS_KERNEL) $(FWQ_TOP)/scripts/deps.sh
	+@$(MAKE) -s -C $(FWQ_TOP) modules KERNEL=$(XFS_KERNEL) FWQ_TESTS=n
	@KERNEL=$(XFS_KERNEL) $(FWQ_TOP)/scripts/module-build.sh xfs

## fsync load on XFS in a guest, stock vs each xfs-cil design (XFS_ARGS=...)
bench-xfs:
	@KERNEL=$(XFS_KERNEL) FWQ_DEPS_PKGS="xfsprogs libc6-dev" $(FWQ_TOP)/scripts/deps.sh
	+@$(MAKE) -s -C $(FWQ_TOP) modules KERNEL=$(XFS_KERNEL) FWQ_TESTS=n
	@KERNEL=$(XFS_KERNEL) $(FWQ_TOP)/scripts/bench-xfs.sh $(XFS_ARGS)

.PHONY: loop check-loop

## the loop driver's loop.ko of KERNEL (default 6.1): stock and on fwq
loop:
	@KERNEL=$(XFS_KERNEL) $(FWQ_TOP)/scripts/deps.sh
	+@$(MAKE) -s -C $(FWQ_TOP) modules KERNEL=$(XFS_KERNEL) FWQ_TESTS=n
	@KERNEL=$(XFS_KERNEL) $(FWQ_TOP)/scripts/module-build.sh loop

## data through the shimmed loop.ko on fwq in a guest (docs/shim.md)
check-loop:
	@KERNEL=$(XFS_KERNEL) $(FWQ_TOP)/scripts/deps.sh
	+@$(MAKE) -s -C $(FWQ_TOP) modules KERNEL=$(XFS_KERNEL) FWQ_TESTS=n
	@KERNEL=$(XFS_KERNEL) $(FWQ_TOP)/scripts/check-loop.sh $(LOOP_ARGS)

## mount, fsync load, remount and verify, xfs_repair -n, rmmod: CYCLES times
check-xfs:
	@KERNEL=$(XFS_KERNEL) FWQ_DEPS_PKGS="xfsprogs libc6-dev" $(FWQ_TOP)/scripts/deps.sh
	+@$(MAKE) -s -C $(FWQ_TOP) modules KERNEL=$(XFS_KERNEL) FWQ_TESTS=n
	@KERNEL=$(XFS_KERNEL) $(FWQ_TOP)/scripts/check-xfs.sh --cycles $(CYCLES) $(XFS_CHECK_ARGS)

## check-xfs, short: 3 cycles of 2 s of load (CI: check-debug's xfs_cycle)
check-xfs-short:
	+@$(MAKE) -s -C $(FWQ_TOP) check-xfs CYCLES=3 XFS_CHECK_ARGS="--seconds 2 $(XFS_CHECK_ARGS)"
