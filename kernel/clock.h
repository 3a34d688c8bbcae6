/* Time's one home: the clocks clock_gettime reads and perf's use_clockid
 * reads, the perf clock (the TSC through the mmap page's mult/shift), the
 * units and the scheduling tick. */
#pragma once
#include "kernel.h"
#include "x86.h"

#define NSEC_PER_SEC	1000000000ul
#define NSEC_PER_USEC	1000ul
/* Linux's HZ=250 (Debian's): the tick perf's multiplexing rotates on. */
#define TICK_NS		(NSEC_PER_SEC / 250)

/* The time of a POSIX clock (CLOCK_REALTIME ... CLOCK_THREAD_CPUTIME_ID)
 * in ns: 0, or -EINVAL for a clock that does not exist. */
int clock_read_ns(long clockid, uint64_t *ns);
/* CLOCK_MONOTONIC and CLOCK_REALTIME themselves. */
uint64_t clock_monotonic_ns(void);
uint64_t clock_realtime_ns(void);

/* The perf clock: ns = (tsc * mult) >> shift, split so that it never
 * overflows, exactly what the mmap page's time_mult/time_shift give user
 * space (Linux's sched_clock on x86). */
extern uint32_t clock_tsc_mult, clock_tsc_shift;
void clock_init(void);
static inline uint64_t clock_cycles_to_ns(uint64_t cyc)
{
	/* = (cyc >> shift) * mult + (((cyc & mask) * mult) >> shift), mod 2^64:
	 * the 128-bit product shifted (shift < 32, so one SHRD). */
	uint64_t lo = cyc, hi;

	__asm__("mulq %[m]\n\t"
		"shrdq %%cl, %%rdx, %%rax"
		: "+a"(lo), "=&d"(hi)
		: [m] "rm"((uint64_t)clock_tsc_mult), "c"(clock_tsc_shift)
		: "cc");
	return lo;
}
static inline uint64_t clock_perf_ns(void)
{
	return clock_cycles_to_ns(rdtsc());
}
