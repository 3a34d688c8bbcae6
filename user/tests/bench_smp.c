/* user/tests/bench_smp.c: guest-instruction cost of operations that reach another CPU, for
 * make bench under QEMU -smp 2 on both kernels: a read and an enable of a perf event active on
 * the other CPU (done there, by IPI), and a munmap that shoots down the other CPU's TLB; and
 * the sample rate a sampler on each CPU at once keeps without loss.
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
#include <time.h>
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

/* ---- one sampler per CPU ---- */

#define SAMPLERS 2		/* make bench boots -smp 2 */
#define RING_PAGES 16		/* 64 KiB, as bench.c's sample_rate_max */

struct sampler {
	pthread_t thread;
	int cpu;
	uint64_t period;	/* ns of cpu-clock */
	unsigned samples, lost;	/* lost: LOST or THROTTLE records */
	bool ok;
};

/* On its CPU, its own cpu-clock sampler (both kernels have it under TCG) over 40 stretches
 * of work, the ring drained after each. */
static void *sample_on_cpu(void *arg)
{
	struct sampler *s = arg;
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	uint64_t buf[64];

	a.sample_period = s->period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.exclude_kernel = 1;
	a.disabled = 1;
	if (!pin_cpu(s->cpu))
		return NULL;
	int fd = perf_open(&a, 0, -1, -1, 0);
	struct perf_event_mmap_page *pc = fd < 0 ? NULL : perf_ring_map(fd, RING_PAGES);
	if (!pc)
		return NULL;
	uint64_t pos = pc->data_tail;
	perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int chunk = 0; chunk < 40; chunk++) {
		for (volatile int i = 0; i < 33333; i++)
			;
		for (const struct perf_event_header *h; (h = perf_ring_next(pc, &pos, buf, sizeof(buf)));) {
			s->samples += h->type == PERF_RECORD_SAMPLE;
			s->lost += h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_THROTTLE;
		}
		__atomic_store_n(&pc->data_tail, pos, __ATOMIC_RELEASE);
	}
	perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	perf_ring_unmap(pc);
	close(fd);
	s->ok = true;
	return NULL;
}

/* The highest rate (samples per second of guest time, all CPUs together) that a sampler on
 * each CPU at once keeps with no lost record and no throttling. */
TEST(sample_rate_per_cpu)
{
	static const uint64_t periods[] = { 100000, 30000, 10000, 3000 };
	double best = 0;

	for (unsigned p = 0; p < sizeof(periods) / sizeof(periods[0]); p++) {
		struct sampler s[SAMPLERS] = { 0 };
		struct timespec t0, t1;
		unsigned samples = 0, lost = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < SAMPLERS; i++) {
			s[i] = (struct sampler){ .cpu = i, .period = periods[p] };
			ASSERT_EQ(pthread_create(&s[i].thread, NULL, sample_on_cpu, &s[i]), 0);
		}
		for (int i = 0; i < SAMPLERS; i++) {
			ASSERT_EQ(pthread_join(s[i].thread, NULL), 0);
			if (!s[i].ok)
				SKIP("no sampler on CPU %d", i);
			samples += s[i].samples;
			lost += s[i].lost;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (!lost && samples / secs > best)
			best = samples / secs;
	}
	ktap_print("bench: sample_rate_per_cpu %llu", (unsigned long long)best);
}

int main(int argc, char **argv)
{
	if (sched_getaffinity(0, sizeof(all_cpus), &all_cpus))
		return 1;
	return ktap_main(argc, argv);
}
