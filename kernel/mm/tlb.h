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
/* Kernel mappings of [start, end) went away (vfree): every other CPU drops
 * them before this returns, and only then may their frames be reused. They
 * are global pages, which a CR3 load keeps: INVLPG each page there (Linux's
 * flush_tlb_kernel_range). This CPU's own are the caller's (unmap_page). */
void tlb_flush_kernel_range(uint64_t start, uint64_t end);
