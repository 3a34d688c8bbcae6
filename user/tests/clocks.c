/* user/tests/clocks.c: clock_gettime (MONOTONIC, REALTIME, PROCESS_CPUTIME_ID) and nanosleep; on
 * pmuos, clock reads without the kernel lock. */
#include "cpu.h"
#include "ktap.h"
#include "pmuos.h"

#include <stdint.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC 1000000000LL
#define RTC_BASE 1704067200LL /* -rtc base=2024-01-01T00:00:00, given to both kernels */

static long long now(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts) != 0)
		return -1;
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

TEST(fields_in_range)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC,
					    CLOCK_PROCESS_CPUTIME_ID };

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		struct timespec ts;

		ASSERT_EQ(clock_gettime(clocks[i], &ts), 0);
		ASSERT_GE(ts.tv_sec, 0);
		ASSERT_GE(ts.tv_nsec, 0);
		ASSERT_LT(ts.tv_nsec, NSEC_PER_SEC);
	}
}

/* The raw syscall, which Linux's vDSO would otherwise answer for musl. */
TEST(syscall_agrees_with_libc)
{
	struct timespec ts;

	long long before = now(CLOCK_MONOTONIC);
	ASSERT_EQ(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts), 0);
	long long after = now(CLOCK_MONOTONIC);
	long long mid = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	ASSERT_LE(before, mid);
	ASSERT_LE(mid, after);
}

TEST(realtime_from_rtc)
{
	ASSERT_GE(now(CLOCK_REALTIME) / NSEC_PER_SEC, RTC_BASE);
}

TEST(monotonic_never_decreases)
{
	long long prev = now(CLOCK_MONOTONIC);

	for (int i = 0; i < 200; i++) {
		long long t = now(CLOCK_MONOTONIC);

		ASSERT_GE(t, prev);
		prev = t;
	}
}

TEST(monotonic_advances)
{
	long long start = now(CLOCK_MONOTONIC);

	for (int i = 0; i < 100000; i++)
		if (now(CLOCK_MONOTONIC) != start)
			return;
	ASSERT_NE(now(CLOCK_MONOTONIC), start);
}

TEST(nanosleep_sleeps)
{
	struct timespec ms = { .tv_sec = 0, .tv_nsec = 1000000 };
	long long start = now(CLOCK_MONOTONIC);

	ASSERT_EQ(nanosleep(&ms, NULL), 0);
	ASSERT_GE(now(CLOCK_MONOTONIC) - start, 1000000);
}

TEST(nanosleep_zero)
{
	struct timespec zero = { 0, 0 };

	ASSERT_EQ(nanosleep(&zero, NULL), 0);
}

/* Some 100k instructions of work; the clock must see them, sleeping or not. */
TEST(cputime_advances_with_work)
{
	volatile uint64_t x = 1;
	long long start = now(CLOCK_PROCESS_CPUTIME_ID);

	ASSERT_GE(start, 0);
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ULL + 1;
	ASSERT_GT(now(CLOCK_PROCESS_CPUTIME_ID), start);
}

TEST(invalid_clock)
{
	struct timespec ts;

	ASSERT_ERRNO(syscall(SYS_clock_gettime, 1000, &ts), EINVAL);
	ASSERT_ERRNO(syscall(SYS_clock_gettime, 64, &ts), EINVAL);
}

/* pmuos: reading a clock takes no kernel lock (every thread of a program reads the time, and
 * with no vDSO each read is a syscall), but for the process's CPU time, which sums its threads. */
TEST(clock_reads_take_no_kernel_lock)
{
	const char *why = pmuos_kernel_lock_uncounted();
	struct timeval tv;
	struct timespec ts;

	if (why)
		SKIP("%s", why);
	pin(0);
	long a = pmuos_kernel_lock_taken(0), b = pmuos_kernel_lock_taken(0);
	for (int i = 0; i < 10; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		clock_gettime(CLOCK_REALTIME, &ts);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		gettimeofday(&tv, NULL);
		syscall(SYS_gettimeofday, &tv, NULL);
		syscall(SYS_time, NULL);
	}
	long c = pmuos_kernel_lock_taken(0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	long d = pmuos_kernel_lock_taken(0);
	EXPECT_EQ(c - b, b - a);	/* the sixty reads: none */
	EXPECT_EQ(d - c, b - a + 1);	/* the process's CPU time: once */
	pin(-1);
}
