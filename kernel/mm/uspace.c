/* A user address space: a PML4 whose upper half repeats the kernel's entries
 * (all made at boot, so they never need syncing), a sorted VMA list, and
 * demand-zero paging for anonymous memory. */
#include "uspace.h"
#include "frames.h"
#include "kmalloc.h"
#include "paging.h"
#include "../panic.h"
#include "../x86.h"
#include "../lib/string.h"
#include <asm-generic/errno.h>

struct uspace *uspace_create(void)
{
	struct uspace *us = kzalloc(sizeof(*us));

	if (!us)
		return NULL;
	us->pml4 = frame_alloc_zeroed();
	if (!us->pml4) {
		kfree(us);
		return NULL;
	}
	pte_t *dst = phys_to_virt(us->pml4), *src = phys_to_virt(kernel_pml4_phys);
	memcpy(dst + 256, src + 256, 256 * sizeof(pte_t));
	us->mmap_base = MMAP_BASE;
	return us;
}

void uspace_destroy(struct uspace *us)
{
	uspace_unmap(us, 0, USER_END);
	if (read_cr3() == us->pml4)
		write_cr3(kernel_pml4_phys);
	free_user_tables(us->pml4);
	frame_free(us->pml4);
	kfree(us);
}

void uspace_activate(struct uspace *us)
{
	write_cr3(us ? us->pml4 : kernel_pml4_phys);
}

struct vma *vma_find(struct uspace *us, uint64_t addr)
{
	for (struct vma *v = us->vmas; v && v->start <= addr; v = v->next)
		if (addr < v->end)
			return v;
	return NULL;
}

struct vma *vma_insert(struct uspace *us, uint64_t start, uint64_t end, unsigned flags)
{
	struct vma **link = &us->vmas;
	struct vma *v;

	assert(start < end && IS_ALIGNED(start, PAGE_SIZE) && IS_ALIGNED(end, PAGE_SIZE));
	while (*link && (*link)->start < start)
		link = &(*link)->next;
	if ((*link && (*link)->start < end))
		return NULL;
	v = kzalloc(sizeof(*v));
	if (!v)
		return NULL;
	v->start = start;
	v->end = end;
	v->flags = flags;
	v->next = *link;
	*link = v;
	return v;
}

uint64_t uspace_find_free(struct uspace *us, uint64_t len, uint64_t limit)
{
	uint64_t best = 0, gap_start = PAGE_SIZE * 16;	/* keep NULL's neighbourhood free */

	for (struct vma *v = us->vmas;; v = v->next) {
		uint64_t gap_end = MIN(v ? v->start : limit, limit);
		if (gap_end >= gap_start + len)
			best = gap_end - len;
		if (!v || v->end >= limit)
			break;
		gap_start = MAX(gap_start, v->end);
	}
	return best;
}

static uint64_t pte_flags(unsigned prot)
{
	if (!(prot & (VM_READ | VM_WRITE | VM_EXEC)))
		return PTE_PROTNONE;
	return PTE_P | PTE_U | (prot & VM_WRITE ? PTE_W : 0) | (prot & VM_EXEC ? 0 : PTE_NX);
}

static void unmap_range(struct uspace *us, uint64_t start, uint64_t end)
{
	for (uint64_t va = start; va < end; va += PAGE_SIZE) {
		va = pte_next_table(us->pml4, va);
		if (va >= end || !va)
			break;
		pte_t *e = pte_walk(us->pml4, va, false);
		if (!e || !(*e & (PTE_P | PTE_PROTNONE)))
			continue;
		pte_t old = *e;
		*e = 0;
		invlpg(va);
		if (!(old & PTE_BORROWED))
			frame_free(old & PTE_ADDR);
	}
}

/* Split v at addr (inside it): v keeps [start, addr), the new one the rest. */
static struct vma *vma_split(struct vma *v, uint64_t addr)
{
	struct vma *n = kmalloc(sizeof(*n));

	if (!n)
		return NULL;
	*n = *v;
	n->start = addr;
	n->pgoff = v->pgoff + (addr - v->start);
	v->end = addr;
	v->next = n;
	return n;
}

/* Whether the VMAs that [start, end) would cut agree to be cut: 0 or the
 * first refusal's errno (only the two ends can cut a VMA). */
static int may_split_range(struct uspace *us, uint64_t start, uint64_t end)
{
	uint64_t cuts[2] = { start, end };

	for (int i = 0; i < 2; i++) {
		struct vma *v = vma_find(us, cuts[i]);
		if (!v || v->start == cuts[i] || !v->ops || !v->ops->may_split)
			continue;
		int err = v->ops->may_split(v, cuts[i]);
		if (err)
			return err;
	}
	return 0;
}

int uspace_unmap(struct uspace *us, uint64_t start, uint64_t end)
{
	struct vma **link = &us->vmas;
	uint64_t lo = end, hi = start;	/* what was unmapped */
	int err = may_split_range(us, start, end);

	if (err)
		return err;

	while (*link) {
		struct vma *v = *link;
		if (v->end <= start) {
			link = &v->next;
			continue;
		}
		if (v->start >= end)
			break;
		/* Keep what lies outside [start, end) as VMAs of their own. (A split
		 * fails only when the heap is exhausted; then v goes whole.) */
		if (v->start < start && vma_split(v, start)) {
			link = &v->next;
			continue;
		}
		if (v->end > end)
			vma_split(v, end);
		unmap_range(us, v->start, v->end);
		lo = MIN(lo, v->start), hi = MAX(hi, v->end);
		if (v->ops && v->ops->close)
			v->ops->close(v);
		*link = v->next;
		kfree(v);
	}
	if (lo < hi)
		prune_tables(us->pml4, lo, hi, 3);	/* the tables go as Linux's free_pgtables */
	return 0;
}

int uspace_protect(struct uspace *us, uint64_t start, uint64_t end, unsigned prot)
{
	/* All of the range must be mapped, as Linux requires. */
	for (uint64_t a = start; a < end;) {
		struct vma *v = vma_find(us, a);
		if (!v)
			return -ENOMEM;
		a = v->end;
	}
	int err = may_split_range(us, start, end);
	if (err)
		return err;
	for (struct vma *v = vma_find(us, start); v && v->start < end; v = v->next) {
		if (v->start < start && !(v = vma_split(v, start)))
			return -ENOMEM;
		if (v->end > end && !vma_split(v, end))
			return -ENOMEM;
		v->flags = (v->flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | prot;
		for (uint64_t va = v->start; va < v->end; va += PAGE_SIZE) {
			va = pte_next_table(us->pml4, va);
			if (va >= v->end || !va)
				break;
			pte_t *e = pte_walk(us->pml4, va, false);
			if (!e || !(*e & (PTE_P | PTE_PROTNONE)))
				continue;
			*e = (*e & (PTE_ADDR | PTE_BORROWED)) | pte_flags(prot);
			invlpg(va);
		}
	}
	return 0;
}

int uspace_discard(struct uspace *us, uint64_t start, uint64_t end)
{
	for (uint64_t a = start; a < end;) {
		struct vma *v = vma_find(us, a);
		if (!v)
			return -ENOMEM;
		if (v->flags & VM_SPECIAL)
			return -EINVAL;
		a = v->end;
	}
	unmap_range(us, start, end);
	return 0;
}

int uspace_populate(struct uspace *us, uint64_t va, const void *src, size_t n)
{
	struct vma *v = vma_find(us, va);
	uint64_t pa = frame_alloc_zeroed();

	if (!pa)
		return -ENOMEM;
	if (src)
		memcpy(phys_to_virt(pa), src, MIN(n, PAGE_SIZE));
	if (map_page(us->pml4, ALIGN_DOWN(va, PAGE_SIZE), pa, pte_flags(v->flags))) {
		frame_free(pa);
		return -ENOMEM;
	}
	return 0;
}

int uspace_fault(struct uspace *us, uint64_t addr, bool write, bool exec)
{
	struct vma *v = vma_find(us, addr);

	if (!v || !(v->flags & VM_ANON))
		return -EFAULT;
	if ((write && !(v->flags & VM_WRITE)) || (exec && !(v->flags & VM_EXEC)) ||
	    !(v->flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return -EFAULT;
	pte_t *e = pte_walk(us->pml4, addr, false);
	if (e && (*e & PTE_P))
		return -EFAULT;		/* present: a real protection fault */
	return uspace_populate(us, addr, NULL, 0) ? -EFAULT : 0;
}
