/* Resource use and scheduling policy: getrusage, times, getcpu, and the
 * sched_{get,set}{scheduler,param} family. Each CPU runs its tasks round
 * robin, so the only policy is SCHED_OTHER at priority 0; the real-time and
 * idle policies, which Linux grants root, are refused with EPERM. CPU time
 * is not split by privilege level: all of it reads as user time. */
#include "syscall.h"
#include "clock.h"
#include "sched.h"
#include "task.h"
#include "tsc.h"
#include "x86.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/times.h>

#define USER_HZ		100
#define HZ		250
/* Linux's jiffies start 5 minutes before wrapping 32 bits (times' value) */
#define INITIAL_JIFFIES	((unsigned long)(unsigned int)(-300 * HZ))
#define MAX_RT_PRIO	100
#define SCHED_OTHER	SCHED_NORMAL

/* CPU time of t's process, or of that one thread. */
static uint64_t cputime_ns(const struct task *t, bool thread)
{
	return tsc_to_ns(thread ? task_cputime_tsc(t) : task_process_cputime_tsc(t));
}

long sys_getrusage(long who, long uru)
{
	struct rusage ru = { 0 };
	uint64_t ns;

	switch (who) {
	case RUSAGE_SELF:
	case RUSAGE_THREAD:
		ns = cputime_ns(current, who == RUSAGE_THREAD);
		break;
	case RUSAGE_CHILDREN:
		ns = tsc_to_ns(current->leader->child_exec_tsc);
		break;
	default:
		return -EINVAL;
	}
	ru.ru_utime.tv_sec = ns / NSEC_PER_SEC;
	ru.ru_utime.tv_usec = ns % NSEC_PER_SEC / 1000;
	return copy_to_user((void *)uru, &ru, sizeof(ru)) ? -EFAULT : 0;
}

long sys_times(long ubuf)
{
	if (ubuf) {
		struct tms t = {
			.tms_utime = cputime_ns(current, false) / (NSEC_PER_SEC / USER_HZ),
			.tms_cutime = tsc_to_ns(current->leader->child_exec_tsc) /
				      (NSEC_PER_SEC / USER_HZ),
		};
		if (copy_to_user((void *)ubuf, &t, sizeof(t)))
			return -EFAULT;
	}
	uint64_t jiffies = INITIAL_JIFFIES + tsc_to_ns(rdtsc()) / (NSEC_PER_SEC / HZ);
	return jiffies * USER_HZ / HZ;
}

/* A lockless syscall (syscall.c): the CPU it ran on, node 0. */
long sys_getcpu(long ucpu, long unode, long ucache)
{
	unsigned zero = 0, cpu = smp_processor_id();

	if ((ucpu && put_user(cpu, (unsigned *)ucpu)) ||
	    (unode && put_user(zero, (unsigned *)unode)))
		return -EFAULT;
	return 0;
}

/* The task a sched_* call names: 0 is the caller. */
static long find(long pid, struct task **t)
{
	if ((int)pid < 0)
		return -EINVAL;
	*t = pid ? task_by_pid(pid) : current;
	return *t ? 0 : -ESRCH;
}

static long check_param(long policy, int prio)
{
	switch (policy & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER:
		return prio ? -EINVAL : 0;
	case SCHED_BATCH:
	case SCHED_IDLE:
		return prio ? -EINVAL : -EPERM;		/* one policy here */
	case SCHED_FIFO:
	case SCHED_RR:
		return prio < 1 || prio > MAX_RT_PRIO - 1 ? -EINVAL : -EPERM;
	default:
		return -EINVAL;
	}
}

long sys_sched_setscheduler(long pid, long policy, long uparam)
{
	pid = (int)pid, policy = (int)policy;
	struct sched_param p;
	struct task *t;
	long err;

	if ((int)policy < 0 || !uparam || (int)pid < 0)
		return -EINVAL;
	if (copy_from_user(&p, (void *)uparam, sizeof(p)))
		return -EFAULT;
	if ((err = find(pid, &t)))
		return err;
	return check_param(policy, p.sched_priority);
}

long sys_sched_getscheduler(long pid)
{
	pid = (int)pid;
	struct task *t;

	return find(pid, &t) ?: SCHED_OTHER;
}

long sys_sched_setparam(long pid, long uparam)
{
	pid = (int)pid;
	struct sched_param p;
	struct task *t;
	long err;

	if (!uparam || (int)pid < 0)
		return -EINVAL;
	if (copy_from_user(&p, (void *)uparam, sizeof(p)))
		return -EFAULT;
	if ((err = find(pid, &t)))
		return err;
	return check_param(SCHED_OTHER, p.sched_priority);
}

long sys_sched_getparam(long pid, long uparam)
{
	pid = (int)pid;
	struct sched_param p = { 0 };
	struct task *t;
	long err;

	if (!uparam || (int)pid < 0)
		return -EINVAL;
	if ((err = find(pid, &t)))
		return err;
	return copy_to_user((void *)uparam, &p, sizeof(p)) ? -EFAULT : 0;
}

long sys_sched_get_priority_max(long policy)
{
	switch (policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return MAX_RT_PRIO - 1;
	case SCHED_OTHER:
	case SCHED_BATCH:
	case SCHED_IDLE:
	case SCHED_DEADLINE:
		return 0;
	default:
		return -EINVAL;
	}
}

long sys_sched_get_priority_min(long policy)
{
	long max = sys_sched_get_priority_max(policy);

	return max > 0 ? 1 : max;
}
