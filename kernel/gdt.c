/* Segments: the GDT (flat 64-bit, Linux's selectors), the TSS and the IST stacks. */
#include "gdt.h"
#include "idt.h"
#include "kernel.h"
#include "traps.h"
#include "x86.h"
#include "mm/vmalloc.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iopb;
} __packed;
static_assert(sizeof(struct tss) == 104, "SDM Vol. 3A 8.7, Figure 8-11");

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

static struct tss tss;
static uint64_t gdt[10] __aligned(16) = {
	[GDT_KERNEL_CS >> 3] = SEG_P | SEG_S | SEG_CODE | SEG_RW | SEG_L | SEG_G | SEG_LIMIT,
	[GDT_KERNEL_DS >> 3] = SEG_P | SEG_S | SEG_RW | SEG_DB | SEG_G | SEG_LIMIT,
	[GDT_USER32_CS >> 3] = SEG_P | SEG_DPL3 | SEG_S | SEG_CODE | SEG_RW | SEG_DB | SEG_G | SEG_LIMIT,
	[GDT_USER_DS >> 3] = SEG_P | SEG_DPL3 | SEG_S | SEG_RW | SEG_DB | SEG_G | SEG_LIMIT,
	[GDT_USER_CS >> 3] = SEG_P | SEG_DPL3 | SEG_S | SEG_CODE | SEG_RW | SEG_L | SEG_G | SEG_LIMIT,
	/* GDT_TSS and the next slot: a 16-byte system descriptor, filled at init */
};

#define IST_STACK_SIZE (16 * KiB)
static uint64_t ist_tops[IST_COUNT + 1];

static void load_segments(void)
{
	struct __packed { uint16_t limit; uint64_t base; } ptr = {
		sizeof(gdt) - 1, (uint64_t)gdt
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
}

void gdt_init(void)
{
	uint64_t base = (uint64_t)&tss;

	gdt[GDT_TSS >> 3] = SEG_P | SEG_TSS_AVAIL | (sizeof(tss) - 1) |
			    (base & 0xffffff) << 16 | (base >> 24 & 0xff) << 56;
	gdt[(GDT_TSS >> 3) + 1] = base >> 32;
	tss.iopb = sizeof(tss);	/* no I/O permission bitmap */
	load_segments();
	ltr(GDT_TSS);
}

void gdt_init_ist(void)
{
	static const uint8_t vectors[IST_COUNT + 1] = {
		[IST_NMI] = X86_TRAP_NMI, [IST_DF] = X86_TRAP_DF, [IST_MC] = X86_TRAP_MC,
	};

	for (int i = 1; i <= IST_COUNT; i++) {
		ist_tops[i] = (uint64_t)vmalloc_stack(IST_STACK_SIZE);
		tss.ist[i - 1] = ist_tops[i];
		idt_set_ist(vectors[i], i);
	}
}

void tss_set_rsp0(uint64_t rsp0)
{
	tss.rsp[0] = rsp0;
}

uint64_t ist_stack_top(int ist)
{
	return ist_tops[ist];
}
