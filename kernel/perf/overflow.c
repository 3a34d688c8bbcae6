/* A sampling event's period ran out: throttling above the maximum sample
 * rate (THROTTLE/UNTHROTTLE, stop/start so the counter is kept) and above
 * the sampling CPU budget, sample_freq period adaptation, the REFRESH
 * limit, the sample itself, and the work an NMI must leave for later
 * (SIGIO wake-ups, sigtrap, disabling, the unthrottle timer), run from a
 * self-IPI once interrupts are on again (Linux's irq_work).
 *
 * NMI safety: the NMI pushes onto the pending and throttled lists; process
 * and interrupt context only take a whole list with one exchange, or
 * unlink its head with cmpxchg, so a push that lands in between is never
 * lost. The NMI never touches the timer queue (timer.c is interrupts-off
 * safe, not NMI safe): it asks the self-IPI to arm the unthrottle timer.
 *
 * Per CPU, as Linux's irq_work and its per-CPU throttling: each CPU's
 * overflows go on its own lists, which only that CPU walks (its NMI, its
 * self-IPI, its unthrottle timer), so the one-CPU argument above holds on
 * each; the work runs on the CPU (and beside the task) that overflowed,
 * but an unthrottling runs where the event's context runs by then, which
 * writes its ring (ring.c). An event names the CPU whose lists hold it, and
 * is unlinked there. */
#include "internal.h"
#include "../clock.h"
#include "../apic.h"
#include "../cmdline.h"
#include "../fd.h"
#include "../signal.h"
#include "../task.h"
#include "../timer.h"
#include "../traps.h"
#include "../mm/paging.h"
#include <asm-generic/errno.h>
#include "../tsc.h"
#include "../x86.h"
#include <asm-generic/fcntl.h>
#include "../sched.h"
#include "../smp.h"
#include <linux/poll.h>

#define MAX_INTERRUPTS	(~0ull)
/* Linux counts samples per tick; pmuos is tickless, so the same 4 ms
 * windows (HZ=250, Debian's) are kept on the TSC. */
#define WINDOW_NS	4000000ul

static unsigned long max_sample_rate = 100000;	/* perf_event_max_sample_rate */
static unsigned long max_samples_per_window;
static uint64_t window_tsc;

struct overflow_cpu {
	struct perf_event *throttled;
	struct timer unthrottle_timer;
	bool unthrottle_wanted;		/* set by the NMI, armed by run_pending */
	struct perf_event *pending;	/* pushed from NMIs: see push_pending */
	unsigned long sample_work;	/* perf_sample_work_now */
	uint64_t budget_seq;		/* the window budget_used is of */
	uint64_t budget_used;		/* sample interrupts' TSC ticks in it */
};
static DEFINE_PER_CPU(struct overflow_cpu, overflow_cpu);
static_assert(NR_CPUS <= 256, "perf_event's pending_cpu and throttled_cpu");

static inline struct overflow_cpu *this_ov(void)
{
	return this_cpu_ptr(&overflow_cpu);
}

unsigned long perf_sample_work_now(void)
{
	return READ_ONCE(this_ov()->sample_work);
}

/* The sampling CPU budget, pmuos's own (perf_sample_cpu_max_percent on
 * the command line, default 75; 0 or 100 turns it off): the share of each
 * window that sample interrupts may take, all events together. Past it,
 * an event that overflows is throttled until the next window, as if it had
 * reached the maximum rate. Linux's perf_cpu_time_max_percent bounds the
 * average length of one NMI instead, and its rate limit is per event: a few
 * dozen events each at the maximum rate (or one writing 64 KiB stack
 * dumps) would leave the task no time to run, nor to close them. 75 leaves
 * the task a quarter of the CPU and stays above what one event at the
 * maximum rate takes even under the simulated PMU (some 60%), so a single
 * sampler sees Linux's limits only. */
static unsigned long cpu_max_percent = 75;
static uint64_t budget_tsc;		/* of a window, each CPU's; 0: no budget */

struct perf_sysctl perf_sysctl = {
	.paranoid = 3,
	.mlock_kb = 512 + PAGE_SIZE / 1024,
	.max_stack = PERF_MAX_STACK_DEPTH,
	.max_contexts_per_stack = 8,
	.cpu_time_max_percent = 25,
};

unsigned long perf_max_sample_rate(void)
{
	return max_sample_rate;
}

static void set_rate(unsigned long rate)
{
	max_sample_rate = rate ? rate : 1;
	max_samples_per_window = (max_sample_rate * WINDOW_NS + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
}

int perf_set_max_sample_rate(unsigned long rate)
{
	int pct = perf_sysctl.cpu_time_max_percent;

	if (pct == 0 || pct == 100 || !rate)
		return -EINVAL;
	set_rate(rate);
	return 0;
}

/* ---- throttling ---- */

/* Where e's context runs (perf_event_call): the UNTHROTTLE record beside
 * the other writers of e's ring, and the counter restarted on its PMU. A
 * task's event may have moved on since it was throttled here; its task's
 * other events, or its own samples, may be writing the ring there. */
static void unthrottle_here(void *arg)
{
	struct perf_event *e = arg;

	if (e->hw.interrupts != MAX_INTERRUPTS)
		return;
	e->hw.interrupts = 0;
	perf_log_throttle(e, true);
	if (e->state == PERF_EVENT_STATE_ACTIVE && e->oncpu == smp_processor_id())
		e->pmu->start(e, 0);	/* the counter was kept: seed 004 */
}

/* The timer of the CPU that throttled: its list is its own (the NMI pushes
 * onto it); each event is off it before it is unthrottled elsewhere, so a
 * new throttle there pushes it onto that CPU's list. Interrupt context,
 * kernel lock held (traps.c): perf_event_call's answer holds. */
static void unthrottle(struct timer *t, struct pt_regs *regs)
{
	struct overflow_cpu *ov = this_ov();
	struct perf_event *list = __atomic_exchange_n(&ov->throttled, NULL, __ATOMIC_RELAXED);

	__atomic_fetch_add(&ov->sample_work, 1, __ATOMIC_RELAXED);	/* its cost is sampling's */
	for (struct perf_event *e = list, *next; e; e = next) {
		next = e->throttled_next;
		e->throttled_next = NULL;
		e->throttled_queued = false;
		if (e->hw.interrupts == MAX_INTERRUPTS)
			perf_event_call(e, unthrottle_here, e);
	}
}

static void push_pending(struct perf_event *e);

/* Called from NMI and interrupt context alike: an NMI between the window
 * check and the add may lose its share, erring on the side of sampling;
 * an interrupt the NMI came in counts the NMI's time twice, erring on the
 * side of the task. */
static __always_inline void budget_charge(struct overflow_cpu *ov, uint64_t seq, uint64_t tsc)
{
	if (READ_ONCE(ov->budget_seq) != seq) {
		WRITE_ONCE(ov->budget_used, 0);
		WRITE_ONCE(ov->budget_seq, seq);
	}
	__atomic_fetch_add(&ov->budget_used, tsc, __ATOMIC_RELAXED);
}

void perf_irq_took(unsigned long before, uint64_t tsc)
{
	struct overflow_cpu *ov = this_ov();
	uint64_t seq = rdtsc() / window_tsc;

	if (!budget_tsc || READ_ONCE(ov->sample_work) == before)
		return;
	budget_charge(ov, seq, tsc);
}

void perf_sample_event_took(uint64_t tsc)
{
	struct overflow_cpu *ov = this_ov();
	uint64_t seq = rdtsc() / window_tsc;

	if (budget_tsc)
		budget_charge(ov, seq, tsc);
}

static bool over_budget(struct overflow_cpu *ov, uint64_t seq)
{
	return budget_tsc && READ_ONCE(ov->budget_seq) == seq &&
	       READ_ONCE(ov->budget_used) > budget_tsc;
}

static bool account_interrupt(struct perf_event *e)
{
	struct overflow_cpu *ov = this_ov();
	struct hw_perf_event *hw = &e->hw;
	uint64_t seq = rdtsc() / window_tsc;

	if (hw->interrupts == MAX_INTERRUPTS)
		return true;
	if (seq != hw->interrupts_seq) {
		hw->interrupts_seq = seq;
		hw->interrupts = 0;
	}
	bool spent = over_budget(ov, seq);
	if (++hw->interrupts <= max_samples_per_window && !spent)
		return false;
	hw->interrupts = MAX_INTERRUPTS;
	perf_log_throttle(e, false);
	/* NMI context: a plain push (nothing interrupts an NMI), taken whole
	 * by unthrottle's exchange or unlinked by perf_pending_cancel. Only
	 * unthrottle ends MAX_INTERRUPTS, and takes e off the list then. */
	e->throttled_cpu = smp_processor_id();
	e->throttled_queued = true;
	e->throttled_next = ov->throttled;
	ov->throttled = e;
	ov->unthrottle_wanted = true;
	push_pending(e);		/* run_pending arms the timer */
	return true;
}

/* ---- sample_freq: Linux's perf_adjust_period, smoothed by 1/8 ---- */

static void adjust_period(struct perf_event *e, uint64_t nsec, uint64_t count)
{
	struct hw_perf_event *hw = &e->hw;
	uint64_t freq = e->attr.sample_freq;

	if (!nsec || !freq)
		return;
	uint64_t period = count * NSEC_PER_SEC / (nsec * freq);
	int64_t delta = ((int64_t)period - (int64_t)hw->sample_period + 7) / 8;
	hw->sample_period += delta;
	if (!hw->sample_period)
		hw->sample_period = 1;
}

/* ---- deferred work ---- */

/* NMI-safe push onto the pending list: an NMI can interrupt a push from
 * another context, so the head is swapped with cmpxchg (one CPU: the
 * instruction is atomic with respect to the NMI). */
static void push_pending(struct perf_event *e)
{
	struct overflow_cpu *ov = this_ov();

	if (__atomic_exchange_n(&e->pending_queued, true, __ATOMIC_RELAXED)) {
		/* Queued on another CPU, not yet run there: that CPU's
		 * self-IPI runs it (a moment's delay, as Linux's irq_work
		 * claimed elsewhere). */
		return;
	}
	e->pending_cpu = smp_processor_id();
	struct perf_event *head = READ_ONCE(ov->pending);
	do {
		e->pending_next = head;
	} while (!__atomic_compare_exchange_n(&ov->pending, &head, e, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	apic_send_self(APIC_DM_FIXED, IRQ_VECTOR_PERF_WORK);
}

void perf_pending_work(struct perf_event *e)
{
	e->pending_wakeup = true;
	push_pending(e);
}

/* Signals whose si_codes mean something of their own: F_SETSIG's info
 * says SI_SIGIO there instead of POLL_* (Linux's sig_specific_sicodes). */
static bool specific_codes(int sig)
{
	return sig == SIGILL || sig == SIGFPE || sig == SIGSEGV || sig == SIGBUS ||
	       sig == SIGTRAP || sig == SIGCHLD || sig == SIGPOLL || sig == SIGSYS;
}

/* SIGIO (or F_SETSIG's signal) to the file's owner, if it asked (O_ASYNC).
 * F_SETSIG's signal carries the fd, si_code and si_band; a real-time one
 * that finds its queue full falls back to a plain SIGIO, as on Linux. */
static void send_sigio(struct perf_event *e, int reason)
{
	struct file *f = e->file;
	struct task *t = current;

	if (!f || !t || !(f->flags & FASYNC) || !f->owner_pid)
		return;
	if (f->owner_pid != t->tgid && f->owner_pid != -t->pgid)
		return;
	if (f->sig) {
		siginfo_t info = { .si_signo = f->sig, .si_code = reason };
		if (f->sig != SIGPOLL && specific_codes(f->sig))
			info.si_code = SI_SIGIO;
		info.si_band = reason == POLL_HUP ? POLLHUP | POLLERR : POLLIN | POLLRDNORM;
		for (unsigned fd = 0; fd < NR_FDS; fd++) {
			if (t->fds->file[fd] == f) {
				info.si_fd = fd;
				break;
			}
		}
		if (!signal_send(t, f->sig, &info))
			return;
	}
	signal_send(t, SIGIO, NULL);
}

static void send_sigtrap(struct perf_event *e)
{
	if (!current || e->owner != current || current->exiting)
		return;
	siginfo_t info = { .si_signo = SIGTRAP, .si_code = TRAP_PERF };
	info.si_addr = (void *)e->pending_addr;
	info.si_perf_data = e->attr.sig_data;
	info.si_perf_type = e->attr.type;
	/* Linux 6.1's send_sig_perf: sent, not forced, so a SIGTRAP the task
	 * blocks (a second overflow while its handler runs) waits instead of
	 * killing it, marked as asynchronous. */
	if (current->sig.blocked & sigbit(SIGTRAP))
		info.si_perf_flags = TRAP_PERF_FLAG_ASYNC;
	signal_send(current, SIGTRAP, &info);
}

static void run_pending(struct pt_regs *regs)
{
	struct overflow_cpu *ov = this_ov();
	struct perf_event *list = __atomic_exchange_n(&ov->pending, NULL, __ATOMIC_RELAXED);

	/* Throttled until the next window: the timer queue is not NMI safe. */
	if (__atomic_exchange_n(&ov->unthrottle_wanted, false, __ATOMIC_RELAXED) &&
	    !ov->unthrottle_timer.pending) {
		ov->unthrottle_timer.fn = unthrottle;
		timer_add(&ov->unthrottle_timer, (rdtsc() / window_tsc + 1) * window_tsc);
	}
	for (struct perf_event *e = list, *next; e; e = next) {
		next = e->pending_next;
		e->pending_queued = false;
		if (e->pending_disable) {
			e->pending_disable = false;
			perf_event_disable(e);
		}
		if (e->pending_wakeup) {
			e->pending_wakeup = false;
			sched_wakeup();	/* a poller of the ring may go on now */
			/* taken whole: an NMI may set it again meanwhile */
			int kill = __atomic_exchange_n(&e->pending_kill, 0, __ATOMIC_RELAXED);
			if (kill)
				send_sigio(e, kill);
		}
		if (e->pending_sigtrap) {
			e->pending_sigtrap = false;
			send_sigtrap(e);
		}
	}
}

/* Unlink e from a list an NMI pushes onto (next: the link field's offset).
 * A push changes only the head: the head is unlinked with cmpxchg, and a
 * failed one (a push came) walks again; links past the head are ours. */
static void unlink_pushed(struct perf_event **head, struct perf_event *e, size_t next)
{
#define NEXT(x) ((struct perf_event **)((char *)(x) + next))
	for (;;) {
		struct perf_event *first = READ_ONCE(*head);
		if (first == e) {
			if (__atomic_compare_exchange_n(head, &first, *NEXT(e), false,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
				return;
			continue;
		}
		for (struct perf_event *p = first; p; p = *NEXT(p)) {
			if (*NEXT(p) == e) {
				*NEXT(p) = *NEXT(e);
				return;
			}
		}
		return;
	}
#undef NEXT
}

/* On the CPU whose lists hold e: only that CPU walks them. */
static void cancel_here(void *arg)
{
	struct perf_event *e = arg;
	struct overflow_cpu *ov = this_ov();
	uint64_t flags = irq_save();

	if (e->pending_queued && e->pending_cpu == smp_processor_id()) {
		unlink_pushed(&ov->pending, e, offsetof(struct perf_event, pending_next));
		e->pending_queued = false;
	}
	if (e->throttled_queued && e->throttled_cpu == smp_processor_id()) {
		unlink_pushed(&ov->throttled, e, offsetof(struct perf_event, throttled_next));
		e->throttled_queued = false;
	}
	irq_restore(flags);
}

void __perf_pending_cancel(struct perf_event *e)
{
	/* e is off the PMU: no overflow can queue it from here on. */
	int me = smp_processor_id();

	if (e->pending_queued && e->pending_cpu != me)
		smp_call_function_single(e->pending_cpu, cancel_here, e);
	if (e->throttled_queued && e->throttled_cpu != me)
		smp_call_function_single(e->throttled_cpu, cancel_here, e);
	cancel_here(e);
}

/* ---- the overflow ---- */

int perf_event_overflow_addr(struct perf_event *e, struct pt_regs *regs, uint64_t addr)
{
	struct hw_perf_event *hw = &e->hw;
	int ret = account_interrupt(e);

	__atomic_fetch_add(&this_ov()->sample_work, 1, __ATOMIC_RELAXED);
	if (e->attr.freq) {
		uint64_t now = perf_clock();
		uint64_t delta = now - hw->freq_time_stamp;
		hw->freq_time_stamp = now;
		if (delta > 0 && delta < 2 * WINDOW_NS)
			adjust_period(e, delta, hw->last_period);
	}
	e->pending_kill = POLL_IN;
	if (e->event_limit && --e->event_limit == 0) {
		ret = 1;
		e->pending_kill = POLL_HUP;
		e->pending_disable = true;
		push_pending(e);
	}
	perf_event_output(e, regs, addr);
	/* Linux's overflow path: with a fasync owner, every overflow queues
	 * a wake-up and its signal, ring or none, whatever wakeup_events says
	 * (poll's readiness still follows the ring's rules). */
	struct file *f = READ_ONCE(e->file);
	if (f && (READ_ONCE(f->flags) & FASYNC))
		perf_pending_work(e);
	if (e->attr.sigtrap) {
		e->pending_addr = (e->attr.sample_type & PERF_SAMPLE_ADDR) ? addr : 0;
		e->pending_sigtrap = true;
		push_pending(e);
	}
	return ret;
}

int perf_event_overflow(struct perf_event *e, struct pt_regs *regs)
{
	return perf_event_overflow_addr(e, regs, 0);
}

static void pending_interrupt(struct pt_regs *regs)
{
	run_pending(regs);
}

void perf_overflow_init(void)
{
	set_rate(cmdline_ulong("perf_event_max_sample_rate", max_sample_rate));
	window_tsc = ns_to_tsc(WINDOW_NS);
	cpu_max_percent = cmdline_ulong("perf_sample_cpu_max_percent", cpu_max_percent);
	if (cpu_max_percent && cpu_max_percent < 100)
		budget_tsc = window_tsc * cpu_max_percent / 100;
	irq_register(IRQ_VECTOR_PERF_WORK, pending_interrupt);
}
