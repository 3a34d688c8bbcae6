/* The initramfs: cpio "newc" archives (Linux's
 * Documentation/driver-api/early-userspace/buffer-format.rst) unpacked into
 * the root file system at boot, as Linux's init/initramfs.c does: entries in
 * order, later ones replacing earlier ones, hard links by (dev, ino), modes,
 * owners and mtimes kept. */
#include "initramfs.h"
#include "ramfs.h"
#include "vfs.h"
#include "../printk.h"
#include "../lib/string.h"
#include "../mm/kmalloc.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>
#include <linux/stat.h>

#define NEWC_MAGIC	"070701"
#define NEWC_CRC_MAGIC	"070702"
#define NEWC_HDR	110	/* the magic and 13 fields of 8 hex digits */
#define TRAILER		"TRAILER!!!"

/* The fields, in the archive's order. */
enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE, F_MAJOR, F_MINOR,
       F_RMAJOR, F_RMINOR, F_NAMESIZE, F_CHECK, NR_FIELDS };

/* Files with more than one name, by the archive's (dev, ino): the first
 * one made, which later names link to. */
struct hardlink {
	struct hardlink *next;
	uint32_t major, minor, ino;
	struct inode *inode;
};

static bool parse_hex(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 8; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

/* Linux's new_encode_dev: what st_rdev reads back. */
static uint32_t encode_dev(uint32_t major, uint32_t minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

/* A name of the archive's (relative, maybe "./"-prefixed) as an absolute
 * path in buf. */
static bool make_path(char *buf, const char *name, size_t len)
{
	while (len >= 2 && name[0] == '.' && name[1] == '/')
		name += 2, len -= 2;
	if (len + 2 > PATH_MAX_LEN)
		return false;
	buf[0] = '/';
	memcpy(buf + 1, name, len);
	buf[len + 1] = '\0';
	return true;
}

static int make_entry(const char *path, const uint32_t *f, const char *data,
		      struct hardlink **links)
{
	unsigned mode = f[F_MODE];
	struct inode *n = NULL;
	struct hardlink *h = NULL;
	int err;

	if (S_ISREG(mode) && f[F_NLINK] > 1) {
		for (h = *links; h; h = h->next)
			if (h->ino == f[F_INO] && h->major == f[F_MAJOR] && h->minor == f[F_MINOR])
				break;
		if (h) {
			vfs_unlink(AT_FDCWD, path, false);
			if ((err = vfs_link(h->inode, AT_FDCWD, path)))
				return err;
			n = h->inode;
			inode_get(n);
		}
	}
	if (!n) {
		char *target = NULL;
		if (S_ISLNK(mode)) {	/* the data is the target */
			if (!(target = kmalloc(f[F_FILESIZE] + 1)))
				return -ENOMEM;
			memcpy(target, data, f[F_FILESIZE]);
			target[f[F_FILESIZE]] = '\0';
		}
		/* Like Linux, a later entry replaces an earlier non-directory. */
		if (!S_ISDIR(mode))
			vfs_unlink(AT_FDCWD, path, false);
		err = vfs_mknod(AT_FDCWD, path, mode, encode_dev(f[F_RMAJOR], f[F_RMINOR]),
				target, &n);
		kfree(target);
		if (err == -EEXIST && S_ISDIR(mode))
			err = vfs_lookup_at(AT_FDCWD, path, 0, &n);
		if (err)
			return err;
		if (S_ISREG(mode) && f[F_NLINK] > 1 && (h = kzalloc(sizeof(*h)))) {
			*h = (struct hardlink){ *links, f[F_MAJOR], f[F_MINOR], f[F_INO], n };
			inode_get(n);
			*links = h;
		}
	}
	if (S_ISREG(mode) && f[F_FILESIZE]) {
		long r = ramfs_rw(n, 0, (void *)data, f[F_FILESIZE], RW_WRITE);
		err = r < 0 ? (int)r : 0;
	}
	n->mode = mode;
	n->uid = f[F_UID];
	n->gid = f[F_GID];
	n->mtime = n->ctime = (struct vfs_time){ f[F_MTIME], 0 };
	inode_put(n);
	return err;
}

int initramfs_unpack(const void *archive, size_t size)
{
	const char *p = archive, *end = p + size;
	struct hardlink *links = NULL;
	char *path = kmalloc(PATH_MAX_LEN);
	int err = 0, files = 0;

	if (!path)
		return -ENOMEM;
	while (p + NEWC_HDR <= end) {
		uint32_t f[NR_FIELDS];
		if (!*p) {		/* zero padding between archives, as Linux allows */
			p++;
			continue;
		}
		err = -EINVAL;
		if (memcmp(p, NEWC_MAGIC, 6) && memcmp(p, NEWC_CRC_MAGIC, 6))
			break;
		bool ok = true;
		for (int i = 0; i < NR_FIELDS; i++)
			ok &= parse_hex(p + 6 + 8 * i, &f[i]);
		const char *name = p + NEWC_HDR;
		const char *data = p + ALIGN_UP(NEWC_HDR + f[F_NAMESIZE], 4);
		if (!ok || !f[F_NAMESIZE] || data > end || name[f[F_NAMESIZE] - 1] ||
		    f[F_FILESIZE] > (size_t)(end - data))
			break;
		err = 0;
		p = data + ALIGN_UP(f[F_FILESIZE], 4);
		if (!strcmp(name, TRAILER))
			continue;	/* another archive may follow */
		if (!make_path(path, name, f[F_NAMESIZE] - 1) || !strcmp(path, "/") ||
		    !strcmp(path, "/."))
			continue;
		if ((err = make_entry(path, f, data, &links))) {
			printk("pmuos: initramfs: %s: error %d\n", path, err);
			err = 0;	/* Linux goes on with the next entry */
		}
		files++;
	}
	while (links) {
		struct hardlink *h = links;
		links = h->next;
		inode_put(h->inode);
		kfree(h);
	}
	kfree(path);
	if (err)
		printk("pmuos: initramfs: a damaged archive, %d entries unpacked\n", files);
	return err ? err : files;
}
