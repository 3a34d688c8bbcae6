/* Private to the simulated PMU: sim.c (its registers) and sim_split.c (rings,
 * halts, the PMI timer, RDPMC), and to its self-tests. */
#pragma once
#include "internal.h"
#include "../nmi.h"
#include "../percpu.h"
#include "../timer.h"

#define SIM_GP		4
#define SIM_FIXED	3
#define SIM_COUNTERS	(SIM_GP + SIM_FIXED)	/* count[]: GP 0-3, then fixed 0-2 */
#define SIM_WIDTH	48
#define SIM_MASK	(BIT_ULL(SIM_WIDTH) - 1)

enum { RING_KERNEL, RING_USER, RINGS };
/* A user frame's registers that an instruction may change: the 15 GPRs,
 * RIP, RFLAGS and RSP. */
#define SIM_FRAME_WORDS	18

struct sim {
	/* the registers */
	uint64_t eventsel[SIM_GP];
	uint64_t count[SIM_COUNTERS];
	uint64_t fixed_ctrl, global_ctrl, global_status;
	uint8_t rings[SIM_COUNTERS];	/* what they say, for sim_counter_rings */
	uint8_t pmi_counters;		/* ... and for sim_counter_pmi */
	/* instructions (TSC ticks) seen in each ring; the kernel's up to since */
	uint64_t ticks[RINGS];
	uint64_t since;			/* TSC where the running kernel stretch began */
	bool in_user;			/* returned to user mode and not back yet */
	bool halted;
	bool delivering;		/* halted while its interrupt delivers a user-mode PMI */
	uint64_t synced[RINGS];		/* ticks[] when the counters last caught up */
	uint64_t sync_tsc;		/* the TSC of that catch-up */
	/* the PMI */
	bool pmi_pending;		/* an overflow with its interrupt enabled */
	nmi_handler_t pmi;		/* x86_pmu_handle_irq; tests swap it */
	struct timer timer;		/* due at the next overflow */
	uint64_t target;		/* kernel mode: the TSC the PMI must land on, 0: none */
	volatile uint32_t *lapic_timer_init;	/* APIC_TIMER_INIT, NULL in x2APIC mode */
	/* the sampling budget's share of the model's own interrupts (sim_split.c) */
	bool idle;			/* halted in the idle loop */
	bool watch_return;		/* the next user entry compares its frame */
	uint64_t return_frame[SIM_FRAME_WORDS];	/* with the last return's registers */
	uint64_t charge_from;		/* TSC the running interrupt's charge starts at, 0: none */
};
/* Each vCPU's model (a per-CPU variable: the registers of a real PMU are
 * per core), each powered up by its own CPU (x86_pmu_init_cpu). */
DECLARE_PER_CPU(struct sim, sim_state);

static inline struct sim *this_sim(void)
{
	return this_cpu_ptr(&sim_state);
}

/* GLOBAL_STATUS/CTRL's bit for counter c (an index of count[]). */
uint64_t sim_status_bit(int c);
/* The rings counter c counts in (bit RING_*), 0 while it does not count. */
unsigned sim_counter_rings(int c);
/* c counts and interrupts on overflow. */
bool sim_counter_pmi(int c);
/* Counted events until c wraps to 0 (at least 1). */
uint64_t sim_ticks_to_overflow(int c);
/* Kernel instructions seen up to the TSC now (kernel mode). */
uint64_t sim_kernel_ticks(uint64_t now);
/* Bring the counters up to the TSC now: overflows set their status bits and,
 * with their interrupt on, pmi_pending. Kernel mode, interrupts off. */
void sim_sync(uint64_t now);
/* Before the registers are read or written: the clock runs again if the
 * model's entry work was off (sim_split.c). */
void sim_wake(uint64_t now);
/* After they changed: the entry work on while a counter counts. */
void sim_update_work(void);
/* Time the PMI for kernel mode after the registers or the rings changed;
 * a pending PMI is due at once (sim_split.c). */
void sim_rearm(void);
