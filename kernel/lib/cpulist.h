/* CPU masks as Linux prints them (its %*pb and %*pbl): /proc/PID/status'
 * Cpus_allowed and Cpus_allowed_list, sysfs's cpu lists. A mask has bit n
 * for CPU n, as sched_setaffinity's. */
#pragma once
#include "../kernel.h"

/* "0", "0-3", "0,2-3": each run of CPUs as one range. Returns the length
 * (snprintf's: what it would have written). */
int cpulist_format(char *buf, size_t size, uint64_t mask);

/* Hex, as many digits as nbits CPUs need, a comma between 32-bit groups:
 * "3" for two CPUs, "01" for CPU 0 of eight. */
int cpumask_format(char *buf, size_t size, uint64_t mask, int nbits);
