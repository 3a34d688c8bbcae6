/* The big kernel lock: the transitional lock of the slow syscall layer
 * while several CPUs run tasks (kernel_lock.c). */
#pragma once
#include "kernel.h"

/* Off while one CPU runs kernel code: interrupts off are the lock then, as
 * they were before the APs ran tasks, and the fast syscall table calls the
 * handlers themselves. smp_boot_aps turns it on before it starts the first
 * AP (no context holds it then), and it stays on. */
extern bool kernel_lock_on;
void kernel_lock_enable(void);

/* Take / drop the kernel lock, recursively: the count is the running
 * context's (its task's, or the CPU's idle loop's), so an interrupt or
 * exception inside a locked stretch takes it again for free. Any context
 * but NMI; never while holding a spinlock (the kernel lock comes first). */
void kernel_lock(void);
void kernel_unlock(void);
/* LOCK_DEBUG: the rule above this CPU would break by taking it now, or NULL. */
const char *kernel_lock_misuse(void);
/* Whether this CPU holds it. */
bool kernel_lock_held(void);

/* For the scheduler's switch (sched.c): context_switch drops the lock once
 * the outgoing stack is saved (so no other CPU runs the outgoing task on a
 * stack still in use), handing it the lock word; the task it switched to
 * takes it again if it held it when it left. */
uint32_t *kernel_lock_switch_out(void);
void kernel_lock_switch_in(void);
