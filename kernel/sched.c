/* The scheduler: round robin over every task in pid order, with Linux's
 * 4 ms tick only while more than one task can run, so a task alone on the
 * CPU sees no interrupt at all. A sleeping task names the condition that
 * makes it runnable again (task_wait); the scheduler checks those whenever
 * it picks, and the kernel's own loop (kmain, the idle context) halts until
 * an interrupt while nothing can run. A running task is preempted when its
 * tick runs out, or by a sleeper it woke that is well behind it in virtual
 * runtime (below), not by a wake-up nobody waited for.
 * One CPU: interrupts off is the lock. */
#include "sched.h"
#include "clock.h"
#include "entry_work.h"
#include "gdt.h"
#include "panic.h"
#include "signal.h"
#include "task.h"
#include "timer.h"
#include "tsc.h"
#include "x86.h"
#include "mm/uspace.h"
#include "perf/perf.h"
#include "pmu/pmu.h"
#include "pmu/sw.h"
#include <asm-generic/errno.h>


/* SMP: one list of every task, which is also the run queue, and one tick:
 * the scheduling step gives each CPU its own run queue and tick (per-CPU
 * variables, percpu.h) and a lock for the task list. */
static struct task *tasks;		/* every task, by pid */
static struct timer tick;
/* Why the next schedule() runs: a wake-up alone may leave the CPU to the
 * running task; a tick or a yield moves it on. */
static bool wakeup_pending, rotate;

/* Wake-up preemption as Linux's CFS decides it (check_preempt_wakeup), with
 * the picking itself left round robin: a task's virtual runtime is its CPU
 * time, shifted where it is placed; a new task starts a tick behind its
 * creator (START_DEBIT), a sleeper comes back no more than SLEEPER_CREDIT
 * before the least runnable one (GENTLE_FAIR_SLEEPERS), and a woken task
 * takes the CPU only from a task ahead of it by more than WAKEUP_GRAN. So
 * perf stat's parent runs on after waking its new child, and perf record's
 * reader, asleep while its workload ran, gets the CPU at once. */
#define SLEEPER_CREDIT_NS	3000000
#define WAKEUP_GRAN_NS		1000000
static uint64_t min_vruntime;

static uint64_t vruntime(const struct task *t)
{
	return task_cputime_tsc(t) + t->vruntime_offset;
}

void sched_place_new(struct task *child)
{
	uint64_t v = MAX(vruntime(current), min_vruntime) + ns_to_tsc(TICK_NS);

	child->vruntime_offset = v - task_cputime_tsc(child);
}

static void place_sleeper(struct task *t)
{
	uint64_t floor = min_vruntime - MIN(min_vruntime, ns_to_tsc(SLEEPER_CREDIT_NS));

	if (vruntime(t) < floor)
		t->vruntime_offset += floor - vruntime(t);
}

void context_switch(uint64_t *save_rsp, uint64_t load_rsp);

void sched_add(struct task *t)
{
	struct task **p = &tasks;

	while (*p && (*p)->pid < t->pid)
		p = &(*p)->next;
	t->next = *p;
	*p = t;
}

void sched_remove(struct task *t)
{
	for (struct task **p = &tasks; *p; p = &(*p)->next) {
		if (*p == t) {
			*p = t->next;
			return;
		}
	}
}

struct task *sched_first(void)
{
	return tasks;
}

/* Can t run? A sleeper whose condition now holds, whose deadline passed or
 * that has a signal pending becomes runnable (its task_wait rechecks). */
static bool ready(struct task *t)
{
	if (t->state == TASK_RUNNING)
		return true;
	if (t->state != TASK_SLEEPING)
		return false;
	struct task *saved = current;
	set_current(t);			/* the condition sees its own task */
	bool go = (t->wait_cond && t->wait_cond(t->wait_arg)) ||
		  (t->wait_deadline && rdtsc() >= t->wait_deadline) || signal_pending(t);
	set_current(saved);
	if (go) {
		t->state = TASK_RUNNING;
		place_sleeper(t);
	}
	return go;
}

/* The next task to run after prev in pid order, prev itself last; NULL
 * when none can. Counts the runnable ones into *nr. */
static struct task *pick_next(struct task *prev, int *nr)
{
	struct task *first = NULL, *after = NULL;

	*nr = 0;
	for (struct task *t = tasks; t; t = t->next) {
		if (t == prev || !ready(t))
			continue;
		++*nr;
		min_vruntime = MAX(min_vruntime, MIN(vruntime(t), prev ? vruntime(prev) : UINT64_MAX));
		if (!first)
			first = t;
		if (!after && prev && t->pid > prev->pid)
			after = t;
	}
	if (prev && ready(prev))
		++*nr;
	if (after)
		return after;
	if (first)
		return first;
	return prev && prev->state == TASK_RUNNING ? prev : NULL;
}

/* After a wake-up alone: the sleeper furthest behind, if it is more than
 * WAKEUP_GRAN behind prev, else prev. Counts the runnable ones into *nr. */
static struct task *preempting_sleeper(struct task *prev, int *nr)
{
	struct task *next = prev;
	uint64_t limit = vruntime(prev) - MIN(vruntime(prev), ns_to_tsc(WAKEUP_GRAN_NS));

	*nr = 1;
	for (struct task *t = tasks; t; t = t->next) {
		bool sleeping = t->state == TASK_SLEEPING;
		if (t == prev || !ready(t))
			continue;
		++*nr;
		/* Only the woken preempt: the others wait for the tick. */
		if (sleeping && vruntime(t) < limit &&
		    (next == prev || vruntime(t) < vruntime(next)))
			next = t;
	}
	return next;
}

static void on_tick(struct timer *t, struct pt_regs *regs)
{
	rotate = true;
	user_work_resched(true);
}

static void tick_start(void)
{
	if (!tick.pending) {
		tick.fn = on_tick;
		timer_add(&tick, rdtsc() + ns_to_tsc(TICK_NS));
	}
}

/* The tick runs only while another task waits for the CPU. */
static void arm_tick(int runnable)
{
	if (runnable > 1)
		tick_start();
	else if (tick.pending)
		timer_del(&tick);
}

static void fpu_save(struct task *t)
{
	__asm__ volatile("fxsave64 %0" : "=m"(t->fpu));
}

static void fpu_load(struct task *t)
{
	__asm__ volatile("fxrstor64 %0" : : "m"(t->fpu));
}

/* Put next on the CPU: its address space, stacks, TLS and FPU state. */
static void load_task(struct task *next)
{
	set_current(next);
	if (!next)
		return;
	user_work_signal();	/* the bit is per CPU: look at next's signals */
	uspace_activate(next->us);
	tss_set_rsp0((uint64_t)next->kstack_top);
	this_cpu()->syscall_rsp = (uint64_t)next->kstack_top - 8;	/* the SS slot */
	wrmsr(MSR_FS_BASE, next->fs_base);
	wrmsr(MSR_KERNEL_GS_BASE, next->gs_base);	/* SWAPGS makes it the GS base */
	fpu_load(next);
	next->cputime_base_tsc = rdtsc() - next->sum_exec_tsc;
	perf_event_task_sched_in(next);
}

/* Take prev off the CPU (NULL: the kernel's loop) for next. */
static void unload_task(struct task *prev, struct task *next)
{
	if (!prev)
		return;
	/* Counted while prev's own events are still on the CPU (Linux's
	 * perf_event_task_sched_out): a task's event counts its switches. */
	context_switches++;
	perf_sw_event(PERF_COUNT_SW_CONTEXT_SWITCHES, 1, NULL, 0);
	perf_event_task_sched_out(prev);
	prev->sum_exec_tsc = rdtsc() - prev->cputime_base_tsc;
	fpu_save(prev);
	perf_event_switch(prev, next, true);	/* PERF_RECORD_SWITCH out */
}

static void switch_to(struct task *prev, struct task *next)
{
	unload_task(prev, next);
	load_task(next);
	if (next)
		perf_event_switch(next, prev, false);	/* and in */
	context_switch(prev ? &prev->kernel_rsp : &this_cpu()->idle_rsp,
		       next ? next->kernel_rsp : this_cpu()->idle_rsp);
	/* Back on the CPU: whatever exited meanwhile is off it now. */
	task_reap_dead();
}

void schedule(void)
{
	uint64_t flags = irq_save();
	struct task *prev = current;
	int nr;

	user_work_resched(false);
	bool wakeup_only = wakeup_pending && !rotate && prev && prev->state == TASK_RUNNING;
	wakeup_pending = rotate = false;
	struct task *next = wakeup_only ? preempting_sleeper(prev, &nr) : pick_next(prev, &nr);
	arm_tick(nr);
	if (next != prev)
		switch_to(prev, next);
	irq_restore(flags);
}

void sched_idle(bool (*done)(void *arg), void *arg)
{
	assert(!current);
	for (;;) {
		cli();
		if (done(arg))
			break;
		int nr;
		struct task *next = pick_next(NULL, &nr);
		arm_tick(nr);
		if (next) {
			switch_to(NULL, next);
			continue;
		}
		/* STI's shadow: no interrupt slips in between the checks and HLT. */
		uint64_t t0 = rdtsc();
		pmu_sim_halt(true);	/* the PMU model counts no halted time */
		sti_hlt();
		pmu_sim_halt(false);
		idle_tsc_total += rdtsc() - t0;
	}
	sti();
}

/* A sleeper's deadline passed: it may preempt the running task. */
static void wake(struct timer *t, struct pt_regs *regs)
{
	sched_wakeup();
}

int task_wait(bool (*cond)(void *arg), void *arg, uint64_t deadline)
{
	struct task *t = current;
	struct timer timer = { .fn = wake };
	int ret;

	if (deadline)
		timer_add(&timer, deadline);
	for (;;) {
		cli();
		if (cond && cond(arg)) {
			ret = 0;
			break;
		}
		if (deadline && rdtsc() >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		if (signal_pending(t)) {
			user_work_signal();	/* the exit delivers it (and restarts) */
			ret = -EINTR;
			break;
		}
		t->wait_cond = cond;
		t->wait_arg = arg;
		t->wait_deadline = deadline;
		t->state = TASK_SLEEPING;
		schedule();
		t->state = TASK_RUNNING;
	}
	t->wait_cond = NULL;
	timer_del(&timer);
	sti();
	return ret;
}

void sched_wakeup(void)
{
	uint64_t flags = irq_save();

	if (current) {
		wakeup_pending = true;
		user_work_resched(true);
	}
	irq_restore(flags);
}

void sched_yield(void)
{
	rotate = true;
	schedule();
}

