/* The CMOS real-time clock, read once at boot for CLOCK_REALTIME. */
#pragma once
#include <stdint.h>

/* Seconds since 1970-01-01 00:00:00 UTC. */
uint64_t rtc_read_epoch(void);
