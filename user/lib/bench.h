/* user/lib/bench.h: the figures of make bench's programs (user/tests/bench.c, bench_smp.c). */
#ifndef USER_BENCH_H
#define USER_BENCH_H

#include <stdint.h>

/* Calls per figure: each figure is the fewest ticks of this many. */
#define BENCH_RUNS 200

/*
 * Under -icount shift=0,sleep=off the TSC advances once per guest instruction, so the
 * figures are instruction counts, exact and repeatable; elsewhere they are TSC cycles.
 * Prints "bench: NAME N" for tests/qemu/bench.py: best, the minimum TSC delta of a timed
 * stretch, less the cost of the two rdtsc themselves.
 */
void bench_report(const char *name, uint64_t best);

#endif
