/* What a process asks about its limits and the machine: getrlimit,
 * setrlimit, prlimit64, sysinfo, sched_{get,set}affinity, getgroups, and the
 * robust futex list's head (futex.c walks it at exit). */
#include "syscall.h"
#include "fd.h"
#include "sched.h"
#include "task.h"
#include "tsc.h"
#include "x86.h"
#include "mm/frames.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include "lib/string.h"
#include "mm/uspace.h"
#include <asm-generic/errno.h>
#include <linux/resource.h>
#include <linux/sysinfo.h>

#define RLIM_INF	(~0ul)
#define NR_CPUS_MASK	8	/* bytes of a CPU mask: one long, as Linux's nr_cpu_ids <= 64 */

/* Linux's defaults for init, except what pmuos's own sizes bound:
 * descriptors (NR_FDS) and the stack (STACK_MAX). */
static struct rlimit64 rlimit_default[RLIM_NLIMITS] = {
	[RLIMIT_CPU] = { RLIM_INF, RLIM_INF },
	[RLIMIT_FSIZE] = { RLIM_INF, RLIM_INF },
	[RLIMIT_DATA] = { RLIM_INF, RLIM_INF },
	[RLIMIT_STACK] = { STACK_MAX, STACK_MAX },
	[RLIMIT_CORE] = { 0, RLIM_INF },
	[RLIMIT_RSS] = { RLIM_INF, RLIM_INF },
	[RLIMIT_NPROC] = { 0, 0 },	/* rlimit_init_nproc's */
	[RLIMIT_NOFILE] = { NR_FDS, NR_FDS },
	[RLIMIT_MEMLOCK] = { 8 * MiB, 8 * MiB },
	[RLIMIT_AS] = { RLIM_INF, RLIM_INF },
	[RLIMIT_LOCKS] = { RLIM_INF, RLIM_INF },
	[RLIMIT_SIGPENDING] = { 1798, 1798 },	/* the oracle's (Linux derives it from memory) */
	[RLIMIT_MSGQUEUE] = { 819200, 819200 },
	[RLIMIT_NICE] = { 0, 0 },
	[RLIMIT_RTPRIO] = { 0, 0 },
	[RLIMIT_RTTIME] = { RLIM_INF, RLIM_INF },
};

void rlimit_init_nproc(uint64_t n)
{
	rlimit_default[RLIMIT_NPROC] = (struct rlimit64){ n, n };
}

static struct rlimit64 *limits(void)
{
	if (!current->rlim_set) {
		memcpy(current->rlim, rlimit_default, sizeof(rlimit_default));
		current->rlim_set = true;
	}
	return current->rlim;
}

uint64_t task_rlimit(const struct task *t, unsigned resource)
{
	return (t->rlim_set ? t->rlim : rlimit_default)[resource].rlim_cur;
}

long sys_prlimit64(long pid, long resource, long unew, long uold)
{
	struct rlimit64 new;

	if ((unsigned long)resource >= RLIM_NLIMITS)
		return -EINVAL;
	if (pid && pid != current->pid)
		return -ESRCH;
	if (unew) {
		if (copy_from_user(&new, (void *)unew, sizeof(new)))
			return -EFAULT;
		if (new.rlim_cur > new.rlim_max)
			return -EINVAL;
		/* What pmuos cannot give, root cannot raise (Linux: nr_open). */
		if ((resource == RLIMIT_NOFILE || resource == RLIMIT_STACK) &&
		    new.rlim_max > rlimit_default[resource].rlim_max)
			return -EPERM;
	}
	struct rlimit64 *r = &limits()[resource];
	if (uold && copy_to_user((void *)uold, r, sizeof(*r)))
		return -EFAULT;
	if (unew)
		*r = new;
	return 0;
}

long sys_getrlimit(long resource, long uold)
{
	return sys_prlimit64(0, resource, 0, uold);
}

long sys_setrlimit(long resource, long unew)
{
	return sys_prlimit64(0, resource, unew, 0);
}

long sys_sysinfo(long uinfo)
{
	struct sysinfo si = {
		.uptime = tsc_to_ns(rdtsc()) / 1000000000ul,
		.totalram = frame_stats.total * PAGE_SIZE,
		.freeram = frame_stats.free * PAGE_SIZE,
		.procs = tasks_alive,	/* Linux's nr_threads */
		.mem_unit = 1,
	};

	return copy_to_user((void *)uinfo, &si, sizeof(si)) ? -EFAULT : 0;
}

/* Linux 6.1's rules: a mask is one long here (nr_cpu_ids <= 64), get asks
 * for a whole number of longs covering every CPU and answers the bytes it
 * wrote; set takes the bytes given (zero beyond), keeps the online CPUs of
 * the mask and refuses one without any (EINVAL). pid is any thread's id,
 * 0 the caller. */
static struct task *affinity_task(long pid)
{
	return pid ? task_by_pid((int)pid) : current;
}

long sys_sched_getaffinity(long pid, long len, long umask)
{
	pid = (int)pid, len = (unsigned)len;

	if (len < NR_CPUS_MASK || (len & (sizeof(long) - 1)))
		return -EINVAL;
	struct task *t = affinity_task(pid);
	if (!t)
		return -ESRCH;
	uint64_t mask = t->cpus_allowed & cpus_online_mask();
	return copy_to_user((void *)umask, &mask, sizeof(mask)) ? -EFAULT : NR_CPUS_MASK;
}

long sys_sched_setaffinity(long pid, long len, long umask)
{
	pid = (int)pid, len = (unsigned)len;
	uint64_t mask = 0;

	if (copy_from_user(&mask, (void *)umask, MIN((size_t)MAX(len, 0l), sizeof(mask))))
		return -EFAULT;
	struct task *t = affinity_task(pid);
	if (!t)
		return -ESRCH;
	mask &= cpus_online_mask();
	if (!mask)
		return -EINVAL;	/* no CPU of the mask is online */
	sched_set_allowed(t, mask);
	return 0;
}

/* Root with no supplementary groups, as Linux's init. */
long sys_getgroups(long size, long ulist)
{
	return size < 0 ? -EINVAL : 0;
}

long sys_set_robust_list(long uhead, long len)
{
	if (len != 3 * sizeof(long))	/* sizeof(struct robust_list_head) */
		return -EINVAL;
	current->robust_list = uhead;
	return 0;
}
