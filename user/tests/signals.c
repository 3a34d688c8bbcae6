/* user/tests/signals.c: signals sent to self: handlers, siginfo, masks, pending delivery, sigreturn. */
#include "ktap.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static volatile sig_atomic_t hits;
static siginfo_t last_info;
static sigset_t mask_in_handler;
static volatile sig_atomic_t order[4], norder;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	last_info = *si;
	sigprocmask(SIG_BLOCK, NULL, &mask_in_handler);
	hits++;
}

static void handle(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa = { .sa_sigaction = fn, .sa_flags = SA_SIGINFO | flags };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	hits = 0;
	memset(&last_info, 0, sizeof(last_info));
}

static void restore_default(int sig)
{
	signal(sig, SIG_DFL);
}

TEST(kill_self_siginfo)
{
	handle(SIGUSR1, on_signal, 0);
	ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
	ASSERT_EQ(hits, 1); /* delivered on the way out of kill() */
	ASSERT_EQ(last_info.si_signo, SIGUSR1);
	ASSERT_EQ(last_info.si_code, SI_USER);
	ASSERT_EQ(last_info.si_pid, getpid());
	ASSERT_EQ(last_info.si_uid, 0);
	restore_default(SIGUSR1);
}

TEST(tgkill_self_siginfo)
{
	handle(SIGUSR2, on_signal, 0);
	ASSERT_EQ(syscall(SYS_tgkill, getpid(), gettid(), SIGUSR2), 0);
	ASSERT_EQ(hits, 1);
	ASSERT_EQ(last_info.si_signo, SIGUSR2);
	ASSERT_EQ(last_info.si_code, SI_TKILL);
	ASSERT_EQ(last_info.si_pid, getpid());
	restore_default(SIGUSR2);
}

/* musl's raise() blocks all signals and calls tkill; the signal arrives once they unblock. */
TEST(raise_self)
{
	handle(SIGUSR1, on_signal, 0);
	ASSERT_EQ(raise(SIGUSR1), 0);
	ASSERT_EQ(hits, 1);
	ASSERT_EQ(last_info.si_signo, SIGUSR1);
	ASSERT_EQ(last_info.si_code, SI_TKILL);
	restore_default(SIGUSR1);
}

/* Without SA_NODEFER the signal is blocked while its handler runs, and unblocked after. */
TEST(handler_mask)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	sigset_t after;

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	hits = 0;
	ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
	ASSERT_EQ(hits, 1);
	ASSERT_TRUE(sigismember(&mask_in_handler, SIGUSR1));
	ASSERT_TRUE(sigismember(&mask_in_handler, SIGUSR2));
	ASSERT_EQ(sigprocmask(SIG_BLOCK, NULL, &after), 0);
	ASSERT_FALSE(sigismember(&after, SIGUSR1));
	ASSERT_FALSE(sigismember(&after, SIGUSR2));
	restore_default(SIGUSR1);
}

/* Blocked signals wait; a standard signal sent twice while blocked arrives once. */
TEST(blocked_until_unblocked)
{
	sigset_t set;

	handle(SIGUSR1, on_signal, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ASSERT_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
	ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
	ASSERT_EQ(hits, 0);
	ASSERT_EQ(sigprocmask(SIG_UNBLOCK, &set, NULL), 0);
	ASSERT_EQ(hits, 1);
	restore_default(SIGUSR1);
}

TEST(sigprocmask_set_and_query)
{
	sigset_t set, old, now;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	ASSERT_EQ(sigprocmask(SIG_SETMASK, &set, &old), 0);
	ASSERT_EQ(sigprocmask(SIG_SETMASK, NULL, &now), 0);
	ASSERT_TRUE(sigismember(&now, SIGUSR2));
	ASSERT_EQ(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	ASSERT_ERRNO(syscall(SYS_rt_sigprocmask, 99, &set, NULL, 8), EINVAL);
}

/* SIGKILL and SIGSTOP can be neither blocked nor caught. */
TEST(sigkill_cannot_be_handled_or_blocked)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	sigset_t set, now;

	ASSERT_ERRNO(sigaction(SIGKILL, &sa, NULL), EINVAL);
	ASSERT_ERRNO(sigaction(SIGSTOP, &sa, NULL), EINVAL);
	ASSERT_ERRNO(syscall(SYS_rt_sigaction, 0, &sa, NULL, 8), EINVAL);
	ASSERT_ERRNO(syscall(SYS_rt_sigaction, 65, &sa, NULL, 8), EINVAL);
	sigfillset(&set);
	ASSERT_EQ(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, &now, 8), 0);
	ASSERT_EQ(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &now, &set, 8), 0);
	ASSERT_FALSE(sigismember(&set, SIGKILL));
	ASSERT_FALSE(sigismember(&set, SIGSTOP));
}

TEST(ignored_signal)
{
	signal(SIGUSR1, SIG_IGN);
	ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
	restore_default(SIGUSR1);
}

/* The old action reads back as installed, flags and mask included. */
TEST(sigaction_round_trip)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigaction old;

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTERM);
	ASSERT_EQ(sigaction(SIGUSR2, &sa, NULL), 0);
	ASSERT_EQ(sigaction(SIGUSR2, NULL, &old), 0);
	ASSERT_EQ(old.sa_sigaction, on_signal);
	ASSERT_TRUE(old.sa_flags & SA_SIGINFO);
	ASSERT_TRUE(old.sa_flags & SA_RESTART);
	ASSERT_TRUE(sigismember(&old.sa_mask, SIGTERM));
	restore_default(SIGUSR2);
	ASSERT_EQ(sigaction(SIGUSR2, NULL, &old), 0);
	ASSERT_EQ(old.sa_handler, SIG_DFL);
}

TEST(resethand_runs_once)
{
	struct sigaction old;

	handle(SIGUSR1, on_signal, SA_RESETHAND);
	ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
	ASSERT_EQ(hits, 1);
	ASSERT_EQ(sigaction(SIGUSR1, NULL, &old), 0);
	ASSERT_EQ(old.sa_handler, SIG_DFL);
}

static void inner(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	order[norder++] = sig;
}

static void outer(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	order[norder++] = sig;
	kill(getpid(), SIGUSR2);
	order[norder++] = -sig;
}

/* A signal sent from inside a handler runs nested, before the outer handler goes on. */
TEST(nested_delivery)
{
	handle(SIGUSR1, outer, 0);
	handle(SIGUSR2, inner, 0);
	norder = 0;
	ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
	ASSERT_EQ(norder, 3);
	ASSERT_EQ(order[0], SIGUSR1);
	ASSERT_EQ(order[1], SIGUSR2);
	ASSERT_EQ(order[2], -SIGUSR1);
	restore_default(SIGUSR1);
	restore_default(SIGUSR2);
}

static void clobber(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	asm volatile("pxor %%xmm0, %%xmm0\n\txor %%edx, %%edx\n\txor %%r8d, %%r8d\n\t"
		     "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d"
		     : : : "xmm0", "rdx", "r8", "r9", "r10");
	hits++;
}

/*
 * A signal delivered on the way out of kill() must hand back every register the syscall
 * ABI preserves (all but rax, rcx, r11), the SSE state included.
 */
TEST(sigreturn_restores_registers)
{
	uint64_t pid = (uint64_t)getpid();

	handle(SIGUSR1, clobber, 0);
	/* Register variables hold only if nothing is called between here and the asm. */
	register uint64_t rdi asm("rdi") = pid;
	register uint64_t rsi asm("rsi") = SIGUSR1;
	register uint64_t rdx asm("rdx") = 0x2222222222222222;
	register uint64_t r8 asm("r8") = 0x8888888888888888;
	register uint64_t r9 asm("r9") = 0x9999999999999999;
	register uint64_t r10 asm("r10") = 0x1010101010101010;
	uint64_t xmm = 0x0123456789abcdef, xmm_out;
	long ret;

	asm volatile("movq %[xmm], %%xmm0\n\t"
		     "syscall\n\t"
		     "movq %%xmm0, %[xmm_out]"
		     : "=a"(ret), [xmm_out] "=r"(xmm_out), "+r"(rdi), "+r"(rsi), "+r"(rdx),
		       "+r"(r8), "+r"(r9), "+r"(r10)
		     : "0"(SYS_kill), [xmm] "r"(xmm)
		     : "rcx", "r11", "xmm0", "memory");
	ASSERT_EQ(ret, 0);
	ASSERT_EQ(hits, 1);
	ASSERT_EQ(rdi, pid);
	ASSERT_EQ(rsi, SIGUSR1);
	ASSERT_EQ(rdx, 0x2222222222222222);
	ASSERT_EQ(r8, 0x8888888888888888);
	ASSERT_EQ(r9, 0x9999999999999999);
	ASSERT_EQ(r10, 0x1010101010101010);
	ASSERT_EQ(xmm_out, xmm);
	restore_default(SIGUSR1);
}

#define NONCANONICAL 0x8000000000000000UL /* no user address, with 4- or 5-level paging */
#define MXCSR_DEFAULT 0x1f80

static sigjmp_buf recover;
static siginfo_t segv_info;
static volatile sig_atomic_t segv_hits;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	segv_info = *si;
	segv_hits++;
	siglongjmp(recover, 1);
}

/* Runs fn(arg) with SIGSEGV caught; true when SIGSEGV came instead of a return. */
static bool segv_from(void (*fn)(uintptr_t), uintptr_t arg)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	segv_hits = 0;
	memset(&segv_info, 0, sizeof(segv_info));
	if (sigsetjmp(recover, 1) == 0)
		fn(arg);
	restore_default(SIGSEGV);
	return segv_hits == 1;
}

static void kill_self(uintptr_t sig)
{
	kill(getpid(), (int)sig);
}

static void set_rip(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)NONCANONICAL;
	hits++;
}

/* sigreturn to no user address: SIGSEGV as from #GP (Linux takes it when the return faults). */
TEST(sigreturn_noncanonical_rip_segv)
{
	handle(SIGUSR1, set_rip, 0);
	ASSERT_TRUE(segv_from(kill_self, SIGUSR1));
	ASSERT_EQ(hits, 1);
	ASSERT_EQ(segv_info.si_signo, SIGSEGV);
	ASSERT_EQ(segv_info.si_code, SI_KERNEL);
	ASSERT_EQ(segv_info.si_addr, NULL);
	restore_default(SIGUSR1);
}

/* A handler at no user address: the signal's delivery ends in SIGSEGV, as from #GP. */
TEST(noncanonical_handler_segv)
{
	struct sigaction sa = { .sa_handler = (void (*)(int))NONCANONICAL };

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR2, &sa, NULL), 0);
	ASSERT_TRUE(segv_from(kill_self, SIGUSR2));
	ASSERT_EQ(segv_info.si_signo, SIGSEGV);
	ASSERT_EQ(segv_info.si_code, SI_KERNEL);
	ASSERT_EQ(segv_info.si_addr, NULL);
	restore_default(SIGUSR2);
}

static uint32_t read_mxcsr(void)
{
	uint32_t v;

	asm volatile("stmxcsr %0" : "=m"(v));
	return v;
}

static void load_mxcsr(uintptr_t v)
{
	uint32_t m = (uint32_t)v;

	asm volatile("ldmxcsr %0" : : "m"(m));
}

/* Every MXCSR bit set, and the mask beside it, which is the CPU's to know, not the frame's. */
static void set_mxcsr(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	uc->uc_mcontext.fpregs->mxcsr = 0xffffffff;
	uc->uc_mcontext.fpregs->mxcr_mask = 0xffffffff;
	hits++;
}

/*
 * Linux 6.1 restores a 64-bit frame with the CPU's own FXRSTOR or XRSTOR. Where the CPU
 * refuses reserved MXCSR bits (#GP, as LDMXCSR from user mode shows), sigreturn fails: SIGSEGV,
 * and the state is clean again. Where it takes them (QEMU's TCG), they come back as LDMXCSR
 * leaves them. Either way the kernel survives.
 */
TEST(sigreturn_reserved_mxcsr)
{
	bool cpu_refuses = segv_from(load_mxcsr, 0xffffffff);
	uint32_t cpu_keeps = read_mxcsr();

	load_mxcsr(MXCSR_DEFAULT);
	handle(SIGUSR1, set_mxcsr, 0);
	bool segv = segv_from(kill_self, SIGUSR1);
	uint32_t after = read_mxcsr();

	load_mxcsr(MXCSR_DEFAULT);
	restore_default(SIGUSR1);
	ktap_print("the CPU %s reserved MXCSR bits", cpu_refuses ? "refuses" : "keeps");
	ASSERT_EQ(hits, 1);
	ASSERT_EQ(segv, cpu_refuses);
	if (segv) {
		ASSERT_EQ(segv_info.si_code, SI_KERNEL);
		ASSERT_EQ(after, MXCSR_DEFAULT);
	} else {
		ASSERT_EQ(after, cpu_keeps);
	}
}

static volatile int suspend_hits;
static sigset_t mask_in_handler;

static void on_suspend_alarm(int sig)
{
	(void)sig;
	suspend_hits++;
	sigprocmask(SIG_BLOCK, NULL, &mask_in_handler);
}

/* sigsuspend: SIGALRM blocked, then waited for with an empty mask; the handler runs with
 * sigsuspend's mask (plus the signal itself), and the old mask is back once it returns. */
TEST(sigsuspend_waits_with_a_temporary_mask)
{
	struct sigaction sa = { .sa_handler = on_suspend_alarm }, old;
	sigset_t block, empty, now;

	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigemptyset(&empty);
	ASSERT_EQ(sigaction(SIGALRM, &sa, &old), 0);
	ASSERT_EQ(sigprocmask(SIG_BLOCK, &block, NULL), 0);
	ualarm(20000, 0);
	EXPECT_EQ(sigsuspend(&empty), -1);
	EXPECT_EQ(errno, EINTR);
	EXPECT_EQ(suspend_hits, 1);
	EXPECT_EQ(sigismember(&mask_in_handler, SIGALRM), 1);
	ASSERT_EQ(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	EXPECT_EQ(sigismember(&now, SIGALRM), 1);
	EXPECT_EQ(syscall(SYS_rt_sigsuspend, &empty, 4), -1);
	EXPECT_EQ(errno, EINVAL);
	ASSERT_EQ(sigprocmask(SIG_UNBLOCK, &block, NULL), 0);
	sigaction(SIGALRM, &old, NULL);
}
