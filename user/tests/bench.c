/* user/tests/bench.c: guest-instruction cost of syscall round trips (rdtsc under QEMU -icount shift=0,sleep=off). */
#include "ktap.h"

#include <stdint.h>
#include <sys/syscall.h>

#define RUNS 200

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

/* Minimum TSC delta around one syscall instruction, or around nothing when nr < 0. */
static uint64_t min_delta(long nr)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < RUNS; i++) {
		long ax = nr;
		uint64_t t0 = rdtsc();

		if (nr >= 0)
			asm volatile("syscall" : "+a"(ax) : : "rcx", "r11", "memory");
		uint64_t d = rdtsc() - t0;
		best = d < best ? d : best;
	}
	return best;
}

/*
 * Under -icount shift=0,sleep=off the TSC advances once per guest instruction, so the
 * figures are instruction counts, exact and repeatable; elsewhere they are TSC cycles.
 */
static void report(const char *what, long nr)
{
	uint64_t base = min_delta(-1), cost = min_delta(nr);

	ktap_print("%s: %llu TSC ticks per round trip (min of %d, %llu of rdtsc overhead removed)",
		   what, (unsigned long long)(cost - base), RUNS, (unsigned long long)base);
}

TEST(getpid_round_trip)
{
	report("getpid", SYS_getpid);
}

TEST(unknown_syscall_round_trip)
{
	report("syscall 1000 (ENOSYS)", 1000);
}
