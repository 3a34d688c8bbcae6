/* The scheduler: a run queue per CPU, round robin over its tasks in pid
 * order, with Linux's 4 ms tick on a CPU only while more than one of its
 * tasks can run, so a task alone on its CPU sees no interrupt at all. A
 * sleeping task names the condition that makes it runnable again
 * (task_wait); its CPU checks those whenever it picks, and its idle loop
 * (kmain's on CPU 0, smp.c's on the others) halts until an interrupt while
 * nothing can run. A wake-up on one CPU sends the reschedule IPI to every
 * other CPU with a sleeper. A running task is preempted when its tick runs
 * out, or by a sleeper it woke that is well behind it in virtual runtime
 * (below), not by a wake-up nobody waited for.
 *
 * Placement is stay-local: a new task starts on its creator's CPU when its
 * mask allows it (else on the allowed CPU with the fewest tasks). A task
 * moves when its mask (sched_setaffinity) leaves its CPU, or when it waits
 * beside a running task while another CPU idles: that CPU's tick hands it
 * over (balance), or a CPU about to go idle takes it (pull). Measurement
 * first: only a waiting task moves, so a task alone on its CPU is never
 * moved, and a program whose tasks take turns (a parent waiting for its
 * child, a pipe's two ends) runs as with one CPU, the same counts and no
 * migrations; one that wants its threads apart pins them.
 *
 * Locks: the kernel lock (kernel_lock.c) is held through everything here,
 * as by every caller; inside it, tasklist_lock guards the task list's
 * changes and each run queue's lock its queue, so that the scheduler can
 * leave the kernel lock without new races. The switch drops the kernel
 * lock once the outgoing task's stack is saved (context_switch), and a task
 * takes it again where it resumes. */
#include "sched.h"
#include "clock.h"
#include "cpu_stats.h"
#include "entry_work.h"
#include "gdt.h"
#include "kernel_lock.h"
#include "panic.h"
#include "signal.h"
#include "spinlock.h"
#include "task.h"
#include "timer.h"
#include "traps.h"
#include "tsc.h"
#include "apic.h"
#include "x86.h"
#include "mm/uspace.h"
#include "perf/perf.h"
#include "pmu/pmu.h"
#include "pmu/sw.h"
#include <asm-generic/errno.h>

static struct task *tasks;		/* every task, by pid */
static struct spinlock tasklist_lock = SPINLOCK_INIT("task list");

struct rq {
	struct spinlock lock;		/* queue */
	struct task *queue;		/* its tasks by pid, through rq_next: running,
					 * runnable, sleeping and zombies */
	struct timer tick;
	/* Why the next schedule() runs: a wake-up alone may leave the CPU to
	 * the running task; a tick or a yield moves it on, and a tick also
	 * hands a waiting task to an idle CPU (balance). */
	bool wakeup_pending, rotate, balance;
	uint64_t min_vruntime;
};
static DEFINE_PER_CPU(struct rq, runqueues);

static struct rq *cpu_rq(int cpu)
{
	return per_cpu_ptr(&runqueues, cpu);
}

static struct rq *this_rq(void)
{
	return this_cpu_ptr(&runqueues);
}

/* Wake-up preemption as Linux's CFS decides it (check_preempt_wakeup), with
 * the picking itself left round robin: a task's virtual runtime is its CPU
 * time, shifted where it is placed; a new task starts a tick behind its
 * creator (START_DEBIT), a sleeper comes back no more than SLEEPER_CREDIT
 * before the least runnable one of its CPU (GENTLE_FAIR_SLEEPERS), and a
 * woken task takes the CPU only from a task ahead of it by more than
 * WAKEUP_GRAN. So perf stat's parent runs on after waking its new child, and
 * perf record's reader, asleep while its workload ran, gets the CPU at once. */
#define SLEEPER_CREDIT_NS	3000000
#define WAKEUP_GRAN_NS		1000000

static uint64_t vruntime(const struct task *t)
{
	return task_cputime_tsc(t) + t->vruntime_offset;
}

void sched_place_new(struct task *child)
{
	uint64_t v = MAX(vruntime(current), this_rq()->min_vruntime) + ns_to_tsc(TICK_NS);

	child->vruntime_offset = v - task_cputime_tsc(child);
}

static void place_sleeper(struct task *t)
{
	uint64_t min = cpu_rq(t->cpu)->min_vruntime;
	uint64_t floor = min - MIN(min, ns_to_tsc(SLEEPER_CREDIT_NS));

	if (vruntime(t) < floor)
		t->vruntime_offset += floor - vruntime(t);
}

void context_switch(uint64_t *save_rsp, uint64_t load_rsp, uint32_t *unlock);
static void reschedule_interrupt(struct pt_regs *regs);

void sched_init(void)
{
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		cpu_rq(cpu)->lock.name = "run queue";
	irq_register_lockless(IRQ_VECTOR_RESCHEDULE, reschedule_interrupt);
}

/* ---- the run queues ---- */

static void enqueue(struct task *t, int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	uint64_t flags = spin_lock_irqsave(&rq->lock);
	struct task **p = &rq->queue;

	while (*p && (*p)->pid < t->pid)
		p = &(*p)->rq_next;
	t->rq_next = *p;
	*p = t;
	t->cpu = cpu;
	spin_unlock_irqrestore(&rq->lock, flags);
}

static void dequeue(struct task *t)
{
	struct rq *rq = cpu_rq(t->cpu);
	uint64_t flags = spin_lock_irqsave(&rq->lock);

	for (struct task **p = &rq->queue; *p; p = &(*p)->rq_next) {
		if (*p == t) {
			*p = t->rq_next;
			break;
		}
	}
	spin_unlock_irqrestore(&rq->lock, flags);
}

/* t to cpu's queue; that CPU picks it there. */
static void move_to(struct task *t, int cpu)
{
	dequeue(t);
	enqueue(t, cpu);
	t->migrated = true;	/* counted as it comes on (load_task) */
	sched_kick(t);
}

/* Whether a task of cpu's queue is in state. */
static bool queue_has(int cpu, enum task_state state)
{
	struct rq *rq = cpu_rq(cpu);
	bool found = false;
	uint64_t flags = spin_lock_irqsave(&rq->lock);

	for (struct task *t = rq->queue; t && !found; t = t->rq_next)
		found = t->state == state;
	spin_unlock_irqrestore(&rq->lock, flags);
	return found;
}

static int nr_queued(int cpu)
{
	int n = 0;

	for (struct task *t = cpu_rq(cpu)->queue; t; t = t->rq_next)
		n += t->state != TASK_ZOMBIE;
	return n;
}

/* Where a task may go: here if its mask allows, else the allowed CPU with
 * the fewest live tasks (the first of them on a tie). */
static int place(const struct task *t)
{
	int best = -1;

	if (t->cpus_allowed & BIT_ULL(smp_processor_id()))
		return smp_processor_id();
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		if ((t->cpus_allowed & BIT_ULL(cpu)) && (best < 0 || nr_queued(cpu) < nr_queued(best)))
			best = cpu;
	assert(best >= 0);	/* sched_setaffinity keeps an online CPU in every mask */
	return best;
}

void sched_add(struct task *t)
{
	uint64_t flags = spin_lock_irqsave(&tasklist_lock);
	struct task **p = &tasks;

	while (*p && (*p)->pid < t->pid)
		p = &(*p)->next;
	t->next = *p;
	*p = t;
	spin_unlock_irqrestore(&tasklist_lock, flags);
	enqueue(t, place(t));
	sched_kick(t);
}

void sched_remove(struct task *t)
{
	uint64_t flags = spin_lock_irqsave(&tasklist_lock);

	for (struct task **p = &tasks; *p; p = &(*p)->next) {
		if (*p == t) {
			*p = t->next;
			break;
		}
	}
	spin_unlock_irqrestore(&tasklist_lock, flags);
	dequeue(t);
}

struct task *sched_first(void)
{
	return tasks;
}

/* ---- picking ---- */

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

/* prev as a candidate here: on this CPU's queue (not moved away). */
static bool stays(const struct task *prev)
{
	return prev && prev->cpu == smp_processor_id();
}

/* The next task of this CPU's queue to run after prev in pid order, prev
 * itself last; NULL when none can. Counts the runnable ones into *nr. */
static struct task *pick_next(struct task *prev, int *nr)
{
	struct rq *rq = this_rq();
	struct task *first = NULL, *after = NULL;

	*nr = 0;
	spin_lock(&rq->lock);
	for (struct task *t = rq->queue; t; t = t->rq_next) {
		if (t == prev || !ready(t))
			continue;
		++*nr;
		rq->min_vruntime = MAX(rq->min_vruntime,
				       MIN(vruntime(t), stays(prev) ? vruntime(prev) : UINT64_MAX));
		if (!first)
			first = t;
		if (!after && prev && t->pid > prev->pid)
			after = t;
	}
	spin_unlock(&rq->lock);
	if (stays(prev) && ready(prev))
		++*nr;
	if (after)
		return after;
	if (first)
		return first;
	return stays(prev) && prev->state == TASK_RUNNING ? prev : NULL;
}

/* After a wake-up alone: the sleeper furthest behind, if it is more than
 * WAKEUP_GRAN behind prev, else prev. Counts the runnable ones into *nr. */
static struct task *preempting_sleeper(struct task *prev, int *nr)
{
	struct rq *rq = this_rq();
	struct task *next = prev;
	uint64_t limit = vruntime(prev) - MIN(vruntime(prev), ns_to_tsc(WAKEUP_GRAN_NS));

	*nr = 1;
	spin_lock(&rq->lock);
	for (struct task *t = rq->queue; t; t = t->rq_next) {
		bool sleeping = t->state == TASK_SLEEPING;
		if (t == prev || !ready(t))
			continue;
		++*nr;
		/* Only the woken preempt: the others wait for the tick. */
		if (sleeping && vruntime(t) < limit &&
		    (next == prev || vruntime(t) < vruntime(next)))
			next = t;
	}
	spin_unlock(&rq->lock);
	return next;
}

static void on_tick(struct timer *t, struct pt_regs *regs)
{
	this_rq()->rotate = this_rq()->balance = true;
	user_work_resched(true);
}

/* Moves a waiting task of from's queue (runnable, not running there) whose mask
 * allows to, its virtual runtime keeping its distance from its queue's least;
 * returns it, NULL if none. One run queue lock at a time (move_to's too): the
 * kernel lock keeps the queues as they are between them. */
static struct task *move_waiting(int from, const struct task *running, int to)
{
	struct rq *rq = cpu_rq(from);
	struct task *t;

	spin_lock(&rq->lock);
	for (t = rq->queue; t; t = t->rq_next)
		if (t != running && t->state == TASK_RUNNING && (t->cpus_allowed & BIT_ULL(to)))
			break;
	spin_unlock(&rq->lock);
	if (t) {
		t->vruntime_offset += cpu_rq(to)->min_vruntime - rq->min_vruntime;
		move_to(t, to);
	}
	return t;
}

/* Linux's two simplest balancing cases, a CPU with work waiting beside an idle
 * one. From the tick: the tick runs only while two tasks of this CPU can run,
 * so a task alone on its CPU is never balanced (nor interrupted for it). One
 * waiting task (not prev, which runs) goes to the first idle CPU its mask
 * allows. */
static void balance(struct task *prev)
{
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		if (cpu == smp_processor_id() || READ_ONCE(cpus[cpu]->curr) ||
		    queue_has(cpu, TASK_RUNNING))	/* its idle loop is about to run it */
			continue;
		if (move_waiting(smp_processor_id(), prev, cpu))
			return;
	}
}

/* And newly idle (Linux's newidle balance): this CPU's task blocked or exited
 * and nothing else here can run, so it takes one waiting task from the first
 * CPU that has one beside its running task (another CPU's curr changes only
 * under the kernel lock, held here). A task alone on its CPU is never taken
 * (an idle CPU's waiting task is its idle loop's). So a pull needs a task that
 * waits on one CPU while a task of another blocks: a program that pins
 * nothing and whose tasks take turns keeps them all on the CPU they started
 * on (no tick there, so no balance), no other CPU has a task of it to block,
 * and it still runs as with one CPU. */
static struct task *pull(void)
{
	struct task *t = NULL;

	for (int cpu = 0; cpu < nr_cpus && !t; cpu++) {
		struct task *running = READ_ONCE(cpus[cpu]->curr);
		if (cpu != smp_processor_id() && running)
			t = move_waiting(cpu, running, smp_processor_id());
	}
	return t;
}

/* The tick runs only while another task of this CPU waits for it. */
static void arm_tick(int runnable)
{
	struct timer *tick = &this_rq()->tick;

	if (runnable > 1 && !tick->pending) {
		tick->fn = on_tick;
		timer_add(tick, rdtsc() + ns_to_tsc(TICK_NS));
	} else if (runnable <= 1 && tick->pending) {
		timer_del(tick);
	}
}

/* ---- switching ---- */

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
	if (next->migrated) {	/* Linux's: counted by its events, on its new CPU */
		next->migrated = false;
		perf_sw_event(PERF_COUNT_SW_CPU_MIGRATIONS, 1, NULL, 0);
	}
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
	/* Another CPU may pick prev once the kernel lock is free: context_switch
	 * frees it only after prev's stack pointer is saved. */
	uint32_t *unlock = kernel_lock_switch_out();	/* while prev is current */

	unload_task(prev, next);
	load_task(next);
	if (next)
		perf_event_switch(next, prev, false);	/* and in */
	context_switch(prev ? &prev->kernel_rsp : &this_cpu()->idle_rsp,
		       next ? next->kernel_rsp : this_cpu()->idle_rsp, unlock);
	kernel_lock_switch_in();
	/* Back on a CPU: whatever exited meanwhile is off every CPU now. */
	task_reap_dead();
}

/* t to the queue of a CPU its mask allows (place), whose CPU picks it there
 * (after this one has switched away, when t is this CPU's current). */
static void move(struct task *t)
{
	move_to(t, place(t));
}

void schedule(void)
{
	uint64_t flags = irq_save();
	struct task *prev = current;
	struct rq *rq = this_rq();
	int nr;

	assert(kernel_lock_held());
	user_work_resched(false);
	if (prev && prev->state != TASK_ZOMBIE && !(prev->cpus_allowed & BIT_ULL(prev->cpu)))
		move(prev);	/* sched_setaffinity left this CPU out */
	if (rq->balance && nr_cpus > 1)
		balance(stays(prev) ? prev : NULL);
	bool wakeup_only = rq->wakeup_pending && !rq->rotate && stays(prev) &&
			   prev->state == TASK_RUNNING;
	rq->wakeup_pending = rq->rotate = rq->balance = false;
	struct task *next = wakeup_only ? preempting_sleeper(prev, &nr) : pick_next(prev, &nr);
	if (!next && nr_cpus > 1) {
		next = pull();	/* then the one task here that can run */
		nr = next != NULL;
	}
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
		kernel_lock();
		if (done && done(arg))
			break;
		int nr;
		struct task *next = pick_next(NULL, &nr);
		arm_tick(nr);
		if (next) {
			switch_to(NULL, next);
			kernel_unlock();
			continue;
		}
		kernel_unlock();
		/* STI's shadow: no interrupt slips in between the checks and HLT;
		 * a wake-up elsewhere meanwhile is a reschedule IPI that ends it. */
		uint64_t t0 = rdtsc();
		pmu_sim_halt(true);	/* the PMU model counts no halted time */
		sti_hlt();
		pmu_sim_halt(false);
		this_cpu_stats()->idle_tsc += rdtsc() - t0;
	}
	kernel_unlock();
	sti();
}

/* ---- sleeping and waking ---- */

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
	timer_del(&timer);	/* on the CPU that added it, if t moved */
	sti();
	return ret;
}

/* The reschedule IPI: another CPU woke something, or signalled the task
 * running here; the exit work (or the idle loop, which the interrupt ends)
 * looks at this CPU's queue under the kernel lock. */
static void reschedule_interrupt(struct pt_regs *regs)
{
	if (current) {
		this_rq()->wakeup_pending = true;
		user_work_resched(true);
		if (signal_pending(current))
			user_work_signal();
	}
}

void sched_kick(struct task *t)
{
	int cpu = t->cpu;

	if (cpu != smp_processor_id())
		apic_send_ipi(cpus[cpu]->apic_id, APIC_DM_FIXED | IRQ_VECTOR_RESCHEDULE);
}

void sched_wakeup(void)
{
	uint64_t flags = irq_save();

	if (current) {
		this_rq()->wakeup_pending = true;
		user_work_resched(true);
	}
	/* Every other CPU with a sleeper: the wake-up may concern it. */
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		if (cpu != smp_processor_id() && queue_has(cpu, TASK_SLEEPING))
			apic_send_ipi(cpus[cpu]->apic_id, APIC_DM_FIXED | IRQ_VECTOR_RESCHEDULE);
	irq_restore(flags);
}

void sched_yield(void)
{
	this_rq()->rotate = true;
	schedule();
}

/* ---- affinity ---- */

uint64_t cpus_online_mask(void)
{
	return nr_cpus == 64 ? ~0ull : BIT_ULL(nr_cpus) - 1ull;
}

void sched_set_allowed(struct task *t, uint64_t mask)
{
	t->cpus_allowed = mask;
	if (mask & BIT_ULL(t->cpu))
		return;
	if (t == current) {
		schedule();	/* moves it, and on to it on its new CPU */
	} else if (t == cpus[t->cpu]->curr) {
		sched_kick(t);	/* its CPU moves it at its next schedule() */
	} else {
		move(t);
	}
}
