/* Open files and the per-process descriptor table. */
#pragma once
#include "kernel.h"
#include "spinlock.h"
#include <asm-generic/fcntl.h>

struct file;
struct inode;
struct vma;
struct pt_regs;

/* Each op may be NULL: the syscall layer then answers as Linux does for a
 * file that lacks it (EINVAL, ENOTTY, ESPIPE ...). */
struct file_ops {
	long (*read)(struct file *f, char *ubuf, size_t n);
	long (*write)(struct file *f, const char *ubuf, size_t n);
	long (*ioctl)(struct file *f, unsigned cmd, unsigned long arg);
	/* Ready events now (POLLIN ...); waiting is the caller's business. */
	unsigned (*poll)(struct file *f);
	/* A number that changes whenever an event among events arrives (data
	 * written, a timer expiring: the wake-ups of Linux's wait queues, with
	 * their keys), so that epoll's edge-triggered items see a second edge
	 * while readiness stays up. NULL: only rising poll bits are edges. */
	unsigned long (*poll_seq)(struct file *f, unsigned events);
	/* Fill in vma (already inserted, no pages yet) or fail with an errno. */
	long (*mmap)(struct file *f, struct vma *vma);
	long (*lseek)(struct file *f, long off, int whence);
	long (*getdents64)(struct file *f, void *udirent, size_t n);
	/* st_mode and st_size for fstat. */
	void (*stat)(struct file *f, unsigned *mode, long *size);
	void (*release)(struct file *f);
	/* read and ioctl take no kernel lock (kernel_lock.c) and take it
	 * themselves for what needs it: perf's, whose fast paths issue 18
	 * tunes (ioctl: but for the terminal's 'T' commands). */
	bool lockless;
	/* What /proc/PID/fd/N links to when the file has no inode:
	 * "anon_inode:[perf_event]", "/dev/console". */
	const char *name;
};

/* file_new sets ops to flags and zeroes the rest (from inode on). */
struct file {
	const struct file_ops *ops;
	void *priv;
	int refs;		/* descriptors, mappings and lockless readers that hold
				 * it; changed atomically (fd_get_file's readers) */
	unsigned flags;		/* O_ACCMODE, O_NONBLOCK, O_APPEND, O_ASYNC */
	struct inode *inode;	/* the node it was opened on; NULL for perf and anon files */
	struct inode *dir;	/* where inode was found, and its name there (not for */
	char *name;		/* directories: they know their own place) */
	long pos;
	int owner_pid;		/* F_SETOWN */
	int sig;		/* F_SETSIG; 0 means SIGIO */
	int epoll_items;	/* epoll interest lists naming it (epoll.c) */
	uint64_t read_format;	/* a perf event's: read()'s layout (its attr's, or a
				 * persistent reopen's own) */
};

#define NR_FDS 256

struct fd_table {
	struct file *file[NR_FDS];
	uint8_t cloexec[NR_FDS];
	int refs;		/* tasks sharing it (CLONE_FILES) */
	int next_fd;		/* no free descriptor below it (Linux's next_fd) */
	/* file[]'s changes (fd_set_file) against the lookups of readers
	 * without the kernel lock (fd_get_file): a file a slot loses is put
	 * only after they have their reference. */
	struct spinlock lock;
};

/* An empty table / a copy of one (each file one reference more), refs 1. */
struct fd_table *fd_table_new(void);
struct fd_table *fd_table_copy(const struct fd_table *t);
/* One task less uses it: the last one closes everything and frees it. */
void fd_table_put(struct fd_table *t);

struct file *file_new(const struct file_ops *ops, void *priv, unsigned flags);
/* Linux's FMODE_READ and FMODE_WRITE: access mode 3 (an open(2) oddity)
 * and O_PATH files give neither. */
static inline bool file_readable(const struct file *f)
{
	unsigned acc = f->flags & O_ACCMODE;

	return !(f->flags & O_PATH) && (acc == O_RDONLY || acc == O_RDWR);
}
static inline bool file_writable(const struct file *f)
{
	unsigned acc = f->flags & O_ACCMODE;

	return !(f->flags & O_PATH) && (acc == O_WRONLY || acc == O_RDWR);
}
void file_get(struct file *f);
void file_put(struct file *f);
/* The same without the kernel lock: the last reference takes it to
 * release the file. */
void file_put_unlocked(struct file *f);

/* The lowest free descriptor >= min, left free (Linux's get_unused_fd: a
 * syscall that must number its file before making it); -EMFILE if none. */
int fd_unused(struct fd_table *t, int min);
/* Install f at the lowest free descriptor >= min; -EMFILE if none. The table
 * takes over the caller's reference. */
int fd_install(struct fd_table *t, struct file *f, int min, bool cloexec);
/* The file behind fd, or NULL (EBADF). No reference is taken: under the
 * kernel lock, or from the table's only task. */
static inline struct file *fd_get(struct fd_table *t, unsigned int fd)
{
	return fd < NR_FDS ? t->file[fd] : NULL;
}
/* The same with a reference (file_put_unlocked), without the kernel lock
 * while other tasks share t: Linux's fdget on a shared table. */
struct file *fd_get_file(struct fd_table *t, unsigned int fd);
/* Put f in slot fd (NULL: empty it); the old file, whose reference the
 * caller takes over. Kernel lock held. A table no other task shares has
 * no lockless reader but its own task, which is here: its slots change
 * without the lock (open and close keep issue 18's figures). */
struct file *fd_set_file_shared(struct fd_table *t, unsigned int fd, struct file *f);
static inline struct file *fd_set_file(struct fd_table *t, unsigned int fd, struct file *f)
{
	struct file *old = t->file[fd];

	if (likely(t->refs == 1)) {
		t->file[fd] = f;
		return old;
	}
	return fd_set_file_shared(t, fd, f);
}
int fd_close(struct fd_table *t, unsigned int fd);
void fd_close_all(struct fd_table *t);
/* epoll.c: f's last reference is going: it leaves every interest list. */
void epoll_file_released(struct file *f);
/* Open files across all processes (for the accounting file). */
extern long files_open;
/* eventfd and epoll instances alive (eventfd.c, epoll.c). */
extern long eventfds_alive, epolls_alive;
