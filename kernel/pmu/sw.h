/* The software PMU: clocks and the events the kernel counts where they occur. */
#pragma once
#include <stdint.h>

struct pt_regs;

void sw_pmu_init(void);
/* n occurrences of software event id (PERF_COUNT_SW_*); regs tell the
 * privilege level for exclude_user/exclude_kernel (NULL: kernel). */
void perf_sw_event(unsigned id, uint64_t n, const struct pt_regs *regs);
