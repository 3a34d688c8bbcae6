/* user/lib/ktap.h: a small kselftest-like harness that prints KTAP for in-process tests. */
#ifndef USER_KTAP_H
#define USER_KTAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdnoreturn.h>
#include <string.h>

/* One entry per TEST() in the "ktap_tests" section; run in source-line order. */
struct ktap_test {
	const char *name;
	void (*fn)(void);
	int line;
};

/*
 * Tests register through a linker section rather than constructors so the list is
 * complete before main() and needs no allocation; the section is writable because
 * static-PIE binaries relocate the pointers in it.
 */
#define TEST(name)                                                              \
	static void ktap_test_##name(void);                                     \
	static struct ktap_test ktap_entry_##name                               \
		__attribute__((used, section("ktap_tests"), aligned(8))) =      \
		{ #name, ktap_test_##name, __LINE__ };                          \
	static void ktap_test_##name(void)

/* argc/argv of main(), for tests of the initial stack. */
extern int ktap_argc;
extern char **ktap_argv;

/* Print one "# ..." diagnostic line (a newline is added). */
void ktap_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* True on pmuos: its uname() release contains "pmuos" (sysname stays "Linux"). */
bool ktap_on_pmuos(void);
/* Run every TEST of the program (what main does unless the program has one). */
int ktap_main(int argc, char **argv);

/* Failure plumbing behind the macros below. */
noreturn void ktap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ktap_cmp_failed(bool fatal, const char *file, int line, const char *lhs,
		     const char *op, const char *rhs, long long a, long long b);
void ktap_errno_failed(bool fatal, const char *file, int line, const char *call,
		       int want, long ret, int err);
void ktap_str_failed(bool fatal, const char *file, int line, const char *lhs,
		     const char *rhs, const char *a, const char *b);

/*
 * Both sides are compared as long long: pointers, sizes and syscall returns all fit,
 * and (size_t)-1 compares equal to -1 as callers expect. The expressions' text comes
 * from the outermost macro, before the macros inside them expand.
 */
#define KTAP_CMP_(fatal, a, op, b, sa, sb)                                      \
	do {                                                                    \
		long long ktap_a_ = (long long)(a), ktap_b_ = (long long)(b);  \
		if (!(ktap_a_ op ktap_b_))                                      \
			ktap_cmp_failed(fatal, __FILE__, __LINE__, sa, #op, sb, \
					ktap_a_, ktap_b_);                      \
	} while (0)

/* The call must return -1 (or MAP_FAILED) and set errno to err. */
#define KTAP_ERRNO_(fatal, call, err, scall)                                    \
	do {                                                                    \
		errno = 0;                                                      \
		long ktap_r_ = (long)(call);                                    \
		int ktap_e_ = errno;                                            \
		if (ktap_r_ != -1 || ktap_e_ != (err))                          \
			ktap_errno_failed(fatal, __FILE__, __LINE__, scall,     \
					  err, ktap_r_, ktap_e_);               \
	} while (0)

#define KTAP_STREQ_(fatal, a, b, sa, sb)                                        \
	do {                                                                    \
		const char *ktap_sa_ = (a), *ktap_sb_ = (b);                    \
		if (strcmp(ktap_sa_, ktap_sb_) != 0)                            \
			ktap_str_failed(fatal, __FILE__, __LINE__, sa, sb,      \
					ktap_sa_, ktap_sb_);                    \
	} while (0)

/* ASSERT_* end the test on failure; EXPECT_* record it and go on. */
#define ASSERT_EQ(a, b) KTAP_CMP_(true, a, ==, b, #a, #b)
#define ASSERT_NE(a, b) KTAP_CMP_(true, a, !=, b, #a, #b)
#define ASSERT_LT(a, b) KTAP_CMP_(true, a, <, b, #a, #b)
#define ASSERT_LE(a, b) KTAP_CMP_(true, a, <=, b, #a, #b)
#define ASSERT_GT(a, b) KTAP_CMP_(true, a, >, b, #a, #b)
#define ASSERT_GE(a, b) KTAP_CMP_(true, a, >=, b, #a, #b)
#define ASSERT_TRUE(x) KTAP_CMP_(true, !!(x), ==, 1, #x, "true")
#define ASSERT_FALSE(x) KTAP_CMP_(true, !!(x), ==, 0, #x, "false")
#define ASSERT_STREQ(a, b) KTAP_STREQ_(true, a, b, #a, #b)
#define ASSERT_ERRNO(call, err) KTAP_ERRNO_(true, call, err, #call)

#define EXPECT_EQ(a, b) KTAP_CMP_(false, a, ==, b, #a, #b)
#define EXPECT_NE(a, b) KTAP_CMP_(false, a, !=, b, #a, #b)
#define EXPECT_LT(a, b) KTAP_CMP_(false, a, <, b, #a, #b)
#define EXPECT_LE(a, b) KTAP_CMP_(false, a, <=, b, #a, #b)
#define EXPECT_GT(a, b) KTAP_CMP_(false, a, >, b, #a, #b)
#define EXPECT_GE(a, b) KTAP_CMP_(false, a, >=, b, #a, #b)
#define EXPECT_TRUE(x) KTAP_CMP_(false, !!(x), ==, 1, #x, "true")
#define EXPECT_FALSE(x) KTAP_CMP_(false, !!(x), ==, 0, #x, "false")
#define EXPECT_STREQ(a, b) KTAP_STREQ_(false, a, b, #a, #b)
#define EXPECT_ERRNO(call, err) KTAP_ERRNO_(false, call, err, #call)

/* End the test as skipped, with a printf-style reason. */
#define SKIP(...) ktap_skip(__VA_ARGS__)

#endif
