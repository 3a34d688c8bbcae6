/* user/fuzz/fuzz.h: the perf syscall fuzzer's shared state (after perf_fuzzer, Weaver et al.):
 * the seeded generator, the descriptors and mappings it made, the call trace and the tallies. */
#ifndef USER_FUZZ_H
#define USER_FUZZ_H

#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FZ_PAGE		4096UL
#define FZ_FDS		256		/* pmuos's NR_FDS; the fuzzer uses 3.. */
#define FZ_ARENA_PAGES	8192		/* 32 MiB where every perf mapping goes (MAP_FIXED) */
#define FZ_TRACE	64		/* calls kept for the failure report */
#define FZ_MAX_OPEN	48		/* descriptors held before closing is preferred */
#define FZ_MIN_OPEN	6		/* ... and before opening is */

/* ---- the generator: splitmix64, so one seed gives one sequence ---- */

extern uint64_t fz_state;

/* The next number of the sequence *state (a racing thread's own, smp.c). */
static inline uint64_t fz_rand_from(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t fz_rand(void)
{
	return fz_rand_from(&fz_state);
}

/* 0 .. n-1 (n > 0) */
static inline uint64_t fz_below(uint64_t n)
{
	return fz_rand() % n;
}

/* true once in n */
static inline bool fz_one_in(uint64_t n)
{
	return fz_below(n) == 0;
}

/* A value of "interesting" shape: small, a power of two and its neighbours, all ones... */
uint64_t fz_value(void);
/* One of the list's n values. */
#define FZ_PICK(list) ((list)[fz_below(sizeof(list) / sizeof((list)[0]))])

/* ---- what the fuzzer holds ---- */

struct fz_fd {
	bool open;
	bool backward;		/* the event writes its ring backward (attr.write_backward) */
	bool file;		/* not a perf event: a file, directory or device (files.c) */
	bool in_tree;		/* reached by names of the scratch tree alone: a dirfd for
				 * creation, a node linkat may name */
	uint8_t type;		/* files: S_IFMT >> 12 at open (DT_REG, DT_DIR ...) */
};
extern struct fz_fd fz_fds[FZ_FDS];
extern int fz_open_count;
extern int fz_persistent_type;	/* -1: none (not pmuos) */
extern int fz_itrace_type;	/* -1: none */
extern uint32_t fz_pmu_types[16];	/* every PMU's type from /sys/bus/event_source */
extern int fz_nr_pmu_types;

/* A perf fd the fuzzer holds (or -1 when none), or now and then any number. */
int fz_pick_fd(void);
/* Only one the fuzzer holds, or -1. */
int fz_pick_open_fd(void);
void fz_fd_opened(int fd, bool backward);
void fz_fd_closed(int fd);
/* A new descriptor for what from refers to (dup, F_DUPFD): its kind too. */
void fz_fd_copied(int to, int from);

/* Persistent event ids the fuzzer made (for reopens), and cleanup at the end. */
void fz_persistent_note(uint64_t id);
uint64_t fz_persistent_pick(void);
int fz_persistent_count(void);
/* Forget the ids noted (after a release). */
void fz_persistent_reset(void);
/* Reopen, ATTACH and close every persistent event not in the baseline list; returns how
 * many could not be. */
int fz_persistent_release(void);
/* Remember the persistent events that existed before the run. */
void fz_persistent_baseline(void);

/* ---- memory (mem.c) ---- */

/* The file mappings' address range (files.c), just above the arena, as empty. */
#define FZ_FILE_MAP_PAGES	128
extern uint8_t *fz_file_maps;

void fz_mem_init(void);
/* A pointer for the kernel to read len bytes of from: mostly buf itself, else NULL, unmapped,
 * kernel, non-canonical, or a copy of buf straddling the end of a page. */
void *fz_in_ptr(const void *buf, size_t len);
/* The same draws for a timeout of a wait that may block: ts itself, or a kernel address
 * (EFAULT). Never the edge's copy (the page past it may be mapped by then) or arena memory,
 * whose bytes can make a valid timeout of days, nor NULL (no timeout). */
const void *fz_timeout_ptr(const void *ts, size_t len);
/* A pointer for the kernel to write len bytes to: scratch memory or a bad pointer. */
void *fz_out_ptr(size_t len);
/* A writable scratch buffer of at least 2 pages (contents: anything). */
void *fz_scratch(void);
void fz_op_mmap(void);
void fz_op_munmap(void);
void fz_op_mprotect(void);
void fz_op_ctl_write(void);
void fz_op_ring_read(void);
void fz_op_ring_check(void);
void fz_op_work(void);
void fz_mem_cleanup(void);

/* ---- perf_event_attr (attr.c) ---- */

void fz_random_attr(struct perf_event_attr *attr, size_t *size);

/* ---- the calls (ops.c) ---- */

void fz_op_open(void);
void fz_op_reopen(void);
void fz_op_close(void);
void fz_op_dup(void);
void fz_op_ioctl(void);
void fz_op_read(void);
void fz_op_poll(void);
void fz_op_fcntl(void);
void fz_op_prctl(void);
/* pipes, eventfds, epoll, select, timers (ipc.c) */
void fz_op_ipc(void);

/* ---- /sys/kernel/pmuos/accounting (main.c) ---- */

#define FZ_COUNTERS 32
struct fz_counters {
	int n;
	char name[FZ_COUNTERS][24];
	long value[FZ_COUNTERS];
};
void fz_read_counters(struct fz_counters *c);
/* The value of the counter named so, -1 if none. */
long fz_counter(const struct fz_counters *c, const char *name);

/* ---- processes and threads (procs.c) ---- */

/* A raw system call: what code that shares the fuzzer's memory and TLS uses (no errno);
 * returns -errno on failure. */
static inline long fz_sys(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 asm("r10") = a4, r8 asm("r8") = a5, r9 asm("r9") = a6;
	long ax = nr;

	asm volatile("syscall" : "+a"(ax) : "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
		     : "rcx", "r11", "memory");
	return ax;
}
/* clone(flags, stack, ptid, ctid, tls): with a stack the child runs fn(arg) on it and exits
 * (SYS_exit) with its value; with none it returns 0 as fork's child does, or, sharing our
 * memory (CLONE_VM), exits at once: it would run on our stack. */
long fz_clone_raw(unsigned long flags, void *stack, int *ptid, int *ctid, unsigned long tls,
		  long (*fn)(void *), void *arg);
/* The TLS base a child sharing our memory is given (CLONE_SETTLS). */
extern unsigned long fz_fs_base;
/* A call that does not return within 20 s of guest time fails the run, named so. */
void fz_alarm(const char *what);
void fz_alarm_off(void);
/* The counters a call that makes tasks must leave as it found them (tasks, address spaces,
 * pipes, perf events: fewer of those is fine), compared against before; fails the run. */
void fz_expect_released(const struct fz_counters *before, const char *what);

/* The broken executables under /tmp/fzexec, the subreaper bit; self: the fuzzer's path. */
void fz_procs_init(const char *self);
/* Children of every kind, made, used and reaped within the call. */
void fz_op_proc(void);
/* Children left to reap at the end (0 unless a call failed to reap one). */
int fz_procs_cleanup(void);

/* ---- races between CPUs (smp.c) ---- */

/* The CPUs online, counted before the baseline. */
void fz_smp_init(void);
/* Whether races can run: several CPUs. */
bool fz_smp_ready(void);
/* Threads pinned to the other CPUs race the fuzzer's on shared events and rings; all
 * joined and closed when the call returns. */
void fz_op_smp(void);

/* ---- the file syscalls (files.c) ---- */

/* Faults the fuzzer provokes on purpose (file mappings past the end, protections): while
 * fz_fault_armed, SIGSEGV and SIGBUS return through fz_fault_env with their number in
 * fz_fault_sig. */
extern sigjmp_buf fz_fault_env;
extern volatile int fz_fault_armed, fz_fault_sig;

void fz_files_init(void);
void fz_op_file(void);
/* Unmap, remove the scratch tree with getdents64/unlink/rmdir, back to "/". Returns the
 * entries that could not be removed. */
int fz_files_cleanup(void);

/* ---- the trace and the tallies (trace.c) ---- */

enum fz_call {
	FZ_OPEN, FZ_CLOSE, FZ_DUP, FZ_IOCTL, FZ_READ, FZ_MMAP, FZ_MUNMAP, FZ_MPROTECT,
	FZ_CTL, FZ_POLL, FZ_FCNTL, FZ_PRCTL, FZ_WORK, FZ_CHECK, FZ_RINGREAD, FZ_IPC, FZ_PROC,
	FZ_SMP,
	/* files.c */
	FZ_F_OPEN, FZ_F_OPENAT, FZ_F_CREAT, FZ_F_CLOSE, FZ_F_READ, FZ_F_WRITE, FZ_F_PREAD,
	FZ_F_PWRITE, FZ_F_READV, FZ_F_WRITEV, FZ_F_PREADV, FZ_F_PWRITEV, FZ_F_LSEEK,
	FZ_F_GETDENTS, FZ_F_STAT, FZ_F_LSTAT, FZ_F_FSTAT, FZ_F_FSTATAT, FZ_F_STATX,
	FZ_F_STATFS, FZ_F_FSTATFS, FZ_F_MKDIR, FZ_F_MKDIRAT, FZ_F_RMDIR, FZ_F_UNLINK,
	FZ_F_UNLINKAT, FZ_F_RENAME, FZ_F_RENAMEAT, FZ_F_RENAMEAT2, FZ_F_LINK, FZ_F_LINKAT,
	FZ_F_SYMLINK, FZ_F_SYMLINKAT, FZ_F_READLINK, FZ_F_READLINKAT, FZ_F_ACCESS,
	FZ_F_FACCESSAT2, FZ_F_CHDIR, FZ_F_FCHDIR, FZ_F_GETCWD, FZ_F_TRUNCATE, FZ_F_FTRUNCATE,
	FZ_F_FSYNC, FZ_F_UMASK, FZ_F_CHMOD, FZ_F_FCHMOD, FZ_F_CHOWN, FZ_F_FCHOWNAT,
	FZ_F_UTIMENSAT, FZ_F_FCNTL, FZ_F_MMAP, FZ_F_TOUCH, FZ_F_MSYNC, FZ_F_MUNMAP,
	FZ_F_FIONREAD, FZ_NR_CALLS
};

/* One call: its arguments as passed (pointers as numbers), the result, and for
 * perf_event_open the attr's main fields. */
struct fz_rec {
	uint64_t n;
	enum fz_call call;
	long a[6];
	long ret;
	int err;
	bool has_attr;
	char path[2][64];	/* the paths a file call named, cut (files.c) */
	struct {
		uint32_t size, type;
		uint64_t config, sample, flags, sample_type, read_format;
	} attr;
};

extern uint64_t fz_calls;		/* calls made so far */
extern uint64_t fz_trace_from;		/* print every call from this one (verbose) */
extern uint64_t fz_signals;		/* signals the handlers saw */

/* One recorded raw call of the fuzzer's own thread, as call c of the trace: a[0] is its
 * number; errno set on failure as libc's. */
long fz_raw_call(enum fz_call c, long nr, long a1, long a2, long a3, long a4, long a5);
/* Begin a trace record for call c (the record stays current until the next begin). */
struct fz_rec *fz_rec_begin(enum fz_call c);
/* Its result: ret (and errno when ret is -1); prints it in verbose mode. */
long fz_rec_end(struct fz_rec *r, long ret);
void fz_rec_attr(struct fz_rec *r, const struct perf_event_attr *attr, uint32_t size);
/* Note the i-th path (0 or 1) a call names, as text for the trace. */
void fz_rec_path(struct fz_rec *r, int i, const char *path);
/* The last k records, oldest first, as "# " lines. */
void fz_trace_dump(int k);
void fz_stats_print(void);

/* Output through write(2), a line at a time ("# " is the caller's). */
void fz_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A broken kernel invariant seen from user space: report, dump the trace, fail. */
__attribute__((noreturn, format(printf, 1, 2))) void fz_fail(const char *fmt, ...);

#endif
