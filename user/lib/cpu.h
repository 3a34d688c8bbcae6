/* user/lib/cpu.h: the CPUs a test runs on. Tests that watch themselves through an event bound
 * to one CPU pin themselves there first: with several CPUs, Linux may place a task (and its
 * children, which inherit the mask) on any of them. */
#ifndef USER_CPU_H
#define USER_CPU_H

#include <stdbool.h>
#include <stdint.h>

/* The CPUs of a cpulist file ("0", "0-3"), as a mask; 0 when it is no such list. */
uint64_t cpulist(const char *path);

/* The CPUs online (/sys/devices/system/cpu/online), whatever this thread's mask. */
int online_cpus(void);

/* This thread on cpu alone (cpu < 0: on every CPU); false if sched_setaffinity refuses. */
bool pin_cpu(int cpu);
/* The same in a test: the test fails if refused. */
void pin(int cpu);

#endif
