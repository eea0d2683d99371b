# SPDX-License-Identifier: GPL-2.0
#
# fwq user-facing targets; the kbuild rules live in Kbuild files. Run
# "make help" for the list. Everything runs Debian kernels under QEMU
# (scripts/kernels/: 6.1 by default, 6.12); nothing here loads a module on
# the build host.

FWQ_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
VERSION := $(shell cat $(FWQ_TOP)/VERSION)

# FLAVOUR=rt builds against the PREEMPT_RT headers and boots the -rt image.
FLAVOUR ?=
# KERNEL: one of scripts/kernels/ (6.1, 6.12): the kernel to build for and
# boot. make check runs every kernel unless KERNEL names one.
KERNEL ?=
# KDIR: the headers to build against. Default: KREL's if KREL is given,
# else KERNEL's, else the running kernel's build dir if it has one, else
# the default kernel's (6.1), else the newest installed Debian headers of
# FLAVOUR (scripts/lib.sh, fwq_kdir). KREL: the target release, read from KDIR's utsrelease.h.
# Only a KDIR or KREL given by the user is passed on to the scripts; they
# find the default themselves, and make check pins each kernel's pass.
ifeq ($(origin KDIR),undefined)
KDIR := $(shell KERNEL=$(KERNEL) KREL=$(KREL) FLAVOUR=$(FLAVOUR) $(FWQ_TOP)/scripts/kdir.sh --kdir 2>/dev/null)
else
export KDIR
endif
ifeq ($(KREL),)
KREL := $(shell KDIR=$(KDIR) $(FWQ_TOP)/scripts/kdir.sh --krel 2>/dev/null)
else
export KREL
endif
FWQ_TESTS ?= y
FWQ_CACHE ?= /var/cache/fwq
export FLAVOUR KERNEL FWQ_CACHE

# vm target knobs
PRESET ?= small
PLAN ?= selftest
TIMEOUT ?= 300
APPEND ?=

# kbuild runs with the toolchain of KDIR's kernel: the build host's, or a
# Debian build root (scripts/toolchain.sh; 7.3's is trixie's)
KMAKE := $(FWQ_TOP)/scripts/toolchain.sh $(KDIR) -- $(MAKE)
KBUILD_ARGS := -C $(KDIR) M=$(FWQ_TOP) FWQ_TESTS=$(FWQ_TESTS) \
	$(if $(W),W=$(W)) $(if $(C),C=$(C)) $(if $(V),V=$(V))
# kbuild on every core, unless the caller chose (make -jN): a plain make
# would build the tree's 74 objects one at a time. Expanded in the recipe,
# where MAKEFLAGS holds the -j.
KBUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))

.PHONY: all modules clean distclean check lint deps selfcheck-harness \
	dkms-check dkms-install dkms-uninstall vm kernel version kdir help icount

## build fwq.ko, fwq_bench.ko and the test modules (= make modules)
all: modules

## build fwq.ko, fwq_bench.ko and the test modules for KERNEL (or KDIR)
modules: kdir
	+$(KMAKE) $(KBUILD_JOBS) $(KBUILD_ARGS) modules

# Kbuild's clean deletes every file named like a build product under M=,
# skipping only the directories RCS_FIND_IGNORE prunes: results/ and
# .cache/ hold other builds' products (check-distro's chroot, the debug
# lanes' module builds), which may be in use while the tree is cleaned.
FWQ_CLEAN_PRUNE := \( -name .git -o -name results -o -name .cache \) -prune -o

## remove the build products (not results/ or .cache/)
clean:
	@if [ -n "$(KDIR)" ]; then \
		$(KMAKE) -C $(KDIR) M=$(FWQ_TOP) clean \
			RCS_FIND_IGNORE='$(FWQ_CLEAN_PRUNE)'; \
		if [ -d $(FWQ_TOP)/tests/selfcheck ]; then \
			$(KMAKE) -C $(KDIR) M=$(FWQ_TOP)/tests/selfcheck clean; \
		fi; \
	fi

## make clean, and remove results/
distclean: clean
	rm -rf $(FWQ_TOP)/results

## check that kernel headers were found (KDIR, KREL)
kdir:
	@if [ -z "$(KDIR)" ] || [ -z "$(KREL)" ]; then \
		echo "fwq: no kernel headers found$(if $(FLAVOUR), for FLAVOUR=$(FLAVOUR)); run scripts/deps.sh or pass KDIR=" >&2; \
		exit 2; \
	fi

# Tests: deps, build, lint, DKMS, then every VM lane in scripts/check.d/.
# DRYRUN=1: list the lanes of each kernel's pass instead (scripts/lanes.sh)
# FILTER=suite.case (a glob): that selftest case alone, on KERNEL.
## the tests: deps, build, lint, every lane of scripts/check.d/; ends "N passed, N failed" (DRYRUN=1: list them)
##   FILTER=suite.case: one selftest case (a glob), on KERNEL (default 6.1)
check:
	@FWQ_CHECK_FILTER='$(FILTER)' $(FWQ_TOP)/scripts/$(if $(DRYRUN),lanes,check).sh

# The edit-test loop: the default kernel only, and the lanes of
# scripts/check.d/quick/ (the small selftests, one short torture slice).
.PHONY: check-quick
## the fast loop: deps, build, lint, small selftests, one torture slice
check-quick:
	@FWQ_CHECK_LANES='quick/*' FWQ_CHECK_ONE_KERNEL=1 \
		$(FWQ_TOP)/scripts/$(if $(DRYRUN),lanes.sh --one-kernel,check.sh)

# bench/bench_report.py's tests alone (the bench_report lane of check and
# check-quick): pure Python, no build, no guest.
.PHONY: check-report
## bench_report.py's tests: fixtures, interval coverage, bad input
check-report:
	@/usr/bin/python3 $(FWQ_TOP)/tests/bench-report/test_bench_report.py

.PHONY: check-doclint
## doclint.py's tests: a false statement of each kind planted must fail it
check-doclint:
	@/usr/bin/python3 $(FWQ_TOP)/tests/doclint/test_doclint.py

## checkpatch --strict, W=1 + sparse (C=2), kernel-doc, shellcheck, pyflakes, doc lint (DRYRUN=1: list the checks)
lint: kdir
	@$(FWQ_TOP)/scripts/lint.sh $(if $(DRYRUN),--list)

## install the missing Debian packages (scripts/deps.sh)
deps:
	@$(FWQ_TOP)/scripts/deps.sh

# Proves that a failing KTAP case and a WARN each fail a VM run.
## prove that the harness fails bad runs (scripts/selfcheck.sh)
selfcheck-harness: kdir
	@$(FWQ_TOP)/scripts/selfcheck.sh

## dkms add/build in a scratch tree (no system change)
dkms-check: kdir
	@$(FWQ_TOP)/scripts/dkms.sh check

## install fwq and fwq_bench with DKMS
dkms-install: kdir
	@$(FWQ_TOP)/scripts/dkms.sh install

## remove the DKMS installation
dkms-uninstall:
	@$(FWQ_TOP)/scripts/dkms.sh uninstall

# The Debian package: build/deb/fwq-dkms_$(VERSION)_all.deb (debian/).
.PHONY: deb
## build/deb/fwq-dkms_VERSION_all.deb (DKMS sources, fwq-bench)
deb:
	@$(FWQ_TOP)/scripts/deb.sh build

# The package's journey on a booted Debian guest (scripts/check-distro.sh);
# not a make check lane. DISTRO=12 (default), 13 or all: which Debian.
# DISTRO_OUT=DIR: the results there, and the chroot steps that
# check-distro.sh --prepare-only ran there before are not run again
# (.ci/run).
.PHONY: check-distro
## the fwq-dkms package on booted Debian: DISTRO=12 (default), 13 or all; DISTRO_OUT=DIR
check-distro:
	@$(FWQ_TOP)/scripts/check-distro.sh $(if $(DISTRO),--distro "$(DISTRO)") \
		$(if $(DISTRO_OUT),--out "$(DISTRO_OUT)")

# The README's two commands on a fresh machine of another Debian release
# (scripts/check-host.sh): make check-quick and make bench QUICK=1 in a
# debootstrapped root, with an empty cache; not a make check lane.
# DISTRO=13 (default) or 12; KEEP=1 keeps the machine.
.PHONY: check-host
## check-quick and bench QUICK=1 on a fresh Debian 13 (DISTRO=13|12) machine, a debootstrapped root; KEEP=1
check-host:
	@$(FWQ_TOP)/scripts/check-host.sh --distro "$(or $(DISTRO),13)" \
		$(if $(KEEP),--keep)

# One VM run: make vm PRESET=wide PLAN=selftest
## one VM run: PRESET=small|wide|timing PLAN=name TIMEOUT=s APPEND=...
vm: modules
	@$(FWQ_TOP)/scripts/vm-run.sh --preset $(PRESET) --plan $(PLAN) \
		--timeout $(TIMEOUT) $(if $(APPEND),--append "$(APPEND)") \
		$(if $(FLAVOUR),--flavour $(FLAVOUR))

## download and unpack the guest kernel image of KREL
kernel: kdir
	@$(FWQ_TOP)/scripts/get-kernel.sh $(KREL)

# What the tracepoints cost: fwq_bench S1 with them disabled, compiled out
# (FWQ_TRACE=n) and enabled, in one boot. ROUNDS= rounds (default 5).
.PHONY: trace-cost
## guest instructions per flush and enqueue, fwq's designs against the kernel's workqueue (KERNELS="6.12 7.3" POSSIBLE=n PRESET=small PAGES=1)
icount:
	$(FWQ_TOP)/scripts/icount.sh $(if $(KERNELS),--kernels "$(KERNELS)") \
		$(if $(POSSIBLE),--possible "$(POSSIBLE)") \
		$(if $(PRESET),--preset "$(PRESET)") $(if $(PAGES),--pages)

## what fwq's tracepoints cost on enqueue (ROUNDS=n)
trace-cost: modules
	@$(FWQ_TOP)/scripts/trace-cost.sh $(if $(ROUNDS),--rounds $(ROUNDS))

# Judge a saved results folder again, booting nothing (scripts/recheck.sh).
.PHONY: recheck
## judge a saved results/ folder again, no guest booted (DIR=results/...)
recheck:
	@$(FWQ_TOP)/scripts/recheck.sh "$(DIR)"

## print the version
version:
	@echo $(VERSION)

## this list, generated from the "## " line above each rule
help:
	@echo "fwq $(VERSION) targets:"
	@awk '/^## / { d = (d == "" ? "" : d "\n                         ") substr($$0, 4); next } \
		/^[a-z][a-z0-9-]*:/ && !/:=/ { \
			printf "  make %-19s %s\n", substr($$0, 1, index($$0, ":") - 1), \
				(d == "" ? "(undocumented)" : d) } \
		{ d = "" }' $(MAKEFILE_LIST)
	@echo "variables: KERNEL=$(KERNEL) ($$(ls $(FWQ_TOP)/scripts/kernels | tr '\n' ' ')) KDIR=$(KDIR)"
	@echo "           KREL=$(KREL) FLAVOUR=$(FLAVOUR) FWQ_CACHE=$(FWQ_CACHE)"
	@echo "           W= C= V= FWQ_TESTS=$(FWQ_TESTS) FWQ_TRACE=n (no tracepoints)"

# The bench target lives with the bench.
-include $(FWQ_TOP)/bench/bench.mk
# Torture, race reproducers and the debug-kernel lanes.
-include $(FWQ_TOP)/scripts/torture.mk
# XFS and other kernel modules on fwq through the shim.
-include $(FWQ_TOP)/scripts/modules.mk
# The compile-only lane over every headers series Debian serves.
-include $(FWQ_TOP)/scripts/compile.mk
