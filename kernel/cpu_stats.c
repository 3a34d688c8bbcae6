/* Per-CPU interrupt counts and idle time: see cpu_stats.h. */
#include "cpu_stats.h"

DEFINE_PER_CPU(struct cpu_stats, cpu_stats);

uint64_t cpu_stats_idle_tsc(void)
{
	uint64_t sum = 0;

	for (int cpu = 0; cpu < nr_cpus; cpu++)
		sum += READ_ONCE(cpu_stats_of(cpu)->idle_tsc);
	return sum;
}
