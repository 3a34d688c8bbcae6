/* fork, vfork, clone and clone3: a new task that returns 0 from the same
 * syscall, sharing with its creator what the flags say (Linux's
 * copy_process, its EINVAL rules included). */
#include "syscall.h"
#include "sched.h"
#include "signal.h"
#include "task.h"
#include "traps.h"
#include "x86.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/frames.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include "mm/uspace.h"
#include "perf/perf.h"
#include <asm-generic/errno.h>
#include <linux/sched.h>

/* What pmuos can do: the flags glibc, musl, Go and Rust use. Namespaces,
 * pidfds and the like are refused (EINVAL). */
#define CLONE_SUPPORTED	(CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
			 CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | \
			 CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | CLONE_VFORK | CLONE_PARENT | \
			 CLONE_DETACHED | CLONE_UNTRACED | CLONE_IO)

struct clone_args_k {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* Linux's copy_process checks, in its order. */
static int clone_flags_ok(uint64_t flags)
{
	if ((flags & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS))
		return -EINVAL;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & ~(uint64_t)CLONE_SUPPORTED) & 0xffffffffu)
		return -EINVAL;
	return 0;
}

static bool vfork_done(void *arg)
{
	struct task *child = arg;

	return child->vfork_parent == NULL;
}

/* Write a tid into the child's memory (CLONE_CHILD_SETTID): its own space
 * may not be the active one, and its page may be shared copy-on-write. */
static int put_child_tid(struct task *child, uint64_t uaddr)
{
	int pid = child->pid;

	if (child->us == current->us)
		return put_user(pid, (int *)uaddr);
	if (!is_user_range(uaddr, sizeof(pid)))
		return -EFAULT;
	return uspace_poke(child->us, uaddr, &pid, sizeof(pid));
}

int max_threads;

void fork_init(void)
{
	/* Linux's set_max_threads: the kernel stacks of all tasks may take an
	 * eighth of memory. */
	uint64_t n = frame_stats.total * PAGE_SIZE / (KSTACK_SIZE * 8);

	max_threads = MIN(MAX(n, (uint64_t)MIN_THREADS), (uint64_t)MAX_THREADS);
	rlimit_init_nproc(max_threads / 2);
}

static long do_clone(const struct clone_args_k *ca)
{
	struct task *p = current, *t;
	uint64_t flags = ca->flags;
	int err = clone_flags_ok(flags);

	if (err)
		return err;
	/* Linux's ARCH_SET_FS rule for the new TLS: a user address, else EPERM
	 * (a non-canonical one would fault the kernel's WRMSR at the switch). */
	if ((flags & CLONE_SETTLS) && ca->tls >= USER_END)
		return -EPERM;
	/* A fork bomb ends here: Linux's copy_process checks threads-max
	 * (and RLIMIT_NPROC, which root passes) before it allocates; a pid
	 * space used up (pid_max) is EAGAIN too. */
	if (tasks_alive >= max_threads || !(t = task_alloc()))
		return -EAGAIN;
	err = -ENOMEM;
	if (flags & CLONE_VM) {
		uspace_get(p->us);
		t->us = p->us;
	} else if (!(t->us = uspace_copy(p->us))) {
		goto fail;
	}
	if (flags & CLONE_FILES) {
		p->fds->refs++;
		t->fds = p->fds;
	} else if (!(t->fds = fd_table_copy(p->fds))) {
		goto fail;
	}
	if ((t->cwd = p->cwd))
		inode_get(t->cwd);
	t->umask = p->umask;
	memcpy(t->comm, p->comm, sizeof(t->comm));
	memcpy(t->exe, p->exe, sizeof(t->exe));
	t->rlim_set = p->rlim_set;
	memcpy(t->rlim, p->rlim, sizeof(t->rlim));
	/* Actions shared (CLONE_SIGHAND) or copied; the mask too, pending
	 * signals not. */
	if (signal_copy(&t->sig, &p->sig, flags & CLONE_SIGHAND))
		goto fail;
	if (flags & CLONE_THREAD) {
		t->tgid = p->tgid;
		t->leader = p->leader;
		t->parent = p->parent;
		t->creator = p->creator;
		t->exit_signal = 0;
	} else if (flags & CLONE_PARENT) {
		t->parent = p->parent;
		t->creator = p->creator;
		t->exit_signal = ca->exit_signal;
	} else {
		t->parent = p->leader;
		t->creator = p;
		t->exit_signal = ca->exit_signal;
	}
	t->pgid = p->pgid;
	t->sid = p->sid;
	t->cpus_allowed = p->cpus_allowed;
	t->fs_base = flags & CLONE_SETTLS ? ca->tls : p->fs_base;
	t->gs_base = p->gs_base;
	__asm__ volatile("fxsave64 %0" : "=m"(t->fpu));	/* the creator's live state */

	struct pt_regs regs = *p->regs;
	regs.rax = 0;				/* the child's return value */
	if (ca->stack)
		regs.rsp = ca->stack + ca->stack_size;
	task_build_stack(t, &regs);

	if ((flags & CLONE_PARENT_SETTID) && put_user(t->pid, (int *)ca->parent_tid)) {
		err = -EFAULT;
		goto fail;
	}
	if ((flags & CLONE_CHILD_SETTID) && put_child_tid(t, ca->child_tid)) {
		err = -EFAULT;
		goto fail;
	}
	if (flags & CLONE_CHILD_CLEARTID)
		t->clear_child_tid = ca->child_tid;
	if (flags & CLONE_VFORK)
		t->vfork_parent = p;
	if ((err = perf_event_init_task(t, flags))) {	/* inherited events */
		perf_event_exit_inherited(t);
		goto fail;
	}
	sched_place_new(t);
	sched_add(t);
	sched_wakeup();
	perf_event_fork(t);		/* PERF_RECORD_FORK */
	int pid = t->pid;
	if (flags & CLONE_VFORK)
		task_wait(vfork_done, t, 0);	/* until it execs or exits */
	return pid;
fail:
	task_free(t);
	return err;
}

long sys_clone(long flags, long newsp, long uparent_tid, long uchild_tid, long tls)
{
	/* The x86-64 order: flags, stack, parent_tid, child_tid, tls. */
	struct clone_args_k ca = { .flags = flags & ~(uint64_t)CSIGNAL, .parent_tid = uparent_tid,
				   .child_tid = uchild_tid, .stack = newsp, .tls = tls,
				   .exit_signal = flags & CSIGNAL };
	return do_clone(&ca);
}

long sys_clone3(long uargs, long size)
{
	struct clone_args_k ca = { 0 };

	if (size < 64 || size > 4096)		/* CLONE_ARGS_SIZE_VER0 .. a page */
		return -EINVAL;
	if (copy_from_user(&ca, (void *)uargs, MIN((size_t)size, sizeof(ca))))
		return -EFAULT;
	if (ca.flags & (CLONE_DETACHED | CSIGNAL))
		return -EINVAL;
	if (ca.exit_signal > NSIGNALS || (!ca.stack != !ca.stack_size))
		return -EINVAL;
	return do_clone(&ca);
}

long sys_fork(void)
{
	struct clone_args_k ca = { .exit_signal = SIGCHLD };

	return do_clone(&ca);
}

long sys_vfork(void)
{
	struct clone_args_k ca = { .flags = CLONE_VM | CLONE_VFORK, .exit_signal = SIGCHLD };

	return do_clone(&ca);
}
