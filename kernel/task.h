/* Tasks: threads and the processes (thread groups) they make up, as Linux's
 * task_struct. A task shares its address space, descriptors and signal
 * actions with the threads of its process (CLONE_VM, CLONE_FILES,
 * CLONE_SIGHAND); the scheduler (sched.c) runs one at a time on each CPU. */
#pragma once
#include "fd.h"
#include "kernel.h"
#include "percpu.h"
#include "perf/perf.h"
#include "signal.h"
#include "x86.h"
#include <linux/resource.h>

struct exec_args;
struct inode;
struct perf_event_context;
struct proc_timers;
struct pt_regs;
struct uspace;

#define TASK_COMM_LEN 16
#define TASK_EXE_LEN 256
#define KSTACK_SIZE (16 * KiB)	/* each task's kernel stack */

enum task_state {
	TASK_RUNNING,		/* running or runnable */
	TASK_SLEEPING,		/* in task_wait: runnable again when its condition holds */
	TASK_ZOMBIE,		/* exited, not yet reaped by its parent's wait */
};

struct task {
	int pid;			/* the thread id */
	int tgid;			/* the process id: its leader's pid */
	int pgid, sid;			/* process group and session */
	struct task *leader;		/* the process's first thread */
	struct task *parent;		/* the process wait()s for it; NULL: the kernel */
	struct task *creator;		/* the thread that made its process (Linux's
					 * real_parent): PR_SET_PDEATHSIG fires when that
					 * thread exits; NULL: the kernel */
	struct task *next;		/* all tasks, by pid (sched.c) */
	struct task *rq_next;		/* its run queue's tasks, by pid (sched.c) */
	int cpu;			/* the CPU whose run queue holds it */
	uint64_t cpus_allowed;		/* sched_setaffinity's mask: bit n, CPU n */
	bool migrated;			/* moved to another CPU's queue since it last ran */
	int kernel_lock_depth;		/* its holds of the kernel lock (kernel_lock.c) */
	enum task_state state;
	char comm[TASK_COMM_LEN];	/* the program file's basename, as Linux's comm */
	char exe[TASK_EXE_LEN];		/* the program's absolute path, for MMAP records */
	struct uspace *us;		/* shared by CLONE_VM (refcounted) */
	struct fd_table *fds;		/* shared by CLONE_FILES (refcounted) */
	struct inode *cwd;		/* NULL: "/" */
	unsigned umask;
	struct signal_state sig;
	struct pt_regs *regs;		/* its user frame: at the top of its kernel stack, where
					 * every entry from user mode puts it (entry.asm); a
					 * fast syscall's holds only what the ABI restores */
	uint64_t fs_base;
	uint64_t gs_base;		/* the user's: in MSR_KERNEL_GS_BASE while it runs */
	uint64_t clear_child_tid;	/* CLONE_CHILD_CLEARTID, set_tid_address */
	uint64_t robust_list;		/* set_robust_list's head */
	int pdeath_signal;		/* PR_SET_PDEATHSIG: sent when its parent dies */
	bool child_subreaper;		/* PR_SET_CHILD_SUBREAPER (a leader's) */
	bool rlim_set;			/* rlim holds its limits (else the defaults) */
	struct rlimit64 rlim[RLIM_NLIMITS];
	int exit_status;		/* shell style: code, or 128 + signal */
	int wait_status;		/* the status word wait4 reports */
	int exit_signal;		/* sent to the parent at exit (SIGCHLD; 0 for threads) */
	bool exiting;

	bool group_exit;		/* exit_group or a fatal signal: every thread goes */
	struct task *vfork_parent;	/* CLONE_VFORK: waits until this one execs or exits */
	/* task_wait's sleep: runnable again when cond(arg), past deadline, or a
	 * signal is pending (sched.c) */
	bool (*wait_cond)(void *arg);
	void *wait_arg;
	uint64_t wait_deadline;
	void *kstack_top;
	uint64_t kernel_rsp;		/* saved by context_switch */
	uint64_t start_tsc;		/* when it was made */
	uint64_t sum_exec_tsc;		/* its CPU time until it last left the CPU */
	uint64_t cputime_base_tsc;	/* on the CPU: its CPU time is rdtsc() - this */
	uint64_t child_exec_tsc;	/* the CPU time of its reaped children */
	int64_t vruntime_offset;	/* its virtual runtime less its CPU time (sched.c) */
	uint64_t dead_threads_tsc;	/* the leader's: its freed threads' CPU time */
	uint8_t fpu[512] __aligned(16);	/* FXSAVE area while it is off the CPU */
	struct perf_event_context *perf_ctx;	/* its perf events: NULL until its first,
						 * then &perf_ctx_store for its life */
	struct perf_event_context perf_ctx_store;
	struct proc_timers *timers;	/* the leader's: the process's timers (itimer.c) */
	int next_timer_id;		/* the leader's: the next POSIX timer's id */
	bool did_exec;			/* execve'd since its fork (setpgid's EACCES) */
	struct restart_block restart;	/* restart_syscall's (signal.h) */
};

/* t's soft limit of resource (RLIMIT_*), sys_info.c. */
uint64_t task_rlimit(const struct task *t, unsigned resource);
/* The default RLIMIT_NPROC, soft and hard (init's, as Linux's: half of
 * threads-max). */
void rlimit_init_nproc(uint64_t n);

/* The task with this pid (or tid), or NULL (zombies included). */
struct task *task_by_pid(int pid);
/* The smallest pid >= from of a live task, or -1: how /proc lists them. */
int task_next_pid(int from);
/* Rename t (prctl PR_SET_NAME, /proc/PID/comm): at most TASK_COMM_LEN - 1
 * bytes of name, cut at a NUL; a PERF_RECORD_COMM follows. */
void task_set_comm(struct task *t, const char *name, size_t len);
/* The CPU time t has had, in TSC cycles (the task clock); inline, as the
 * task-clock's read() takes it on its fast path. */
static inline uint64_t task_cputime_tsc(const struct task *t)
{
	return t == current ? rdtsc() - t->cputime_base_tsc : t->sum_exec_tsc;
}
/* The CPU time of t's process: its threads', the freed ones' too
 * (CLOCK_PROCESS_CPUTIME_ID, the process's CPU timers). */
uint64_t task_process_cputime_tsc(const struct task *t);
/* Tasks allocated and not yet freed (zombies too), for the accounting. */
extern long tasks_alive;
/* kernel.pid_max: pids are handed out below it, then again from 300. */
extern int pid_max;
/* kernel.threads-max (fork.c): with this many tasks alive (zombies too),
 * fork and clone fail with EAGAIN, root's as anyone's. RLIMIT_NPROC is not
 * enforced: every pmuos task is root, which Linux exempts from it. */
extern int max_threads;
#define MIN_THREADS	20		/* Linux's bounds on threads-max */
#define MAX_THREADS	0x3fffffff	/* FUTEX_TID_MASK */
/* Size max_threads from memory, as Linux's fork_init (after frames_init). */
void fork_init(void);
/* For /proc/stat, /proc/uptime, /proc/loadavg: tasks started since boot,
 * context switches, halted time, the last pid. */
extern unsigned long tasks_forked, context_switches;
extern int last_pid;

/* A new task with a pid, a kernel stack and everything zeroed but what
 * the caller fills in; NULL when memory or pids run out. */
struct task *task_alloc(void);
/* Free what t holds (its address space, descriptors and stack when it was
 * their last user) and t itself; it is off the CPU and out of the list.
 * t's memory stays while its perf context holds events that others opened
 * on it; perf frees it with task_free_memory when the last goes. */
void task_free(struct task *t);
void task_free_memory(struct task *t);
/* Make t's kernel stack start it in user mode with the frame user. */
void task_build_stack(struct task *t, const struct pt_regs *user);

/* The FXSAVE image a new program starts with. */
void task_fpu_init(struct task *t);
/* init's exit status, as a shell reports it, once the kernel reaped it. */
extern int task_init_status;

/* Run /init as pid 1 and every process until all have ended; returns
 * init's status (the machine halts with it). */
int task_run_init(void);
/* An exception raised by user code: demand paging, else a signal. */
/* Every user page fault first, without the kernel lock: counted, and while
 * several CPUs run (the lock on), resolved if it is on anonymous memory not
 * yet there (mm/anon_fault.c): true if done; else it goes on to
 * task_user_exception under the lock. */
bool task_user_fault_first(struct pt_regs *regs);
void task_user_exception(struct pt_regs *regs);
/* A page fault taken by the kernel on a user address (in a user copy):
 * true if demand paging resolved it. */
bool task_kernel_fault_on_user(struct pt_regs *regs, uint64_t addr);

/* exit.c: end the current task with Linux's status word (code << 8, or the
 * killing signal), and every thread of its process when group. */
__noreturn void task_exit(int status, bool group);
/* Free the exited tasks nobody waits for (threads, the kernel's children);
 * after a switch, when they are off the CPU. */
void task_reap_dead(void);

/* sched.c: sleep until cond(arg) holds (0), the TSC passes deadline
 * (-ETIMEDOUT; 0 waits forever), or a signal is pending (-EINTR); other
 * tasks run meanwhile. cond runs with current set to the sleeper, with
 * interrupts off, and must not touch user memory. cond may be NULL. */
int task_wait(bool (*cond)(void *arg), void *arg, uint64_t deadline);
