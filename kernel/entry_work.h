/* The work of kernel entries and exits from and to user mode, to which
 * features subscribe (Linux's enter_from_user_mode/exit_to_user_mode):
 * entry.asm, traps.c and syscall.c call user_entry_work/user_exit_work and
 * name no feature. A subscriber's hooks run only while its bit is on, and
 * with every bit off a syscall takes entry.asm's fast path: no full frame,
 * no C hook on either side. */
#pragma once
#include "kernel.h"

struct pt_regs;

/*
 * A subscriber: the simulated PMU (its privilege split), itrace (its TF),
 * perf (samples of the full user frame). All hooks run with interrupts off.
 *
 * user_entry(regs, tsc)  every entry from user mode but NMIs, before anything
 *                        reads the frame; tsc is the TSC of the entry's first
 *                        kernel instruction (the full-frame paths stamp it).
 * user_exit(regs)        every return to user mode but NMIs', after signal
 *                        delivery, in registration order (the model last:
 *                        entry.asm's exit stamp follows it at once).
 * irq_exit(regs)         after each interrupt handler, before the EOI,
 *                        whatever the bit says (optional).
 * Only user_entry and user_exit need the full frame; with the bit on, every
 * syscall builds it. Around an NMI from user mode only subscribers with
 * nmi set run (no signal is delivered there).
 */
struct entry_work {
	const char *name;
	void (*user_entry)(struct pt_regs *regs, uint64_t tsc);
	void (*user_exit)(struct pt_regs *regs);
	void (*irq_exit)(struct pt_regs *regs);
	bool nmi;			/* its user_entry/user_exit also around NMIs */
	unsigned bit;			/* assigned by entry_work_register */
	struct entry_work *next;
};

/* Subscribe (from the feature's init); its bit starts off. */
void entry_work_register(struct entry_work *w);
/* Turn w's hooks on or off (any context but NMI, interrupts off or on).
 * The syscall entry point follows (MSR_LSTAR: the fast stub while no bit
 * is on), Linux's static keys done with the one MSR that selects it. */
void entry_work_set(struct entry_work *w, bool on);
/* The same on every CPU (by IPI to the others), for a feature whose tasks
 * may run anywhere: not from NMI or interrupt context. */
void entry_work_set_everywhere(struct entry_work *w, bool on);

/* Bits of the CPU's user_work (struct cpu, percpu.h), entry.asm's single
 * test on the fast exit. Features' bits start at ENTRY_WORK_FIRST. Each CPU
 * has its own word and its own MSR_LSTAR: entry_work_set acts on the CPU
 * it runs on (the per-CPU model and itrace's tracer), and
 * entry_work_set_everywhere on all (perf's user frames, whose events' tasks
 * run anywhere). */
#define USER_WORK_SIGNAL	0x1	/* a signal may be deliverable (signal.c) */
#define USER_WORK_RESCHED	0x2	/* the scheduler wants a switch (sched.c) */
#define USER_WORK_EXIT_ONLY	(USER_WORK_SIGNAL | USER_WORK_RESCHED)
#define ENTRY_WORK_FIRST	0x4
/* A signal may have become deliverable to the current task: the next return
 * to user mode takes the slow exit, which delivers it (or finds none and
 * clears the bit). A task switch must call it too: the bit is per CPU. */
void user_work_signal(void);
/* The scheduler asks for a switch on the next return to user mode (on),
 * or has just picked a task (off). */
void user_work_resched(bool on);

/* entry.asm and traps.c: the entry and exit work of the full-frame paths. */
void user_entry_work(struct pt_regs *regs, uint64_t tsc);
void user_exit_work(struct pt_regs *regs);
void irq_exit_work(struct pt_regs *regs);

/*
 * The exit stamp (entry.asm): on each full-frame return to user mode,
 * after user_exit_work, a fixed instruction sequence stores the TSC of the
 * first user instruction in the CPU's user_return_tsc (struct cpu) and,
 * for a one-shot timer that must expire on an exact user instruction, stores
 *   max(1, min(user_return_timer_abs - that TSC, user_return_timer_rel)
 *          + USER_RETURN_AFTER_STORE)
 * into *user_return_timer_reg. user_exit_work points the register at a
 * dummy before the hooks run: a hook that wants the store sets all three.
 */
