/* user/fuzz/trace.c: the fuzzer's call trace (a ring of compact records, formatted only when
 * printed: verbose mode or a failure) and its tallies of calls and errnos. */
#include "fuzz.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const call_names[FZ_NR_CALLS] = {
	[FZ_OPEN] = "perf_event_open", [FZ_CLOSE] = "close", [FZ_DUP] = "dup",
	[FZ_IOCTL] = "ioctl", [FZ_READ] = "read", [FZ_MMAP] = "mmap", [FZ_MUNMAP] = "munmap",
	[FZ_MPROTECT] = "mprotect", [FZ_CTL] = "ctl_write", [FZ_POLL] = "poll",
	[FZ_FCNTL] = "fcntl", [FZ_PRCTL] = "prctl", [FZ_WORK] = "work",
	[FZ_CHECK] = "ring_check", [FZ_RINGREAD] = "ring_read", [FZ_IPC] = "ipc", [FZ_PROC] = "proc",
	[FZ_SMP] = "smp",
	/* files.c: read, readv, close, fcntl, mmap, munmap and the ioctl of files have names
	 * of their own, apart from the perf calls above */
	[FZ_F_OPEN] = "open", [FZ_F_OPENAT] = "openat", [FZ_F_CREAT] = "creat",
	[FZ_F_CLOSE] = "close_file", [FZ_F_READ] = "read_file", [FZ_F_WRITE] = "write",
	[FZ_F_PREAD] = "pread64", [FZ_F_PWRITE] = "pwrite64", [FZ_F_READV] = "readv_file",
	[FZ_F_WRITEV] = "writev", [FZ_F_PREADV] = "preadv", [FZ_F_PWRITEV] = "pwritev",
	[FZ_F_LSEEK] = "lseek", [FZ_F_GETDENTS] = "getdents64", [FZ_F_STAT] = "stat",
	[FZ_F_LSTAT] = "lstat", [FZ_F_FSTAT] = "fstat", [FZ_F_FSTATAT] = "newfstatat",
	[FZ_F_STATX] = "statx", [FZ_F_STATFS] = "statfs", [FZ_F_FSTATFS] = "fstatfs",
	[FZ_F_MKDIR] = "mkdir", [FZ_F_MKDIRAT] = "mkdirat", [FZ_F_RMDIR] = "rmdir",
	[FZ_F_UNLINK] = "unlink", [FZ_F_UNLINKAT] = "unlinkat", [FZ_F_RENAME] = "rename",
	[FZ_F_RENAMEAT] = "renameat", [FZ_F_RENAMEAT2] = "renameat2", [FZ_F_LINK] = "link",
	[FZ_F_LINKAT] = "linkat", [FZ_F_SYMLINK] = "symlink", [FZ_F_SYMLINKAT] = "symlinkat",
	[FZ_F_READLINK] = "readlink", [FZ_F_READLINKAT] = "readlinkat",
	[FZ_F_ACCESS] = "access", [FZ_F_FACCESSAT2] = "faccessat2", [FZ_F_CHDIR] = "chdir",
	[FZ_F_FCHDIR] = "fchdir", [FZ_F_GETCWD] = "getcwd", [FZ_F_TRUNCATE] = "truncate",
	[FZ_F_FTRUNCATE] = "ftruncate", [FZ_F_FSYNC] = "fsync", [FZ_F_UMASK] = "umask",
	[FZ_F_CHMOD] = "chmod", [FZ_F_FCHMOD] = "fchmod", [FZ_F_CHOWN] = "chown",
	[FZ_F_FCHOWNAT] = "fchownat", [FZ_F_UTIMENSAT] = "utimensat",
	[FZ_F_FCNTL] = "fcntl_file", [FZ_F_MMAP] = "mmap_file", [FZ_F_TOUCH] = "touch_map",
	[FZ_F_MSYNC] = "msync", [FZ_F_MUNMAP] = "munmap_file", [FZ_F_FIONREAD] = "FIONREAD",
};

#define E(name) [name] = #name
static const char *const errno_names[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(EBADF),
	E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(ENOSPC),
	E(ESPIPE), E(ERANGE), E(ENAMETOOLONG), E(ENOSYS), E(EOVERFLOW), E(EOPNOTSUPP),
	E(ETIMEDOUT), E(EXDEV), E(EFBIG), E(EROFS), E(EMLINK), E(ENOTEMPTY), E(ELOOP),
	E(ETXTBSY), E(ENOTBLK),
};
#undef E

static struct fz_rec ring[FZ_TRACE];
uint64_t fz_calls;
uint64_t fz_trace_from = UINT64_MAX;
static uint64_t made[FZ_NR_CALLS], failed[FZ_NR_CALLS];
static uint64_t errnos[136];
/* The first call that gave each errno, as printed: what a rare one came from. */
static char first_call[136][240];

void fz_printf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	for (size_t off = 0; off < len;) {
		ssize_t w = write(1, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

static const char *errno_name(int e)
{
	static char buf[16];

	if (e > 0 && (size_t)e < sizeof(errno_names) / sizeof(errno_names[0]) && errno_names[e])
		return errno_names[e];
	if (e == 0)
		return "-1 without errno";
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

static void format(const struct fz_rec *r, char *buf, size_t size)
{
	int n = snprintf(buf, size, "#%llu %s(", (unsigned long long)r->n, call_names[r->call]);

	if (r->has_attr)
		n += snprintf(buf + n, size - n, "{size=%u type=%u config=%#llx period=%#llx "
			      "flags=%#llx sample_type=%#llx read_format=%#llx}, ",
			      r->attr.size, r->attr.type, (unsigned long long)r->attr.config,
			      (unsigned long long)r->attr.sample, (unsigned long long)r->attr.flags,
			      (unsigned long long)r->attr.sample_type,
			      (unsigned long long)r->attr.read_format);
	for (int i = 0; i < 6 && n < (int)size; i++)
		n += snprintf(buf + n, size - n, "%s%#lx", i ? ", " : "", r->a[i]);
	if (n < (int)size)
		n += snprintf(buf + n, size - n, ") = %ld%s%s", r->ret, r->err ? " " : "",
			      r->err ? errno_name(r->err) : "");
	for (int i = 0; i < 2 && n < (int)size; i++)
		if (r->path[i][0])
			n += snprintf(buf + n, size - n, " [\"%s\"]", r->path[i]);
}

struct fz_rec *fz_rec_begin(enum fz_call c)
{
	struct fz_rec *r = &ring[fz_calls % FZ_TRACE];

	r->n = fz_calls;
	r->call = c;
	r->has_attr = false;
	r->path[0][0] = r->path[1][0] = '\0';
	memset(r->a, 0, sizeof(r->a));
	r->ret = 0;
	r->err = 0;
	/* traced: the call's name before it is made, so a call that never returns is named */
	if (fz_calls >= fz_trace_from)
		fz_printf("# > #%llu %s\n", (unsigned long long)fz_calls, call_names[c]);
	return r;
}

long fz_rec_end(struct fz_rec *r, long ret)
{
	r->ret = ret;
	r->err = ret == -1 ? errno : 0;
	made[r->call]++;
	if (ret == -1) {
		int e = r->err > 0 && r->err < 136 ? r->err : 0;
		failed[r->call]++;
		if (!errnos[e]++)
			format(r, first_call[e], sizeof(first_call[e]));
	}
	if (fz_calls >= fz_trace_from) {
		char line[400];
		format(r, line, sizeof(line));
		fz_printf("# %s\n", line);
	}
	return ret;
}

void fz_rec_attr(struct fz_rec *r, const struct perf_event_attr *attr, uint32_t size)
{
	uint64_t flags;

	memcpy(&flags, (const char *)attr + offsetof(struct perf_event_attr, read_format) + 8,
	       sizeof(flags));
	r->has_attr = true;
	r->attr.size = size;
	r->attr.type = attr->type;
	r->attr.config = attr->config;
	r->attr.sample = attr->sample_period;
	r->attr.flags = flags;
	r->attr.sample_type = attr->sample_type;
	r->attr.read_format = attr->read_format;
}

void fz_rec_path(struct fz_rec *r, int i, const char *path)
{
	size_t len = strnlen(path, sizeof(r->path[i]) - 1);

	/* printable, so a trace line stays one line */
	for (size_t k = 0; k < len; k++)
		r->path[i][k] = path[k] >= 0x20 && path[k] < 0x7f && path[k] != '"' ? path[k] : '?';
	r->path[i][len] = '\0';
}

void fz_trace_dump(int k)
{
	char line[400];
	uint64_t first = fz_calls + 1 > (uint64_t)k ? fz_calls + 1 - k : 0;

	if (fz_calls + 1 - first > FZ_TRACE)
		first = fz_calls + 1 - FZ_TRACE;
	fz_printf("# the last %llu calls:\n", (unsigned long long)(fz_calls + 1 - first));
	for (uint64_t n = first; n <= fz_calls; n++) {
		const struct fz_rec *r = &ring[n % FZ_TRACE];
		if (r->n != n)
			continue;
		format(r, line, sizeof(line));
		fz_printf("# %s\n", line);
	}
}

/* Items appended to a line printed as "# head: ..." and continued on more such lines. */
struct line {
	const char *head;
	char buf[200];
	int n, items;
};

static void line_add(struct line *l, const char *item)
{
	if (l->n && l->n + strlen(item) >= 100) {
		fz_printf("# %s:%s\n", l->head, l->buf);
		l->n = 0;
	}
	l->n += snprintf(l->buf + l->n, sizeof(l->buf) - l->n, " %s", item);
	l->items++;
}

static void line_end(struct line *l)
{
	if (l->n || !l->items)
		fz_printf("# %s:%s\n", l->head, l->items ? l->buf : " none");
}

void fz_stats_print(void)
{
	struct line calls = { .head = "calls ok/made" }, errs = { .head = "errors by errno" };
	char item[80];

	for (int c = 0; c < FZ_NR_CALLS; c++) {
		if (!made[c])
			continue;
		snprintf(item, sizeof(item), "%s %llu/%llu", call_names[c],
			 (unsigned long long)(made[c] - failed[c]), (unsigned long long)made[c]);
		line_add(&calls, item);
	}
	line_end(&calls);
	for (int e = 0; e < 136; e++) {
		if (!errnos[e])
			continue;
		snprintf(item, sizeof(item), "%s %llu", errno_name(e),
			 (unsigned long long)errnos[e]);
		line_add(&errs, item);
	}
	line_end(&errs);
	for (int e = 0; e < 136; e++)
		if (errnos[e])
			fz_printf("# first %s: %s\n", errno_name(e), first_call[e]);
}
