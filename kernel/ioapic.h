/* The I/O APIC: routes the legacy ISA interrupts (the serial port's) to the local APIC. */
#pragma once
#include <stdint.h>

/* Map the I/O APIC and mask every input. */
void ioapic_init(void);
/* Deliver ISA IRQ irq (edge, active high) to this CPU as vector. */
void ioapic_route_isa(unsigned irq, uint8_t vector);
