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

/* task.c, around HLT: halted time is neither ring's. */
void pmu_sim_halt(bool halting);
/* task.c, for an exception from user mode: a user RDPMC the model answers.
 * True if it was emulated (regs advanced past it). */
bool pmu_sim_rdpmc(struct pt_regs *regs);
