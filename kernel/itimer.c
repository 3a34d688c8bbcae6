/* A process's timers: alarm and the interval timers (ITIMER_REAL sends
 * SIGALRM; ITIMER_VIRTUAL and ITIMER_PROF count the process's CPU time),
 * and POSIX timers (timer_create ... timer_delete) on CLOCK_REALTIME,
 * CLOCK_MONOTONIC, CLOCK_BOOTTIME and the CPU-time clocks of the process and
 * of the creating thread. Each armed timer is one entry of the deadline
 * queue, so a process with none armed sees no interrupt (a CPU-time one's
 * entry is where the time would be reached if its task ran alone, and looks
 * again from there); they fire in interrupt context and queue their signal
 * there. POSIX timers go at exec, all of
 * them at the process's end (Linux's exit_itimers). */
#include "itimer.h"
#include "clock.h"
#include "panic.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "task.h"
#include "timer.h"
#include "tsc.h"
#include "x86.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <linux/time.h>
#include <linux/time_types.h>

#define NSEC_PER_USEC	1000ul

struct itimer {
	struct timer timer;		/* armed: the queue's entry */
	struct proc_timers *owner;
	int which;			/* ITIMER_*, or -1 for a POSIX timer */
	uint64_t expires;		/* REAL, POSIX: TSC; VIRTUAL, PROF: CPU TSC */
	uint64_t interval;		/* TSC cycles; 0: one shot */
	uint64_t interval_ns;		/* as set, for get*time */
	bool armed;
	/* POSIX timers */
	struct itimer *next;
	int id, clock, notify, signo, tid;
	int cpu_tid;			/* CLOCK_THREAD_CPUTIME_ID: whose */
	uint64_t value;			/* sigev_value */
	int overrun, overrun_last;
};

struct proc_timers {
	struct task *leader;
	struct itimer it[3];		/* ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF */
	struct itimer *posix;
};

long posix_timers_alive;

/* Who takes a process-directed signal: the leader, or a live thread. */
static struct task *signal_target(struct task *leader)
{
	if (leader->state != TASK_ZOMBIE)
		return leader;
	for (struct task *t = sched_first(); t; t = t->next)
		if (t->tgid == leader->tgid && t->state != TASK_ZOMBIE)
			return t;
	return NULL;
}

/* Does it count CPU time: VIRTUAL, PROF, a POSIX timer on a CPU clock? */
static bool counts_cpu(const struct itimer *it)
{
	return it->which > ITIMER_REAL ||
	       (it->which < 0 && (it->clock == CLOCK_PROCESS_CPUTIME_ID ||
				  it->clock == CLOCK_THREAD_CPUTIME_ID));
}

/* Its clock now: the TSC, or the CPU time of its process or thread (false:
 * the thread is gone, and the timer can never fire). */
static bool clock_now(const struct itimer *it, uint64_t *now)
{
	if (!counts_cpu(it)) {
		*now = rdtsc();
		return true;
	}
	if (it->which < 0 && it->clock == CLOCK_THREAD_CPUTIME_ID) {
		struct task *t = task_by_pid(it->cpu_tid);
		if (!t || t->tgid != it->owner->leader->tgid || t->state == TASK_ZOMBIE)
			return false;
		*now = task_cputime_tsc(t);
		return true;
	}
	*now = task_process_cputime_tsc(it->owner->leader);
	return true;
}

static void fire(struct itimer *it);

static void on_timer(struct timer *t, struct pt_regs *regs)
{
	fire(container_of(t, struct itimer, timer));
}

/* Queue the interrupt for it's expiry: REAL and POSIX at the time itself,
 * CPU timers when the CPU time would get there if the process ran alone. */
static void schedule_irq(struct itimer *it)
{
	uint64_t now = rdtsc(), cpu;

	it->timer.fn = on_timer;
	if (!counts_cpu(it)) {
		timer_add(&it->timer, it->expires);
		return;
	}
	if (!clock_now(it, &cpu))
		return;			/* its thread is gone: never */
	timer_add(&it->timer, now + (it->expires > cpu ? it->expires - cpu : 0));
}

static void disarm(struct itimer *it)
{
	if (it->armed)
		timer_del(&it->timer);
	it->armed = false;
}

/* missed: periods passed unseen before this expiry (overruns). */
static void send(struct itimer *it, uint64_t missed)
{
	static const int itimer_signal[] = { SIGALRM, SIGVTALRM, SIGPROF };
	struct task *leader = it->owner->leader, *t;
	siginfo_t info = { 0 };

	if (it->which >= 0) {
		info.si_signo = itimer_signal[it->which];
		info.si_code = SI_KERNEL;
		t = signal_target(leader);
	} else {
		if (it->notify == SIGEV_NONE)
			return;
		t = (it->notify & SIGEV_THREAD_ID) ? task_by_pid(it->tid) : signal_target(leader);
		if (!t || t->state == TASK_ZOMBIE || t->tgid != leader->tgid)
			return;
		siginfo_t *queued = &t->sig.info[it->signo];
		if ((t->sig.pending & sigbit(it->signo)) && queued->si_code == SI_TIMER &&
		    queued->si_tid == it->id) {
			/* still queued: an overrun, which the queued signal carries */
			it->overrun = MIN(it->overrun + 1 + missed, (uint64_t)INT32_MAX);
			queued->si_overrun = it->overrun_last = it->overrun;
			return;
		}
		it->overrun_last = it->overrun = MIN(missed, (uint64_t)INT32_MAX);
		info.si_signo = it->signo;
		info.si_code = SI_TIMER;
		info.si_tid = it->id;
		info.si_overrun = it->overrun_last;
		info.si_value.sival_ptr = (void *)it->value;
	}
	if (!t)
		return;
	signal_send(t, info.si_signo, &info);
	sched_wakeup();
}

/* Interrupt context: the expiry, or (CPU timers) a look whether it came. */
static void fire(struct itimer *it)
{
	uint64_t now;

	if (!clock_now(it, &now))
		return;				/* its thread is gone */
	if (now < it->expires) {		/* CPU timers: not yet */
		schedule_irq(it);
		return;
	}
	uint64_t missed = 0;
	if (it->interval) {
		/* Periods missed while late count as overruns (POSIX). */
		missed = (now - it->expires) / it->interval;
		it->expires += (missed + 1) * it->interval;
	} else {
		it->armed = false;
	}
	send(it, missed);
	if (it->armed)
		schedule_irq(it);
}

static uint64_t current_time(const struct itimer *it)
{
	uint64_t now = 0;

	clock_now(it, &now);
	return now;
}

/* value: the time until expiry in ns (0: disarm), interval in ns. */
static void arm(struct itimer *it, uint64_t value_ns, uint64_t interval_ns)
{
	uint64_t flags = irq_save();

	disarm(it);
	it->interval = ns_to_tsc(interval_ns);
	it->interval_ns = interval_ns;
	it->overrun = it->overrun_last = 0;
	if (value_ns && it->which > ITIMER_REAL)
		value_ns += TICK_NS;		/* as Linux's set_cpu_itimer */
	if (value_ns) {
		it->expires = current_time(it) + ns_to_tsc(value_ns);
		it->armed = true;
		if (it->which >= 0 || it->notify != SIGEV_NONE)
			schedule_irq(it);
	}
	irq_restore(flags);
}

/* The time left in ns: 0 when disarmed; a SIGEV_NONE timer moves on by
 * its periods as Linux's does when read. */
static uint64_t time_left(struct itimer *it)
{
	if (!it->armed)
		return 0;
	uint64_t now = current_time(it);
	if (now >= it->expires) {
		if (it->which < 0 && it->notify == SIGEV_NONE) {
			if (!it->interval) {
				it->armed = false;
				return 0;
			}
			it->expires += ((now - it->expires) / it->interval + 1) * it->interval;
		} else {
			/* due this instant: Linux shows a little time left */
			return it->which == ITIMER_REAL ? NSEC_PER_USEC : it->which > 0 ? TICK_NS : 1;
		}
	}
	uint64_t ns = tsc_to_ns(it->expires - now);
	return ns ? ns : 1;
}

static struct proc_timers *timers_of(struct task *t)
{
	struct task *leader = t->leader;

	if (!leader->timers && (leader->timers = kzalloc(sizeof(*leader->timers)))) {
		struct proc_timers *pt = leader->timers;
		pt->leader = leader;
		for (int i = 0; i < 3; i++)
			pt->it[i] = (struct itimer){ .owner = pt, .which = i };
	}
	return leader->timers;
}

/* Free the process's timer state when nothing in it is in use, so that
 * the heap returns to its baseline (the accounting file) once a program's
 * timers are gone. Syscall context. */
static void timers_trim(struct task *t)
{
	struct proc_timers *pt = t->leader->timers;
	uint64_t flags = irq_save();

	if (pt && !pt->posix) {
		bool idle = true;
		for (int i = 0; i < 3; i++)
			idle &= !pt->it[i].armed && !pt->it[i].interval_ns;
		if (idle) {
			t->leader->timers = NULL;
			kfree(pt);
		}
	}
	irq_restore(flags);
}

static void posix_free(struct itimer *it)
{
	disarm(it);
	kfree(it);
	posix_timers_alive--;
}

void itimers_exec(struct task *t)
{
	struct proc_timers *pt = t->leader->timers;

	if (!pt)
		return;
	uint64_t flags = irq_save();
	while (pt->posix) {
		struct itimer *it = pt->posix;
		pt->posix = it->next;
		posix_free(it);
	}
	irq_restore(flags);
}

void itimers_exit(struct task *leader)
{
	struct proc_timers *pt = leader->timers;

	if (!pt)
		return;
	itimers_exec(leader);
	uint64_t flags = irq_save();
	for (int i = 0; i < 3; i++)
		disarm(&pt->it[i]);
	irq_restore(flags);
	leader->timers = NULL;
	kfree(pt);
}

/* ---- alarm, setitimer, getitimer ---- */

static uint64_t tv_ns(const struct __kernel_old_timeval *tv)
{
	return tv->tv_sec * NSEC_PER_SEC + tv->tv_usec * NSEC_PER_USEC;
}

static struct __kernel_old_timeval ns_tv(uint64_t ns)
{
	return (struct __kernel_old_timeval){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC / NSEC_PER_USEC };
}

static bool tv_valid(const struct __kernel_old_timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < 1000000;
}

static void get_itimer(struct itimer *it, struct __kernel_old_itimerval *v)
{
	uint64_t flags = irq_save();

	v->it_value = ns_tv(time_left(it));
	v->it_interval = ns_tv(it->interval_ns);
	irq_restore(flags);
}

long sys_getitimer(long which, long uvalue)
{
	struct __kernel_old_itimerval v;
	struct proc_timers *pt;

	if (which < ITIMER_REAL || which > ITIMER_PROF)
		return -EINVAL;
	if (!(pt = timers_of(current)))
		return -ENOMEM;
	get_itimer(&pt->it[which], &v);
	timers_trim(current);
	return copy_to_user((void *)uvalue, &v, sizeof(v)) ? -EFAULT : 0;
}

long sys_setitimer(long which, long unew, long uold)
{
	struct __kernel_old_itimerval v = { 0 }, old;
	struct proc_timers *pt;

	if (unew) {
		if (copy_from_user(&v, (void *)unew, sizeof(v)))
			return -EFAULT;
		if (!tv_valid(&v.it_value) || !tv_valid(&v.it_interval))
			return -EINVAL;
	}
	if (which < ITIMER_REAL || which > ITIMER_PROF)
		return -EINVAL;
	if (!(pt = timers_of(current)))
		return -ENOMEM;
	struct itimer *it = &pt->it[which];
	get_itimer(it, &old);
	arm(it, tv_ns(&v.it_value), tv_ns(&v.it_interval));
	timers_trim(current);
	if (uold && copy_to_user((void *)uold, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_alarm(long seconds)
{
	struct proc_timers *pt = timers_of(current);
	struct __kernel_old_itimerval old;

	if (!pt)
		return -ENOMEM;
	get_itimer(&pt->it[ITIMER_REAL], &old);
	arm(&pt->it[ITIMER_REAL], (unsigned int)seconds * NSEC_PER_SEC, 0);
	timers_trim(current);
	/* Rounded to the nearest second, and never 0 while it was armed. */
	if ((!old.it_value.tv_sec && old.it_value.tv_usec) || old.it_value.tv_usec >= 500000)
		old.it_value.tv_sec++;
	return old.it_value.tv_sec;
}

/* ---- POSIX timers ---- */

static struct itimer *posix_find(long id)
{
	struct proc_timers *pt = current->leader->timers;

	for (struct itimer *it = pt ? pt->posix : NULL; it; it = it->next)
		if (it->id == (int)id)
			return it;
	return NULL;
}

static bool clock_ok(long clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC || clock == CLOCK_BOOTTIME ||
	       clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_THREAD_CPUTIME_ID;
}

long sys_timer_create(long clock, long usevp, long uid)
{
	struct sigevent ev;
	struct proc_timers *pt;

	if (!clock_ok(clock))
		return -EINVAL;
	if (usevp) {
		if (copy_from_user(&ev, (void *)usevp, sizeof(ev)))
			return -EFAULT;
		switch (ev.sigev_notify) {
		case SIGEV_SIGNAL | SIGEV_THREAD_ID: {
			struct task *t = task_by_pid(ev.sigev_notify_thread_id);
			if (!t || t->tgid != current->tgid)
				return -EINVAL;
		}
			/* fall through */
		case SIGEV_SIGNAL:
		case SIGEV_THREAD:
			if (ev.sigev_signo <= 0 || ev.sigev_signo > NSIGNALS)
				return -EINVAL;
			break;
		case SIGEV_NONE:
			break;
		default:
			return -EINVAL;
		}
	}
	if (!(pt = timers_of(current)))
		return -EAGAIN;
	struct itimer *it = kzalloc(sizeof(*it));
	if (!it)
		return -EAGAIN;
	*it = (struct itimer){ .owner = pt, .which = -1, .clock = clock, .cpu_tid = current->pid };
	it->id = current->leader->next_timer_id++ & INT32_MAX;
	if (usevp) {
		it->notify = ev.sigev_notify;
		it->signo = ev.sigev_signo;
		it->tid = ev.sigev_notify_thread_id;
		it->value = (uint64_t)ev.sigev_value.sival_ptr;
	} else {
		it->notify = SIGEV_SIGNAL;
		it->signo = SIGALRM;
		it->value = it->id;
	}
	if (put_user((int)it->id, (int *)uid)) {
		kfree(it);
		timers_trim(current);
		return -EFAULT;
	}
	it->next = pt->posix;
	pt->posix = it;
	posix_timers_alive++;
	return 0;
}

static void get_posix(struct itimer *it, struct __kernel_itimerspec *v)
{
	uint64_t flags = irq_save();
	uint64_t left = time_left(it), iv = it->interval_ns;

	irq_restore(flags);
	v->it_value = (struct __kernel_timespec){ left / NSEC_PER_SEC, left % NSEC_PER_SEC };
	v->it_interval = (struct __kernel_timespec){ iv / NSEC_PER_SEC, iv % NSEC_PER_SEC };
}

static bool ts_valid(const struct __kernel_timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < (long)NSEC_PER_SEC;
}

long sys_timer_settime(long id, long flags, long unew, long uold)
{
	struct __kernel_itimerspec v, old;
	struct itimer *it = posix_find(id);

	if (!unew)
		return -EINVAL;
	if (copy_from_user(&v, (void *)unew, sizeof(v)))
		return -EFAULT;
	if (!ts_valid(&v.it_value) || !ts_valid(&v.it_interval))
		return -EINVAL;
	if (!it)
		return -EINVAL;
	get_posix(it, &old);
	uint64_t value = v.it_value.tv_sec * NSEC_PER_SEC + v.it_value.tv_nsec;
	uint64_t interval = v.it_interval.tv_sec * NSEC_PER_SEC + v.it_interval.tv_nsec;
	if (value && (flags & TIMER_ABSTIME)) {
		uint64_t now;
		if (counts_cpu(it))	/* its thread's, whoever calls */
			now = tsc_to_ns(current_time(it));
		else
			clock_read_ns(it->clock, &now);
		value = value > now ? value - now : 1;	/* past: at once */
	}
	arm(it, value, interval);
	if (uold && copy_to_user((void *)uold, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_timer_gettime(long id, long ucur)
{
	struct __kernel_itimerspec v;
	struct itimer *it = posix_find(id);

	if (!it)
		return -EINVAL;
	get_posix(it, &v);
	return copy_to_user((void *)ucur, &v, sizeof(v)) ? -EFAULT : 0;
}

long sys_timer_getoverrun(long id)
{
	struct itimer *it = posix_find(id);

	return it ? it->overrun_last : -EINVAL;
}

long sys_timer_delete(long id)
{
	struct proc_timers *pt = current->leader->timers;

	for (struct itimer **pp = pt ? &pt->posix : NULL; pp && *pp; pp = &(*pp)->next) {
		if ((*pp)->id == (int)id) {
			struct itimer *it = *pp;
			uint64_t flags = irq_save();
			*pp = it->next;
			posix_free(it);
			irq_restore(flags);
			timers_trim(current);
			return 0;
		}
	}
	return -EINVAL;
}
