/* The subscribers of user-mode entry and exit work, and the syscall entry
 * point that follows them. */
#include "entry_work.h"
#include "kernel_lock.h"
#include "panic.h"
#include "sched.h"
#include "signal.h"
#include "smp.h"
#include "task.h"
#include "traps.h"
#include "percpu.h"
#include "x86.h"

static unsigned next_bit = ENTRY_WORK_FIRST;
static struct entry_work *subscribers;

static uint32_t no_timer;	/* every CPU's dummy: nothing reads it */

void entry_work_register(struct entry_work *w)
{
	assert(next_bit && !w->bit);
	w->bit = next_bit;
	next_bit <<= 1;
	list_append(&subscribers, w, next);
}

/* The entry that builds the full frame while any feature's hooks are on
 * (entry.asm's two stubs); the signal bit only concerns the exit. */
static void select_syscall_entry(void)
{
	extern char syscall_entry[], syscall_entry_full[];
	unsigned work;

	do {	/* an NMI in between may have changed it */
		work = this_cpu()->user_work;
		wrmsr(MSR_LSTAR, (uint64_t)(work & ~USER_WORK_EXIT_ONLY ? syscall_entry_full
								     : syscall_entry));
	} while (work != this_cpu()->user_work);
}

/* Atomic: the PMU's NMI handler turns the model's bit off and on. */
void entry_work_set(struct entry_work *w, bool on)
{
	unsigned old = on ? __atomic_fetch_or(&this_cpu()->user_work, w->bit, __ATOMIC_RELAXED)
			  : __atomic_fetch_and(&this_cpu()->user_work, ~w->bit, __ATOMIC_RELAXED);
	unsigned now = on ? old | w->bit : old & ~w->bit;

	if (!(old & ~USER_WORK_EXIT_ONLY) != !(now & ~USER_WORK_EXIT_ONLY))
		select_syscall_entry();
}

struct set_call {
	struct entry_work *w;
	bool on;
};

static void set_here(void *arg)
{
	struct set_call *c = arg;

	entry_work_set(c->w, c->on);
}

void entry_work_set_everywhere(struct entry_work *w, bool on)
{
	struct set_call c = { w, on };

	for (int cpu = 0; cpu < nr_cpus; cpu++)
		smp_call_function_single(cpu, set_here, &c);
}

void user_work_signal(void)
{
	__atomic_fetch_or(&this_cpu()->user_work, USER_WORK_SIGNAL, __ATOMIC_RELAXED);
}

void user_work_resched(bool on)
{
	if (on)
		__atomic_fetch_or(&this_cpu()->user_work, USER_WORK_RESCHED, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&this_cpu()->user_work, ~USER_WORK_RESCHED, __ATOMIC_RELAXED);
}

void user_entry_work(struct pt_regs *regs, uint64_t tsc)
{
	unsigned work = this_cpu()->user_work;
	bool nmi = regs->vector == X86_TRAP_NMI;

	for (struct entry_work *w = subscribers; w; w = w->next)
		if ((work & w->bit) && w->user_entry && (w->nmi || !nmi))
			w->user_entry(regs, tsc);
}

void user_exit_work(struct pt_regs *regs)
{
	bool nmi = regs->vector == X86_TRAP_NMI;

	bool locked = (this_cpu()->user_work & (USER_WORK_RESCHED | USER_WORK_SIGNAL)) && !nmi;

	if (locked)
		kernel_lock();	/* the scheduler's and the signals' state */
	if ((this_cpu()->user_work & USER_WORK_RESCHED) && !nmi)
		schedule();	/* back here when this task runs again, maybe on another CPU */
	if ((this_cpu()->user_work & USER_WORK_SIGNAL) && !nmi) {
		if (current)
			signal_deliver(regs);	/* and a restart with none to deliver */
		if (!current || !signal_pending(current))
			__atomic_fetch_and(&this_cpu()->user_work, ~USER_WORK_SIGNAL, __ATOMIC_RELAXED);
	}
	if (locked)
		kernel_unlock();
	this_cpu()->user_return_timer_reg = &no_timer;
	for (struct entry_work *w = subscribers; w; w = w->next)
		if ((this_cpu()->user_work & w->bit) && w->user_exit && (w->nmi || !nmi))
			w->user_exit(regs);
}

void irq_exit_work(struct pt_regs *regs)
{
	for (struct entry_work *w = subscribers; w; w = w->next)
		if (w->irq_exit)
			w->irq_exit(regs);
}
