/* The RAM file system of "/" (Linux's rootfs) and /dev (devtmpfs): every
 * inode lives while it has a name or a reference; directories are lists of
 * entries with stable positions, regular files are radix trees of page
 * frames (a hole is a frame never written, read as zeros), symlinks keep
 * their target. All of it is lost at power-off, as on Linux. */
#include "ramfs.h"
#include "vfs.h"
#include "../fd.h"
#include "../panic.h"
#include "../lib/string.h"
#include "../mm/frames.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include <asm-generic/errno.h>
#include <linux/fs.h>
#include <linux/stat.h>

long ramfs_pages;

/* tmpfs's directory size: 20 bytes an entry, "." and ".." included. */
#define BOGO_DIRENT_SIZE	20

/* A name in a directory. off is its position for getdents64: entries keep
 * theirs when others come and go, so a listing never skips or repeats. */
struct ramfs_dirent {
	struct ramfs_dirent *next;
	struct inode *inode;		/* the entry holds a reference */
	long off;
	size_t len;
	char name[];
};

struct ramfs_node {
	/* directories */
	struct ramfs_dirent *entries;
	long next_off;
	/* regular files: the frame of page i (bytes [i * PAGE_SIZE, (i + 1) *
	 * PAGE_SIZE)) in a radix tree of RADIX_SLOTS to a node, levels deep:
	 * a page far out costs a node a level, as in Linux's page cache, not
	 * an array as long as its index */
	uint64_t root;			/* a node's address; 0: no page */
	unsigned levels;
	/* symlinks */
	char *target;
};

static const struct inode_ops ramfs_ops;

static struct ramfs_node *node_of(const struct inode *n)
{
	return n->priv;
}

static struct ramfs_dirent *find(struct inode *dir, const char *name, size_t len,
				 struct ramfs_dirent ***link)
{
	struct ramfs_dirent **p = &node_of(dir)->entries;

	for (; *p; p = &(*p)->next)
		if ((*p)->len == len && !memcmp((*p)->name, name, len))
			break;
	if (link)
		*link = p;
	return *p;
}

static int ramfs_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	struct ramfs_dirent *d = find(dir, name, len, NULL);

	if (!d)
		return -ENOENT;
	inode_get(d->inode);
	*out = d->inode;
	return 0;
}

static unsigned char dtype(unsigned mode)
{
	return (mode & S_IFMT) >> 12;	/* DT_* are S_IFMT's top bits */
}

static int ramfs_iterate(struct inode *dir, long pos, dir_emit_t emit, void *ctx)
{
	if (pos == 0 && !emit(ctx, ".", 1, dir->ino, dtype(S_IFDIR), 1))
		return 0;
	if (pos <= 1) {
		struct inode *up = dir->parent ? dir->parent : dir;
		if (!emit(ctx, "..", 2, up->ino, dtype(S_IFDIR), 2))
			return 0;
	}
	for (struct ramfs_dirent *d = node_of(dir)->entries; d; d = d->next)
		if (d->off >= pos && !emit(ctx, d->name, d->len, d->inode->ino,
					   dtype(d->inode->mode), d->off + 1))
			break;
	return 0;
}

/* Append a name for n (taking a reference) to dir. */
static int add_entry(struct inode *dir, const char *name, size_t len, struct inode *n)
{
	struct ramfs_dirent *d = kmalloc(sizeof(*d) + len);
	struct ramfs_dirent **tail;

	if (!d)
		return -ENOMEM;
	find(dir, "", SIZE_MAX, &tail);		/* no entry matches: the list's end */
	d->next = NULL;
	d->inode = n;
	d->off = 2 + node_of(dir)->next_off++;
	d->len = len;
	memcpy(d->name, name, len);
	*tail = d;
	inode_get(n);
	dir->size += BOGO_DIRENT_SIZE;
	inode_touch(dir, true, true);
	return 0;
}

static void drop_entry(struct inode *dir, struct ramfs_dirent **link)
{
	struct ramfs_dirent *d = *link;

	*link = d->next;
	dir->size -= BOGO_DIRENT_SIZE;
	inode_touch(dir, true, true);
	inode_put(d->inode);
	kfree(d);
}

struct inode *ramfs_new_inode(struct super_block *sb, unsigned mode)
{
	struct inode *n = inode_new(sb, mode, &ramfs_ops, NULL);
	struct ramfs_node *r = kzalloc(sizeof(*r));

	if (!n || !r) {
		kfree(r);
		if (n) {
			n->priv = NULL;
			inode_put(n);
		}
		return NULL;
	}
	n->priv = r;
	n->fops = S_ISREG(mode) ? &ramfs_file_ops : S_ISDIR(mode) ? &vfs_dir_file_ops : NULL;
	if (S_ISDIR(mode)) {
		n->nlink = 2;
		n->size = 2 * BOGO_DIRENT_SIZE;
	}
	return n;
}

static int ramfs_create(struct inode *dir, const char *name, size_t len, unsigned mode,
			uint32_t rdev, const char *target, struct inode **out)
{
	struct inode *n = ramfs_new_inode(dir->sb, mode);
	int err = -ENOMEM;

	if (!n)
		return -ENOMEM;
	n->rdev = rdev;
	if (target) {
		size_t tlen = strlen(target);
		if (!(node_of(n)->target = kmalloc(tlen + 1)))
			goto fail;
		memcpy(node_of(n)->target, target, tlen + 1);
		n->size = tlen;
	}
	if (S_ISDIR(mode) && (err = inode_set_name(n, dir, name, len)))
		goto fail;
	if ((err = add_entry(dir, name, len, n)))
		goto fail;
	if (S_ISDIR(mode))
		dir->nlink++;
	*out = n;		/* the creator's reference */
	return 0;
fail:
	n->nlink = 0;
	inode_put(n);
	return err;
}

static int ramfs_link(struct inode *dir, const char *name, size_t len, struct inode *target)
{
	int err = add_entry(dir, name, len, target);

	if (!err) {
		target->nlink++;
		inode_touch(target, false, true);
	}
	return err;
}

static int ramfs_unlink(struct inode *dir, const char *name, size_t len)
{
	struct ramfs_dirent **link, *d = find(dir, name, len, &link);

	if (!d)
		return -ENOENT;
	struct inode *n = d->inode;
	if (inode_is_dir(n)) {
		n->nlink = 0;
		dir->nlink--;
	} else {
		n->nlink--;
	}
	inode_touch(n, false, true);
	drop_entry(dir, link);
	return 0;
}

static int ramfs_rename(struct inode *odir, const char *oname, size_t olen,
			struct inode *ndir, const char *nname, size_t nlen, unsigned flags)
{
	struct ramfs_dirent **olink, **nlink;
	struct ramfs_dirent *od = find(odir, oname, olen, &olink);
	struct ramfs_dirent *nd = find(ndir, nname, nlen, &nlink);
	struct inode *n = od->inode;

	if (flags & RENAME_EXCHANGE) {
		struct inode *m = nd->inode;
		od->inode = m;
		nd->inode = n;
		if (inode_is_dir(n) && inode_set_name(n, ndir, nname, nlen))
			return -ENOMEM;
		if (inode_is_dir(m) && inode_set_name(m, odir, oname, olen))
			return -ENOMEM;
		odir->nlink += inode_is_dir(m) - inode_is_dir(n);
		ndir->nlink += inode_is_dir(n) - inode_is_dir(m);
		inode_touch(odir, true, true);
		inode_touch(ndir, true, true);
		return 0;
	}
	if (inode_is_dir(n) && inode_set_name(n, ndir, nname, nlen))
		return -ENOMEM;
	if (nd) {			/* the VFS checked the replacement is allowed */
		if (nd->inode == n) {	/* two names of one inode: Linux does nothing */
			return 0;
		}
		int err = ramfs_unlink(ndir, nname, nlen);
		if (err)
			return err;
	}
	int err = add_entry(ndir, nname, nlen, n);
	if (err)
		return err;
	if (inode_is_dir(n)) {
		odir->nlink--;
		ndir->nlink++;
	}
	find(odir, oname, olen, &olink);	/* add_entry may have moved the tail */
	drop_entry(odir, olink);
	inode_touch(n, false, true);
	return 0;
}

static long ramfs_readlink(struct inode *n, char *buf, size_t size)
{
	size_t len = MIN(n->size, size);

	memcpy(buf, node_of(n)->target, len);
	return len;
}

/* ---- regular file data ---- */

#define RADIX_BITS	6
#define RADIX_SLOTS	(1u << RADIX_BITS)	/* 512-byte nodes, from the slab */
#define NODE_SIZE	(RADIX_SLOTS * sizeof(uint64_t))

/* The slot of page index (a frame's address, or 0), the nodes on the way
 * made when alloc; NULL when missing or out of memory. */
static uint64_t *page_slot(struct ramfs_node *r, uint64_t index, bool alloc)
{
	if (index > MAX_LFS_FILESIZE / PAGE_SIZE)
		return NULL;		/* past any file: the shifts below stay under 64 */
	while (!r->levels || index >> (RADIX_BITS * r->levels)) {
		if (!alloc)
			return NULL;
		if (r->root) {		/* the tree grows at the top */
			uint64_t *top = kzalloc(NODE_SIZE);
			if (!top)
				return NULL;
			top[0] = r->root;
			r->root = (uint64_t)top;
		}
		r->levels++;
	}
	uint64_t *slot = &r->root;
	for (unsigned level = r->levels; level > 0; level--) {
		if (!*slot && (!alloc || !(*slot = (uint64_t)kzalloc(NODE_SIZE))))
			return NULL;
		slot = (uint64_t *)*slot + (index >> (RADIX_BITS * (level - 1)) & (RADIX_SLOTS - 1));
	}
	return slot;
}

uint64_t ramfs_page(struct inode *n, uint64_t index, bool alloc)
{
	uint64_t *slot = page_slot(node_of(n), index, alloc);

	if (!slot || *slot || !alloc)
		return slot ? *slot : 0;
	uint64_t phys = frame_alloc_zeroed();
	if (phys) {
		*slot = phys;
		n->blocks += PAGE_SIZE / 512;
		ramfs_pages++;
	}
	return phys;
}

/* Drop the pages from keep on under the node in *slot, which covers pages
 * [base, base + RADIX_SLOTS^level) (level 0: *slot is a page's frame), and
 * the node when nothing is left under it. Frames a shared mapping may have
 * in its page tables are zeroed instead and kept until the file goes
 * (Linux unmaps them; here a store past the end lands in a kept frame and
 * is dropped if the file grows again, instead of raising SIGBUS). */
static void trim(struct inode *n, uint64_t *slot, unsigned level, uint64_t base, uint64_t keep)
{
	if (!*slot)
		return;
	if (!level) {
		if (base < keep)
			return;
		if (n->mmap_shared) {
			memset(phys_to_virt(*slot), 0, PAGE_SIZE);
			return;
		}
		frame_free(*slot);
		*slot = 0;
		n->blocks -= PAGE_SIZE / 512;
		ramfs_pages--;
		return;
	}
	uint64_t *node = (uint64_t *)*slot, span = 1ull << (RADIX_BITS * (level - 1));
	bool empty = true;
	for (unsigned i = 0; i < RADIX_SLOTS; i++) {
		if (base + (i + 1) * span > keep)
			trim(n, &node[i], level - 1, base + i * span, keep);
		empty &= !node[i];
	}
	if (empty) {
		kfree(node);
		*slot = 0;
	}
}

/* Free the frames past size and zero the tail of the last one kept, so a
 * file that grows again reads zeros there. */
static int ramfs_truncate(struct inode *n, uint64_t size)
{
	struct ramfs_node *r = node_of(n);
	uint64_t keep = ALIGN_UP(size, PAGE_SIZE) / PAGE_SIZE;

	trim(n, &r->root, r->levels, 0, keep);
	if (!r->root)
		r->levels = 0;
	uint64_t *last = size % PAGE_SIZE ? page_slot(r, keep - 1, false) : NULL;
	if (last && *last)
		memset((char *)phys_to_virt(*last) + size % PAGE_SIZE, 0,
		       PAGE_SIZE - size % PAGE_SIZE);
	n->size = size;
	return 0;
}

static void ramfs_evict(struct inode *n)
{
	struct ramfs_node *r = node_of(n);

	if (!r)
		return;
	assert(!r->entries);		/* a directory goes only when empty */
	assert(!n->mmap_shared);	/* a mapping holds its file */
	if (inode_is_reg(n))
		ramfs_truncate(n, 0);
	assert(!r->root);
	kfree(r->target);
	kfree(r);
}

static const struct inode_ops ramfs_ops = {
	.lookup = ramfs_lookup,
	.iterate = ramfs_iterate,
	.create = ramfs_create,
	.link = ramfs_link,
	.unlink = ramfs_unlink,
	.rename = ramfs_rename,
	.readlink = ramfs_readlink,
	.truncate = ramfs_truncate,
	.evict = ramfs_evict,
};

struct super_block *ramfs_new(const char *type, const char *source, long magic)
{
	struct super_block *sb = sb_new(type, source, magic);

	if (!sb)
		return NULL;
	sb->root = ramfs_new_inode(sb, S_IFDIR | 0755);
	if (!sb->root) {
		kfree(sb);
		return NULL;
	}
	return sb;
}
