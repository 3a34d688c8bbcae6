/* A user address space: page tables (kernel half shared), the list of mapped
 * regions (VMAs), the program break, demand-zero paging. */
#pragma once
#include "../kernel.h"
#include "../kernel_lock.h"
#include "../spinlock.h"

/* VMA protections: Linux's PROT_* values */
#define VM_READ		0x1
#define VM_WRITE	0x2
#define VM_EXEC		0x4
/* VMA kinds */
#define VM_ANON		0x10	/* demand-zero pages, owned by the space */
#define VM_SPECIAL	0x20	/* pages installed by a driver (perf rings), borrowed */
#define VM_STACK	0x40
#define VM_SHARED	0x80	/* MAP_SHARED */
#define VM_EXE		0x100	/* a segment of the program's ELF file (pgoff: its file offset) */
#define VM_FILE		0x200	/* a file's pages (ops->fault fills them; pgoff: file offset) */
#define VM_INTERP	0x400	/* a segment of the dynamic loader (its path: us->interp) */

struct vma;
/* A driver's mapping (VM_SPECIAL, VM_FILE): may_split answers 0 or an errno
 * when a munmap, mprotect or MAP_FIXED would cut the VMA at addr (Linux's
 * vm_operations_struct.may_split: the call fails, nothing changes); open
 * runs for the new half of a split VMA, close when a VMA of it goes away;
 * fault maps the page at addr (allowed by the VMA's protection): 0,
 * -ENOMEM, or -EIO past the end of a file (SIGBUS). */
struct uspace;
struct vma_ops {
	int (*may_split)(struct vma *vma, uint64_t addr);
	void (*open)(struct vma *vma);
	void (*close)(struct vma *vma);
	int (*fault)(struct uspace *us, struct vma *vma, uint64_t addr, bool write);
};

struct vma {
	uint64_t start, end;	/* page-aligned, end exclusive */
	unsigned flags;
	const struct vma_ops *ops;
	void *priv;
	uint64_t pgoff;		/* offset of start in the mapped object, for drivers */
	struct vma *next;	/* sorted by start */
};

struct uspace {
	uint64_t pml4;		/* physical */
	struct vma *vmas;
	unsigned nr_vmas;	/* at most MAX_MAP_COUNT */
	uint64_t brk_start, brk;
	uint64_t mmap_base;	/* top-down mmap allocations start below this */
	uint64_t covered_from;	/* VMAs cover [covered_from, mmap_base) without a gap */
	int refs;		/* tasks sharing it (CLONE_VM) */
	/* Faults of anonymous memory without the kernel lock (anon_fault.c):
	 * fault_lock serialises them, faulting counts those under way, writers
	 * the kernel lock's holds that keep them off (uspace_write_begin). */
	struct spinlock fault_lock;
	int faulting, writers;
	uint64_t cpus_loaded;	/* the CPUs that have it in CR3 (tlb.c) */
	char interp[64];	/* the dynamic loader's path, "" for a static program */
	/* Where the loader put argv's and envp's strings and the initial sp
	 * (Linux's mm->arg_start ...): /proc/PID/cmdline, environ and stat. */
	uint64_t arg_start, arg_end, env_start, env_end, start_stack;
};

/* Linux x86-64 defaults with randomization off (norandmaps). */
#define STACK_TOP	0x00007ffffffff000ul
#define STACK_MAX	(8 * MiB)		/* RLIMIT_STACK */
#define MMAP_BASE	(STACK_TOP - 128 * MiB)	/* TASK_SIZE - minimum stack gap */
#define ET_DYN_BASE	0x0000555555554000ul	/* ELF_ET_DYN_BASE */
/* vm.mmap_min_addr (Debian's): mmap hints below it are raised to it. A
 * MAP_FIXED mapping may go lower: every program here has root's rights. */
#define MMAP_MIN_ADDR	0x10000ul
/* vm.max_map_count, counted as Linux does: a new mapping is ENOMEM once the
 * count is past it, an mprotect split or a munmap of a VMA's middle once it
 * is at it. It also bounds the VMA list's walks (a list, not a tree). */
#define MAX_MAP_COUNT	65530

/* Address spaces made and not yet destroyed, for the accounting. */
extern long uspaces_alive;
struct uspace *uspace_create(void);
/* Frees every page table and every frame the space owns. */
void uspace_destroy(struct uspace *us);
/* Another task shares it / one less does (the last one destroys it). */
void uspace_get(struct uspace *us);
void uspace_put(struct uspace *us);
/* fork's copy: every VMA but perf's (Linux's VM_DONTCOPY), private pages
 * shared copy-on-write, shared ones (a file's, anonymous MAP_SHARED) mapped
 * again; NULL when memory runs out. */
struct uspace *uspace_copy(struct uspace *src);
void uspace_activate(struct uspace *us);

struct vma *vma_find(struct uspace *us, uint64_t addr);
/* The VMA at addr if its protection allows the access, else NULL. */
struct vma *vma_allowing(struct uspace *us, uint64_t addr, bool write, bool exec);
/* Insert a VMA for [start, end); the range must be free. */
struct vma *vma_insert(struct uspace *us, uint64_t start, uint64_t end, unsigned flags);
/* Highest free range of len bytes below limit, or 0. */
uint64_t uspace_find_free(struct uspace *us, uint64_t len, uint64_t limit);
/* Remove [start, end) from every VMA it touches, freeing owned frames; an
 * errno, and nothing removed, if a VMA that would be cut may not be split
 * or cannot be (-ENOMEM: max_map_count). */
int uspace_unmap(struct uspace *us, uint64_t start, uint64_t end);
/* Change protection of [start, end); -ENOMEM if part of it is unmapped, the
 * errno of a VMA that may not be split. */
int uspace_protect(struct uspace *us, uint64_t start, uint64_t end, unsigned prot);
/* Drop the pages of [start, end) (MADV_DONTNEED): they read as zero again. */
int uspace_discard(struct uspace *us, uint64_t start, uint64_t end);
/* Resolve a user page fault: 0 if a page was provided, -EFAULT if no
 * mapping allows the access, -ENOMEM if no frame is left. */
int uspace_fault(struct uspace *us, uint64_t addr, bool write, bool exec);
/* Map frame pa at va (page-aligned) with v's protection; borrowed: the
 * frame stays its owner's (a file's) and is not freed at unmap. 0 or
 * -ENOMEM. */
int uspace_map_frame(struct uspace *us, struct vma *v, uint64_t va, uint64_t pa, bool borrowed);
/* Write n bytes at va of us, which need not be the active space, as a user
 * store would (demand paging, copy-on-write): 0 or -EFAULT, -ENOMEM. */
int uspace_poke(struct uspace *us, uint64_t va, const void *src, size_t n);
/* Map a page now (zeroed, or a copy of src up to n bytes) in the VMA at va:
 * -EFAULT without one, -ENOMEM. The caller keeps other faulters off: a
 * writer (uspace_write_begin), or a faulter under us->fault_lock. */
int uspace_populate(struct uspace *us, uint64_t va, const void *src, size_t n);

/* The kernel lock's side of anon_fault.c: between begin and end (nested
 * freely), the caller, holding the kernel lock, changes us's VMAs or page
 * tables, and no fault runs on us without the kernel lock; begin waits for
 * those under way. uspace_writing(us) holds them off to the end of the
 * enclosing block. */
void uspace_write_begin_smp(struct uspace *us);
void uspace_write_end_smp(struct uspace *us);
/* One CPU (the kernel lock off): every fault holds interrupts off, so
 * there are no such faults to keep off. */
static inline void uspace_write_begin(struct uspace *us)
{
	if (kernel_lock_on)
		uspace_write_begin_smp(us);
}
static inline void uspace_write_end(struct uspace *us)
{
	if (kernel_lock_on)
		uspace_write_end_smp(us);
}
static inline void uspace_write_end_at(struct uspace **us)
{
	uspace_write_end(*us);
}
#define uspace_writing(us)						\
	struct uspace *_writing __attribute__((cleanup(uspace_write_end_at), unused)) = \
		(uspace_write_begin(us), (us))
/* A fault on a page of anonymous memory that is not there yet, without the
 * kernel lock: 0 when it is mapped now, -EAGAIN for every other fault
 * (uspace_fault under the kernel lock takes those). */
int uspace_fault_anon(struct uspace *us, uint64_t addr, bool write, bool exec);
