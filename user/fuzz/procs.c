/* user/fuzz/procs.c: processes and threads under the fuzzer: fork, vfork and clone (threads and
 * processes, flags valid and not, clone3), execve of the fuzzer itself and of broken files,
 * wait4 and waitid, futexes (every op, bad and misaligned addresses), pipes between the fuzzer
 * and a child, kills mid-futex, mid-read, mid-vfork and mid-exec, and perf events on a child's
 * pid with inherit. Every child of a call is gone before the call returns: at most PROC_KIDS at
 * a time, a process in a process group of its own that one SIGKILL ends (its children too: the
 * fuzzer is their subreaper and reaps the group), a thread by its own bounded waits. So no
 * child outlives its call, and the accounting at the end sees what the kernel failed to free. */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pmuos/perf_ext.h>

#define PROC_KIDS	3		/* children of one call, at most */
#define STACK_SIZE	(16 * 1024)
#define EXEC_DIR	"/tmp/fzexec"
#define SPIN_TURNS	20000

asm(".text\n"
    ".globl fz_clone_raw\n"
    ".type fz_clone_raw, @function\n"
    "fz_clone_raw:\n\t"
    "mov %rcx, %r10\n\t"
    "test %rsi, %rsi\n\t"
    "jz 1f\n\t"
    "sub $16, %rsi\n\t"
    "mov %r9, (%rsi)\n\t"		/* fn */
    "mov 8(%rsp), %rax\n\t"
    "mov %rax, 8(%rsi)\n"		/* arg */
    "1:\n\t"
    "mov $" "56" ", %eax\n\t"		/* SYS_clone */
    "syscall\n\t"
    "test %rax, %rax\n\t"
    "jnz 3f\n\t"
    "test %rsi, %rsi\n\t"		/* the child: rsi and rdi are as they were */
    "jz 2f\n\t"
    "xor %ebp, %ebp\n\t"
    "pop %rax\n\t"
    "pop %rdi\n\t"
    "call *%rax\n\t"
    "mov %rax, %rdi\n\t"
    "mov $60, %eax\n\t"			/* SYS_exit */
    "syscall\n\t"
    "ud2\n"
    "2:\n\t"
    "test $0x100, %edi\n\t"		/* CLONE_VM */
    "jz 3f\n\t"
    "xor %edi, %edi\n\t"
    "mov $60, %eax\n\t"
    "syscall\n"
    "3:\n\t"
    "ret\n"
    ".size fz_clone_raw, . - fz_clone_raw\n");

long fz_raw_call(enum fz_call c, long nr, long a1, long a2, long a3, long a4, long a5)
{
	struct fz_rec *r = fz_rec_begin(c);

	r->a[0] = nr, r->a[1] = a1, r->a[2] = a2, r->a[3] = a3, r->a[4] = a4, r->a[5] = a5;
	if (fz_calls >= fz_trace_from)	/* one that never returns is named with its arguments */
		fz_printf("# > #%llu %s(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)\n",
			  (unsigned long long)fz_calls, c == FZ_PROC ? "proc" : "smp", nr, a1, a2,
			  a3, a4, a5);
	long ret = fz_sys(nr, a1, a2, a3, a4, a5, 0);
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		ret = -1;
	}
	return fz_rec_end(r, ret);
}

static long call(long nr, long a1, long a2, long a3, long a4, long a5)
{
	return fz_raw_call(FZ_PROC, nr, a1, a2, a3, a4, a5);
}

/* ---- what the calls share ---- */

static const char *self_path = "/bin/fuzz";
static char self_exit[16][8];		/* "exit=N" arguments */
unsigned long fz_fs_base;		/* ours: a CLONE_SETTLS a process child can live with */
/* Stacks for children that share our memory (threads, vfork) or their own copy of it. */
static char stacks[PROC_KIDS + 2][STACK_SIZE] __attribute__((aligned(16)));
/* Words the threads wait and wake on; their tids (CLONE_*_SETTID, CLEARTID). */
static volatile int words[PROC_KIDS + 2], tids[PROC_KIDS + 2], done[PROC_KIDS + 2];

static void *stack_top(int i)
{
	return stacks[i] + STACK_SIZE;
}

/* ---- broken executables (made once, before the baseline) ---- */

static const char *const bad_paths[] = {
	EXEC_DIR "/empty",		/* ENOEXEC */
	EXEC_DIR "/noexec",		/* EACCES: no x bit */
	EXEC_DIR "/script-missing",	/* ENOENT: its interpreter is not there */
	EXEC_DIR "/script-loop",	/* ELOOP: it is its own interpreter */
	EXEC_DIR "/script-long",	/* ENOEXEC: an interpreter name past the buffer */
	EXEC_DIR "/trunc",		/* the ELF header alone: program headers past the end */
	EXEC_DIR "/head",		/* the first 8 KiB: segments past the end */
	EXEC_DIR "/mutant",		/* the first 16 KiB, bytes of its headers changed */
	EXEC_DIR "/script-ok",		/* a script that runs the fuzzer with exit=3 */
	EXEC_DIR,			/* EACCES: a directory */
	EXEC_DIR "/empty/x",		/* ENOTDIR */
	EXEC_DIR "/none",		/* ENOENT */
	"",				/* ENOENT */
};

static void put_file(const char *name, const void *data, size_t len, mode_t mode)
{
	int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, mode);

	if (fd < 0)
		fz_fail("create %s: errno %d", name, errno);
	if (len && write(fd, data, len) != (ssize_t)len)
		fz_fail("write %s: errno %d", name, errno);
	fchmod(fd, mode);
	close(fd);
}

/* A call that makes children and does not come back within PROC_ALARM seconds of guest time
 * is a hang: the trace says of what. */
#define PROC_ALARM 20

static struct timespec alarm_due;	/* 0: no alarm of ours */
static const char *alarm_what;

static void alarm_set(bool on)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	alarm_due = (struct timespec){ on ? now.tv_sec + PROC_ALARM : 0, now.tv_nsec };
	alarm(on ? PROC_ALARM : 0);
}

void fz_alarm(const char *what)
{
	alarm_what = what;
	alarm_set(true);
}

void fz_alarm_off(void)
{
	alarm_set(false);
}

/* SIGALRM may be another's too: a perf event's F_SETSIG names any signal. */
static void on_alarm(int sig)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!alarm_due.tv_sec || now.tv_sec < alarm_due.tv_sec ||
	    (now.tv_sec == alarm_due.tv_sec && now.tv_nsec < alarm_due.tv_nsec)) {
		__atomic_fetch_add(&fz_signals, 1, __ATOMIC_RELAXED);
		(void)sig;
		return;
	}
	fz_fail("%s did not return in %d s", alarm_what, PROC_ALARM);
}

void fz_procs_init(const char *self)
{
	signal(SIGALRM, on_alarm);
	static char head[16384], line[400];

	/* argv[0] is the name alone: the path is the kernel's. */
	static char path[256];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (len > 0)
		path[len] = '\0';
	else
		snprintf(path, sizeof(path), "/bin/%s", self);
	self = self_path = path;
	for (int i = 0; i < 16; i++)
		snprintf(self_exit[i], sizeof(self_exit[i]), "exit=%d", i);
	syscall(SYS_arch_prctl, 0x1003 /* ARCH_GET_FS */, &fz_fs_base);
	/* Orphans of the children come to the fuzzer, which reaps them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	int fd = open(self, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, head, sizeof(head)) : -1;
	if (fd >= 0)
		close(fd);
	if (n < (ssize_t)sizeof(head))
		fz_fail("cannot read %s for the broken executables", self);
	mkdir(EXEC_DIR, 0755);
	put_file(EXEC_DIR "/empty", "", 0, 0755);
	put_file(EXEC_DIR "/noexec", head, 64, 0644);
	put_file(EXEC_DIR "/script-missing", "#!" EXEC_DIR "/none\n", 20, 0755);
	put_file(EXEC_DIR "/script-loop", "#!" EXEC_DIR "/script-loop\n", 27, 0755);
	memset(line, 'x', sizeof(line));
	memcpy(line, "#!/", 3);
	line[sizeof(line) - 1] = '\n';
	put_file(EXEC_DIR "/script-long", line, sizeof(line), 0755);
	int k = snprintf(line, sizeof(line), "#!%s exit=3\n", self);
	put_file(EXEC_DIR "/script-ok", line, k, 0755);
	put_file(EXEC_DIR "/trunc", head, 64, 0755);
	put_file(EXEC_DIR "/head", head, 8192, 0755);
	put_file(EXEC_DIR "/mutant", head, sizeof(head), 0755);
}

/* ---- futexes ---- */

static volatile int *futex_word(void)
{
	volatile int *w = fz_scratch();

	switch (fz_below(8)) {
	case 0: return fz_out_ptr(4);			/* bad, at a page's end, or unmapped */
	case 1: return (volatile int *)((char *)w + 1 + fz_below(3));	/* misaligned */
	case 2: return &words[fz_below(PROC_KIDS + 2)];
	default: return w + fz_below(4);
	}
}

/* A timeout that ends soon or is refused: never one that blocks for long. */
static void *futex_timeout(struct timespec *ts, bool absolute)
{
	switch (fz_below(6)) {
	case 0:		/* a bad pointer, or a good one to a short timeout */
		ts->tv_sec = 0, ts->tv_nsec = absolute ? 0 : (long)fz_below(100000);
		return (void *)fz_timeout_ptr(ts, sizeof(*ts));
	case 1: ts->tv_sec = -1, ts->tv_nsec = 0; break;
	case 2: ts->tv_sec = 0, ts->tv_nsec = 1000000000; break;
	default:
		ts->tv_sec = 0;
		ts->tv_nsec = absolute ? 0 : (long)fz_below(100000);	/* absolute 0: past */
	}
	return ts;
}

/* One futex call of any op. A wait either has a timeout or a value that does not match
 * (no block); the PI ops (ENOSYS on pmuos) get an absolute timeout in the past. */
static void futex_call(void)
{
	static const int cmds[] = {
		FUTEX_WAIT, FUTEX_WAKE, FUTEX_FD, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP,
		FUTEX_LOCK_PI, FUTEX_UNLOCK_PI, FUTEX_TRYLOCK_PI, FUTEX_WAIT_BITSET,
		FUTEX_WAKE_BITSET, FUTEX_WAIT_REQUEUE_PI, FUTEX_CMP_REQUEUE_PI, 13, 14, 15,
	};
	int cmd = FZ_PICK(cmds);
	int op = cmd | (fz_one_in(2) ? FUTEX_PRIVATE_FLAG : 0) |
		 (fz_one_in(4) ? FUTEX_CLOCK_REALTIME : 0);
	volatile int *w = futex_word(), *w2 = futex_word();
	struct timespec ts;
	bool wait = cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI ||
		    cmd == FUTEX_WAIT_REQUEUE_PI || cmd == 13;
	long val = fz_value(), val2 = (long)fz_value(), val3 = (long)fz_value();

	if (fz_one_in(16))
		op = (int)fz_rand();
	if (wait) {
		/* A wait that could block has a timeout that ends it. */
		val2 = (long)futex_timeout(&ts, cmd != FUTEX_WAIT);
		if (cmd == FUTEX_LOCK_PI || cmd == 13) {
			ts.tv_sec = 0, ts.tv_nsec = 0;
			val2 = (long)&ts;
		}
	} else if (cmd == FUTEX_WAKE_BITSET && fz_one_in(2)) {
		val3 = FUTEX_BITSET_MATCH_ANY;
	}
	if ((op & FUTEX_CMD_MASK) != cmd)	/* a random op word: never one that may block */
		op = (op & ~FUTEX_CMD_MASK) | FUTEX_WAKE;
	call(SYS_futex, (long)w, op, val, val2, (long)w2);
	(void)val3;
}

/* An attr with room behind it for any size it claims. */
static union {
	struct perf_event_attr attr;
	char bytes[FZ_PAGE];
} abuf;

static struct perf_event_attr *random_attr(void)
{
	size_t size;

	memset(&abuf, 0, sizeof(abuf));
	fz_random_attr(&abuf.attr, &size);
	if (fz_one_in(4)) {
		memset(&abuf, 0, sizeof(abuf));
		abuf.attr.size = sizeof(abuf.attr);
		abuf.attr.type = fz_one_in(2) ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;
		abuf.attr.config = fz_below(4);
	}
	abuf.attr.inherit = !fz_one_in(4);
	abuf.attr.sigtrap = 0;	/* its signal would go to a child's copy of our handlers */
	/* Persistent events outlive their fds by design (ops.c fuzzes them): none here, so
	 * that what a call opened is gone when it returns. */
	uint64_t *flags = (uint64_t *)((char *)&abuf.attr + offsetof(struct perf_event_attr, read_format) + 8);
	*flags &= ~(1ull << PMUOS_ATTR_FLAG_PERSISTENT_BIT);
	return &abuf.attr;
}

/* ---- what a thread (or a child sharing our memory) does: raw calls only ---- */

struct thread_job {
	int slot;
	const char *exec_path;	/* execve this first (a vfork child), NULL: none */
	char *const *argv;
	bool forever;		/* wait on its word with no timeout (a process child only) */
	int pipe_fd;		/* write a byte here first, -1: none */
	int turns;
};
static struct thread_job jobs[PROC_KIDS + 2];

static long thread_main(void *arg)
{
	struct thread_job *j = arg;
	struct timespec ts = { 0, 50000 };
	volatile int *w = &words[j->slot];

	if (j->exec_path)
		fz_sys(SYS_execve, (long)j->exec_path, (long)j->argv, 0, 0, 0, 0);
	if (j->pipe_fd >= 0)
		fz_sys(SYS_write, j->pipe_fd, (long)"t", 1, 0, 0, 0);
	for (int i = 0; i < j->turns; i++) {
		if (j->forever)
			fz_sys(SYS_futex, (long)w, FUTEX_WAIT, *w, 0, 0, 0);
		else
			fz_sys(SYS_futex, (long)w, FUTEX_WAIT_PRIVATE, *w, (long)&ts, 0, 0);
		fz_sys(SYS_futex, (long)w, FUTEX_WAKE, 1, 0, 0, 0);
		fz_sys(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
	}
	done[j->slot] = 1;
	return j->slot;
}

/* ---- a process child ---- */

enum role {
	R_EXIT, R_EXEC_SELF, R_EXEC_BAD, R_FUTEX, R_FUTEX_BLOCK, R_PIPE, R_SIGNAL, R_FAULT,
	R_SPIN, R_THREADS, R_VFORK_BLOCK, R_GRANDCHILD, R_PERF_INHERIT, R_NR
};

struct kid {
	int pid;		/* >0: to reap */
	bool thread;		/* CLONE_THREAD: joined, never waited for */
	bool group;		/* in a process group of its own (pgid = pid) */
	bool shares_vm;		/* its signals must never be fault signals: our handlers */
	int slot;		/* stacks[], words[], tids[] */
	int perf[2];		/* events on its pid, -1: none */
};

static int to_kid[2] = { -1, -1 }, from_kid[2] = { -1, -1 };

static void do_exec(const char *path)
{
	char *argv[] = { (char *)path, self_exit[fz_below(16)], NULL };
	char *envp[] = { "FUZZ=1", NULL };

	switch (fz_below(8)) {
	case 0: fz_sys(SYS_execve, (long)path, 0, 0, 0, 0, 0); break;	/* argv NULL */
	case 1: fz_sys(SYS_execve, (long)path, (long)fz_out_ptr(16), (long)envp, 0, 0, 0); break;
	case 2: fz_sys(SYS_execve, (long)fz_out_ptr(8), (long)argv, (long)envp, 0, 0, 0); break;
	case 3: fz_sys(SYS_execveat, AT_FDCWD, (long)path, (long)argv, (long)envp,
		     fz_one_in(2) ? AT_EMPTY_PATH : (long)fz_value(), 0); break;
	default: fz_sys(SYS_execve, (long)path, (long)argv, (long)envp, 0, 0, 0);
	}
}

static void exec_bad(void)
{
	const char *path = FZ_PICK(bad_paths);

	if (!strcmp(path, EXEC_DIR "/mutant") || fz_one_in(8)) {
		int fd = open(EXEC_DIR "/mutant", O_WRONLY);
		if (fd >= 0) {
			for (int i = 1 + fz_below(4); i--;) {
				uint8_t b = (uint8_t)fz_rand();
				pwrite(fd, &b, 1, fz_below(fz_one_in(2) ? 64 : 512));
			}
			if (fz_one_in(2))	/* held open for writing: ETXTBSY */
				close(fd);
		}
		path = EXEC_DIR "/mutant";
	}
	do_exec(path);
}

static void reset_fault_signals(void)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };

	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
}

/* Threads of this child: some wait on futexes for good, the main thread goes on. */
static void child_threads(void)
{
	unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			      CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |
			      CLONE_CHILD_CLEARTID;

	for (int i = 0, n = 1 + fz_below(2); i < n; i++) {
		jobs[i] = (struct thread_job){ .slot = i, .forever = fz_one_in(2), .pipe_fd = -1,
					       .turns = 1 + fz_below(3) };
		fz_clone_raw(flags, stack_top(i), (int *)&tids[i], (int *)&tids[i], fz_fs_base,
			     thread_main, &jobs[i]);
	}
	fz_sys(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
	switch (fz_below(4)) {
	case 0: fz_sys(SYS_exit_group, fz_below(256), 0, 0, 0, 0, 0); break;
	case 1: fz_sys(SYS_exit, 0, 0, 0, 0, 0, 0); break;	/* the leader alone */
	case 2: do_exec(self_path); break;			/* ends the threads */
	default: break;
	}
}

__attribute__((noreturn)) static void child_main(bool shared_files, int depth)
{
	reset_fault_signals();
	if (!shared_files) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1), dup2(null, 2);
		close(null);
		if (to_kid[1] >= 0)
			close(to_kid[1]), close(from_kid[0]);
	}
	enum role role = fz_below(R_NR);
	/* Sharing our descriptors, it opens and closes none. */
	if (shared_files && (role == R_PIPE || role == R_EXEC_BAD || role == R_PERF_INHERIT))
		role = R_EXIT;
	switch (role) {
	case R_EXIT:
		break;
	case R_EXEC_SELF:
		do_exec(fz_one_in(4) ? EXEC_DIR "/script-ok" : self_path);
		break;
	case R_EXEC_BAD:
		exec_bad();
		break;
	case R_FUTEX:
		for (int i = 1 + fz_below(6); i--;)
			futex_call();
		break;
	case R_FUTEX_BLOCK:	/* until the SIGKILL */
		fz_sys(SYS_futex, (long)&words[0], fz_one_in(2) ? FUTEX_WAIT_PRIVATE : FUTEX_WAIT,
		     words[0], 0, 0, 0);
		break;
	case R_PIPE: {
		char buf[256];
		long n;
		while (to_kid[0] >= 0 &&
		       (n = fz_sys(SYS_read, to_kid[0], (long)buf, 1 + fz_below(sizeof(buf)), 0, 0, 0)) > 0)
			if (fz_sys(SYS_write, from_kid[1], (long)buf, n, 0, 0, 0) < 0)
				break;
		break;
	}
	case R_SIGNAL: {
		static const int sigs[] = { SIGSEGV, SIGABRT, SIGKILL, SIGTERM, SIGSTOP, SIGUSR1,
					    SIGPIPE, SIGCHLD };
		fz_sys(SYS_kill, fz_sys(SYS_getpid, 0, 0, 0, 0, 0, 0), FZ_PICK(sigs), 0, 0, 0, 0);
		break;
	}
	case R_FAULT:
		*(volatile int *)fz_out_ptr(4) = 1;	/* SIGSEGV unless it landed in scratch */
		break;
	case R_SPIN:
		for (volatile int i = 0; i < SPIN_TURNS; i++)
			;
		break;
	case R_THREADS:
		if (!shared_files)
			child_threads();
		break;
	case R_VFORK_BLOCK:	/* its vfork child waits for good: the kill finds both */
		jobs[0] = (struct thread_job){ .slot = 0, .forever = true, .pipe_fd = -1,
					       .turns = 1 };
		fz_clone_raw(CLONE_VM | CLONE_VFORK | SIGCHLD, stack_top(0), NULL, NULL, 0,
			     thread_main, &jobs[0]);
		break;
	case R_GRANDCHILD:
		if (depth == 0) {
			long pid = fz_sys(SYS_fork, 0, 0, 0, 0, 0, 0);
			if (pid == 0)
				child_main(false, 1);
			if (pid > 0 && fz_one_in(2))	/* or left to the subreaper */
				fz_sys(SYS_wait4, pid, 0, fz_one_in(2) ? WNOHANG : 0, 0, 0, 0);
		}
		break;
	case R_PERF_INHERIT:
		if (depth == 0) {
			fz_sys(SYS_perf_event_open, (long)random_attr(), 0, -1, -1, 0, 0);
			long pid = fz_sys(SYS_fork, 0, 0, 0, 0, 0, 0);
			if (pid == 0)
				child_main(false, 1);
			if (pid > 0)
				fz_sys(SYS_wait4, pid, 0, 0, 0, 0, 0);
		}
		break;
	default:
		break;
	}
	fz_sys(SYS_exit_group, fz_below(256), 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

/* ---- the fuzzer's side ---- */

static struct kid kids[PROC_KIDS];
static int nkids;

static const unsigned long invalid_flags[] = {
	CLONE_THREAD, CLONE_SIGHAND, CLONE_THREAD | CLONE_SIGHAND, CLONE_NEWNS | CLONE_FS,
	CLONE_VFORK | CLONE_THREAD, CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM,
	CLONE_NEWPID | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, CLONE_PIDFD | CLONE_DETACHED,
	CLONE_SIGHAND | CLONE_PARENT, CLONE_THREAD | CLONE_PARENT,
};

/* clone3 with sizes, pointers and fields Linux refuses. */
static void clone3_invalid(void)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
			 set_tid, set_tid_size, cgroup;
	} ca = { .flags = FZ_PICK(invalid_flags), .exit_signal = SIGCHLD };
	size_t size = 64;

	switch (fz_below(5)) {
	case 0: size = fz_below(64); break;				/* too small */
	case 1: size = 4096 + 1 + fz_below(4096); break;		/* too big */
	case 2: ca.flags = 0, ca.exit_signal = 65 + fz_below(200); break;
	case 3: ca.flags = 0, ca.stack = (uint64_t)stack_top(0), ca.stack_size = 0; break;
	default: break;
	}
	/* Our arguments or none: other memory may hold a clone3 Linux takes. */
	void *p = fz_one_in(4) ? (void *)(fz_one_in(2) ? 0x10ul : 0xffff800000000000ul) : &ca;
	long r = call(SYS_clone3, (long)p, (long)size, 0, 0, 0);
	if (r == 0)	/* refused on Linux: a child here is a kernel bug; go at once */
		fz_sys(SYS_exit, 0, 0, 0, 0, 0, 0);
	if (r > 0)
		fz_fail("clone3 with invalid arguments made task %ld", r);
}

static void open_perf_on(struct kid *k, int i)
{
	struct perf_event_attr *attr = random_attr();
	struct fz_rec *r = fz_rec_begin(FZ_OPEN);
	fz_rec_attr(r, attr, attr->size);
	r->a[1] = k->pid;
	int cpu = fz_one_in(4) ? 0 : -1;
	long fd = syscall(SYS_perf_event_open, attr, k->pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	fz_rec_end(r, fd);
	k->perf[i] = (int)fd;
}

/* A new child of kind random: a process (fork, clone, vfork) or a thread; recorded in kids[]
 * when it is one to reap. */
static void spawn(void)
{
	struct kid *k = &kids[nkids];
	int slot = nkids;
	unsigned long flags;
	long pid;

	*k = (struct kid){ .slot = slot, .perf = { -1, -1 } };
	words[slot] = 0, tids[slot] = 0, done[slot] = 0;
	jobs[slot] = (struct thread_job){ .slot = slot, .pipe_fd = -1, .turns = 1 + fz_below(3) };
	struct fz_rec *r = fz_rec_begin(FZ_PROC);
	switch (fz_below(8)) {
	case 0: case 1: case 2:	/* fork */
		r->a[0] = SYS_fork;
		if ((pid = fz_sys(SYS_fork, 0, 0, 0, 0, 0, 0)) == 0)
			child_main(false, 0);
		k->group = true;
		break;
	case 3: {		/* clone of a process, flags of a fork's and more */
		static const unsigned long extra[] = {
			CLONE_FS, CLONE_FILES, CLONE_SYSVSEM, CLONE_IO, CLONE_UNTRACED,
			CLONE_PARENT_SETTID, CLONE_CHILD_SETTID, CLONE_CHILD_CLEARTID, CLONE_SETTLS,
		};
		flags = fz_one_in(4) ? 0 : SIGCHLD;
		for (int i = fz_below(4); i--;)
			flags |= FZ_PICK(extra);
		r->a[0] = SYS_clone, r->a[1] = (long)flags;
		pid = fz_clone_raw(flags, NULL, (int *)&tids[slot], (int *)&tids[slot], fz_fs_base,
				   NULL, NULL);
		if (pid == 0)
			child_main(flags & CLONE_FILES, 0);
		k->group = true;
		break;
	}
	case 4: {		/* a thread of ours, or a process sharing our memory */
		flags = CLONE_VM | (fz_one_in(2) ? CLONE_FS : 0) | (fz_one_in(2) ? CLONE_FILES : 0) |
			(fz_one_in(2) ? CLONE_SYSVSEM : 0) | (fz_one_in(2) ? CLONE_SETTLS : 0) |
			(fz_one_in(2) ? CLONE_PARENT_SETTID : 0) | CLONE_CHILD_CLEARTID;
		if (fz_one_in(2))
			flags |= CLONE_SIGHAND | (fz_one_in(2) ? CLONE_THREAD : 0);
		if (!(flags & CLONE_THREAD))
			flags |= fz_one_in(2) ? SIGCHLD : 0;
		r->a[0] = SYS_clone, r->a[1] = (long)flags;
		pid = fz_clone_raw(flags, stack_top(slot), (int *)&tids[slot], (int *)&tids[slot],
				   fz_one_in(2) ? fz_fs_base : (unsigned long)fz_value(), thread_main,
				   &jobs[slot]);
		k->thread = flags & CLONE_THREAD;
		k->shares_vm = true;
		break;
	}
	case 5: {		/* vfork: we wait until it execs or exits */
		static char *argv[] = { NULL, NULL, NULL };
		argv[0] = (char *)self_path, argv[1] = self_exit[fz_below(16)];
		r->a[0] = SYS_vfork;
		flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
		jobs[slot].turns = fz_below(2);
		jobs[slot].argv = argv;
		jobs[slot].exec_path = fz_one_in(4) ? NULL : fz_one_in(2) ? self_path :
				       FZ_PICK(bad_paths);
		pid = fz_clone_raw(flags, stack_top(slot), NULL, NULL, 0, thread_main, &jobs[slot]);
		k->shares_vm = true;
		break;
	}
	case 6:			/* flags Linux refuses */
		flags = FZ_PICK(invalid_flags) | (fz_one_in(2) ? SIGCHLD : 0);
		r->a[0] = SYS_clone, r->a[1] = (long)flags;
		pid = fz_clone_raw(flags, stack_top(slot), NULL, NULL, 0, thread_main, &jobs[slot]);
		if (pid > 0)
			fz_fail("clone with flags %#lx made task %ld: Linux refuses them", flags, pid);
		break;
	default:
		fz_rec_end(r, 0);
		clone3_invalid();
		return;
	}
	if (pid < 0 && pid > -4096) {
		errno = (int)-pid;
		pid = -1;
	}
	fz_rec_end(r, pid);
	if (pid <= 0)
		return;
	k->pid = (int)pid;
	if (k->group)
		call(SYS_setpgid, pid, pid, 0, 0, 0);
	nkids++;
	if (!k->thread && fz_one_in(2))
		open_perf_on(k, 0);
	if (!k->thread && fz_one_in(4))
		open_perf_on(k, 1);
}

static void random_wait(void)
{
	struct kid *k = nkids ? &kids[fz_below(nkids)] : NULL;
	long who = k && !fz_one_in(4) ? k->pid : (long)FZ_PICK(((const long[]){ -1, 0, 1, -2 }));
	long opt = WNOHANG | (fz_one_in(2) ? __WALL : 0) | (fz_one_in(4) ? __WCLONE : 0) |
		   (fz_one_in(4) ? WUNTRACED | WCONTINUED : 0);

	if (fz_one_in(8))
		opt |= (long)fz_value() & ~(long)(WEXITED | WNOWAIT);	/* EINVAL mostly */
	opt |= WNOHANG;
	if (fz_one_in(2)) {
		long r = call(SYS_wait4, who, (long)fz_out_ptr(4), opt & ~(long)WNOWAIT,
			      fz_one_in(2) ? (long)fz_out_ptr(144) : 0, 0);
		if (r > 0)	/* reaped: forget it */
			for (int i = 0; i < nkids; i++)
				if (kids[i].pid == r)
					kids[i].pid = -kids[i].pid;
	} else {
		static const long types[] = { P_ALL, P_PID, P_PGID, 3 /* P_PIDFD */, 7 };
		long idtype = FZ_PICK(types);
		opt |= (fz_one_in(2) ? WEXITED : 0) | (fz_one_in(2) ? WNOWAIT : 0) |
		       (fz_one_in(4) ? WSTOPPED : 0);
		if (!fz_one_in(8))
			opt |= WNOWAIT;	/* our reaping below wants the child still there */
		long r = call(SYS_waitid, idtype, idtype == P_ALL ? 0 : who, (long)fz_out_ptr(128),
			      opt, fz_one_in(2) ? (long)fz_out_ptr(144) : 0);
		(void)r;	/* a reap without WNOWAIT shows in wait4's ECHILD below */
	}
}

static void poke(void)
{
	struct kid *k = nkids ? &kids[fz_below(nkids)] : NULL;
	char buf[64];

	switch (fz_below(9)) {
	case 0: case 1:
		call(SYS_sched_yield, 0, 0, 0, 0, 0);
		break;
	case 2:
		futex_call();
		break;
	case 3:
		if (k)
			call(SYS_futex, (long)&words[k->slot], FUTEX_WAKE | (fz_one_in(2) ? FUTEX_PRIVATE_FLAG : 0),
			     INT32_MAX, 0, 0);
		break;
	case 4: {
		static const int sigs[] = { 0, SIGSTOP, SIGCONT, SIGUSR1, SIGTERM, SIGKILL, SIGCHLD };
		if (k && k->pid > 0 && !k->thread && !k->shares_vm)
			call(SYS_kill, fz_one_in(2) ? -k->pid : k->pid, FZ_PICK(sigs), 0, 0, 0);
		break;
	}
	case 5:
		if (to_kid[1] >= 0 && fz_one_in(4)) {
			call(SYS_close, to_kid[1], 0, 0, 0, 0);
			to_kid[1] = -1;
		} else if (to_kid[1] >= 0) {
			call(SYS_write, to_kid[1], (long)fz_in_ptr(buf, sizeof(buf)),
			     fz_below(sizeof(buf)), 0, 0);
		}
		break;
	case 6:
		if (from_kid[0] >= 0)
			call(SYS_read, from_kid[0], (long)fz_out_ptr(64), fz_below(64), 0, 0);
		break;
	case 7:
		if (k && k->perf[0] >= 0) {
			static const unsigned long cmds[] = { PERF_EVENT_IOC_ENABLE,
				PERF_EVENT_IOC_DISABLE, PERF_EVENT_IOC_RESET };
			call(SYS_ioctl, k->perf[0], FZ_PICK(cmds), fz_below(2), 0, 0);
		}
		break;
	default:
		random_wait();
		break;
	}
}

static void make_pipes(void)
{
	int p[2];
	long flags = fz_one_in(2) ? O_CLOEXEC : 0;

	if (fz_one_in(8))
		flags = (long)fz_value();	/* EINVAL mostly */
	if (fz_one_in(8)) {	/* an odd place for the two descriptors */
		int *out = fz_out_ptr(8);
		if (call(SYS_pipe2, (long)out, flags, 0, 0, 0) == 0)
			close(out[0]), close(out[1]);
		return;
	}
	if (call(SYS_pipe2, (long)p, flags & ~(long)O_NONBLOCK, 0, 0, 0) != 0)
		return;
	to_kid[0] = p[0], to_kid[1] = p[1];
	if (call(SYS_pipe2, (long)p, O_CLOEXEC, 0, 0, 0) != 0)
		return;
	from_kid[0] = p[0], from_kid[1] = p[1];
	/* Our ends never block: the child's may. */
	call(SYS_fcntl, to_kid[1], F_SETFL, O_NONBLOCK, 0, 0);
	call(SYS_fcntl, from_kid[0], F_SETFL, O_NONBLOCK, 0, 0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		call(SYS_close, *fd, 0, 0, 0, 0);
	*fd = -1;
}

/* A thread of ours has gone when its CLEARTID word is 0 and its tid answers ESRCH. */
static void join_thread(struct kid *k)
{
	struct timespec ts = { 0, 100000 };

	for (int i = 0; i < 100000; i++) {
		int tid = tids[k->slot];
		if (tid == 0 && fz_sys(SYS_tgkill, getpid(), k->pid, 0, 0, 0, 0) == -ESRCH)
			return;
		fz_sys(SYS_futex, (long)&words[k->slot], FUTEX_WAKE, INT32_MAX, 0, 0, 0);
		if (tid)
			fz_sys(SYS_futex, (long)&tids[k->slot], FUTEX_WAIT, tid, (long)&ts, 0, 0);
		else
			fz_sys(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
	}
	fz_fail("thread %d did not exit", k->pid);
}

/* Every child of the call gone: processes killed (their groups whole) and reaped, with the
 * orphans that came to us; threads joined. */
static void reap_all(void)
{
	for (int i = 0; i < nkids; i++) {
		struct kid *k = &kids[i];
		if (k->thread) {
			join_thread(k);
			continue;
		}
		int pid = k->pid > 0 ? k->pid : -k->pid;
		if (k->group)
			fz_sys(SYS_kill, -pid, SIGKILL, 0, 0, 0, 0);
		/* One sharing our memory runs only raw calls and ends by itself: a kill
		 * mid-futex is fine too, it has no handler of ours to run. */
		fz_sys(SYS_kill, pid, SIGKILL, 0, 0, 0, 0);
		if (k->pid > 0) {
			long r;
			while ((r = fz_sys(SYS_wait4, pid, 0, __WALL, 0, 0, 0)) == -EINTR)
				;
			if (r != pid && r != -ECHILD)
				fz_fail("wait4 of child %d: %ld", pid, r);
		}
		if (k->group) {	/* its children, adopted by us */
			long r;
			while ((r = fz_sys(SYS_wait4, -pid, 0, __WALL, 0, 0, 0)) > 0 || r == -EINTR)
				;
		}
	}
	/* Orphans of earlier groups that were slow to die. */
	while (fz_sys(SYS_wait4, -1, 0, __WALL | WNOHANG, 0, 0, 0) > 0)
		;
	for (int i = 0; i < nkids; i++) {
		for (int j = 0; j < 2; j++) {
			if (kids[i].perf[j] < 0)
				continue;
			uint64_t v[4];
			call(SYS_read, kids[i].perf[j], (long)v, sizeof(v), 0, 0);
			close_fd(&kids[i].perf[j]);
		}
	}
	nkids = 0;
}

/* What a call with children must leave as it found it: its children and their events,
 * address spaces and pipes are gone when it returns. */
static const char *const kept[] = { "tasks", "address_spaces", "pipes", "perf_events" };

void fz_op_proc(void)
{
	struct fz_counters before;

	fz_read_counters(&before);
	fz_alarm("a call with children");
	if (fz_one_in(2))
		make_pipes();
	for (int n = 1 + fz_below(PROC_KIDS); n--;)
		spawn();
	close_fd(&to_kid[0]);
	close_fd(&from_kid[1]);
	for (int n = fz_below(8); n--;)
		poke();
	if (fz_one_in(8))	/* the running fuzzer's file: ETXTBSY */
		close_fd(&(int){ (int)call(SYS_open, (long)self_path, O_WRONLY, 0, 0, 0) });
	reap_all();
	close_fd(&to_kid[1]);
	close_fd(&from_kid[0]);
	fz_alarm_off();
	fz_expect_released(&before, "the call with children");
}

void fz_expect_released(const struct fz_counters *before, const char *what)
{
	struct fz_counters after;

	fz_read_counters(&after);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		long b = fz_counter(before, kept[i]), a = fz_counter(&after, kept[i]);
		/* The fuzzer's own events may go meanwhile (a ring's last unmap frees a
		 * closed one): fewer is fine there. */
		if (a != b && !(a < b && !strcmp(kept[i], "perf_events")))
			fz_fail("%s: %ld before %s, %ld after", kept[i], b, what, a);
	}
}

/* At the end: nothing of ours is left to reap. */
int fz_procs_cleanup(void)
{
	int left = 0;

	while (fz_sys(SYS_wait4, -1, 0, __WALL | WNOHANG, 0, 0, 0) > 0)
		left++;
	return left;
}
