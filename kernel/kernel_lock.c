/* The big kernel lock. pmuos's syscall layer, file systems, allocators and
 * task structures were written for one CPU, with interrupts off as their
 * lock; rather than a spinlock in each of them at once, one lock serialises
 * all of that code across CPUs, as Linux 2.0's did: it is taken by every
 * syscall but the lockless ones (syscall.c: getpid, gettid, getcpu, the
 * clock reads, and a perf event's fast read and ioctls of one's own event), by
 * exceptions and interrupts other than NMI, the IPIs and a page fault of
 * anonymous memory (traps.c, mm/anon_fault.c), by the exit work that
 * schedules or delivers signals (entry_work.c) and by the idle loop while
 * it picks a task (sched.c). User code runs on every CPU at
 * once; kernel code of the slow paths one CPU at a time. Per-structure
 * locks replace it piece by piece (README: "SMP").
 *
 * A CPU waiting for it runs the calls other CPUs post to it
 * (smp_poll_calls), so a holder that waits for this CPU by IPI (a remote
 * perf operation, a TLB shootdown) is never stuck behind it. */
#include "kernel_lock.h"
#include "cpu_stats.h"
#include "percpu.h"
#include "smp.h"
#include "spinlock.h"
#include "task.h"
#include "x86.h"

static struct spinlock big_kernel_lock = SPINLOCK_INIT("kernel lock");
bool kernel_lock_on;

void kernel_lock_enable(void)
{
	kernel_lock_on = true;
}

/* Holds of the running context: its task's, or this CPU's idle loop's. */
static int *depth(void)
{
	return current ? &current->kernel_lock_depth : &this_cpu()->idle_lock_depth;
}

/* The kernel lock comes first: taken (again, too) while a spinlock is held,
 * it would wait for a CPU that may wait for that spinlock. */
const char *kernel_lock_misuse(void)
{
	bool mine = READ_ONCE(big_kernel_lock.owner) == smp_processor_id() + 1;

	return lockdep_held() > mine ? "taken while a spinlock is held" : NULL;
}

/* PAUSE also hands QEMU's round robin to the next vCPU (the holder, maybe)
 * at once, where a bare loop would spin out its whole time slice. */
static void acquire(void)
{
	struct cpu_stats *stats = this_cpu_stats();

	stats->kernel_lock_taken++;
	if (spin_trylock(&big_kernel_lock))
		return;
	stats->kernel_lock_contended++;
	while (!spin_trylock(&big_kernel_lock)) {
		smp_poll_calls();
		pause();
	}
}

void kernel_lock(void)
{
	if (!kernel_lock_on)
		return;
	uint64_t flags = irq_save();

	assert(!in_nmi());
	if (LOCK_DEBUG && kernel_lock_misuse())
		panic("kernel lock: %s", kernel_lock_misuse());
	if ((*depth())++ == 0)
		acquire();
	irq_restore(flags);
}

void kernel_unlock(void)
{
	if (!kernel_lock_on)
		return;
	uint64_t flags = irq_save();
	int *d = depth();

	assert(*d > 0);
	if (--*d == 0)
		spin_unlock(&big_kernel_lock);
	irq_restore(flags);
}

bool kernel_lock_held(void)
{
	if (!kernel_lock_on)
		return true;	/* interrupts off are the lock */
	return spin_is_locked(&big_kernel_lock) &&
	       (!LOCK_DEBUG || READ_ONCE(big_kernel_lock.owner) == smp_processor_id() + 1);
}

uint32_t *kernel_lock_switch_out(void)
{
	static uint32_t unused;

	if (!kernel_lock_on)
		return &unused;		/* context_switch's store goes nowhere */
	assert(*depth() > 0 && kernel_lock_held());
	spin_lock_debug_release(&big_kernel_lock);	/* context_switch frees it */
	return &big_kernel_lock.locked;
}

void kernel_lock_switch_in(void)
{
	if (!kernel_lock_on)
		return;
	assert(*depth() > 0);
	acquire();
}
