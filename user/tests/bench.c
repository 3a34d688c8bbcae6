/* user/tests/bench.c: guest-instruction cost of system calls and perf reads (rdtsc under QEMU -icount shift=0,sleep=off). */
#include "bench.h"
#include "ktap.h"
#include "perf.h"
#include "itrace_decode.h"

#include <pmuos/perf_ext.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The minimum TSC delta around one syscall instruction with up to three arguments; callers
 * check the call's answer once beforehand, outside the timing. */
static uint64_t syscall_ticks(long nr, long a1, long a2, long a3)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < BENCH_RUNS; i++) {
		long ax = nr;
		uint64_t t0 = perf_rdtsc();

		asm volatile("syscall" : "+a"(ax) : "D"(a1), "S"(a2), "d"(a3) : "rcx", "r11", "memory");
		uint64_t d = perf_rdtsc() - t0;
		best = d < best ? d : best;
	}
	return best;
}

/* The figures for perf calls are taken on a counting task-clock event, the only one open. */
static int task_clock(bool disabled)
{
	return perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, disabled, -1);
}

TEST(getpid)
{
	bench_report("getpid", syscall_ticks(SYS_getpid, 0, 0, 0));
}

TEST(unknown_syscall)
{
	ASSERT_ERRNO(syscall(1000), ENOSYS);
	bench_report("enosys", syscall_ticks(1000, 0, 0, 0));
}

TEST(read_counting_event)
{
	int fd = task_clock(false);
	uint64_t value;

	ASSERT_EQ(read(fd, &value, sizeof(value)), sizeof(value));
	bench_report("read", syscall_ticks(SYS_read, fd, (long)&value, sizeof(value)));
	close(fd);
}

TEST(ioctl_reset)
{
	int fd = task_clock(false);

	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	bench_report("ioctl_reset", syscall_ticks(SYS_ioctl, fd, PERF_EVENT_IOC_RESET, 0));
	close(fd);
}

/* Each run enables a disabled event; the DISABLE that undoes it stays outside the timing. */
TEST(ioctl_enable)
{
	int fd = task_clock(true);
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < BENCH_RUNS; i++) {
		long ax = SYS_ioctl;
		uint64_t t0 = perf_rdtsc();

		asm volatile("syscall"
			     : "+a"(ax)
			     : "D"((long)fd), "S"((long)PERF_EVENT_IOC_ENABLE), "d"(0L)
			     : "rcx", "r11", "memory");
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(ax, 0);
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		best = d < best ? d : best;
	}
	bench_report("ioctl_enable", best);
	close(fd);
}

/* perf_event_open of an enabled task-clock event and close() of the new fd, back to back. */
TEST(open_close)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < BENCH_RUNS; i++) {
		register long group asm("r10") = -1;
		register long flags asm("r8") = 0;
		long ax = SYS_perf_event_open;
		uint64_t t0 = perf_rdtsc();

		asm volatile("syscall\n\t"
			     "mov %%rax, %%rdi\n\t"
			     "mov %[close], %%eax\n\t"
			     "syscall"
			     : "+a"(ax), "+r"(group), "+r"(flags)
			     : "D"(&attr), "S"(0L), "d"(-1L), [close] "i"(SYS_close)
			     : "rcx", "r11", "memory");
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(ax, 0); /* close() of what perf_event_open returned */
		best = d < best ? d : best;
	}
	bench_report("open_close", best);
}

/* The same three while a hardware event counts instructions:u. Under QEMU TCG the PMU is
 * pmuos's model: every entry and return then runs its privilege split (a real PMU has no
 * such cost, and these figures there are the fast path's). Linux under TCG has no hardware
 * event: SKIP. */
TEST(with_hw_event_counting)
{
	int hw = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, false, -1);
	int fd = task_clock(false);
	uint64_t value;

	ASSERT_EQ(read(fd, &value, sizeof(value)), sizeof(value));
	bench_report("getpid_model", syscall_ticks(SYS_getpid, 0, 0, 0));
	bench_report("read_model", syscall_ticks(SYS_read, fd, (long)&value, sizeof(value)));
	bench_report("ioctl_reset_model", syscall_ticks(SYS_ioctl, fd, PERF_EVENT_IOC_RESET, 0));
	close(fd);
	close(hw);
}

/* The user-space read of a hardware counter through its control page (RDPMC). */
TEST(rdpmc_self_read)
{
	int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, false, -1);
	struct perf_event_mmap_page *pc = perf_map(fd);
	struct perf_self self;
	uint64_t best = UINT64_MAX;

	ASSERT_EQ(pc->cap_user_rdpmc, 1);
	for (int i = 0; i < BENCH_RUNS; i++) {
		uint64_t t0 = perf_rdtsc();

		perf_self_read(pc, &self);
		uint64_t d = perf_rdtsc() - t0;
		best = d < best ? d : best;
	}
	ASSERT_NE(self.index, 0);
	bench_report("rdpmc_read", best);
	munmap(pc, PERF_PAGE);
	close(fd);
}

/* ---- itrace (pmuos's instruction tracer): what tracing costs ---- */

#define TRACE_RUNS 5
#define TRACE_TURNS 3000 /* 9000 traced instructions: two internal buffers forwarded, and more */

static void trace_loop(long n)
{
	asm volatile("1: dec %0\n\t"
		     "nop\n\t"
		     "jnz 1b"
		     : "+r"(n));
}

/* The fewest TSC ticks of TRACE_TURNS turns, traced by t (NULL: not traced). */
static uint64_t loop_ticks(struct itrace *t)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < TRACE_RUNS; i++) {
		if (t)
			ASSERT_EQ(perf_ioctl(t->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
		uint64_t t0 = perf_rdtsc();
		trace_loop(TRACE_TURNS);
		uint64_t d = perf_rdtsc() - t0;
		if (t) {
			ASSERT_EQ(perf_ioctl(t->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
			ASSERT_GT(itrace_read(t, NULL, NULL), 3 * TRACE_TURNS);
		}
		best = d < best ? d : best;
	}
	return best;
}

/* Guest instructions a traced user instruction costs on top of itself, averaged over a loop:
 * the #DB steps, the packets, the forwarding of full buffers into the AUX area. */
static void itrace_per_insn(const char *name, uint64_t config)
{
	struct itrace t;

	if (itrace_pmu_type() < 0)
		SKIP("no itrace PMU: a pmuos one");
	ASSERT_EQ(itrace_open(&t, config, 8, 16, false), 0);
	uint64_t plain = loop_ticks(NULL), traced = loop_ticks(&t);
	uint64_t n = 3 * TRACE_TURNS;
	ktap_print("bench: %s %llu", name, (unsigned long long)((traced - plain + n / 2) / n));
	itrace_close(&t);
}

TEST(itrace_per_instruction)
{
	itrace_per_insn("itrace_insn", 0);
}

/* The same through the C trap path only (config slowpath): what the fast #DB stub saves. */
TEST(itrace_per_instruction_slow_path)
{
	itrace_per_insn("itrace_insn_slowpath", ITRACE_CONFIG_SLOWPATH);
}

/* PERF_EVENT_IOC_FLUSH of a traced task with some 340 bytes of packets buffered (300
 * instructions): the system call, the copy into the AUX area, PERF_RECORD_AUX, and the step
 * of the rdtsc before it. */
TEST(itrace_flush)
{
	struct itrace t;
	uint64_t best = UINT64_MAX;

	if (itrace_pmu_type() < 0)
		SKIP("no itrace PMU: a pmuos one");
	ASSERT_EQ(itrace_open(&t, ITRACE_CONFIG_NOTIMER, 8, 16, false), 0);
	for (int i = 0; i < BENCH_RUNS; i++) {
		long ax = SYS_ioctl;

		ASSERT_EQ(perf_ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0), 0);
		trace_loop(100);
		uint64_t t0 = perf_rdtsc();
		asm volatile("syscall"
			     : "+a"(ax)
			     : "D"((long)t.fd), "S"((long)PERF_EVENT_IOC_FLUSH), "d"(0L)
			     : "rcx", "r11", "memory");
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(ax, 0);
		ASSERT_EQ(perf_ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		ASSERT_GT(itrace_read(&t, NULL, NULL), 300); /* room for the next */
		best = d < best ? d : best;
	}
	bench_report("itrace_flush", best);
	itrace_close(&t);
}

/* ---- sampling: what one sample costs, and the rate a reader keeps up with ---- */

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define RING_PAGES 16 /* 64 KiB */
#define SAMPLE_TURNS 400000

static void sample_loop(long n)
{
	asm volatile("1: dec %0\n\t"
		     "nop\n\t"
		     "jnz 1b"
		     : "+r"(n));
}

/* Records of type in the ring since *pos, consumed: data_tail follows. */
static unsigned drain(struct perf_event_mmap_page *pc, uint64_t *pos, uint32_t type)
{
	uint64_t buf[64];
	unsigned n = 0;

	for (const struct perf_event_header *h; (h = perf_ring_next(pc, pos, buf, sizeof(buf)));)
		n += h->type == type;
	__atomic_store_n(&pc->data_tail, *pos, __ATOMIC_RELEASE);
	return n;
}

static uint64_t timed_loop(int fd, struct perf_event_mmap_page *pc, unsigned *samples)
{
	uint64_t pos = pc ? pc->data_tail : 0;

	if (fd >= 0)
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	uint64_t t0 = perf_rdtsc();
	sample_loop(SAMPLE_TURNS);
	uint64_t d = perf_rdtsc() - t0;
	if (fd >= 0) {
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		*samples = drain(pc, &pos, PERF_RECORD_SAMPLE);
	}
	return d;
}

/* Guest instructions one sample adds to the loop it interrupts: the interrupt (the
 * simulated PMU's, or an NMI on hardware), the PMI, the record, the return. */
static void per_sample(const char *name, struct perf_event_attr *attr)
{
	unsigned samples = 0;
	int fd = perf_open(attr, 0, -1, -1, 0);

	if (fd < 0)
		SKIP("%s cannot sample here", name);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, RING_PAGES);
	uint64_t plain = timed_loop(-1, NULL, NULL), sampled = timed_loop(fd, pc, &samples);
	ASSERT_GT(samples, 10);
	ktap_print("bench: %s %llu", name, (unsigned long long)((sampled - plain) / samples));
	perf_ring_unmap(pc);
	close(fd);
}

TEST(sample_cost)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

	attr.sample_period = 10000;
	attr.sample_type = SAMPLE_TYPE;
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	per_sample("sample_cost", &attr);
}

/* The same with cpu-clock, which Linux has under TCG too: its hrtimer against ours. */
TEST(cpu_clock_sample_cost)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);

	attr.sample_period = 20000; /* ns */
	attr.sample_type = SAMPLE_TYPE;
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	per_sample("cpu_clock_sample_cost", &attr);
}

/* The highest rate (samples per second of guest time) a reader draining a 64 KiB ring after
 * every 100k-instruction stretch keeps with no lost record and no throttling. */
TEST(sample_rate_max)
{
	static const uint64_t periods[] = { 100000, 30000, 10000, 3000, 1000, 300 };
	double best = 0;

	for (unsigned i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
		attr.sample_period = periods[i];
		attr.sample_type = SAMPLE_TYPE;
		attr.exclude_kernel = 1;
		attr.disabled = 1;
		int fd = perf_open(&attr, 0, -1, -1, 0);
		if (fd < 0)
			SKIP("no hardware PMU to sample with");
		struct perf_event_mmap_page *pc = perf_ring_map(fd, RING_PAGES);
		uint64_t pos = pc->data_tail, buf[64];
		unsigned samples = 0, lost = 0;
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
		for (int chunk = 0; chunk < 40; chunk++) {
			sample_loop(33333);
			for (const struct perf_event_header *h; (h = perf_ring_next(pc, &pos, buf, sizeof(buf)));) {
				samples += h->type == PERF_RECORD_SAMPLE;
				lost += h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_THROTTLE;
			}
			__atomic_store_n(&pc->data_tail, pos, __ATOMIC_RELEASE);
		}
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (!lost && samples / secs > best)
			best = samples / secs;
		perf_ring_unmap(pc);
		close(fd);
	}
	ktap_print("bench: sample_rate_max %llu", (unsigned long long)best);
}

/* ---- files (the RAM root under /tmp, on both kernels) ---- */

static inline long raw_syscall3(long nr, long a1, long a2, long a3)
{
	asm volatile("syscall" : "+a"(nr) : "D"(a1), "S"(a2), "d"(a3) : "rcx", "r11", "memory");
	return nr;
}

#define BENCH_FILE	"/tmp/bench_file"
#define BENCH_DIR	"/tmp/bench_dir"

/* open(O_RDONLY) + read of 4 KiB + close of a 4 KiB file, the three calls timed together. */
TEST(file_open_read_close)
{
	static char page[4096];
	uint64_t best = UINT64_MAX;
	int fd = open(BENCH_FILE, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, page, sizeof(page)), sizeof(page));
	close(fd);
	for (int i = 0; i < BENCH_RUNS; i++) {
		uint64_t t0 = perf_rdtsc();
		long f = raw_syscall3(SYS_open, (long)BENCH_FILE, O_RDONLY, 0);
		long n = raw_syscall3(SYS_read, f, (long)page, sizeof(page));
		long c = raw_syscall3(SYS_close, f, 0, 0);
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(f >= 0 && n == sizeof(page) && c == 0, 1);
		best = d < best ? d : best;
	}
	bench_report("file_open_read_close", best);
}

TEST(file_stat)
{
	struct stat st;

	ASSERT_EQ(stat(BENCH_FILE, &st), 0);
	bench_report("file_stat", syscall_ticks(SYS_stat, (long)BENCH_FILE, (long)&st, 0));
	unlink(BENCH_FILE);
}

/* getdents64 of a folder of 100 files (and the dots) into a buffer that holds them all, after
 * an lseek to 0 that is not timed. */
TEST(dir_getdents64_100)
{
	static char buf[16384];
	char name[64];
	uint64_t best = UINT64_MAX;

	ASSERT_EQ(mkdir(BENCH_DIR, 0755), 0);
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), BENCH_DIR "/entry%03d", i);
		int fd = open(name, O_CREAT | O_WRONLY, 0644);
		ASSERT_GE(fd, 0);
		close(fd);
	}
	int dir = open(BENCH_DIR, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dir, 0);
	for (int i = 0; i < BENCH_RUNS; i++) {
		ASSERT_EQ(lseek(dir, 0, SEEK_SET), 0);
		uint64_t t0 = perf_rdtsc();
		long n = raw_syscall3(SYS_getdents64, dir, (long)buf, sizeof(buf));
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_GT(n, 100 * 24);
		best = d < best ? d : best;
	}
	close(dir);
	bench_report("dir_getdents64_100", best);
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), BENCH_DIR "/entry%03d", i);
		unlink(name);
	}
	rmdir(BENCH_DIR);
}

/* ---- processes (both kernels boot one CPU for the bench) ---- */

#define PROC_RUNS 50

/* fork() of this small process, the child's _exit(0) and the parent's wait4, timed together:
 * the address space copied (copy-on-write), two switches, the zombie reaped. */
TEST(fork_exit_wait)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < PROC_RUNS; i++) {
		int status;
		uint64_t t0 = perf_rdtsc();
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(status, 0);
		best = d < best ? d : best;
	}
	bench_report("fork_exit_wait", best);
}

/* One byte to a child over a pipe and back over another: two writes, two reads, two
 * switches from a blocked reader to the writer's peer. */
TEST(pipe_round_trip)
{
	int there[2], back[2];
	char c = 0;
	uint64_t best = UINT64_MAX;

	ASSERT_EQ(pipe(there), 0);
	ASSERT_EQ(pipe(back), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(there[1]);	/* so that the parent's close is its EOF */
		while (read(there[0], &c, 1) == 1 && write(back[1], &c, 1) == 1)
			;
		_exit(0);
	}
	for (int i = 0; i < PROC_RUNS; i++) {
		uint64_t t0 = perf_rdtsc();
		long w = raw_syscall3(SYS_write, there[1], (long)&c, 1);
		long r = raw_syscall3(SYS_read, back[0], (long)&c, 1);
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(w == 1 && r == 1, 1);
		best = d < best ? d : best;
	}
	close(there[1]);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	close(there[0]), close(back[0]), close(back[1]);
	bench_report("pipe_round_trip", best);
}

/* FUTEX_WAKE of a word nobody waits on: what an uncontended mutex unlock pays when its
 * waiters bit was left set. */
TEST(futex_wake_none)
{
	static int word;

	ASSERT_EQ(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
	bench_report("futex_wake_none", syscall_ticks(SYS_futex, (long)&word, FUTEX_WAKE_PRIVATE, 1));
}

/* ---- threads, futexes, switches ---- */

static void *thread_returns(void *arg)
{
	return arg;
}

/* pthread_create of a thread that returns at once, and the pthread_join that reaps it, timed
 * together: musl's stack mapping, clone, the thread's run and exit, the CLEARTID wake. */
TEST(pthread_create_join)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < PROC_RUNS; i++) {
		pthread_t t;
		void *ret;
		uint64_t t0 = perf_rdtsc();
		ASSERT_EQ(pthread_create(&t, NULL, thread_returns, &best), 0);
		ASSERT_EQ(pthread_join(t, &ret), 0);
		uint64_t d = perf_rdtsc() - t0;
		ASSERT_EQ(ret == &best, 1);
		best = d < best ? d : best;
	}
	bench_report("pthread_create_join", best);
}

/* futex(word, op, val) with no timeout (r10 = NULL), the raw call. */
static long futex3(volatile int *word, int op, int val)
{
	long ax = SYS_futex;
	register long r10 asm("r10") = 0;

	asm volatile("syscall" : "+a"(ax) : "D"(word), "S"(op), "d"(val), "r"(r10)
		     : "rcx", "r11", "memory");
	return ax;
}

/* The ping-pong word: 1 is the partner's turn, 0 the main thread's, 2 ends the partner. */
static volatile int pong_word;

static void *pong(void *arg)
{
	(void)arg;
	for (;;) {
		int v = pong_word;
		if (v == 2)
			return NULL;
		if (v != 1) {
			futex3(&pong_word, FUTEX_WAIT_PRIVATE, v);
			continue;
		}
		pong_word = 0;
		futex3(&pong_word, FUTEX_WAKE_PRIVATE, 1);
	}
}

/* Two threads of one process hand a futex word back and forth: the main thread sets it and
 * wakes the partner, then waits until the partner has set it back and woken it. One round
 * trip: two wakes, two waits, two switches. */
TEST(futex_round_trip)
{
	pthread_t t;
	uint64_t best = UINT64_MAX;

	pong_word = 0;
	ASSERT_EQ(pthread_create(&t, NULL, pong, NULL), 0);
	for (int i = 0; i < PROC_RUNS; i++) {
		uint64_t t0 = perf_rdtsc();
		pong_word = 1;
		futex3(&pong_word, FUTEX_WAKE_PRIVATE, 1);
		while (pong_word == 1)
			futex3(&pong_word, FUTEX_WAIT_PRIVATE, 1);
		uint64_t d = perf_rdtsc() - t0;
		best = d < best ? d : best;
	}
	pong_word = 2;
	futex3(&pong_word, FUTEX_WAKE_PRIVATE, 1);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	bench_report("futex_round_trip", best);
}

/* Two processes take turns through sched_yield: each yield of the parent runs the child once
 * (a shared counter proves it) and comes back. Half a round trip is one yield and one switch
 * between address spaces, the figure lmbench's lat_ctx takes with pipes. */
TEST(context_switch)
{
	volatile uint64_t *shared = mmap(NULL, PERF_PAGE, PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t best = UINT64_MAX;
	int alternated = 0;

	ASSERT_NE(shared, MAP_FAILED);
	shared[0] = shared[1] = 0;	/* the child's turns; stop */
	pid_t pid = fork();
	if (pid == 0) {
		while (!shared[1]) {
			shared[0]++;
			raw_syscall3(SYS_sched_yield, 0, 0, 0);
		}
		_exit(0);
	}
	/* Until the child has taken turns: Linux's CFS starts it a slice behind, and a yield
	 * goes to a task only within its wakeup granularity. */
	for (long n = 0; shared[0] < 16 && n < 1000000; n++)
		raw_syscall3(SYS_sched_yield, 0, 0, 0);
	for (int i = 0; i < PROC_RUNS; i++) {
		uint64_t turns = shared[0];
		uint64_t t0 = perf_rdtsc();
		raw_syscall3(SYS_sched_yield, 0, 0, 0);
		uint64_t d = perf_rdtsc() - t0;
		if (shared[0] != turns + 1)
			continue;	/* not one turn of the child's: not a switch there and back */
		alternated++;
		best = d < best ? d : best;
	}
	shared[1] = 1;
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	munmap((void *)shared, PERF_PAGE);
	ASSERT_GE(alternated, PROC_RUNS / 2);
	bench_report("context_switch", best / 2);
}

/* The child's window: it enables the inherited event (an ioctl on the parent's fd reaches
 * the copies, as Linux's), then its own, runs n turns of a two-instruction loop, and
 * disables them in the same order. The instructions between the two enables count on the
 * inherited event only, those between the two disables on the child's own only; the two
 * stretches are the same instructions, so both events count the same number. */
static void inherit_window(int inherited, int own, long n)
{
	asm volatile("mov %[inh], %%edi\n\tmov %[en], %%esi\n\txor %%edx, %%edx\n\t"
		     "mov %[ioctl], %%eax\n\tsyscall\n\t"
		     "mov %[own], %%edi\n\tmov %[en], %%esi\n\txor %%edx, %%edx\n\t"
		     "mov %[ioctl], %%eax\n\tsyscall\n\t"
		     "1:\n\tdec %[n]\n\tjnz 1b\n\t"
		     "mov %[inh], %%edi\n\tmov %[dis], %%esi\n\txor %%edx, %%edx\n\t"
		     "mov %[ioctl], %%eax\n\tsyscall\n\t"
		     "mov %[own], %%edi\n\tmov %[dis], %%esi\n\txor %%edx, %%edx\n\t"
		     "mov %[ioctl], %%eax\n\tsyscall"
		     : [n] "+r"(n)
		     : [inh] "r"(inherited), [own] "r"(own), [en] "i"(PERF_EVENT_IOC_ENABLE),
		       [dis] "i"(PERF_EVENT_IOC_DISABLE), [ioctl] "i"(SYS_ioctl)
		     : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "memory", "cc");
}

#define INHERIT_LOOP 100000

/* The exact user-instruction count of a child under an inherited event: the parent opens
 * instructions:u disabled with inherit=1 and forks; the child counts its window (above) on
 * its copy and on an event of its own, sends its own count up a pipe and exits; the parent
 * waits and reads its event, which the copy's count joined at the child's exit. The parent
 * sleeps in wait4 meanwhile, so its own share is 0. Under TCG, pmuos's simulated PMU; Linux
 * there has no hardware event (SKIP). */
TEST(inherited_child_count)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	int p[2];
	uint64_t own_count = 0;

	attr.disabled = 1;
	attr.inherit = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	int fd = perf_open_hw_attr(&attr, -1);
	ASSERT_EQ(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct perf_event_attr own_attr = attr;
		own_attr.inherit = 0;
		int own = perf_open(&own_attr, 0, -1, -1, 0);
		uint64_t v = 0;
		if (own >= 0) {
			inherit_window(fd, own, INHERIT_LOOP);
			if (read(own, &v, sizeof(v)) != sizeof(v))
				v = 0;
		}
		_exit(write(p[1], &v, sizeof(v)) == sizeof(v) ? 0 : 1);
	}
	int status;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(status, 0);
	ASSERT_EQ(read(p[0], &own_count, sizeof(own_count)), sizeof(own_count));
	uint64_t inherited = perf_value(fd);
	close(p[0]), close(p[1]), close(fd);
	ktap_print("bench: inherited_child_insns %llu", (unsigned long long)inherited);
	ktap_print("bench: child_own_insns %llu", (unsigned long long)own_count);
	ASSERT_GE(own_count, 2 * INHERIT_LOOP);
	ASSERT_EQ(inherited, own_count);
}
