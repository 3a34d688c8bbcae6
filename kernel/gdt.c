/* Segments: the GDT (flat 64-bit, Linux's selectors), the TSS and the IST stacks. */
#include "gdt.h"
#include "idt.h"
#include "kernel.h"
#include "percpu.h"
#include "traps.h"
#include "x86.h"
#include "panic.h"
#include "lib/string.h"
#include "mm/vmalloc.h"

/* Descriptor access bytes and flags (SDM Vol. 3A 3.4.5) */
#define SEG_P		(1ul << 47)
#define SEG_DPL3	(3ul << 45)
#define SEG_S		(1ul << 44)
#define SEG_CODE	(1ul << 43)
#define SEG_RW		(1ul << 41)
#define SEG_L		(1ul << 53)
#define SEG_DB		(1ul << 54)
#define SEG_G		(1ul << 55)
#define SEG_LIMIT	0x000f00000000fffful
#define SEG_TSS_AVAIL	(9ul << 40)

static const uint64_t gdt_template[10] = {
	[GDT_KERNEL_CS >> 3] = SEG_P | SEG_S | SEG_CODE | SEG_RW | SEG_L | SEG_G | SEG_LIMIT,
	[GDT_KERNEL_DS >> 3] = SEG_P | SEG_S | SEG_RW | SEG_DB | SEG_G | SEG_LIMIT,
	[GDT_USER32_CS >> 3] = SEG_P | SEG_DPL3 | SEG_S | SEG_CODE | SEG_RW | SEG_DB | SEG_G | SEG_LIMIT,
	[GDT_USER_DS >> 3] = SEG_P | SEG_DPL3 | SEG_S | SEG_RW | SEG_DB | SEG_G | SEG_LIMIT,
	[GDT_USER_CS >> 3] = SEG_P | SEG_DPL3 | SEG_S | SEG_CODE | SEG_RW | SEG_L | SEG_G | SEG_LIMIT,
	/* GDT_TSS and the next slot: a 16-byte system descriptor, per CPU */
};
static_assert(sizeof(gdt_template) == sizeof(((struct cpu *)0)->gdt), "struct cpu's gdt");

#define IST_STACK_SIZE (16 * KiB)

static void load_segments(struct cpu *c)
{
	struct __packed { uint16_t limit; uint64_t base; } ptr = {
		sizeof(c->gdt) - 1, (uint64_t)c->gdt
	};

	lgdt(&ptr);
	/* Reload CS with a far return, then the data segments. */
	__asm__ volatile("pushq %0\n"
			 "leaq 1f(%%rip), %%rax\n"
			 "pushq %%rax\n"
			 "lretq\n"
			 "1:\n"
			 "movl %1, %%eax\n"
			 "movl %%eax, %%ds\n"
			 "movl %%eax, %%es\n"
			 "movl %%eax, %%ss\n"
			 "xorl %%eax, %%eax\n"
			 "movl %%eax, %%fs\n"
			 "movl %%eax, %%gs\n"
			 : : "i"(GDT_KERNEL_CS), "i"(GDT_KERNEL_DS) : "rax", "memory");
	/* A null selector may have cleared the GS base: point it at c again. */
	percpu_load(c);
}

void gdt_init(struct cpu *c)
{
	uint64_t base = (uint64_t)&c->tss;

	memcpy(c->gdt, gdt_template, sizeof(c->gdt));
	c->gdt[GDT_TSS >> 3] = SEG_P | SEG_TSS_AVAIL | (sizeof(c->tss) - 1) |
			       (base & 0xffffff) << 16 | (base >> 24 & 0xff) << 56;
	c->gdt[(GDT_TSS >> 3) + 1] = base >> 32;
	c->tss.iopb = sizeof(c->tss);	/* no I/O permission bitmap */
	load_segments(c);
	ltr(GDT_TSS);
}

void gdt_alloc_ist(struct cpu *c)
{
	for (int i = 1; i <= IST_COUNT; i++) {
		c->ist_tops[i] = (uint64_t)vmalloc_stack(IST_STACK_SIZE);
		assert(c->ist_tops[i]);
		c->tss.ist[i - 1] = c->ist_tops[i];
	}
}

void gdt_init_ist(void)
{
	static const uint8_t vectors[IST_COUNT + 1] = {
		[IST_NMI] = X86_TRAP_NMI, [IST_DF] = X86_TRAP_DF, [IST_MC] = X86_TRAP_MC,
	};

	gdt_alloc_ist(this_cpu());
	for (int i = 1; i <= IST_COUNT; i++)
		idt_set_ist(vectors[i], i);	/* one IDT: the same slot on every CPU */
}

void tss_set_rsp0(uint64_t rsp0)
{
	this_cpu()->tss.rsp[0] = rsp0;
}

uint64_t ist_stack_top(int ist)
{
	return this_cpu()->ist_tops[ist];
}
