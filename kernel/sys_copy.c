/* Copies between files inside the kernel: sendfile and copy_file_range,
 * with Linux's checks in its order. The source must be a RAM file (Linux:
 * a file that can splice_read: regular files), and so must the destination
 * here (Linux also splices into pipes, sockets and ttys; a program told
 * EINVAL falls back to read and write, as busybox and coreutils do). */
#include "syscall.h"
#include "fd.h"
#include "task.h"
#include "fs/ramfs.h"
#include "fs/vfs.h"
#include "mm/kmalloc.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>

#define MAX_RW_COUNT	(0x7fffffffl & PAGE_MASK)

static struct file *get(long fd)
{
	return fd_get(current->fds, (unsigned int)fd);
}

static bool is_ram_file(const struct file *f)
{
	return f->ops == &ramfs_file_ops;
}

/* n bytes from in at *ipos to out at *opos, a page at a time; the bytes
 * copied (short at in's end), or an errno if none were. */
static long copy_range(struct file *in, long *ipos, struct file *out, long *opos, size_t n)
{
	char *buf = kmalloc(PAGE_SIZE);
	long done = 0, err = 0;

	if (!buf)
		return -ENOMEM;
	n = MIN(n, (size_t)MAX_RW_COUNT);
	while ((size_t)done < n) {
		long got = ramfs_rw(in->inode, *ipos, buf, MIN(n - done, PAGE_SIZE), 0);
		if (got <= 0) {
			err = got;
			break;
		}
		long put = ramfs_rw(out->inode, *opos, buf, got, RW_WRITE);
		if (put <= 0) {
			err = put;
			break;
		}
		*ipos += put, *opos += put, done += put;
		if (put < got)
			break;
	}
	kfree(buf);
	return done ? done : err;
}

long sys_sendfile(long out_fd, long in_fd, long uoff, long count)
{
	struct file *in = get(in_fd), *out;
	long pos;

	if (!in || !file_readable(in))
		return -EBADF;
	if (uoff) {
		if (get_user(pos, (long *)uoff))
			return -EFAULT;
		if (pos < 0)
			return -EINVAL;
	}
	if (!(out = get(out_fd)) || !file_writable(out))
		return -EBADF;
	if (out->flags & O_APPEND)
		return -EINVAL;
	if (!is_ram_file(in) || !is_ram_file(out))
		return -EINVAL;
	if (!count)
		return 0;
	long r = copy_range(in, uoff ? &pos : &in->pos, out, &out->pos, count);
	if (r > 0 && uoff && put_user(pos, (long *)uoff))
		return -EFAULT;
	return r;
}

long sys_copy_file_range(long in_fd, long uoff_in, long out_fd, long uoff_out, long len,
			 long flags)
{
	struct file *in = get(in_fd), *out = get(out_fd);
	long ipos, opos;

	if (flags)
		return -EINVAL;
	if (!in || !out || !file_readable(in) || !file_writable(out) || (out->flags & O_APPEND))
		return -EBADF;
	if ((uoff_in && get_user(ipos, (long *)uoff_in)) ||
	    (uoff_out && get_user(opos, (long *)uoff_out)))
		return -EFAULT;
	if (!uoff_in)
		ipos = in->pos;
	if (!uoff_out)
		opos = out->pos;
	if (ipos < 0 || opos < 0)
		return -EINVAL;
	if (inode_is_dir(in->inode) || inode_is_dir(out->inode))
		return -EISDIR;
	if (!is_ram_file(in) || !is_ram_file(out))
		return -EINVAL;
	/* The same file: the ranges may not overlap. */
	if (in->inode == out->inode && ipos < opos + len && opos < ipos + len)
		return -EINVAL;
	if (!len)
		return 0;
	long r = copy_range(in, &ipos, out, &opos, len);
	if (r <= 0)
		return r;
	if ((uoff_in && put_user(ipos, (long *)uoff_in)) ||
	    (uoff_out && put_user(opos, (long *)uoff_out)))
		return -EFAULT;
	if (!uoff_in)
		in->pos = ipos;
	if (!uoff_out)
		out->pos = opos;
	return r;
}
