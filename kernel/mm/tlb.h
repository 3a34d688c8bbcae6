/* TLB shootdown across CPUs (tlb.c). */
#pragma once
#include "../kernel.h"
#include "frames.h"
#include "uspace.h"
#include "../percpu.h"

/* This CPU is loading us into CR3 (NULL: the kernel's tables); interrupts
 * off (uspace_activate). */
void tlb_load(struct uspace *us);
/* us's mappings shrank (a page unmapped, write-protected, moved): every other
 * CPU that has it loaded flushes its TLB before this returns. Not from NMI or
 * interrupt context; after the page tables changed, before freed frames and
 * tables can be reused. */
void tlb_shootdown(struct uspace *us);
/* The frames an unmap takes out of us (pages, page tables), freed only once
 * no other CPU's TLB or paging-structure cache can reach them: a page
 * fault without the kernel lock (anon_fault.c) may take a freed frame at
 * once, and a thread on another CPU could otherwise still write into it
 * through a stale entry (Linux's mmu_gather). While no other CPU has us
 * loaded, tlb_gather_free frees at once. */
#define TLB_GATHER_MAX	64
struct tlb_gather {
	struct uspace *us;
	unsigned n;
	uint64_t frames[TLB_GATHER_MAX];
};
/* Only us and n: an initializer would zero the 64 slots on every unmap. */
static inline void tlb_gather_init(struct tlb_gather *g, struct uspace *us)
{
	g->us = us;
	g->n = 0;
}
/* Drop a reference to frame pa (frame_free) after the next shootdown. */
void tlb_gather_defer(struct tlb_gather *g, uint64_t pa);
static inline void tlb_gather_free(struct tlb_gather *g, uint64_t pa)
{
	if (__atomic_load_n(&g->us->cpus_loaded, __ATOMIC_RELAXED) & ~BIT_ULL(smp_processor_id()))
		tlb_gather_defer(g, pa);
	else
		frame_free(pa);	/* this CPU's entries went with their invlpg */
}
/* Shoot us's translations down on the other CPUs, then free what g holds. */
void tlb_gather_finish(struct tlb_gather *g);
/* us is being freed: no CPU keeps it in CR3 (this one included). */
void tlb_forget(struct uspace *us);
/* Every CPU drops every translation it holds, the kernel's global ones too
 * (a CR3 load keeps those: CR4.PGE off and on again, SDM Vol. 3A 4.10.4.1),
 * before this returns: the vmalloc area's, before it hands out addresses
 * again. */
void tlb_flush_kernel_all(void);
