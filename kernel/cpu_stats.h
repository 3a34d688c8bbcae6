/* What each CPU has taken and spent since boot: /proc/interrupts' column per
 * CPU, /proc/stat's cpuN lines, /proc/uptime's idle time and the kernel
 * lock's use. Each CPU writes
 * only its own copy, plain stores (an NMI touches only its own fields), and
 * readers take every CPU's: no count is lost to two CPUs incrementing one
 * word. */
#pragma once
#include "kernel.h"
#include "percpu.h"

struct cpu_stats {
	unsigned long irqs[256];	/* interrupts by vector, 32-255 (traps.c) */
	unsigned long nmis;		/* NMIs taken (nmi.c) */
	unsigned long pmis;		/* PMIs that found an overflow (Linux's
					 * apic_perf_irqs; the PMU driver) */
	uint64_t idle_tsc;		/* TSC ticks halted in the idle loop (sched.c) */
	/* The kernel lock's acquisitions by this CPU, and those that found it
	 * held (kernel_lock.c; /sys/kernel/pmuos/kernel_lock) */
	unsigned long kernel_lock_taken, kernel_lock_contended;
};

DECLARE_PER_CPU(struct cpu_stats, cpu_stats);

static inline struct cpu_stats *this_cpu_stats(void)
{
	return this_cpu_ptr(&cpu_stats);
}

static inline struct cpu_stats *cpu_stats_of(int cpu)
{
	return per_cpu_ptr(&cpu_stats, cpu);
}

/* Every CPU's idle time together (/proc/uptime's second figure, /proc/stat's
 * total line). */
uint64_t cpu_stats_idle_tsc(void);
