/* Files opened on inodes: regular files of the RAM file system (read,
 * write, seek over page frames, holes reading as zeros) and directories of
 * every file system (getdents64 over the fs's iterate). */
#include "dev.h"
#include "ramfs.h"
#include "vfs.h"
#include "../fd.h"
#include "../lib/string.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include "../mm/uaccess.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/fs.h>
#include <linux/stat.h>


int vfs_open_inode(struct inode *n, unsigned flags, struct file **out)
{
	struct file *f = file_new(n->fops, NULL, flags);

	if (!f)
		return -ENOMEM;
	inode_get(n);
	f->inode = n;
	/* Device nodes open their device, on any file system (Linux's
	 * init_special_inode). */
	int (*open)(struct inode *, struct file *) = S_ISCHR(n->mode) || S_ISBLK(n->mode) ||
		S_ISFIFO(n->mode) || S_ISSOCK(n->mode) ? dev_open : n->ops->open;
	if (open) {
		int err = open(n, f);
		if (err) {
			file_put(f);
			return err;
		}
	}
	if (!f->ops) {			/* a node nothing can be opened on */
		file_put(f);
		return -ENXIO;
	}
	*out = f;
	return 0;
}

int vfs_file_set_path(struct file *f, struct vfs_found *found)
{
	size_t len = strlen(found->name) + 1;

	if (!found->dir)
		return 0;
	if (!(f->name = kmalloc(len)))
		return -ENOMEM;
	memcpy(f->name, found->name, len);
	f->dir = found->dir;
	found->dir = NULL;
	return 0;
}

long vfs_file_path(struct file *f, char *buf, size_t size)
{
	static const char deleted[] = " (deleted)";
	struct inode *n = f->inode;
	long len;

	if (!n)
		return -ENOENT;
	if (n->sb->dname)
		return n->sb->dname(n, buf, size);
	if (inode_is_dir(n) || !f->dir)
		return vfs_path_of(n, buf, size);
	if ((len = vfs_path_of(f->dir, buf, size)) < 0)
		return len;
	size_t nlen = strlen(f->name), at = len - 1 == 1 ? 1 : len;	/* "/" + name */
	bool gone = !n->nlink;
	if (at + nlen + (gone ? sizeof(deleted) - 1 : 0) + 1 > size)
		return -ENAMETOOLONG;
	if (at != 1)
		buf[len - 1] = '/';
	memcpy(buf + at, f->name, nlen + 1);
	if (gone)
		memcpy(buf + at + nlen, deleted, sizeof(deleted));
	return strlen(buf) + 1;
}

/* ---- regular files ---- */

long ramfs_rw(struct inode *in, uint64_t pos, void *buf, size_t n, unsigned how)
{
	bool write = how & RW_WRITE, user = how & RW_USER;
	size_t done = 0;
	long err = 0;

	if (!write) {
		if (pos >= in->size)
			return 0;
		n = MIN(n, in->size - pos);
	} else if (pos + n > (uint64_t)MAX_LFS_FILESIZE || pos + n < pos) {
		return -EFBIG;
	}
	while (done < n) {
		uint64_t at = pos + done, off = at % PAGE_SIZE;
		size_t chunk = MIN(n - done, PAGE_SIZE - off);
		uint64_t phys = ramfs_page(in, at / PAGE_SIZE, write);
		char *page = phys ? (char *)phys_to_virt(phys) + off : NULL;
		char *b = (char *)buf + done;
		if (write && !phys) {
			err = -ENOSPC;		/* tmpfs's answer when memory runs out */
			break;
		}
		if (!user) {
			if (write)
				memcpy(page, b, chunk);
			else if (page)
				memcpy(b, page, chunk);
			else
				memset(b, 0, chunk);
		} else if (write ? copy_from_user(page, b, chunk) :
			   page ? copy_to_user(b, page, chunk) : clear_user(b, chunk)) {
			err = -EFAULT;
			break;
		}
		done += chunk;
	}
	if (!done)
		return n ? err : 0;
	if (write) {
		if (pos + done > in->size)
			in->size = pos + done;
		inode_touch(in, true, true);
	}
	return done;
}

static long file_read(struct file *f, char *ubuf, size_t n)
{
	if (f->pos < 0)
		return 0;
	long r = ramfs_rw(f->inode, f->pos, ubuf, n, RW_USER);
	if (r > 0)
		f->pos += r;
	return r;
}

static long file_write(struct file *f, const char *ubuf, size_t n)
{
	if (f->flags & O_APPEND)
		f->pos = f->inode->size;
	long r = ramfs_rw(f->inode, f->pos, (char *)ubuf, n, RW_USER | RW_WRITE);
	if (r > 0)
		f->pos += r;
	return r;
}

long vfs_llseek(struct file *f, long off, int whence, long size)
{
	long pos;

	switch (whence) {
	case SEEK_SET:
		pos = off;
		break;
	case SEEK_CUR:
		if (__builtin_add_overflow(f->pos, off, &pos))
			return -EINVAL;
		break;
	case SEEK_END:
		if (__builtin_add_overflow(size, off, &pos))
			return -EINVAL;
		break;
	case SEEK_DATA:
	case SEEK_HOLE:
		if (off < 0 || off >= size)
			return -ENXIO;
		pos = whence == SEEK_DATA ? off : size;
		break;
	default:
		return -EINVAL;
	}
	if (pos < 0)
		return -EINVAL;
	return f->pos = pos;
}

static long file_lseek(struct file *f, long off, int whence)
{
	return vfs_llseek(f, off, whence, f->inode->size);
}

const struct file_ops ramfs_file_ops = {
	.read = file_read,
	.write = file_write,
	.lseek = file_lseek,
	.mmap = ramfs_file_mmap,
};

/* ---- directories ---- */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;		/* the position after this entry, for lseek */
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};
static_assert(offsetof(struct linux_dirent64, d_name) == 19, "Linux's layout");

struct dirent_fill {
	char *ubuf;
	size_t left, used;
	long pos;
	int err;
};

static bool fill_dirent(void *ctx, const char *name, size_t len, uint64_t ino,
			unsigned char dtype, long next)
{
	struct dirent_fill *fl = ctx;
	union {
		struct linux_dirent64 de;
		char bytes[ALIGN_UP(sizeof(struct linux_dirent64) + NAME_MAX_LEN + 1, 8)];
	} rec;
	size_t reclen = ALIGN_UP(offsetof(struct linux_dirent64, d_name) + len + 1, 8);

	if (reclen > fl->left) {
		fl->err = -EINVAL;	/* counts only when nothing fitted */
		return false;
	}
	memset(&rec, 0, reclen);
	rec.de.d_ino = ino;
	rec.de.d_off = next;
	rec.de.d_reclen = reclen;
	rec.de.d_type = dtype;
	memcpy(rec.de.d_name, name, len);
	if (copy_to_user(fl->ubuf + fl->used, &rec, reclen)) {
		fl->err = -EFAULT;
		return false;
	}
	fl->used += reclen;
	fl->left -= reclen;
	fl->pos = next;
	return true;
}

static long dir_getdents64(struct file *f, void *ubuf, size_t n)
{
	struct inode *dir = f->inode;
	struct dirent_fill fl = { .ubuf = ubuf, .left = n, .pos = f->pos };

	if (!dir->nlink)
		return -ENOENT;		/* removed (Linux's IS_DEADDIR) */
	int r = dir->ops->iterate(dir, f->pos, fill_dirent, &fl);
	if (r)
		return r;
	f->pos = fl.pos;
	return fl.used ? (long)fl.used : fl.err;	/* Linux keeps what was written */
}

static long dir_read(struct file *f, char *ubuf, size_t n)
{
	return -EISDIR;
}

/* A RAM directory seeks as dcache_dir_lseek does (SEEK_SET and SEEK_CUR
 * only); kernfs and proc directories as generic_file_llseek, size 0. */
static long dir_lseek(struct file *f, long off, int whence)
{
	if (!f->inode->sb->read_only_names && whence != SEEK_SET && whence != SEEK_CUR)
		return -EINVAL;
	return vfs_llseek(f, off, whence, 0);
}

const struct file_ops vfs_dir_file_ops = {
	.read = dir_read,
	.lseek = dir_lseek,
	.getdents64 = dir_getdents64,
};
