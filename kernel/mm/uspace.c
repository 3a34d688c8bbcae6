/* A user address space: a PML4 whose upper half repeats the kernel's entries
 * (all made at boot, so they never need syncing), a sorted VMA list, and
 * demand-zero paging for anonymous memory. */
#include "uspace.h"
#include "frames.h"
#include "kmalloc.h"
#include "paging.h"
#include "tlb.h"
#include "../panic.h"
#include "../x86.h"
#include "../lib/string.h"
#include <asm-generic/errno.h>

long uspaces_alive;

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
	us->covered_from = MMAP_BASE;
	us->refs = 1;
	us->fault_lock = (struct spinlock)SPINLOCK_INIT("address space faults");
	uspaces_alive++;
	return us;
}

void uspace_get(struct uspace *us)
{
	us->refs++;
}

void uspace_put(struct uspace *us)
{
	assert(us->refs > 0);
	if (!--us->refs)
		uspace_destroy(us);
}

void uspace_destroy(struct uspace *us)
{
	uspace_unmap(us, 0, USER_END);
	tlb_forget(us);
	free_user_tables(us->pml4);
	frame_free(us->pml4);
	kfree(us);
	uspaces_alive--;
}

void uspace_activate(struct uspace *us)
{
	uint64_t flags = irq_save();	/* a shootdown sees the mask and CR3 agree */

	tlb_load(us);
	write_cr3(us ? us->pml4 : kernel_pml4_phys);
	irq_restore(flags);
}

struct vma *vma_find(struct uspace *us, uint64_t addr)
{
	for (struct vma *v = us->vmas; v && v->start <= addr; v = v->next)
		if (addr < v->end)
			return v;
	return NULL;
}

struct vma *vma_allowing(struct uspace *us, uint64_t addr, bool write, bool exec)
{
	struct vma *v = vma_find(us, addr);

	if (!v || (write && !(v->flags & VM_WRITE)) || (exec && !(v->flags & VM_EXEC)) ||
	    !(v->flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return NULL;
	return v;
}

struct vma *vma_insert(struct uspace *us, uint64_t start, uint64_t end, unsigned flags)
{
	uspace_writing(us);
	struct vma **link = &us->vmas;
	struct vma *v;

	assert(start < end && IS_ALIGNED(start, PAGE_SIZE) && IS_ALIGNED(end, PAGE_SIZE));
	if (us->nr_vmas > MAX_MAP_COUNT)	/* Linux's do_mmap: one past it, then no more */
		return NULL;
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
	us->nr_vmas++;
	if (end == us->covered_from)
		us->covered_from = start;	/* mmap's top-down steps extend it */
	return v;
}

#define LOW_GUARD	(PAGE_SIZE * 16)	/* keep NULL's neighbourhood free */

/* The gap right below covered_from, found past the VMAs under it alone (the
 * program's, the heap's: a few): mmap's usual answer in O(those), where the
 * walk below takes O(all), and a program with tens of thousands of
 * mappings would pay that for each. 0 if the gap is too small. */
static uint64_t gap_below_covered(struct uspace *us, uint64_t len)
{
	uint64_t top = us->covered_from, gap_start = LOW_GUARD;

	for (struct vma *v = us->vmas; v && v->start < top; v = v->next)
		gap_start = MAX(gap_start, v->end);
	return top >= gap_start + len ? top - len : 0;
}

uint64_t uspace_find_free(struct uspace *us, uint64_t len, uint64_t limit)
{
	uint64_t best = 0, gap_start = LOW_GUARD;

	if (limit == us->mmap_base && (best = gap_below_covered(us, len)))
		return best;
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

static void unmap_range(struct uspace *us, uint64_t start, uint64_t end, struct tlb_gather *g)
{
	size_t n;

	for (uint64_t va = start; va < end; va += n * PAGE_SIZE) {
		pte_t *e = pte_next_run(us->pml4, &va, end, &n);
		if (!e)
			break;
		for (size_t i = 0; i < n; i++) {
			pte_t old = e[i];
			if (!(old & (PTE_P | PTE_PROTNONE)))
				continue;
			e[i] = 0;
			invlpg(va + i * PAGE_SIZE);
			if (!(old & PTE_BORROWED))
				tlb_gather_free(g, old & PTE_ADDR);
		}
	}
}

/* Split v at addr (inside it): v keeps [start, addr), the new one the rest.
 * NULL when the heap is exhausted. */
static struct vma *vma_split(struct uspace *us, struct vma *v, uint64_t addr)
{
	struct vma *n = kmalloc(sizeof(*n));

	if (!n)
		return NULL;
	*n = *v;
	n->start = addr;
	n->pgoff = v->pgoff + (addr - v->start);
	v->end = addr;
	v->next = n;
	us->nr_vmas++;
	if (n->ops && n->ops->open)
		n->ops->open(n);
	return n;
}

/* Cut the VMAs that straddle start or end there, so that [start, end) is
 * made of whole VMAs: 0, or the errno of a driver's VMA that may not be
 * split (nothing is cut then), or -ENOMEM (max_map_count, the heap; a cut
 * made already stays, which no one can see). As Linux counts: an mprotect
 * may not split past max_map_count, a munmap only where it leaves one more
 * VMA than before (the middle of one); its other cuts are removed at once. */
static int split_range(struct uspace *us, uint64_t start, uint64_t end, bool unmap)
{
	uint64_t cuts[2] = { start, end };
	struct vma *v;

	for (int i = 0; i < 2; i++) {
		if ((v = vma_find(us, cuts[i])) && v->start != cuts[i] && v->ops &&
		    v->ops->may_split) {
			int err = v->ops->may_split(v, cuts[i]);
			if (err)
				return err;
		}
	}
	v = vma_find(us, start);
	if (unmap && v && v->start < start && end < v->end && us->nr_vmas >= MAX_MAP_COUNT)
		return -ENOMEM;		/* the middle of one: one VMA more */
	for (int i = 0; i < 2; i++) {
		if (!(v = vma_find(us, cuts[i])) || v->start == cuts[i])
			continue;
		if (!unmap && us->nr_vmas >= MAX_MAP_COUNT)
			return -ENOMEM;
		if (!vma_split(us, v, cuts[i]))
			return -ENOMEM;
	}
	return 0;
}

int uspace_unmap(struct uspace *us, uint64_t start, uint64_t end)
{
	uspace_writing(us);
	struct tlb_gather g;
	struct vma **link = &us->vmas, *gone = NULL, **gone_tail = &gone;
	uint64_t lo = end, hi = start;	/* what was unmapped */
	int err = split_range(us, start, end, true);

	tlb_gather_init(&g, us);
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
		unmap_range(us, v->start, v->end, &g);
		lo = MIN(lo, v->start), hi = MAX(hi, v->end);
		*link = v->next;
		v->next = NULL;
		*gone_tail = v;
		gone_tail = &v->next;
		us->nr_vmas--;
	}
	if (lo >= hi)
		return 0;			/* nothing was there */
	prune_tables(us->pml4, lo, hi, 3, &g);	/* the tables go as Linux's free_pgtables */
	tlb_gather_finish(&g);
	/* After the shootdown, as Linux's remove_vma after tlb_finish_mmu: a
	 * driver's close may free the frames it lent (a perf ring's). */
	for (struct vma *v = gone, *next; v; v = next) {
		next = v->next;
		if (v->ops && v->ops->close)
			v->ops->close(v);
		kfree(v);
	}
	if (hi > us->covered_from)
		us->covered_from = MIN(hi, us->mmap_base);	/* what is left above hi */
	return 0;
}

int uspace_protect(struct uspace *us, uint64_t start, uint64_t end, unsigned prot)
{
	uspace_writing(us);
	/* All of the range must be mapped, as Linux requires. */
	for (uint64_t a = start; a < end;) {
		struct vma *v = vma_find(us, a);
		if (!v)
			return -ENOMEM;
		a = v->end;
	}
	int err = split_range(us, start, end, false);
	if (err)
		return err;
	for (struct vma *v = vma_find(us, start); v && v->start < end; v = v->next) {
		v->flags = (v->flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | prot;
		for (uint64_t va = v->start; va < v->end; va += PAGE_SIZE) {
			va = pte_next_table(us->pml4, va);
			if (va >= v->end || !va)
				break;
			pte_t *e = pte_walk(us->pml4, va, false);
			if (!e || !(*e & (PTE_P | PTE_PROTNONE)))
				continue;
			*e = (*e & (PTE_ADDR | PTE_BORROWED | PTE_COW)) | pte_flags(prot);
			if (*e & PTE_COW)
				*e &= ~PTE_W;	/* writable once the fault has copied it */
			invlpg(va);
		}
	}
	tlb_shootdown(us);
	return 0;
}

int uspace_discard(struct uspace *us, uint64_t start, uint64_t end)
{
	uspace_writing(us);
	struct tlb_gather g;

	tlb_gather_init(&g, us);
	for (uint64_t a = start; a < end;) {
		struct vma *v = vma_find(us, a);
		if (!v)
			return -ENOMEM;
		if (v->flags & VM_SPECIAL)
			return -EINVAL;
		a = v->end;
	}
	unmap_range(us, start, end, &g);
	tlb_gather_finish(&g);
	return 0;
}

int uspace_populate(struct uspace *us, uint64_t va, const void *src, size_t n)
{
	struct vma *v = vma_find(us, va);
	uint64_t pa;

	if (!v)
		return -EFAULT;
	if (!(pa = frame_alloc_zeroed()))
		return -ENOMEM;
	if (src)
		memcpy(phys_to_virt(pa), src, MIN(n, PAGE_SIZE));
	if (map_page(us->pml4, ALIGN_DOWN(va, PAGE_SIZE), pa, pte_flags(v->flags))) {
		frame_free(pa);
		return -ENOMEM;
	}
	return 0;
}

/* A write to a page shared since a fork: the last sharer takes it as it
 * is, the others get a copy. 0 or -ENOMEM. */
static int break_cow(pte_t *e, uint64_t va)
{
	uint64_t pa = *e & PTE_ADDR;

	if (frame_refs(pa) > 1) {
		uint64_t copy = frame_alloc();
		if (!copy)
			return -ENOMEM;
		memcpy(phys_to_virt(copy), phys_to_virt(pa), PAGE_SIZE);
		*e = (*e & ~PTE_ADDR) | copy;
		frame_free(pa);
	}
	*e = (*e & ~PTE_COW) | PTE_W;
	invlpg(va);
	return 0;
}

int uspace_map_frame(struct uspace *us, struct vma *v, uint64_t va, uint64_t pa, bool borrowed)
{
	uspace_writing(us);
	return map_page(us->pml4, va, pa, pte_flags(v->flags) | (borrowed ? PTE_BORROWED : 0));
}

int uspace_fault(struct uspace *us, uint64_t addr, bool write, bool exec)
{
	uspace_writing(us);
	struct vma *v = vma_allowing(us, addr, write, exec);
	bool filled = v && v->ops && v->ops->fault;

	if (!v || (!(v->flags & VM_ANON) && !filled))
		return -EFAULT;
	pte_t *e = pte_walk(us->pml4, addr, false);
	if (e && (*e & PTE_P) && write && (*e & PTE_COW)) {
		int err = break_cow(e, ALIGN_DOWN(addr, PAGE_SIZE));
		if (!err)
			tlb_shootdown(us);	/* the other threads' entries: the old frame */
		return err;
	}
	if (e && (*e & PTE_P)) {
		/* Another CPU mapped the page (or broke its COW) while this fault
		 * waited for the lock, or this CPU's TLB held the entry from
		 * before: if the access is allowed now it only retries, as on
		 * Linux. Else a real protection fault. */
		if ((!write || (*e & PTE_W)) && (!exec || !(*e & PTE_NX))) {
			invlpg(ALIGN_DOWN(addr, PAGE_SIZE));
			return 0;
		}
		return -EFAULT;
	}
	if (filled)
		return v->ops->fault(us, v, ALIGN_DOWN(addr, PAGE_SIZE), write);
	return uspace_populate(us, addr, NULL, 0);
}

/* Share the pages of [v->start, v->end) between src and dst: owned frames
 * copy-on-write (read-only in both until a write copies them), borrowed
 * ones (a shared file's) mapped again. */
static int copy_pages(struct uspace *dst, struct uspace *src, const struct vma *v)
{
	size_t n;

	for (uint64_t va = v->start; va < v->end; va += n * PAGE_SIZE) {
		pte_t *from = pte_next_run(src->pml4, &va, v->end, &n), *to = NULL;
		if (!from)
			break;
		for (size_t i = 0; i < n; i++) {
			pte_t *e = &from[i];
			if (!(*e & (PTE_P | PTE_PROTNONE)))
				continue;
			uint64_t pa = *e & PTE_ADDR;
			if (!(*e & PTE_BORROWED) && !(v->flags & VM_SHARED)) {
				*e = (*e & ~PTE_W) | PTE_COW;
				invlpg(va + i * PAGE_SIZE);
			}
			/* The destination's table, made at the run's first page;
			 * dst is not loaded in any CR3, so no invlpg. */
			if (!to) {
				pte_t *t = pte_walk(dst->pml4, va + i * PAGE_SIZE, true);
				if (!t)
					return -ENOMEM;
				to = t - i;	/* dst's entry for va */
			}
			if (!(*e & PTE_BORROWED))
				frame_get(pa);
			to[i] = *e;
		}
	}
	return 0;
}

struct uspace *uspace_copy(struct uspace *src)
{
	uspace_writing(src);		/* its pages turn copy-on-write */
	struct uspace *us = uspace_create();

	if (!us)
		return NULL;
	us->brk_start = src->brk_start;
	us->brk = src->brk;
	memcpy(us->interp, src->interp, sizeof(us->interp));
	for (struct vma *v = src->vmas; v; v = v->next) {
		if (v->flags & VM_SPECIAL)
			continue;	/* perf rings: Linux's VM_DONTCOPY */
		struct vma *n = vma_insert(us, v->start, v->end, v->flags);
		if (!n)
			goto fail;
		n->ops = v->ops;
		n->priv = v->priv;
		n->pgoff = v->pgoff;
		if (n->ops && n->ops->open)
			n->ops->open(n);
		if (copy_pages(us, src, v))
			goto fail;
	}
	tlb_shootdown(src);	/* its threads elsewhere: the pages are copy-on-write now */
	return us;
fail:
	tlb_shootdown(src);
	uspace_put(us);
	return NULL;
}

int uspace_poke(struct uspace *us, uint64_t va, const void *src, size_t n)
{
	uspace_writing(us);
	for (size_t done = 0; done < n;) {
		uint64_t at = va + done;
		size_t chunk = MIN(n - done, PAGE_SIZE - (at & (PAGE_SIZE - 1)));
		pte_t *e = pte_walk(us->pml4, at, false);
		if (!e || !(*e & PTE_P) || !(*e & PTE_W)) {
			int err = uspace_fault(us, at, true, false);
			if (err)
				return err;
			e = pte_walk(us->pml4, at, false);
		}
		memcpy((char *)phys_to_virt(*e & PTE_ADDR) + (at & (PAGE_SIZE - 1)),
		       (const char *)src + done, chunk);
		done += chunk;
	}
	return 0;
}
