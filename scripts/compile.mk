# SPDX-License-Identifier: GPL-2.0
#
# The compile-only lane: fwq built W=1 + sparse against every amd64
# headers series of scripts/compile-series (scripts/check-compile.sh).
# Not part of make check. COMPILE_OUT=DIR keeps the build logs there;
# COMPILE_SERIES=GLOB builds only the series whose SUITE.SERIES matches.
.PHONY: check-compile
## W=1 + sparse builds against every amd64 headers series Debian serves
## (scripts/compile-series); COMPILE_OUT=DIR, COMPILE_SERIES=GLOB
check-compile:
	@$(FWQ_TOP)/scripts/check-compile.sh $(if $(COMPILE_OUT),--out "$(COMPILE_OUT)") \
		$(if $(COMPILE_SERIES),--series '$(COMPILE_SERIES)')
