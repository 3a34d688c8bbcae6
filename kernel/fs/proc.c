/* /proc: generated from the kernel's state at every lookup and read. */
#include "initramfs.h"
#include "vfs.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>
#include <linux/magic.h>
#include <linux/stat.h>

static int root_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	return -ENOENT;
}

static int root_iterate(struct inode *dir, long pos, dir_emit_t emit, void *ctx)
{
	if (pos == 0 && !emit(ctx, ".", 1, dir->ino, 4, 1))
		return 0;
	if (pos <= 1)
		emit(ctx, "..", 2, dir->parent ? dir->parent->ino : dir->ino, 4, 2);
	return 0;
}

static const struct inode_ops root_ops = {
	.lookup = root_lookup,
	.iterate = root_iterate,
};

int proc_mount(void)
{
	struct super_block *sb = sb_new("proc", "proc", PROC_SUPER_MAGIC);
	int err;

	if (!sb)
		return -ENOMEM;
	sb->read_only_names = true;
	if (!(sb->root = inode_new(sb, S_IFDIR | 0555, &root_ops, &vfs_dir_file_ops)))
		return -ENOMEM;
	err = vfs_mknod(AT_FDCWD, "/proc", S_IFDIR | 0555, 0, NULL, NULL);
	if (err && err != -EEXIST)
		return err;
	return vfs_mount(sb, "/proc");
}
