/* Self-tests of the per-CPU accessor, the application processors, calls on
 * another CPU and the spinlocks. With -smp 1 they check the one CPU; the
 * suite's smp runs boot 2 and 4 with smp.expect=N on the command line. */
#include "../ktest.h"
#include "../acpi.h"
#include "../apic.h"
#include "../cmdline.h"
#include "../kernel_lock.h"
#include "../nmi.h"
#include "../percpu.h"
#include "../smp.h"
#include "../spinlock.h"
#include "../timer.h"
#include "../x86.h"
#include <asm-generic/errno.h>

KTEST(smp_every_cpu_up)
{
	unsigned long expect = cmdline_ulong("smp.expect", 0);

	if (expect)
		KEXPECT_EQ(nr_cpus, (int)expect);
	if (acpi_madt.found && !cmdline_ulong("maxcpus", 0))
		KEXPECT_EQ(nr_cpus, acpi_madt.nr_cpus);
	for (int i = 0; i < nr_cpus; i++) {
		const struct cpu *c = cpus[i];
		KEXPECT(c && c->self == c && c->id == i && c->online);
		for (int j = 0; j < i; j++)
			KEXPECT(cpus[j]->apic_id != c->apic_id);
	}
	KEXPECT(!cpus[nr_cpus < NR_CPUS ? nr_cpus : 0] || nr_cpus == NR_CPUS);
}

static DEFINE_PER_CPU(long, test_counter);

KTEST(percpu_accessor_is_the_gs_base)
{
	KEXPECT_EQ(rdmsr(MSR_GS_BASE), (uint64_t)this_cpu());
	KEXPECT(this_cpu() == cpus[0] && smp_processor_id() == 0);
	KEXPECT(this_cpu_ptr(&test_counter) == &test_counter);	/* CPU 0's is the image's */
	for (int i = 1; i < nr_cpus; i++)
		KEXPECT(per_cpu_ptr(&test_counter, i) != per_cpu_ptr(&test_counter, i - 1));
}

struct seen {
	int id;
	uint32_t apic_id;
	uint64_t gs_base;
	bool irqs_on;
	long *counter;
};

static void whoami(void *arg)
{
	struct seen *s = arg;

	s->id = smp_processor_id();
	s->apic_id = apic_id();
	s->gs_base = rdmsr(MSR_GS_BASE);
	s->irqs_on = irqs_enabled();
	s->counter = this_cpu_ptr(&test_counter);
	*s->counter += s->id + 1;
}

KTEST(smp_call_runs_on_each_cpu)
{
	for (int i = 0; i < nr_cpus; i++) {
		unsigned long before = smp_calls_taken(i);
		long count = *per_cpu_ptr(&test_counter, i);
		struct seen s = { .id = -1 };
		KEXPECT_EQ(smp_call_function_single(i, whoami, &s), 0);
		KEXPECT_EQ(s.id, i);
		KEXPECT_EQ(s.apic_id, cpus[i]->apic_id);
		KEXPECT_EQ(s.gs_base, (uint64_t)cpus[i]);
		KEXPECT(!s.irqs_on);
		KEXPECT(s.counter == per_cpu_ptr(&test_counter, i));
		KEXPECT_EQ(*per_cpu_ptr(&test_counter, i), count + i + 1);
		KEXPECT_EQ(smp_calls_taken(i), before + (i ? 1 : 0));	/* an IPI, or a direct call */
	}
	KEXPECT_EQ(smp_call_function_single(nr_cpus, whoami, NULL), -ENXIO);
	KEXPECT_EQ(smp_call_function_single(-1, whoami, NULL), -ENXIO);
}

static void read_cr0_here(void *arg)
{
	*(uint64_t *)arg = read_cr0();
}

/* INIT leaves an AP's caches off (CR0.CD and NW set); the trampoline turns
 * them on, as the firmware did for CPU 0. TCG ignores both bits: on a real
 * machine an AP with them set runs at memory speed. */
KTEST(smp_every_cpu_caches_memory)
{
	for (int i = 0; i < nr_cpus; i++) {
		uint64_t cr0 = 0;
		KEXPECT_EQ(smp_call_function_single(i, read_cr0_here, &cr0), 0);
		KEXPECT_EQ(cr0 & (CR0_CD | CR0_NW), 0);
	}
}

/* Each CPU's LAPIC timer runs its own queue: a timer added on a CPU fires
 * there (timer_init_cpu). */
static volatile int timer_fired_on;

static void note_timer_cpu(struct timer *t, struct pt_regs *regs)
{
	timer_fired_on = smp_processor_id();
}

static struct timer cpu_timer = { .fn = note_timer_cpu };

static void add_timer_here(void *arg)
{
	timer_add(&cpu_timer, rdtsc() + 10000);
}

KTEST(smp_timer_fires_on_the_cpu_that_added_it)
{
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		timer_fired_on = -1;
		KEXPECT_EQ(smp_call_function_single(cpu, add_timer_here, NULL), 0);
		uint64_t end = rdtsc() + 100000000, flags = irq_save();
		sti();		/* CPU 0's fires here */
		while (timer_fired_on < 0 && rdtsc() < end)
			pause();
		irq_restore(flags);
		KEXPECT_EQ(timer_fired_on, cpu);
	}
}

KTEST(spinlock_irqsave_restores_the_interrupt_flag)
{
	struct spinlock l = SPINLOCK_INIT("test");

	sti();
	uint64_t flags = spin_lock_irqsave(&l);
	KEXPECT(!irqs_enabled() && spin_is_locked(&l));
	KEXPECT(spin_lock_misuse(&l) != NULL);	/* again on this CPU: LOCK_DEBUG panics */
	spin_unlock_irqrestore(&l, flags);
	KEXPECT(irqs_enabled() && !spin_is_locked(&l));
	cli();
	flags = spin_lock_irqsave(&l);
	spin_unlock_irqrestore(&l, flags);
	KEXPECT(!irqs_enabled());
	sti();
}

/* LOCK_DEBUG's order checker (lockdep.c): an inversion is misuse the first
 * time both orders have been seen, directly or through a third lock, and
 * taken with the checks only (spin_lock would panic). */
KTEST(spinlock_order_inversion_is_misuse)
{
	static struct spinlock a = SPINLOCK_INIT("test order a"),
		b = SPINLOCK_INIT("test order b"), c = SPINLOCK_INIT("test order c"),
		a2 = SPINLOCK_INIT("test order a");
	bool same_class, b_then_a, b_alone, c_then_a, c_then_b, c_then_kernel, c_alone,
		kernel_alone;

	if (!LOCK_DEBUG)
		KSKIP("LOCK_DEBUG=0");
	/* The verdicts are checked once every lock is free again. */
	uint64_t flags = irq_save();
	spin_lock(&a);
	spin_lock(&b);		/* a before b */
	same_class = spin_lock_misuse(&a2) != NULL;
	spin_unlock(&a);	/* out of order */
	spin_lock(&c);		/* b before c, so a before c */
	spin_unlock(&c);
	b_then_a = spin_lock_misuse(&a) != NULL;
	spin_unlock(&b);
	b_alone = spin_lock_misuse(&a) == NULL;
	spin_lock(&c);
	c_then_a = spin_lock_misuse(&a) != NULL;	/* through b */
	c_then_b = spin_lock_misuse(&b) != NULL;
	c_then_kernel = kernel_lock_misuse() != NULL;	/* the kernel lock comes first */
	spin_unlock(&c);
	c_alone = spin_lock_misuse(&c) == NULL;
	kernel_alone = kernel_lock_misuse() == NULL;
	irq_restore(flags);
	KEXPECT(same_class && b_then_a && b_alone && c_then_a && c_then_b);
	KEXPECT(c_then_kernel && c_alone && kernel_alone);
}

/* ---- NMIs: the lock rule, and the paranoid entry's SWAPGS ---- */

static volatile bool nmi_armed;
static struct spinlock nmi_lock = SPINLOCK_INIT("test nmi");
static const char *nmi_misuse;
static struct cpu *nmi_cpu;
static uint64_t nmi_gs_base;

static bool smp_test_nmi(struct pt_regs *regs)
{
	if (!nmi_armed)
		return false;
	nmi_misuse = spin_lock_misuse(&nmi_lock);
	nmi_cpu = this_cpu();
	nmi_gs_base = rdmsr(MSR_GS_BASE);
	nmi_armed = false;
	return true;
}

/* A self-NMI; with user_gs, taken while the CPU runs the kernel with a
 * user GS base (as between SWAPGS and SYSRET), which the NMI entry must
 * see and swap. Interrupts off, nothing in the window reads GS. */
static void raise_nmi(bool user_gs)
{
	static bool registered;

	if (!registered)
		nmi_register(smp_test_nmi);
	registered = true;
	nmi_cpu = NULL;
	nmi_gs_base = 0;
	uint64_t flags = irq_save();
	uint64_t saved = rdmsr(MSR_KERNEL_GS_BASE);
	wrmsr(MSR_KERNEL_GS_BASE, 0x1000);	/* a user address */
	nmi_armed = true;
	if (user_gs)
		__asm__ volatile("swapgs" ::: "memory");
	apic_send_self(APIC_DM_NMI, 0);
	for (int i = 0; i < 1000000 && nmi_armed; i++)
		pause();
	if (user_gs)
		__asm__ volatile("swapgs" ::: "memory");
	wrmsr(MSR_KERNEL_GS_BASE, saved);
	irq_restore(flags);
}

KTEST(spinlock_in_nmi_is_misuse)
{
	raise_nmi(false);
	KEXPECT(!nmi_armed);
	KEXPECT(nmi_misuse != NULL);	/* in_nmi(): spin_lock would panic */
	KEXPECT(spin_lock_misuse(&nmi_lock) == NULL);
}

KTEST(nmi_with_user_gs_base_swaps)
{
	raise_nmi(true);
	KEXPECT(!nmi_armed);
	KEXPECT(nmi_cpu == cpus[0]);
	KEXPECT_EQ(nmi_gs_base, (uint64_t)cpus[0]);
	KEXPECT_EQ(rdmsr(MSR_GS_BASE), (uint64_t)cpus[0]);	/* and swapped back */
}
