// SPDX-License-Identifier: GPL-2.0
/* The one place sroce's tracepoints (trace.h) are defined. */
#define CREATE_TRACE_POINTS
#include "trace.h"
