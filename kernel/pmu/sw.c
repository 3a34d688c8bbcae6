/* The software PMU (type PERF_TYPE_SOFTWARE, "software"): the clocks read
 * the TSC through the perf clock; the other events are counted where they
 * happen (perf_sw_event). Linux 6.1's set (PERF_COUNT_SW_MAX = 12). */
#include "../clock.h"
#include "sw.h"
#include "../task.h"
#include "../traps.h"
#include "../tsc.h"
#include "../x86.h"
#include "../perf/perf.h"
#include <asm-generic/errno.h>

#define MIN_CLOCK_PERIOD_NS	10000	/* Linux's floor for hrtimer sampling */
/* hw.state of a started task-clock of a task (not CPU-wide): sw_read's fast
 * case, told apart in one test. Stopping replaces it. */
#define SW_HES_TASK_CLOCK	0x80

/* Active events by config, so a fault finds its counters at once; each
 * CPU's own, as it counts what runs there. The clocks are read, never
 * counted by perf_sw_event: they are not listed. */
static DEFINE_PER_CPU(struct perf_event *[PERF_COUNT_SW_MAX], active_sw);

/* The clocks' sources, in ns: CPU time for cpu-clock, the task's own time
 * (halted time excluded) for task-clock. A CPU-wide task-clock follows no
 * task: like Linux's (its context's time), it counts while it is enabled,
 * as cpu-clock does. */
static __always_inline uint64_t clock_now(const struct perf_event *e)
{
	if (e->attr.config == PERF_COUNT_SW_CPU_CLOCK || !e->target_pid)
		return perf_clock();
	if (!current)
		return 0;
	return clock_cycles_to_ns(task_cputime_tsc(current));
}

static bool is_clock(const struct perf_event *e)
{
	return e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
	       e->attr.config == PERF_COUNT_SW_TASK_CLOCK;
}

static int sw_event_init(struct perf_event *e)
{
	if (e->attr.type != PERF_TYPE_SOFTWARE)
		return -ENOENT;
	if (e->attr.config >= PERF_COUNT_SW_MAX)
		return -ENOENT;
	if (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;	/* no branch sampling for software events */
	/* The clocks sample on a timer with a fixed period: Linux turns
	 * sample_freq into a period once, at open. */
	if (is_clock(e) && e->attr.freq && e->attr.sample_freq) {
		e->attr.sample_period = NSEC_PER_SEC / e->attr.sample_freq;
		e->attr.freq = 0;
		e->hw.sample_period = e->attr.sample_period;
		e->hw.last_period = e->hw.sample_period;
	}
	e->hw.period_left = e->hw.sample_period;
	return 0;
}

/* Fold a clock's time into e->count. An NMI's sample (a group read) may
 * fold the same clock between our read and our store: the cmpxchg on
 * prev_count makes one of them take each interval, as x86's update does. */
static __attribute__((noinline)) void sw_read_clock(struct perf_event *e)
{
	if (!is_clock(e) || (e->hw.state & PERF_HES_STOPPED))
		return;
	uint64_t prev = __atomic_load_n(&e->hw.prev_count, __ATOMIC_RELAXED), now;

	do {
		now = clock_now(e);
	} while (!__atomic_compare_exchange_n(&e->hw.prev_count, &prev, now, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	__atomic_fetch_add(&e->count, now - prev, __ATOMIC_RELAXED);
}

/* The common case first, without clock_now's tests: a running task-clock of
 * a task (one test: sw_start's marker). Inline in sw_stop too, so that
 * removing a task-clock calls nothing. */
static __always_inline void __sw_read(struct perf_event *e)
{
	/* A task's event runs only while its task is current. */
	if (likely(e->hw.state == SW_HES_TASK_CLOCK)) {
		uint64_t prev = __atomic_load_n(&e->hw.prev_count, __ATOMIC_RELAXED), now;
		do {
			now = clock_cycles_to_ns(task_cputime_tsc(current));
		} while (!__atomic_compare_exchange_n(&e->hw.prev_count, &prev, now, false,
						      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
		__atomic_fetch_add(&e->count, now - prev, __ATOMIC_RELAXED);
		return;
	}
	sw_read_clock(e);
}

static void sw_read(struct perf_event *e)
{
	__sw_read(e);
}

static uint64_t clock_period_tsc(const struct perf_event *e)
{
	return ns_to_tsc(MAX(e->hw.sample_period, (uint64_t)MIN_CLOCK_PERIOD_NS));
}

/* The sampling timer of cpu-clock and task-clock: a sample from whatever
 * the timer interrupted, unless that privilege level is excluded. */
static void clock_tick(struct timer *t, struct pt_regs *regs)
{
	struct perf_event *e = container_of(t, struct perf_event, hw.timer);
	bool user = user_mode(regs);
	unsigned long work = perf_sample_work_now();
	uint64_t start = rdtsc();

	sw_read(e);
	if (!(user ? e->attr.exclude_user : e->attr.exclude_kernel) &&
	    perf_event_overflow(e, regs)) {
		perf_irq_took(work, rdtsc() - start);
		return;		/* throttled: unthrottling starts the timer again */
	}
	/* Missed periods are skipped, as Linux's hrtimer_forward_now does: a
	 * tick that took longer than the period (a big sample, other timers)
	 * must not make the next one due at once, or the ticks would take all
	 * of the CPU and the task would never run again. */
	uint64_t period = clock_period_tsc(e), now = rdtsc(), next = t->deadline + period;
	if (next <= now)
		next += (now - next) / period * period + period;
	timer_add(t, next);
	perf_irq_took(work, rdtsc() - start);	/* the sampling budget: its handler's time */
}

/* Apart from sw_start: a counting clock's start then saves no registers. */
static __attribute__((noinline)) void clock_start_timer(struct perf_event *e)
{
	e->hw.timer.fn = clock_tick;
	timer_add(&e->hw.timer, rdtsc() + clock_period_tsc(e));
}

static __always_inline void sw_start(struct perf_event *e, int flags)
{
	if (!is_clock(e)) {
		e->hw.state = 0;
		return;
	}
	e->hw.prev_count = clock_now(e);
	bool task_clock = e->attr.config == PERF_COUNT_SW_TASK_CLOCK && e->target_pid;
	e->hw.state = task_clock ? SW_HES_TASK_CLOCK : 0;
	if (is_sampling_event(e))
		clock_start_timer(e);	/* interrupts are off: no tick before the state */
}

static __always_inline void sw_stop(struct perf_event *e, int flags)
{
	if (is_clock(e) && READ_ONCE(e->hw.timer.pending))	/* a sampling clock's */
		timer_del(&e->hw.timer);
	if (flags & PERF_EF_UPDATE)
		__sw_read(e);
	e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int sw_add(struct perf_event *e, int flags)
{
	if (!is_clock(e)) {
		struct perf_event **head = &(*this_cpu_ptr(&active_sw))[e->attr.config];
		e->active_next = *head;
		*head = e;
	}
	e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		sw_start(e, PERF_EF_RELOAD);
	return 0;	/* software events never fail to schedule */
}

static void sw_del(struct perf_event *e, int flags)
{
	sw_stop(e, PERF_EF_UPDATE);
	if (is_clock(e))
		return;
	for (struct perf_event **link = &(*this_cpu_ptr(&active_sw))[e->attr.config]; *link;
	     link = &(*link)->active_next) {
		if (*link == e) {
			*link = e->active_next;
			break;
		}
	}
	e->active_next = NULL;
}

void perf_swevent_overflow(struct perf_event *e, uint64_t n, struct pt_regs *regs, uint64_t addr)
{
	struct hw_perf_event *hw = &e->hw;

	hw->period_left -= n;
	while (hw->period_left <= 0) {
		hw->period_left += hw->sample_period;
		hw->last_period = hw->sample_period;
		if (hw->interrupts == ~0ull || perf_event_overflow_addr(e, regs, addr))
			break;
	}
}

void perf_sw_event(unsigned id, uint64_t n, struct pt_regs *regs, uint64_t addr)
{
	bool user = regs && user_mode(regs);

	for (struct perf_event *e = (*this_cpu_ptr(&active_sw))[id], *next; e; e = next) {
		next = e->active_next;	/* an overflow may disable e */
		if (e->hw.state & PERF_HES_STOPPED)
			continue;
		if (user ? e->attr.exclude_user : e->attr.exclude_kernel)
			continue;
		e->count += n;
		if (is_sampling_event(e) && regs)
			perf_swevent_overflow(e, n, regs, addr);
	}
}

static struct pmu sw_pmu = {
	.name = "software",
	.type = PERF_TYPE_SOFTWARE,
	.event_init = sw_event_init,
	.add = sw_add,
	.del = sw_del,
	.start = sw_start,
	.stop = sw_stop,
	.read = sw_read,
};

void sw_pmu_init(void)
{
	perf_pmu_register(&sw_pmu);
}
