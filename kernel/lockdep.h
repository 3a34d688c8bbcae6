/* The lock order checker of LOCK_DEBUG (lockdep.c), after Linux's lockdep:
 * spinlock.h calls it on every acquisition and release. */
#pragma once
#include "kernel.h"

struct spinlock;

/* Why taking l now could deadlock against an order seen before (a message
 * naming both locks, in a per-CPU buffer valid until this CPU's next call),
 * or NULL. Records nothing. */
const char *lockdep_order_misuse(struct spinlock *l);
/* l was taken / is released by this CPU: the held stack, and the orders
 * "each held lock before l" into the graph. */
void lockdep_acquired(struct spinlock *l);
void lockdep_released(const struct spinlock *l);
/* Spinlocks this CPU holds now (the kernel lock among them). */
int lockdep_held(void);
