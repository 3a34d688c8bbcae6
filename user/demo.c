/* user/demo.c: the `make run` tour: what the process sees of the kernel (uname, ids, clocks, sleep). */
#include <stdint.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static long long ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void)
{
	struct utsname u;
	struct timespec ms = { 0, 1000000 };
	time_t now = time(NULL);
	char date[32];
	volatile uint64_t x = 1;

	uname(&u);
	printf("uname:    %s %s %s %s\n", u.sysname, u.nodename, u.release, u.machine);
	printf("ids:      pid %d, tid %d, uid %d\n", getpid(), gettid(), getuid());
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", gmtime(&now));
	printf("realtime: %s UTC\n", date);
	printf("uptime:   %.6f s (CLOCK_MONOTONIC)\n", ns(CLOCK_MONOTONIC) / 1e9);

	long long t0 = ns(CLOCK_MONOTONIC);
	nanosleep(&ms, NULL);
	printf("sleep:    nanosleep(1 ms) took %lld ns\n", ns(CLOCK_MONOTONIC) - t0);

	long long c0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 0; i < 100000; i++)
		x = x * 6364136223846793005ULL + 1;
	printf("work:     100000 multiply-adds took %lld ns of CPU time\n",
	       ns(CLOCK_PROCESS_CPUTIME_ID) - c0);
	return 0;
}
