/* The breakpoint PMU (breakpoint.c): DR0-DR3 as PERF_TYPE_BREAKPOINT. */
#pragma once
#include <stdbool.h>

struct pt_regs;

void hw_breakpoint_init(void);
/* From the #DB handler, user or kernel mode, interrupts off: count and
 * sample the breakpoints DR6 says were hit (and clear DR6). True when the
 * #DB was those hits alone; false when it was (also) a TF single step or
 * nothing of this PMU's, which its owner must still handle. */
bool hw_breakpoint_handler(struct pt_regs *regs);
/* Some breakpoint is enabled in this CPU's DR7 (itrace's #DB fast path
 * stays off there). */
bool hw_breakpoint_armed(void);
