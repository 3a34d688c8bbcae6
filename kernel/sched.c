/* The scheduler: round robin over every task in pid order, with Linux's
 * 4 ms tick only while more than one task can run, so a task alone on the
 * CPU sees no interrupt at all. A sleeping task names the condition that
 * makes it runnable again (task_wait); the scheduler checks those whenever
 * it picks, and the kernel's own loop (kmain, the idle context) halts until
 * an interrupt while nothing can run. A running task is preempted when its
 * tick runs out or a sleeper wakes up, not by a wake-up nobody waited for.
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


struct cpu cpu0;
static struct task *tasks;		/* every task, by pid */
static struct timer tick;
static bool tick_due;			/* the running task's 4 ms are over */
uint64_t syscall_kernel_rsp;		/* entry.asm switches to it on SYSCALL */

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

/* Sleepers ready() made runnable since the last switch. */
static int woken;

/* Can t run? A sleeper whose condition now holds, whose deadline passed or
 * that has a signal pending becomes runnable (its task_wait rechecks). */
static bool ready(struct task *t)
{
	if (t->state == TASK_RUNNING)
		return true;
	if (t->state != TASK_SLEEPING)
		return false;
	struct task *saved = current;
	current = t;			/* the condition sees its own task */
	bool go = (t->wait_cond && t->wait_cond(t->wait_arg)) ||
		  (t->wait_deadline && rdtsc() >= t->wait_deadline) || signal_pending(t);
	current = saved;
	if (go) {
		t->state = TASK_RUNNING;
		woken++;
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

static void on_tick(struct timer *t, struct pt_regs *regs)
{
	tick_due = true;
	user_work_resched(true);
}

/* The tick runs only while another task waits for the CPU. */
static void arm_tick(int runnable)
{
	if (runnable > 1 && !tick.pending) {
		tick.fn = on_tick;
		timer_add(&tick, rdtsc() + ns_to_tsc(TICK_NS));
	} else if (runnable <= 1 && tick.pending) {
		timer_del(&tick);
	}
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
	current = next;
	if (!next)
		return;
	user_work_signal();	/* the bit is per CPU: look at next's signals */
	uspace_activate(next->us);
	tss_set_rsp0((uint64_t)next->kstack_top);
	syscall_kernel_rsp = (uint64_t)next->kstack_top;
	wrmsr(MSR_FS_BASE, next->fs_base);
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
	tick_due = false;		/* next's slice begins */
	woken = 0;
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
	struct task *next = pick_next(prev, &nr);
	arm_tick(nr);
	if (next != prev)
		switch_to(prev, next);
	irq_restore(flags);
}

void sched_preempt(void)
{
	uint64_t flags = irq_save();
	struct task *prev = current;
	int nr;

	if (!prev || prev->state != TASK_RUNNING) {
		irq_restore(flags);
		schedule();
		return;
	}
	user_work_resched(false);
	struct task *next = pick_next(prev, &nr);
	arm_tick(nr);
	/* Two tasks taking turns (a byte each way through pipes) switch when one
	 * waits, not at each write that finds its reader still running. */
	if (next != prev && (tick_due || woken))
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
	user_work_resched(true);
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
	user_work_resched(true);
}

