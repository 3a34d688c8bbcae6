/* Spinlocks that save and restore the interrupt flag (Linux's
 * spin_lock_irqsave), for state more than one CPU touches. With one CPU
 * running tasks, interrupts off is still the kernel's lock; these are for
 * the SMP step, which takes them where this CPU's interrupts-off sections
 * guard shared state today (see the "SMP:" comments).
 *
 * Rules: hold one briefly, never across a sleep or a schedule(); never
 * take one in an NMI (the NMI may have interrupted its holder on the same
 * CPU: a deadlock); NMI paths use per-CPU state or lock-free updates. With
 * LOCK_DEBUG (the Makefile's default) each lock records its owner CPU and
 * every acquisition checks those rules: a lock taken in NMI context, or
 * taken again by the CPU that holds it, panics with the lock's name; so
 * does one taken in an order that inverts one seen before (lockdep.c).
 * A trylock is checked as a lock: pmuos's trylocks are waiting loops. */
#pragma once
#include "kernel.h"
#include "lockdep.h"
#include "panic.h"
#include "percpu.h"
#include "x86.h"

#ifndef LOCK_DEBUG
#define LOCK_DEBUG 1
#endif

struct spinlock {
	uint32_t locked;
	int owner;			/* LOCK_DEBUG: the holder's CPU id + 1, 0: none
					 * (so a zeroed lock, a per-CPU one too, is free) */
	const char *name;		/* what it protects, for the debug messages;
					 * locks of one name are one class of lockdep.c */
	int lock_class;			/* LOCK_DEBUG: lockdep.c's, + 1; 0: not yet */
};

#define SPINLOCK_INIT(lock_name)	{ .name = (lock_name) }

/* The rule this CPU would break by taking l now, or NULL. */
static inline const char *spin_lock_misuse(struct spinlock *l)
{
	if (in_nmi())
		return "taken in NMI context";
	if (READ_ONCE(l->owner) == smp_processor_id() + 1)
		return "taken again by the CPU that holds it";
	return LOCK_DEBUG ? lockdep_order_misuse(l) : NULL;
}

static inline void spin_lock_debug_acquire(struct spinlock *l)
{
	if (LOCK_DEBUG) {
		const char *why = spin_lock_misuse(l);
		if (why)
			panic("spinlock %s: %s", l->name ? l->name : "(unnamed)", why);
	}
}

static inline void spin_lock_debug_acquired(struct spinlock *l)
{
	if (LOCK_DEBUG) {
		WRITE_ONCE(l->owner, smp_processor_id() + 1);
		lockdep_acquired(l);
	}
}

/* What spin_unlock checks and forgets before it frees l (kernel_lock.c's
 * switch frees the kernel lock's word itself). */
static inline void spin_lock_debug_release(struct spinlock *l)
{
	if (LOCK_DEBUG) {
		if (READ_ONCE(l->owner) != smp_processor_id() + 1)
			panic("spinlock %s: released by CPU %d, held by %d",
			      l->name ? l->name : "(unnamed)", smp_processor_id(),
			      READ_ONCE(l->owner) - 1);
		lockdep_released(l);
		WRITE_ONCE(l->owner, 0);
	}
}

/* Interrupts must be off (spin_lock_irqsave is the usual entry). */
static inline void spin_lock(struct spinlock *l)
{
	spin_lock_debug_acquire(l);
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			pause();
	spin_lock_debug_acquired(l);
}

/* Take l if it is free; false if another CPU holds it. */
static inline bool spin_trylock(struct spinlock *l)
{
	spin_lock_debug_acquire(l);
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	spin_lock_debug_acquired(l);
	return true;
}

static inline void spin_unlock(struct spinlock *l)
{
	spin_lock_debug_release(l);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

static inline uint64_t spin_lock_irqsave(struct spinlock *l)
{
	uint64_t flags = irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, uint64_t flags)
{
	spin_unlock(l);
	irq_restore(flags);
}

static inline bool spin_is_locked(const struct spinlock *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED);
}
