/* Which CPUs have an address space loaded, and flushing their TLBs when its
 * mappings shrink (TLB shootdown by IPI, SDM Vol. 3A 4.10.5): a thread on
 * another CPU must not go on using a page that munmap, mprotect, a
 * copy-on-write break or a fork's write protection took away, and no CPU may
 * keep a freed address space's tables in CR3. Each CPU keeps the TLB of the
 * last address space it loaded until it loads another (an idle CPU too), so
 * the mask is of CPUs that have it in CR3, as Linux's mm_cpumask. The
 * kernel's own mappings that go away (the vmalloc area's) are flushed on
 * every CPU once per pass over that area (vmalloc.c). */
#include "tlb.h"
#include "frames.h"
#include "uspace.h"
#include "../percpu.h"
#include "../smp.h"
#include "../x86.h"

static DEFINE_PER_CPU(struct uspace *, loaded);	/* in CR3; NULL: the kernel's tables */

void tlb_load(struct uspace *us)
{
	struct uspace **l = this_cpu_ptr(&loaded);
	uint64_t me = BIT_ULL(smp_processor_id());

	if (*l && *l != us)
		__atomic_fetch_and(&(*l)->cpus_loaded, ~me, __ATOMIC_RELAXED);
	if (us)
		__atomic_fetch_or(&us->cpus_loaded, me, __ATOMIC_RELAXED);
	*l = us;
}

/* Reloading CR3 drops every non-global entry (SDM Vol. 3A 4.10.4.1). */
static void flush_here(void *arg)
{
	struct uspace *us = arg;

	if (*this_cpu_ptr(&loaded) == us)
		write_cr3(us->pml4);
}

void tlb_shootdown(struct uspace *us)
{
	uint64_t others = __atomic_load_n(&us->cpus_loaded, __ATOMIC_RELAXED) &
			  ~BIT_ULL(smp_processor_id());

	for (; others; others &= others - 1)
		smp_call_function_single(__builtin_ctzll(others), flush_here, us);
}

void tlb_gather_finish(struct tlb_gather *g)
{
	tlb_shootdown(g->us);
	for (unsigned i = 0; i < g->n; i++)
		frame_free(g->frames[i]);
	g->n = 0;
}

void tlb_gather_defer(struct tlb_gather *g, uint64_t pa)
{
	if (g->n == TLB_GATHER_MAX)
		tlb_gather_finish(g);
	g->frames[g->n++] = pa;
}

static void unload_here(void *arg)
{
	if (*this_cpu_ptr(&loaded) == arg)
		uspace_activate(NULL);
}

void tlb_forget(struct uspace *us)
{
	for (uint64_t cpus = __atomic_load_n(&us->cpus_loaded, __ATOMIC_RELAXED); cpus;
	     cpus &= cpus - 1)
		smp_call_function_single(__builtin_ctzll(cpus), unload_here, us);
}

static void flush_all_here(void *arg)
{
	uint64_t cr4 = read_cr4();

	if (cr4 & CR4_PGE) {
		write_cr4(cr4 & ~CR4_PGE);
		write_cr4(cr4);
	} else {
		write_cr3(read_cr3());
	}
}

void tlb_flush_kernel_all(void)
{
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		smp_call_function_single(cpu, flush_all_here, NULL);
}
