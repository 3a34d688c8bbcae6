/* Open files (reference-counted) and the per-process descriptor table. */
#include "fd.h"
#include "kernel_lock.h"
#include "panic.h"
#include "fs/vfs.h"
#include "mm/kmalloc.h"
#include "mm/pool.h"
#include <asm-generic/errno.h>

long files_open;

/* Files come from a pool first: an open and close in a loop make and give
 * back no slab each time. */
POOL_DEFINE(file_pool, struct file, 64);

static_assert(offsetof(struct file, inode) == sizeof(void *) * 2 + sizeof(int) * 2,
	      "file_new's fields first, nothing else among them");

struct file *file_new(const struct file_ops *ops, void *priv, unsigned flags)
{
	struct file *f = pool_alloc(&file_pool);

	if (!f && !(f = kmalloc(sizeof(*f))))
		return NULL;
	f->ops = ops;
	f->priv = priv;
	f->refs = 1;
	f->flags = flags;
	/* The rest, in 8-byte stores: pool and kmalloc objects are aligned. */
	__builtin_memset(__builtin_assume_aligned(&f->inode, 8), 0,
			 sizeof(*f) - offsetof(struct file, inode));
	files_open++;
	return f;
}

void file_get(struct file *f)
{
	__atomic_fetch_add(&f->refs, 1, __ATOMIC_RELAXED);
}

static void release(struct file *f)
{
	if (f->epoll_items)
		epoll_file_released(f);
	if (f->ops->release)
		f->ops->release(f);
	if (f->inode)
		inode_put(f->inode);
	if (f->dir)
		inode_put(f->dir);
	if (f->name)
		kfree(f->name);
	files_open--;
	if (!pool_free(&file_pool, f))
		kfree(f);
}

/* Acquire: the last holder sees every other holder's use of f. */
static bool put_last(struct file *f)
{
	int left = __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL);

	assert(left >= 0);
	return !left;
}

void file_put(struct file *f)
{
	if (put_last(f))
		release(f);
}

void file_put_unlocked(struct file *f)
{
	if (!put_last(f))
		return;
	kernel_lock();
	release(f);
	kernel_unlock();
}

struct file *fd_get_file(struct fd_table *t, unsigned int fd)
{
	if (fd >= NR_FDS)
		return NULL;
	uint64_t flags = spin_lock_irqsave(&t->lock);
	struct file *f = t->file[fd];
	if (f)
		file_get(f);
	spin_unlock_irqrestore(&t->lock, flags);
	return f;
}

struct file *fd_set_file_shared(struct fd_table *t, unsigned int fd, struct file *f)
{
	uint64_t flags = spin_lock_irqsave(&t->lock);
	struct file *old = t->file[fd];

	t->file[fd] = f;
	spin_unlock_irqrestore(&t->lock, flags);
	return old;
}

int fd_unused(struct fd_table *t, int min)
{
	int from = MAX(min, t->next_fd);

	for (int fd = from; fd < NR_FDS; fd++) {
		if (!t->file[fd]) {
			if (min <= t->next_fd)
				t->next_fd = fd;	/* every one below is taken */
			return fd;
		}
	}
	return -EMFILE;
}

int fd_install(struct fd_table *t, struct file *f, int min, bool cloexec)
{
	int fd = fd_unused(t, min);

	assert(f);
	if (fd >= 0) {
		fd_set_file(t, fd, f);
		t->cloexec[fd] = cloexec;
	}
	return fd;
}

int fd_close(struct fd_table *t, unsigned int fd)
{
	struct file *f = fd_get(t, fd);

	if (!f)
		return -EBADF;
	fd_set_file(t, fd, NULL);
	if ((int)fd < t->next_fd)
		t->next_fd = fd;
	file_put(f);
	return 0;
}

void fd_close_all(struct fd_table *t)
{
	for (unsigned int fd = 0; fd < NR_FDS; fd++)
		if (t->file[fd])
			fd_close(t, fd);
}

struct fd_table *fd_table_new(void)
{
	struct fd_table *t = kzalloc(sizeof(*t));

	if (t) {
		t->refs = 1;
		t->lock = (struct spinlock)SPINLOCK_INIT("descriptor table");
	}
	return t;
}

struct fd_table *fd_table_copy(const struct fd_table *src)
{
	struct fd_table *t = fd_table_new();

	if (!t)
		return NULL;
	for (int fd = 0; fd < NR_FDS; fd++) {
		if ((t->file[fd] = src->file[fd]))
			file_get(t->file[fd]);
		t->cloexec[fd] = src->cloexec[fd];
	}
	return t;
}

void fd_table_put(struct fd_table *t)
{
	assert(t->refs > 0);
	if (--t->refs)
		return;
	fd_close_all(t);
	kfree(t);
}
