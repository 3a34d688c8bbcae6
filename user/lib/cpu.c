/* user/lib/cpu.c: see cpu.h. */
#include "cpu.h"
#include "file.h"
#include "ktap.h"

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t cpulist(const char *path)
{
	char text[64];
	unsigned lo, hi;

	if (slurp(path, text, sizeof(text)) < 0)
		return 0;
	int n = sscanf(text, "%u-%u", &lo, &hi);
	if (n == 1)
		hi = lo;
	if (n < 1 || lo != 0 || hi >= 64)
		return 0;
	return hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1;
}

int online_cpus(void)
{
	return __builtin_popcountll(cpulist("/sys/devices/system/cpu/online"));
}

bool pin_cpu(int cpu)
{
	uint64_t mask = cpu < 0 ? ~0ull : 1ull << cpu;

	return syscall(SYS_sched_setaffinity, 0, sizeof(mask), &mask) == 0;
}

void pin(int cpu)
{
	ASSERT_TRUE(pin_cpu(cpu));
}
