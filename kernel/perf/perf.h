/* The public face of kernel/perf/ for the rest of the kernel (Linux's
 * include/linux/perf_event.h against kernel/events/internal.h): today the
 * knobs of /proc/sys/kernel, which fs/proc_sys.c reads and writes. */
#pragma once
#include "../kernel.h"

/* Linux's sysctl_perf_* with its defaults (Debian's paranoid is 3). Every
 * caller has root's rights, so paranoid and mlock_kb, which bound the
 * unprivileged only, change nothing here; the others are obeyed. */
struct perf_sysctl {
	int paranoid;			/* perf_event_paranoid */
	int mlock_kb;			/* perf_event_mlock_kb */
	int max_stack;			/* perf_event_max_stack: sample_max_stack's default and limit */
	int max_contexts_per_stack;	/* perf_event_max_contexts_per_stack */
	int cpu_time_max_percent;	/* perf_cpu_time_max_percent: 0 or 100 turn throttling off */
};
extern struct perf_sysctl perf_sysctl;

/* kernel.perf_event_max_sample_rate: the highest sample_freq perf_event_open
 * takes and the throttling limit. */
unsigned long perf_max_sample_rate(void);
/* Linux's perf_proc_update_handler: -EINVAL while throttling is off
 * (cpu_time_max_percent 0 or 100), else the new rate (>= 1) rules. */
int perf_set_max_sample_rate(unsigned long rate);

/* The perf core: its clock, the overflow machinery (main.c, before the
 * PMU drivers register). */
void perf_init(void);
/* Persistent events (seed 001): the "persistent" PMU. */
void perf_persistent_init(void);
