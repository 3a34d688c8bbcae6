/* /proc's framework, shared by its files (private to kernel/fs/proc*.c): a
 * tree of tables of entries, each a file, a link or a directory with a
 * callback that generates its text when it is opened and read. */
#pragma once
#include "vfs.h"

struct task;

/* A growing text buffer (Linux's seq_file): the show callbacks append, the
 * framework retries with a larger buffer when one overflowed. */
struct seq {
	char *buf;
	size_t len, size;
	bool overflow;
};

void seq_printf(struct seq *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void seq_write(struct seq *s, const void *p, size_t n);
void seq_puts(struct seq *s, const char *str);
/* Linux's seq_put_decimal_ull-style "%s%10lu kB\n" lines of meminfo, status. */
void seq_kb(struct seq *s, const char *name, int width, unsigned long kb);

struct proc_entry;

/* What an inode of /proc stands for (inode->priv): its table entry and the
 * task of the /proc/PID subtree it lies in (0 outside), with the number of a
 * numbered entry (a pid, a tid, an fd). */
struct proc_node {
	const struct proc_entry *e;
	int pid;
	int num;
};

/*
 * One entry of a directory table (a NULL name ends the table).
 * show      a file's text, or a link's target; 0 or an errno (-ESRCH: the
 *           task is gone). Called at open time and again after a seek to 0.
 * store     a writable file: the bytes one write(2) gave (a kernel copy,
 *           at most a page); the bytes taken, or an errno.
 * children  a directory's fixed entries, listed first;
 * next      its numbered entries (pids, tids, fds): the first number
 *           >= from that exists, or -1; each one is the entry numbered.
 * target    a magic link: the node it stands for, referenced (see
 *           inode_ops.get_link), or NULL.
 * mode_of   a mode that depends on the node (an fd link's, on the file's
 *           access mode), else mode.
 */
struct proc_entry {
	const char *name;
	unsigned mode;
	int (*show)(const struct proc_node *n, struct seq *s);
	long (*store)(const struct proc_node *n, const char *buf, size_t len);
	const struct proc_entry *children;
	int (*next)(const struct proc_node *dir, int from);
	const struct proc_entry *numbered;
	struct inode *(*target)(const struct proc_node *n);
	unsigned (*mode_of)(const struct proc_node *n);
	unsigned flags;
	const void *data;		/* the entry's own (a sysctl's variable) */
};

#define PROC_SYSCTL	0x1	/* /proc/sys: write opens need a writable mode (EACCES) */

#define PROC_ENTRY(n, m, ...)	{ .name = (n), .mode = (m), __VA_ARGS__ }
#define PROC_DIR(n, kids, ...)	{ .name = (n), .mode = S_IFDIR | 0555, .children = (kids), __VA_ARGS__ }
#define PROC_FILE(n, fn, ...)	{ .name = (n), .mode = S_IFREG | 0444, .show = (fn), __VA_ARGS__ }
#define PROC_LINK(n, fn, ...)	{ .name = (n), .mode = S_IFLNK | 0777, .show = (fn), __VA_ARGS__ }

/* The tables of the other files */
extern const struct proc_entry proc_root_entries[];	/* proc_info.c */
extern const struct proc_entry proc_pid_dir;		/* proc_pid.c: /proc/PID */
extern const struct proc_entry proc_sys_entries[];	/* proc_sys.c: /proc/sys */
extern int proc_kptr_restrict;				/* proc_info.c: kallsyms */
int proc_pid_next(const struct proc_node *dir, int from);
int proc_self_show(const struct proc_node *n, struct seq *s);
int proc_thread_self_show(const struct proc_node *n, struct seq *s);
/* Shared with /proc/self/mounts */
int proc_mounts_show(const struct proc_node *n, struct seq *s);
int proc_mountinfo_show(const struct proc_node *n, struct seq *s);

/* Parse a sysctl integer as Linux's proc_dointvec_minmax: optional blanks,
 * a decimal number in [min, max], then a blank or the end. The bytes taken
 * (trailing blanks included) with the value in *out, or -EINVAL. */
long proc_parse_long(const char *buf, size_t len, long min, long max, long *out);
