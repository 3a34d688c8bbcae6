/* /proc: a synthetic file system over tables of entries (proc.h). An inode
 * is made per lookup and remembers its entry and task; a file generates its
 * whole text when first read (again after a seek to 0), so successive reads
 * see one consistent snapshot, as Linux's seq_file gives. */
#include "proc.h"
#include "../fd.h"
#include "../task.h"
#include "../lib/string.h"
#include "../lib/vsprintf.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include "../mm/uaccess.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/stat.h>
#include <stdarg.h>

#define SEQ_FIRST	PAGE_SIZE		/* Linux's first seq_file buffer */
#define SEQ_MAX		(16 * MiB)		/* past this, a show is refused: ENOMEM */
#define DT_DIR		4
#define DT_REG		8
#define DT_LNK		10

static const struct inode_ops proc_ops, proc_magic_ops;
static const struct file_ops proc_file_ops;
static struct super_block *proc_sb;

/* ---- the text buffer ---- */

void seq_write(struct seq *s, const void *p, size_t n)
{
	if (s->overflow || n > s->size - s->len) {
		s->overflow = true;
		return;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

void seq_puts(struct seq *s, const char *str)
{
	seq_write(s, str, strlen(str));
}

void seq_printf(struct seq *s, const char *fmt, ...)
{
	va_list ap;

	if (s->overflow)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(s->buf + s->len, s->size - s->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= s->size - s->len)
		s->overflow = true;
	else
		s->len += n;
}

void seq_kb(struct seq *s, const char *name, int width, unsigned long kb)
{
	seq_printf(s, "%s%*lu kB\n", name, width, kb);
}

/* Run show into s, growing the buffer until the text fits. */
static int seq_fill(const struct proc_node *n, struct seq *s)
{
	size_t size = s->size ? s->size : SEQ_FIRST;

	for (;;) {
		if (!s->buf && !(s->buf = kmalloc(size)))
			return -ENOMEM;
		s->size = size;
		s->len = 0;
		s->overflow = false;
		int err = n->e->show(n, s);
		if (err)
			return err;
		if (!s->overflow)
			return 0;
		kfree(s->buf);
		s->buf = NULL;
		if ((size *= 2) > SEQ_MAX)
			return -ENOMEM;
	}
}

long proc_parse_long(const char *buf, size_t len, long min, long max, long *out)
{
	size_t i = 0;
	bool neg = false;
	long v = 0;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n'))
		i++;
	if (i < len && buf[i] == '-') {
		neg = true;
		i++;
	}
	size_t digits = i;
	for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++)
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, buf[i] - '0', &v))
			return -EINVAL;
	if (i == digits || (i < len && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' &&
			    buf[i] != '\0'))
		return -EINVAL;
	if (neg)
		v = -v;
	if (v < min || v > max)
		return -EINVAL;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n'))
		i++;
	*out = v;
	return i;
}

/* ---- inodes ---- */

static const struct proc_node *node_of(const struct inode *n)
{
	return n->priv;
}

static const struct proc_entry proc_root;

/* The same number for a node at every lookup and listing: Linux makes its
 * inode numbers per inode, stat and getdents agree either way. */
static uint64_t ino_of(const struct proc_node *pn)
{
	uint64_t h = (uintptr_t)pn->e;

	if (pn->e == &proc_root)
		return 1;			/* PROC_ROOT_INO */
	h = (h * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)pn->pid << 20) ^ (uint64_t)pn->num;
	return (h ^ (h >> 32)) & 0xffffffff;
}

static struct inode *make_inode(const struct proc_node *pn)
{
	const struct proc_entry *e = pn->e;
	struct inode *n = inode_new(proc_sb, e->mode, e->target ? &proc_magic_ops : &proc_ops,
				    S_ISDIR(e->mode) ? &vfs_dir_file_ops : &proc_file_ops);

	if (!n)
		return NULL;
	if (!(n->priv = kmalloc(sizeof(*pn)))) {
		inode_put(n);
		return NULL;
	}
	*(struct proc_node *)n->priv = *pn;
	if (e->mode_of)
		n->mode = e->mode_of(pn);
	n->ino = ino_of(pn);
	n->nlink = S_ISDIR(e->mode) ? 2 : 1;
	n->size = 0;
	return n;
}

static size_t nr_children(const struct proc_entry *e)
{
	size_t k = 0;

	while (e->children && e->children[k].name)
		k++;
	return k;
}

/* "0" or a number without a leading zero that fits an int, as Linux's
 * name_to_int reads /proc's names; -1 otherwise. */
static int name_to_int(const char *name, size_t len)
{
	int v = 0;

	if (!len || len > 10 || (name[0] == '0' && len > 1))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9' || v > (0x7fffffff - (name[i] - '0')) / 10)
			return -1;
		v = v * 10 + (name[i] - '0');
	}
	return v;
}

/* The child node of dir named so (it is not made into an inode). */
static int child_node(const struct proc_node *dir, const char *name, size_t len,
		      struct proc_node *out)
{
	const struct proc_entry *e = dir->e;

	for (const struct proc_entry *c = e->children; c && c->name; c++) {
		if (strlen(c->name) == len && !memcmp(c->name, name, len)) {
			*out = (struct proc_node){ c, dir->pid, dir->num };
			return 0;
		}
	}
	int num = e->next ? name_to_int(name, len) : -1;
	if (num < 0 || e->next(dir, num) != num)
		return -ENOENT;
	/* A pid directory under /proc starts a task's subtree; under task/
	 * the number is a tid in the same task; elsewhere (fd/) an fd. */
	*out = (struct proc_node){ e->numbered, dir->pid ? dir->pid : num, num };
	return 0;
}

static int proc_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	const struct proc_node *pn = node_of(dir);
	struct proc_node child;

	if (pn->pid && !task_by_pid(pn->pid))
		return -ENOENT;			/* the task has gone */
	int err = child_node(pn, name, len, &child);
	if (err)
		return err;
	*out = make_inode(&child);
	return *out ? 0 : -ENOMEM;
}

static unsigned char dtype_of(unsigned mode)
{
	return S_ISDIR(mode) ? DT_DIR : S_ISLNK(mode) ? DT_LNK : DT_REG;
}

/* Positions: 0 ".", 1 "..", then the fixed children, then a numbered child
 * k at base + k, so a listing resumes at the next number that exists. */
static int proc_iterate(struct inode *dir, long pos, dir_emit_t emit, void *ctx)
{
	const struct proc_node *pn = node_of(dir);
	const struct proc_entry *e = pn->e;
	long base = 2 + nr_children(e);
	char name[16];

	if (pos == 0 && !emit(ctx, ".", 1, dir->ino, DT_DIR, 1))
		return 0;
	if (pos <= 1 && !emit(ctx, "..", 2, dir->parent ? dir->parent->ino : dir->ino, DT_DIR, 2))
		return 0;
	if (pn->pid && !task_by_pid(pn->pid))
		return 0;
	for (long i = MAX(pos, 2) - 2; i < base - 2; i++) {
		struct proc_node c = { &e->children[i], pn->pid, pn->num };
		if (!emit(ctx, c.e->name, strlen(c.e->name), ino_of(&c), dtype_of(c.e->mode), i + 3))
			return 0;
	}
	/* A position past every number (an lseek far out) lists nothing more; the
	 * difference as an int would be negative (the fuzzer's: a read before the
	 * fd table). */
	if (!e->next || (pos > base && pos - base > 0x7fffffff))
		return 0;
	for (int k = e->next(pn, pos > base ? pos - base : 0); k >= 0; k = e->next(pn, k + 1)) {
		struct proc_node c = { e->numbered, pn->pid ? pn->pid : k, k };
		int len = snprintf(name, sizeof(name), "%d", k);
		if (!emit(ctx, name, len, ino_of(&c), dtype_of(c.e->mode), base + k + 1))
			return 0;
		if (k == 0x7fffffff)
			break;
	}
	return 0;
}

static long proc_readlink(struct inode *n, char *buf, size_t size)
{
	const struct proc_node *pn = node_of(n);
	struct seq s = { 0 };
	int err = seq_fill(pn, &s);

	if (err) {
		kfree(s.buf);
		return err;
	}
	long len = MIN(s.len, size);
	memcpy(buf, s.buf, len);
	kfree(s.buf);
	return len;
}

static int proc_get_link(struct inode *n, struct inode **out)
{
	*out = node_of(n)->e->target(node_of(n));
	return *out ? 0 : -ENOENT;
}

/* Root may open any /proc file for writing (Linux's DAC override), and a
 * write then fails; a sysctl file checks its mode bits even for root. */
static int proc_open(struct inode *n, struct file *f)
{
	const struct proc_entry *e = node_of(n)->e;
	unsigned acc = f->flags & O_ACCMODE;

	if ((e->flags & PROC_SYSCTL) && (acc == O_WRONLY || acc == O_RDWR) && !(e->mode & 0200))
		return -EACCES;
	if (S_ISREG(e->mode) && !(f->priv = kzalloc(sizeof(struct seq))))
		return -ENOMEM;
	return 0;
}

static void proc_evict(struct inode *n)
{
	kfree(n->priv);
}

#define PROC_OPS \
	.lookup = proc_lookup, \
	.iterate = proc_iterate, \
	.readlink = proc_readlink, \
	.open = proc_open, \
	.evict = proc_evict

static const struct inode_ops proc_ops = { PROC_OPS };
/* Magic links take the walk straight to their node. */
static const struct inode_ops proc_magic_ops = { PROC_OPS, .get_link = proc_get_link };

/* ---- files ---- */

static long file_read(struct file *f, char *ubuf, size_t n)
{
	const struct proc_node *pn = node_of(f->inode);
	struct seq *s = f->priv;

	if (!s->buf || f->pos == 0) {
		int err = seq_fill(pn, s);
		if (err)
			return err;
	}
	if (f->pos < 0 || (size_t)f->pos >= s->len)
		return 0;
	size_t k = MIN(n, s->len - f->pos);
	if (copy_to_user(ubuf, s->buf + f->pos, k))
		return -EFAULT;
	f->pos += k;
	return k;
}

static long file_write(struct file *f, const char *ubuf, size_t n)
{
	const struct proc_node *pn = node_of(f->inode);

	if (!pn->e->store)
		return pn->pid ? -EINVAL : -EIO;	/* no write op / proc_reg_write's */
	if (pn->pid && !task_by_pid(pn->pid))
		return -ESRCH;
	char *buf = kmalloc(PAGE_SIZE);
	if (!buf)
		return -ENOMEM;
	size_t k = MIN(n, (size_t)PAGE_SIZE - 1);
	long r = copy_from_user(buf, ubuf, k) ? -EFAULT : 0;
	if (!r) {
		buf[k] = '\0';
		r = pn->e->store(pn, buf, k);
	}
	kfree(buf);
	if (r > 0)
		f->pos += r;
	return r;
}

/* seq_lseek: no SEEK_END (the size is not known before the text is made). */
static long file_lseek(struct file *f, long off, int whence)
{
	if (whence != SEEK_SET && whence != SEEK_CUR)
		return -EINVAL;
	return vfs_llseek(f, off, whence, 0);
}

static void file_release(struct file *f)
{
	struct seq *s = f->priv;

	if (s)
		kfree(s->buf);
	kfree(s);
}

static const struct file_ops proc_file_ops = {
	.read = file_read,
	.write = file_write,
	.lseek = file_lseek,
	.release = file_release,
};

/* ---- the root ---- */

static const struct proc_entry proc_root = {
	.name = "/", .mode = S_IFDIR | 0555, .children = proc_root_entries,
	.next = proc_pid_next, .numbered = &proc_pid_dir,
};

int proc_mount(void)
{
	struct proc_node root = { &proc_root, 0, 0 };
	int err;

	if (!(proc_sb = sb_new("proc", "proc", PROC_SUPER_MAGIC)))
		return -ENOMEM;
	proc_sb->read_only_names = true;
	proc_sb->lookup_final = true;
	if (!(proc_sb->root = make_inode(&root)))
		return -ENOMEM;
	err = vfs_mknod(AT_FDCWD, "/proc", S_IFDIR | 0555, 0, NULL, NULL);
	if (err && err != -EEXIST)
		return err;
	return vfs_mount(proc_sb, "/proc");
}
