/* The hardware PMU's calls from the rest of the kernel: its init, and the
 * hooks through which the simulated PMU sees privilege changes, halts, IRQs
 * and user RDPMC. Every hook returns at once when the model is not in use. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct pt_regs;

/* Detect the PMU (or take the model), register the "cpu" struct pmu, print
 * one line. The kernel command line's pmu=off disables it, pmu=sim forces
 * the model. */
void x86_pmu_init(void);
/* Hardware counters events hold now (accounting). */
extern long x86_pmu_counters_used;

/* entry.asm, on every entry from user mode with interrupts off: tsc is the
 * TSC of the first kernel instruction. */
void pmu_sim_kernel_entry(uint64_t tsc);
/* entry.asm, as the last C call before SYSRET/IRET to user mode, interrupts
 * off. It leaves the LAPIC arming to the code after it (entry.asm). */
void pmu_sim_user_return(void);
/* traps.c, after each interrupt handler, interrupts off: the model's PMI
 * is delivered here (its timer's interrupt, or an earlier one). */
void pmu_sim_irq_exit(struct pt_regs *regs);
/* task.c, around HLT: halted time is neither ring's. */
void pmu_sim_halt(bool halting);
/* task.c, for an exception from user mode: a user RDPMC the model answers.
 * True if it was emulated (regs advanced past it). */
bool pmu_sim_rdpmc(struct pt_regs *regs);
