/* The namespace operations (make a node, unlink, link, rename) on kernel
 * strings, with Linux's checks in Linux's order (fs/namei.c), so that the
 * syscalls, the initramfs unpacker and /dev's set-up share one set of
 * rules. */
#include "vfs.h"
#include "../lib/string.h"
#include <asm-generic/errno.h>
#include <linux/fs.h>
#include <linux/stat.h>

static bool count_child(void *ctx, const char *name, size_t len, uint64_t ino,
			unsigned char dtype, long next)
{
	bool dots = (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');

	if (!dots)
		*(bool *)ctx = true;
	return dots;
}

static bool dir_is_empty(struct inode *dir)
{
	bool found = false;

	dir->ops->iterate(dir, 0, count_child, &found);
	return !found;
}

/* The child of nd->dir named nd->last, or NULL (not an error here). */
static struct inode *peek(struct nameidata *nd)
{
	struct inode *n;

	return vfs_child(nd->dir, nd->last, nd->len, &n) ? NULL : n;
}

int vfs_mknod(int dirfd, const char *path, unsigned mode, uint32_t rdev, const char *target,
	      struct inode **out)
{
	struct nameidata nd;
	int err = vfs_parent_at(dirfd, path, &nd);

	if (err)
		return err;
	struct inode *old = NULL, *n = NULL;
	bool dir = S_ISDIR(mode);
	if (nd.type != LAST_NORM)
		err = -EEXIST;
	else if (nd.len > NAME_MAX_LEN)
		err = -ENAMETOOLONG;
	else if (!inode_is_dir(nd.dir))
		err = -ENOTDIR;
	else if ((old = peek(&nd)))
		err = -EEXIST;
	else if (nd.dir->sb->lookup_final)
		err = -ENOENT;
	else if (nd.trailing_slash && !dir)
		err = -ENOENT;
	else if (!nd.dir->ops->create || !nd.dir->nlink)
		err = nd.dir->nlink ? -EPERM : -ENOENT;
	else
		err = nd.dir->ops->create(nd.dir, nd.last, nd.len, mode, rdev, target, &n);
	if (old)
		inode_put(old);
	inode_put(nd.dir);
	if (!err) {
		if (out)
			*out = n;
		else
			inode_put(n);
	}
	return err;
}

static bool is_mount_root(struct inode *n)
{
	return n == n->sb->root || n->mounted;
}

int vfs_unlink(int dirfd, const char *path, bool rmdir)
{
	struct nameidata nd;
	int err = vfs_parent_at(dirfd, path, &nd);

	if (err)
		return err;
	struct inode *n = NULL;
	if (nd.type != LAST_NORM)
		err = !rmdir ? -EISDIR : nd.type == LAST_DOT ? -EINVAL :
		      nd.type == LAST_DOTDOT ? -ENOTEMPTY : -EBUSY;
	else if (nd.len > NAME_MAX_LEN)
		err = -ENAMETOOLONG;
	else if (!(n = peek(&nd)))
		err = inode_is_dir(nd.dir) ? -ENOENT : -ENOTDIR;
	else if (rmdir && !inode_is_dir(n))
		err = -ENOTDIR;
	else if (!rmdir && inode_is_dir(n))
		err = -EISDIR;
	else if (!rmdir && nd.trailing_slash)
		err = -ENOTDIR;
	else if (!nd.dir->ops->unlink)
		err = -EPERM;
	else if (is_mount_root(n))
		err = -EBUSY;
	else if (rmdir && !dir_is_empty(n))
		err = -ENOTEMPTY;
	else
		err = nd.dir->ops->unlink(nd.dir, nd.last, nd.len);
	if (n)
		inode_put(n);
	inode_put(nd.dir);
	return err;
}

int vfs_link(struct inode *old, int dirfd, const char *path)
{
	struct nameidata nd;
	int err = vfs_parent_at(dirfd, path, &nd);

	if (err)
		return err;
	struct inode *n = NULL;
	if (nd.type != LAST_NORM)
		err = -EEXIST;
	else if (nd.len > NAME_MAX_LEN)
		err = -ENAMETOOLONG;
	else if (inode_is_dir(nd.dir) && !nd.dir->nlink)
		err = -ENOENT;		/* a removed directory takes no names (IS_DEADDIR) */
	else if ((n = peek(&nd)))
		err = -EEXIST;
	else if (nd.trailing_slash)
		err = -ENOENT;
	else if (nd.dir->sb != old->sb)
		err = -EXDEV;
	else if (inode_is_dir(old))
		err = -EPERM;
	else if (!nd.dir->ops->link)
		err = -EPERM;
	else if (!old->nlink)
		err = -ENOENT;
	else
		err = nd.dir->ops->link(nd.dir, nd.last, nd.len, old);
	if (n)
		inode_put(n);
	inode_put(nd.dir);
	return err;
}

/* Is a an ancestor of (or the same as) b? */
static bool is_ancestor(struct inode *a, struct inode *b)
{
	for (struct inode *n = b; n; n = n->parent)
		if (n == a)
			return true;
	return false;
}

static int rename_checks(struct nameidata *o, struct nameidata *d, struct inode *old,
			 struct inode *new, unsigned flags)
{
	bool exchange = flags & RENAME_EXCHANGE;

	if (!old)
		return -ENOENT;
	if (exchange && !new)
		return -ENOENT;
	if ((flags & RENAME_NOREPLACE) && new)
		return -EEXIST;
	if (!inode_is_dir(old) && (o->trailing_slash || (!exchange && d->trailing_slash)))
		return -ENOTDIR;
	if (exchange && !inode_is_dir(new) && d->trailing_slash)
		return -ENOTDIR;
	if (o->dir->sb != d->dir->sb)
		return -EXDEV;
	if (inode_is_dir(old) && is_ancestor(old, d->dir))
		return -EINVAL;			/* into itself */
	if (new && inode_is_dir(new) && is_ancestor(new, o->dir))
		return exchange ? -EINVAL : -ENOTEMPTY;
	if (old == new)
		return 0;
	if (new && !exchange) {
		if (inode_is_dir(old) && !inode_is_dir(new))
			return -ENOTDIR;
		if (!inode_is_dir(old) && inode_is_dir(new))
			return -EISDIR;
	}
	if (!o->dir->ops->rename)
		return -EPERM;
	if (is_mount_root(old) || (new && is_mount_root(new)))
		return -EBUSY;
	if (new && !exchange && inode_is_dir(new) && !dir_is_empty(new))
		return -ENOTEMPTY;
	return 0;
}

int vfs_rename(int odirfd, const char *opath, int ndirfd, const char *npath, unsigned flags)
{
	struct nameidata o, d;
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if ((flags & RENAME_EXCHANGE) && (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)))
		return -EINVAL;
	if (flags & RENAME_WHITEOUT)
		return -EINVAL;		/* no overlay file system here */
	if ((err = vfs_parent_at(odirfd, opath, &o)))
		return err;
	if ((err = vfs_parent_at(ndirfd, npath, &d))) {
		inode_put(o.dir);
		return err;
	}
	struct inode *old = NULL, *new = NULL;
	if (o.dir->sb != d.dir->sb)
		err = -EXDEV;
	else if (o.type != LAST_NORM)
		err = -EBUSY;
	else if (d.type != LAST_NORM)
		err = flags & RENAME_NOREPLACE ? -EEXIST : -EBUSY;
	else if (o.len > NAME_MAX_LEN || d.len > NAME_MAX_LEN)
		err = -ENAMETOOLONG;
	else if (!inode_is_dir(o.dir) || !inode_is_dir(d.dir))
		err = -ENOTDIR;
	else if (!o.dir->nlink || !d.dir->nlink)
		err = -ENOENT;		/* a removed directory takes no names (IS_DEADDIR) */
	if (!err) {
		old = peek(&o);
		new = peek(&d);
		err = rename_checks(&o, &d, old, new, flags);
		if (!err && old != new)
			err = o.dir->ops->rename(o.dir, o.last, o.len, d.dir, d.last, d.len, flags);
	}
	if (old)
		inode_put(old);
	if (new)
		inode_put(new);
	inode_put(o.dir);
	inode_put(d.dir);
	return err;
}
