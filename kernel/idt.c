/* The interrupt descriptor table: 256 interrupt gates onto entry.asm's stubs. */
#include "idt.h"
#include "gdt.h"
#include "kernel.h"
#include "traps.h"
#include "x86.h"

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
} __packed;
static_assert(sizeof(struct idt_gate) == 16, "SDM Vol. 3A 6.14.1");

#define GATE_INTERRUPT	0x8e	/* present, DPL 0, 64-bit interrupt gate: IF cleared */
#define GATE_DPL3	0x60

extern const uint64_t isr_stubs[256];
static struct idt_gate idt[256] __aligned(16);

void idt_init(void)
{
	for (int v = 0; v < 256; v++) {
		uint64_t addr = isr_stubs[v];
		idt[v] = (struct idt_gate){
			.offset_lo = addr & 0xffff,
			.selector = GDT_KERNEL_CS,
			.type_attr = GATE_INTERRUPT,
			.offset_mid = addr >> 16 & 0xffff,
			.offset_hi = addr >> 32,
		};
	}
	/* int3 and into from ring 3 raise #BP/#OF (SIGTRAP/SIGSEGV), as on Linux. */
	idt[X86_TRAP_BP].type_attr |= GATE_DPL3;
	idt[X86_TRAP_OF].type_attr |= GATE_DPL3;
	idt_load();
}

/* One IDT for every CPU; the application processors load it too (smp.c). */
void idt_load(void)
{
	struct __packed { uint16_t limit; uint64_t base; } ptr = {
		sizeof(idt) - 1, (uint64_t)idt
	};
	lidt(&ptr);
}

void idt_set_handler(unsigned vector, void (*entry)(void))
{
	uint64_t addr = (uint64_t)entry;

	idt[vector].offset_lo = addr & 0xffff;
	idt[vector].offset_mid = addr >> 16 & 0xffff;
	idt[vector].offset_hi = addr >> 32;
}

void idt_set_ist(unsigned vector, int ist)
{
	idt[vector].ist = ist;
}
