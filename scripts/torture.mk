# SPDX-License-Identifier: GPL-2.0
# Torture, reproducer and debug-lane targets. Included from the
# top-level Makefile:  -include $(FWQ_TOP)/scripts/torture.mk
#
#   make torture [DURATION=60] [PRESET=small] [ONOFF=300]
#       fwq_torture.ko once per flush variant (each with another
#       wake/kicked_list), DURATION seconds each, with CPU hotplug churn
#   make repro [PRESET=small]   H1/H8 race reproducers
#   make badinput               bad values to every debugfs file/parameter
#   make debug-kernel LANE=lockdep|kcsan   build (once) a debug kernel
#   make check-debug [LANES=GLOB]  the lanes of scripts/check.d/debug/*.list
#       (the harness self-check; lockdep+KASAN+kmemleak, KCSAN, PREEMPT_RT
#       and their self-check), make check's format; LANES=*-harness
#       runs scripts/check.d/debug/*-harness.list only
#   make selfcheck-debug       prove the debug lanes catch deliberate bugs
#   make debug-lane LANE=lockdep|kcsan|rt [DEBUG_DURATION=30] [DEBUG_CYCLES=100]
#       selftests, torture, H8 and load/unload-in-flight on a debug kernel
#       (rt: Debian's PREEMPT_RT kernel)
# Longer runs are the same targets with a bigger DURATION, e.g.
#   make torture DURATION=600

DURATION ?= 60
ONOFF ?= 300
# the torture plan runs once per flush variant of the registry; expanded
# where it is used (the registry is read with gcc, which a fresh machine
# has only after scripts/deps.sh)
FWQ_NR_FLUSH = $(shell bash -c '. $(FWQ_TOP)/scripts/lib.sh && \
	fwq_registry flush' | wc -l)
DEBUG_DURATION ?= 30
DEBUG_CYCLES ?= 100
LANE ?= lockdep

.PHONY: torture repro badinput debug-kernel debug-lane check-debug \
	selfcheck-debug

## fwq_torture.ko per flush variant with CPU hotplug (DURATION=s ONOFF=ms)
torture: modules
	@$(FWQ_TOP)/scripts/vm-run.sh --preset $(PRESET) --plan torture \
		--timeout $$(( 2 * $(FWQ_NR_FLUSH) * ($(DURATION) + 120) + 300 )) \
		--append "fwqt.duration=$(DURATION) fwqt.onoff=$(ONOFF) $(APPEND)" \
		$(if $(FLAVOUR),--flavour $(FLAVOUR))

## the H1/H8/H17 race reproducers
repro: modules
	@$(FWQ_TOP)/scripts/vm-run.sh --preset $(PRESET) --plan repro \
		--timeout 1800 $(if $(APPEND),--append "$(APPEND)") \
		$(if $(FLAVOUR),--flavour $(FLAVOUR))

## bad values to every debugfs file and module parameter
badinput: modules
	@$(FWQ_TOP)/scripts/vm-run.sh --preset $(PRESET) \
		--plan torture-badinput --timeout 900 \
		$(if $(FLAVOUR),--flavour $(FLAVOUR))

## build (once) the LANE=lockdep|kcsan debug kernel
debug-kernel:
	@$(FWQ_TOP)/scripts/debug-kernel.sh --lane $(LANE)

## torture-debug on a debug kernel (LANE=lockdep|kcsan|rt)
debug-lane:
	@$(FWQ_TOP)/scripts/debug-kernel-run.sh --lane $(LANE) \
		--plan torture-debug --preset $(PRESET) --timeout 3600 \
		--append "fwqt.duration=$(DEBUG_DURATION) fwqt.cycles=$(DEBUG_CYCLES) $(APPEND)"

## prove that the debug lanes catch deliberate bugs
selfcheck-debug:
	@$(FWQ_TOP)/scripts/debug-kernel.sh --lane lockdep >/dev/null
	@$(FWQ_TOP)/scripts/debug-kernel.sh --lane kcsan >/dev/null
	@$(FWQ_TOP)/scripts/selfcheck-debug.sh

## the lanes of scripts/check.d/debug/ (LANES: a glob of list names; DRYRUN=1: list them)
check-debug:
	@FWQ_CHECK_LANES='debug/$(or $(LANES),*)' FWQ_CHECK_SKIP_LINT=1 \
		FWQ_CHECK_SKIP_BUILD=1 $(FWQ_TOP)/scripts/$(if $(DRYRUN),lanes,check).sh
