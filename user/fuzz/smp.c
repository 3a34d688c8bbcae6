/* user/fuzz/smp.c: races between CPUs (`smp=N`: calls in 1000, with several CPUs online). A
 * call opens a few events on racing threads, on their CPUs and on the fuzzer, maps rings of
 * the samplers, and starts one to three threads pinned to the other CPUs; they read, ioctl,
 * map and unmap, poll, migrate, make children that exit at once (their inherited events fold
 * back meanwhile) and run work that samples (the PMI writes the rings) and faults pages of a
 * shared arena in, while the fuzzer's own thread closes, dup2s over, unmaps, reopens and
 * moves them, and drops, remaps and splits parts of the arena. Then it stops and joins the
 * racers, closes and unmaps what is left, and checks that the tasks, address spaces and events
 * are back. The threads share our memory and descriptors and make raw calls only; each draws
 * from its own generator, seeded from the run's, so its calls are a function of the seed (the
 * interleaving is too under -icount, where QEMU runs the vCPUs round robin). */
#include "fuzz.h"

#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define RACERS		3
#define RACE_FDS	6		/* events of one call */
#define RACER_TURNS	200		/* calls of a racer, at most */
#define MAIN_TURNS	48		/* calls of the fuzzer's thread in the race */
#define STACK_SIZE	(16 * 1024)

static int nr_cpus = 1;

/* What the racers and the fuzzer's thread share in a call. */
static volatile int fds[RACE_FDS];
static volatile int stop;

struct racer {
	uint64_t rng;
	int cpu;
	volatile int tid;	/* CLONE_PARENT_SETTID, CLONE_CHILD_CLEARTID: 0 once gone */
	volatile int child_tid;	/* the same for its own thread children */
	char stack[STACK_SIZE] __attribute__((aligned(16)));
	char child_stack[STACK_SIZE] __attribute__((aligned(16)));
};
static struct racer racers[RACERS];
static int nr_racers;

static const unsigned long thread_flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
	CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;

static void pin(long tid, int cpu)
{
	unsigned long mask = 1ul << cpu;

	fz_sys(SYS_sched_setaffinity, tid, sizeof(mask), (long)&mask, 0, 0, 0);
}

/* Anonymous memory the racers touch while the fuzzer's thread drops, replaces and splits
 * parts of it: their page faults (pmuos takes those without its kernel lock) against the
 * changes of the address space. It stays readable and writable throughout. */
#define ARENA_PAGES	16
static volatile char *arena;

/* Some hundreds of instructions, a page fault now and then: what samplers count. */
static void work(uint64_t *rng)
{
	static volatile char page[8 * 4096];
	volatile unsigned x = 0;

	for (unsigned i = fz_rand_from(rng) % 2000; i--;)
		x += i;
	page[(fz_rand_from(rng) % 8) * 4096] += (char)x;
	for (unsigned i = fz_rand_from(rng) % 4; i--;)
		arena[(fz_rand_from(rng) % ARENA_PAGES) * FZ_PAGE] += (char)x;
}

/* Waits for *tid to read 0 (CLONE_CHILD_CLEARTID's wake-up). */
static void join(volatile int *tid)
{
	struct timespec ts = { 0, 1000000 };

	for (int t; (t = *tid) != 0;)
		fz_sys(SYS_futex, (long)tid, FUTEX_WAIT, t, (long)&ts, 0, 0);
}

static long child_main(void *arg)
{
	work(arg);
	return 0;
}

/* A child that works a little and exits: its copies of our inherited events go back to
 * theirs while the other CPUs use them. */
static void child(struct racer *r)
{
	if (fz_rand_from(&r->rng) % 2) {
		if (fz_clone_raw(thread_flags, r->child_stack + STACK_SIZE, (int *)&r->child_tid,
				 (int *)&r->child_tid, fz_fs_base, child_main, &r->rng) > 0)
			join(&r->child_tid);
		return;
	}
	long pid = fz_clone_raw(CLONE_VM | SIGCHLD, r->child_stack + STACK_SIZE, NULL, NULL, 0,
				child_main, &r->rng);
	while (pid > 0 && fz_sys(SYS_wait4, pid, 0, __WALL, 0, 0, 0) == -EINTR)
		;
}

/* One of the calls both sides make on the shared events. */
static void race_call(uint64_t *rng)
{
	static const unsigned long cmds[] = { PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE,
		PERF_EVENT_IOC_RESET, PERF_EVENT_IOC_REFRESH, PERF_EVENT_IOC_PERIOD,
		PERF_EVENT_IOC_SET_OUTPUT, PERF_EVENT_IOC_ID };
	int fd = fds[fz_rand_from(rng) % RACE_FDS];
	uint64_t buf[64];
	unsigned long cmd;
	long arg;

	switch (fz_rand_from(rng) % 6) {
	case 0: case 1:
		fz_sys(SYS_read, fd, (long)buf, 8 << fz_rand_from(rng) % 6, 0, 0, 0);
		break;
	case 2: case 3:
		cmd = cmds[fz_rand_from(rng) % (sizeof(cmds) / sizeof(cmds[0]))];
		buf[0] = 1000 + fz_rand_from(rng) % 100000;
		arg = cmd == PERF_EVENT_IOC_PERIOD || cmd == PERF_EVENT_IOC_ID ? (long)buf :
		      cmd == PERF_EVENT_IOC_SET_OUTPUT ? fds[fz_rand_from(rng) % RACE_FDS] :
		      cmd == PERF_EVENT_IOC_REFRESH ? (long)(fz_rand_from(rng) % 3) :
		      (long)(fz_rand_from(rng) % 2);	/* PERF_IOC_FLAG_GROUP or not */
		fz_sys(SYS_ioctl, fd, cmd, arg, 0, 0, 0);
		break;
	case 4: {	/* a ring of our own, mapped and gone */
		size_t len = (1 + (1ul << fz_rand_from(rng) % 4)) * FZ_PAGE;
		long p = fz_sys(SYS_mmap, 0, len, PROT_READ | (fz_rand_from(rng) % 2 ? PROT_WRITE : 0),
				MAP_SHARED, fd, 0);
		if (p > 0)	/* an address, not -errno */
			fz_sys(SYS_munmap, p, len, 0, 0, 0, 0);
		break;
	}
	default: {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		fz_sys(SYS_poll, (long)&pfd, 1, 0, 0, 0, 0);
		break;
	}
	}
}

static long racer_main(void *arg)
{
	struct racer *r = arg;
	uint64_t all = ~0ull;

	/* The process's signals (the alarm above all) go to the fuzzer's thread, whose
	 * handlers report; a fault still ends a racer (main.c's on_fault). */
	fz_sys(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, 0, sizeof(all), 0, 0);
	pin(0, r->cpu);
	for (int i = 0; i < RACER_TURNS && !stop; i++) {
		switch (fz_rand_from(&r->rng) % 10) {
		case 0: case 1:
			work(&r->rng);
			break;
		case 2:
			child(r);
			break;
		case 3:		/* a move: its events follow it */
			pin(0, fz_rand_from(&r->rng) % nr_cpus);
			break;
		case 4:
			fz_sys(SYS_prctl, fz_rand_from(&r->rng) % 2 ? PR_TASK_PERF_EVENTS_DISABLE :
			       PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0, 0);
			break;
		default:
			race_call(&r->rng);
			break;
		}
	}
	return 0;
}

/* ---- the fuzzer's thread ---- */

static long rcall(long nr, long a1, long a2, long a3, long a4, long a5)
{
	return fz_raw_call(FZ_SMP, nr, a1, a2, a3, a4, a5);
}

/* An event that races well: samplers with short periods (the PMI or the clock writes their
 * rings), counters, inherited or not, on a racer, on its CPU or on us. */
static int open_event(void)
{
	static const uint64_t sw[] = { PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK,
		PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CONTEXT_SWITCHES,
		PERF_COUNT_SW_CPU_MIGRATIONS };
	struct perf_event_attr attr;
	struct racer *r = &racers[fz_below(nr_racers)];
	long pid = r->tid, cpu = -1;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = fz_one_in(2) ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	attr.config = attr.type == PERF_TYPE_HARDWARE ? fz_below(2) : FZ_PICK(sw);
	if (!fz_one_in(3)) {
		attr.sample_period = attr.type == PERF_TYPE_HARDWARE ? 2000 + fz_below(20000) :
				     10000 + fz_below(100000);
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				   PERF_SAMPLE_CPU | (fz_one_in(2) ? PERF_SAMPLE_READ : 0);
		attr.wakeup_events = 1 + fz_below(4);
	}
	attr.read_format = fz_below(16);
	attr.inherit = fz_one_in(2) && !(attr.read_format & PERF_FORMAT_GROUP);
	attr.disabled = fz_one_in(4);
	attr.exclude_kernel = fz_one_in(2);
	switch (fz_below(4)) {
	case 0:		/* CPU-wide, on a racer's CPU */
		pid = -1, cpu = r->cpu;
		attr.inherit = 0;
		break;
	case 1:		/* on us, which the racers' children inherit through */
		pid = 0;
		break;
	}
	int group = fz_one_in(4) ? fds[fz_below(RACE_FDS)] : -1;
	struct fz_rec *rec = fz_rec_begin(FZ_OPEN);
	fz_rec_attr(rec, &attr, sizeof(attr));
	rec->a[1] = pid, rec->a[2] = cpu, rec->a[3] = group;
	return (int)fz_rec_end(rec, syscall(SYS_perf_event_open, &attr, pid, cpu, group,
					    PERF_FLAG_FD_CLOEXEC));
}

/* A ring of a shared event, mapped here and unmapped while the racers write or map it. */
static long ring;
static size_t ring_len;

static void main_call(void)
{
	int i = fz_below(RACE_FDS);

	switch (fz_below(10)) {
	case 0:		/* a close racing the racers' calls, and a new event in its place */
		rcall(SYS_close, fds[i], 0, 0, 0, 0);
		fds[i] = open_event();
		break;
	case 1:		/* replaced under them */
		rcall(SYS_dup2, fds[fz_below(RACE_FDS)], fds[i], 0, 0, 0);
		break;
	case 2:
		if (ring)
			rcall(SYS_munmap, ring, ring_len, 0, 0, 0);
		ring_len = (1 + (1ul << fz_below(4))) * FZ_PAGE;
		ring = rcall(SYS_mmap, 0, ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i]);
		if (ring == -1)
			ring = 0;
		break;
	case 3: {
		struct racer *r = &racers[fz_below(nr_racers)];
		unsigned long mask = 1ul << fz_below(nr_cpus);
		rcall(SYS_sched_setaffinity, r->tid, sizeof(mask), (long)&mask, 0, 0);
		break;
	}
	case 4: {	/* part of the arena dropped, mapped afresh or split, under the racers */
		unsigned first = fz_below(ARENA_PAGES), n = 1 + fz_below(ARENA_PAGES - first);
		long at = (long)arena + first * FZ_PAGE, len = n * FZ_PAGE;
		switch (fz_below(3)) {
		case 0:
			rcall(SYS_madvise, at, len, MADV_DONTNEED, 0, 0);
			break;
		case 1:
			rcall(SYS_mmap, at, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1);
			break;
		default:
			rcall(SYS_mprotect, at, len, PROT_READ | PROT_WRITE | (fz_below(2) ? PROT_EXEC : 0),
			      0, 0);
			break;
		}
		break;
	}
	default:
		race_call(&fz_state);
		break;
	}
}

static void close_events(void)
{
	for (int i = 0; i < RACE_FDS; i++) {
		if (fds[i] >= 0)
			rcall(SYS_close, fds[i], 0, 0, 0, 0);
		fds[i] = -1;
	}
}

void fz_smp_init(void)
{
	nr_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	for (int i = 0; i < RACE_FDS; i++)
		fds[i] = -1;
}

bool fz_smp_ready(void)
{
	return nr_cpus > 1 && nr_cpus <= 64;
}

void fz_op_smp(void)
{
	struct fz_counters before;
	unsigned cpu = 0;

	fz_read_counters(&before);
	fz_alarm("a race between CPUs");
	syscall(SYS_getcpu, &cpu, NULL, NULL);
	nr_racers = 1 + fz_below(nr_cpus - 1 < RACERS ? nr_cpus - 1 : RACERS);
	stop = 0;
	arena = (volatile char *)rcall(SYS_mmap, 0, ARENA_PAGES * FZ_PAGE, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if ((long)arena < 0)
		fz_fail("no arena for a race: %ld", (long)arena);
	for (int i = 0; i < nr_racers; i++) {
		struct racer *r = &racers[i];
		r->rng = fz_rand();
		r->cpu = (int)(cpu + 1 + i % (nr_cpus - 1)) % nr_cpus;
		long tid = fz_clone_raw(thread_flags, r->stack + STACK_SIZE, (int *)&r->tid,
					(int *)&r->tid, fz_fs_base, racer_main, r);
		if (tid == -ENOMEM || tid == -EAGAIN) {	/* what the fuzzer left in use: Linux's too */
			nr_racers = i;
			break;
		}
		if (tid <= 0)
			fz_fail("a racing thread could not be made: %ld", tid);
	}
	if (!nr_racers) {
		rcall(SYS_munmap, (long)arena, ARENA_PAGES * FZ_PAGE, 0, 0, 0);
		fz_alarm_off();
		return;
	}
	for (int i = 0; i < RACE_FDS; i++)
		fds[i] = open_event();
	for (int n = fz_below(MAIN_TURNS); n--;)
		main_call();
	stop = 1;
	for (int i = 0; i < nr_racers; i++)
		join(&racers[i].tid);
	if (ring)
		rcall(SYS_munmap, ring, ring_len, 0, 0, 0);
	ring = 0;
	rcall(SYS_munmap, (long)arena, ARENA_PAGES * FZ_PAGE, 0, 0, 0);
	close_events();
	fz_alarm_off();
	fz_expect_released(&before, "a race between CPUs");
}
