/* Memory syscalls: mmap (anonymous, and files that can be mapped), munmap,
 * mprotect, madvise, brk. Errors as Linux's mm/ gives them. */
#include "syscall.h"
#include "fd.h"
#include "task.h"
#include "mm/paging.h"
#include "mm/uspace.h"
#include "perf/perf.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <asm-generic/mman-common.h>
#include <linux/mman.h>

#define PROT_MASK	(PROT_READ | PROT_WRITE | PROT_EXEC)

static bool range_free(struct uspace *us, uint64_t start, uint64_t end)
{
	for (struct vma *v = us->vmas; v && v->start < end; v = v->next)
		if (v->end > start)
			return false;
	return true;
}

long sys_mmap(long addr, long len, long prot, long flags, long fd, long off)
{
	struct uspace *us = current->us;
	uspace_writing(us);	/* through the driver's mmap, which shapes the VMA */
	struct file *f = NULL;
	unsigned type = flags & MAP_TYPE;
	uint64_t size = ALIGN_UP((uint64_t)len, PAGE_SIZE), start;

	if (!len || (off & (PAGE_SIZE - 1)))
		return -EINVAL;
	if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE)
		return -EINVAL;
	if (!size || size > USER_END)
		return -ENOMEM;
	if (!(flags & MAP_ANONYMOUS)) {
		f = fd_get(current->fds, (unsigned int)fd);
		if (!f || (f->flags & O_PATH))
			return -EBADF;
		/* Linux's file_mmap_ok for a file of no type (perf's anonymous
		 * inode): the mapping may end no higher than the last page below
		 * 2^64. (It would wrap a driver's byte offsets.) */
		if ((uint64_t)off > -PAGE_SIZE - size)
			return -EOVERFLOW;
		if (!f->ops->mmap)
			return -ENODEV;
		if ((type != MAP_PRIVATE && (prot & PROT_WRITE) &&
		     (f->flags & O_ACCMODE) == O_RDONLY) || (f->flags & O_ACCMODE) == O_WRONLY)
			return -EACCES;
	}

	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr & (PAGE_SIZE - 1))
			return -EINVAL;
		if (!is_user_range(addr, size))
			return -ENOMEM;
		start = addr;
		if (!range_free(us, start, start + size)) {
			if (flags & MAP_FIXED_NOREPLACE)
				return -EEXIST;
			if (uspace_unmap(us, start, start + size))
				return -ENOMEM;	/* Linux 6.1's mmap_region */
		}
	} else {
		start = ALIGN_DOWN((uint64_t)addr, PAGE_SIZE);
		if (start && start < MMAP_MIN_ADDR)
			start = MMAP_MIN_ADDR;	/* Linux's round_hint_to_min */
		if (!start || !is_user_range(start, size) || !range_free(us, start, start + size))
			start = uspace_find_free(us, size, us->mmap_base);
		if (!start)
			return -ENOMEM;
	}

	struct vma *v = vma_insert(us, start, start + size,
				   (prot & PROT_MASK) | (f ? VM_SPECIAL : VM_ANON) |
				   (type == MAP_PRIVATE ? 0 : VM_SHARED));
	if (!v)
		return -ENOMEM;
	if (f) {
		v->pgoff = off;
		long err = f->ops->mmap(f, v);
		if (err) {
			v->ops = NULL;		/* the driver took nothing */
			uspace_unmap(us, start, start + size);
			return err;
		}
	}
	perf_event_mmap(current, v);	/* PERF_RECORD_MMAP, as mmap_region sends */
	return start;
}

long sys_munmap(long addr, long len)
{
	uint64_t size = ALIGN_UP((uint64_t)len, PAGE_SIZE);

	if ((addr & (PAGE_SIZE - 1)) || !len || !is_user_range(addr, size))
		return -EINVAL;
	return uspace_unmap(current->us, addr, addr + size);
}

long sys_mprotect(long addr, long len, long prot)
{
	uint64_t size = ALIGN_UP((uint64_t)len, PAGE_SIZE);
	uint64_t at[8];
	unsigned old[8], n = 0;

	if ((addr & (PAGE_SIZE - 1)) || (prot & ~PROT_MASK))
		return -EINVAL;
	if (!len)
		return 0;
	if (!size || !is_user_range(addr, size))
		return -ENOMEM;
	/* Linux's mprotect_fixup sends an MMAP record for each VMA whose
	 * protection changes (up to eight here): note where each starts. */
	for (struct vma *v = vma_find(current->us, addr); v && v->start < addr + size &&
	     n < ARRAY_SIZE(at); v = v->next, n++) {
		at[n] = MAX(v->start, (uint64_t)addr);
		old[n] = v->flags & PROT_MASK;
	}
	long err = uspace_protect(current->us, addr, addr + size, prot);
	for (unsigned i = 0; !err && i < n; i++)
		if (old[i] != (unsigned)prot)
			perf_event_mmap(current, vma_find(current->us, at[i]));
	return err;
}

/* RAM files have nothing to write back: msync checks its arguments and the
 * range, as Linux's does, and returns. */
long sys_msync(long addr, long len, long flags)
{
	uint64_t size = ALIGN_UP((uint64_t)len, PAGE_SIZE);

	if ((addr & (PAGE_SIZE - 1)) || (flags & ~(MS_ASYNC | MS_SYNC | MS_INVALIDATE)) ||
	    ((flags & MS_ASYNC) && (flags & MS_SYNC)))
		return -EINVAL;
	if (len < 0 || (uint64_t)addr + size < (uint64_t)addr)
		return -ENOMEM;
	for (uint64_t a = addr; a < addr + size;) {
		struct vma *v = vma_find(current->us, a);
		if (!v)
			return -ENOMEM;
		a = v->end;
	}
	return 0;
}

long sys_madvise(long addr, long len, long advice)
{
	uint64_t size = ALIGN_UP((uint64_t)len, PAGE_SIZE);

	if ((addr & (PAGE_SIZE - 1)) || len < 0)
		return -EINVAL;
	switch (advice) {
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL:
	case MADV_WILLNEED:
	case MADV_DONTNEED:
	case MADV_FREE:
		break;
	default:
		return -EINVAL;
	}
	if (!size)
		return 0;
	if (!is_user_range(addr, size))
		return -ENOMEM;
	if (advice == MADV_DONTNEED || advice == MADV_FREE)
		return uspace_discard(current->us, addr, addr + size);
	return 0;
}

long sys_brk(long addr)
{
	struct uspace *us = current->us;
	uspace_writing(us);	/* the heap's VMA grows in place */
	uint64_t old_top = ALIGN_UP(us->brk, PAGE_SIZE);
	uint64_t new_top = ALIGN_UP((uint64_t)addr, PAGE_SIZE);

	if ((uint64_t)addr < us->brk_start || (uint64_t)addr > USER_END)
		return us->brk;
	if (new_top > old_top) {
		if (!range_free(us, old_top, new_top))
			return us->brk;
		/* Grow the heap's VMA in place, so brk steps keep one VMA. */
		struct vma *v = old_top > us->brk_start ? vma_find(us, old_top - 1) : NULL;
		if (v && v->end == old_top && v->flags == (VM_READ | VM_WRITE | VM_ANON))
			v->end = new_top;
		else if (!(v = vma_insert(us, old_top, new_top, VM_READ | VM_WRITE | VM_ANON)))
			return us->brk;
		us->brk = addr;
		perf_event_mmap(current, v);	/* the heap, as do_brk_flags sends */
		return us->brk;
	} else if (new_top < old_top && uspace_unmap(us, new_top, old_top)) {
		return us->brk;		/* it would cut a mapping that may not be split */
	}
	us->brk = addr;
	return us->brk;
}
