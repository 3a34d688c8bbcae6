/* The namespace syscalls: mkdir, mknod, symlink, link, unlink, rmdir,
 * rename and their *at forms. Each copies its paths in and calls the VFS
 * operation that holds Linux's checks (fs/ops.c). */
#include "syscall.h"
#include "task.h"
#include "fs/vfs.h"
#include "mm/kmalloc.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>
#include <linux/stat.h>

/* Two user paths into kernel buffers (the caller frees both). */
static long get_paths(char **a, long ua, char **b, long ub, bool b_empty_ok)
{
	*a = path_alloc();
	*b = path_alloc();
	if (!*a || !*b)
		return -ENOMEM;
	long r = vfs_get_user_path(*a, (const char *)ua, false);
	return r ? r : vfs_get_user_path(*b, (const char *)ub, b_empty_ok);
}

long sys_mknodat(long dirfd, long upath, long mode, long dev)
{
	unsigned type = mode & S_IFMT;

	if (type == S_IFDIR)
		return -EPERM;
	if (type && type != S_IFREG && type != S_IFCHR && type != S_IFBLK &&
	    type != S_IFIFO && type != S_IFSOCK)
		return -EINVAL;
	char *path = path_alloc();
	if (!path)
		return -ENOMEM;
	long r = vfs_get_user_path(path, (const char *)upath, false);
	if (!r)
		r = vfs_mknod(dirfd, path, (type ? type : S_IFREG) |
			      (mode & ~current->umask & 07777), dev, NULL, NULL);
	path_free(path);
	return r;
}

long sys_mknod(long upath, long mode, long dev)
{
	return sys_mknodat(AT_FDCWD, upath, mode, dev);
}

long sys_mkdirat(long dirfd, long upath, long mode)
{
	char *path = path_alloc();

	if (!path)
		return -ENOMEM;
	long r = vfs_get_user_path(path, (const char *)upath, false);
	if (!r)
		r = vfs_mknod(dirfd, path, S_IFDIR | (mode & ~current->umask & 01777), 0, NULL,
			      NULL);
	path_free(path);
	return r;
}

long sys_mkdir(long upath, long mode)
{
	return sys_mkdirat(AT_FDCWD, upath, mode);
}

long sys_symlinkat(long utarget, long dirfd, long upath)
{
	char *target, *path;
	long r = get_paths(&target, utarget, &path, upath, false);

	if (!r)
		r = vfs_mknod(dirfd, path, S_IFLNK | 0777, 0, target, NULL);
	path_free(target);
	path_free(path);
	return r;
}

long sys_symlink(long utarget, long upath)
{
	return sys_symlinkat(utarget, AT_FDCWD, upath);
}

long sys_unlinkat(long dirfd, long upath, long flags)
{
	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	char *path = path_alloc();
	if (!path)
		return -ENOMEM;
	long r = vfs_get_user_path(path, (const char *)upath, false);
	if (!r)
		r = vfs_unlink(dirfd, path, flags & AT_REMOVEDIR);
	path_free(path);
	return r;
}

long sys_unlink(long upath)
{
	return sys_unlinkat(AT_FDCWD, upath, 0);
}

long sys_rmdir(long upath)
{
	return sys_unlinkat(AT_FDCWD, upath, AT_REMOVEDIR);
}

long sys_linkat(long odirfd, long uold, long ndirfd, long unew, long flags)
{
	char *old, *new;
	struct inode *n;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	/* The new name first, as Linux copies it before walking the old. */
	long r = get_paths(&new, unew, &old, uold, flags & AT_EMPTY_PATH);
	if (!r)
		r = vfs_lookup_at(odirfd, old, (flags & AT_SYMLINK_FOLLOW ? LOOKUP_FOLLOW : 0) |
				  (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0), &n);
	if (!r) {
		r = vfs_link(n, ndirfd, new);
		inode_put(n);
	}
	path_free(old);
	path_free(new);
	return r;
}

long sys_link(long uold, long unew)
{
	return sys_linkat(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}

long sys_renameat2(long odirfd, long uold, long ndirfd, long unew, long flags)
{
	char *old, *new;
	long r = get_paths(&old, uold, &new, unew, false);

	if (!r)
		r = vfs_rename(odirfd, old, ndirfd, new, flags);
	path_free(old);
	path_free(new);
	return r;
}

long sys_renameat(long odirfd, long uold, long ndirfd, long unew)
{
	return sys_renameat2(odirfd, uold, ndirfd, unew, 0);
}

long sys_rename(long uold, long unew)
{
	return sys_renameat2(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}
