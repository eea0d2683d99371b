// SPDX-License-Identifier: GPL-2.0
/*
 * fwq: the tracepoints of fwq_trace.h are created here, and only here.
 * Left out of an FWQ_TRACE=n build (src/Kbuild).
 */
#include "internal.h"

#define CREATE_TRACE_POINTS
#include "fwq_trace.h"
