/* user/tests/perf_smp.c: perf_event on several CPUs, as Linux 6.1: each CPU multiplexes its own
 * events, has its own debug registers and its own tracer; CPU-wide events each write their CPU's
 * ring (PERF_SAMPLE_CPU, SWITCH_CPU_WIDE), SET_OUTPUT joins events of one CPU only,
 * cpu-migrations counts the moves, and a persistent event (seed 001) stays on its CPU. With one
 * CPU every test says SKIP (the Linux oracle boots one: README, "SMP"). */
#include "cpu.h"
#include "itrace_decode.h"
#include "file.h"
#include "ktap.h"
#include "perf.h"
#include "pmuos.h"

#include <asm/perf_regs.h>
#include <linux/hw_breakpoint.h>
#include <pthread.h>
#include <fcntl.h>
#include <pmuos/perf_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void need_two_cpus(void)
{
	if (online_cpus() < 2)
		SKIP("one CPU online");
}

/* ---- multiplexing: a rotation on each CPU ---- */

#define GROUPS 8 /* groups of two instructions events: more than one CPU's counters */

struct group {
	int leader, sibling;
	uint64_t nr, enabled, running, value[2];
};

static int open_on(struct perf_event_attr *a, int cpu, int group_fd)
{
	int fd = perf_open(a, -1, cpu, group_fd, 0);

	if (fd < 0 && (errno == ENOENT || errno == EOPNOTSUPP))
		SKIP("no hardware PMU");
	ASSERT_GE(fd, 0);
	return fd;
}

static void open_groups(struct group *g, int cpu)
{
	for (int i = 0; i < GROUPS; i++) {
		struct perf_event_attr a = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
		a.exclude_kernel = a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TIMES;
		g[i].leader = open_on(&a, cpu, -1);
		g[i].sibling = open_on(&a, cpu, g[i].leader);
	}
}

/* Every group has had its turns, and some waited: the CPU rotated its groups while the loop
 * ran (a quarter of the time or so for each, as two groups fit). */
static void expect_rotated(struct group *g, int cpu)
{
	bool waited = false;

	for (int i = 0; i < GROUPS; i++) {
		perf_read_words(g[i].leader, &g[i].nr, 5);
		ktap_print("CPU %d group %d: on the PMU %llu of %llu ns", cpu, i,
			   (unsigned long long)g[i].running, (unsigned long long)g[i].enabled);
		EXPECT_GT(g[i].running, g[i].enabled / 20);	/* turns all along, not at the start */
		EXPECT_LE(g[i].running, g[i].enabled);
		waited = waited || g[i].running < g[i].enabled;
		close(g[i].sibling);
		close(g[i].leader);
	}
	EXPECT_TRUE(waited);
}

static void *loop_on_cpu_1(void *arg)
{
	(void)arg;
	pin(1);
	perf_loop(15000000);
	return NULL;
}

/* Both CPUs loop without a context switch, so only each CPU's own rotation timer gives its
 * groups past the counters a turn (one timer shared by all CPUs would be the first's alone). */
TEST(each_cpu_rotates_its_groups)
{
	struct group g0[GROUPS], g1[GROUPS];
	pthread_t th;

	need_two_cpus();
	pin(0);
	open_groups(g1, 1);
	open_groups(g0, 0);
	ASSERT_EQ(pthread_create(&th, NULL, loop_on_cpu_1, NULL), 0);
	perf_loop(15000000); /* some 45 ms: ten rotations of each CPU's 4 ms */
	ASSERT_EQ(pthread_join(th, NULL), 0);
	expect_rotated(g0, 0);
	expect_rotated(g1, 1);
	pin(-1);
}

TEST(idle_cpu_rotates_its_groups)
{
	struct group g1[GROUPS];
	struct timespec nap = { 0, 5000000 };

	need_two_cpus();
	pin(0);
	open_groups(g1, 1);
	for (int i = 0; i < 9; i++)
		nanosleep(&nap, NULL);
	expect_rotated(g1, 1);
	pin(-1);
}

/* ---- breakpoints: each CPU's four debug registers ---- */

static volatile int watched[5];

static int breakpoint_on(int cpu, volatile int *addr)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_BREAKPOINT, 0);

	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)addr;
	a.bp_len = HW_BREAKPOINT_LEN_4;
	return perf_open(&a, -1, cpu, -1, 0);
}

static void write_watched(int n)
{
	for (int i = 0; i < n; i++)
		watched[0] = i;
}

/* Linux's slot constraint is per CPU: four CPU-wide breakpoints on each CPU fit, a fifth on one
 * is ENOSPC; a write counts on the CPU it runs on only. */
TEST(breakpoints_per_cpu)
{
	int fds[2][4];

	need_two_cpus();
	pin(0);
	for (int cpu = 0; cpu < 2; cpu++)
		for (int i = 0; i < 4; i++) {
			fds[cpu][i] = breakpoint_on(cpu, &watched[i]);
			ASSERT_GE(fds[cpu][i], 0);
		}
	EXPECT_ERRNO(breakpoint_on(1, &watched[4]), ENOSPC);
	EXPECT_ERRNO(breakpoint_on(0, &watched[4]), ENOSPC);
	pin(1);
	write_watched(100);
	pin(0);
	write_watched(50);
	EXPECT_EQ(perf_value(fds[1][0]), 100);
	EXPECT_EQ(perf_value(fds[0][0]), 50);
	EXPECT_EQ(perf_value(fds[1][1]), 0);
	for (int cpu = 0; cpu < 2; cpu++)
		for (int i = 0; i < 4; i++)
			close(fds[cpu][i]);
	pin(-1);
}

/* ---- itrace: one tracer per CPU, the AUX area of CPU 1's ---- */

static void count_ip(uint64_t ip, void *ctx)
{
	(void)ip;
	++*(long *)ctx;
}

/* A CPU-wide tracer on CPU 1 and one on CPU 0 trace at once (a second one on CPU 1, or a task's
 * that may run anywhere, is EBUSY); the loop run on CPU 1 reaches CPU 1's AUX area, flushed from
 * CPU 0 while it still traces there. */
TEST(itrace_tracer_per_cpu)
{
	static struct itrace t0, t1, t2;
	long n0 = 0, n1 = 0;

	need_two_cpus();
	if (itrace_pmu_type() < 0)
		SKIP("no itrace PMU: a pmuos one");
	pin(0);
	ASSERT_EQ(itrace_open_on(&t1, -1, 1, 0, 4, 64, false), 0);
	EXPECT_EQ(itrace_open_on(&t2, -1, 1, 0, 4, 16, false), -1);
	EXPECT_EQ(errno, EBUSY);
	EXPECT_EQ(itrace_open_on(&t2, 0, -1, 0, 4, 16, false), -1);
	EXPECT_EQ(errno, EBUSY);
	ASSERT_EQ(itrace_open_on(&t0, -1, 0, 0, 4, 64, false), 0);
	ASSERT_EQ(perf_ioctl(t1.fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(perf_ioctl(t0.fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	pin(1);
	perf_loop(1000);
	pin(0);
	ASSERT_EQ(perf_ioctl(t1.fd, PERF_EVENT_IOC_FLUSH, 0), 0);
	n1 = itrace_read(&t1, count_ip, &n1) < 0 ? -1 : n1;
	ktap_print("CPU 1's tracer: %ld instructions", n1);
	EXPECT_GE(n1, 1000 * PERF_LOOP_INSNS);
	perf_loop(500);
	ASSERT_EQ(perf_ioctl(t0.fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(perf_ioctl(t1.fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	n0 = itrace_read(&t0, count_ip, &n0) < 0 ? -1 : n0;
	ktap_print("CPU 0's tracer: %ld instructions", n0);
	EXPECT_GE(n0, 500 * PERF_LOOP_INSNS);
	itrace_close(&t0);
	itrace_close(&t1);
	pin(-1);
}

/* ---- CPU-wide rings: perf record -a ---- */

#define RING_PAGES 8

struct cpu_sample {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
	uint32_t cpu, res;
};

struct cpu_switch {
	struct perf_event_header header;
	uint32_t next_prev_pid, next_prev_tid;
	uint32_t pid, tid;	/* sample_id_all: TID */
	uint32_t cpu, res;	/* and CPU */
};

/* A page-fault sampler on each CPU with its own ring, as perf record -a opens: a fresh page
 * touched on each CPU is sampled in that CPU's ring with its CPU, and each ring has the
 * SWITCH_CPU_WIDE records of its CPU. */
TEST(cpu_wide_ring_per_cpu)
{
	/* CPUs 0 and 1: at -smp 4 after the whole suite, pinning to CPUs 2 and 3 too once hung
	 * (not yet understood). */
	int n = 2, fds[2];
	struct perf_event_mmap_page *pc[2];

	need_two_cpus();
	pin(0);
	for (int cpu = 0; cpu < n; cpu++) {
		struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
		a.sample_id_all = 1;
		a.context_switch = 1;
		a.exclude_kernel = 1;
		fds[cpu] = perf_open(&a, -1, cpu, -1, 0);
		ASSERT_GE(fds[cpu], 0);
		pc[cpu] = perf_ring_map(fds[cpu], RING_PAGES);
		ASSERT_TRUE(pc[cpu] != NULL);
	}
	for (int cpu = 0; cpu < n; cpu++) {
		pin(cpu);
		char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE(p != MAP_FAILED);
		p[0] = 1;
		munmap(p, 4096);
	}
	pin(0);
	for (int cpu = 0; cpu < n; cpu++) {
		union {
			struct perf_event_header h;
			struct cpu_sample s;
			struct cpu_switch w;
			char bytes[256];
		} r;
		uint64_t pos = 0;
		int mine = 0, switches = 0, other_cpu = 0;

		ASSERT_EQ(ioctl(fds[cpu], PERF_EVENT_IOC_DISABLE, 0), 0);
		while (perf_ring_next(pc[cpu], &pos, &r, sizeof(r))) {
			if (r.h.type == PERF_RECORD_SAMPLE) {
				other_cpu += r.s.cpu != (uint32_t)cpu;
				mine += r.s.pid == (uint32_t)getpid();
			} else if (r.h.type == PERF_RECORD_SWITCH_CPU_WIDE) {
				other_cpu += r.w.cpu != (uint32_t)cpu;
				switches++;
			}
		}
		ktap_print("CPU %d's ring: %d samples of this process, %d SWITCH_CPU_WIDE", cpu,
			   mine, switches);
		EXPECT_GE(mine, 1);
		EXPECT_GE(switches, 1);
		EXPECT_EQ(other_cpu, 0);
		perf_ring_unmap(pc[cpu]);
		close(fds[cpu]);
	}
	pin(-1);
}

/* PERF_EVENT_IOC_SET_OUTPUT joins CPU-wide events of one CPU; across CPUs it is EINVAL, as
 * Linux's (a ring is written by its CPU only). */
TEST(set_output_within_one_cpu)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);

	need_two_cpus();
	int ring = perf_open(&a, -1, 1, -1, 0), same = perf_open(&a, -1, 1, -1, 0);
	int other = perf_open(&a, -1, 0, -1, 0);
	ASSERT_GE(ring, 0);
	ASSERT_GE(same, 0);
	ASSERT_GE(other, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(ring, 1);
	ASSERT_TRUE(pc != NULL);
	EXPECT_EQ(perf_ioctl(same, PERF_EVENT_IOC_SET_OUTPUT, ring), 0);
	EXPECT_ERRNO(perf_ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, ring), EINVAL);
	EXPECT_ERRNO(perf_open(&a, -1, 0, ring, PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP),
		     EINVAL);
	perf_ring_unmap(pc);
	close(other);
	close(same);
	close(ring);
}

/* ---- cpu-migrations ---- */

TEST(cpu_migrations_counts_moves)
{
	need_two_cpus();
	pin(0);
	int fd = perf_open_sw(PERF_COUNT_SW_CPU_MIGRATIONS, 0, false, -1);
	pin(0);		/* already there: no move */
	EXPECT_EQ(perf_value(fd), 0);
	pin(1);
	pin(0);
	EXPECT_EQ(perf_value(fd), 2);
	close(fd);
	pin(-1);
}

/* ---- PERF_EVENT_IOC_PERIOD of an event active on another CPU ---- */

static volatile int period_tid, period_stop;

static void *spin_on_cpu_1(void *arg)
{
	(void)arg;
	pin(1);
	period_tid = (int)syscall(SYS_gettid);
	while (!period_stop)
		;
	return NULL;
}

/* A cpu-clock sampler of a thread spinning on CPU 1, its period changed from CPU 0: the
 * clock's timer is stopped and started again on CPU 1, where the thread runs, and its samples
 * go on. (The timer armed on CPU 0 fired there with the thread elsewhere: a kernel panic.) */
TEST(period_of_an_event_active_on_another_cpu)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	/* Room for a THROTTLE record too (without icount pmuos has throttled it). */
	struct { struct perf_event_header h; uint32_t pid, tid; uint64_t more[3]; } s;
	uint64_t pos = 0, period = 100000;	/* ns */
	struct timespec nap = { 0, 2000000 };
	pthread_t th;
	int samples = 0;

	need_two_cpus();
	pin(0);
	period_tid = period_stop = 0;
	ASSERT_EQ(pthread_create(&th, NULL, spin_on_cpu_1, NULL), 0);
	while (!period_tid)
		nanosleep(&nap, NULL);
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_TID;
	int fd = perf_open(&a, period_tid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 16);
	ASSERT_TRUE(pc);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period), 0);
	for (int i = 0; i < 5; i++)
		nanosleep(&nap, NULL);	/* CPU 0 idle meanwhile */
	period_stop = 1;
	ASSERT_EQ(pthread_join(th, NULL), 0);
	while (perf_ring_find(pc, &pos, PERF_RECORD_SAMPLE, &s, sizeof(s))) {
		EXPECT_EQ(s.tid, (uint32_t)period_tid);
		samples++;
	}
	ktap_print("%d samples", samples);	/* some 100: 10 ms at 100 us */
	EXPECT_GT(samples, 0);
	perf_ring_unmap(pc);
	close(fd);
	pin(-1);
}

/* ---- the user frame of a syscall, sampled on another CPU ---- */

#define R12_MARK 0x5eed0000c0ffeeULL

/* getppid with a mark in R12, which the syscall ABI leaves alone. */
static __attribute__((noinline)) void getppid_marked(void)
{
	long ret;

	__asm__ volatile("mov %2, %%r12\n\tsyscall" : "=a"(ret) : "a"((long)SYS_getppid),
			 "r"(R12_MARK) : "rcx", "r11", "r12", "memory");
	(void)ret;
}

/* A sampler of the user registers, opened on CPU 0 and sampling syscalls on CPU 1: every CPU
 * builds the full frame on syscalls while such an event exists (pmuos's entry_work bit), so
 * the samples hold the user R12 too, which only the full frame saves. */
TEST(user_registers_of_syscalls_on_another_cpu)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	struct { struct perf_event_header h; uint64_t abi, ip, r12; } s;
	uint64_t pos = 0;
	int samples = 0, rounds = 0;

	need_two_cpus();
	a.sample_period = 10000;	/* ns */
	a.sample_type = PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = 1ULL << PERF_REG_X86_IP | 1ULL << PERF_REG_X86_R12;
	a.exclude_user = 1;
	a.disabled = 1;
	pin(0);
	int fd = perf_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 16);
	ASSERT_TRUE(pc);
	pin(1);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	/* Rounds of syscalls until some are sampled: Linux without icount, on a busy host, has
	 * sampled none of 3000 (its timer lands in user mode, or it throttles the event). */
	while (samples < 10 && rounds++ < 100) {
		for (int i = 0; i < 3000; i++)
			getppid_marked();
		while (perf_ring_find(pc, &pos, PERF_RECORD_SAMPLE, &s, sizeof(s))) {
			EXPECT_EQ(s.abi, PERF_SAMPLE_REGS_ABI_64);
			/* Of getppid_marked's syscalls (not the ioctls around them). */
			if (s.ip - (uintptr_t)getppid_marked < 64) {
				EXPECT_EQ(s.r12, R12_MARK);
				samples++;
			}
		}
		__atomic_store_n(&pc->data_tail, pos, __ATOMIC_RELEASE);
	}
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ktap_print("%d samples of the marked syscalls in %d rounds", samples, rounds);
	EXPECT_GT(samples, 0);
	perf_ring_unmap(pc);
	close(fd);
	pin(-1);
}

/* ---- samplers that overflow faster than their tasks run ---- */

#define FAST_PERIOD 7		/* the fuzzer's (seed 11 at -smp 4) */
#define FAST_TURNS 300000	/* some 900,000 instructions */
#define FAST_LIMIT_S 2		/* of guest time: a few percent of it is enough */

static volatile int fast_tid, fast_go, fast_done;

static void *fast_loop_on_cpu_1(void *arg)
{
	(void)arg;
	if (!pin_cpu(1))
		return (void *)1;
	fast_tid = (int)syscall(SYS_gettid);
	while (!fast_go)
		;
	perf_loop(FAST_TURNS);
	fast_done = 1;
	return NULL;
}

/* Two threads, on CPUs 0 and 1, each under an instructions:u sampler of period 7, both busy:
 * each loop ends, the samplers throttled as they must be. Under -icount the PMU model counts
 * the TSC, which the other CPU's instructions advance too, so an interrupt came before the
 * first user instruction after each return, for ever: the sampling budget timed only the
 * PMU handler of the model's interrupt, an eighth of it, and the rate limit saw some 130
 * samples a window (a fuzzer's racers made no progress for minutes). A livelock ends in
 * SIGALRM. */
TEST(fast_samplers_on_two_cpus_both_finish)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	struct timespec nap = { 0, 1000000 };
	pthread_t th;
	void *ret;

	need_two_cpus();
	pin(0);
	a.sample_period = FAST_PERIOD;
	a.exclude_kernel = a.exclude_hv = 1;
	a.disabled = 1;
	int fd0 = perf_open_hw_attr(&a, -1);
	fast_tid = fast_go = fast_done = 0;
	ASSERT_EQ(pthread_create(&th, NULL, fast_loop_on_cpu_1, NULL), 0);
	while (!fast_tid)
		nanosleep(&nap, NULL);
	int fd1 = perf_open(&a, fast_tid, -1, -1, 0);
	ASSERT_GE(fd1, 0);
	alarm(FAST_LIMIT_S);
	ASSERT_EQ(perf_ioctl(fd1, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(perf_ioctl(fd0, PERF_EVENT_IOC_ENABLE, 0), 0);
	fast_go = 1;
	perf_loop(FAST_TURNS);
	ASSERT_EQ(perf_ioctl(fd0, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(pthread_join(th, &ret), 0);
	alarm(0);
	ASSERT_EQ(ret, NULL);
	EXPECT_TRUE(fast_done);
	ASSERT_EQ(perf_ioctl(fd1, PERF_EVENT_IOC_DISABLE, 0), 0);
	uint64_t v0 = perf_value(fd0), v1 = perf_value(fd1);
	/* A throttled event does not count (Linux stops it too): no exact figure. */
	ktap_print("CPU 0 counted %llu, CPU 1 %llu", (unsigned long long)v0, (unsigned long long)v1);
	EXPECT_GT(v0, 0);
	EXPECT_GT(v1, 0);
	close(fd1);
	close(fd0);
	pin(-1);
}

/* ---- a persistent event (seed 001) on CPU 1 ---- */

/* Detached from its last fd it counts on; it is reopened on its own CPU only. */
TEST(persistent_event_on_cpu_1)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);

	need_two_cpus();
	if (!ktap_on_pmuos())
		SKIP("persistent events are a pmuos extension (seed 001)");
	int fd = perf_open(&a, -1, 1, -1, 0);
	ASSERT_GE(fd, 0);
	long id = perf_ioctl(fd, PERF_EVENT_IOC_DETACH, 0);
	ASSERT_GT(id, 0);
	uint64_t before = perf_value(fd);
	close(fd);
	usleep(1000);
	struct perf_event_attr r = perf_attr(pmuos_persistent_type(), id);
	EXPECT_ERRNO(perf_open(&r, -1, 0, -1, 0), EINVAL);	/* not its CPU */
	EXPECT_ERRNO(perf_open(&r, -1, -1, -1, 0), EINVAL);
	fd = perf_open(&r, -1, 1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_GT(perf_value(fd), before);	/* CPU 1's clock ran on without an fd */
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ATTACH, 0), 0);
	close(fd);
	EXPECT_ERRNO(perf_open(&r, -1, 1, -1, 0), ENOENT);	/* gone with its last fd */
}

/* ---- a ring's writers: one CPU at a time ---- */

#define MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"
#define LOW_RATE "1000"		/* 4 samples a 4 ms window (a tick of Linux's HZ=250) */
#define WALK_ID (PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define MOVES 6
#define MAX_BURSTS 20000	/* each some 30,000 instructions: far more than a window */

/* The sample_id_all trailer of WALK_ID, at the end of every record but a sample. */
struct walk_trailer {
	uint32_t pid, tid, cpu, res;
	uint64_t id;
};

/* A ring that the events of this task write, read as it fills: each record whole, of a type
 * the events ask for, theirs, of this task; THROTTLE and UNTHROTTLE take turns for each event;
 * and between the COMM records "onN" and "leaving" (the task renames itself once it has moved
 * to CPU N, and before it moves on) every record was written on CPU N. */
struct ring_walk {
	struct perf_event_mmap_page *pc;
	uint64_t pos, id[3];
	int cpu;		/* between "onN" and "leaving": N, else -1 */
	bool throttled[3];
	unsigned records, bad, elsewhere, throttles[3], unthrottles[3];
	unsigned throttles_here;	/* of the first event, since the last "onN" */
};

static int walk_event(const struct ring_walk *w, uint64_t id)
{
	for (int i = 0; i < 3; i++)
		if (id && id == w->id[i])
			return i;
	return -1;
}

static void walk_bad(struct ring_walk *w, const char *what, const struct perf_event_header *h)
{
	if (w->bad++ < 5)
		ktap_print("record %u at %llu: %s (type %u, size %u)", w->records,
			   (unsigned long long)w->pos, what, h->type, h->size);
}

/* One record, copied whole into r (its size checked). */
static void walk_record(struct ring_walk *w, uint64_t *r)
{
	const struct perf_event_header *h = (const void *)r;
	struct walk_trailer t;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);

	if (h->type == PERF_RECORD_SAMPLE) {
		if (h->size != 8 + sizeof(t)) {
			walk_bad(w, "a sample's size", h);
			return;
		}
		memcpy(&t, &r[2], 16);	/* IDENTIFIER first, then TID and CPU */
		t.id = r[1];
	} else {
		if (h->size < 8 + sizeof(t)) {
			walk_bad(w, "too short for its trailer", h);
			return;
		}
		memcpy(&t, (const char *)r + h->size - sizeof(t), sizeof(t));
	}
	int i = walk_event(w, t.id);
	if (i < 0) {
		walk_bad(w, "not an event of the ring", h);
		return;
	}
	/* While the task runs on CPU N, every record is written there, beside it. (As it moves,
	 * off every CPU for a moment, an UNTHROTTLE may be written anywhere, beside the idle
	 * loop: no other writer of the ring runs then. Linux writes it as the task comes in.) */
	if (w->cpu >= 0 && (t.cpu != (uint32_t)w->cpu || t.tid != tid) && w->elsewhere++ < 5)
		ktap_print("record %u (type %u) written on CPU %u beside task %u while the task "
			   "ran on CPU %d", w->records, h->type, t.cpu, t.tid, w->cpu);
	if (t.pid != (uint32_t)getpid() && t.pid != 0)
		walk_bad(w, "another process's", h);
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_LOST:
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		bool throttle = h->type == PERF_RECORD_THROTTLE;
		if (h->size != 32 + sizeof(t) || r[2] != t.id) {	/* time, id, stream_id */
			walk_bad(w, "a throttle record's fields", h);
			return;
		}
		if (w->throttled[i] == throttle)
			walk_bad(w, throttle ? "THROTTLE twice" : "UNTHROTTLE while not throttled", h);
		w->throttled[i] = throttle;
		if (throttle) {
			w->throttles[i]++;
			w->throttles_here += i == 0;
		} else {
			w->unthrottles[i]++;
		}
		break;
	}
	case PERF_RECORD_COMM: {
		const char *comm = (const char *)&r[2];
		if (i != 0 || h->size != 24 + sizeof(t) || ((const uint32_t *)r)[3] != tid) {
			walk_bad(w, "a COMM record's fields", h);
			return;
		}
		if (!strcmp(comm, "leaving")) {
			w->cpu = -1;
		} else if (!strncmp(comm, "on", 2)) {
			w->cpu = comm[2] - '0';
			w->throttles_here = 0;
		}
		break;
	}
	default:
		walk_bad(w, "an unknown type", h);
		return;
	}
}

/* The records published since the last call; the reader's tail follows. */
static void walk(struct ring_walk *w)
{
	static uint64_t r[64];
	const char *data = (const char *)w->pc + w->pc->data_offset;
	uint64_t head = __atomic_load_n(&w->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t mask = w->pc->data_size - 1;

	while (w->pos < head) {
		struct perf_event_header h;
		for (size_t i = 0; i < sizeof(h); i++)
			((char *)&h)[i] = data[(w->pos + i) & mask];
		if (h.size < sizeof(h) || h.size % 8 || h.size > head - w->pos || h.size > sizeof(r)) {
			walk_bad(w, "a torn header", &h);
			w->pos = head;	/* nothing after it can be found */
			break;
		}
		for (size_t i = 0; i < h.size; i++)
			((char *)r)[i] = data[(w->pos + i) & mask];
		walk_record(w, r);
		w->records++;
		w->pos += h.size;
	}
	__atomic_store_n(&w->pc->data_tail, w->pos, __ATOMIC_RELEASE);
}

/* Work with a PAUSE every 300 instructions: under QEMU 7.2's icount round robin a loop that
 * never halts nor pauses on CPU 0 starves CPU 1 (README), whose timer unthrottles. */
static void burst(void)
{
	for (int i = 0; i < 100; i++) {
		perf_loop(100);
		__builtin_ia32_pause();
	}
}

static int sampler(uint32_t type, uint64_t config, uint64_t period, bool comm)
{
	struct perf_event_attr a = perf_attr(type, config);

	a.sample_period = period;
	a.sample_type = WALK_ID;
	a.sample_id_all = 1;
	a.exclude_kernel = a.exclude_hv = 1;
	a.disabled = 1;
	a.comm = comm;
	return perf_open(&a, 0, -1, -1, 0);
}

/* A cpu-clock sampler of this task, a task-clock one and (with a PMU) an instructions one that
 * send their records into its ring, all throttled at once (the maximum rate lowered), as the
 * task moves between CPUs 0 and 1: its records are written on its CPU only, the UNTHROTTLE
 * records too (Linux's at sched-in, or at the tick of the CPU where the event runs). pmuos
 * unthrottled from the timer of the CPU that throttled, and wrote the UNTHROTTLE record there,
 * though the task had moved on and its other events sampled into the same ring on the CPU it
 * had moved to (the PMU's from an NMI, which no lock keeps out): two CPUs writing one ring at
 * once, which its writer (ring.c) does not allow for. The ring must stay whole. */
TEST(unthrottle_on_the_cpu_where_the_task_runs)
{
	struct ring_walk w = { .cpu = -1 };
	char rate[32] = "", comm[16] = "";
	int fd[3];

	need_two_cpus();
	int f = open(MAX_RATE, O_RDONLY);
	ASSERT_GE(f, 0);
	ASSERT_GT(read(f, rate, sizeof(rate) - 1), 0);
	close(f);
	ASSERT_EQ(write_text(MAX_RATE, LOW_RATE), strlen(LOW_RATE));
	ASSERT_EQ(prctl(PR_GET_NAME, comm), 0);
	pin(0);
	/* 10 us: 100,000 a second */
	fd[0] = sampler(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 10000, true);
	fd[1] = sampler(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 10000, false);
	fd[2] = sampler(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 3000, false);
	ASSERT_GE(fd[0], 0);
	ASSERT_GE(fd[1], 0);
	if (fd[2] < 0)
		ASSERT_TRUE(errno == ENOENT || errno == EOPNOTSUPP);	/* no PMU */
	w.pc = perf_ring_map(fd[0], 16);
	for (int i = 0; i < 3; i++) {
		if (fd[i] < 0)
			continue;
		if (i)
			ASSERT_EQ(perf_ioctl(fd[i], PERF_EVENT_IOC_SET_OUTPUT, fd[0]), 0);
		ASSERT_EQ(perf_ioctl(fd[i], PERF_EVENT_IOC_ID, (unsigned long)&w.id[i]), 0);
		ASSERT_EQ(perf_ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0), 0);
	}
	ASSERT_EQ(prctl(PR_SET_NAME, "on0"), 0);
	for (int move = 0; move < MOVES; move++) {
		int cpu = move % 2, bursts = 0;
		/* Throttled here: unthrottled first, if it came throttled from the other CPU. */
		for (walk(&w); !w.throttles_here && bursts < MAX_BURSTS; walk(&w), bursts++)
			burst();
		ASSERT_GT(w.throttles_here, 0);
		ASSERT_EQ(prctl(PR_SET_NAME, "leaving"), 0);
		pin(1 - cpu);
		ASSERT_EQ(prctl(PR_SET_NAME, cpu ? "on0" : "on1"), 0);
	}
	for (int bursts = 0; !w.throttles_here && bursts < MAX_BURSTS; bursts++) {
		burst();
		walk(&w);
	}
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0)
			ASSERT_EQ(perf_ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0), 0);
	walk(&w);
	ktap_print("%u records; THROTTLE/UNTHROTTLE %u/%u, %u/%u and %u/%u", w.records,
		   w.throttles[0], w.unthrottles[0], w.throttles[1], w.unthrottles[1],
		   w.throttles[2], w.unthrottles[2]);
	EXPECT_EQ(w.bad, 0);
	EXPECT_EQ(w.elsewhere, 0);
	EXPECT_GE(w.throttles[0], MOVES);
	EXPECT_GE(w.unthrottles[0], MOVES - 1);
	prctl(PR_SET_NAME, comm);
	EXPECT_EQ(write_text(MAX_RATE, rate), strlen(rate));
	perf_ring_unmap(w.pc);
	for (int i = 2; i >= 0; i--)
		if (fd[i] >= 0)
			close(fd[i]);
	pin(-1);
}

/* Side-band records go only to events that can count where they are written (Linux's
 * event_filter_match in perf_iterate_sb): a task's event bound to CPU 1 gets the COMM of a
 * rename on CPU 1, not of one on CPU 0, where another CPU's events may share its ring. */
TEST(side_band_of_a_cpu_bound_task_event_only_on_its_cpu)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	union {
		struct perf_event_header h;
		struct { struct perf_event_header h; uint32_t pid, tid; char comm[16]; } c;
		uint64_t words[8];
	} r;
	char comm[16] = "";
	uint64_t pos = 0;
	int n = 0;

	need_two_cpus();
	a.comm = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_CPU;
	ASSERT_EQ(prctl(PR_GET_NAME, comm), 0);
	pin(0);
	int fd = perf_open(&a, 0, 1, -1, 0);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 1);
	ASSERT_EQ(prctl(PR_SET_NAME, "on0"), 0);
	pin(1);
	ASSERT_EQ(prctl(PR_SET_NAME, "on1"), 0);
	pin(0);
	ASSERT_EQ(prctl(PR_SET_NAME, "on0 again"), 0);
	while (perf_ring_find(pc, &pos, PERF_RECORD_COMM, &r, sizeof(r))) {
		uint32_t cpu = (uint32_t)r.words[r.h.size / 8 - 1];	/* the trailer: CPU */
		ktap_print("COMM \"%.15s\" written on CPU %u", r.c.comm, cpu);
		EXPECT_STREQ(r.c.comm, "on1");
		EXPECT_EQ(cpu, 1);
		n++;
	}
	EXPECT_EQ(n, 1);
	prctl(PR_SET_NAME, comm);
	perf_ring_unmap(pc);
	close(fd);
	pin(-1);
}

static volatile int spin_stop, spinning;

static void *spin_on_1(void *arg)
{
	(void)arg;
	if (!pin_cpu(1))
		return (void *)1;
	spinning = 1;
	while (!spin_stop)
		perf_loop(1000);
	return NULL;
}

/* A ring unmapped on CPU 0 while CPU 1's sampler writes it, over and over: the buffer goes only
 * once no writer on CPU 1 is inside it (the event lets go of it there). The PMU's interrupt, an
 * NMI, writes without the kernel lock: freed from CPU 0 meanwhile, a sample half written on
 * CPU 1 went on into freed pages (or the free found it inside: a panic). Linux without a PMU
 * samples cpu-clock instead. */
TEST(ring_unmapped_while_another_cpu_writes_it)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	struct timespec nap = { 0, 30000 };
	int samples = 0;
	pthread_t th;
	void *ret;

	need_two_cpus();
	pin(0);
	a.sample_period = 2000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	a.exclude_kernel = a.exclude_hv = 1;
	int fd = perf_open(&a, -1, 1, -1, 0);
	if (fd < 0 && (errno == ENOENT || errno == EOPNOTSUPP)) {
		a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		a.sample_period = 10000;	/* ns */
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
		fd = perf_open(&a, -1, 1, -1, 0);
	}
	ASSERT_GE(fd, 0);
	close(fd);
	spin_stop = spinning = 0;
	ASSERT_EQ(pthread_create(&th, NULL, spin_on_1, NULL), 0);
	while (!spinning)
		nanosleep(&nap, NULL);
	for (int i = 0; i < 300; i++) {
		fd = perf_open(&a, -1, 1, -1, 0);
		ASSERT_GE(fd, 0);
		struct perf_event_mmap_page *pc = perf_ring_map(fd, 1);
		nap.tv_nsec = 20000 + i % 7 * 3000;
		nanosleep(&nap, NULL);
		samples += pc->data_head != 0;
		perf_ring_unmap(pc);	/* the last mapping: the buffer goes */
		close(fd);
	}
	spin_stop = 1;
	ASSERT_EQ(pthread_join(th, &ret), 0);
	EXPECT_EQ(ret, NULL);
	ktap_print("%d of 300 rings had samples when unmapped", samples);
	EXPECT_GT(samples, 0);
	pin(-1);
}
