/* Process syscalls: identity, uname, TLS (arch_prctl), prctl, sched_yield. */
#include "syscall.h"
#include "sched.h"
#include "task.h"
#include "fs/dev.h"
#include "perf/perf.h"
#include "x86.h"
#include "lib/string.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include <asm/prctl.h>
#include <asm-generic/errno.h>
#include <linux/prctl.h>
#include <linux/random.h>
#include <linux/utsname.h>

long sys_getpid(void)
{
	return current->tgid;
}

long sys_gettid(void)
{
	return current->pid;
}

long sys_getppid(void)
{
	return current->parent ? current->parent->tgid : 0;	/* 0: the kernel's */
}

long sys_getuid(void)
{
	return 0;	/* every program has root's rights */
}

/* Linux's sysname, so programs that check it take their Linux path; the
 * release names pmuos, so tests can tell the two apart. /proc/sys/kernel's
 * hostname and domainname write here. */
struct new_utsname system_utsname = {
	.sysname = "Linux",
	.nodename = "pmuos",
	.release = "6.1.0-pmuos",
	.version = "#1 pmuos 0.1",
	.machine = "x86_64",
	.domainname = "(none)",
};

long sys_uname(long ubuf)
{
	return copy_to_user((void *)ubuf, &system_utsname, sizeof(system_utsname)) ? -EFAULT : 0;
}

long sys_arch_prctl(long code, long addr)
{
	switch (code) {
	case ARCH_SET_FS:
	case ARCH_SET_GS:
		if ((uint64_t)addr >= USER_END)
			return -EPERM;
		/* In the kernel the user's GS base sits in MSR_KERNEL_GS_BASE
		 * (SWAPGS, entry.asm); a kernel address is refused above, which
		 * the NMI entry's test of the GS base relies on. */
		wrmsr(code == ARCH_SET_FS ? MSR_FS_BASE : MSR_KERNEL_GS_BASE, addr);
		if (code == ARCH_SET_FS)
			current->fs_base = addr;
		else
			current->gs_base = addr;
		return 0;
	case ARCH_GET_FS:
	case ARCH_GET_GS: {
		uint64_t base = rdmsr(code == ARCH_GET_FS ? MSR_FS_BASE : MSR_KERNEL_GS_BASE);
		return put_user(base, (uint64_t *)addr) ? -EFAULT : 0;
	}
	default:
		return -EINVAL;
	}
}

long sys_prctl(long option, long a2, long a3, long a4, long a5)
{
	switch (option) {
	case PR_SET_NAME: {
		char name[TASK_COMM_LEN];
		long n = strncpy_from_user(name, (const char *)a2, sizeof(name));
		if (n == -EFAULT)
			return -EFAULT;
		if (n < 0)	/* too long: Linux truncates */
			n = sizeof(name) - 1;
		task_set_comm(current, name, n);
		return 0;
	}
	case PR_GET_NAME:
		return copy_to_user((void *)a2, current->comm, sizeof(current->comm)) ? -EFAULT : 0;
	case PR_GET_DUMPABLE:
		return 1;
	case PR_SET_DUMPABLE:
		return a2 == 0 || a2 == 1 ? 0 : -EINVAL;
	case PR_SET_PDEATHSIG:
		if (a2 < 0 || a2 > NSIGNALS)
			return -EINVAL;
		current->pdeath_signal = a2;
		return 0;
	case PR_GET_PDEATHSIG:
		return put_user(current->pdeath_signal, (int *)a2) ? -EFAULT : 0;
	case PR_SET_CHILD_SUBREAPER:
		current->leader->child_subreaper = a2 != 0;
		return 0;
	case PR_GET_CHILD_SUBREAPER:
		return put_user((int)current->leader->child_subreaper, (int *)a2) ? -EFAULT : 0;
	case PR_TASK_PERF_EVENTS_DISABLE:
	case PR_TASK_PERF_EVENTS_ENABLE:
		perf_task_events_enable(current, option == PR_TASK_PERF_EVENTS_ENABLE);
		return 0;
	default:
		return -EINVAL;
	}
}

long sys_set_tid_address(long uptr)
{
	current->clear_child_tid = uptr;
	return current->pid;
}

long sys_sched_yield(void)
{
	sched_yield();
	return 0;
}

long sys_getrandom(long ubuf, long n, long flags)
{
	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if (!is_user_range(ubuf, n))
		return -EFAULT;
	return dev_random_read((char *)ubuf, MIN(n, 33554431l));
}
