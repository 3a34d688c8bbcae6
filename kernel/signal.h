/* Signals for one process: actions, masks, delivery through Linux's x86-64
 * rt_sigframe, and the signals user faults raise. */
#pragma once
#include "kernel.h"
#include <asm/signal.h>
#include <asm/siginfo.h>

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

struct signal_state {
	struct kernel_sigaction action[NSIGNALS + 1];	/* index = signal number */
	uint64_t blocked, pending;
	siginfo_t info[NSIGNALS + 1];	/* one queued instance per signal */
	stack_t altstack;
};

static inline uint64_t sigbit(int sig)
{
	return 1ul << (sig - 1);
}

void signal_init(struct signal_state *s);
/* Queue sig for t (info may be NULL for a plain SI_KERNEL signal). */
void signal_send(struct task *t, int sig, const siginfo_t *info);
/* A synchronous signal (a fault): delivered even if blocked or ignored,
 * in which case its action is reset to the default first, as Linux does. */
void signal_force(struct task *t, int sig, const siginfo_t *info);
/* Is an unblocked signal pending (interrupts a sleep with EINTR)? */
bool signal_pending(struct task *t);
/* On the way back to user mode: deliver pending signals into regs. */
void signal_deliver(struct pt_regs *regs);
void signal_from_exception(struct pt_regs *regs);

long sys_rt_sigaction(long sig, long uact, long uoact, long sigsetsize);
long sys_rt_sigprocmask(long how, long uset, long uoset, long sigsetsize);
long sys_rt_sigpending(long uset, long sigsetsize);
long sys_rt_sigreturn(void);
long sys_sigaltstack(long uss, long uoss);
long sys_pause(void);
long sys_kill(long pid, long sig);
long sys_tgkill(long tgid, long tid, long sig);
long sys_tkill(long tid, long sig);
