/* The path walk: components of at most NAME_MAX_LEN bytes, "." and "..",
 * mount points crossed both ways, at most MAXSYMLINKS links followed in one
 * walk (Linux's ELOOP rule), a trailing slash requiring a directory. */
#include "vfs.h"
#include "../fd.h"
#include "../panic.h"
#include "../task.h"
#include "../lib/string.h"
#include "../mm/kmalloc.h"
#include "../mm/uaccess.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>

/* Path buffers, Linux's names_cache: a few in .bss serve the syscalls (a kmalloc of
 * PATH_MAX_LEN is a vmalloc'd page: some 4000 guest instructions a call); deeper needs (the
 * targets of links inside a walk inside a rename) take the heap. One CPU, and no file system
 * call sleeps holding one; the SMP issue makes them per CPU. */
#define PATH_POOL	4
static char path_pool[PATH_POOL][PATH_MAX_LEN];
static unsigned path_pool_used;		/* a bit a buffer */

char *path_alloc(void)
{
	for (unsigned i = 0; i < PATH_POOL; i++) {
		if (!(path_pool_used & 1u << i)) {
			path_pool_used |= 1u << i;
			return path_pool[i];
		}
	}
	return kmalloc(PATH_MAX_LEN);
}

void path_free(char *buf)
{
	if (buf >= path_pool[0] && buf < path_pool[0] + sizeof(path_pool)) {
		unsigned i = (buf - path_pool[0]) / PATH_MAX_LEN;
		assert(path_pool_used & 1u << i);
		path_pool_used &= ~(1u << i);
		return;
	}
	kfree(buf);
}

long vfs_get_user_path(char *buf, const char *upath, bool empty_ok)
{
	long r = strncpy_from_user(buf, upath, PATH_MAX_LEN);

	if (r < 0)
		return r;
	return !r && !empty_ok ? -ENOENT : 0;
}

int vfs_child(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	struct inode *n;

	if (!dir->ops->lookup)
		return -ENOTDIR;
	int err = dir->ops->lookup(dir, name, len, &n);
	if (err)
		return err;
	/* A synthetic file system makes directory inodes per lookup: give them
	 * their place, for ".." and getcwd. */
	if (inode_is_dir(n) && !n->parent && n != vfs_root() &&
	    (err = inode_set_name(n, dir, name, len))) {
		inode_put(n);
		return err;
	}
	if (n->mounted) {
		struct inode *root = n->mounted->root;
		inode_get(root);
		inode_put(n);
		n = root;
	}
	*out = n;
	return 0;
}

/* One walk: links followed so far, and (when asked) where the node it ends
 * on was found: its directory and name, for the path of an open file. */
struct walk {
	int links;
	struct vfs_found *found;
};

static int walk(struct walk *w, struct inode *start, const char *path, unsigned flags,
		struct inode **out, struct nameidata *nd);

/* Resolve the link n found in dir: the node its target names. */
static int follow_link(struct walk *w, struct inode *dir, struct inode *n, struct inode **out)
{
	if (++w->links > MAXSYMLINKS)
		return -ELOOP;
	if (n->ops->get_link)
		return n->ops->get_link(n, out);
	char *target = path_alloc();
	if (!target)
		return -ENOMEM;
	long len = n->ops->readlink ? n->ops->readlink(n, target, PATH_MAX_LEN - 1) : -EINVAL;
	int err = len < 0 ? (int)len : 0;
	if (!err) {
		target[len] = '\0';
		err = len ? walk(w, dir, target, LOOKUP_FOLLOW, out, NULL) : -ENOENT;
	}
	path_free(target);
	return err;
}

static void note_found(struct walk *w, struct inode *dir, const char *name, size_t len)
{
	struct vfs_found *f = w->found;

	if (!f)
		return;
	inode_get(dir);
	if (f->dir)
		inode_put(f->dir);
	f->dir = dir;
	memcpy(f->name, name, len);
	f->name[len] = '\0';
}

static int walk(struct walk *w, struct inode *start, const char *path, unsigned flags,
		struct inode **out, struct nameidata *nd)
{
	struct inode *cur = path[0] == '/' ? vfs_root() : start;
	const char *p = path;
	int err = 0;

	inode_get(cur);
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p) {
			/* "/" or "dir/": the node itself; as a parent walk, LAST_ROOT
			 * (only "/" ends here: a trailing slash is kept below). */
			if (nd) {
				*nd = (struct nameidata){ .dir = cur, .last = p, .type = LAST_ROOT };
				return 0;
			}
			break;
		}
		const char *name = p;
		while (*p && *p != '/')
			p++;
		size_t len = p - name;
		const char *rest = p;
		while (*rest == '/')
			rest++;
		bool last = !*rest, slash = last && p != rest;
		if (len > NAME_MAX_LEN) {
			err = -ENAMETOOLONG;
			break;
		}
		if (!inode_is_dir(cur)) {
			err = -ENOTDIR;
			break;
		}
		bool dot = len == 1 && name[0] == '.';
		bool dotdot = len == 2 && name[0] == '.' && name[1] == '.';
		if (last && nd) {
			*nd = (struct nameidata){ .dir = cur, .last = name, .len = len,
				.type = dot ? LAST_DOT : dotdot ? LAST_DOTDOT : LAST_NORM,
				.trailing_slash = slash };
			return 0;
		}
		struct inode *next;
		if (dot) {
			continue;
		} else if (dotdot) {
			next = cur->parent ? cur->parent : cur;
			inode_get(next);
		} else if ((err = vfs_child(cur, name, len, &next))) {
			break;
		} else if (last) {
			note_found(w, cur, name, len);
		}
		if (inode_is_link(next) && (!last || slash || (flags & LOOKUP_FOLLOW))) {
			struct inode *link = next;
			err = follow_link(w, cur, link, &next);
			inode_put(link);
			if (err)
				break;
		}
		inode_put(cur);
		cur = next;
		if (slash && !inode_is_dir(cur)) {
			err = -ENOTDIR;
			break;
		}
	}
	if (!err && (flags & LOOKUP_DIRECTORY) && !inode_is_dir(cur))
		err = -ENOTDIR;
	if (err) {
		inode_put(cur);
		return err;
	}
	*out = cur;
	return 0;
}

int vfs_walk_found(struct inode *start, const char *path, unsigned flags, struct inode **out,
		   struct vfs_found *found)
{
	struct walk w = { .found = found };

	if (!*path) {
		if (!(flags & LOOKUP_EMPTY))
			return -ENOENT;
		inode_get(start);
		*out = start;
		return 0;
	}
	int err = walk(&w, start, path, flags, out, NULL);
	if (err && found && found->dir) {
		inode_put(found->dir);
		found->dir = NULL;
	}
	return err;
}

int vfs_walk(struct inode *start, const char *path, unsigned flags, struct inode **out)
{
	return vfs_walk_found(start, path, flags, out, NULL);
}

int vfs_walk_parent(struct inode *start, const char *path, struct nameidata *nd)
{
	struct walk w = { 0 };

	if (!*path)
		return -ENOENT;
	return walk(&w, start, path, 0, NULL, nd);
}

int vfs_start(int dirfd, const char *path, struct inode **out)
{
	struct inode *n;

	if (path[0] == '/') {
		n = vfs_root();
	} else if (dirfd == AT_FDCWD) {
		n = current && current->cwd ? current->cwd : vfs_root();	/* the kernel's: "/" */
	} else {
		struct file *f = fd_get(current->fds, (unsigned)dirfd);
		if (!f)
			return -EBADF;
		n = f->inode;
		/* Linux's "" with AT_EMPTY_PATH may name any file: the caller
		 * checks the type only when it walks further. */
		if (!n || (*path && !inode_is_dir(n)))
			return -ENOTDIR;
	}
	inode_get(n);
	*out = n;
	return 0;
}

int vfs_lookup_found(int dirfd, const char *path, unsigned flags, struct inode **out,
		     struct vfs_found *found)
{
	struct inode *start;
	int err = vfs_start(dirfd, path, &start);

	if (err)
		return err;
	err = vfs_walk_found(start, path, flags, out, found);
	inode_put(start);
	return err;
}

int vfs_lookup_at(int dirfd, const char *path, unsigned flags, struct inode **out)
{
	struct inode *start;
	int err = vfs_start(dirfd, path, &start);

	if (err)
		return err;
	err = vfs_walk(start, path, flags, out);
	inode_put(start);
	return err;
}

int vfs_parent_at(int dirfd, const char *path, struct nameidata *nd)
{
	struct inode *start;
	int err = vfs_start(dirfd, path, &start);

	if (err)
		return err;
	err = vfs_walk_parent(start, path, nd);
	inode_put(start);
	return err;
}

long vfs_path_of(struct inode *dir, char *buf, size_t size)
{
	size_t at = size;

	if (!size)
		return -ENAMETOOLONG;
	buf[--at] = '\0';
	for (struct inode *n = dir; n->parent; n = n->parent) {
		if (!n->nlink)
			return -ENOENT;		/* removed: Linux's getcwd fails so */
		size_t len = n->name ? strlen(n->name) : 0;
		if (at < len + 1)
			return -ENAMETOOLONG;
		at -= len;
		memcpy(buf + at, n->name, len);
		buf[--at] = '/';
	}
	if (at == size - 1) {
		if (at < 1)
			return -ENAMETOOLONG;
		buf[--at] = '/';
	}
	memmove(buf, buf + at, size - at);
	return size - at;
}
