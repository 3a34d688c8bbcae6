/* Segments: the GDT, the TSS and its interrupt stacks. */
#pragma once
#include <stdint.h>

/* Selectors as Linux has them, so user code and signal frames see the same
 * values (arch/x86/include/asm/segment.h): SYSCALL loads KERNEL_CS/DS from
 * STAR[47:32], SYSRET loads USER_CS = STAR[63:48] + 16, USER_DS = + 8. */
#define GDT_KERNEL_CS	0x10
#define GDT_KERNEL_DS	0x18
#define GDT_USER32_CS	0x23
#define GDT_USER_DS	0x2b
#define GDT_USER_CS	0x33
#define GDT_TSS		0x40

/* Interrupt stack table slots (1-based, as the IDT gate encodes them). */
enum { IST_NMI = 1, IST_DF = 2, IST_MC = 3, IST_COUNT = 3 };

struct cpu;

/* Load c's GDT (the same flat segments on every CPU, its own TSS), its TR,
 * and the GS base pointing at c: on each CPU, before anything reads GS. */
void gdt_init(struct cpu *c);
/* Give the boot CPU's NMI, #DF and #MC their own guarded stacks, once the
 * allocator runs, and point the IDT's gates at the IST slots. */
void gdt_init_ist(void);
/* The same stacks for another CPU, allocated before it starts. */
void gdt_alloc_ist(struct cpu *c);
/* The stack this CPU switches to on entry from user mode. */
void tss_set_rsp0(uint64_t rsp0);
/* Top of an IST stack: NMI safety tests check they run on it. */
uint64_t ist_stack_top(int ist);
