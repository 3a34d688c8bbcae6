/* The programs a boot runs: /etc/runlist in the initramfs, each record run
 * as a new process after the previous one ends. Its records carry argv and
 * envp byte for byte (no command line splits or unquotes them):
 * NUL-terminated fields, per program: the path, argc in decimal, argc
 * arguments, envc in decimal, envc environment strings. */
#include "runlist.h"
#include "elf.h"
#include "printk.h"
#include "task.h"
#include "fs/ramfs.h"
#include "fs/vfs.h"
#include "mm/kmalloc.h"
#include "mm/vmalloc.h"
#include <linux/fcntl.h>

#define RUNLIST_PATH	"/etc/runlist"
#define RUNLIST_MAX	(16 * MiB)

/* The next field of [*p, end): NULL past the end or without its NUL. */
static const char *field(const char **p, const char *end)
{
	const char *s = *p;

	while (*p < end && **p)
		(*p)++;
	if (*p >= end)
		return NULL;
	(*p)++;
	return s;
}

static bool number(const char *s, int *out)
{
	long v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || (v = v * 10 + (*s - '0')) > 1 << 20)
			return false;
	}
	*out = v;
	return true;
}

/* Fill list[0..n) with the next n fields. */
static bool fields(const char **p, const char *end, const char **list, int n)
{
	for (int i = 0; i < n; i++)
		if (!(list[i] = field(p, end)))
			return false;
	return true;
}

static int run_records(const char *buf, size_t size)
{
	const char *p = buf, *end = buf + size;
	int status = 0;

	while (p < end) {
		struct exec_args a = { 0 };
		const char **v = NULL;
		if (!(a.filename = field(&p, end)) || !number(field(&p, end), &a.argc) ||
		    !(v = kmalloc(sizeof(*v) * (a.argc + 1))) || !fields(&p, end, v, a.argc) ||
		    !number(field(&p, end), &a.envc)) {
			kfree(v);
			printk("pmuos: %s: a damaged record\n", RUNLIST_PATH);
			return 1;
		}
		const char **e = kmalloc(sizeof(*e) * (a.envc + 1));
		if (!e || !fields(&p, end, e, a.envc)) {
			kfree(v);
			kfree(e);
			printk("pmuos: %s: a damaged record\n", RUNLIST_PATH);
			return 1;
		}
		a.argv = v;
		a.envp = e;
		int s = task_run(a.filename, &a);
		if (s && !status)
			status = s;
		kfree(v);
		kfree(e);
	}
	return status;
}

int runlist_run(void)
{
	struct inode *n;

	if (vfs_lookup_at(AT_FDCWD, RUNLIST_PATH, LOOKUP_FOLLOW, &n)) {
		printk("pmuos: no %s: nothing to run\n", RUNLIST_PATH);
		return 0;
	}
	size_t size = inode_is_reg(n) ? MIN(n->size, RUNLIST_MAX) : 0;
	char *buf = size ? vmalloc(size) : NULL;
	int status = 1;
	if (buf && ramfs_rw(n, 0, buf, size, 0) == (long)size)
		status = run_records(buf, size);
	inode_put(n);
	if (buf)
		vfree(buf);
	return status;
}
