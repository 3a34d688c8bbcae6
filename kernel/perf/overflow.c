/* A sampling event's period ran out: throttling above the maximum sample
 * rate (THROTTLE/UNTHROTTLE, stop/start so the counter is kept), sample_freq
 * period adaptation, the REFRESH limit, the sample itself, and the work an
 * NMI must leave for later (SIGIO wake-ups, sigtrap, disabling), run from a
 * self-IPI once interrupts are on again (Linux's irq_work). */
#include "internal.h"
#include "../apic.h"
#include "../cmdline.h"
#include "../fd.h"
#include "../signal.h"
#include "../task.h"
#include "../timer.h"
#include "../traps.h"
#include "../tsc.h"
#include "../x86.h"
#include <asm-generic/fcntl.h>
#include <linux/poll.h>

#define MAX_INTERRUPTS	(~0ull)
/* Linux counts samples per tick; pmuos is tickless, so the same 4 ms
 * windows (HZ=250, Debian's) are kept on the TSC. */
#define WINDOW_NS	4000000ul
#define NSEC_PER_SEC	1000000000ul

static unsigned long max_sample_rate = 100000;	/* perf_event_max_sample_rate */
static unsigned long max_samples_per_window;
static uint64_t window_tsc;
static struct perf_event *throttled;
static struct timer unthrottle_timer;
static struct perf_event *pending;	/* pushed from NMIs: see push_pending */

unsigned long perf_max_sample_rate(void)
{
	return max_sample_rate;
}

/* ---- throttling ---- */

static void unthrottle(struct timer *t, struct pt_regs *regs)
{
	struct perf_event *list = throttled;

	throttled = NULL;
	for (struct perf_event *e = list, *next; e; e = next) {
		next = e->throttled_next;
		e->throttled_next = NULL;
		if (e->hw.interrupts != MAX_INTERRUPTS)
			continue;
		e->hw.interrupts = 0;
		perf_log_throttle(e, true);
		if (e->state == PERF_EVENT_STATE_ACTIVE)
			e->pmu->start(e, 0);	/* the counter was kept: seed 004 */
	}
}

static bool account_interrupt(struct perf_event *e)
{
	struct hw_perf_event *hw = &e->hw;
	uint64_t seq = rdtsc() / window_tsc;

	if (hw->interrupts == MAX_INTERRUPTS)
		return true;
	if (seq != hw->interrupts_seq) {
		hw->interrupts_seq = seq;
		hw->interrupts = 1;
		return false;
	}
	if (++hw->interrupts <= max_samples_per_window)
		return false;
	hw->interrupts = MAX_INTERRUPTS;
	perf_log_throttle(e, false);
	e->throttled_next = throttled;
	throttled = e;
	if (!unthrottle_timer.pending) {
		unthrottle_timer.fn = unthrottle;
		timer_add(&unthrottle_timer, (seq + 1) * window_tsc);
	}
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
	if (__atomic_exchange_n(&e->pending_queued, true, __ATOMIC_RELAXED))
		return;
	struct perf_event *head = READ_ONCE(pending);
	do {
		e->pending_next = head;
	} while (!__atomic_compare_exchange_n(&pending, &head, e, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	apic_send_self(APIC_DM_FIXED, IRQ_VECTOR_PERF_WORK);
}

void perf_pending_work(struct perf_event *e)
{
	e->pending_wakeup = true;
	push_pending(e);
}

/* SIGIO (or F_SETSIG's signal) to the file's owner, if it asked (O_ASYNC). */
static void send_sigio(struct perf_event *e, int reason)
{
	struct file *f = e->file;
	struct task *t = current;

	if (!f || !t || !(f->flags & FASYNC) || !f->owner_pid)
		return;
	if (f->owner_pid != t->pid && f->owner_pid != -t->pid)
		return;
	if (!f->sig) {
		signal_send(t, SIGIO, NULL);
		return;
	}
	siginfo_t info = { .si_signo = f->sig, .si_code = reason };
	info.si_band = reason == POLL_HUP ? POLLHUP | POLLERR : POLLIN | POLLRDNORM;
	for (unsigned fd = 0; fd < NR_FDS; fd++) {
		if (t->fds.file[fd] == f) {
			info.si_fd = fd;
			break;
		}
	}
	signal_send(t, f->sig, &info);
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
	struct perf_event *list = __atomic_exchange_n(&pending, NULL, __ATOMIC_RELAXED);

	for (struct perf_event *e = list, *next; e; e = next) {
		next = e->pending_next;
		e->pending_queued = false;
		if (e->pending_disable) {
			e->pending_disable = false;
			perf_event_disable(e);
		}
		if (e->pending_wakeup) {
			e->pending_wakeup = false;
			if (e->pending_kill)
				send_sigio(e, e->pending_kill);
			e->pending_kill = 0;
		}
		if (e->pending_sigtrap) {
			e->pending_sigtrap = false;
			send_sigtrap(e);
		}
	}
}

void perf_pending_cancel(struct perf_event *e)
{
	uint64_t flags = irq_save();

	if (e->pending_queued) {
		for (struct perf_event **link = &pending; *link; link = &(*link)->pending_next) {
			if (*link == e) {
				*link = e->pending_next;
				break;
			}
		}
		e->pending_queued = false;
	}
	for (struct perf_event **link = &throttled; *link; link = &(*link)->throttled_next) {
		if (*link == e) {
			*link = e->throttled_next;
			break;
		}
	}
	irq_restore(flags);
}

/* ---- the overflow ---- */

int perf_event_overflow_addr(struct perf_event *e, struct pt_regs *regs, uint64_t addr)
{
	struct hw_perf_event *hw = &e->hw;
	int ret = account_interrupt(e);

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
	max_sample_rate = cmdline_ulong("perf_event_max_sample_rate", max_sample_rate);
	if (!max_sample_rate)
		max_sample_rate = 1;
	max_samples_per_window = (max_sample_rate * WINDOW_NS + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	window_tsc = ns_to_tsc(WINDOW_NS);
	irq_register(IRQ_VECTOR_PERF_WORK, pending_interrupt);
}
