/* The application processors: found in the MADT, started with
 * INIT-SIPI-SIPI, parked idle. */
#pragma once
#include "kernel.h"

/* Start every enabled processor the MADT lists (the kernel command line's
 * maxcpus=N caps the count) and wait until each is parked in its idle loop;
 * nr_cpus counts those up. After sti: the waits halt on the timer. */
void smp_boot_aps(void);
