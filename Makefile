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
# KDIR: the headers to build against. Default: KERNEL's, else the running
# kernel's build dir if it has one, else the default kernel's (6.1), else
# the newest installed Debian headers of FLAVOUR (scripts/lib.sh,
# fwq_kdir). KREL: the target release, read from KDIR's utsrelease.h.
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

KBUILD_ARGS := -C $(KDIR) M=$(FWQ_TOP) FWQ_TESTS=$(FWQ_TESTS) \
	$(if $(W),W=$(W)) $(if $(C),C=$(C)) $(if $(V),V=$(V))

.PHONY: all modules clean distclean check lint deps selfcheck-harness \
	dkms-check dkms-install dkms-uninstall vm kernel version kdir help

all: modules

modules: kdir
	$(MAKE) $(KBUILD_ARGS) modules

clean:
	@if [ -n "$(KDIR)" ]; then \
		$(MAKE) -C $(KDIR) M=$(FWQ_TOP) clean; \
		if [ -d $(FWQ_TOP)/scripts/selfcheck ]; then \
			$(MAKE) -C $(KDIR) M=$(FWQ_TOP)/scripts/selfcheck clean; \
		fi; \
	fi

distclean: clean
	rm -rf $(FWQ_TOP)/results

kdir:
	@if [ -z "$(KDIR)" ] || [ -z "$(KREL)" ]; then \
		echo "fwq: no kernel headers found$(if $(FLAVOUR), for FLAVOUR=$(FLAVOUR)); run scripts/deps.sh or pass KDIR=" >&2; \
		exit 2; \
	fi

# Tests: deps, build, lint, DKMS, then every VM lane in scripts/check.d/.
check:
	@$(FWQ_TOP)/scripts/check.sh

lint: kdir
	@$(FWQ_TOP)/scripts/lint.sh

deps:
	@$(FWQ_TOP)/scripts/deps.sh

# Proves that a failing KTAP case and a WARN each fail a VM run.
selfcheck-harness: kdir
	@$(FWQ_TOP)/scripts/selfcheck.sh

dkms-check: kdir
	@$(FWQ_TOP)/scripts/dkms.sh check

dkms-install: kdir
	@$(FWQ_TOP)/scripts/dkms.sh install

dkms-uninstall:
	@$(FWQ_TOP)/scripts/dkms.sh uninstall

# The Debian package: build/deb/fwq-dkms_$(VERSION)_all.deb (debian/).
.PHONY: deb
deb:
	@$(FWQ_TOP)/scripts/deb.sh build

# The package's journey on a booted Debian 12 guest (scripts/check-distro.sh);
# not a make check lane.
.PHONY: check-distro
check-distro:
	@$(FWQ_TOP)/scripts/check-distro.sh

# One VM run: make vm PRESET=wide PLAN=selftest
vm: modules
	@$(FWQ_TOP)/scripts/vm-run.sh --preset $(PRESET) --plan $(PLAN) \
		--timeout $(TIMEOUT) $(if $(APPEND),--append "$(APPEND)") \
		$(if $(FLAVOUR),--flavour $(FLAVOUR))

kernel: kdir
	@$(FWQ_TOP)/scripts/get-kernel.sh $(KREL)

# What the tracepoints cost: fwq_bench S1 with them disabled, compiled out
# (FWQ_TRACE=n) and enabled, in one boot. ROUNDS= rounds (default 5).
.PHONY: trace-cost
trace-cost: modules
	@$(FWQ_TOP)/scripts/trace-cost.sh $(if $(ROUNDS),--rounds $(ROUNDS))

version:
	@echo $(VERSION)

help:
	@echo "fwq $(VERSION) targets:"
	@echo "  make                 build fwq.ko, fwq_bench.ko, fwq_test.ko"
	@echo "  make check           deps, build, lint, DKMS, VM tests; ends 'N passed, N failed'"
	@echo "  make bench           the benchmark suite in QEMU guests (bench/bench.mk, bench/README.md)"
	@echo "  make lint            checkpatch --strict, W=1 + sparse (C=2), shellcheck"
	@echo "  make deps            install missing Debian packages"
	@echo "  make vm              one VM run (PRESET=small|wide PLAN=name TIMEOUT=s APPEND=...)"
	@echo "  make selfcheck-harness  prove the harness fails a bad run"
	@echo "  make trace-cost      what fwq's tracepoints cost on enqueue (ROUNDS=n)"
	@echo "  make dkms-check      dkms add/build in a scratch tree (no system change)"
	@echo "  make dkms-install    install fwq and fwq_bench with DKMS; make dkms-uninstall"
	@echo "  make deb             build/deb/fwq-dkms_$(VERSION)_all.deb (DKMS sources, fwq-bench)"
	@echo "  make check-distro    the fwq-dkms package in a booted Debian 12 guest (6.1, then 6.12)"
	@echo "  make clean | distclean | kernel | version"
	@echo "variables: KERNEL=$(KERNEL) ($$(ls $(FWQ_TOP)/scripts/kernels | tr '\n' ' ')) KDIR=$(KDIR)"
	@echo "           KREL=$(KREL) FLAVOUR=$(FLAVOUR) FWQ_CACHE=$(FWQ_CACHE)"
	@echo "           W= C= V= FWQ_TESTS=$(FWQ_TESTS) FWQ_TRACE=n (no tracepoints)"

# The bench target lives with the bench.
-include $(FWQ_TOP)/bench/bench.mk
# Torture, race reproducers and the debug-kernel lanes.
-include $(FWQ_TOP)/scripts/torture.mk
