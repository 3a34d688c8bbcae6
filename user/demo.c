/* user/demo.c: the `make run` tour: what the process sees of the kernel (uname, ids, clocks,
 * sleep), then the perf_event ABI on a small workload: exact counts, a group, samples. */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static long long ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Three instructions a turn: inc, dec, jnz. */
static void __attribute__((noinline)) workload(uint64_t n)
{
	asm volatile("1: inc %%rax; dec %0; jnz 1b" : "+r"(n) : : "rax", "cc");
}

static int open_event(uint32_t type, uint64_t config, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = group < 0;
	a.exclude_kernel = 1;
	a.read_format = PERF_FORMAT_GROUP;
	return syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

/* instructions:u and cycles:u of the workload, as one group. */
static void counts(uint64_t turns)
{
	int leader = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1);
	if (leader < 0) {
		printf("counts:   no hardware PMU (%m)\n");
		return;
	}
	int cycles = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, leader);
	int clock = open_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, leader);
	struct { uint64_t nr, v[3]; } r;

	ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	workload(turns);
	ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (read(leader, &r, sizeof(r)) == (ssize_t)sizeof(r))
		printf("counts:   %llu turns: %llu instructions:u, %llu cycles:u, %llu ns task-clock\n",
		       (unsigned long long)turns, (unsigned long long)r.v[0],
		       (unsigned long long)r.v[1], (unsigned long long)r.v[2]);
	close(clock);
	close(cycles);
	close(leader);
}

/* instructions:u every 100000, IPs from the ring. */
static void samples(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IP;
	a.disabled = 1;
	a.exclude_kernel = 1;
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return;
	struct perf_event_mmap_page *pc = mmap(NULL, 5 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED)
		return;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	workload(1000000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	unsigned n = 0;
	uint64_t first = 0;
	for (uint64_t pos = 0; pos < pc->data_head;) {
		struct perf_event_header *h = (void *)((char *)pc + 4096 + pos % (4 * 4096));
		if (h->type == PERF_RECORD_SAMPLE && !n++)
			first = *(uint64_t *)(h + 1);
		pos += h->size;
	}
	printf("samples:  %u of instructions:u every 100000 over 3000000 (first IP %#llx, workload at %p)\n",
	       n, (unsigned long long)first, (void *)workload);
	munmap(pc, 5 * 4096);
	close(fd);
}

int main(void)
{
	struct utsname u;
	struct timespec ms = { 0, 1000000 };
	time_t now = time(NULL);
	char date[32];

	uname(&u);
	printf("uname:    %s %s %s %s\n", u.sysname, u.nodename, u.release, u.machine);
	printf("ids:      pid %d, tid %d, uid %d\n", getpid(), gettid(), getuid());
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", gmtime(&now));
	printf("realtime: %s UTC\n", date);
	printf("uptime:   %.6f s (CLOCK_MONOTONIC)\n", ns(CLOCK_MONOTONIC) / 1e9);

	long long t0 = ns(CLOCK_MONOTONIC);
	nanosleep(&ms, NULL);
	printf("sleep:    nanosleep(1 ms) took %lld ns\n", ns(CLOCK_MONOTONIC) - t0);

	counts(1000);
	counts(2000);
	samples();
	return 0;
}
