/* The local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode. */
#pragma once
#include <stdint.h>
#include <stdbool.h>

/* Register offsets, xAPIC MMIO layout (SDM Vol. 3A 11.4.1, Table 11-1);
 * the x2APIC MSR is 0x800 + offset / 16. */
#define APIC_ID		0x020
#define APIC_VERSION	0x030
#define APIC_TPR	0x080
#define APIC_EOI	0x0b0
#define APIC_SVR	0x0f0
#define APIC_ESR	0x280
#define APIC_ICR	0x300
#define APIC_ICR_HIGH	0x310
#define APIC_LVT_TIMER	0x320
#define APIC_LVT_THERMAL 0x330
#define APIC_LVT_PERF	0x340
#define APIC_LVT_LINT0	0x350
#define APIC_LVT_LINT1	0x360
#define APIC_LVT_ERROR	0x370
#define APIC_TIMER_INIT	0x380
#define APIC_TIMER_CUR	0x390
#define APIC_TIMER_DIV	0x3e0

#define APIC_SVR_ENABLE		(1u << 8)
#define APIC_LVT_MASKED		(1u << 16)
#define APIC_DM_FIXED		(0u << 8)
#define APIC_DM_NMI		(4u << 8)
#define APIC_DM_INIT		(5u << 8)
#define APIC_DM_STARTUP		(6u << 8)
#define APIC_ICR_LEVEL_ASSERT	(1u << 14)
#define APIC_ICR_BUSY		(1u << 12)
#define APIC_TIMER_ONESHOT	(0u << 17)
#define APIC_TIMER_TSC_DEADLINE	(2u << 17)
#define APIC_TIMER_DIV_1	0xb

void pic_disable(void);
void apic_init(void);
/* This CPU's LAPIC on, its LVTs masked: apic_init's second half, which each
 * application processor runs for itself. */
void apic_init_cpu(void);
uint32_t apic_read(uint32_t reg);
void apic_write(uint32_t reg, uint32_t v);
void apic_eoi(void);
uint32_t apic_id(void);
bool apic_is_x2apic(void);
/* An IPI to this CPU by its own APIC ID (the Self shorthand is not valid for
 * NMI delivery, SDM Vol. 3A 11.6.1). */
void apic_send_self(uint32_t delivery_mode, uint8_t vector);
/* An IPI to the LAPIC dest (xAPIC: 8 bits, x2APIC: 32), icr the low ICR
 * word (delivery mode, level, vector; SDM Vol. 3A 11.6.1). */
void apic_send_ipi(uint32_t dest, uint32_t icr);
