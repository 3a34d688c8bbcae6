/* /sys as a mounted file system: the generated tree of kernel/sysfs.c seen
 * through VFS inodes. Each inode keeps the canonical path of its node and
 * asks sysfs.c again at every lookup, listing and read, so what it shows is
 * always the present state; a node that has vanished reads as ENODEV, as
 * kernfs answers. */
#include "vfs.h"
#include "../fd.h"
#include "../sysfs.h"
#include "../lib/string.h"
#include "../mm/kmalloc.h"
#include "../mm/uaccess.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>
#include <linux/magic.h>
#include <linux/stat.h>

static const struct inode_ops sysfs_ops;
static const struct file_ops sysfs_file_ops;
static struct super_block *sysfs_sb;

/* One CPU: lookups and reads never nest, one scratch buffer serves them
 * and leaves the heap alone, so reading the accounting file does not
 * change what it reports. */
static struct sysfs_lookup scratch;
static char text_buf[SYSFS_FILE_SIZE];

static const char *path_of(const struct inode *n)
{
	return n->priv;
}

static struct inode *make_inode(const struct sysfs_lookup *res)
{
	struct inode *n = inode_new(sysfs_sb, res->mode, &sysfs_ops,
				    res->kind == SYSFS_DIR ? &vfs_dir_file_ops : &sysfs_file_ops);
	size_t len = strlen(res->path) + 1;

	if (!n)
		return NULL;
	if (!(n->priv = kmalloc(len))) {
		inode_put(n);
		return NULL;
	}
	memcpy(n->priv, res->path, len);
	n->ino = res->ino;
	n->nlink = res->nlink;
	n->size = res->size;
	n->atime = n->mtime = n->ctime = n->btime = (struct vfs_time){ 0 };
	return n;
}

static int sysfs_lookup_op(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	const char *base = path_of(dir);
	size_t blen = strlen(base);
	char path[SYSFS_PATH_MAX];

	if (blen + 1 + len + 1 > sizeof(path))
		return -ENOENT;
	memcpy(path, base, blen);
	path[blen] = '/';
	memcpy(path + blen + 1, name, len);
	path[blen + 1 + len] = '\0';
	int err = sysfs_lookup(NULL, path, false, &scratch);
	if (err)
		return err;
	*out = make_inode(&scratch);
	return *out ? 0 : -ENOMEM;
}

struct iterate_ctx {
	dir_emit_t emit;
	void *ctx;
};

static bool emit_one(void *ctx, const struct sysfs_dirent *d, long next)
{
	struct iterate_ctx *c = ctx;

	return c->emit(c->ctx, d->name, strlen(d->name), d->ino, d->type, next);
}

static int sysfs_iterate_op(struct inode *dir, long pos, dir_emit_t emit, void *ctx)
{
	struct iterate_ctx c = { emit, ctx };

	return sysfs_iterate(path_of(dir), pos, emit_one, &c);
}

static long sysfs_readlink_op(struct inode *n, char *buf, size_t size)
{
	long len = sysfs_read_text(path_of(n), text_buf, sizeof(text_buf));

	if (len < 0)
		return len;
	len = MIN((size_t)len, size);
	memcpy(buf, text_buf, len);
	return len;
}

/* kernfs's open: a file without a store method refuses writers, root
 * included. */
static int sysfs_open_op(struct inode *n, struct file *f)
{
	unsigned acc = f->flags & O_ACCMODE;

	if (S_ISREG(n->mode) && (acc == O_WRONLY || acc == O_RDWR))
		return -EACCES;
	return 0;
}

static void sysfs_evict(struct inode *n)
{
	kfree(n->priv);
}

static const struct inode_ops sysfs_ops = {
	.lookup = sysfs_lookup_op,
	.iterate = sysfs_iterate_op,
	.readlink = sysfs_readlink_op,
	.open = sysfs_open_op,
	.evict = sysfs_evict,
};

static long file_read(struct file *f, char *ubuf, size_t n)
{
	long len = sysfs_read_text(path_of(f->inode), text_buf, sizeof(text_buf));

	if (len < 0)
		return len == -ENOENT ? -ENODEV : len;	/* gone while open */
	if (f->pos >= len)
		return 0;
	size_t k = MIN(n, (size_t)(len - f->pos));
	if (copy_to_user(ubuf, text_buf + f->pos, k))
		return -EFAULT;
	f->pos += k;
	return k;
}

/* generic_file_llseek over SYSFS_FILE_SIZE, sysfs's st_size. */
static long file_lseek(struct file *f, long off, int whence)
{
	return vfs_llseek(f, off, whence, SYSFS_FILE_SIZE);
}

static const struct file_ops sysfs_file_ops = {
	.read = file_read,
	.lseek = file_lseek,
};

int sysfs_mount(void)
{
	int err;

	if (!(sysfs_sb = sb_new("sysfs", "sysfs", SYSFS_MAGIC)))
		return -ENOMEM;
	sysfs_sb->read_only_names = true;
	if ((err = sysfs_lookup(NULL, "/sys", false, &scratch)))
		return err;
	if (!(sysfs_sb->root = make_inode(&scratch)))
		return -ENOMEM;
	err = vfs_mknod(AT_FDCWD, "/sys", S_IFDIR | 0755, 0, NULL, NULL);
	if (err && err != -EEXIST)
		return err;
	return vfs_mount(sysfs_sb, "/sys");
}
