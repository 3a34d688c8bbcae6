/* TLB shootdown across CPUs (tlb.c). */
#pragma once
#include "../kernel.h"

struct uspace;

/* This CPU is loading us into CR3 (NULL: the kernel's tables); interrupts
 * off (uspace_activate). */
void tlb_load(struct uspace *us);
/* us's mappings shrank (a page unmapped, write-protected, moved): every other
 * CPU that has it loaded flushes its TLB before this returns. Not from NMI or
 * interrupt context; after the page tables changed, before freed frames and
 * tables can be reused. */
void tlb_shootdown(struct uspace *us);
/* us is being freed: no CPU keeps it in CR3 (this one included). */
void tlb_forget(struct uspace *us);
/* Every CPU drops every translation it holds, the kernel's global ones too
 * (a CR3 load keeps those: CR4.PGE off and on again, SDM Vol. 3A 4.10.4.1),
 * before this returns: the vmalloc area's, before it hands out addresses
 * again. */
void tlb_flush_kernel_all(void);
