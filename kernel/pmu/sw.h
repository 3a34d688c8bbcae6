/* The software PMU: clocks and the events the kernel counts where they occur. */
#pragma once
#include <stdint.h>

struct pt_regs;

void sw_pmu_init(void);
/* n occurrences of software event id (PERF_COUNT_SW_*); regs tell the
 * privilege level for exclude_user/exclude_kernel and are what a sample
 * records (NULL: kernel, no sample); addr is PERF_SAMPLE_ADDR's value. */
void perf_sw_event(unsigned id, uint64_t n, struct pt_regs *regs, uint64_t addr);

struct perf_event;
/* n occurrences of a counting-by-occurrence event e (software events,
 * breakpoints) ran its sampling period down: sample every sample_period
 * of them; a throttled event counts but does not sample. */
void perf_swevent_overflow(struct perf_event *e, uint64_t n, struct pt_regs *regs, uint64_t addr);
