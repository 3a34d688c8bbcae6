/* Per-CPU state, reached through one accessor. One CPU today; the SMP work
 * makes this_cpu() read the GS base, and nothing else changes. */
#pragma once
#include "kernel.h"

struct task;

struct cpu {
	struct task *curr;		/* the running task; NULL: the kernel's own loop */
	uint64_t idle_rsp;		/* the scheduler loop's stack while a task runs */
};

extern struct cpu cpu0;

static inline struct cpu *this_cpu(void)
{
	return &cpu0;
}

#define current (this_cpu()->curr)
