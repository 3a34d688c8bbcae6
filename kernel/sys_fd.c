/* Descriptor syscalls: read, write and their vectors, close, dup, fcntl,
 * ioctl, lseek. Errors as Linux's fs/ gives them. */
#include "syscall.h"
#include "entry_work.h"
#include "fd.h"
#include "kernel_lock.h"
#include "pipe.h"
#include "task.h"
#include "tsc.h"
#include "x86.h"
#include "fs/vfs.h"
#include "mm/kmalloc.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include <asm/ioctls.h>
#include <asm/stat.h>
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/time_types.h>
#include <linux/uio.h>

#define MAX_RW_COUNT	(0x7fffffffl & PAGE_MASK)
#define O_ASYNC		FASYNC
#define SETFL_MASK	(O_APPEND | O_NONBLOCK | O_ASYNC | O_DIRECT | O_NOATIME)

/* Linux takes descriptors as unsigned int: the upper half is ignored. */
static struct file *get(long fd)
{
	return fd_get(current->fds, (unsigned int)fd);
}

/* read and ioctl while the kernel lock is on (syscall.c's entries for them
 * then): a file whose ops need no kernel lock (a perf event's,
 * file_ops.lockless) is used without it; any other takes the lock. While
 * the descriptor table is the caller's alone no other task can close the
 * file meanwhile, so no reference is taken (ref false); while threads share
 * it, the call holds one (fd_get_file), as Linux's fdget. */
static struct file *get_lockless(long fd, bool *ref)
{
	struct fd_table *t = current->fds;

	*ref = READ_ONCE(t->refs) > 1;	/* only this task makes it more */
	return *ref ? fd_get_file(t, (unsigned int)fd) : get(fd);
}

static void put_lockless(struct file *f, bool ref)
{
	if (ref && f)
		file_put_unlocked(f);
}

long sys_read_lockless(long fd, long ubuf, long n)
{
	bool ref;
	struct file *f = get_lockless(fd, &ref);
	long ret;

	if (f && f->ops->lockless && file_readable(f) && is_user_range(ubuf, n)) {
		ret = f->ops->read(f, (char *)ubuf, MIN((size_t)n, (size_t)MAX_RW_COUNT));
	} else {
		kernel_lock();
		ret = sys_read(fd, ubuf, n);
		kernel_unlock();
	}
	put_lockless(f, ref);
	return ret;
}

long sys_ioctl_lockless(long fd, long cmd, long arg)
{
	bool ref;
	struct file *f = get_lockless(fd, &ref);
	unsigned c = cmd;
	long ret;

	if (f && f->ops->lockless && !(f->flags & O_PATH) && _IOC_TYPE(c) != 'T') {
		ret = f->ops->ioctl(f, c, arg);
	} else {
		kernel_lock();
		ret = sys_ioctl(fd, cmd, arg);
		kernel_unlock();
	}
	put_lockless(f, ref);
	return ret;
}

long sys_read(long fd, long ubuf, long n)
{
	struct file *f = get(fd);

	if (!f || !file_readable(f))
		return -EBADF;
	if (!f->ops->read)
		return -EINVAL;
	if (!is_user_range(ubuf, n))
		return -EFAULT;
	return f->ops->read(f, (char *)ubuf, MIN((size_t)n, (size_t)MAX_RW_COUNT));
}

long sys_write(long fd, long ubuf, long n)
{
	struct file *f = get(fd);

	if (!f || !file_writable(f))
		return -EBADF;
	if (!f->ops->write)
		return -EINVAL;
	if (!is_user_range(ubuf, n))
		return -EFAULT;
	return f->ops->write(f, (const char *)ubuf, MIN((size_t)n, (size_t)MAX_RW_COUNT));
}

static long rw_vector(long fd, long uiov, long iovcnt, bool write)
{
	struct iovec iov[UIO_MAXIOV / 64];	/* copied in chunks */
	long total = 0;

	if (!get(fd))
		return -EBADF;
	if (iovcnt < 0 || iovcnt > UIO_MAXIOV)
		return -EINVAL;
	for (long done = 0; done < iovcnt;) {
		long n = MIN(iovcnt - done, (long)ARRAY_SIZE(iov));
		if (copy_from_user(iov, (struct iovec *)uiov + done, n * sizeof(*iov)))
			return total ? total : -EFAULT;
		for (long i = 0; i < n; i++) {
			if ((long)iov[i].iov_len < 0)
				return total ? total : -EINVAL;
			if (!iov[i].iov_len)
				continue;
			long r = write ? sys_write(fd, (long)iov[i].iov_base, iov[i].iov_len)
				       : sys_read(fd, (long)iov[i].iov_base, iov[i].iov_len);
			if (r < 0)
				return total ? total : r;
			total += r;
			if ((size_t)r < iov[i].iov_len)
				return total;
		}
		done += n;
	}
	return total;
}

long sys_readv(long fd, long uiov, long iovcnt)
{
	return rw_vector(fd, uiov, iovcnt, false);
}

long sys_writev(long fd, long uiov, long iovcnt)
{
	return rw_vector(fd, uiov, iovcnt, true);
}

long sys_close(long fd)
{
	return fd_close(current->fds, (unsigned int)fd);
}

static long dup_to(struct file *f, long newfd, bool cloexec)
{
	struct fd_table *t = current->fds;

	if (newfd >= NR_FDS)
		return -EBADF;
	file_get(f);
	if (t->file[newfd])
		fd_close(t, newfd);
	fd_set_file(t, newfd, f);
	t->cloexec[newfd] = cloexec;
	return newfd;
}

long sys_dup(long fd)
{
	struct file *f = get(fd);

	if (!f)
		return -EBADF;
	file_get(f);
	int r = fd_install(current->fds, f, 0, false);
	if (r < 0)
		file_put(f);
	return r;
}

long sys_dup2(long fd, long newfd)
{
	fd = (unsigned int)fd, newfd = (unsigned int)newfd;
	struct file *f = get(fd);

	if (!f)
		return -EBADF;
	return fd == newfd ? fd : dup_to(f, newfd, false);
}

long sys_dup3(long fd, long newfd, long flags)
{
	fd = (unsigned int)fd, newfd = (unsigned int)newfd;
	struct file *f = get(fd);

	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (fd == newfd)
		return -EINVAL;
	if (!f)
		return -EBADF;
	return dup_to(f, newfd, flags & O_CLOEXEC);
}

long sys_fcntl(long fd, long cmd, long arg)
{
	fd = (unsigned int)fd;
	struct file *f = get(fd);
	struct fd_table *t = current->fds;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC: {
		if (arg < 0 || arg >= NR_FDS)
			return -EINVAL;
		file_get(f);
		int r = fd_install(t, f, arg, cmd == F_DUPFD_CLOEXEC);
		if (r < 0)
			file_put(f);
		return r;
	}
	case F_GETFD:
		return t->cloexec[fd] ? FD_CLOEXEC : 0;
	case F_SETFD:
		t->cloexec[fd] = arg & FD_CLOEXEC;
		return 0;
	case F_GETFL:
		return f->flags;
	case F_SETFL:
		f->flags = (f->flags & ~SETFL_MASK) | (arg & SETFL_MASK);
		return 0;
	case F_GETOWN:
		return f->owner_pid;
	case F_SETOWN: {
		/* Linux's f_setown: an int, negative for a process group (the
		 * task is its own here), and it must name one that exists. */
		int who = (int)arg;
		if (who == INT32_MIN)
			return -EINVAL;
		if (who && (who < 0 ? -who : who) != current->pid)
			return -ESRCH;
		f->owner_pid = who;
		return 0;
	}
	case F_GETSIG:
		return f->sig;
	case F_SETSIG:
		if (arg < 0 || arg > 64)
			return -EINVAL;
		f->sig = arg;
		return 0;
	case F_GETPIPE_SZ:
	case F_SETPIPE_SZ:
		return pipe_fcntl(f, cmd, arg);
	default:
		return -EINVAL;
	}
}

static long file_ioctl(struct file *f, unsigned c, long arg)
{
	return f->ops->ioctl ? f->ops->ioctl(f, c, arg) : -ENOTTY;
}

/* The ioctls every file answers (fs/ioctl.c do_vfs_ioctl), then the
 * file's own. */
static __attribute__((noinline)) long vfs_ioctl(struct file *f, unsigned fd, unsigned c, long arg)
{
	int on;

	switch (c) {
	case FIOCLEX:
	case FIONCLEX:
		current->fds->cloexec[fd] = c == FIOCLEX;
		return 0;
	case FIONBIO:
	case FIOASYNC:
		if (get_user(on, (int *)arg))
			return -EFAULT;
		unsigned bit = c == FIONBIO ? O_NONBLOCK : O_ASYNC;
		f->flags = on ? f->flags | bit : f->flags & ~bit;
		return 0;
	case FIONREAD:		/* a regular file: the bytes past the position */
		if (f->inode && inode_is_reg(f->inode))
			return put_user((int)((long)f->inode->size - f->pos), (int *)arg) ?
			       -EFAULT : 0;
		break;
	}
	return file_ioctl(f, c, arg);
}

long sys_ioctl(long fd, long cmd, long arg)
{
	fd = (unsigned int)fd;
	struct file *f = get(fd);
	unsigned c = cmd;

	if (!f || (f->flags & O_PATH))
		return -EBADF;
	/* Those are all of type 'T' (0x54), as the terminal's own. */
	if (unlikely(_IOC_TYPE(c) == 'T'))
		return vfs_ioctl(f, fd, c, arg);
	return file_ioctl(f, c, arg);
}

long sys_lseek(long fd, long off, long whence)
{
	struct file *f = get(fd);

	if (!f)
		return -EBADF;
	if (!f->ops->lseek)
		return -ESPIPE;
	if (whence < SEEK_SET || whence > SEEK_HOLE)
		return -EINVAL;
	return f->ops->lseek(f, off, whence);
}
