/* Signals for one process: actions, masks, delivery through Linux's x86-64
 * rt_sigframe, and the signals user faults raise. */
#pragma once
#include "kernel.h"
#include <asm/signal.h>
#include <asm/siginfo.h>

/* A blocking syscall a signal interrupted, to be restarted unless the
 * signal's handler lacks SA_RESTART (then EINTR); Linux's kernel-internal
 * value, never seen by user space: the return to user mode resolves it
 * (signal_deliver). */
#define ERESTARTSYS	512
/* Restarted only when no handler runs (else EINTR, SA_RESTART or not):
 * the same syscall (a sleep to an absolute time), or restart_syscall, which
 * goes on with what the task's restart block kept (a relative sleep's
 * deadline), as Linux's. */
#define ERESTARTNOHAND	514
#define ERESTART_RESTARTBLOCK	516

/* What restart_syscall continues (Linux's restart_block): set by a sleep
 * that returns -ERESTART_RESTARTBLOCK; fn NULL: nothing (EINTR). */
struct restart_block {
	long (*fn)(struct restart_block *rb);
	uint64_t deadline;		/* when the sleep ends: TSC, or the clock's ns */
	uint64_t uaddr;			/* nanosleep's rem, the futex word */
	uint32_t val, bitset;		/* the futex's */
};

struct pt_regs;
struct task;

/* The rt_sigaction ABI on x86-64 (kernel order, not the libc one). */
struct kernel_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};
static_assert(sizeof(struct kernel_sigaction) == 32, "rt_sigaction ABI");

#define NSIGNALS 64

/* One queued instance of a real-time signal (Linux's struct sigqueue). */
struct sigqueue {
	struct sigqueue *next;
	siginfo_t info;
};

/* The signal actions of a process (Linux's sighand_struct): shared by its
 * threads and by CLONE_SIGHAND children, so that a sigaction in one is seen
 * by all; a fork gets a copy. Freed with its last user. */
struct sighand {
	int refs;
	struct kernel_sigaction action[NSIGNALS + 1];	/* index = signal number */
};

/* Standard signals coalesce: one pending instance each, its info in
 * info[]. Real-time ones queue: every instance is a sigqueue in sending
 * order, as many as RLIMIT_SIGPENDING allows (standard ones pending count
 * too, as on Linux). A later issue's threads keep one of these per thread
 * besides the process's shared one. */
struct signal_state {
	struct sighand *hand;		/* the actions, maybe shared */
	uint64_t blocked, pending;
	/* signal_mask_until_return's: the mask to go back to once a handler's
	 * frame is set up (the frame saves it), or at the return when none runs. */
	uint64_t saved_blocked;
	bool restore_blocked;
	siginfo_t info[SIGRTMIN];	/* the standard signals' one instance each */
	struct sigqueue *queue, **queue_tail;	/* real-time instances, oldest first */
	unsigned nr_queued;
	stack_t altstack;
};

static inline uint64_t sigbit(int sig)
{
	return 1ul << (sig - 1);
}

/* A new task's state: every action the default, nothing blocked;
 * -ENOMEM when no action table can be had. */
int signal_init(struct signal_state *s);
/* A child's state from its creator's (clone): the mask and alternate stack
 * copied, nothing pending, the actions shared (CLONE_SIGHAND) or copied;
 * -ENOMEM. */
int signal_copy(struct signal_state *to, const struct signal_state *from, bool share);
/* Before exec: a table of actions of its own, if shared (exec resets the
 * actions of its own process only, as Linux's unshare_sighand); -ENOMEM. */
int signal_unshare(struct signal_state *s);
/* Drop every pending signal, free the queue and let go of the actions (the
 * task is freed). */
void signal_release(struct signal_state *s);
/* Queue sig for t (info may be NULL for a plain SI_KERNEL signal). Not
 * from NMI context (it may allocate): interrupts off or on. -EAGAIN when a
 * real-time signal with an info of its own (sigqueue, SIGIO's, a timer's)
 * finds the queue at RLIMIT_SIGPENDING, as Linux's __send_signal; else 0. */
int signal_send(struct task *t, int sig, const siginfo_t *info);
/* Pending instances counted against RLIMIT_SIGPENDING (/proc's SigQ). */
unsigned signal_queued(const struct signal_state *s);
/* A synchronous signal (a fault): delivered even if blocked or ignored,
 * in which case its action is reset to the default first, as Linux does. */
void signal_force(struct task *t, int sig, const siginfo_t *info);
/* Is an unblocked signal pending (interrupts a sleep with EINTR)? */
bool signal_pending(struct task *t);
/* On the way back to user mode: deliver pending signals into regs. */
void signal_deliver(struct pt_regs *regs);
void signal_from_exception(struct pt_regs *regs);
/* A signal mask for the rest of the current syscall (rt_sigsuspend, ppoll,
 * pselect6, epoll_pwait): the old one comes back on the return to user
 * mode, through the frame of a handler that runs, as Linux's
 * set_restore_sigmask does. */
void signal_mask_until_return(uint64_t mask);

long sys_rt_sigaction(long sig, long uact, long uoact, long sigsetsize);
long sys_rt_sigprocmask(long how, long uset, long uoset, long sigsetsize);
long sys_rt_sigpending(long uset, long sigsetsize);
long sys_rt_sigreturn(void);
long sys_restart_syscall(void);
long sys_sigaltstack(long uss, long uoss);
long sys_pause(void);
long sys_rt_sigsuspend(long umask, long sigsetsize);
long sys_kill(long pid, long sig);
long sys_tgkill(long tgid, long tid, long sig);
long sys_tkill(long tid, long sig);
long sys_rt_sigqueueinfo(long pid, long sig, long uinfo);
long sys_rt_tgsigqueueinfo(long tgid, long tid, long sig, long uinfo);
