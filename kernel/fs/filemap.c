/* mmap of RAM files. A shared mapping maps the file's own frames, so a
 * store through it is in the file and a write() is seen through it; a
 * private one gets a copy of each page at its first touch (Linux shares
 * the page until the first write; a copy at first touch differs only in
 * not seeing later writes to the file, which POSIX leaves unspecified).
 * The mapping holds the file, as Linux's vm_file does. */
#include "ramfs.h"
#include "vfs.h"
#include "../fd.h"
#include "../lib/string.h"
#include "../mm/frames.h"
#include "../mm/paging.h"
#include "../mm/uspace.h"
#include <asm-generic/errno.h>

static struct inode *inode_of(const struct vma *v)
{
	return ((struct file *)v->priv)->inode;
}

static void file_vma_open(struct vma *v)
{
	file_get(v->priv);
	if (v->flags & VM_SHARED)
		inode_of(v)->mmap_shared++;
}

static void file_vma_close(struct vma *v)
{
	if (v->flags & VM_SHARED)
		inode_of(v)->mmap_shared--;
	file_put(v->priv);
}

static int file_vma_fault(struct uspace *us, struct vma *v, uint64_t va, bool write)
{
	struct inode *n = inode_of(v);
	uint64_t pos = v->pgoff + (va - v->start);

	if (pos >= ALIGN_UP(n->size, PAGE_SIZE))
		return -EIO;		/* past the end of the file: SIGBUS */
	if (v->flags & VM_SHARED) {
		uint64_t pa = ramfs_page(n, pos / PAGE_SIZE, true);
		return pa ? uspace_map_frame(us, v, va, pa, true) : -ENOMEM;
	}
	uint64_t copy = frame_alloc();
	if (!copy)
		return -ENOMEM;
	long got = MAX(ramfs_rw(n, pos, phys_to_virt(copy), PAGE_SIZE, 0), 0l);
	memset((char *)phys_to_virt(copy) + got, 0, PAGE_SIZE - got);	/* past the end */
	int err = uspace_map_frame(us, v, va, copy, false);
	if (err)
		frame_free(copy);
	return err;
}

static const struct vma_ops file_vma_ops = {
	.open = file_vma_open,
	.close = file_vma_close,
	.fault = file_vma_fault,
};

long ramfs_file_mmap(struct file *f, struct vma *v)
{
	v->flags = (v->flags & ~VM_SPECIAL) | VM_FILE;
	v->ops = &file_vma_ops;
	v->priv = f;
	file_vma_open(v);
	return 0;
}
