# SPDX-License-Identifier: GPL-2.0
#
# "make bench": the main job. Included by the top-level Makefile.
# PLACEHOLDER owned by the bench engineer from here on: until the bench
# exists it boots the VM, loads fwq and prints fwq's debugfs state.

BENCH_PRESET ?= wide
BENCH_TIMEOUT ?= 300

.PHONY: bench
bench: modules
	@out=$(FWQ_TOP)/results/$$(date +%Y%m%d-%H%M%S)-bench; \
	$(FWQ_TOP)/scripts/vm-run.sh --preset $(BENCH_PRESET) --plan debugfs-state \
		--timeout $(BENCH_TIMEOUT) --out $$out \
		$(if $(FLAVOUR),--flavour $(FLAVOUR)); rc=$$?; \
	echo "--- fwq debugfs state ($$out/results.txt)"; \
	grep -v '^fwq-verdict:' $$out/results.txt; \
	exit $$rc
