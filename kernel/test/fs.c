/* Self-tests of the file system layer: the initramfs unpacker on archives
 * made here (every entry type, hard links, replacement, damage), and the
 * path walk's limits and mount crossings. */
#include "../ktest.h"
#include "../fs/initramfs.h"
#include "../fs/ramfs.h"
#include "../fs/vfs.h"
#include "../lib/string.h"
#include "../lib/vsprintf.h"
#include "../mm/kmalloc.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>
#include <linux/stat.h>

struct archive {
	char buf[4096];
	size_t len;
};

/* Append one newc entry (ino, mode, nlink, mtime, data, rdev major:minor, name). */
static void add(struct archive *a, unsigned ino, unsigned mode, unsigned nlink, unsigned mtime,
		const char *data, unsigned rmajor, unsigned rminor, const char *name)
{
	size_t dlen = strlen(data), nlen = strlen(name) + 1;

	a->len += snprintf(a->buf + a->len, sizeof(a->buf) - a->len,
			   "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
			   ino, mode, 0, 7, nlink, mtime, (unsigned)dlen, 0, 0, rmajor, rminor,
			   (unsigned)nlen, 0);
	memcpy(a->buf + a->len, name, nlen);
	a->len = ALIGN_UP(a->len + nlen, 4);
	memcpy(a->buf + a->len, data, dlen);
	a->len = ALIGN_UP(a->len + dlen, 4);
}

static struct inode *lookup(const char *path, unsigned flags)
{
	struct inode *n;

	return vfs_lookup_at(AT_FDCWD, path, flags, &n) ? NULL : n;
}

static void remove_tree(void)
{
	static const char *const names[] = { "/ktest-fs/d/f", "/ktest-fs/d/hard", "/ktest-fs/d/link",
		"/ktest-fs/d/null", "/ktest-fs/d/again" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		vfs_unlink(AT_FDCWD, names[i], false);
	vfs_unlink(AT_FDCWD, "/ktest-fs/d", true);
	vfs_unlink(AT_FDCWD, "/ktest-fs", true);
}

KTEST(initramfs_unpacks_every_entry_type)
{
	struct archive *a = kzalloc(sizeof(*a));
	long inodes = inodes_alive, pages = ramfs_pages;
	char buf[16] = "";
	struct inode *n, *m;

	KASSERT(a);
	add(a, 1, S_IFDIR | 0750, 2, 100, "", 0, 0, "ktest-fs");
	add(a, 2, S_IFDIR | 0755, 2, 100, "", 0, 0, "./ktest-fs/d");
	add(a, 3, S_IFREG | 0640, 2, 12345, "", 0, 0, "ktest-fs/d/f");
	add(a, 3, S_IFREG | 0640, 2, 12345, "hello", 0, 0, "ktest-fs/d/hard");	/* data on the last */
	add(a, 4, S_IFLNK | 0777, 1, 100, "f", 0, 0, "ktest-fs/d/link");
	add(a, 5, S_IFCHR | 0666, 1, 100, "", 1, 3, "ktest-fs/d/null");
	add(a, 6, S_IFREG | 0600, 1, 100, "old", 0, 0, "ktest-fs/d/again");
	add(a, 7, S_IFREG | 0644, 1, 100, "new!", 0, 0, "ktest-fs/d/again");
	add(a, 0, 0, 1, 0, "", 0, 0, "TRAILER!!!");
	KEXPECT_EQ(initramfs_unpack(a->buf, a->len), 8);

	KASSERT((n = lookup("/ktest-fs", 0)));
	KEXPECT_EQ(n->mode, S_IFDIR | 0750);
	KEXPECT_EQ(n->gid, 7);
	inode_put(n);
	KASSERT((n = lookup("/ktest-fs/d/f", 0)) && (m = lookup("/ktest-fs/d/hard", 0)));
	KEXPECT(n == m);
	KEXPECT_EQ(n->nlink, 2);
	KEXPECT_EQ(n->size, 5);
	KEXPECT_EQ(n->mtime.sec, 12345);
	KEXPECT_EQ(ramfs_rw(n, 0, buf, sizeof(buf), 0), 5);
	KEXPECT(!memcmp(buf, "hello", 5));
	inode_put(m);
	KASSERT((m = lookup("/ktest-fs/d/link", LOOKUP_FOLLOW)));
	KEXPECT(m == n);
	inode_put(m);
	inode_put(n);
	KASSERT((n = lookup("/ktest-fs/d/null", 0)));
	KEXPECT_EQ(n->rdev, (1 << 8) | 3);
	inode_put(n);
	KASSERT((n = lookup("/ktest-fs/d/again", 0)));
	KEXPECT_EQ(n->size, 4);
	KEXPECT_EQ(n->mode, S_IFREG | 0644);
	inode_put(n);

	remove_tree();
	KEXPECT(!lookup("/ktest-fs", 0));
	KEXPECT_EQ(inodes_alive, inodes);
	KEXPECT_EQ(ramfs_pages, pages);
	kfree(a);
}

KTEST(initramfs_damage_keeps_what_came_before)
{
	struct archive *a = kzalloc(sizeof(*a));
	struct inode *n;

	KASSERT(a);
	add(a, 1, S_IFDIR | 0755, 2, 0, "", 0, 0, "ktest-fs");
	size_t good = a->len;
	add(a, 2, S_IFREG | 0644, 1, 0, "data", 0, 0, "ktest-fs/d");
	a->buf[good + 3] = 'X';				/* a bad magic */
	KEXPECT_EQ(initramfs_unpack(a->buf, a->len), -EINVAL);
	KEXPECT((n = lookup("/ktest-fs", 0)) != NULL);
	if (n)
		inode_put(n);
	a->len = good;
	add(a, 2, S_IFREG | 0644, 1, 0, "data", 0, 0, "ktest-fs/d");
	a->len -= 4;					/* the data cut short */
	KEXPECT_EQ(initramfs_unpack(a->buf, a->len), -EINVAL);
	vfs_unlink(AT_FDCWD, "/ktest-fs/d", false);
	vfs_unlink(AT_FDCWD, "/ktest-fs", true);
	kfree(a);
}

KTEST(path_walk_limits_and_mounts)
{
	char *path = kmalloc(PATH_MAX_LEN);
	struct inode *n, *root = vfs_root();

	KASSERT(path);
	KEXPECT_EQ(vfs_mknod(AT_FDCWD, "/ktest-loop", S_IFDIR | 0755, 0, NULL, NULL), 0);
	KEXPECT_EQ(vfs_mknod(AT_FDCWD, "/ktest-loop/a", S_IFLNK | 0777, 0, "b", NULL), 0);
	KEXPECT_EQ(vfs_mknod(AT_FDCWD, "/ktest-loop/b", S_IFLNK | 0777, 0, "a", NULL), 0);
	KEXPECT_EQ(vfs_lookup_at(AT_FDCWD, "/ktest-loop/a", LOOKUP_FOLLOW, &n), -ELOOP);
	memset(path, 'x', NAME_MAX_LEN + 2);	/* "/" and 256 bytes */
	path[0] = '/';
	path[NAME_MAX_LEN + 2] = '\0';
	KEXPECT_EQ(vfs_lookup_at(AT_FDCWD, path, 0, &n), -ENAMETOOLONG);
	/* ".." from a mounted root leaves the mount; "x/" must be a directory. */
	KEXPECT_EQ(vfs_lookup_at(AT_FDCWD, "/proc/..", 0, &n), 0);
	KEXPECT(n == root);
	inode_put(n);
	KEXPECT_EQ(vfs_lookup_at(AT_FDCWD, "/dev/null/", 0, &n), -ENOTDIR);
	KEXPECT_EQ(vfs_path_of(root, path, PATH_MAX_LEN), 2);
	KEXPECT_EQ(vfs_lookup_at(AT_FDCWD, "/dev", 0, &n), 0);
	KEXPECT_EQ(vfs_path_of(n, path, PATH_MAX_LEN), 5);
	KEXPECT(!strcmp(path, "/dev"));
	inode_put(n);
	vfs_unlink(AT_FDCWD, "/ktest-loop/a", false);
	vfs_unlink(AT_FDCWD, "/ktest-loop/b", false);
	KEXPECT_EQ(vfs_unlink(AT_FDCWD, "/ktest-loop", true), 0);
	kfree(path);
}
