/* Character devices by number (Linux's devices.txt: mem 1:*, tty 5:*,
 * ttyS 4:64) and /dev, a RAM file system (devtmpfs) holding their nodes and
 * the fd, stdin, stdout, stderr links that udev makes on Linux. */
#include "dev.h"
#include "../pipe.h"
#include "ramfs.h"
#include "vfs.h"
#include "../fd.h"
#include "../printk.h"
#include "../tty.h"
#include "../lib/string.h"
#include "../mm/uspace.h"
#include "../mm/uaccess.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>
#include <linux/magic.h>
#include <linux/stat.h>

#define MKDEV(ma, mi)	((mi & 0xff) | ((ma) << 8) | ((mi & ~0xffu) << 12))

long dev_random_read(char *ubuf, size_t n)
{
	/* Deterministic (xorshift64), so runs repeat exactly: pmuos is a
	 * measuring instrument, not a source of secrets. */
	static uint64_t state = 0x9e3779b97f4a7c15ul;

	for (size_t done = 0; done < n; done += 8) {
		state ^= state << 13, state ^= state >> 7, state ^= state << 17;
		if (copy_to_user(ubuf + done, &state, MIN((size_t)8, n - done)))
			return done ? (long)done : -EFAULT;
	}
	return n;
}

static long null_read(struct file *f, char *ubuf, size_t n)
{
	return 0;
}

static long null_write(struct file *f, const char *ubuf, size_t n)
{
	return n;
}

static long zero_read(struct file *f, char *ubuf, size_t n)
{
	return clear_user(ubuf, n) ? -EFAULT : (long)n;
}

static long full_write(struct file *f, const char *ubuf, size_t n)
{
	return -ENOSPC;
}

static long random_read(struct file *f, char *ubuf, size_t n)
{
	return dev_random_read(ubuf, n);
}

/* Writes to /dev/kmsg become kernel log lines, as on Linux; there is no
 * log buffer to read back (the console is the log). */
static long kmsg_read(struct file *f, char *ubuf, size_t n)
{
	return -EAGAIN;
}

static long kmsg_write(struct file *f, const char *ubuf, size_t n)
{
	char buf[256];
	size_t len = MIN(n, sizeof(buf) - 1);

	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	printk("%s%s", buf, len && buf[len - 1] == '\n' ? "" : "\n");
	return n;
}

/* /dev/zero maps as anonymous memory: private zero pages, as Linux's
 * mmap_zero gives (a shared one is shmem on Linux; here it is not shared
 * with anyone but the mapping's own process). */
static long zero_mmap(struct file *f, struct vma *v)
{
	v->flags = (v->flags & ~VM_SPECIAL) | VM_ANON;
	return 0;
}

/* mem devices seek to nowhere and stay at 0, as Linux's null_lseek does. */
static long null_lseek(struct file *f, long off, int whence)
{
	return f->pos = 0;
}

static const struct file_ops null_ops = { .read = null_read, .write = null_write,
					  .lseek = null_lseek };
static const struct file_ops zero_ops = { .read = zero_read, .write = null_write,
					  .lseek = null_lseek, .mmap = zero_mmap };
static const struct file_ops full_ops = { .read = zero_read, .write = full_write,
					  .lseek = null_lseek };
static const struct file_ops random_ops = { .read = random_read, .write = null_write };
static const struct file_ops kmsg_ops = { .read = kmsg_read, .write = kmsg_write };

static const struct chrdev {
	const char *name;
	unsigned major, minor, mode;
	const struct file_ops *ops;
} chrdevs[] = {
	{ "null", 1, 3, 0666, &null_ops },
	{ "zero", 1, 5, 0666, &zero_ops },
	{ "full", 1, 7, 0666, &full_ops },
	{ "random", 1, 8, 0666, &random_ops },
	{ "urandom", 1, 9, 0666, &random_ops },
	{ "kmsg", 1, 11, 0644, &kmsg_ops },
	{ "tty", 5, 0, 0666, NULL },		/* the console: one terminal */
	{ "console", 5, 1, 0600, NULL },
	{ "ttyS0", 4, 64, 0660, NULL },
};

static const struct { const char *name, *target; } links[] = {
	{ "fd", "/proc/self/fd" },
	{ "stdin", "/proc/self/fd/0" },
	{ "stdout", "/proc/self/fd/1" },
	{ "stderr", "/proc/self/fd/2" },
};

int dev_open(struct inode *n, struct file *f)
{
	if (S_ISFIFO(n->mode))
		return fifo_open(n, f);
	if (!S_ISCHR(n->mode))
		return -ENXIO;		/* block devices, sockets: none here */
	for (size_t i = 0; i < ARRAY_SIZE(chrdevs); i++) {
		if (MKDEV(chrdevs[i].major, chrdevs[i].minor) != n->rdev)
			continue;
		if (!chrdevs[i].ops)
			return tty_open(f);
		f->ops = chrdevs[i].ops;
		return 0;
	}
	return -ENXIO;
}

int dev_open_console(struct fd_table *t)
{
	struct vfs_found found = { 0 };
	struct inode *n;
	struct file *f;
	int err = vfs_lookup_found(AT_FDCWD, "/dev/console", LOOKUP_FOLLOW, &n, &found);

	if (err)
		return err;
	err = vfs_open_inode(n, O_RDWR, &f);
	inode_put(n);
	if (!err && (err = vfs_file_set_path(f, &found)))
		file_put(f);
	if (found.dir)
		inode_put(found.dir);
	if (err)
		return err;
	for (int fd = 0; fd < 3; fd++) {
		if (fd)
			file_get(f);
		fd_install(t, f, fd, false);
	}
	return 0;
}

int dev_init(void)
{
	struct super_block *sb = ramfs_new("devtmpfs", "devtmpfs", TMPFS_MAGIC);
	int err;

	if (!sb)
		return -ENOMEM;
	if ((err = vfs_mknod(AT_FDCWD, "/dev", S_IFDIR | 0755, 0, NULL, NULL)) && err != -EEXIST)
		return err;
	if ((err = vfs_mount(sb, "/dev")))
		return err;
	for (size_t i = 0; i < ARRAY_SIZE(chrdevs); i++) {
		const struct chrdev *c = &chrdevs[i];
		char path[32] = "/dev/";
		memcpy(path + 5, c->name, strlen(c->name) + 1);
		if ((err = vfs_mknod(AT_FDCWD, path, S_IFCHR | c->mode,
				     MKDEV(c->major, c->minor), NULL, NULL)))
			return err;
	}
	for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
		char path[32] = "/dev/";
		memcpy(path + 5, links[i].name, strlen(links[i].name) + 1);
		if ((err = vfs_mknod(AT_FDCWD, path, S_IFLNK | 0777, 0, links[i].target, NULL)))
			return err;
	}
	return 0;
}
