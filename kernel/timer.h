/* Tickless timers: one deadline queue on the one-shot LAPIC timer, armed only
 * while a timer is pending. */
#pragma once
#include <stdint.h>
#include <stdbool.h>

struct pt_regs;
struct timer;
/* Runs in interrupt context with interrupts off; may re-add its timer. */
typedef void (*timer_fn_t)(struct timer *t, struct pt_regs *regs);

struct timer {
	uint64_t deadline;	/* TSC value */
	timer_fn_t fn;
	struct timer *next;
	int cpu;		/* whose queue holds it while pending */
	bool pending;
};

/* The queue's interrupt, and this CPU's LAPIC timer in one-shot mode. */
void timer_init(void);
/* Each other CPU's LAPIC timer, on that CPU as it comes up. */
void timer_init_cpu(void);
/* Queue t on this CPU to run at TSC value deadline (re-queues it if already
 * pending, from another CPU's queue too). */
void timer_add(struct timer *t, uint64_t deadline);
void timer_del(struct timer *t);
/* Interrupts the timer handler has taken (for tests). */
extern unsigned long timer_interrupts;
/* Timers queued now (accounting: a timer of a freed object would be one). */
extern long timers_pending;
