/* Inodes (reference-counted, freed by their file system's evict) and mounts
 * (a super block per mounted file system, found from the directory it
 * covers). One CPU, and no file system operation sleeps: no locks yet; the
 * SMP issue adds one per super block. */
#include "../clock.h"
#include "vfs.h"
#include "../panic.h"
#include "../syscall.h"
#include "../lib/string.h"
#include "../mm/frames.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include <asm-generic/errno.h>
#include <asm-generic/statfs.h>
#include <linux/magic.h>
#include <linux/time.h>

#define ST_VALID	0x0020	/* statfs f_flags (include/linux/statfs.h) */
#define ST_RELATIME	0x1000


long inodes_alive;
struct super_block *vfs_mounts;
static struct super_block *root_sb;
static uint32_t next_anon_dev = 0x10;	/* 0:16 on: Linux's anonymous devices */

struct vfs_time vfs_now(void)
{
	uint64_t ns = 0;

	clock_read_ns(CLOCK_REALTIME, &ns);
	return (struct vfs_time){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
}

struct inode *inode_new(struct super_block *sb, unsigned mode, const struct inode_ops *ops,
			const struct file_ops *fops)
{
	struct inode *n = kzalloc(sizeof(*n));

	if (!n)
		return NULL;
	n->sb = sb;
	n->ino = ++sb->next_ino;
	n->mode = mode;
	n->nlink = 1;
	n->refs = 1;
	n->ops = ops;
	n->fops = fops;
	n->atime = n->mtime = n->ctime = n->btime = vfs_now();
	inodes_alive++;
	return n;
}

void inode_get(struct inode *n)
{
	assert(n->refs > 0);
	n->refs++;
}

void inode_put(struct inode *n)
{
	while (n) {
		assert(n->refs > 0);
		if (--n->refs)
			return;
		struct inode *parent = n->parent;
		if (n->ops->evict)
			n->ops->evict(n);
		kfree(n->name);
		kfree(n);
		inodes_alive--;
		n = parent;	/* a directory held its parent: iterate, never recurse */
	}
}

int inode_set_name(struct inode *dir, struct inode *parent, const char *name, size_t len)
{
	char *copy = kmalloc(len + 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, name, len);
	copy[len] = '\0';
	kfree(dir->name);
	dir->name = copy;
	if (parent != dir->parent) {
		if (parent)
			inode_get(parent);
		inode_put(dir->parent);
		dir->parent = parent;
	}
	return 0;
}

void inode_touch(struct inode *n, bool mtime, bool ctime)
{
	struct vfs_time now = vfs_now();

	if (mtime)
		n->mtime = now;
	if (ctime)
		n->ctime = now;
}

struct super_block *sb_new(const char *type, const char *source, long magic)
{
	struct super_block *sb = kzalloc(sizeof(*sb));

	if (!sb)
		return NULL;
	sb->type = type;
	sb->source = source;
	sb->magic = magic;
	sb->dev = next_anon_dev++;
	return sb;
}

/* Mount ids as Linux's init sees them: "/" is 1, later mounts count from 20
 * (Linux's internal mounts take the numbers between). */
static void sb_append(struct super_block *sb)
{
	struct super_block **p = &vfs_mounts;
	int id = 20;

	while (*p) {
		p = &(*p)->next;
		id++;
	}
	sb->mnt_id = p == &vfs_mounts ? 1 : id;
	*p = sb;
}

void vfs_set_root(struct super_block *sb)
{
	assert(!root_sb);
	root_sb = sb;
	sb->root->parent = NULL;
	sb_append(sb);
}

struct inode *vfs_root(void)
{
	return root_sb->root;
}

/* A mounted root's ".." is the mountpoint's parent, and its name the
 * mountpoint's: the walk and getcwd then never see the covered directory. */
int vfs_mount(struct super_block *sb, const char *path)
{
	struct inode *mp;
	int err = vfs_walk(vfs_root(), path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &mp);

	if (err)
		return err;
	if (mp->mounted) {
		inode_put(mp);
		return -EBUSY;
	}
	err = inode_set_name(sb->root, mp->parent, mp->name, strlen(mp->name));
	if (err) {
		inode_put(mp);
		return err;
	}
	mp->mounted = sb;
	sb->mountpoint = mp;	/* keeps the reference */
	sb_append(sb);
	return 0;
}

/* A RAM file system may fill what the allocator has: sizes from there, as
 * tmpfs reports its limit and use. Synthetic ones report zeros. */
void vfs_statfs(struct inode *n, struct statfs *st)
{
	struct super_block *sb = n->sb;
	bool ram = sb->magic == RAMFS_MAGIC || sb->magic == TMPFS_MAGIC;

	*st = (struct statfs){
		.f_type = sb->magic, .f_bsize = PAGE_SIZE, .f_namelen = NAME_MAX_LEN,
		.f_frsize = PAGE_SIZE, .f_flags = ST_VALID | ST_RELATIME,
	};
	if (ram) {
		st->f_blocks = frame_stats.total;
		st->f_bfree = st->f_bavail = frame_stats.free;
		st->f_files = frame_stats.total;
		st->f_ffree = frame_stats.total - MIN((uint64_t)inodes_alive, frame_stats.total);
	}
	st->f_fsid.val[0] = sb->dev;
}
