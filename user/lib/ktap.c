/* user/lib/ktap.c: runs the TEST()s of one program in source order and prints KTAP on fd 1. */
#include "ktap.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

enum ktap_result { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };

extern struct ktap_test __start_ktap_tests[], __stop_ktap_tests[];

int ktap_argc;
char **ktap_argv;

static enum ktap_result result;
static char skip_reason[128];
static sigjmp_buf test_exit;

/*
 * Unbuffered write(2) on fd 1: a test that crashes the program must not take
 * earlier lines down with it in a stdio buffer.
 */
static void ktap_vprintf(const char *prefix, const char *fmt, va_list ap)
{
	char buf[512];
	size_t len = strlen(prefix);

	memcpy(buf, prefix, len);
	int n = vsnprintf(buf + len, sizeof(buf) - len, fmt, ap);
	if (n < 0)
		return;
	len = len + (size_t)n < sizeof(buf) ? len + (size_t)n : sizeof(buf) - 1;
	for (size_t off = 0; off < len;) {
		ssize_t w = write(1, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

static void ktap_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vprintf("", fmt, ap);
	va_end(ap);
}

void ktap_print(const char *fmt, ...)
{
	char line[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ktap_printf("# %s\n", line);
}

bool ktap_on_pmuos(void)
{
	struct utsname u;

	return uname(&u) == 0 && strstr(u.release, "pmuos") != NULL;
}

noreturn void ktap_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
	result = KTAP_SKIP;
	siglongjmp(test_exit, 1);
}

static void ktap_failed(bool fatal)
{
	result = KTAP_FAIL;
	if (fatal)
		siglongjmp(test_exit, 1);
}

/* Small values read best in decimal, addresses in hex. */
static const char *value_str(char *buf, size_t size, long long v)
{
	if (v >= -4096 && v <= 4096)
		snprintf(buf, size, "%lld", v);
	else
		snprintf(buf, size, "%#llx", (unsigned long long)v);
	return buf;
}

void ktap_cmp_failed(bool fatal, const char *file, int line, const char *lhs,
		     const char *op, const char *rhs, long long a, long long b)
{
	char va[32], vb[32];

	ktap_printf("# %s:%d: expected %s %s %s, got %s = %s, %s = %s\n", file, line,
		    lhs, op, rhs, lhs, value_str(va, sizeof(va), a), rhs,
		    value_str(vb, sizeof(vb), b));
	ktap_failed(fatal);
}

#define E(name) [name] = #name
static const char *const errno_names[] = {
	E(EPERM),  E(ENOENT), E(ESRCH),  E(EINTR),  E(EIO),    E(EBADF),
	E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EEXIST), E(ENODEV),
	E(EINVAL), E(EMFILE), E(ENOTTY), E(ESPIPE), E(ERANGE), E(ENOSYS),
	E(EOVERFLOW), E(EOPNOTSUPP), E(ENXIO),  E(E2BIG),  E(EBUSY),  E(EXDEV),
	E(ENOTDIR), E(EISDIR), E(ENFILE), E(EFBIG),  E(ENOSPC), E(EROFS),
	E(EMLINK), E(EPIPE),  E(ENAMETOOLONG), E(ENOTEMPTY), E(ELOOP), E(ENODATA),
	E(ETXTBSY),
};
#undef E

static const char *errno_str(char *buf, size_t size, int err)
{
	if (err > 0 && (size_t)err < sizeof(errno_names) / sizeof(errno_names[0]) &&
	    errno_names[err])
		return errno_names[err];
	snprintf(buf, size, "%d", err);
	return buf;
}

void ktap_errno_failed(bool fatal, const char *file, int line, const char *call,
		       int want, long ret, int err)
{
	char vw[16], ve[16], vr[32];

	ktap_printf("# %s:%d: expected %s to fail with %s, got ret = %s, errno = %s\n",
		    file, line, call, errno_str(vw, sizeof(vw), want),
		    value_str(vr, sizeof(vr), ret), errno_str(ve, sizeof(ve), err));
	ktap_failed(fatal);
}

void ktap_str_failed(bool fatal, const char *file, int line, const char *lhs,
		     const char *rhs, const char *a, const char *b)
{
	ktap_printf("# %s:%d: expected %s equal to %s, got \"%s\" and \"%s\"\n", file,
		    line, lhs, rhs, a, b);
	ktap_failed(fatal);
}

/* Section order depends on how the compiler emitted the entries; source order is stable. */
static void sort_by_line(struct ktap_test *t, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct ktap_test key = t[i];
		size_t j = i;

		for (; j > 0 && t[j - 1].line > key.line; j--)
			t[j] = t[j - 1];
		t[j] = key;
	}
}

static enum ktap_result run_test(const struct ktap_test *t)
{
	result = KTAP_PASS;
	/* Saving the mask undoes any blocking a failed test left behind. */
	if (sigsetjmp(test_exit, 1) == 0)
		t->fn();
	return result;
}

int ktap_main(int argc, char **argv)
{
	struct ktap_test *tests = __start_ktap_tests;
	size_t n = (size_t)(__stop_ktap_tests - __start_ktap_tests);
	int failed = 0;

	ktap_argc = argc;
	ktap_argv = argv;
	sort_by_line(tests, n);
	ktap_printf("KTAP version 1\n1..%zu\n", n);
	for (size_t i = 0; i < n; i++) {
		enum ktap_result r = run_test(&tests[i]);

		if (r == KTAP_SKIP)
			ktap_printf("ok %zu %s # SKIP %s\n", i + 1, tests[i].name, skip_reason);
		else
			ktap_printf("%sok %zu %s\n", r == KTAP_FAIL ? "not " : "", i + 1,
				    tests[i].name);
		failed += r == KTAP_FAIL;
	}
	return failed ? 1 : 0;
}

/* A test program with a main of its own (one that re-executes itself with
 * other arguments, say) calls ktap_main from it. */
__attribute__((weak)) int main(int argc, char **argv)
{
	return ktap_main(argc, argv);
}
