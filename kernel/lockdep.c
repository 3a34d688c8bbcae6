/* Lock order checking (LOCK_DEBUG), after Linux's lockdep. Two CPUs that
 * take the same two locks in opposite orders can deadlock, but only when
 * their timing meets; the checker finds the inversion the first time both
 * orders have merely been seen, on any CPUs, at any time.
 *
 * Locks of one name are one class (the run queues of every CPU are one). Each
 * CPU keeps the stack of locks it holds; taking a lock while others are held
 * records "held before taken" for each, and the graph keeps its transitive
 * closure, so a cycle through three classes is an inversion too. Taking a
 * lock whose class is already held (two run queues at once) is one as well:
 * two CPUs may take the pair in opposite orders.
 *
 * Everything here runs with interrupts off (spinlocks are taken so) and
 * never in NMI (spinlock.h refuses locks there), so the per-CPU stack needs
 * no other protection; the graph only grows, and a reader that misses an
 * order being added meanwhile sees it at its next acquisition. */
#include "lockdep.h"
#include "panic.h"
#include "percpu.h"
#include "spinlock.h"
#include "x86.h"
#include "lib/string.h"
#include "lib/vsprintf.h"

#define LOCK_CLASSES	64	/* names; a bit each in the closure's words */
#define HELD_MAX	8	/* locks one CPU holds at once */

struct held_locks {
	int n;
	const struct spinlock *lock[HELD_MAX];
	char why[160];		/* lockdep_order_misuse's message */
};
static DEFINE_PER_CPU(struct held_locks, held);

static const char *class_name[LOCK_CLASSES];
static int nr_classes;
/* Bit j of before[i]: class j has been taken while class i was held,
 * directly or through other classes. */
static uint64_t before[LOCK_CLASSES];
/* Serialises the class table's and the graph's writers; a bare flag, not a
 * struct spinlock, which would check itself. */
static uint32_t graph_busy;

static void graph_lock(void)
{
	while (__atomic_exchange_n(&graph_busy, 1, __ATOMIC_ACQUIRE))
		pause();
}

static void graph_unlock(void)
{
	__atomic_store_n(&graph_busy, 0, __ATOMIC_RELEASE);
}

/* l's class (0-based), found by name once and kept in the lock. */
static int class_of(struct spinlock *l)
{
	int c = READ_ONCE(l->lock_class);

	if (c)
		return c - 1;
	const char *name = l->name ? l->name : "(unnamed)";
	graph_lock();
	for (c = 0; c < nr_classes && strcmp(class_name[c], name); c++)
		;
	if (c == nr_classes) {
		if (nr_classes == LOCK_CLASSES)
			panic("lockdep: more than %d lock names", LOCK_CLASSES);
		class_name[nr_classes++] = name;
	}
	graph_unlock();
	WRITE_ONCE(l->lock_class, c + 1);
	return c;
}

const char *lockdep_order_misuse(struct spinlock *l)
{
	struct held_locks *h = this_cpu_ptr(&held);
	int c = class_of(l);

	for (int i = 0; i < h->n; i++) {
		int hc = h->lock[i]->lock_class - 1;
		if (hc == c) {
			snprintf(h->why, sizeof(h->why), "taken while %s of its class is held",
				 class_name[hc]);
			return h->why;
		}
		if (READ_ONCE(before[c]) & BIT_ULL(hc)) {
			snprintf(h->why, sizeof(h->why),
				 "taken while %s is held, the reverse of an order seen before",
				 class_name[hc]);
			return h->why;
		}
	}
	return NULL;
}

/* Record "a before c", and with it everything before a before all after c. */
static void add_order(int a, int c)
{
	uint64_t after_c = BIT_ULL(c) | before[c];

	for (int x = 0; x < nr_classes; x++)
		if (x == a || (before[x] & BIT_ULL(a)))
			WRITE_ONCE(before[x], before[x] | after_c);
}

void lockdep_acquired(struct spinlock *l)
{
	struct held_locks *h = this_cpu_ptr(&held);
	int c = class_of(l);

	if (h->n == HELD_MAX)
		panic("lockdep: %s taken with %d locks held", class_name[c], HELD_MAX);
	for (int i = 0; i < h->n; i++) {
		int hc = h->lock[i]->lock_class - 1;
		if (!(READ_ONCE(before[hc]) & BIT_ULL(c))) {
			graph_lock();
			add_order(hc, c);
			graph_unlock();
		}
	}
	h->lock[h->n++] = l;
}

void lockdep_released(const struct spinlock *l)
{
	struct held_locks *h = this_cpu_ptr(&held);

	for (int i = h->n - 1; i >= 0; i--) {
		if (h->lock[i] == l) {	/* locks may be released out of order */
			memmove(&h->lock[i], &h->lock[i + 1], (h->n - i - 1) * sizeof(h->lock[0]));
			h->n--;
			return;
		}
	}
	panic("lockdep: %s released but not held by CPU %d", l->name ? l->name : "(unnamed)",
	      smp_processor_id());
}

int lockdep_held(void)
{
	return this_cpu_ptr(&held)->n;
}
