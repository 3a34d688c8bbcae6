/* user/lib/pmuos.h: reading pmuos's own /sys files: the persistent PMU's type and events, the accounting counters and the kernel lock's. */
#ifndef USER_PMUOS_H
#define USER_PMUOS_H

#include <stdint.h>

/* /sys/bus/event_source/devices/persistent/type, or -1 if absent (Linux). */
int pmuos_persistent_type(void);
/* The id of the persistent event listed first under persistent/events/ (from its
 * "config=<id>" file), or 0 if none. */
uint64_t pmuos_persistent_first_id(void);
/* A line of /sys/kernel/pmuos/accounting ("name value"), or -1. */
long pmuos_accounting(const char *name);
/* The kernel lock's acquisitions by cpu (/sys/kernel/pmuos/kernel_lock), or -1. */
long pmuos_kernel_lock_taken(int cpu);
/* Why a test cannot count them here, or NULL: Linux has no kernel lock, and pmuos's is off
 * with one CPU. */
const char *pmuos_kernel_lock_uncounted(void);
/* A second thread that shares this one's descriptor table, asleep until stopped. */
void pmuos_sharer_start(void);
void pmuos_sharer_stop(void);

#endif
