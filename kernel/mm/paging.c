/* 4-level page tables: the kernel's own tables, walking, mapping, unmapping. */
#include "paging.h"
#include "frames.h"
#include "tlb.h"
#include "../multiboot.h"
#include "../panic.h"
#include "../printk.h"
#include "../x86.h"
#include "../lib/string.h"
#include <asm-generic/errno-base.h>

#define PT_ENTRIES	512

/* Page-table pages for the direct map and the kernel image, needed before the
 * frame allocator exists: one PD per GiB of the direct map plus a few. */
#define BOOT_PT_PAGES	(DIRECT_MAP_MAX / GiB + 16)
static uint8_t boot_pt_pool[BOOT_PT_PAGES][PAGE_SIZE] __aligned(PAGE_SIZE);
static unsigned boot_pt_used;
/* Until paging_init switches CR3 the tables are reached through the boot
 * mapping of the first GiB; from then on through the direct map. */
static bool direct_map_live;

uint64_t kernel_pml4_phys;
uint64_t direct_map_end;

static inline unsigned pt_index(uint64_t va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * level)) & (PT_ENTRIES - 1);
}

static uint64_t alloc_table(void)
{
	if (direct_map_live)
		return frame_alloc_zeroed();
	assert(boot_pt_used < BOOT_PT_PAGES);
	return virt_to_phys(boot_pt_pool[boot_pt_used++]);
}

static inline pte_t *table(uint64_t phys)
{
	return direct_map_live ? phys_to_virt(phys) : early_phys_to_virt(phys);
}

pte_t *pte_walk(uint64_t pml4_phys, uint64_t va, bool create)
{
	uint64_t tbl = pml4_phys;

	for (int level = 3; level > 0; level--) {
		pte_t *e = &table(tbl)[pt_index(va, level)];
		if (!(*e & PTE_P)) {
			if (!create)
				return NULL;
			uint64_t t = alloc_table();
			if (!t)
				return NULL;
			*e = t | PTE_P | PTE_W | (va < USER_END ? PTE_U : 0);
		}
		if (*e & PTE_PS)
			return e;
		tbl = *e & PTE_ADDR;
	}
	return &table(tbl)[pt_index(va, 0)];
}

uint64_t pte_next_table(uint64_t pml4_phys, uint64_t va)
{
	uint64_t tbl = pml4_phys;

	for (int level = 3; level > 0; level--) {
		pte_t e = table(tbl)[pt_index(va, level)];
		if (!(e & PTE_P)) {
			/* nothing under this entry: the next one's first address */
			uint64_t span = PAGE_SIZE << (9 * level);
			return (va & ~(span - 1)) + span;
		}
		if (e & PTE_PS)
			return va;
		tbl = e & PTE_ADDR;
	}
	return va;
}

pte_t *pte_next_run(uint64_t pml4_phys, uint64_t *va, uint64_t end, size_t *n)
{
	const uint64_t span = PAGE_SIZE << 9;	/* what one page table maps */

	for (uint64_t a = *va; a && a < end;) {
		uint64_t next = pte_next_table(pml4_phys, a);
		if (next != a) {
			a = next;	/* 0 past the top */
			continue;
		}
		pte_t *e = pte_walk(pml4_phys, a, false);
		assert(e && !(*e & PTE_PS));
		*n = (MIN(end, ALIGN_DOWN(a, span) + span) - a) / PAGE_SIZE;
		*va = a;
		return e;
	}
	return NULL;
}

int map_page(uint64_t pml4_phys, uint64_t va, uint64_t phys, uint64_t flags)
{
	pte_t *e = pte_walk(pml4_phys, va, true);

	if (!e)
		return -ENOMEM;
	assert(!(*e & PTE_PS));
	/* A PROT_NONE page keeps its frame but is not present: every access faults. */
	*e = phys | flags | (flags & PTE_PROTNONE ? 0 : PTE_P);
	invlpg(va);
	return 0;
}

pte_t unmap_page(uint64_t pml4_phys, uint64_t va)
{
	pte_t *e = pte_walk(pml4_phys, va, false);
	pte_t old;

	if (!e || !(*e & PTE_P))
		return 0;
	assert(!(*e & PTE_PS));
	old = *e;
	*e = 0;
	invlpg(va);
	return old;
}

uint64_t translate(uint64_t pml4_phys, uint64_t va, bool write, bool user)
{
	uint64_t tbl = pml4_phys;
	uint64_t need = PTE_P | (write ? PTE_W : 0) | (user ? PTE_U : 0);

	for (int level = 3; level >= 0; level--) {
		pte_t e = table(tbl)[pt_index(va, level)];
		if ((e & need) != need)
			return 0;
		if (level == 0 || (e & PTE_PS)) {
			uint64_t span = 1ul << (PAGE_SHIFT + 9 * level);
			return (e & PTE_ADDR & ~(span - 1)) | (va & (span - 1));
		}
		tbl = e & PTE_ADDR;
	}
	return 0;
}

static bool table_empty(uint64_t tbl)
{
	const pte_t *t = table(tbl);

	for (int i = 0; i < PT_ENTRIES; i++)
		if (t[i])
			return false;
	return true;
}

/* Unlink and free the empty table *e points to. Unlinked before it is freed:
 * an NMI walking these tables (sample.c) sees the old table or none. */
static void unlink_if_empty(pte_t *e, uint64_t va, struct tlb_gather *g)
{
	uint64_t child = *e & PTE_ADDR;

	if (!table_empty(child))
		return;
	WRITE_ONCE(*e, 0);
	invlpg(va);	/* and the paging-structure caches (SDM Vol. 3A 4.10.4.1) */
	tlb_gather_free(g, child);
}

/* The table tbl of the given level (2: a PDPT, 1: a PD), mapping from base:
 * its entries that cover [start, end), depth first. Only present tables are
 * visited, so a sparse range costs what it maps. */
static void prune_level(uint64_t tbl, int level, uint64_t base, uint64_t start, uint64_t end,
			int top, struct tlb_gather *g)
{
	uint64_t span = 1ul << (PAGE_SHIFT + 9 * level), last_va = base + PT_ENTRIES * span - 1;
	unsigned first = start <= base ? 0 : pt_index(start, level);
	unsigned last = end - 1 >= last_va ? PT_ENTRIES - 1 : pt_index(end - 1, level);
	pte_t *t = table(tbl);

	for (unsigned i = first; i <= last; i++) {
		if (!(t[i] & PTE_P) || (t[i] & PTE_PS))
			continue;
		if (level > 1)
			prune_level(t[i] & PTE_ADDR, level - 1, base + i * span, start, end, top, g);
		if (level <= top)
			unlink_if_empty(&t[i], base + i * span, g);
	}
}

void prune_tables(uint64_t pml4_phys, uint64_t start, uint64_t end, int top,
		  struct tlb_gather *g)
{
	pte_t *pml4 = table(pml4_phys);

	assert(top >= 1 && top <= 3 && start < end);
	for (unsigned i = pt_index(start, 3); i <= pt_index(end - 1, 3); i++) {
		uint64_t base = (uint64_t)i << 39;
		if (i >= PT_ENTRIES / 2)
			base |= 0xffff000000000000ul;	/* canonical: bit 47 repeated */
		if (!(pml4[i] & PTE_P))
			continue;
		prune_level(pml4[i] & PTE_ADDR, 2, base, start, end, top, g);
		if (top >= 3)
			unlink_if_empty(&pml4[i], base, g);
	}
}

static void free_table(uint64_t tbl, int level)
{
	pte_t *t = table(tbl);

	for (int i = 0; i < PT_ENTRIES; i++) {
		if (!(t[i] & (level ? PTE_P : PTE_P | PTE_PROTNONE)))
			continue;
		if (level > 0)
			free_table(t[i] & PTE_ADDR, level - 1);
		else if (!(t[i] & PTE_BORROWED))
			frame_free(t[i] & PTE_ADDR);
	}
	frame_free(tbl);
}

void free_user_tables(uint64_t pml4_phys)
{
	pte_t *pml4 = table(pml4_phys);

	for (int i = 0; i < PT_ENTRIES / 2; i++) {
		if (pml4[i] & PTE_P)
			free_table(pml4[i] & PTE_ADDR, 2);
		pml4[i] = 0;
	}
}

/* Map [start, end) of the kernel image at its link address with 4 KiB pages. */
static void map_kernel_range(const void *start, const void *end, uint64_t flags)
{
	for (uint64_t va = (uint64_t)start; va < (uint64_t)end; va += PAGE_SIZE)
		assert(map_page(kernel_pml4_phys, va, va - KERNEL_VMA, flags | PTE_G) == 0);
}

static void map_direct(void)
{
	for (uint64_t pa = 0; pa < direct_map_end; pa += LARGE_PAGE) {
		uint64_t va = DIRECT_MAP_BASE + pa;
		uint64_t tbl = kernel_pml4_phys;

		for (int level = 3; level > 1; level--) {
			pte_t *e = &table(tbl)[pt_index(va, level)];
			if (!(*e & PTE_P))
				*e = alloc_table() | PTE_P | PTE_W;
			tbl = *e & PTE_ADDR;
		}
		table(tbl)[pt_index(va, 1)] = pa | PTE_P | PTE_W | PTE_PS | PTE_G | PTE_NX;
	}
}

void paging_init(void)
{
	extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
	extern char __data_start[], __boot_stack_guard[], __bss_end[];

	for (int i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mem_region *r = &boot_info.mmap[i];
		if (r->type == MULTIBOOT_MEMORY_AVAILABLE)
			direct_map_end = MAX(direct_map_end, r->base + r->length);
	}
	direct_map_end = MIN(ALIGN_UP(direct_map_end, LARGE_PAGE), DIRECT_MAP_MAX);

	kernel_pml4_phys = alloc_table();
	map_direct();
	map_kernel_range(__text_start, __text_end, 0);
	map_kernel_range(__rodata_start, __rodata_end, PTE_NX);
	map_kernel_range(__data_start, __boot_stack_guard, PTE_W | PTE_NX);
	map_kernel_range(__boot_stack_guard + PAGE_SIZE, __bss_end, PTE_W | PTE_NX);
	/* The vmalloc area's one PML4 slot, so every address space copies it. */
	assert(pte_walk(kernel_pml4_phys, VMALLOC_BASE, false) == NULL);
	table(kernel_pml4_phys)[pt_index(VMALLOC_BASE, 3)] = alloc_table() | PTE_P | PTE_W;
	write_cr3(kernel_pml4_phys);
	direct_map_live = true;
}
