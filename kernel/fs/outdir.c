/* Files for the host: at halt, every regular file under /out goes out
 * through hostout (COM2, or framed on COM1), named by its path below /out;
 * tests/qemu/run.py puts them under build/out/. */
#include "ramfs.h"
#include "vfs.h"
#include "../hostout.h"
#include "../printk.h"
#include "../lib/string.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include <linux/fcntl.h>

/* A directory's names, listed before any is visited (sending changes
 * nothing, but a list keeps the walk simple to reason about). */
struct name {
	struct name *next;
	char s[];
};

static bool collect(void *ctx, const char *name, size_t len, uint64_t ino, unsigned char dtype,
		    long next)
{
	struct name **list = ctx, *n;

	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (!(n = kmalloc(sizeof(*n) + len + 1)))
		return false;
	memcpy(n->s, name, len);
	n->s[len] = '\0';
	n->next = *list;
	*list = n;
	return true;
}

static int send_file(struct inode *n, const char *name, char *buf)
{
	if (!hostout_begin(name, n->size))
		return 0;
	for (uint64_t pos = 0; pos < n->size; pos += PAGE_SIZE) {
		long got = ramfs_rw(n, pos, buf, PAGE_SIZE, 0);
		hostout_write(buf, got > 0 ? got : 0);
	}
	hostout_end();
	return 1;
}

/* path holds dir's path below /out (len bytes); the files sent. */
static int send_dir(struct inode *dir, char *path, size_t len, char *buf)
{
	struct name *names = NULL;
	int sent = 0;

	if (dir->ops->iterate)
		dir->ops->iterate(dir, 0, collect, &names);
	while (names) {
		struct name *nm = names;
		struct inode *n;
		size_t nlen = strlen(nm->s);
		names = nm->next;
		if (len + 1 + nlen < HOSTOUT_PATH_MAX && !vfs_child(dir, nm->s, nlen, &n)) {
			size_t at = len ? len + 1 : 0;
			if (len)
				path[len] = '/';
			memcpy(path + at, nm->s, nlen + 1);
			if (inode_is_dir(n))
				sent += send_dir(n, path, at + nlen, buf);
			else if (inode_is_reg(n))
				sent += send_file(n, path, buf);
			path[len] = '\0';
			inode_put(n);
		}
		kfree(nm);
	}
	return sent;
}

void outdir_send(const char *dir)
{
	struct inode *n;
	char *path = kzalloc(HOSTOUT_PATH_MAX), *buf = kmalloc(PAGE_SIZE);

	if (path && buf && hostout_available() &&
	    !vfs_lookup_at(AT_FDCWD, dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &n)) {
		int sent = send_dir(n, path, 0, buf);
		inode_put(n);
		if (sent)
			printk("pmuos: %d files of %s sent to the host\n", sent, dir);
	}
	kfree(path);
	kfree(buf);
}
