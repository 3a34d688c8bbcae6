/* Tickless timers: a sorted deadline list on the one-shot LAPIC timer (TSC
 * deadline mode where the CPU has it, a count in TSC units otherwise). */
#include "timer.h"
#include "apic.h"
#include "cpu.h"
#include "kernel.h"
#include "percpu.h"
#include "smp.h"
#include "traps.h"
#include "tsc.h"
#include "x86.h"

#define MSR_IA32_TSC_DEADLINE 0x6e0

/* Each CPU's queue, on its own LAPIC timer; a timer is queued and run on
 * one CPU, the one that added it (t->cpu), and only that CPU touches its
 * queue (interrupts off is the queue's lock): another CPU takes a timer
 * off it by IPI (a task that moved deletes the timer it armed before). */
static DEFINE_PER_CPU(struct timer *, timer_queue);

static struct timer **this_queue(void)
{
	return this_cpu_ptr(&timer_queue);
}
unsigned long timer_interrupts;
long timers_pending;

static void arm(void)
{
	const struct timer *queue = *this_queue();

	if (!queue) {
		if (cpu_caps.tsc_deadline)
			wrmsr(MSR_IA32_TSC_DEADLINE, 0);
		else
			apic_write(APIC_TIMER_INIT, 0);
		return;
	}
	if (cpu_caps.tsc_deadline) {
		wrmsr(MSR_IA32_TSC_DEADLINE, queue->deadline);
		return;
	}
	uint64_t now = rdtsc();
	uint64_t delta = queue->deadline > now ? queue->deadline - now : 1;
	uint64_t count = delta * apic_timer_hz / tsc_hz;
	apic_write(APIC_TIMER_INIT, (uint32_t)MAX(1ul, MIN(count, 0xfffffffful)));
}

static void unlink(struct timer *t)
{
	for (struct timer **link = this_queue(); *link; link = &(*link)->next) {
		if (*link == t) {
			*link = t->next;
			break;
		}
	}
	t->pending = false;
	__atomic_fetch_sub(&timers_pending, 1, __ATOMIC_RELAXED);
}

static void del_here(void *arg)
{
	struct timer *t = arg;

	if (t->pending) {
		bool first = *this_queue() == t;
		unlink(t);
		if (first)
			arm();
	}
}

void timer_add(struct timer *t, uint64_t deadline)
{
	uint64_t flags = irq_save();
	struct timer **head = this_queue(), **link = head;

	if (t->pending && t->cpu == smp_processor_id())
		unlink(t);
	else if (t->pending)
		timer_del(t);
	t->cpu = smp_processor_id();
	t->deadline = deadline;
	while (*link && (*link)->deadline <= deadline)
		link = &(*link)->next;
	t->next = *link;
	*link = t;
	t->pending = true;
	__atomic_fetch_add(&timers_pending, 1, __ATOMIC_RELAXED);
	if (*head == t)
		arm();
	irq_restore(flags);
}

void timer_del(struct timer *t)
{
	if (!READ_ONCE(t->pending))
		return;		/* only the timer's owner queues it: no race */
	uint64_t flags = irq_save();

	if (t->cpu == smp_processor_id())
		del_here(t);
	else
		smp_call_function_single(t->cpu, del_here, t);
	irq_restore(flags);
}

static void timer_interrupt(struct pt_regs *regs)
{
	uint64_t now = rdtsc();
	struct timer **head = this_queue();

	__atomic_fetch_add(&timer_interrupts, 1, __ATOMIC_RELAXED);
	while (*head && (*head)->deadline <= now) {
		struct timer *t = *head;
		*head = t->next;
		t->pending = false;
		__atomic_fetch_sub(&timers_pending, 1, __ATOMIC_RELAXED);
		t->fn(t, regs);
	}
	arm();
}

void timer_init(void)
{
	irq_register(IRQ_VECTOR_TIMER, timer_interrupt);
	timer_init_cpu();
}

void timer_init_cpu(void)
{
	if (cpu_caps.tsc_deadline) {
		apic_write(APIC_LVT_TIMER, APIC_TIMER_TSC_DEADLINE | IRQ_VECTOR_TIMER);
	} else {
		apic_write(APIC_TIMER_DIV, APIC_TIMER_DIV_1);
		apic_write(APIC_LVT_TIMER, APIC_TIMER_ONESHOT | IRQ_VECTOR_TIMER);
	}
}
