/* The vmalloc area: a list of areas in 1 GiB of one PML4 slot, each with a
 * guard page below it, handed out in increasing order of address.
 *
 * Its pages are global (PTE_G), which a CR3 load keeps in the TLB, so
 * another CPU may hold the translation of an address vfree gave back. That
 * address is not handed out again before the search has gone round the
 * whole area, and at that wrap every CPU flushes its TLB (one round of IPIs
 * per GiB handed out): a vfree interrupts no other CPU, so a measured task
 * alone on its CPU sees nothing when other CPUs' tasks exit. The frames go
 * back at once: a stale translation is harmless while nothing uses its
 * address. The page tables stay (vmalloc_init makes them all), so no CPU
 * caches an entry that leads to a freed one. */
#include "vmalloc.h"
#include "frames.h"
#include "kmalloc.h"
#include "paging.h"
#include "tlb.h"
#include "../kernel.h"
#include "../panic.h"
#include "../x86.h"

struct vm_area {
	uint64_t start;		/* first mapped byte; the guard page is below */
	size_t pages;
	bool borrowed;		/* frames not ours to free (vmap, ioremap) */
	struct vm_area *next;	/* sorted by start */
};

static struct vm_area *areas;
static uint64_t next_start = VMALLOC_BASE;	/* where the next search starts */

bool is_vmalloc_addr(const void *addr)
{
	uint64_t a = (uint64_t)addr;

	return a >= VMALLOC_BASE && a < VMALLOC_BASE + VMALLOC_SIZE;
}

/* Every page table of the area: none is ever freed, so no CPU can cache an
 * entry that leads to a freed table. */
void vmalloc_init(void)
{
	for (uint64_t va = VMALLOC_BASE; va < VMALLOC_BASE + VMALLOC_SIZE; va += LARGE_PAGE)
		assert(pte_walk(kernel_pml4_phys, va, true));
}

/* The first gap of want bytes at or above from: its start in *gap, and the
 * link to insert its area at; NULL past the area's end. */
static struct vm_area **gap_from(uint64_t from, uint64_t want, uint64_t *gap)
{
	struct vm_area **link = &areas;

	*gap = from;
	for (; *link; link = &(*link)->next) {
		uint64_t guard = (*link)->start - PAGE_SIZE;
		uint64_t end = (*link)->start + (*link)->pages * PAGE_SIZE;

		if (end <= *gap)
			continue;		/* below the search */
		if (guard >= *gap && guard - *gap >= want)
			break;
		*gap = MAX(*gap, end);
	}
	return *gap + want <= VMALLOC_BASE + VMALLOC_SIZE ? link : NULL;
}

/* Reserve address space for pages plus the guard page. */
static struct vm_area *area_alloc(size_t pages, bool borrowed)
{
	struct vm_area *a = kmalloc(sizeof(*a));
	uint64_t want = (pages + 1) * PAGE_SIZE, gap;

	if (!a)
		return NULL;
	struct vm_area **link = gap_from(next_start, want, &gap);
	if (!link) {		/* round again, with no stale translation left */
		tlb_flush_kernel_all();
		link = gap_from(VMALLOC_BASE, want, &gap);
	}
	if (!link) {
		kfree(a);
		return NULL;
	}
	next_start = gap + want;
	*a = (struct vm_area){ gap + PAGE_SIZE, pages, borrowed, *link };
	*link = a;
	return a;
}

static void area_release(struct vm_area *a)
{
	for (size_t i = 0; i < a->pages; i++) {
		pte_t old = unmap_page(kernel_pml4_phys, a->start + i * PAGE_SIZE);
		if (!a->borrowed && (old & PTE_P))
			frame_free(old & PTE_ADDR);
	}
	for (struct vm_area **link = &areas; *link; link = &(*link)->next) {
		if (*link == a) {
			*link = a->next;
			break;
		}
	}
	kfree(a);
}

static void *area_map(size_t pages, bool borrowed, const uint64_t *frames,
		      uint64_t flags)
{
	struct vm_area *a = area_alloc(pages, borrowed);

	if (!a)
		return NULL;
	for (size_t i = 0; i < pages; i++) {
		uint64_t pa = frames ? frames[i] : frame_alloc_zeroed();
		if (!pa || map_page(kernel_pml4_phys, a->start + i * PAGE_SIZE, pa,
				    flags | PTE_W | PTE_NX | PTE_G)) {
			if (pa && !borrowed)
				frame_free(pa);
			area_release(a);
			return NULL;
		}
	}
	return (void *)a->start;
}

void *vmalloc(size_t size)
{
	/* A size no allocation could meet fails at once: past the area, (pages + 1) *
	 * PAGE_SIZE wraps and the walks over the area take for ever; past the free frames,
	 * it would take them all before failing. */
	if (size > VMALLOC_SIZE || size / PAGE_SIZE > frame_stats.free)
		return NULL;
	return area_map(ALIGN_UP(size, PAGE_SIZE) / PAGE_SIZE, false, NULL, 0);
}

void vfree(void *addr)
{
	if (!addr)
		return;
	for (struct vm_area *a = areas; a; a = a->next) {
		if (a->start == (uint64_t)addr) {
			area_release(a);
			return;
		}
	}
	panic("vfree of %p, which vmalloc never returned", addr);
}

void *vmalloc_stack(size_t size)
{
	char *base = vmalloc(size);

	return base ? base + size : NULL;
}

void vfree_stack(void *top, size_t size)
{
	vfree((char *)top - size);
}

void *vmap(const uint64_t *frames, size_t n)
{
	return area_map(n, true, frames, 0);
}

void *ioremap(uint64_t phys, size_t size)
{
	uint64_t base = ALIGN_DOWN(phys, PAGE_SIZE);
	size_t pages = ALIGN_UP(phys + size, PAGE_SIZE) / PAGE_SIZE - base / PAGE_SIZE;
	uint64_t frames[16];

	assert(pages <= ARRAY_SIZE(frames));
	for (size_t i = 0; i < pages; i++)
		frames[i] = base + i * PAGE_SIZE;
	char *v = area_map(pages, true, frames, PTE_PCD | PTE_PWT);
	return v ? v + (phys - base) : NULL;
}
