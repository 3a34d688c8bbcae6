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
	[FZ_CHECK] = "ring_check", [FZ_RINGREAD] = "ring_read", [FZ_IPC] = "ipc",
};

#define E(name) [name] = #name
static const char *const errno_names[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(EBADF),
	E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(ENOSPC),
	E(ESPIPE), E(ERANGE), E(ENAMETOOLONG), E(ENOSYS), E(EOVERFLOW), E(EOPNOTSUPP),
	E(ETIMEDOUT),
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
		snprintf(buf + n, size - n, ") = %ld%s%s", r->ret, r->err ? " " : "",
			 r->err ? errno_name(r->err) : "");
}

struct fz_rec *fz_rec_begin(enum fz_call c)
{
	struct fz_rec *r = &ring[fz_calls % FZ_TRACE];

	r->n = fz_calls;
	r->call = c;
	r->has_attr = false;
	memset(r->a, 0, sizeof(r->a));
	r->ret = 0;
	r->err = 0;
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

void fz_stats_print(void)
{
	char line[400];
	int n = 0;

	for (int c = 0; c < FZ_NR_CALLS; c++)
		if (made[c])
			n += snprintf(line + n, sizeof(line) - n, " %s %llu/%llu", call_names[c],
				      (unsigned long long)(made[c] - failed[c]),
				      (unsigned long long)made[c]);
	fz_printf("# calls ok/made:%s\n", line);
	n = 0;
	for (int e = 0; e < 136 && n < (int)sizeof(line); e++)
		if (errnos[e])
			n += snprintf(line + n, sizeof(line) - n, " %s %llu",
				      errno_name(e), (unsigned long long)errnos[e]);
	fz_printf("# errors by errno:%s\n", n ? line : " none");
	for (int e = 0; e < 136; e++)
		if (errnos[e])
			fz_printf("# first %s: %s\n", errno_name(e), first_call[e]);
}
