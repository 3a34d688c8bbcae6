/* 4-level page tables: the kernel's address space layout, walking, mapping. */
#pragma once
#include "../kernel.h"

#define PAGE_SHIFT	12
#define PAGE_SIZE	4096ul
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define LARGE_PAGE	(2 * MiB)	/* what a page table maps */

/* Virtual layout (one PML4 slot = 512 GiB):
 *   0 .. USER_END                 user space
 *   DIRECT_MAP_BASE               all RAM, 2 MiB pages (PML4 slots 256..)
 *   VMALLOC_BASE                  kernel stacks, large allocations, MMIO
 *   KERNEL_VMA                    the kernel image (-2 GiB) */
#define USER_END	0x00007ffffffff000ul	/* Linux's TASK_SIZE: last page unused */
#define DIRECT_MAP_BASE	0xffff800000000000ul
#define DIRECT_MAP_MAX	(64 * GiB)
#define VMALLOC_BASE	0xffffc90000000000ul
#define VMALLOC_SIZE	(1 * GiB)	/* its page tables made at boot: 2 MiB */
#define KERNEL_VMA	0xffffffff80000000ul

/* Page-table entry bits (SDM Vol. 3A 4.5, Table 4-19/4-20) */
#define PTE_P		(1ul << 0)
#define PTE_W		(1ul << 1)
#define PTE_U		(1ul << 2)
#define PTE_PWT		(1ul << 3)
#define PTE_PCD		(1ul << 4)
#define PTE_A		(1ul << 5)
#define PTE_D		(1ul << 6)
#define PTE_PS		(1ul << 7)
#define PTE_G		(1ul << 8)
#define PTE_BORROWED	(1ul << 9)	/* software: the frame belongs to someone else */
#define PTE_PROTNONE	(1ul << 10)	/* software: PROT_NONE, frame kept, not present */
#define PTE_COW		(1ul << 11)	/* software: shared since a fork; a write copies it */
#define PTE_NX		(1ul << 63)
#define PTE_ADDR	0x000ffffffffff000ul

typedef uint64_t pte_t;

static inline void *phys_to_virt(uint64_t phys)
{
	return (void *)(DIRECT_MAP_BASE + phys);
}

/* For direct-map and kernel-image addresses. */
static inline uint64_t virt_to_phys(const void *v)
{
	uint64_t a = (uint64_t)v;

	return a >= KERNEL_VMA ? a - KERNEL_VMA : a - DIRECT_MAP_BASE;
}

/* Before paging_init: the boot page tables map the first GiB at KERNEL_VMA. */
static inline void *early_phys_to_virt(uint64_t phys)
{
	return (void *)(KERNEL_VMA + phys);
}

static inline bool is_user_range(uint64_t addr, uint64_t len)
{
	return addr <= USER_END && len <= USER_END - addr;
}

extern uint64_t kernel_pml4_phys;
/* The highest physical address the direct map covers. */
extern uint64_t direct_map_end;

/* Build the kernel's own page tables (direct map, W^X kernel image) and switch
 * to them; needs the boot memory map and EFER.NXE. */
void paging_init(void);
/* The leaf entry for va, or NULL; with create, intermediate tables are made
 * (user-accessible below USER_END). 2 MiB leaves are returned as they are. */
pte_t *pte_walk(uint64_t pml4_phys, uint64_t va, bool create);
/* The first address at or above va whose leaf entry has a table to live in
 * (va when it has): walks over a range skip what was never mapped a
 * directory at a time, not a page at a time (an unmap of 2^47 bytes would
 * otherwise take 2^35 steps). It may wrap to 0 past the top. */
uint64_t pte_next_table(uint64_t pml4_phys, uint64_t va);
/* The next run of leaf entries in [*va, end) that has a page table (4 KiB
 * pages only): moves *va to its first address, sets *n to its length (up
 * to the table's end) and returns its first entry; NULL when none is left.
 * Walks over a range touch each table once, not each page's four levels. */
pte_t *pte_next_run(uint64_t pml4_phys, uint64_t *va, uint64_t end, size_t *n);
/* Map one 4 KiB page (with PTE_PROTNONE in flags: in place but not present); -ENOMEM
 * when a table cannot be allocated. */
int map_page(uint64_t pml4_phys, uint64_t va, uint64_t phys, uint64_t flags);
/* Unmap one page and flush it from the TLB; returns the old entry. */
pte_t unmap_page(uint64_t pml4_phys, uint64_t va);
/* Translate va through the tables without touching it: 0 if unmapped or not
 * allowed (the NMI-safe probe used before reading user memory). */
uint64_t translate(uint64_t pml4_phys, uint64_t va, bool write, bool user);
/* Free the page tables under [start, end) that map nothing any more (the range
 * was just unmapped): page tables, then the directories above them, up to
 * tables that a level-top entry holds (1: PTs only, 2: PDs too, 3: PDPTs too).
 * So unmapping returns the frames mapping took, and the frame count comes
 * back to its baseline; the tables go to g (tlb.h), freed after the
 * shootdown. */
struct tlb_gather;
void prune_tables(uint64_t pml4_phys, uint64_t start, uint64_t end, int top,
		  struct tlb_gather *g);
/* Free the user half's page tables and the frames they own (not borrowed). */
void free_user_tables(uint64_t pml4_phys);
