/* user/lib/bench.c: see bench.h. */
#include "bench.h"
#include "ktap.h"
#include "perf.h"

static uint64_t rdtsc_cost(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < BENCH_RUNS; i++) {
		uint64_t t0 = perf_rdtsc();
		uint64_t d = perf_rdtsc() - t0;

		best = d < best ? d : best;
	}
	return best;
}

void bench_report(const char *name, uint64_t best)
{
	uint64_t base = rdtsc_cost();

	ktap_print("bench: %s %llu", name, (unsigned long long)(best - base));
}
