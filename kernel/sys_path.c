/* The path syscalls (open, openat, stat and its kin, access, readlink) and
 * the files they open on the /sys tree: read, pread64, lseek, getdents64.
 * pmuos has one file system, the read-only /sys tree under a root that
 * holds only "sys"; the errors are those of Linux's VFS over kernfs,
 * checked against Linux 6.1 by user/tests/sysfs.c. */
#include "syscall.h"
#include "fd.h"
#include "sysfs.h"
#include "task.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"
#include <asm/stat.h>
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/stat.h>

/* fs/open.c's masks */
#define VALID_OPEN_FLAGS (O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | \
			  O_NONBLOCK | __O_SYNC | O_DSYNC | FASYNC | O_DIRECT | O_LARGEFILE | \
			  O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH | __O_TMPFILE)
#define O_PATH_FLAGS	(O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC)
#define O_TMPFILE_MASK	(__O_TMPFILE | O_DIRECTORY | O_CREAT)
#define O_ACCMODE_NONE	3	/* open(2)'s access mode 3: neither read nor write */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;		/* the position after this entry, for lseek */
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};
static_assert(offsetof(struct linux_dirent64, d_name) == 19, "Linux's layout");

/* An open file's own copy of what it names: it is looked up again at every
 * read, so it always shows the present state. */
struct sysfs_open {
	enum sysfs_kind kind;
	char path[];
};

/* One CPU, and path syscalls never nest: one buffer for the path and one
 * for a file's text serve every call, and leave the heap alone (reading the
 * accounting file does not change what it reports). */
static char path_buf[PATH_MAX];
static char text_buf[SYSFS_FILE_SIZE];

/* ---- the open files ---- */

static long file_read(struct file *f, char *ubuf, size_t n)
{
	struct sysfs_open *o = f->priv;

	if ((f->flags & O_ACCMODE) == O_ACCMODE_NONE)
		return -EBADF;
	long len = sysfs_read_text(o->path, text_buf, sizeof(text_buf));
	if (len < 0)
		return len == -ENOENT ? -ENODEV : len;	/* gone while open: kernfs's answer */
	if (f->pos >= len)
		return 0;
	size_t k = MIN(n, (size_t)(len - f->pos));
	if (copy_to_user(ubuf, text_buf + f->pos, k))
		return -EFAULT;
	f->pos += k;
	return k;
}

static long dir_read(struct file *f, char *ubuf, size_t n)
{
	return -EISDIR;
}

/* generic_file_llseek: files are SYSFS_FILE_SIZE long, directories 0. */
static long sysfs_lseek(struct file *f, long off, int whence)
{
	struct sysfs_open *o = f->priv;
	long size = o->kind == SYSFS_FILE ? SYSFS_FILE_SIZE : 0, pos;

	switch (whence) {
	case SEEK_SET:
		pos = off;
		break;
	case SEEK_CUR:
		if (!off)
			return f->pos;
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

struct dirent_fill {
	char *ubuf;
	size_t left, used;
	long pos;
	int err;
};

static bool fill_dirent(void *ctx, const struct sysfs_dirent *d, long next)
{
	struct dirent_fill *fl = ctx;
	union {
		struct linux_dirent64 de;
		char bytes[ALIGN_UP(sizeof(struct linux_dirent64) + SYSFS_NAME_MAX, 8)];
	} rec = { 0 };
	size_t len = strlen(d->name);
	size_t reclen = ALIGN_UP(offsetof(struct linux_dirent64, d_name) + len + 1, 8);

	if (reclen > fl->left) {
		fl->err = -EINVAL;	/* counts only when nothing fitted */
		return false;
	}
	rec.de.d_ino = d->ino;
	rec.de.d_off = next;
	rec.de.d_reclen = reclen;
	rec.de.d_type = d->type;
	memcpy(rec.de.d_name, d->name, len + 1);
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
	struct sysfs_open *o = f->priv;
	struct dirent_fill fl = { .ubuf = ubuf, .left = n, .pos = f->pos };
	int r = sysfs_iterate(o->path, f->pos, fill_dirent, &fl);

	if (r)
		return r;
	f->pos = fl.pos;
	return fl.used ? (long)fl.used : fl.err;	/* Linux keeps what was written */
}

static void sysfs_stat(struct file *f, unsigned *mode, long *size)
{
	struct sysfs_open *o = f->priv;

	*mode = o->kind == SYSFS_DIR ? S_IFDIR | 0755 : o->kind == SYSFS_LINK ? S_IFLNK | 0777 :
		S_IFREG | 0444;
	*size = o->kind == SYSFS_FILE ? SYSFS_FILE_SIZE : 0;
}

static void sysfs_release(struct file *f)
{
	kfree(f->priv);
}

/* O_PATH: the descriptor names a node and nothing more. */
static long path_read(struct file *f, char *ubuf, size_t n)
{
	return -EBADF;
}

static long path_lseek(struct file *f, long off, int whence)
{
	return -EBADF;
}

static long path_getdents64(struct file *f, void *ubuf, size_t n)
{
	return -EBADF;
}

static const struct file_ops file_ops = {
	.read = file_read,
	.lseek = sysfs_lseek,
	.stat = sysfs_stat,
	.release = sysfs_release,
};

static const struct file_ops dir_ops = {
	.read = dir_read,
	.lseek = sysfs_lseek,
	.getdents64 = dir_getdents64,
	.stat = sysfs_stat,
	.release = sysfs_release,
};

static const struct file_ops path_ops = {
	.read = path_read,
	.lseek = path_lseek,
	.getdents64 = path_getdents64,
	.stat = sysfs_stat,
	.release = sysfs_release,
};

static struct sysfs_open *sysfs_of(struct file *f)
{
	bool ours = f && (f->ops == &file_ops || f->ops == &dir_ops || f->ops == &path_ops);

	return ours ? f->priv : NULL;
}

static struct file *open_node(const struct sysfs_lookup *res, unsigned flags,
			      const struct file_ops *ops)
{
	size_t len = strlen(res->path) + 1;
	struct sysfs_open *o = kmalloc(sizeof(*o) + len);
	struct file *f;

	if (!o)
		return NULL;
	o->kind = res->kind;
	memcpy(o->path, res->path, len);
	f = file_new(ops, o, flags);
	if (!f)
		kfree(o);
	return f;
}

/* ---- paths ---- */

/* The user's path into path_buf; "" is ENOENT unless empty_ok. */
static long get_path(long upath, bool empty_ok)
{
	long r = strncpy_from_user(path_buf, (const char *)upath, sizeof(path_buf));

	if (r < 0)
		return r;
	return !r && !empty_ok ? -ENOENT : 0;
}

/* Where a relative path starts: "/" for AT_FDCWD (pmuos has no chdir, and
 * Linux runs the tests from "/"), else the directory dirfd names. */
static long start_dir(int dirfd, const char *path, const char **base)
{
	*base = "/";
	if (path[0] == '/' || dirfd == AT_FDCWD)
		return 0;
	struct file *f = fd_get(&current->fds, dirfd);
	if (!f)
		return -EBADF;
	struct sysfs_open *o = sysfs_of(f);
	if (!o || o->kind != SYSFS_DIR)
		return -ENOTDIR;
	*base = o->path;
	return 0;
}

/* Look path_buf up from dirfd. With empty_path (AT_EMPTY_PATH and ""), the
 * node is dirfd's own; -ENOENT when dirfd is not a sysfs file. */
static long lookup_at(int dirfd, bool empty_path, bool follow, struct sysfs_lookup *res)
{
	const char *base;

	if (empty_path) {
		if (dirfd == AT_FDCWD)
			return sysfs_lookup(NULL, "/", false, res);
		struct file *f = fd_get(&current->fds, dirfd);
		if (!f)
			return -EBADF;
		struct sysfs_open *o = sysfs_of(f);
		return o ? sysfs_lookup(NULL, o->path, false, res) : -ENOENT;
	}
	long r = start_dir(dirfd, path_buf, &base);
	return r ? r : sysfs_lookup(base, path_buf, follow, res);
}

static bool fd_table_full(void)
{
	for (int fd = 0; fd < NR_FDS; fd++)
		if (!current->fds.file[fd])
			return false;
	return true;
}

/* fs/open.c's do_sys_openat2 over kernfs, in Linux's order of checks. */
long sys_openat(long dirfd, long upath, long flags_arg, long mode)
{
	int flags = ((int)flags_arg | O_LARGEFILE) & VALID_OPEN_FLAGS;
	struct sysfs_lookup res;
	struct file *f;

	if (flags & O_PATH)
		flags &= O_PATH_FLAGS;
	int acc = flags & O_ACCMODE;
	bool cloexec = flags & O_CLOEXEC;
	bool may_write = !(flags & O_PATH) && (acc != O_RDONLY || (flags & O_TRUNC));
	bool excl = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
	if ((flags & __O_TMPFILE) && ((flags & O_TMPFILE_MASK) != O_TMPFILE || acc == O_RDONLY))
		return -EINVAL;
	long r = get_path(upath, false);
	if (r)
		return r;
	if (fd_table_full())
		return -EMFILE;
	r = lookup_at(dirfd, false, !(flags & O_NOFOLLOW) && !excl, &res);
	if (flags & __O_TMPFILE)	/* kernfs cannot make unnamed files */
		return r ? r : res.kind == SYSFS_DIR ? -EOPNOTSUPP : -ENOTDIR;
	if (flags & O_CREAT) {
		if (r && !res.parent_found)
			return r;
		if (res.parent_found && res.trailing_slash && !res.last_dots)
			return -EISDIR;
		if (r == -ENOENT)
			return -EACCES;		/* kernfs has no create(): the VFS says EACCES */
		if (r)
			return r;
		if (excl)
			return -EEXIST;
		if (res.kind == SYSFS_DIR)
			return -EISDIR;
	} else if (r) {
		return r;
	}
	if ((flags & O_DIRECTORY) && res.kind != SYSFS_DIR)
		return -ENOTDIR;
	if (res.kind == SYSFS_LINK && !(flags & O_PATH))
		return -ELOOP;			/* O_NOFOLLOW met a link */
	if (!(flags & O_PATH)) {
		if (res.kind == SYSFS_DIR && may_write)
			return -EISDIR;
		/* kernfs's open: a file without a store method refuses writers,
		 * root included. */
		if (res.kind == SYSFS_FILE && (acc == O_WRONLY || acc == O_RDWR))
			return -EACCES;
		if (flags & O_DIRECT)
			return -EINVAL;
	}
	flags &= ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC);
	f = open_node(&res, flags, flags & O_PATH ? &path_ops :
		      res.kind == SYSFS_DIR ? &dir_ops : &file_ops);
	if (!f)
		return -ENOMEM;
	return fd_install(&current->fds, f, 0, cloexec);
}

long sys_open(long upath, long flags, long mode)
{
	return sys_openat(AT_FDCWD, upath, flags, mode);
}

long sys_pread64(long fd, long ubuf, long n, long pos)
{
	struct file *f = fd_get(&current->fds, (unsigned int)fd);

	if (pos < 0)
		return -EINVAL;
	if (!f)
		return -EBADF;
	if (!f->ops->lseek)
		return -ESPIPE;			/* Linux's FMODE_PREAD: seekable files */
	long saved = f->pos;
	f->pos = pos;
	long r = sys_read(fd, ubuf, n);
	f->pos = saved;
	return r;
}

long sys_getdents64(long fd, long ubuf, long n)
{
	struct file *f = fd_get(&current->fds, (unsigned int)fd);

	if (!f)
		return -EBADF;
	if (!f->ops->getdents64)
		return -ENOTDIR;
	return f->ops->getdents64(f, (void *)ubuf, (unsigned)n);
}

/* ---- stat, access, readlink ---- */

long sys_newfstatat(long dirfd, long upath, long ustat, long flags)
{
	struct sysfs_lookup res;
	struct stat st = { 0 };

	long r = get_path(upath, flags & AT_EMPTY_PATH);
	if (r)
		return r;
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	bool empty = !path_buf[0];
	/* Any descriptor, not only ours: that is fstat. */
	if (empty && (int)dirfd != AT_FDCWD && !sysfs_of(fd_get(&current->fds, (int)dirfd)))
		return sys_fstat(dirfd, ustat);
	r = lookup_at(dirfd, empty, !(flags & AT_SYMLINK_NOFOLLOW), &res);
	if (r)
		return r;
	st.st_dev = SYSFS_ST_DEV;
	st.st_ino = res.ino;
	st.st_mode = res.mode;
	st.st_nlink = res.nlink;
	st.st_size = res.size;
	st.st_blksize = SYSFS_FILE_SIZE;
	return copy_to_user((void *)ustat, &st, sizeof(st)) ? -EFAULT : 0;
}

long sys_stat(long upath, long ustat)
{
	return sys_newfstatat(AT_FDCWD, upath, ustat, 0);
}

long sys_lstat(long upath, long ustat)
{
	return sys_newfstatat(AT_FDCWD, upath, ustat, AT_SYMLINK_NOFOLLOW);
}

/* Every caller is root: only X_OK can fail, on a file with no x bit. */
long sys_faccessat2(long dirfd, long upath, long mode, long flags)
{
	struct sysfs_lookup res;

	if (mode & ~(long)S_IRWXO)
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	long r = get_path(upath, flags & AT_EMPTY_PATH);
	if (r)
		return r;
	r = lookup_at(dirfd, !path_buf[0], !(flags & AT_SYMLINK_NOFOLLOW), &res);
	if (r)
		return r;
	return (mode & S_IXOTH) && res.kind == SYSFS_FILE ? -EACCES : 0;
}

long sys_faccessat(long dirfd, long upath, long mode)
{
	return sys_faccessat2(dirfd, upath, mode, 0);
}

long sys_access(long upath, long mode)
{
	return sys_faccessat2(AT_FDCWD, upath, mode, 0);
}

long sys_readlinkat(long dirfd, long upath, long ubuf, long bufsiz)
{
	struct sysfs_lookup res;

	if ((int)bufsiz <= 0)
		return -EINVAL;
	long r = get_path(upath, true);	/* "" reads the link an O_PATH fd names */
	if (r)
		return r;
	bool empty = !path_buf[0];
	r = lookup_at(dirfd, empty, false, &res);
	if (r)
		return r;
	if (res.kind != SYSFS_LINK)
		return empty ? -ENOENT : -EINVAL;
	long len = sysfs_read_text(res.path, text_buf, sizeof(text_buf));
	if (len < 0)
		return len;
	len = MIN(len, (long)(int)bufsiz);
	return copy_to_user((void *)ubuf, text_buf, len) ? -EFAULT : len;
}

long sys_readlink(long upath, long ubuf, long bufsiz)
{
	return sys_readlinkat(AT_FDCWD, upath, ubuf, bufsiz);
}
