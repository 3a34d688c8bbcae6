/* The vmalloc area: a first-fit list of areas in one PML4 slot, each with a
 * guard page below it. */
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

bool is_vmalloc_addr(const void *addr)
{
	uint64_t a = (uint64_t)addr;

	return a >= VMALLOC_BASE && a < VMALLOC_BASE + VMALLOC_SIZE;
}

/* Reserve address space for pages plus the guard page. */
static struct vm_area *area_alloc(size_t pages, bool borrowed)
{
	struct vm_area *a = kmalloc(sizeof(*a));
	struct vm_area **link = &areas;
	uint64_t want = (pages + 1) * PAGE_SIZE;
	uint64_t gap = VMALLOC_BASE;

	if (!a)
		return NULL;
	for (; *link; link = &(*link)->next) {
		if ((*link)->start - PAGE_SIZE - gap >= want)
			break;
		gap = (*link)->start + (*link)->pages * PAGE_SIZE;
	}
	if (gap + want > VMALLOC_BASE + VMALLOC_SIZE) {
		kfree(a);
		return NULL;
	}
	*a = (struct vm_area){ gap + PAGE_SIZE, pages, borrowed, *link };
	*link = a;
	return a;
}

/* Unmaps a batch at a time: its frames are freed only once no CPU's TLB
 * holds them (tlb_flush_kernel_range), one round of IPIs per batch. */
#define RELEASE_BATCH	64

static void area_release(struct vm_area *a)
{
	for (size_t first = 0; first < a->pages; first += RELEASE_BATCH) {
		size_t n = MIN(a->pages - first, (size_t)RELEASE_BATCH);
		uint64_t start = a->start + first * PAGE_SIZE;
		pte_t old[RELEASE_BATCH];

		for (size_t i = 0; i < n; i++)
			old[i] = unmap_page(kernel_pml4_phys, start + i * PAGE_SIZE);
		tlb_flush_kernel_range(start, start + n * PAGE_SIZE);
		for (size_t i = 0; i < n && !a->borrowed; i++)
			if (old[i] & PTE_P)
				frame_free(old[i] & PTE_ADDR);
	}
	/* Its page tables too, once nothing else there needs them; the PDPT of the
	 * vmalloc slot stays, every address space's PML4 points at it. */
	if (a->pages)
		prune_tables(kernel_pml4_phys, a->start - PAGE_SIZE, a->start + a->pages * PAGE_SIZE, 2);
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
