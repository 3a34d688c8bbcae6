/* user/tests/cpus.c: the CPUs a program sees and runs on. sched_{get,set}affinity's masks and
 * errnos (Linux 6.1's), getcpu on each CPU, /sys/devices/system/cpu/{online,possible,present}
 * and /proc/cpuinfo agreeing with the mask; on pmuos's simulated PMU, exact instruction
 * counts of a thread pinned to each CPU, a task's event following it across CPUs, and no tick
 * for a task alone on its CPU; a CPU about to go idle taking a task that waits on another;
 * munmap and mprotect reaching a thread that reads the page on another CPU (TLB shootdown).
 * With one CPU the tests that need two say SKIP. */
#include "cpu.h"
#include "file.h"
#include "ktap.h"
#include "perf.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long getaffinity(pid_t pid, long len, void *mask)
{
	return syscall(SYS_sched_getaffinity, pid, len, mask);
}

static long setaffinity(pid_t pid, long len, const void *mask)
{
	return syscall(SYS_sched_setaffinity, pid, len, mask);
}

static unsigned current_cpu(void)
{
	unsigned cpu = ~0u;

	ASSERT_EQ(syscall(SYS_getcpu, &cpu, NULL, NULL), 0);
	return cpu;
}

TEST(online_cpus_everywhere)
{
	uint64_t online = cpulist("/sys/devices/system/cpu/online"), mask = 0;
	char *text = malloc(1 << 16);

	ASSERT_NE(online, 0);
	ktap_print("%d CPU(s) online", online_cpus());
	EXPECT_EQ(cpulist("/sys/devices/system/cpu/possible"), online);
	EXPECT_EQ(cpulist("/sys/devices/system/cpu/present"), online);
	EXPECT_EQ(getaffinity(0, sizeof(mask), &mask), sizeof(mask));
	EXPECT_EQ(mask, online);
	/* /proc/cpuinfo: a paragraph per CPU, numbered from 0 */
	ASSERT_GT(slurp("/proc/cpuinfo", text, 1 << 16), 0);
	int n = 0;
	for (char *p = text; (p = strstr(p, "processor\t: ")); p++) {
		EXPECT_EQ(atoi(p + strlen("processor\t: ")), n);
		n++;
	}
	EXPECT_EQ(n, online_cpus());
	free(text);
}

/* Each CPU's sysfs directory: single-threaded cores (its thread and core siblings are itself)
 * and its own L1 data cache, as a cpulist and as a mask. */
TEST(sysfs_directory_per_cpu)
{
	char path[128], text[64], want[16];

	for (int cpu = 0; cpu < online_cpus(); cpu++) {
		static const char *const lists[] = { "topology/thread_siblings_list",
						     "topology/core_cpus_list",
						     "cache/index0/shared_cpu_list" };
		snprintf(want, sizeof(want), "%d\n", cpu);
		for (unsigned i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/%s", cpu, lists[i]);
			ASSERT_GT(slurp(path, text, sizeof(text)), 0);
			EXPECT_STREQ(text, want);
		}
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings",
			 cpu);
		ASSERT_GT(slurp(path, text, sizeof(text)), 0);
		EXPECT_EQ(strtoull(text, NULL, 16), 1ull << cpu);
	}
}

/* /proc/PID/status shows the task's own mask (Linux's %*pb and %*pbl): pinned to the last CPU,
 * then (with three or more) to every CPU but CPU 1, a list with a gap. */
TEST(affinity_in_proc_status)
{
	char text[4096], line[128];
	int last = online_cpus() - 1;

	pin(last);
	ASSERT_GT(slurp("/proc/self/status", text, sizeof(text)), 0);
	snprintf(line, sizeof(line), "\nCpus_allowed_list:\t%d\n", last);
	EXPECT_NE(strstr(text, line), NULL);
	char *mask = strstr(text, "\nCpus_allowed:\t");
	ASSERT_NE(mask, NULL);
	EXPECT_EQ(strtoull(mask + strlen("\nCpus_allowed:\t"), NULL, 16), 1ull << last);
	if (last >= 2) {
		uint64_t m = ((1ull << (last + 1)) - 1) & ~2ull;
		ASSERT_EQ(setaffinity(0, sizeof(m), &m), 0);
		ASSERT_GT(slurp("/proc/self/status", text, sizeof(text)), 0);
		snprintf(line, sizeof(line), "\nCpus_allowed_list:\t0,2-%d\n", last);
		EXPECT_NE(strstr(text, line), NULL);
	}
	pin(-1);
}

/* Linux 6.1's answers: get wants whole longs covering nr_cpu_ids and answers the bytes it
 * wrote; set takes the bytes given, and a mask without an online CPU is EINVAL. */
TEST(affinity_errnos)
{
	uint64_t mask = 0, all = ~0ull, none = 0, offline = 1ull << 63, first = 1;

	EXPECT_ERRNO(getaffinity(0, 0, &mask), EINVAL);
	EXPECT_ERRNO(getaffinity(0, 4, &mask), EINVAL);
	EXPECT_ERRNO(getaffinity(0, 12, &mask), EINVAL);
	EXPECT_ERRNO(getaffinity(0, 8, NULL), EFAULT);
	EXPECT_ERRNO(getaffinity(0x3fffffff, 8, &mask), ESRCH);
	EXPECT_EQ(getaffinity(getpid(), 8, &mask), 8);
	EXPECT_ERRNO(setaffinity(0, 8, &none), EINVAL);
	EXPECT_ERRNO(setaffinity(0, 8, &offline), EINVAL);
	EXPECT_ERRNO(setaffinity(0, 0, &first), EINVAL);	/* no byte read: empty */
	EXPECT_ERRNO(setaffinity(0, 8, NULL), EFAULT);
	EXPECT_ERRNO(setaffinity(0x3fffffff, 8, &first), ESRCH);
	EXPECT_EQ(setaffinity(0, 4, &first), 0);		/* the bytes given */
	EXPECT_EQ(getaffinity(0, 8, &mask), 8);
	EXPECT_EQ(mask, 1);
	EXPECT_EQ(current_cpu(), 0);
	EXPECT_EQ(setaffinity(0, 8, &all), 0);			/* kept: the online ones */
	EXPECT_EQ(getaffinity(0, 8, &mask), 8);
	EXPECT_EQ(mask, cpulist("/sys/devices/system/cpu/online"));
}

TEST(getcpu_on_each_cpu)
{
	for (int cpu = 0; cpu < online_cpus(); cpu++) {
		unsigned got = ~0u, node = ~0u;
		pin(cpu);
		EXPECT_EQ(syscall(SYS_getcpu, &got, &node, NULL), 0);
		EXPECT_EQ(got, cpu);
		EXPECT_EQ(node, 0);
		EXPECT_EQ(sched_getcpu(), cpu);
	}
	pin(-1);
}

/* Two threads that both want a CPU do not share one while another CPU idles: the tick
 * that alternates them hands one to the idle CPU (Linux's load balancing does it too, within
 * some ms). Each spins until it sees the other run on another CPU, for a second at most. */
static volatile int spread_cpu[2] = { -1, -1 };
static volatile int spread_seen;

static void *spread_spinner(void *arg)
{
	int me = (int)(long)arg;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int other = spread_cpu[!me];
		spread_cpu[me] = sched_getcpu();
		if (other >= 0 && other != spread_cpu[me])
			spread_seen = 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!spread_seen && (t.tv_sec - t0.tv_sec) * 1000000000l + t.tv_nsec - t0.tv_nsec <
		 1000000000l);
	return NULL;
}

TEST(threads_spread_over_idle_cpus)
{
	pthread_t th[2];

	if (online_cpus() < 2)
		SKIP("one CPU online");
	pin(-1);
	spread_seen = 0;
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, spread_spinner, (void *)(long)i), 0);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_join(th[i], NULL), 0);
	EXPECT_EQ(spread_seen, 1);
}

/* The same user count on every CPU, exact: each CPU's PMU counts what runs there while the
 * others halt. */
TEST(pinned_counts_exact_on_each_cpu)
{
	int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, true, -1);
	uint64_t c0 = 0;

	for (int cpu = 0; cpu < online_cpus(); cpu++) {
		pin(cpu);
		uint64_t c1 = perf_count_loop(fd, 0, 1000), c3 = perf_count_loop(fd, 0, 3000);
		ktap_print("cpu %d: instructions:u of 1000 turns: %llu", cpu, (unsigned long long)c1);
		EXPECT_EQ(c3 - c1, 2000 * PERF_LOOP_INSNS);
		if (cpu == 0)
			c0 = c1;
		EXPECT_EQ(c1, c0);
	}
	pin(-1);
	close(fd);
}

/* Moved to another CPU and back: two migrations, counted by the task's own event. */
TEST(migrations_counted)
{
	if (online_cpus() < 2)
		SKIP("one CPU online");
	int mig = perf_open_sw(PERF_COUNT_SW_CPU_MIGRATIONS, 0, false, -1);
	pin(0);
	uint64_t before = perf_value(mig);
	pin(1);
	EXPECT_EQ(current_cpu(), 1);
	pin(0);
	EXPECT_EQ(current_cpu(), 0);
	EXPECT_EQ(perf_value(mig) - before, 2);
	pin(-1);
	close(mig);
}

/* A task's hardware event goes with it from CPU to CPU: its user instructions are the same
 * whether it moves halfway or stays. */
TEST(task_event_follows_across_cpus)
{
	int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, true, -1);
	uint64_t counts[2];

	if (online_cpus() < 2)
		SKIP("one CPU online");
	for (int move = 0; move < 2; move++) {
		uint64_t mask = 1ull << move;	/* CPU 0 again, or CPU 1 */
		pin(0);
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
		perf_loop(1000);
		setaffinity(0, sizeof(mask), &mask);
		perf_loop(1000);
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		counts[move] = perf_value(fd);
		EXPECT_EQ(current_cpu(), move);
	}
	EXPECT_EQ(counts[1], counts[0]);
	EXPECT_GE(counts[1], 2000 * PERF_LOOP_INSNS);
	pin(-1);
	close(fd);
}

/* PERF_SAMPLE_CPU says where the sample was taken: a write fault on a fresh page, sampled by
 * the page-fault software event (both kernels have it), on each CPU in turn. */
TEST(sample_cpu_is_the_cpu_that_ran)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_CPU);
	int fd = perf_open(&attr, 0, -1, -1, 0);

	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 1);
	for (int cpu = 0; cpu < online_cpus(); cpu++) {
		struct { struct perf_event_header h; uint32_t cpu, res; } rec;
		uint64_t pos = pc->data_head;
		pin(cpu);
		char *m = mmap(NULL, PERF_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		ASSERT_NE(m, MAP_FAILED);
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
		m[0] = 1;
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		munmap(m, PERF_PAGE);
		ASSERT_NE(perf_ring_find(pc, &pos, PERF_RECORD_SAMPLE, &rec, sizeof(rec)), NULL);
		EXPECT_EQ(rec.cpu, cpu);
		EXPECT_EQ(rec.res, 0);
		pc->data_tail = pos;
	}
	pin(-1);
	perf_ring_unmap(pc);
	close(fd);
}

static volatile int spin_cpu = -1, spinner_on = -1, spinner_tid;

/* Runnable all along on spin_cpu, until it is -1. */
static void *spinner(void *arg)
{
	(void)arg;
	spinner_tid = (int)syscall(SYS_gettid);
	while (spin_cpu >= 0) {
		if (spinner_on != spin_cpu) {
			int cpu = spin_cpu;
			pin(cpu);
			spinner_on = cpu;
		}
	}
	return NULL;
}

/* The spinner onto cpu, and there. Waited for asleep: a sched_yield loop here takes the
 * kernel lock so often that the spinner's CPU may not get it to take the spinner in, and
 * under QEMU's icount keeps that CPU from its turns (see below). */
static void spin_on(int cpu)
{
	spin_cpu = cpu;
	while (spinner_on != cpu)
		usleep(1000);
}

/* A CPU with one runnable task takes no tick (tickless, measurement first), each CPU by its
 * own count: with a spinner on CPU 1, the kernel's share of a measured loop on CPU 0 does not
 * grow with the loop. With the spinner beside it on CPU 0 the tick comes back. The spinner
 * is never on a lower CPU than a thread that must run meanwhile: under QEMU 7.2's icount a
 * CPU that runs user code without a halt can starve every CPU after it (README, "SMP"). */
TEST(no_tick_for_a_task_alone_on_its_cpu)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	pthread_t th;

	attr.disabled = attr.exclude_user = attr.exclude_hv = 1;
	int fd = perf_open_hw_attr(&attr, -1);
	if (!ktap_on_pmuos())
		SKIP("a tickless pmuos guarantee: elsewhere a timer interrupt may fall in the loop");
	if (online_cpus() < 2)
		SKIP("one CPU online");
	pin(0);
	spin_cpu = 1;
	ASSERT_EQ(pthread_create(&th, NULL, spinner, NULL), 0);
	spin_on(1);
	uint64_t k1 = perf_count_loop(fd, 0, 1000);
	uint64_t alone = perf_count_loop(fd, 0, 4000000);	/* 12M instructions: 3 ticks' time */
	EXPECT_EQ(alone, k1);
	spin_on(0);		/* beside this thread: two runnable on CPU 0 */
	uint64_t shared = perf_count_loop(fd, 0, 4000000);
	ktap_print("kernel instructions around the loop: %llu alone, %llu shared",
		   (unsigned long long)alone, (unsigned long long)shared);
	EXPECT_GT(shared, k1);
	spin_cpu = -1;
	ASSERT_EQ(pthread_join(th, NULL), 0);
	pin(-1);
	close(fd);
}

/* Operations on an event of a task that runs on another CPU reach it there (Linux does them
 * there by IPI): opened from CPU 0 on a thread spinning on CPU 1, the event counts at once;
 * a read brings its count up to date; DISABLE stops it and ENABLE starts it again; close
 * takes it off that CPU. */
static void burn(void)
{
	for (volatile int i = 0; i < 100000; i++)
		;
}

TEST(event_of_a_task_running_on_another_cpu)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	pthread_t th;

	if (online_cpus() < 2)
		SKIP("one CPU online");
	pin(0);
	spin_cpu = 1;
	spinner_on = -1, spinner_tid = 0;	/* a spinner of an earlier test was there */
	ASSERT_EQ(pthread_create(&th, NULL, spinner, NULL), 0);
	spin_on(1);
	int fd = perf_open(&a, spinner_tid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	uint64_t v1 = perf_value(fd), v2;
	/* Once is enough under icount; Linux without it (the -smp 2 oracle) on a busy host
	 * may not have run CPU 1 during one burn. */
	for (int i = 0; i < 100 && (v2 = perf_value(fd)) == v1; i++)
		burn();
	EXPECT_GT(v2, v1);		/* counting on CPU 1 since the open */
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	uint64_t v3 = perf_value(fd);
	burn();
	EXPECT_EQ(perf_value(fd), v3);	/* off CPU 1's PMU */
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (int i = 0; i < 100 && perf_value(fd) == v3; i++)
		burn();
	EXPECT_GT(perf_value(fd), v3);
	close(fd);
	spin_cpu = -1;
	ASSERT_EQ(pthread_join(th, NULL), 0);
	pin(-1);
}

/* A CPU about to go idle takes a task that waits on another CPU (Linux's newidle balance) at
 * once, not at that CPU's next tick (4 ms on pmuos), which would hand it over too. The spinner
 * runs pinned to CPU 1; a new thread, before it has run, is moved to wait behind it there and
 * then allowed CPU 0 as well; this thread then blocks on CPU 0 until the new one says where it
 * first ran: CPU 0. On pmuos it must say so within 1 ms, a quarter of a tick. Linux skips the
 * newidle balance while balancing has cost more time than the CPU idles on average, which
 * under QEMU without icount is most of the time (/proc/schedstat: 2 newidle balances and 11
 * idle ones in 10 tries), and leaves the task to the idle CPU's balance a tick later, so there
 * the bound is a second. Linux may also run the new thread on CPU 1 first: a try that shows
 * no pull is made again, ten at most. Nothing spins on CPU 0 meanwhile (QEMU's icount, above). */
static volatile int first_cpu;
static int first_ran[2];	/* a pipe: the new thread's word that it ran */

static void *say_first_cpu(void *arg)
{
	(void)arg;
	first_cpu = sched_getcpu();
	ASSERT_EQ(write(first_ran[1], "r", 1), 1);
	return NULL;
}

static void allow(pthread_t th, int cpu0, int cpu1)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu0 >= 0)
		CPU_SET(cpu0, &set);
	CPU_SET(cpu1, &set);
	ASSERT_EQ(pthread_setaffinity_np(th, sizeof(set), &set), 0);
}

TEST(idle_cpu_pulls_a_waiting_task)
{
	pthread_t spin, th;
	int cpu = -1, tries, bound_ms = ktap_on_pmuos() ? 1 : 1000;

	if (online_cpus() < 2)
		SKIP("one CPU online");
	pin(0);
	spin_cpu = 1;
	spinner_on = -1, spinner_tid = 0;
	ASSERT_EQ(pthread_create(&spin, NULL, spinner, NULL), 0);
	spin_on(1);
	ASSERT_EQ(pipe(first_ran), 0);
	for (tries = 0; tries < 10 && cpu != 0; tries++) {
		struct pollfd pfd = { .fd = first_ran[0], .events = POLLIN };
		char c;
		first_cpu = -1;
		ASSERT_EQ(pthread_create(&th, NULL, say_first_cpu, NULL), 0);
		allow(th, -1, 1);	/* waits behind the spinner */
		allow(th, 0, 1);
		if (first_cpu < 0 && poll(&pfd, 1, bound_ms) == 1)
			cpu = first_cpu;
		ASSERT_EQ(pthread_join(th, NULL), 0);
		ASSERT_EQ(read(first_ran[0], &c, 1), 1);
	}
	ktap_print("first ran on CPU %d, after %d tries", cpu, tries);
	EXPECT_EQ(cpu, 0);
	spin_cpu = -1;
	ASSERT_EQ(pthread_join(spin, NULL), 0);
	close(first_ran[0]);
	close(first_ran[1]);
	pin(-1);
}

/* perf_event_open's cpu argument, as Linux 6.1's: any online CPU for a CPU-wide event, EINVAL
 * past the last. A CPU-wide task-clock on CPU 1 counts there while CPU 0 reads it; a task's
 * event bound to CPU 1 counts only while the task runs there. */
TEST(events_bound_to_each_cpu)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int n = online_cpus();

	ASSERT_GT(n, 0);
	EXPECT_ERRNO(perf_open(&a, -1, n, -1, 0), EINVAL);
	EXPECT_ERRNO(perf_open(&a, 0, n, -1, 0), EINVAL);
	if (n < 2)
		SKIP("one CPU online");
	pin(0);
	int wide = perf_open(&a, -1, 1, -1, 0);
	ASSERT_GE(wide, 0);
	uint64_t w1 = perf_value(wide);
	burn();
	EXPECT_GT(perf_value(wide), w1);	/* CPU 1's clock, read from CPU 0 */
	close(wide);

	int bound = perf_open(&a, 0, 1, -1, 0);
	ASSERT_GE(bound, 0);
	burn();
	EXPECT_EQ(perf_value(bound), 0);	/* this task is on CPU 0 */
	pin(1);
	burn();
	EXPECT_GT(perf_value(bound), 0);
	pin(0);			/* counted until the task left CPU 1 in this call */
	uint64_t b1 = perf_value(bound);
	burn();
	EXPECT_EQ(perf_value(bound), b1);	/* and not since */
	close(bound);
	pin(-1);
}

/* ---- a page taken away from under a thread on another CPU ---- */

static char *volatile page;
static volatile int taken, stale_reads, faulted;
static int reading[2];		/* a pipe: the reader's word that it reads the page */
static sigjmp_buf reader_jmp;

static void reader_fault(int sig)
{
	(void)sig;
	siglongjmp(reader_jmp, 1);
}

/* On CPU 1, reads the page until a read faults; a read that works after the page was taken
 * away (taken was already set) is stale. Gives up after many of them. */
static void *reader(void *arg)
{
	(void)arg;
	pin(1);
	if (sigsetjmp(reader_jmp, 1) == 0) {
		(void)*(volatile char *)page;
		ASSERT_EQ(write(reading[1], "r", 1), 1);
		while (stale_reads < 100000) {
			int gone = taken;
			(void)*(volatile char *)page;
			stale_reads += gone;
		}
		return NULL;
	}
	faulted = 1;
	return NULL;
}

/* The page goes (munmap) or becomes unreadable (mprotect PROT_NONE) on CPU 0 while the
 * reader has it in its TLB on CPU 1: the reader's next read after the call faults. */
static void take_page_from_reader(bool unmap)
{
	struct sigaction sa = { .sa_handler = reader_fault };
	pthread_t th;

	if (online_cpus() < 2)
		SKIP("one CPU online");
	pin(0);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(page, MAP_FAILED);
	page[0] = 1;
	taken = stale_reads = faulted = 0;
	ASSERT_EQ(pipe(reading), 0);
	ASSERT_EQ(sigaction(SIGSEGV, &sa, NULL), 0);
	ASSERT_EQ(pthread_create(&th, NULL, reader, NULL), 0);
	char c;
	ASSERT_EQ(read(reading[0], &c, 1), 1);	/* asleep, not in the reader's way */
	perf_loop(100000);	/* the reader reads meanwhile */
	if (unmap)
		ASSERT_EQ(munmap(page, 4096), 0);
	else
		ASSERT_EQ(mprotect(page, 4096, PROT_NONE), 0);
	taken = 1;
	ASSERT_EQ(pthread_join(th, NULL), 0);
	EXPECT_EQ(faulted, 1);
	EXPECT_EQ(stale_reads, 0);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGSEGV, &sa, NULL);
	if (!unmap)
		munmap(page, 4096);
	close(reading[0]);
	close(reading[1]);
	pin(-1);
}

TEST(munmap_reaches_a_reader_on_another_cpu)
{
	take_page_from_reader(true);
}

TEST(mprotect_reaches_a_reader_on_another_cpu)
{
	take_page_from_reader(false);
}
