/* The user process: one at a time, each a program of the run list run to its end. */
#pragma once
#include "fd.h"
#include "kernel.h"
#include "signal.h"
#include <linux/resource.h>

struct exec_args;
struct inode;
struct perf_event_context;
struct pt_regs;
struct uspace;

#define TASK_COMM_LEN 16
#define TASK_EXE_LEN 256
#define KSTACK_SIZE (16 * KiB)	/* each task's kernel stack */

struct task {
	int pid;
	char comm[TASK_COMM_LEN];	/* argv[0]'s basename, as Linux's comm */
	char exe[TASK_EXE_LEN];		/* the program's absolute path, for MMAP records */
	struct uspace *us;
	struct fd_table fds;
	struct inode *cwd;		/* NULL: "/" */
	unsigned umask;
	struct signal_state sig;
	struct pt_regs *regs;		/* its user frame: at the top of its kernel stack, where
					 * every entry from user mode puts it (entry.asm); a
					 * fast syscall's holds only what the ABI restores */
	uint64_t fs_base;
	uint64_t clear_child_tid;
	uint64_t robust_list;		/* set_robust_list's head */
	bool rlim_set;			/* rlim holds its limits (else the defaults) */
	struct rlimit64 rlim[RLIM_NLIMITS];
	int exit_status;		/* shell style: code, or 128 + signal */
	bool exiting;
	void *kstack_top;
	uint64_t kernel_rsp;		/* saved by context_switch */
	uint64_t start_tsc;		/* for CLOCK_PROCESS_CPUTIME_ID */
	uint64_t idle_tsc;		/* time spent halted while this task slept */
	struct perf_event_context *perf_ctx;	/* its perf events, NULL if none */
};

extern struct task *current;

/* The task with this pid (or tid), or NULL: the lookup /proc and later
 * kill and wait use. One task at a time today: current, when it matches. */
struct task *task_by_pid(int pid);
/* The smallest pid >= from of a live task, or -1: how /proc lists them. */
int task_next_pid(int from);
/* Rename t (prctl PR_SET_NAME, /proc/PID/comm): at most TASK_COMM_LEN - 1
 * bytes of name, cut at a NUL; a PERF_RECORD_COMM follows. */
void task_set_comm(struct task *t, const char *name, size_t len);
/* kernel.pid_max: pids are handed out below it, then again from 300. */
extern int pid_max;
/* For /proc/stat, /proc/uptime, /proc/loadavg: tasks started since boot,
 * context switches (a task's start, each sleep), halted time, the last pid. */
extern unsigned long tasks_forked, context_switches;
extern uint64_t idle_tsc_total;
extern int last_pid;

/* Load the program at path (an absolute path in the file system), run it
 * to its end; returns its exit status as a shell reports it. */
int task_run(const char *path, const struct exec_args *args);
/* End the current task with a shell-style status; never returns. */
__noreturn void task_exit(int status);
/* An exception raised by user code: demand paging, else a signal. */
void task_user_exception(struct pt_regs *regs);
/* A page fault taken by the kernel on a user address (in a user copy):
 * true if demand paging resolved it. */
bool task_kernel_fault_on_user(struct pt_regs *regs, uint64_t addr);
/* Sleep until cond(arg) holds (0), the TSC passes deadline (-ETIMEDOUT; 0
 * waits forever), or a signal is pending (-EINTR). Interrupts wake it; the
 * halted time is idle, not the task's CPU time. cond may be NULL. */
int task_wait(bool (*cond)(void *arg), void *arg, uint64_t deadline);
