/* tests/unit/sysctl.c: the perf knobs kernel/perf/attr.c reads (kernel/perf/overflow.c owns
 * them in the kernel), at Linux's defaults. */
#include "../../kernel/perf/perf.h"

struct perf_sysctl perf_sysctl = { .paranoid = 3, .mlock_kb = 516, .max_stack = 127 /* PERF_MAX_STACK_DEPTH */,
				   .max_contexts_per_stack = 8, .cpu_time_max_percent = 25 };
