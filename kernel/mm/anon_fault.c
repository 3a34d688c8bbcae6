/* Page faults of anonymous memory without the kernel lock: the first step
 * of taking the big kernel lock apart (kernel_lock.c), where a threaded
 * program feels it most, since every first touch of a page of its heap,
 * stacks and anonymous mappings faults. Such a fault reads the VMA list and
 * fills one empty page-table entry (and the tables above it) with a zeroed
 * frame (frames.c has its own lock); any other fault (copy-on-write, a
 * file's page, a protection fault, no frame left) goes the usual way, under
 * the kernel lock.
 *
 * Two sides, per address space:
 *  - faulters, on any CPU without the kernel lock, one at a time per space
 *    (fault_lock: two threads may fill the same table);
 *  - writers, holding the kernel lock (so one at a time), which change the
 *    VMAs or page tables (uspace.c's calls, mmap and brk): each keeps the
 *    faulters off while it works, and they fall back to the kernel lock,
 *    which then waits for the writer.
 * A faulter announces itself (faulting) and then looks for a writer; a
 * writer announces itself (writers) and then waits until no faulter is
 * under way. Both steps are sequentially consistent, so of a faulter and a
 * writer that start together at least one sees the other (the store-load
 * order Dekker's exclusion needs: x86 keeps it only with a locked
 * instruction or MFENCE between, which the seq_cst operations give). */
#include "uspace.h"
#include "paging.h"
#include "../kernel_lock.h"
#include "../smp.h"
#include <asm-generic/errno.h>

void uspace_write_begin_smp(struct uspace *us)
{
	/* Writers take turns by the kernel lock; a space no CPU has loaded
	 * yet (exec's new one, before it runs) has no faulters nor other
	 * writers. */
	assert(kernel_lock_held() || !us->cpus_loaded);
	if (us->writers++)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* writers before faulting */
	/* A faulter waits for nothing a writer holds but frames' lock: it
	 * finishes. The polls answer IPIs while interrupts are off here. */
	while (__atomic_load_n(&us->faulting, __ATOMIC_SEQ_CST)) {
		smp_poll_calls();
		pause();
	}
}

void uspace_write_end_smp(struct uspace *us)
{
	assert(us->writers > 0);
	__atomic_store_n(&us->writers, us->writers - 1, __ATOMIC_RELEASE);
}

int uspace_fault_anon(struct uspace *us, uint64_t addr, bool write, bool exec)
{
	int err = -EAGAIN;

	__atomic_fetch_add(&us->faulting, 1, __ATOMIC_SEQ_CST);	/* then writers */
	if (__atomic_load_n(&us->writers, __ATOMIC_SEQ_CST))
		goto out;
	uint64_t flags = spin_lock_irqsave(&us->fault_lock);
	struct vma *v = vma_allowing(us, addr, write, exec);
	if (v && (v->flags & VM_ANON) && !(v->ops && v->ops->fault)) {
		pte_t *e = pte_walk(us->pml4, addr, false);
		if (!e || !(*e & (PTE_P | PTE_PROTNONE)))	/* empty: demand zero */
			err = uspace_populate(us, addr, NULL, 0) ? -EAGAIN : 0;
	}
	spin_unlock_irqrestore(&us->fault_lock, flags);
out:
	__atomic_fetch_sub(&us->faulting, 1, __ATOMIC_RELEASE);
	return err;
}
