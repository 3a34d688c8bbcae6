/* user/fuzz/main.c: the perf syscall fuzzer: `fuzz seed=N calls=N [trace=N] [verbose]
 * [last=K] [progress=N] [procs=N] [smp=N]` (procs: calls in 1000 that make children, procs.c;
 * smp: calls in 1000 that race threads on several CPUs, smp.c, when there are several). From
 * the seed it makes random but plausible calls on perf events and on files (files.c: a scratch tree under /tmp/fuzz), then closes everything, removes the
 * scratch tree, releases the persistent events it made, and checks that every
 * counter of /sys/kernel/pmuos/accounting is back at its value from before the first call.
 * Prints one KTAP test; on a failure the last K calls. The same seed and calls replay the same
 * run (the kernel under -icount is deterministic); trace=N prints every call from the N-th. */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <pmuos/itrace.h>
#include <pmuos/perf_ext.h>

#define DEVICES		"/sys/bus/event_source/devices"
#define PERSISTENT	DEVICES "/persistent/events"
#define ACCOUNTING	"/sys/kernel/pmuos/accounting"

uint64_t fz_state;
uint64_t fz_signals;
static long main_tid;		/* the fuzzer's own thread: children report nothing */

static long gettid_raw(void)
{
	long ax = SYS_gettid;

	asm volatile("syscall" : "+a"(ax) : : "rcx", "r11", "memory");
	return ax;
}
static uint64_t seed, calls = 10000, progress = 10000;
static unsigned procs_rate = 8;		/* calls in 1000 that make children (procs.c) */
static unsigned smp_rate = 10;		/* calls in 1000 that race CPUs (smp.c), with several */
static int last = 32;

/* ---- output, failure ---- */

__attribute__((noreturn)) void fz_fail(const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	if (gettid_raw() != main_tid)	/* a child of procs.c: its exit is its report */
		syscall(SYS_exit, 1);
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fz_printf("# FAIL: %s\n", buf);
	fz_printf("# replay: fuzz seed=%llu calls=%llu trace=%llu\n", (unsigned long long)seed,
		  (unsigned long long)fz_calls + 1,
		  (unsigned long long)(fz_calls > (uint64_t)last ? fz_calls - last : 0));
	fz_trace_dump(last);
	fz_stats_print();
	fz_printf("not ok 1 fuzz_seed_%llu\n", (unsigned long long)seed);
	_exit(1);
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
	(void)sig, (void)info, (void)uc;
	__atomic_fetch_add(&fz_signals, 1, __ATOMIC_RELAXED);
}

sigjmp_buf fz_fault_env;
volatile int fz_fault_armed, fz_fault_sig;

static void on_fault(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	if (gettid_raw() != main_tid)	/* a child of procs.c that shares our handlers */
		syscall(SYS_exit, 128 + sig);
	if (fz_fault_armed && (sig == SIGSEGV || sig == SIGBUS)) {
		fz_fault_armed = 0;
		fz_fault_sig = sig;
		siglongjmp(fz_fault_env, 1);
	}
	fz_fail("the fuzzer took signal %d (code %d) at address %p", sig, info->si_code,
		info->si_addr);
}

static void setup_signals(void)
{
	struct sigaction sa = { .sa_flags = SA_SIGINFO };

	for (int sig = 1; sig < 65; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || (sig >= 32 && sig <= 34))
			continue;
		bool fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
		sa.sa_sigaction = fault ? on_fault : on_signal;
		sigaction(sig, &sa, NULL);
	}
}

/* ---- /sys: small files and directories, without malloc ---- */

static long read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	long n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Calls fn(name) for each entry of dir but "." and "..". */
static void for_each_entry(const char *dir, void (*fn)(const char *name))
{
	static char buf[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent *d = (void *)(buf + off);
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
				fn(d->d_name);
			off += d->d_reclen;
		}
	}
	close(fd);
}

static void add_pmu(const char *name)
{
	char path[300], text[32];

	snprintf(path, sizeof(path), DEVICES "/%s/type", name);
	if (read_file(path, text, sizeof(text)) <= 0)
		return;
	if (!strcmp(name, PMUOS_ITRACE_PMU_NAME))
		fz_itrace_type = atoi(text);
	if (!strcmp(name, PMUOS_PERSISTENT_PMU_NAME))
		fz_persistent_type = atoi(text);
	if (fz_nr_pmu_types < (int)(sizeof(fz_pmu_types) / sizeof(fz_pmu_types[0])))
		fz_pmu_types[fz_nr_pmu_types++] = atoi(text);
}

/* ---- accounting ---- */

void fz_read_counters(struct fz_counters *c)
{
	char text[2048];

	c->n = 0;
	if (read_file(ACCOUNTING, text, sizeof(text)) <= 0)
		fz_fail("cannot read " ACCOUNTING);
	for (char *line = text; *line && c->n < FZ_COUNTERS;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (sscanf(line, "%23s %ld", c->name[c->n], &c->value[c->n]) == 2)
			c->n++;
		if (!nl)
			break;
		line = nl + 1;
	}
}

long fz_counter(const struct fz_counters *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return c->value[i];
	return -1;
}

static int compare_counters(const struct fz_counters *before, const struct fz_counters *after)
{
	int bad = 0;

	for (int i = 0; i < before->n; i++) {
		long now = fz_counter(after, before->name[i]);
		if (now != before->value[i]) {
			fz_printf("# accounting: %s %ld before, %ld after (%+ld)\n", before->name[i],
				  before->value[i], now, now - before->value[i]);
			bad++;
		}
	}
	return bad;
}

/* ---- persistent events ---- */

static uint64_t baseline_ids[64];
static int nr_baseline_ids, released, stuck;

static uint64_t entry_id(const char *name)
{
	char path[300], text[64];

	snprintf(path, sizeof(path), PERSISTENT "/%s", name);
	if (name[0] != 'p' || read_file(path, text, sizeof(text)) <= 0 || strncmp(text, "config=", 7))
		return 0;
	return strtoull(text + 7, NULL, 10);
}

static void note_baseline(const char *name)
{
	uint64_t id = entry_id(name);

	if (id && nr_baseline_ids < (int)(sizeof(baseline_ids) / sizeof(baseline_ids[0])))
		baseline_ids[nr_baseline_ids++] = id;
}

void fz_persistent_baseline(void)
{
	for_each_entry(PERSISTENT, note_baseline);
}

/* Reopen (the event's cpu: -1 for task-bound, its CPU for CPU-wide), ATTACH, close. */
static void release_one(const char *name)
{
	uint64_t id = entry_id(name);
	struct perf_event_attr attr;

	if (!id)
		return;
	for (int i = 0; i < nr_baseline_ids; i++)
		if (baseline_ids[i] == id)
			return;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = fz_persistent_type;
	attr.config = id;
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN), err[2];
	for (int cpu = -1; cpu < cpus; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		err[cpu >= 0] = errno;
		if (fd < 0)
			continue;
		long r = syscall(SYS_ioctl, fd, PERF_EVENT_IOC_ATTACH, 0);
		err[cpu >= 0] = errno;
		close(fd);
		if (r == 0) {
			released++;
			return;
		}
	}
	stuck++;
	fz_printf("# persistent event p%llu could not be released (errno %d with cpu -1, "
		  "%d with the last CPU)\n", (unsigned long long)id, err[0], err[1]);
}

int fz_persistent_release(void)
{
	stuck = 0;
	/* Releasing changes the listing under the walk: walk until nothing is left. */
	for (int pass = 0, before = -1; pass < 64 && released != before; pass++) {
		before = released;
		for_each_entry(PERSISTENT, release_one);
	}
	return stuck;
}

/* ---- the run ---- */

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "seed=", 5))
			seed = strtoull(a + 5, NULL, 0);
		else if (!strncmp(a, "calls=", 6))
			calls = strtoull(a + 6, NULL, 0);
		else if (!strncmp(a, "trace=", 6))
			fz_trace_from = strtoull(a + 6, NULL, 0);
		else if (!strcmp(a, "verbose"))
			fz_trace_from = 0;
		else if (!strncmp(a, "last=", 5))
			last = atoi(a + 5);
		else if (!strncmp(a, "procs=", 6))
			procs_rate = atoi(a + 6);
		else if (!strncmp(a, "smp=", 4))
			smp_rate = atoi(a + 4);
		else if (!strncmp(a, "progress=", 9))
			progress = strtoull(a + 9, NULL, 0);
		else
			fz_printf("# fuzz: unknown argument %s\n", a);
	}
	if (last < 1 || last > FZ_TRACE)
		last = FZ_TRACE;
}

/* Pages the run will touch are touched now, so the baseline already counts them. */
static __attribute__((noinline)) void touch_stack(void)
{
	volatile char pad[96 * 1024];

	for (size_t i = 0; i < sizeof(pad); i += FZ_PAGE)
		pad[i] = 0;
}

static void warm_up(void)
{
	extern char __bss_start[], _end[];
	struct perf_event_attr attr;

	for (volatile char *p = __bss_start; p < _end; p += FZ_PAGE)
		*p = *p;
	touch_stack();
	/* The task's perf context lives from its first task-bound event to its exit, as in
	 * Linux: make it now, so it is in the baseline. */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	int fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0)
		close(fd);
}

/* Timers of the 4 ms windows (unthrottling, rotation) run out: with no events
 * left, none is pending after a sleep of a few windows. */
static void settle(void)
{
	poll(NULL, 0, 10);
}

static void one_call(void)
{
	/* With one CPU the generator is not asked: the calls stay those of before. */
	if (fz_smp_ready() && fz_below(1000) < smp_rate) {
		fz_op_smp();
		return;
	}
	/* Fewer than one call in a hundred makes children: each costs some 100000
	 * instructions and more. */
	if (fz_below(1000) < procs_rate) {
		fz_op_proc();
		return;
	}
	/* A quarter to a third of the calls are on files (files.c). */
	if (fz_below(100) < 30) {
		fz_op_file();
		return;
	}
	unsigned w = fz_below(100);

	/* A few dozen events at most: each may sample 100000 times a second, and the
	 * kernel's time goes to them (Linux's throttling is per event too). */
	if (fz_open_count > FZ_MAX_OPEN && fz_one_in(2))
		w = 20;		/* close */
	/* A handful at least, or most calls meet EBADF: groups, SET_OUTPUT and shared rings
	 * need several events alive at once. */
	if (fz_open_count < FZ_MIN_OPEN && fz_one_in(3))
		w = 0;		/* open */
	if (w < 14) fz_op_open();
	else if (w < 16) fz_persistent_type >= 0 ? fz_op_reopen() : fz_op_open();
	else if (w < 25) fz_op_close();
	else if (w < 28) fz_op_dup();
	else if (w < 46) fz_op_ioctl();
	else if (w < 54) fz_op_read();
	else if (w < 63) fz_op_mmap();
	else if (w < 69) fz_op_munmap();
	else if (w < 72) fz_op_mprotect();
	else if (w < 78) fz_op_ctl_write();
	else if (w < 82) fz_op_ring_read();
	else if (w < 86) fz_op_poll();
	else if (w < 91) fz_op_fcntl();
	else if (w < 93) fz_op_prctl();
	else if (w < 96) fz_op_work();
	else if (w < 98) fz_op_ipc();
	else fz_op_ring_check();
}

static void close_all(void)
{
	for (int fd = 3; fd < FZ_FDS; fd++) {
		if (close(fd) == 0 && !fz_fds[fd].open)
			fz_fail("descriptor %d was open but the fuzzer never made it", fd);
		fz_fd_closed(fd);
	}
}

int main(int argc, char **argv)
{
	struct utsname u;
	struct fz_counters before, after;

	/* procs.c's children exec the fuzzer to exit at once: `fuzz exit=N`, and with no
	 * arguments at all (an execve with argv NULL). */
	if (argc < 2 || !strncmp(argv[1], "exit=", 5))
		_exit(argc < 2 ? 0 : atoi(argv[1] + 5));
	main_tid = gettid_raw();
	parse_args(argc, argv);
	fz_state = seed;
	fz_printf("KTAP version 1\n1..1\n");
	fz_printf("# fuzz: seed=%llu calls=%llu\n", (unsigned long long)seed,
		  (unsigned long long)calls);
	if (uname(&u) || !strstr(u.release, "pmuos")) {
		fz_printf("ok 1 fuzz_seed_%llu # SKIP the fuzzer checks pmuos's accounting\n",
			  (unsigned long long)seed);
		return 0;
	}
	setup_signals();
	for_each_entry(DEVICES, add_pmu);
	fz_mem_init();
	fz_files_init();
	fz_procs_init(argv[0]);
	fz_smp_init();
	warm_up();
	fz_persistent_baseline();
	settle();
	fz_read_counters(&before);

	uint64_t t0 = __builtin_ia32_rdtsc();
	for (fz_calls = 0; fz_calls < calls; fz_calls++) {
		one_call();
		/* Persistent events outlive their fds and may sample the whole CPU:
		 * a few at a time keep the kernel's sampling budget from slowing
		 * every call for long. */
		if (fz_persistent_count() >= 4 && fz_one_in(32)) {
			fz_persistent_release();
			fz_persistent_reset();
		}
		if (progress && fz_calls && fz_calls % progress == 0)
			fz_printf("# fuzz: %llu calls, %llu instructions, %d fds, %llu signals\n",
				  (unsigned long long)fz_calls,
				  (unsigned long long)(__builtin_ia32_rdtsc() - t0), fz_open_count,
				  (unsigned long long)fz_signals);
	}
	uint64_t t1 = __builtin_ia32_rdtsc();
	fz_calls = calls ? calls - 1 : 0;	/* the trace's last call */

	close_all();
	int left_files = fz_files_cleanup();
	fz_mem_cleanup();
	int left_children = fz_procs_cleanup();
	int stuck_events = fz_persistent_release();
	settle();
	fz_read_counters(&after);
	int bad = compare_counters(&before, &after);

	fz_printf("# fuzz: %llu calls in %llu guest instructions (%llu per call), %llu signals, "
		  "%d persistent events released\n", (unsigned long long)calls,
		  (unsigned long long)(t1 - t0),
		  (unsigned long long)(calls ? (t1 - t0) / calls : 0),
		  (unsigned long long)fz_signals, released);
	fz_stats_print();
	if (stuck_events)
		fz_fail("%d persistent events could not be released", stuck_events);
	if (left_children)
		fz_fail("%d children were left to reap at the end", left_children);
	if (left_files)
		fz_fail("%d entries of the scratch tree could not be removed", left_files);
	if (bad)
		fz_fail("%d accounting counters differ from their baseline", bad);
	fz_printf("ok 1 fuzz_seed_%llu\n", (unsigned long long)seed);
	return 0;
}
