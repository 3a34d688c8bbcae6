/* System call dispatch: a table indexed by Linux x86-64 numbers. Unknown
 * numbers return -ENOSYS and are logged once each. */
#include "syscall.h"
#include "entry_work.h"
#include "kernel_lock.h"
#include "gdt.h"
#include "printk.h"
#include "signal.h"
#include "task.h"
#include "traps.h"
#include "x86.h"
#include "mm/paging.h"
#include <asm/unistd_64.h>
#include <asm-generic/errno.h>

typedef long (*syscall_fn)(long, long, long, long, long, long);
/* Every handler is called with six arguments and takes the ones it needs
 * (harmless in the x86-64 calling convention); void (*)(void) is the cast
 * GCC accepts between function types. */
#define SYSCALL(nr, fn) [__NR_##nr] = (syscall_fn)(void (*)(void))(fn)
#define NR_SYSCALLS 512

static const syscall_fn table[NR_SYSCALLS] = {
	SYSCALL(read, sys_read),
	SYSCALL(write, sys_write),
	SYSCALL(close, sys_close),
	SYSCALL(fstat, sys_fstat),
	SYSCALL(poll, sys_poll),
	SYSCALL(lseek, sys_lseek),
	SYSCALL(mmap, sys_mmap),
	SYSCALL(mprotect, sys_mprotect),
	SYSCALL(munmap, sys_munmap),
	SYSCALL(brk, sys_brk),
	SYSCALL(rt_sigaction, sys_rt_sigaction),
	SYSCALL(rt_sigprocmask, sys_rt_sigprocmask),
	SYSCALL(rt_sigreturn, sys_rt_sigreturn),
	SYSCALL(restart_syscall, sys_restart_syscall),
	SYSCALL(ioctl, sys_ioctl),
	SYSCALL(readv, sys_readv),
	SYSCALL(writev, sys_writev),
	SYSCALL(sched_yield, sys_sched_yield),
	SYSCALL(madvise, sys_madvise),
	SYSCALL(msync, sys_msync),
	SYSCALL(dup, sys_dup),
	SYSCALL(dup2, sys_dup2),
	SYSCALL(nanosleep, sys_nanosleep),
	SYSCALL(getpid, sys_getpid),
	SYSCALL(exit, sys_exit),
	SYSCALL(kill, sys_kill),
	SYSCALL(pause, sys_pause),
	SYSCALL(rt_sigsuspend, sys_rt_sigsuspend),
	SYSCALL(uname, sys_uname),
	SYSCALL(fcntl, sys_fcntl),
	SYSCALL(gettimeofday, sys_gettimeofday),
	SYSCALL(getuid, sys_getuid),
	SYSCALL(getgid, sys_getuid),
	SYSCALL(geteuid, sys_getuid),
	SYSCALL(getegid, sys_getuid),
	SYSCALL(getppid, sys_getppid),
	SYSCALL(rt_sigpending, sys_rt_sigpending),
	SYSCALL(sigaltstack, sys_sigaltstack),
	SYSCALL(prctl, sys_prctl),
	SYSCALL(arch_prctl, sys_arch_prctl),
	SYSCALL(gettid, sys_gettid),
	SYSCALL(tkill, sys_tkill),
	SYSCALL(time, sys_time),
	SYSCALL(set_tid_address, sys_set_tid_address),
	SYSCALL(clock_gettime, sys_clock_gettime),
	SYSCALL(clock_getres, sys_clock_getres),
	SYSCALL(clock_nanosleep, sys_clock_nanosleep),
	SYSCALL(exit_group, sys_exit_group),
	/* processes and threads (fork.c, exec.c, exit.c, futex.c) */
	SYSCALL(clone, sys_clone),
	SYSCALL(clone3, sys_clone3),
	SYSCALL(fork, sys_fork),
	SYSCALL(vfork, sys_vfork),
	SYSCALL(execve, sys_execve),
	SYSCALL(execveat, sys_execveat),
	SYSCALL(wait4, sys_wait4),
	SYSCALL(waitid, sys_waitid),
	SYSCALL(futex, sys_futex),
	SYSCALL(tgkill, sys_tgkill),
	SYSCALL(rt_sigqueueinfo, sys_rt_sigqueueinfo),
	SYSCALL(rt_tgsigqueueinfo, sys_rt_tgsigqueueinfo),
	SYSCALL(ppoll, sys_ppoll),
	SYSCALL(dup3, sys_dup3),
	SYSCALL(getrandom, sys_getrandom),
	/* limits and the machine (sys_info.c) */
	SYSCALL(prlimit64, sys_prlimit64),
	SYSCALL(getrlimit, sys_getrlimit),
	SYSCALL(setrlimit, sys_setrlimit),
	SYSCALL(sysinfo, sys_sysinfo),
	SYSCALL(sched_getaffinity, sys_sched_getaffinity),
	SYSCALL(sched_setaffinity, sys_sched_setaffinity),
	SYSCALL(getgroups, sys_getgroups),
	SYSCALL(set_robust_list, sys_set_robust_list),
	SYSCALL(get_robust_list, sys_get_robust_list),
	/* files (sys_open.c, sys_stat.c, sys_namei.c, sys_copy.c) */
	SYSCALL(sendfile, sys_sendfile),
	SYSCALL(copy_file_range, sys_copy_file_range),
	SYSCALL(open, sys_open),
	SYSCALL(openat, sys_openat),
	SYSCALL(creat, sys_creat),
	SYSCALL(pread64, sys_pread64),
	SYSCALL(pwrite64, sys_pwrite64),
	SYSCALL(preadv, sys_preadv),
	SYSCALL(pwritev, sys_pwritev),
	SYSCALL(preadv2, sys_preadv2),
	SYSCALL(pwritev2, sys_pwritev2),
	SYSCALL(getdents64, sys_getdents64),
	SYSCALL(truncate, sys_truncate),
	SYSCALL(ftruncate, sys_ftruncate),
	SYSCALL(fsync, sys_fsync),
	SYSCALL(fdatasync, sys_fsync),
	SYSCALL(syncfs, sys_fsync),
	SYSCALL(chdir, sys_chdir),
	SYSCALL(fchdir, sys_fchdir),
	SYSCALL(getcwd, sys_getcwd),
	SYSCALL(umask, sys_umask),
	SYSCALL(stat, sys_stat),
	SYSCALL(lstat, sys_lstat),
	SYSCALL(newfstatat, sys_newfstatat),
	SYSCALL(statx, sys_statx),
	SYSCALL(statfs, sys_statfs),
	SYSCALL(fstatfs, sys_fstatfs),
	SYSCALL(access, sys_access),
	SYSCALL(faccessat, sys_faccessat),
	SYSCALL(faccessat2, sys_faccessat2),
	SYSCALL(readlink, sys_readlink),
	SYSCALL(readlinkat, sys_readlinkat),
	SYSCALL(chmod, sys_chmod),
	SYSCALL(fchmod, sys_fchmod),
	SYSCALL(fchmodat, sys_fchmodat),
	SYSCALL(chown, sys_chown),
	SYSCALL(fchown, sys_fchown),
	SYSCALL(lchown, sys_lchown),
	SYSCALL(fchownat, sys_fchownat),
	SYSCALL(utimensat, sys_utimensat),
	SYSCALL(mkdir, sys_mkdir),
	SYSCALL(mkdirat, sys_mkdirat),
	SYSCALL(mknod, sys_mknod),
	SYSCALL(mknodat, sys_mknodat),
	SYSCALL(rmdir, sys_rmdir),
	SYSCALL(unlink, sys_unlink),
	SYSCALL(unlinkat, sys_unlinkat),
	SYSCALL(rename, sys_rename),
	SYSCALL(renameat, sys_renameat),
	SYSCALL(renameat2, sys_renameat2),
	SYSCALL(link, sys_link),
	SYSCALL(linkat, sys_linkat),
	SYSCALL(symlink, sys_symlink),
	SYSCALL(symlinkat, sys_symlinkat),
	/* pipes, eventfd, select, epoll, timers, scheduling, process groups */
	SYSCALL(pipe, sys_pipe),
	SYSCALL(pipe2, sys_pipe2),
	SYSCALL(eventfd, sys_eventfd),
	SYSCALL(eventfd2, sys_eventfd2),
	SYSCALL(select, sys_select),
	SYSCALL(pselect6, sys_pselect6),
	SYSCALL(epoll_create, sys_epoll_create),
	SYSCALL(epoll_create1, sys_epoll_create1),
	SYSCALL(epoll_ctl, sys_epoll_ctl),
	SYSCALL(epoll_wait, sys_epoll_wait),
	SYSCALL(epoll_pwait, sys_epoll_pwait),
	SYSCALL(epoll_pwait2, sys_epoll_pwait2),
	SYSCALL(alarm, sys_alarm),
	SYSCALL(getitimer, sys_getitimer),
	SYSCALL(setitimer, sys_setitimer),
	SYSCALL(timer_create, sys_timer_create),
	SYSCALL(timer_settime, sys_timer_settime),
	SYSCALL(timer_gettime, sys_timer_gettime),
	SYSCALL(timer_getoverrun, sys_timer_getoverrun),
	SYSCALL(timer_delete, sys_timer_delete),
	SYSCALL(timerfd_create, sys_timerfd_create),
	SYSCALL(timerfd_settime, sys_timerfd_settime),
	SYSCALL(timerfd_gettime, sys_timerfd_gettime),
	SYSCALL(getrusage, sys_getrusage),
	SYSCALL(times, sys_times),
	SYSCALL(getcpu, sys_getcpu),
	SYSCALL(sched_setscheduler, sys_sched_setscheduler),
	SYSCALL(sched_getscheduler, sys_sched_getscheduler),
	SYSCALL(sched_setparam, sys_sched_setparam),
	SYSCALL(sched_getparam, sys_sched_getparam),
	SYSCALL(sched_get_priority_max, sys_sched_get_priority_max),
	SYSCALL(sched_get_priority_min, sys_sched_get_priority_min),
	SYSCALL(setpgid, sys_setpgid),
	SYSCALL(getpgid, sys_getpgid),
	SYSCALL(getpgrp, sys_getpgrp),
	SYSCALL(getsid, sys_getsid),
	SYSCALL(setsid, sys_setsid),
	SYSCALL(perf_event_open, sys_perf_event_open),
};

static uint64_t logged[NR_SYSCALLS / 64];

/* entry.asm's: a number without a handler (its stub passes the number). */
long unknown_syscall(unsigned long nr)
{
	if (nr < NR_SYSCALLS && !(logged[nr / 64] & (1ul << (nr % 64)))) {
		logged[nr / 64] |= 1ul << (nr % 64);
		printk("pmuos: %s[%d]: unknown syscall %lu\n", current->comm, current->pid, nr);
	}
	return -ENOSYS;
}

/* The syscalls that take no kernel lock (kernel_lock.c): what they touch is
 * the caller's own (issue 18 tunes the first three), or the clocks, which
 * take it for what is not (sys_clock_gettime). read and ioctl decide for
 * themselves (sys_read_lockless, sys_ioctl_lockless: without it for a
 * perf event's fast paths). */
static const unsigned lockless[] = { __NR_getpid, __NR_gettid, __NR_getcpu,
				     __NR_clock_gettime, __NR_gettimeofday, __NR_time };

static bool is_lockless(unsigned long nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(lockless); i++)
		if (lockless[i] == nr)
			return true;
	return false;
}

/* Every other handler runs inside the kernel lock: this stands in the fast
 * table for it, and the full-frame stubs call it, with the number from the
 * frame (entry.asm saves it for a restart). */
long syscall_locked(long a, long b, long c, long d, long e, long f)
{
	syscall_fn fn = table[current->regs->error_code];

	kernel_lock();
	long ret = fn(a, b, c, d, e, f);
	kernel_unlock();
	return ret;
}

/* What the entry calls for nr: its handler, or syscall_locked for it; the
 * handler itself while the kernel lock is off (one CPU). */
static syscall_fn entry_fn(unsigned long nr)
{
	if (nr >= NR_SYSCALLS || !table[nr])
		return NULL;
	if (!kernel_lock_on || is_lockless(nr))
		return table[nr];
	if (nr == __NR_read)
		return (syscall_fn)(void (*)(void))sys_read_lockless;
	if (nr == __NR_ioctl)
		return (syscall_fn)(void (*)(void))sys_ioctl_lockless;
	return syscall_locked;
}

/* The syscalls that read or rewrite the whole user frame: on the fast path
 * their stubs (entry.asm's FULL_FRAME_SYSCALL) complete it first. */
extern char full_frame_sys_rt_sigreturn[], full_frame_sys_fork[], full_frame_sys_vfork[], full_frame_sys_clone[], full_frame_sys_clone3[], full_frame_sys_execve[], full_frame_sys_execveat[];
static const struct {
	unsigned nr;
	const void *stub;
} full_frame[] = {
	{ __NR_rt_sigreturn, full_frame_sys_rt_sigreturn },
	{ __NR_fork, full_frame_sys_fork },
	{ __NR_vfork, full_frame_sys_vfork },
	{ __NR_clone, full_frame_sys_clone },
	{ __NR_clone3, full_frame_sys_clone3 },
	{ __NR_execve, full_frame_sys_execve },
	{ __NR_execveat, full_frame_sys_execveat },
};

/* entry.asm's fast path calls through this copy of the table: the
 * full-frame stubs in place of their handlers, and a stub for every
 * number without one. */
const void *syscall_fast_table[NR_SYSCALLS];

static void fast_table_init(void)
{
	extern char syscall_unknown_stub[];

	for (int nr = 0; nr < NR_SYSCALLS; nr++)
		syscall_fast_table[nr] = table[nr] ? (const void *)entry_fn(nr) : syscall_unknown_stub;
	for (size_t i = 0; i < ARRAY_SIZE(full_frame); i++)
		syscall_fast_table[full_frame[i].nr] = full_frame[i].stub;
}

/* SYSRET cannot restore everything IRET does (SDM Vol. 2B SYSRET), and with
 * a non-canonical RCX it faults in ring 0 on Intel CPUs: use it only when
 * the frame is what SYSCALL left (Linux's checks in entry_64.S). The fast
 * exit needs no check: nothing on its path changes those registers. */
static bool sysret_safe(const struct pt_regs *regs)
{
	return regs->rcx == regs->rip && regs->r11 == regs->rflags &&
	       regs->rip < USER_END && regs->cs == GDT_USER_CS &&
	       regs->ss == GDT_USER_DS &&
	       !(regs->rflags & (X86_EFLAGS_TF | (1ul << 16) /* RF */));
}

/* entry.asm's full-frame exit, interrupts off: the exit work, then SYSRET
 * (true) or IRET. */
bool syscall_exit_full(struct pt_regs *regs)
{
	user_exit_work(regs);
	return sysret_safe(regs);
}

/* entry.asm's full-frame entry (a feature wants entry work, or the program
 * set TF): entry_tsc is the TSC of SYSCALL's first kernel instruction. */
bool syscall_full(struct pt_regs *regs, uint64_t entry_tsc)
{
	unsigned long nr = regs->error_code;
	syscall_fn fn = entry_fn(nr);

	user_entry_work(regs, entry_tsc);	/* before anything reads the frame */
	sti();
	regs->rax = fn ? fn(regs->rdi, regs->rsi, regs->rdx, regs->r10, regs->r8, regs->r9)
		       : unknown_syscall(nr);
	cli();
	return syscall_exit_full(regs);
}

void syscall_init(void)
{
	fast_table_init();
	syscall_init_cpu();
}

void syscall_init_cpu(void)
{
	extern char syscall_entry[];

	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* SYSCALL loads CS = 0x10, SS = 0x18; SYSRET CS = 0x23 + 16, SS = 0x23 + 8. */
	wrmsr(MSR_STAR, (uint64_t)(GDT_USER32_CS & ~3) << 48 | (uint64_t)GDT_KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_SFMASK, X86_EFLAGS_IF | X86_EFLAGS_TF | X86_EFLAGS_DF | X86_EFLAGS_AC |
			  (1ul << 14) /* NT */ | (3ul << 12) /* IOPL */);
}
