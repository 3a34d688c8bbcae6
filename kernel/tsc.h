/* Time: the TSC's and the LAPIC timer's frequencies, and conversions. */
#pragma once
#include <stdint.h>

extern uint64_t tsc_hz;
extern uint64_t apic_timer_hz;	/* with divide-by-1 */
extern const char *tsc_source;

/* CPUID leaf 0x15 when it gives a crystal, else a PIT calibration. */
void tsc_init(void);
uint64_t tsc_to_ns(uint64_t cycles);
uint64_t ns_to_tsc(uint64_t ns);
