/* Opening files (open, openat, creat, O_TMPFILE, O_PATH), positional and
 * vectored I/O, truncation, sync, the working directory and the umask:
 * Linux's fs/open.c and fs/namei.c checks, in their order. */
#include "syscall.h"
#include "fd.h"
#include "task.h"
#include "fs/ramfs.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/stat.h>
#include <linux/uio.h>

/* fs/open.c's masks */
#define VALID_OPEN_FLAGS (O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | \
			  O_NONBLOCK | __O_SYNC | O_DSYNC | FASYNC | O_DIRECT | O_LARGEFILE | \
			  O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH | __O_TMPFILE)
#define O_PATH_FLAGS	(O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC)
#define O_TMPFILE_MASK	(__O_TMPFILE | O_DIRECTORY | O_CREAT)

static struct file *get(long fd)
{
	return fd_get(current->fds, (unsigned int)fd);
}

/* O_PATH: the descriptor names a node and nothing more. */
static long path_read(struct file *f, char *ubuf, size_t n)
{
	return -EBADF;
}

static long path_write(struct file *f, const char *ubuf, size_t n)
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

static const struct file_ops path_ops = {
	.read = path_read,
	.write = path_write,
	.lseek = path_lseek,
	.getdents64 = path_getdents64,
};

static bool fd_table_full(void)
{
	for (int fd = 0; fd < NR_FDS; fd++)
		if (!current->fds->file[fd])
			return false;
	return true;
}

/* The node an O_CREAT open names from start, made if missing (created:
 * true). A link in the last component is followed (but for O_NOFOLLOW),
 * and a dangling one makes its target, as Linux's open does; links counts
 * those followed, for ELOOP. */
static int open_create(struct inode *start, const char *path, int flags, unsigned mode,
		       struct inode **out, bool *created, struct vfs_found *found, int links)
{
	struct nameidata nd;
	struct inode *n;
	int err = vfs_walk_parent(start, path, &nd);

	if (err)
		return err;
	*created = false;
	if (found->dir)
		inode_put(found->dir);
	found->dir = nd.dir;		/* unless a link leads elsewhere */
	inode_get(nd.dir);
	memcpy(found->name, nd.last, MIN(nd.len, (size_t)NAME_MAX_LEN));
	found->name[MIN(nd.len, (size_t)NAME_MAX_LEN)] = '\0';
	if (nd.type != LAST_NORM) {
		err = -EISDIR;
	} else if (nd.len > NAME_MAX_LEN) {
		err = -ENAMETOOLONG;
	} else if (!(err = vfs_child(nd.dir, nd.last, nd.len, &n))) {
		if ((flags & O_EXCL))
			err = -EEXIST;
		else if (inode_is_dir(n))
			err = -EISDIR;
		else if (inode_is_link(n) && !(flags & O_NOFOLLOW)) {
			struct inode *t;
			err = vfs_walk_found(nd.dir, found->name, LOOKUP_FOLLOW, &t, found);
			char *target = err == -ENOENT ? path_alloc() : NULL;
			long len = target ? n->ops->readlink(n, target, PATH_MAX_LEN - 1) : 0;
			if (target && len > 0 && links < MAXSYMLINKS) {
				target[len] = '\0';
				err = open_create(nd.dir, target, flags, mode, &t, created, found,
						  links + 1);
			} else if (target) {
				err = len > 0 ? -ELOOP : -ENOENT;
			}
			path_free(target);
			if (!err) {
				inode_put(n);
				n = t;
			}
		}
		if (err)
			inode_put(n);
		else
			*out = n;
	} else if (err == -ENOENT && !nd.dir->sb->lookup_final) {
		if (nd.trailing_slash)
			err = -EISDIR;
		else if (!nd.dir->nlink)
			err = -ENOENT;
		else if (!nd.dir->ops->create)
			err = -EACCES;	/* no create(): the VFS says EACCES */
		else if (!(err = nd.dir->ops->create(nd.dir, nd.last, nd.len,
						     S_IFREG | (mode & ~current->umask & 07777),
						     0, NULL, out)))
			*created = true;
	}
	inode_put(nd.dir);
	return err;
}

static int open_tmpfile(int dirfd, const char *path, unsigned mode, struct inode **out)
{
	struct inode *dir;
	int err = vfs_lookup_at(dirfd, path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &dir);

	if (err)
		return err;
	if (!dir->ops->create || dir->sb->read_only_names) {
		inode_put(dir);
		return -EOPNOTSUPP;
	}
	struct inode *n = ramfs_new_inode(dir->sb, S_IFREG | (mode & ~current->umask & 07777));
	inode_put(dir);
	if (!n)
		return -ENOMEM;
	n->nlink = 0;			/* unnamed: gone with its last reference */
	*out = n;
	return 0;
}

long do_open(int dirfd, const char *path, int flags, unsigned mode)
{
	struct vfs_found found = { 0 };
	struct inode *n;
	struct file *f = NULL;
	bool created = false;
	int err;

	if (flags & O_PATH)
		flags &= O_PATH_FLAGS;
	else
		flags |= O_LARGEFILE;	/* what F_GETFL shows, O_PATH files aside */
	int acc = flags & O_ACCMODE;
	bool may_write = !(flags & O_PATH) && (acc != O_RDONLY || (flags & O_TRUNC));
	if ((flags & __O_TMPFILE) && ((flags & O_TMPFILE_MASK) != O_TMPFILE || acc == O_RDONLY))
		return -EINVAL;
	/* Linux 6.4's rule, in Debian's 6.1 too: no creating "a directory". */
	if ((flags & (O_CREAT | __O_TMPFILE)) == O_CREAT && (flags & O_DIRECTORY))
		return -EINVAL;
	if (fd_table_full())
		return -EMFILE;
	if (flags & __O_TMPFILE) {
		err = open_tmpfile(dirfd, path, mode, &n);
	} else if (flags & O_CREAT) {
		struct inode *start;
		if (!(err = vfs_start(dirfd, path, &start))) {
			err = open_create(start, path, flags, mode, &n, &created, &found, 0);
			inode_put(start);
		}
	} else
		err = vfs_lookup_found(dirfd, path, (flags & O_NOFOLLOW ? 0 : LOOKUP_FOLLOW) |
				       (flags & O_DIRECTORY ? LOOKUP_DIRECTORY : 0), &n, &found);
	if (err) {
		if (found.dir)
			inode_put(found.dir);
		return err;
	}
	if (inode_is_link(n) && !(flags & O_PATH))
		err = -ELOOP;			/* O_NOFOLLOW met a link */
	else if ((flags & O_DIRECTORY) && !inode_is_dir(n))
		err = -ENOTDIR;
	else if (!(flags & O_PATH) && inode_is_dir(n) && may_write)
		err = -EISDIR;
	else if (!(flags & O_PATH) && (flags & O_DIRECT) && inode_is_reg(n))
		err = -EINVAL;
	if (!err && (flags & O_PATH)) {
		if ((f = file_new(&path_ops, NULL, flags & ~(O_CLOEXEC | O_CREAT)))) {
			inode_get(n);
			f->inode = n;
		} else {
			err = -ENOMEM;
		}
	} else if (!err) {
		err = vfs_open_inode(n, flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC |
						   O_CLOEXEC), &f);
	}
	if (!err && (flags & O_TRUNC) && !(flags & O_PATH) && inode_is_reg(n) && !created &&
	    n->size && n->ops->truncate) {
		n->ops->truncate(n, 0);
		inode_touch(n, true, true);
	}
	inode_put(n);
	if (!err && !inode_is_dir(f->inode))
		err = vfs_file_set_path(f, &found);
	if (found.dir)
		inode_put(found.dir);
	if (err) {
		if (f)
			file_put(f);
		return err;
	}
	err = fd_install(current->fds, f, 0, flags & O_CLOEXEC);
	if (err < 0)
		file_put(f);
	return err;
}

long sys_openat(long dirfd, long upath, long flags, long mode)
{
	char *path = path_alloc();

	if (!path)
		return -ENOMEM;
	long r = vfs_get_user_path(path, (const char *)upath, false);
	if (!r)
		r = do_open(dirfd, path, (int)flags & VALID_OPEN_FLAGS, mode);
	path_free(path);
	return r;
}

long sys_open(long upath, long flags, long mode)
{
	return sys_openat(AT_FDCWD, upath, flags, mode);
}

long sys_creat(long upath, long mode)
{
	return sys_openat(AT_FDCWD, upath, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* ---- positional and vectored I/O ---- */

/* The file for pread/pwrite: seekable ones only (Linux's FMODE_PREAD). */
static long positional(long fd, long pos, struct file **out)
{
	struct file *f = get(fd);

	if (!f)
		return -EBADF;
	if (pos < 0)
		return -EINVAL;
	if (!f->ops->lseek || f->ops == &path_ops)
		return f->ops == &path_ops ? -EBADF : -ESPIPE;
	*out = f;
	return 0;
}

/* Run fn at pos with the file position kept: one CPU, and the call does
 * not sleep on a seekable file, so nothing else sees the moved position. */
static long at_pos(long fd, long pos, long (*fn)(long, long, long), long a, long b)
{
	struct file *f;
	long r = positional(fd, pos, &f);

	if (r)
		return r;
	long saved = f->pos;
	f->pos = pos;		/* with O_APPEND, pwrite appends: Linux's known bug */
	r = fn(fd, a, b);
	f->pos = saved;
	return r;
}

long sys_pread64(long fd, long ubuf, long n, long pos)
{
	return at_pos(fd, pos, sys_read, ubuf, n);
}

long sys_pwrite64(long fd, long ubuf, long n, long pos)
{
	return at_pos(fd, pos, sys_write, ubuf, n);
}

long sys_preadv(long fd, long uiov, long iovcnt, long pos)
{
	return at_pos(fd, pos, sys_readv, uiov, iovcnt);
}

long sys_pwritev(long fd, long uiov, long iovcnt, long pos)
{
	return at_pos(fd, pos, sys_writev, uiov, iovcnt);
}

long sys_preadv2(long fd, long uiov, long iovcnt, long pos, long pos_h, long flags)
{
	if (flags)
		return -EOPNOTSUPP;
	return pos == -1 ? sys_readv(fd, uiov, iovcnt) : sys_preadv(fd, uiov, iovcnt, pos);
}

long sys_pwritev2(long fd, long uiov, long iovcnt, long pos, long pos_h, long flags)
{
	if (flags)
		return -EOPNOTSUPP;
	return pos == -1 ? sys_writev(fd, uiov, iovcnt) : sys_pwritev(fd, uiov, iovcnt, pos);
}

long sys_getdents64(long fd, long ubuf, long n)
{
	struct file *f = get(fd);

	if (!f)
		return -EBADF;
	if (!f->ops->getdents64)
		return -ENOTDIR;
	return f->ops->getdents64(f, (void *)ubuf, (unsigned)n);
}

/* ---- truncate, sync ---- */

static long do_truncate(struct inode *n, long len)
{
	if (inode_is_dir(n))
		return -EISDIR;
	if (!inode_is_reg(n) || !n->ops->truncate)
		return -EINVAL;
	int err = n->ops->truncate(n, len);
	if (!err)
		inode_touch(n, true, true);
	return err;
}

long sys_truncate(long upath, long len)
{
	char *path = path_alloc();
	struct inode *n;

	if (!path)
		return -ENOMEM;
	long r = len < 0 ? -EINVAL : vfs_get_user_path(path, (const char *)upath, false);
	if (!r)
		r = vfs_lookup_at(AT_FDCWD, path, LOOKUP_FOLLOW, &n);
	path_free(path);
	if (r)
		return r;
	r = do_truncate(n, len);
	inode_put(n);
	return r;
}

long sys_ftruncate(long fd, long len)
{
	struct file *f = get(fd);

	if (len < 0)
		return -EINVAL;
	if (!f || f->ops == &path_ops)
		return -EBADF;
	if (!f->inode || !inode_is_reg(f->inode) || (f->flags & O_ACCMODE) == O_RDONLY)
		return -EINVAL;
	return do_truncate(f->inode, len);
}

/* RAM files and directories have nothing to write back (noop_fsync);
 * devices, ttys, pipes and perf files have no fsync: EINVAL. */
long sys_fsync(long fd)
{
	struct file *f = get(fd);

	if (!f || f->ops == &path_ops)
		return -EBADF;
	if (f->ops == &ramfs_file_ops || f->ops == &vfs_dir_file_ops)
		return 0;
	return -EINVAL;
}

/* ---- the working directory, the umask ---- */

static void set_cwd(struct inode *dir)
{
	if (current->cwd)
		inode_put(current->cwd);
	current->cwd = dir;
}

long sys_chdir(long upath)
{
	char *path = path_alloc();
	struct inode *n;

	if (!path)
		return -ENOMEM;
	long r = vfs_get_user_path(path, (const char *)upath, false);
	if (!r)
		r = vfs_lookup_at(AT_FDCWD, path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &n);
	path_free(path);
	if (!r)
		set_cwd(n);
	return r;
}

long sys_fchdir(long fd)
{
	struct file *f = get(fd);

	if (!f)
		return -EBADF;
	if (!f->inode || !inode_is_dir(f->inode))
		return -ENOTDIR;
	inode_get(f->inode);
	set_cwd(f->inode);
	return 0;
}

long sys_getcwd(long ubuf, long size)
{
	char *path = path_alloc();

	if (!path)
		return -ENOMEM;
	long len = vfs_path_of(current->cwd ? current->cwd : vfs_root(), path, PATH_MAX_LEN);
	if (len > 0 && (unsigned long)len > (unsigned long)size)
		len = -ERANGE;
	if (len > 0 && copy_to_user((void *)ubuf, path, len))
		len = -EFAULT;
	path_free(path);
	return len;
}

long sys_umask(long mask)
{
	unsigned old = current->umask;

	current->umask = mask & 0777;
	return old;
}
