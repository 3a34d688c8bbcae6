/* Futexes (Linux's futex(2)): a waiter sleeps on a 32-bit word of its
 * address space while the word holds the value it expects; a wake makes up
 * to n of the word's waiters runnable. Waiters are keyed by (address space,
 * address): private and shared futexes alike, since nothing here shares
 * memory between address spaces but files (a shared file futex would need
 * the file's key: not supported, its waiters only meet within a process). */
#include "futex.h"
#include "clock.h"
#include "sched.h"
#include "syscall.h"
#include "task.h"
#include "tsc.h"
#include "x86.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"
#include "mm/uspace.h"
#include <asm-generic/errno.h>
#include <linux/futex.h>
#include <linux/time.h>
#include <linux/time_types.h>


struct futex_waiter {
	struct futex_waiter *next;
	struct uspace *us;
	uint64_t addr;
	uint32_t bitset;
	bool woken;
};

static struct futex_waiter *waiters;	/* one CPU, interrupts off: no lock */

static bool woken(void *arg)
{
	return ((struct futex_waiter *)arg)->woken;
}

static void unlink_waiter(struct futex_waiter *w)
{
	for (struct futex_waiter **p = &waiters; *p; p = &(*p)->next) {
		if (*p == w) {
			*p = w->next;
			return;
		}
	}
}

int futex_wake_address(struct uspace *us, uint64_t addr, int n, uint32_t bitset)
{
	int done = 0;
	uint64_t flags = irq_save();

	for (struct futex_waiter *w = waiters; w && done < n; w = w->next) {
		if (w->us == us && w->addr == addr && (w->bitset & bitset) && !w->woken) {
			w->woken = true;
			done++;
		}
	}
	if (done)
		sched_wakeup();	/* the woken may run before this returns to user mode */
	irq_restore(flags);
	return done;
}


/* Move up to n waiters of addr to addr2 (REQUEUE); the number moved. */
static int requeue(struct uspace *us, uint64_t addr, uint64_t addr2, int n)
{
	int done = 0;

	for (struct futex_waiter *w = waiters; w && done < n; w = w->next) {
		if (w->us == us && w->addr == addr && !w->woken) {
			w->addr = addr2;
			done++;
		}
	}
	return done;
}

/* A timeout as a TSC deadline: relative (FUTEX_WAIT) or absolute on the
 * clock the flags name (WAIT_BITSET); 0 for none. */
static long deadline_of(long uts, bool absolute, bool realtime, uint64_t *deadline)
{
	struct __kernel_timespec ts;
	uint64_t now;

	*deadline = 0;
	if (!uts)
		return 0;
	if (copy_from_user(&ts, (void *)uts, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || (uint64_t)ts.tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	uint64_t ns = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	if (absolute) {
		clock_read_ns(realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC, &now);
		ns = ns > now ? ns - now : 0;
	}
	*deadline = rdtsc() + ns_to_tsc(ns) + 1;
	return 0;
}

static long futex_wait_restart(struct restart_block *rb);

static long futex_wait(uint64_t uaddr, uint32_t val, uint64_t deadline, uint32_t bitset)
{
	struct futex_waiter w = { .us = current->us, .addr = uaddr, .bitset = bitset };
	uint32_t cur;

	if (!bitset)
		return -EINVAL;
	uint64_t flags = irq_save();
	/* Read and enqueue with interrupts off: no wake can come between. */
	if (get_user(cur, (uint32_t *)uaddr)) {
		irq_restore(flags);
		return -EFAULT;
	}
	if (cur != val) {
		irq_restore(flags);
		return -EAGAIN;
	}
	w.next = waiters;
	waiters = &w;
	irq_restore(flags);
	long r = task_wait(woken, &w, deadline);
	flags = irq_save();
	unlink_waiter(&w);
	irq_restore(flags);
	if (w.woken)
		return 0;
	if (r == -ETIMEDOUT)
		return -ETIMEDOUT;
	if (!deadline)
		return -ERESTARTSYS;	/* restarted after an SA_RESTART handler */
	/* A timed wait goes on to the same deadline only when no handler
	 * runs (restart_syscall), as Linux's futex_wait_restart. */
	current->restart = (struct restart_block){ .fn = futex_wait_restart, .deadline = deadline,
						   .uaddr = uaddr, .val = val, .bitset = bitset };
	return -ERESTART_RESTARTBLOCK;
}

static long futex_wait_restart(struct restart_block *rb)
{
	return futex_wait(rb->uaddr, rb->val, rb->deadline, rb->bitset);
}

/* FUTEX_WAKE_OP: *uaddr2 = op(*uaddr2, oparg); wake uaddr's waiters, and
 * uaddr2's too if the old value passes the comparison. */
static long futex_wake_op(uint64_t uaddr, int n, uint64_t uaddr2, int n2, uint32_t opword)
{
	int op = (opword >> 28) & 7, cmp = (opword >> 24) & 15;
	int oparg = (int)(opword << 8) >> 20, cmparg = (int)(opword << 20) >> 20;
	int old, new;

	if (opword & (FUTEX_OP_OPARG_SHIFT << 28))
		oparg = 1 << (oparg & 31);
	if (get_user(old, (int *)uaddr2))
		return -EFAULT;
	switch (op) {
	case FUTEX_OP_SET: new = oparg; break;
	case FUTEX_OP_ADD: new = old + oparg; break;
	case FUTEX_OP_OR: new = old | oparg; break;
	case FUTEX_OP_ANDN: new = old & ~oparg; break;
	case FUTEX_OP_XOR: new = old ^ oparg; break;
	default: return -ENOSYS;
	}
	bool hit;
	switch (cmp) {
	case FUTEX_OP_CMP_EQ: hit = old == cmparg; break;
	case FUTEX_OP_CMP_NE: hit = old != cmparg; break;
	case FUTEX_OP_CMP_LT: hit = old < cmparg; break;
	case FUTEX_OP_CMP_LE: hit = old <= cmparg; break;
	case FUTEX_OP_CMP_GT: hit = old > cmparg; break;
	case FUTEX_OP_CMP_GE: hit = old >= cmparg; break;
	default: return -ENOSYS;
	}
	if (put_user(new, (int *)uaddr2))
		return -EFAULT;
	int woke = futex_wake_address(current->us, uaddr, n, FUTEX_BITSET_MATCH_ANY);
	if (hit)
		woke += futex_wake_address(current->us, uaddr2, n2, FUTEX_BITSET_MATCH_ANY);
	return woke;
}

long sys_futex(long uaddr, long op, long val, long uts, long uaddr2, long val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	bool realtime = op & FUTEX_CLOCK_REALTIME;
	uint64_t deadline;
	long r;

	if (uaddr & 3)
		return -EINVAL;
	if (realtime && cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET)
		return -ENOSYS;
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		if ((r = deadline_of(uts, cmd == FUTEX_WAIT_BITSET, realtime, &deadline)))
			return r;
		return futex_wait(uaddr, val, deadline,
				  cmd == FUTEX_WAIT ? FUTEX_BITSET_MATCH_ANY : (uint32_t)val3);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		if (cmd == FUTEX_WAKE_BITSET && !val3)
			return -EINVAL;
		return futex_wake_address(current->us, uaddr, val,
					  cmd == FUTEX_WAKE ? FUTEX_BITSET_MATCH_ANY : (uint32_t)val3);
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE: {
		int cur;
		if (uaddr2 & 3)
			return -EINVAL;
		if ((int)val < 0 || (int)uts < 0)
			return -EINVAL;
		if (cmd == FUTEX_CMP_REQUEUE) {
			if (get_user(cur, (int *)uaddr))
				return -EFAULT;
			if (cur != (int)val3)
				return -EAGAIN;
		}
		uint64_t flags = irq_save();
		int woke = futex_wake_address(current->us, uaddr, val, FUTEX_BITSET_MATCH_ANY);
		int moved = requeue(current->us, uaddr, uaddr2, (int)uts);	/* val2 */
		irq_restore(flags);
		return woke + (cmd == FUTEX_CMP_REQUEUE ? moved : 0);
	}
	case FUTEX_WAKE_OP:
		if (uaddr2 & 3)
			return -EINVAL;
		return futex_wake_op(uaddr, val, uaddr2, (int)uts, val3);
	default:
		return -ENOSYS;	/* PI futexes, FUTEX_FD */
	}
}

/* Linux's limit on a robust list's walk: a looped list ends there. */
#define ROBUST_LIST_LIMIT	2048

/* A lock t held when it died: marked FUTEX_OWNER_DIED, one waiter woken,
 * so the next locker learns it (robust pthread mutexes). */
static void robust_release(struct task *t, uint64_t uaddr)
{
	uint32_t word;

	if ((uaddr & 3) || get_user_u32(&word, (const void *)uaddr) ||
	    (word & FUTEX_TID_MASK) != (uint32_t)t->pid)
		return;
	if (put_user((word & FUTEX_WAITERS) | FUTEX_OWNER_DIED, (uint32_t *)uaddr))
		return;
	if (word & FUTEX_WAITERS)
		futex_wake_address(t->us, uaddr, 1, FUTEX_BITSET_MATCH_ANY);
}

void futex_exit_robust_list(struct task *t)
{
	struct robust_list_head head;

	if (!t->robust_list || copy_from_user(&head, (const void *)t->robust_list, sizeof(head)))
		return;
	/* Bit 0 of an entry marks a PI futex; the address is the rest. */
	uint64_t entry = (uint64_t)head.list.next & ~1ul;
	uint64_t pending = (uint64_t)head.list_op_pending & ~1ul;
	for (int n = 0; entry != t->robust_list && n < ROBUST_LIST_LIMIT; n++) {
		uint64_t next;
		if (get_user_u64(&next, (const void *)entry))
			return;
		if (entry != pending)	/* the one in flight: below */
			robust_release(t, entry + head.futex_offset);
		entry = next & ~1ul;
	}
	if (pending)
		robust_release(t, pending + head.futex_offset);
}

long sys_get_robust_list(long pid, long uhead, long ulen)
{
	struct task *t = pid ? task_by_pid((int)pid) : current;

	if (!t)
		return -ESRCH;
	if (put_user((uint64_t)sizeof(struct robust_list_head), (uint64_t *)ulen) ||
	    put_user(t->robust_list, (uint64_t *)uhead))
		return -EFAULT;
	return 0;
}
