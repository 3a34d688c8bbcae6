/* user/tests/bench_smp.c: guest-instruction cost of operations that reach another CPU, for
 * make bench under QEMU -smp 2 on both kernels: a read and an enable of a perf event active on
 * the other CPU (done there, by IPI), and a munmap that shoots down the other CPU's TLB.
 *
 * Both CPUs' instructions count: under -icount the TSC is the virtual clock, which every vCPU
 * advances in QEMU's round robin, and PAUSE hands the round robin on at once. The other CPU
 * runs a thread of this process that spins on PAUSE, so it takes an IPI as soon as one is
 * sent and gives the CPU back as soon as it returns to its loop; both kernels wait for the
 * other CPU with PAUSE too. */
#include "bench.h"
#include "cpu.h"
#include "ktap.h"
#include "perf.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A thread on CPU 1 that spins until told to stop. */
struct spinner {
	pthread_t thread;
	atomic_int tid;		/* its tid once it runs on CPU 1; -1: it could not go there */
	atomic_bool stop;
};

static void *spin(void *arg)
{
	struct spinner *s = arg;

	if (!pin_cpu(1)) {
		atomic_store(&s->tid, -1);
		return NULL;
	}
	atomic_store(&s->tid, (int)syscall(SYS_gettid));
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed))
		__builtin_ia32_pause();
	return NULL;
}

/* The mask the program started with, which each test leaves as it found (musl's CPU
 * count is the mask's). */
static cpu_set_t all_cpus;

/* This thread on CPU 0, a spinner on CPU 1: SKIP where either cannot be (make bench boots
 * this with -smp 2). */
static void spinner_start(struct spinner *s)
{
	if (!pin_cpu(0))
		SKIP("sched_setaffinity to CPU 0 failed");
	atomic_store(&s->tid, 0);
	atomic_store(&s->stop, false);
	ASSERT_EQ(pthread_create(&s->thread, NULL, spin, s), 0);
	while (atomic_load(&s->tid) == 0)
		__builtin_ia32_pause();
	if (atomic_load(&s->tid) < 0) {
		pthread_join(s->thread, NULL);
		sched_setaffinity(0, sizeof(all_cpus), &all_cpus);
		SKIP("no CPU 1 to run on");
	}
}

static void spinner_stop(struct spinner *s)
{
	atomic_store(&s->stop, true);
	ASSERT_EQ(pthread_join(s->thread, NULL), 0);
	ASSERT_EQ(sched_setaffinity(0, sizeof(all_cpus), &all_cpus), 0);
}

/* A task-clock event of the spinner, active on CPU 1 while it spins. */
static int spinner_event(struct spinner *s, bool disabled)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK, .disabled = disabled };
	int fd = perf_open(&a, atomic_load(&s->tid), -1, -1, 0);

	ASSERT_GE(fd, 0);
	return fd;
}

/* read() of the spinner's event from CPU 0: the count is brought up to date where the event
 * runs. The event's value must grow as the spinner runs. */
TEST(cross_cpu_read)
{
	struct spinner s;
	uint64_t v0 = 0, v = 0, best = UINT64_MAX;

	spinner_start(&s);
	int fd = spinner_event(&s, false);
	ASSERT_EQ(read(fd, &v0, sizeof(v0)), sizeof(v0));
	for (int i = 0; i < BENCH_RUNS; i++) {
		uint64_t t0 = perf_rdtsc();
		ssize_t n = read(fd, &v, sizeof(v));
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(n, sizeof(v));
		best = d < best ? d : best;
	}
	EXPECT_GT(v, v0);
	close(fd);
	spinner_stop(&s);
	bench_report("cross_cpu_read", best);
}

/* ioctl(ENABLE) of the spinner's disabled event from CPU 0, which puts it on CPU 1's PMU
 * there; the DISABLE that undoes it is not timed. */
TEST(cross_cpu_enable)
{
	struct spinner s;
	uint64_t best = UINT64_MAX;

	spinner_start(&s);
	int fd = spinner_event(&s, true);
	for (int i = 0; i < BENCH_RUNS; i++) {
		uint64_t t0 = perf_rdtsc();
		int r = perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(r, 0);
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		best = d < best ? d : best;
	}
	uint64_t v = perf_value(fd);
	EXPECT_GT(v, 0);
	close(fd);
	spinner_stop(&s);
	bench_report("cross_cpu_enable", best);
}

/* munmap of one touched page; with others: while a thread of this process runs on CPU 1,
 * whose TLB may hold the page and must be shot down. */
static uint64_t munmap_ticks(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < BENCH_RUNS; i++) {
		volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(p, MAP_FAILED);
		p[0] = 1;
		uint64_t t0 = perf_rdtsc();
		int r = munmap((void *)p, 4096);
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(r, 0);
		best = d < best ? d : best;
	}
	return best;
}

TEST(tlb_shootdown)
{
	struct spinner s;

	spinner_start(&s);
	uint64_t shootdown = munmap_ticks();
	spinner_stop(&s);
	bench_report("munmap_shootdown", shootdown);
}

/* The same munmap with this process on one CPU only (the spinner gone): no IPI. */
TEST(munmap_alone)
{
	if (!pin_cpu(0))
		SKIP("sched_setaffinity to CPU 0 failed");
	uint64_t alone = munmap_ticks();
	ASSERT_EQ(sched_setaffinity(0, sizeof(all_cpus), &all_cpus), 0);
	bench_report("munmap_alone", alone);
}

int main(int argc, char **argv)
{
	if (sched_getaffinity(0, sizeof(all_cpus), &all_cpus))
		return 1;
	return ktap_main(argc, argv);
}
