/* Open files (reference-counted) and the per-process descriptor table. */
#include "fd.h"
#include "panic.h"
#include "fs/vfs.h"
#include "mm/kmalloc.h"
#include "mm/pool.h"
#include <asm-generic/errno.h>

long files_open;

/* Files come from a pool first: an open and close in a loop make and give
 * back no slab each time. */
POOL_DEFINE(file_pool, struct file, 64);

struct file *file_new(const struct file_ops *ops, void *priv, unsigned flags)
{
	struct file *f = pool_zalloc(&file_pool);

	if (!f)
		f = kzalloc(sizeof(*f));

	if (!f)
		return NULL;
	f->ops = ops;
	f->priv = priv;
	f->refs = 1;
	f->flags = flags;
	files_open++;
	return f;
}

void file_get(struct file *f)
{
	f->refs++;
}

void file_put(struct file *f)
{
	assert(f->refs > 0);
	if (--f->refs)
		return;
	if (f->ops->release)
		f->ops->release(f);
	if (f->inode)
		inode_put(f->inode);
	if (f->dir)
		inode_put(f->dir);
	kfree(f->name);
	files_open--;
	if (!pool_free(&file_pool, f))
		kfree(f);
}

int fd_install(struct fd_table *t, struct file *f, int min, bool cloexec)
{
	for (int fd = min < 0 ? 0 : min; fd < NR_FDS; fd++) {
		if (!t->file[fd]) {
			t->file[fd] = f;
			t->cloexec[fd] = cloexec;
			return fd;
		}
	}
	return -EMFILE;
}

int fd_close(struct fd_table *t, unsigned int fd)
{
	struct file *f = fd_get(t, fd);

	if (!f)
		return -EBADF;
	t->file[fd] = NULL;
	file_put(f);
	return 0;
}

void fd_close_all(struct fd_table *t)
{
	for (unsigned int fd = 0; fd < NR_FDS; fd++)
		if (t->file[fd])
			fd_close(t, fd);
}
