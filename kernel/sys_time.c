/* Time syscalls: the clocks of clock.c, sleeps on the deadline timer (on
 * the process's CPU clock too). */
#include "syscall.h"
#include "clock.h"
#include "kernel_lock.h"
#include "signal.h"
#include "task.h"
#include "tsc.h"
#include "x86.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <linux/time.h>
#include <linux/time_types.h>

static int put_timespec(long uts, uint64_t ns)
{
	struct __kernel_timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	return copy_to_user((void *)uts, &ts, sizeof(ts)) ? -EFAULT : 0;
}

/* Without the kernel lock (syscall.c), as time and gettimeofday: the
 * clocks read the TSC and the caller's own task, but for the process's CPU
 * time, which sums its threads (they exit under the lock). Programs read
 * the time from every thread, and with no vDSO each read is a syscall. */
long sys_clock_gettime(long clock, long uts)
{
	uint64_t ns;
	bool locked = clock == CLOCK_PROCESS_CPUTIME_ID;

	if (locked)
		kernel_lock();
	int err = clock_read_ns(clock, &ns);
	if (locked)
		kernel_unlock();
	return err ? err : put_timespec(uts, ns);
}

long sys_clock_getres(long clock, long uts)
{
	uint64_t ns;
	int err = clock_read_ns(clock, &ns);

	if (err || !uts)
		return err;
	return put_timespec(uts, 1);
}

long sys_gettimeofday(long utv, long utz)
{
	uint64_t ns = clock_realtime_ns();
	struct { long sec, usec; } tv = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC / 1000 };
	struct { int minuteswest, dsttime; } tz = { 0, 0 };

	if (utv && copy_to_user((void *)utv, &tv, sizeof(tv)))
		return -EFAULT;
	if (utz && copy_to_user((void *)utz, &tz, sizeof(tz)))
		return -EFAULT;
	return 0;
}

long sys_time(long ut)
{
	long t = clock_realtime_ns() / NSEC_PER_SEC;

	if (ut && put_user(t, (long *)ut))
		return -EFAULT;
	return t;
}

static long nanosleep_restart(struct restart_block *rb);

/* Sleep until the monotonic clock reads deadline. A signal ends it early
 * as Linux's do_nanosleep: the time left goes to urem (if not 0), and
 * restart_syscall sleeps on to the same deadline when no handler runs. */
static long sleep_until(uint64_t deadline, long urem)
{
	uint64_t now = clock_monotonic_ns();

	if (deadline <= now)
		return 0;
	int r = task_wait(NULL, NULL, rdtsc() + ns_to_tsc(deadline - now));
	if (r != -EINTR)
		return 0;
	now = clock_monotonic_ns();
	if (urem && put_timespec(urem, deadline > now ? deadline - now : 0))
		return -EFAULT;
	current->restart = (struct restart_block){ .fn = nanosleep_restart, .deadline = deadline,
						   .uaddr = urem };
	return -ERESTART_RESTARTBLOCK;
}

static long nanosleep_restart(struct restart_block *rb)
{
	return sleep_until(rb->deadline, rb->uaddr);
}

static long cpu_sleep_restart(struct restart_block *rb);

/* Sleep until the process's CPU clock reads deadline (ns): only its other
 * threads move it on. Each wake-up is where the time would be reached if
 * they ran alone, and looks again (as its CPU timers do); a signal ends it
 * as sleep_until's, Linux's posix_cpu_nsleep. */
static long cpu_sleep_until(uint64_t deadline, long urem)
{
	for (;;) {
		uint64_t now = tsc_to_ns(task_process_cputime_tsc(current));
		if (now >= deadline)
			return 0;
		if (task_wait(NULL, NULL, rdtsc() + ns_to_tsc(deadline - now)) != -EINTR)
			continue;
		now = tsc_to_ns(task_process_cputime_tsc(current));
		if (urem && put_timespec(urem, deadline > now ? deadline - now : 0))
			return -EFAULT;
		current->restart = (struct restart_block){ .fn = cpu_sleep_restart,
							   .deadline = deadline, .uaddr = urem };
		return -ERESTART_RESTARTBLOCK;
	}
}

static long cpu_sleep_restart(struct restart_block *rb)
{
	return cpu_sleep_until(rb->deadline, rb->uaddr);
}

static int get_timespec_ns(long uts, uint64_t *ns)
{
	struct __kernel_timespec ts;

	if (copy_from_user(&ts, (void *)uts, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	*ns = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	return 0;
}

long sys_nanosleep(long ureq, long urem)
{
	uint64_t ns;
	int err = get_timespec_ns(ureq, &ns);

	return err ? err : sleep_until(clock_monotonic_ns() + ns, urem);
}

long sys_clock_nanosleep(long clock, long flags, long ureq, long urem)
{
	uint64_t ns, now;
	int err;

	if (clock == CLOCK_THREAD_CPUTIME_ID)	/* its own clock stands still */
		return -EINVAL;
	if ((err = clock_read_ns(clock, &now)))
		return err;
	if ((err = get_timespec_ns(ureq, &ns)))
		return err;
	if (clock == CLOCK_PROCESS_CPUTIME_ID) {
		long r = cpu_sleep_until(flags & TIMER_ABSTIME ? ns : now + ns,
					 flags & TIMER_ABSTIME ? 0 : urem);
		return r == -ERESTART_RESTARTBLOCK && (flags & TIMER_ABSTIME) ? -ERESTARTNOHAND : r;
	}
	if (flags & TIMER_ABSTIME) {	/* no rem, and restarted as it was (Linux) */
		long r = sleep_until(clock_monotonic_ns() + (ns > now ? ns - now : 0), 0);
		return r == -ERESTART_RESTARTBLOCK ? -ERESTARTNOHAND : r;
	}
	return sleep_until(clock_monotonic_ns() + ns, urem);
}
