/* Signals for one process: actions, masks, delivery through Linux's x86-64
 * rt_sigframe (arch/x86/kernel/signal.c's layout), sigreturn, and the signals
 * user faults raise (arch/x86/kernel/traps.c's choices). */
#include "signal.h"
#include "entry_work.h"
#include "gdt.h"
#include "panic.h"
#include "printk.h"
#include "sched.h"
#include "task.h"
#include "traps.h"
#include "x86.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include "mm/uspace.h"
#include <asm/sigcontext.h>
#include <linux/signal.h>
#include <asm/ucontext.h>
#include <asm-generic/errno.h>
#include <asm/unistd_64.h>

struct rt_sigframe {
	uint64_t pretcode;	/* the handler returns into sa_restorer */
	struct ucontext uc;
	siginfo_t info;
};
static_assert(offsetof(struct rt_sigframe, uc) == 8, "Linux rt_sigframe");
static_assert(offsetof(struct rt_sigframe, info) == 312, "Linux rt_sigframe");
static_assert(sizeof(struct sigcontext) == 256, "Linux sigcontext");

#define FXSAVE_SIZE	512
#define MXCSR_DEFAULT	0x1f80
/* RFLAGS bits sigreturn may set (Linux's FIX_EFLAGS) */
#define FIX_EFLAGS	0x50dd5ul	/* AC|OF|DF|TF|SF|ZF|AF|PF|CF|RF */
#define UC_SIGCONTEXT_SS	0x2
#define UC_STRICT_RESTORE_SS	0x4
#define UNBLOCKABLE	(sigbit(SIGKILL) | sigbit(SIGSTOP))

static const char *const signal_names[32] = {
	[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT",
	[SIGILL] = "SIGILL", [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",
	[SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE", [SIGKILL] = "SIGKILL",
	[SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
	[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM",
	[SIGSTKFLT] = "SIGSTKFLT", [SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT",
	[SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP", [SIGTTIN] = "SIGTTIN",
	[SIGTTOU] = "SIGTTOU", [SIGURG] = "SIGURG", [SIGXCPU] = "SIGXCPU",
	[SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
	[SIGWINCH] = "SIGWINCH", [SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR",
	[SIGSYS] = "SIGSYS",
};

static struct sighand *sighand_new(const struct sighand *from)
{
	struct sighand *h = from ? kmalloc(sizeof(*h)) : kzalloc(sizeof(*h));

	if (h && from)
		*h = *from;
	if (h)
		h->refs = 1;
	return h;
}

static void sighand_put(struct sighand *h)
{
	if (h && --h->refs == 0)
		kfree(h);
}

int signal_init(struct signal_state *s)
{
	memset(s, 0, sizeof(*s));
	s->queue_tail = &s->queue;
	s->altstack.ss_flags = SS_DISABLE;
	return (s->hand = sighand_new(NULL)) ? 0 : -ENOMEM;
}

int signal_copy(struct signal_state *to, const struct signal_state *from, bool share)
{
	memset(to, 0, sizeof(*to));
	to->queue_tail = &to->queue;	/* the real-time queue is the creator's own */
	to->blocked = from->blocked;
	to->altstack = from->altstack;
	if (share) {
		from->hand->refs++;
		to->hand = from->hand;
		return 0;
	}
	return (to->hand = sighand_new(from->hand)) ? 0 : -ENOMEM;
}

int signal_unshare(struct signal_state *s)
{
	if (s->hand->refs == 1)
		return 0;
	struct sighand *h = sighand_new(s->hand);
	if (!h)
		return -ENOMEM;
	sighand_put(s->hand);
	s->hand = h;
	return 0;
}

static bool is_rt(int sig)
{
	return sig >= SIGRTMIN;
}

#define STANDARD_MASK	(sigbit(SIGRTMIN) - 1)

unsigned signal_queued(const struct signal_state *s)
{
	unsigned n = s->nr_queued;

	for (uint64_t m = s->pending & STANDARD_MASK; m; m &= m - 1)
		n++;
	return n;
}

/* Remove the first queued instance of sig (into *info if not NULL);
 * false if none is queued. */
static bool dequeue(struct signal_state *s, int sig, siginfo_t *info)
{
	for (struct sigqueue **link = &s->queue, *q; (q = *link); link = &q->next) {
		if (q->info.si_signo != sig)
			continue;
		*link = q->next;
		if (s->queue_tail == &q->next)
			s->queue_tail = link;
		if (info)
			*info = q->info;
		kfree(q);
		s->nr_queued--;
		return true;
	}
	return false;
}

static bool queued(const struct signal_state *s, int sig)
{
	for (const struct sigqueue *q = s->queue; q; q = q->next)
		if (q->info.si_signo == sig)
			return true;
	return false;
}

/* Every pending instance of sig goes (ignored by sigaction, or exit). */
static void discard(struct signal_state *s, int sig)
{
	while (dequeue(s, sig, NULL))
		;
	s->pending &= ~sigbit(sig);
}

void signal_release(struct signal_state *s)
{
	for (int sig = 1; sig <= NSIGNALS; sig++)
		discard(s, sig);
	sighand_put(s->hand);
	s->hand = NULL;
}

static bool default_ignored(int sig)
{
	/* Stop signals too: with nothing to continue it, a stopped program
	 * would hang the machine. */
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT ||
	       sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static bool ignored(struct signal_state *s, int sig)
{
	uint64_t h = s->hand->action[sig].handler;

	return h == (uint64_t)SIG_IGN || (h == (uint64_t)SIG_DFL && default_ignored(sig));
}

static int send_locked(struct task *t, int sig, const siginfo_t *info);

/* Interrupts off: timers (itimer.c) send from their interrupt. */
int signal_send(struct task *t, int sig, const siginfo_t *info)
{
	uint64_t flags = irq_save();
	int r = send_locked(t, sig, info);

	user_work_signal();	/* t may be current: look on the way out */
	sched_kick(t);		/* or run on another CPU: look there */
	irq_restore(flags);
	return r;
}

static int send_locked(struct task *t, int sig, const siginfo_t *info)
{
	struct signal_state *s = &t->sig;
	siginfo_t kinfo;

	if (ignored(s, sig) && !(s->blocked & sigbit(sig)))
		return 0;	/* discarded at once, as Linux does */
	if (!info) {
		memset(&kinfo, 0, sizeof(kinfo));
		kinfo.si_signo = sig;
		kinfo.si_code = SI_KERNEL;
	}
	if (!is_rt(sig)) {
		if (s->pending & sigbit(sig))
			return 0;	/* one instance of each standard signal */
		s->info[sig] = info ? *info : kinfo;
		s->pending |= sigbit(sig);
		return 0;
	}
	struct sigqueue *q = NULL;
	if (signal_queued(s) < task_rlimit(t, RLIMIT_SIGPENDING))
		q = kmalloc(sizeof(*q));
	if (!q) {
		/* Linux: a kill() or the kernel's own signal is still sent,
		 * its info lost; sigqueue, tgkill, SIGIO's and timers' fail. */
		if (info && info->si_code != SI_USER)
			return -EAGAIN;
		s->pending |= sigbit(sig);
		return 0;
	}
	q->next = NULL;
	q->info = info ? *info : kinfo;
	q->info.si_signo = sig;
	*s->queue_tail = q;
	s->queue_tail = &q->next;
	s->nr_queued++;
	s->pending |= sigbit(sig);
	return 0;
}

void signal_force(struct task *t, int sig, const siginfo_t *info)
{
	struct signal_state *s = &t->sig;

	if ((s->blocked & sigbit(sig)) || s->hand->action[sig].handler == (uint64_t)SIG_IGN) {
		s->hand->action[sig].handler = (uint64_t)SIG_DFL;
		s->blocked &= ~sigbit(sig);
	}
	discard(s, sig);	/* the fault's own info wins */
	signal_send(t, sig, info);
}

bool signal_pending(struct task *t)
{
	return t->sig.pending & ~t->sig.blocked;
}

static __noreturn void fatal_signal(struct pt_regs *regs, int sig, const siginfo_t *info)
{
	const char *name = sig < 32 && signal_names[sig] ? signal_names[sig] : "real-time signal";

	if (current->leader->group_exit)
		task_exit(sig, true);	/* a thread its process's exit ends: no report */
	if (info->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
				  sig == SIGFPE || sig == SIGTRAP))
		printk("pmuos: %s[%d]: killed by %s at ip %lx, address %p\n", current->comm,
		       current->pid, name, regs->rip, info->si_addr);
	else
		printk("pmuos: %s[%d]: killed by %s\n", current->comm, current->pid, name);
	task_exit(sig, true);	/* the status word of a death by sig */
}

/* The stack the frame goes on: the alternate stack if asked for and not
 * already on it, else below the red zone of the interrupted one. */
static uint64_t frame_stack(struct signal_state *s, const struct kernel_sigaction *ka,
			    uint64_t rsp)
{
	const stack_t *as = &s->altstack;
	uint64_t base = (uint64_t)as->ss_sp;

	if ((ka->flags & SA_ONSTACK) && !(as->ss_flags & SS_DISABLE) &&
	    !(rsp > base && rsp <= base + as->ss_size))
		return base + as->ss_size;
	return rsp - 128;
}

/* The state a handler starts with, and what a failed restore leaves: Linux's
 * fpu__clear_user_states. */
static void fpu_clean(void)
{
	static const uint32_t mxcsr = MXCSR_DEFAULT;

	__asm__ volatile("fninit\n ldmxcsr %0" : : "m"(mxcsr));
}

static int setup_frame(struct pt_regs *regs, int sig, const struct kernel_sigaction *ka,
		       const siginfo_t *info)
{
	struct signal_state *s = &current->sig;
	uint8_t fx[FXSAVE_SIZE] __aligned(16);
	struct rt_sigframe f;
	uint64_t sp = frame_stack(s, ka, regs->rsp);

	uint64_t fpstate = ALIGN_DOWN(sp - FXSAVE_SIZE, 64);
	uint64_t frame = ALIGN_DOWN(fpstate - sizeof(f), 16) - 8;	/* as after a call */

	/* FXSAVE leaves bytes 464..511 alone: no kernel stack to the user. */
	memset(fx, 0, sizeof(fx));
	__asm__ volatile("fxsave64 %0" : "+m"(fx));
	memset(&f, 0, sizeof(f));
	f.pretcode = ka->restorer;
	f.uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	f.uc.uc_stack.ss_sp = s->altstack.ss_sp;
	f.uc.uc_stack.ss_flags = s->altstack.ss_flags;
	f.uc.uc_stack.ss_size = s->altstack.ss_size;
	struct sigcontext *sc = &f.uc.uc_mcontext;
	sc->r8 = regs->r8, sc->r9 = regs->r9, sc->r10 = regs->r10, sc->r11 = regs->r11;
	sc->r12 = regs->r12, sc->r13 = regs->r13, sc->r14 = regs->r14, sc->r15 = regs->r15;
	sc->rdi = regs->rdi, sc->rsi = regs->rsi, sc->rbp = regs->rbp, sc->rbx = regs->rbx;
	sc->rdx = regs->rdx, sc->rax = regs->rax, sc->rcx = regs->rcx, sc->rsp = regs->rsp;
	sc->rip = regs->rip, sc->eflags = regs->rflags, sc->cs = regs->cs, sc->ss = regs->ss;
	sc->trapno = regs->vector < 32 ? regs->vector : 0;
	sc->err = regs->vector < 32 ? regs->error_code : 0;
	sc->cr2 = regs->vector == X86_TRAP_PF ? (uint64_t)info->si_addr : 0;
	sc->fpstate = (struct _fpstate *)fpstate;
	sc->oldmask = s->restore_blocked ? s->saved_blocked : s->blocked;
	f.uc.uc_sigmask = sc->oldmask;
	f.info = *info;

	if (copy_to_user((void *)fpstate, fx, sizeof(fx)) ||
	    copy_to_user((void *)frame, &f, sizeof(f)))
		return -EFAULT;

	regs->rip = ka->handler;
	regs->rsp = frame;
	regs->rdi = sig;
	regs->rsi = frame + offsetof(struct rt_sigframe, info);
	regs->rdx = frame + offsetof(struct rt_sigframe, uc);
	regs->rax = 0;
	regs->rflags &= ~(X86_EFLAGS_TF | X86_EFLAGS_DF | (1ul << 16) /* RF */);
	regs->cs = GDT_USER_CS;
	regs->ss = GDT_USER_DS;
	fpu_clean();
	return 0;
}

/* The next instance of pending sig: the standard one, or the oldest one
 * queued; a real-time signal whose info was lost (the queue was full) reads
 * as a kill() from no one, as on Linux. */
static void take(struct signal_state *s, int sig, siginfo_t *info)
{
	if (!is_rt(sig)) {
		*info = s->info[sig];
		s->pending &= ~sigbit(sig);
		return;
	}
	if (!dequeue(s, sig, info)) {
		memset(info, 0, sizeof(*info));
		info->si_signo = sig;
		info->si_code = SI_USER;
	}
	if (!queued(s, sig))
		s->pending &= ~sigbit(sig);
}

/* A syscall that a signal interrupted (its frame's vector -1, entry.asm's
 * mark of a syscall frame, and the number in error_code) runs again from
 * its SYSCALL instruction, as Linux's: -ERESTARTSYS unless the handler about
 * to run (ka) lacks SA_RESTART, -ERESTARTNOHAND and -ERESTART_RESTARTBLOCK
 * (as restart_syscall) only when no handler runs; else EINTR. */
static void syscall_restart(struct pt_regs *regs, const struct kernel_sigaction *ka)
{
	long r = regs->rax;

	if (regs->vector != (uint64_t)-1 || regs->error_code == (uint64_t)-1)
		return;
	if (r != -ERESTARTSYS && r != -ERESTARTNOHAND && r != -ERESTART_RESTARTBLOCK)
		return;
	if (ka && (r != -ERESTARTSYS || !(ka->flags & SA_RESTART))) {
		regs->rax = -EINTR;
		return;
	}
	regs->rax = r == -ERESTART_RESTARTBLOCK ? __NR_restart_syscall : regs->error_code;
	regs->rip -= 2;		/* SYSCALL's length */
}

long sys_restart_syscall(void)
{
	struct restart_block *rb = &current->restart;

	return rb->fn ? rb->fn(rb) : -EINTR;	/* Linux's do_no_restart_syscall */
}

void signal_deliver(struct pt_regs *regs)
{
	struct signal_state *s = &current->sig;

	while (s->pending & ~s->blocked) {
		int sig = __builtin_ctzl(s->pending & ~s->blocked) + 1;
		struct kernel_sigaction ka = s->hand->action[sig];
		siginfo_t info;

		take(s, sig, &info);
		if (ka.handler == (uint64_t)SIG_IGN || (ka.handler == (uint64_t)SIG_DFL &&
							default_ignored(sig)))
			continue;
		if (ka.handler == (uint64_t)SIG_DFL)
			fatal_signal(regs, sig, &info);
		syscall_restart(regs, &ka);	/* before the frame saves the registers */
		if (setup_frame(regs, sig, &ka, &info)) {
			/* No room for the frame: Linux kills with SIGSEGV. */
			siginfo_t segv = { .si_signo = SIGSEGV, .si_code = SI_KERNEL };
			fatal_signal(regs, SIGSEGV, &segv);
		}
		s->restore_blocked = false;	/* the frame has the mask to restore */
		s->blocked |= ka.mask & ~UNBLOCKABLE;
		if (!(ka.flags & SA_NODEFER))
			s->blocked |= sigbit(sig);
		if (ka.flags & SA_RESETHAND)
			s->hand->action[sig].handler = (uint64_t)SIG_DFL;
		if (ka.handler >= USER_END) {
			/* Not a user address: IRET there would fault in ring 0.
			 * Linux makes the faulting return the task's #GP, a
			 * SIGSEGV taken on top of this frame; a SIGSEGV handler
			 * that cannot be entered cannot catch it (force_sigsegv). */
			if (sig == SIGSEGV)
				s->hand->action[SIGSEGV].handler = (uint64_t)SIG_DFL;
			siginfo_t segv = { .si_signo = SIGSEGV, .si_code = SI_KERNEL };
			signal_force(current, SIGSEGV, &segv);
			continue;
		}
		return;		/* one frame at a time; the rest on the next return */
	}
	syscall_restart(regs, NULL);	/* no handler ran: as if nothing came */
	if (s->restore_blocked) {
		s->blocked = s->saved_blocked;
		s->restore_blocked = false;
	}
}

void signal_from_exception(struct pt_regs *regs)
{
	siginfo_t info = { 0 };
	int sig;

	info.si_code = SI_KERNEL;
	switch (regs->vector) {
	case X86_TRAP_DE:
		sig = SIGFPE, info.si_code = FPE_INTDIV, info.si_addr = (void *)regs->rip;
		break;
	case X86_TRAP_UD:
		sig = SIGILL, info.si_code = ILL_ILLOPN, info.si_addr = (void *)regs->rip;
		break;
	case X86_TRAP_PF:
		/* Linux: mapped but not allowed is ACCERR, present or not. */
		sig = SIGSEGV;
		info.si_addr = (void *)read_cr2();
		info.si_code = vma_find(current->us, (uint64_t)info.si_addr) ?
			       SEGV_ACCERR : SEGV_MAPERR;
		break;
	case X86_TRAP_BP:
		sig = SIGTRAP;
		break;
	case X86_TRAP_DB:
		sig = SIGTRAP, info.si_code = TRAP_TRACE, info.si_addr = (void *)regs->rip;
		break;
	case X86_TRAP_MF:
	case X86_TRAP_XF:
		sig = SIGFPE, info.si_code = 0, info.si_addr = (void *)regs->rip;
		break;
	case X86_TRAP_AC:
		sig = SIGBUS, info.si_code = BUS_ADRALN;
		break;
	case X86_TRAP_NP:
	case X86_TRAP_SS:
		sig = SIGBUS;
		break;
	default:		/* #GP, #OF, #BR and the rest */
		sig = SIGSEGV;
	}
	info.si_signo = sig;
	signal_force(current, sig, &info);
}

long sys_rt_sigaction(long sig, long uact, long uoact, long sigsetsize)
{
	struct signal_state *s = &current->sig;
	struct kernel_sigaction ka;

	if (sigsetsize != sizeof(sigset_t) || sig < 1 || sig > NSIGNALS)
		return -EINVAL;
	if (uact && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	if (uact && copy_from_user(&ka, (void *)uact, sizeof(ka)))
		return -EFAULT;
	if (uoact && copy_to_user((void *)uoact, &s->hand->action[sig], sizeof(ka)))
		return -EFAULT;
	if (uact) {
		ka.mask &= ~UNBLOCKABLE;
		s->hand->action[sig] = ka;
		/* Now ignored: pending instances go, in every task sharing
		 * the action (Linux's sigaction flushes the whole process's). */
		for (struct task *t = sched_first(); t && ignored(s, sig); t = t->next)
			if (t->sig.hand == s->hand)
				discard(&t->sig, sig);
	}
	return 0;
}

long sys_rt_sigprocmask(long how, long uset, long uoset, long sigsetsize)
{
	struct signal_state *s = &current->sig;
	uint64_t set, old = s->blocked;

	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (uset) {
		if (copy_from_user(&set, (void *)uset, sizeof(set)))
			return -EFAULT;
		set &= ~UNBLOCKABLE;
		switch (how) {
		case SIG_BLOCK: s->blocked |= set; break;
		case SIG_UNBLOCK: s->blocked &= ~set; break;
		case SIG_SETMASK: s->blocked = set; break;
		default: return -EINVAL;
		}
		user_work_signal();	/* one may be unblocked now */
	}
	if (uoset && copy_to_user((void *)uoset, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_rt_sigpending(long uset, long sigsetsize)
{
	uint64_t set = current->sig.pending & current->sig.blocked;

	if ((unsigned long)sigsetsize > sizeof(sigset_t))
		return -EINVAL;
	return copy_to_user((void *)uset, &set, sigsetsize) ? -EFAULT : 0;
}

long sys_rt_sigreturn(void)
{
	struct pt_regs *regs = current->regs;
	uint64_t frame = regs->rsp - 8;		/* the handler's ret popped pretcode */
	struct ucontext uc;
	uint8_t fx[FXSAVE_SIZE] __aligned(16);

	if (copy_from_user(&uc, (void *)(frame + offsetof(struct rt_sigframe, uc)), sizeof(uc)))
		goto badframe;
	const struct sigcontext *sc = &uc.uc_mcontext;
	/* Not a user address: IRET there would fault in ring 0. Linux makes the
	 * faulting return the task's #GP: a SIGSEGV either way. */
	if (sc->rip >= USER_END)
		goto badframe;
	if (sc->fpstate) {
		if (copy_from_user(fx, sc->fpstate, sizeof(fx)))
			goto badframe;
		/* As Linux 6.1 restores a 64-bit frame: the CPU checks MXCSR, and
		 * a restore that faults is a bad frame, not a masked value. */
		if (fxrstor_safe(fx)) {
			fpu_clean();
			goto badframe;
		}
	}
	regs->r8 = sc->r8, regs->r9 = sc->r9, regs->r10 = sc->r10, regs->r11 = sc->r11;
	regs->r12 = sc->r12, regs->r13 = sc->r13, regs->r14 = sc->r14, regs->r15 = sc->r15;
	regs->rdi = sc->rdi, regs->rsi = sc->rsi, regs->rbp = sc->rbp, regs->rbx = sc->rbx;
	regs->rdx = sc->rdx, regs->rax = sc->rax, regs->rcx = sc->rcx, regs->rsp = sc->rsp;
	regs->rip = sc->rip;
	regs->rflags = (regs->rflags & ~FIX_EFLAGS) | (sc->eflags & FIX_EFLAGS);
	regs->cs = GDT_USER_CS;
	regs->ss = GDT_USER_DS;
	regs->error_code = -1;	/* no syscall to restart, whatever RAX holds */
	current->restart.fn = NULL;	/* nor a restart_syscall, as Linux's */
	current->sig.blocked = uc.uc_sigmask & ~UNBLOCKABLE;
	user_work_signal();
	return regs->rax;
badframe:;
	siginfo_t info = { .si_signo = SIGSEGV, .si_code = SI_KERNEL };
	signal_force(current, SIGSEGV, &info);
	return regs->rax;
}

long sys_sigaltstack(long uss, long uoss)
{
	stack_t *as = &current->sig.altstack, ss;
	stack_t old = *as;
	uint64_t sp = current->regs->rsp, base = (uint64_t)as->ss_sp;
	bool on_stack = !(as->ss_flags & SS_DISABLE) && sp > base && sp <= base + as->ss_size;

	if (uss) {
		if (copy_from_user(&ss, (void *)uss, sizeof(ss)))
			return -EFAULT;
		if (on_stack)
			return -EPERM;
		if (ss.ss_flags & ~(SS_DISABLE | SS_AUTODISARM))
			return -EINVAL;
		if (ss.ss_flags & SS_DISABLE) {
			as->ss_sp = NULL, as->ss_size = 0, as->ss_flags = SS_DISABLE;
		} else {
			if (ss.ss_size < MINSIGSTKSZ)
				return -ENOMEM;
			*as = ss;
		}
	}
	if (uoss) {
		old.ss_flags = on_stack ? SS_ONSTACK : old.ss_flags;
		if (copy_to_user((void *)uoss, &old, sizeof(old)))
			return -EFAULT;
	}
	return 0;
}

static long send_to(struct task *t, long sig, int code)
{
	if (sig == 0 || t->state == TASK_ZOMBIE)
		return 0;	/* a zombie takes signals and ignores them */
	siginfo_t info = { .si_signo = sig, .si_code = code };
	info.si_pid = current->tgid;
	info.si_uid = 0;
	long r = signal_send(t, sig, &info);
	if (t != current)
		sched_wakeup();	/* it may be sleeping: EINTR, or its handler */
	return r;
}

/* The thread a process-directed signal goes to (Linux's complete_signal):
 * the leader while it lives and does not block sig, else the first other
 * live thread that does not, else the first live one. A leader that has
 * exited (SYS_exit alone) leaves the signal to the threads it left. */
static struct task *group_target(struct task *leader, long sig)
{
	struct task *wants = NULL, *alive = NULL;

	for (struct task *t = sched_first(); t; t = t->next) {
		if (t->tgid != leader->tgid || t->state == TASK_ZOMBIE || t->exiting)
			continue;
		if (sig && !(t->sig.blocked & sigbit(sig))) {
			if (t == leader)
				return t;
			wants = wants ? wants : t;
		}
		alive = alive ? alive : t;
	}
	return wants ? wants : alive ? alive : leader;
}

static long send_to_group(int (*match)(const struct task *t, long id), long id, long sig)
{
	bool found = false;

	for (struct task *t = sched_first(); t; t = t->next) {
		if (t != t->leader || !match(t, id))
			continue;
		found = true;
		send_to(group_target(t, sig), sig, SI_USER);
	}
	return found ? 0 : -ESRCH;
}

static int pid_is(const struct task *t, long id)
{
	return t->tgid == id;
}

static int pgid_is(const struct task *t, long id)
{
	return t->pgid == id;
}

static int not_caller(const struct task *t, long id)
{
	return t->tgid != current->tgid;
}

void signal_mask_until_return(uint64_t mask)
{
	struct signal_state *s = &current->sig;

	if (!s->restore_blocked) {
		s->saved_blocked = s->blocked;
		s->restore_blocked = true;
	}
	s->blocked = mask & ~UNBLOCKABLE;
	user_work_signal();	/* the slow exit puts the old mask back */
}

/* Wait with a temporary mask until a signal runs a handler; the old mask
 * comes back with the handler's sigreturn (the frame saved it). */
long sys_rt_sigsuspend(long umask, long sigsetsize)
{
	uint64_t mask;

	if (sigsetsize != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, (void *)umask, sizeof(mask)))
		return -EFAULT;
	signal_mask_until_return(mask);
	while (task_wait(NULL, NULL, 0) != -EINTR)
		;
	return -EINTR;
}

long sys_pause(void)
{
	task_wait(NULL, NULL, 0);	/* until a signal */
	return -EINTR;
}

long sys_kill(long pid, long sig)
{
	pid = (int)pid;	/* pid_t and int: Linux sign-extends them from 32 bits */
	sig = (int)sig;
	if (sig < 0 || sig > NSIGNALS)
		return -EINVAL;
	if (pid == -1)
		return send_to_group(not_caller, 0, sig);
	if ((int)pid == -2147483647 - 1)
		return -ESRCH;
	if (pid <= 0)
		return send_to_group(pgid_is, pid ? -pid : current->pgid, sig);
	/* Any thread's id names its process, as in Linux's kill_pid_info. */
	struct task *t = task_by_pid(pid);
	if (t && t != t->leader && t->state != TASK_ZOMBIE)
		pid = t->tgid;
	return send_to_group(pid_is, pid, sig);
}

long sys_tgkill(long tgid, long tid, long sig)
{
	tgid = (int)tgid, tid = (int)tid, sig = (int)sig;
	if (tgid <= 0 || tid <= 0 || sig < 0 || sig > NSIGNALS)
		return -EINVAL;
	struct task *t = task_by_pid(tid);
	if (!t || t->tgid != tgid)
		return -ESRCH;
	return send_to(t, sig, SI_TKILL);
}

long sys_tkill(long tid, long sig)
{
	tid = (int)tid, sig = (int)sig;
	if (tid <= 0 || sig < 0 || sig > NSIGNALS)
		return -EINVAL;
	struct task *t = task_by_pid(tid);
	if (!t)
		return -ESRCH;
	return send_to(t, sig, SI_TKILL);
}

/* The caller's own siginfo; to another process only with a negative
 * si_code other than SI_TKILL (it cannot pose as kill() or the kernel).
 * tgid: the thread group the target must be in (rt_tgsigqueueinfo). */
static long queue_info(int tgid, int pid, long sig, long uinfo)
{
	siginfo_t info;

	if (copy_from_user(&info, (void *)uinfo, sizeof(info)))
		return -EFAULT;
	if ((info.si_code >= 0 || info.si_code == SI_TKILL) && pid != current->tgid)
		return -EPERM;
	struct task *t = task_by_pid(pid);
	if (!t || (tgid && t->tgid != tgid))
		return -ESRCH;
	if (sig < 0 || sig > NSIGNALS)
		return -EINVAL;
	if (sig == 0 || t->state == TASK_ZOMBIE)
		return 0;
	info.si_signo = sig;
	long r = signal_send(t, sig, &info);
	if (t != current)
		sched_wakeup();
	return r;
}

long sys_rt_sigqueueinfo(long pid, long sig, long uinfo)
{
	pid = (int)pid, sig = (int)sig;
	return queue_info(current->pid, (int)pid, sig, uinfo);
}

long sys_rt_tgsigqueueinfo(long tgid, long tid, long sig, long uinfo)
{
	tgid = (int)tgid, tid = (int)tid, sig = (int)sig;
	if ((int)tgid <= 0 || (int)tid <= 0)
		return -EINVAL;
	return queue_info((int)tgid, (int)tid, sig, uinfo);
}
