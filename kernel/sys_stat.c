/* What a node says about itself and how it is changed in place: stat,
 * statx, statfs, access, readlink, chmod, chown, utimensat. Every caller is
 * root (Linux's CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_CHOWN). */
#include "clock.h"
#include "syscall.h"
#include "fd.h"
#include "task.h"
#include "fs/vfs.h"
#include "mm/kmalloc.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include <asm/stat.h>
#include <asm-generic/errno.h>
#include <asm-generic/statfs.h>
#include <linux/fcntl.h>
#include <linux/stat.h>
#include <linux/time_types.h>

#define UTIME_NOW	((1l << 30) - 1l)
#define UTIME_OMIT	((1l << 30) - 2l)

static struct file *get(long fd)
{
	return fd_get(current->fds, (unsigned int)fd);
}

/* The node a *at() call names: dirfd and a user path, "" allowed with
 * AT_EMPTY_PATH (then dirfd's own node, whatever its type). */
static long lookup_user(long dirfd, long upath, long flags, bool follow, struct inode **out)
{
	char *path = path_alloc();

	if (!path)
		return -ENOMEM;
	long r = vfs_get_user_path(path, (const char *)upath, flags & AT_EMPTY_PATH);
	if (!r)
		r = vfs_lookup_at(dirfd, path, (follow ? LOOKUP_FOLLOW : 0) |
				  (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0), out);
	path_free(path);
	return r;
}

/* Linux's new_encode_dev split as stat's st_dev wants it. */
static uint64_t dev_of(const struct inode *n)
{
	return n->sb->dev;
}

static void fill_stat(const struct inode *n, struct stat *st)
{
	*st = (struct stat){
		.st_dev = dev_of(n), .st_ino = n->ino, .st_nlink = n->nlink,
		.st_mode = n->mode, .st_uid = n->uid, .st_gid = n->gid, .st_rdev = n->rdev,
		.st_size = n->size, .st_blksize = PAGE_SIZE, .st_blocks = n->blocks,
		.st_atime = n->atime.sec, .st_atime_nsec = n->atime.nsec,
		.st_mtime = n->mtime.sec, .st_mtime_nsec = n->mtime.nsec,
		.st_ctime = n->ctime.sec, .st_ctime_nsec = n->ctime.nsec,
	};
}

/* A file with no node (perf events, the console today): what its ops say. */
static void fill_anon_stat(struct file *f, struct stat *st)
{
	unsigned mode = 0;
	long size = 0;

	if (f->ops->stat)
		f->ops->stat(f, &mode, &size);
	*st = (struct stat){ .st_mode = mode, .st_size = size, .st_nlink = 1,
			     .st_blksize = PAGE_SIZE, .st_ino = (uint64_t)f->ops >> 4 & 0xffff };
}

long sys_fstat(long fd, long ustat)
{
	struct file *f = get(fd);
	struct stat st;

	if (!f)
		return -EBADF;
	if (f->inode)
		fill_stat(f->inode, &st);
	else
		fill_anon_stat(f, &st);
	return copy_to_user((void *)ustat, &st, sizeof(st)) ? -EFAULT : 0;
}

long sys_newfstatat(long dirfd, long upath, long ustat, long flags)
{
	struct inode *n;
	struct stat st;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	/* "" with AT_EMPTY_PATH on any descriptor is fstat, node or not. */
	if (flags & AT_EMPTY_PATH) {
		char c;
		if (get_user(c, (const char *)upath))
			return -EFAULT;
		if (!c && (int)dirfd != AT_FDCWD)
			return sys_fstat(dirfd, ustat);
	}
	long r = lookup_user(dirfd, upath, flags, !(flags & AT_SYMLINK_NOFOLLOW), &n);
	if (r)
		return r;
	fill_stat(n, &st);
	inode_put(n);
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

static struct statx_timestamp sx_time(struct vfs_time t)
{
	return (struct statx_timestamp){ .tv_sec = t.sec, .tv_nsec = t.nsec };
}

long sys_statx(long dirfd, long upath, long flags, long mask, long ustatx)
{
	struct inode *n;
	struct statx sx;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	if ((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
		return -EINVAL;
	if (mask & STATX__RESERVED)
		return -EINVAL;
	if (flags & AT_EMPTY_PATH) {
		char c;
		if (get_user(c, (const char *)upath))
			return -EFAULT;
		if (!c && (int)dirfd != AT_FDCWD) {
			struct file *f = get(dirfd);
			if (!f)
				return -EBADF;
			if (!f->inode) {
				struct stat st;
				fill_anon_stat(f, &st);
				sx = (struct statx){ .stx_mask = STATX_TYPE | STATX_MODE |
					STATX_NLINK | STATX_INO | STATX_SIZE, .stx_blksize = PAGE_SIZE,
					.stx_nlink = 1, .stx_mode = st.st_mode, .stx_ino = st.st_ino,
					.stx_size = st.st_size };
				return copy_to_user((void *)ustatx, &sx, sizeof(sx)) ? -EFAULT : 0;
			}
		}
	}
	long r = lookup_user(dirfd, upath, flags, !(flags & AT_SYMLINK_NOFOLLOW), &n);
	if (r)
		return r;
	sx = (struct statx){
		.stx_mask = STATX_BASIC_STATS | STATX_BTIME, .stx_blksize = PAGE_SIZE,
		.stx_nlink = n->nlink, .stx_uid = n->uid, .stx_gid = n->gid,
		.stx_mode = n->mode, .stx_ino = n->ino, .stx_size = n->size,
		.stx_blocks = n->blocks, .stx_attributes_mask = STATX_ATTR_MOUNT_ROOT,
		.stx_attributes = n == n->sb->root ? STATX_ATTR_MOUNT_ROOT : 0,
		.stx_atime = sx_time(n->atime), .stx_btime = sx_time(n->btime),
		.stx_ctime = sx_time(n->ctime), .stx_mtime = sx_time(n->mtime),
		.stx_rdev_major = (n->rdev >> 8) & 0xfff,
		.stx_rdev_minor = (n->rdev & 0xff) | ((n->rdev >> 12) & 0xfff00),
		.stx_dev_major = 0, .stx_dev_minor = dev_of(n),
	};
	inode_put(n);
	return copy_to_user((void *)ustatx, &sx, sizeof(sx)) ? -EFAULT : 0;
}

/* ---- statfs ---- */

static long put_statfs(struct inode *n, long ubuf)
{
	struct statfs st;

	vfs_statfs(n, &st);
	return copy_to_user((void *)ubuf, &st, sizeof(st)) ? -EFAULT : 0;
}

long sys_statfs(long upath, long ubuf)
{
	struct inode *n;
	long r = lookup_user(AT_FDCWD, upath, 0, true, &n);

	if (r)
		return r;
	r = put_statfs(n, ubuf);
	inode_put(n);
	return r;
}

long sys_fstatfs(long fd, long ubuf)
{
	struct file *f = get(fd);

	if (!f)
		return -EBADF;
	if (!f->inode) {	/* anon_inodefs: Linux's ANON_INODE_FS_MAGIC */
		struct statfs st = { .f_type = 0x09041934, .f_bsize = PAGE_SIZE,
				     .f_namelen = 255, .f_frsize = PAGE_SIZE };
		return copy_to_user((void *)ubuf, &st, sizeof(st)) ? -EFAULT : 0;
	}
	return put_statfs(f->inode, ubuf);
}

/* ---- access, readlink ---- */

/* Root: only X_OK can fail, on a non-directory with no x bit. */
long sys_faccessat2(long dirfd, long upath, long mode, long flags)
{
	struct inode *n;

	if (mode & ~(long)S_IRWXO)
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	long r = lookup_user(dirfd, upath, flags, !(flags & AT_SYMLINK_NOFOLLOW), &n);
	if (r)
		return r;
	if ((mode & S_IXOTH) && !inode_is_dir(n) && !(n->mode & 0111))
		r = -EACCES;
	inode_put(n);
	return r;
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
	struct inode *n;

	if ((int)bufsiz <= 0)
		return -EINVAL;
	/* "" reads the link an O_PATH descriptor names. */
	long r = lookup_user(dirfd, upath, AT_EMPTY_PATH, false, &n);
	if (r)
		return r;
	char *buf = path_alloc();
	if (!buf)
		r = -ENOMEM;
	else if (!inode_is_link(n) || !n->ops->readlink)
		r = -EINVAL;
	else
		r = n->ops->readlink(n, buf, MIN((size_t)(int)bufsiz, (size_t)PATH_MAX_LEN));
	if (r >= 0 && copy_to_user((void *)ubuf, buf, r))
		r = -EFAULT;
	if (r == -EINVAL) {		/* "" naming a non-link is ENOENT */
		char c;
		if (!get_user(c, (const char *)upath) && !c)
			r = -ENOENT;
	}
	path_free(buf);
	inode_put(n);
	return r;
}

long sys_readlink(long upath, long ubuf, long bufsiz)
{
	return sys_readlinkat(AT_FDCWD, upath, ubuf, bufsiz);
}

/* ---- chmod, chown, utimensat ---- */

/* The node of a descriptor for fchmod, fchown, futimens; a file with no
 * node (perf) has nothing to change: EPERM. */
static long fd_inode(long fd, struct inode **out)
{
	struct file *f = get(fd);

	if (!f || (f->flags & O_PATH))	/* Linux's fdget: no O_PATH files */
		return -EBADF;
	if (!f->inode)
		return -EPERM;
	inode_get(f->inode);
	*out = f->inode;
	return 0;
}

static long do_chmod(struct inode *n, long mode)
{
	if (n->sb->read_only_names && !inode_is_dir(n))
		return -EPERM;
	n->mode = (n->mode & S_IFMT) | (mode & 07777);
	inode_touch(n, false, true);
	return 0;
}

long sys_fchmodat(long dirfd, long upath, long mode)
{
	struct inode *n;
	long r = lookup_user(dirfd, upath, 0, true, &n);

	if (r)
		return r;
	r = do_chmod(n, mode);
	inode_put(n);
	return r;
}

long sys_chmod(long upath, long mode)
{
	return sys_fchmodat(AT_FDCWD, upath, mode);
}

long sys_fchmod(long fd, long mode)
{
	struct inode *n;
	long r = fd_inode(fd, &n);

	if (r)
		return r;
	r = do_chmod(n, mode);
	inode_put(n);
	return r;
}

static long do_chown(struct inode *n, long uid, long gid)
{
	if (n->sb->read_only_names)
		return -EPERM;
	if ((uint32_t)uid != (uint32_t)-1)
		n->uid = uid;
	if ((uint32_t)gid != (uint32_t)-1)
		n->gid = gid;
	/* chown clears set-user-ID, and set-group-ID where group-execute
	 * makes it one, on everything but directories (Linux's ATTR_KILL_*). */
	if (!inode_is_dir(n)) {
		n->mode &= ~S_ISUID;
		if (n->mode & S_IXGRP)
			n->mode &= ~S_ISGID;
	}
	inode_touch(n, false, true);
	return 0;
}

long sys_fchownat(long dirfd, long upath, long uid, long gid, long flags)
{
	struct inode *n;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	long r = lookup_user(dirfd, upath, flags, !(flags & AT_SYMLINK_NOFOLLOW), &n);
	if (r)
		return r;
	r = do_chown(n, uid, gid);
	inode_put(n);
	return r;
}

long sys_chown(long upath, long uid, long gid)
{
	return sys_fchownat(AT_FDCWD, upath, uid, gid, 0);
}

long sys_lchown(long upath, long uid, long gid)
{
	return sys_fchownat(AT_FDCWD, upath, uid, gid, AT_SYMLINK_NOFOLLOW);
}

long sys_fchown(long fd, long uid, long gid)
{
	struct inode *n;
	long r = fd_inode(fd, &n);

	if (r)
		return r;
	r = do_chown(n, uid, gid);
	inode_put(n);
	return r;
}

static bool set_time(struct vfs_time *t, const struct __kernel_timespec *ts, struct vfs_time now)
{
	if (!ts || ts->tv_nsec == UTIME_NOW)
		*t = now;
	else if (ts->tv_nsec != UTIME_OMIT)
		*t = (struct vfs_time){ ts->tv_sec, ts->tv_nsec };
	else
		return false;
	return true;
}

long sys_utimensat(long dirfd, long upath, long utimes, long flags)
{
	struct __kernel_timespec ts[2];
	struct inode *n;
	long r;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (utimes) {
		if (copy_from_user(ts, (void *)utimes, sizeof(ts)))
			return -EFAULT;
		for (int i = 0; i < 2; i++)
			if ((ts[i].tv_nsec < 0 || ts[i].tv_nsec >= (long)NSEC_PER_SEC) &&
			    ts[i].tv_nsec != UTIME_NOW && ts[i].tv_nsec != UTIME_OMIT)
				return -EINVAL;
		if (ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
			return 0;
	}
	if (!upath) {			/* futimens: the descriptor's own node */
		if (flags & AT_SYMLINK_NOFOLLOW)
			return -EINVAL;
		r = (int)dirfd == AT_FDCWD ? -EFAULT : fd_inode(dirfd, &n);
	} else {
		r = lookup_user(dirfd, upath, flags, !(flags & AT_SYMLINK_NOFOLLOW), &n);
	}
	if (r)
		return r;
	struct vfs_time now = vfs_now();
	bool changed = set_time(&n->atime, utimes ? &ts[0] : NULL, now);
	changed |= set_time(&n->mtime, utimes ? &ts[1] : NULL, now);
	if (changed)
		n->ctime = now;
	inode_put(n);
	return 0;
}
