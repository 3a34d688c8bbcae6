/* user/lib/cpu.h: the CPUs a test runs on: the online ones (sysfs's cpulist) and pinning this thread. */
#ifndef USER_CPU_H
#define USER_CPU_H

#include <stdint.h>

/* The CPUs of a cpulist file ("0", "0-3"), as a mask; 0 when it is no such list. */
uint64_t cpulist(const char *path);
/* The CPUs in /sys/devices/system/cpu/online. */
int online_cpus(void);
/* This thread on cpu alone (cpu < 0: on every CPU); the test fails if refused. */
void pin(int cpu);

#endif
