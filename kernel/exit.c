/* How tasks end and are waited for: exit, exit_group, fatal signals, the
 * zombie a process leaves until its parent's wait4 or waitid reaps it,
 * orphans going to init (pid 1), and init itself, which the kernel reaps:
 * then whatever is left is killed, and the machine halts with its status. */
#include "syscall.h"
#include "panic.h"
#include "printk.h"
#include "sched.h"
#include "signal.h"
#include "task.h"
#include "tsc.h"
#include "x86.h"
#include "futex.h"
#include "itimer.h"
#include "fs/vfs.h"
#include "mm/uaccess.h"
#include "mm/uspace.h"
#include "perf/perf.h"
#include <asm-generic/errno.h>
#include <linux/resource.h>
#include <linux/wait.h>

int task_init_status;
#define INIT_PID	1

/* Linux's status word as a shell shows it: the code, or 128 + signal. */
static int shell_status(int wstatus)
{
	return wstatus & 0x7f ? 128 + (wstatus & 0x7f) : (wstatus >> 8) & 0xff;
}

/* Has every thread of t's process exited? */
static bool process_dead(const struct task *leader)
{
	if (leader->state != TASK_ZOMBIE)
		return false;
	for (struct task *s = sched_first(); s; s = s->next)
		if (s->tgid == leader->tgid && s->state != TASK_ZOMBIE)
			return false;
	return true;
}

/* Who adopts the children of the dead process leader: the nearest living
 * subreaper among its ancestors, else init, else no one (the kernel). */
static struct task *new_reaper(struct task *leader)
{
	for (struct task *a = leader->parent; a; a = a->parent)
		if (a->child_subreaper && !process_dead(a))
			return a;
	struct task *init = task_by_pid(INIT_PID);
	if (init == leader || (init && init->state == TASK_ZOMBIE))
		return NULL;
	return init;
}

/* The process of leader is gone: its parent gets exit_signal (SIGCHLD). */
static void notify_parent(struct task *leader)
{
	struct task *p = leader->parent;
	int ws = leader->wait_status;

	if (!p || !leader->exit_signal)
		return;
	siginfo_t info = { .si_signo = leader->exit_signal,
			   .si_code = ws & 0x7f ? CLD_KILLED : CLD_EXITED };
	info.si_pid = leader->tgid;
	info.si_status = ws & 0x7f ? ws & 0x7f : (ws >> 8) & 0xff;
	signal_send(p, leader->exit_signal, &info);
}

/* Free the tasks nobody will wait for: exited threads other than a
 * leader, and processes whose parent is the kernel. Never current (its
 * stack is in use): called after a switch, when every other task is off
 * the CPU. */
void task_reap_dead(void)
{
	struct task *t = sched_first(), *next;

	for (; t; t = next) {
		next = t->next;
		if (t == current || t->state != TASK_ZOMBIE)
			continue;
		bool thread = t != t->leader;
		if (!thread && (t->parent || !process_dead(t)))
			continue;
		if (thread && task_by_pid(t->tgid) == t->leader)	/* not reaped before it */
			t->leader->dead_threads_tsc += t->sum_exec_tsc;
		if (t->pid == INIT_PID) {
			/* init is gone: so is everything else (Linux would panic). */
			task_init_status = shell_status(t->wait_status);
			for (struct task *s = sched_first(); s; s = s->next)
				if (s != t && s->state != TASK_ZOMBIE)
					signal_force(s, SIGKILL, NULL);
		}
		sched_remove(t);
		task_free(t);
		next = sched_first();	/* the list changed: start over */
	}
}

/* The thread t has exited: the tasks it made (and their threads) pass to a
 * living thread of its process, else to the process's new reaper, and each
 * that asked (PR_SET_PDEATHSIG) gets its signal, as Linux's
 * forget_original_parent sends it at every such change. */
static void orphan_threads_children(struct task *t, struct task *leader)
{
	struct task *heir = NULL, *c;

	for (c = sched_first(); c && !heir; c = c->next)
		if (c->tgid == t->tgid && c->state != TASK_ZOMBIE && !c->exiting)
			heir = c;
	if (!heir)
		heir = new_reaper(leader);
	for (c = sched_first(); c; c = c->next) {
		if (c->creator != t)
			continue;
		c->creator = heir;
		if (c->pdeath_signal && c->state != TASK_ZOMBIE)
			signal_send(c, c->pdeath_signal, NULL);
	}
}

static void kill_other_threads(struct task *t)
{
	for (struct task *s = sched_first(); s; s = s->next)
		if (s->tgid == t->tgid && s != t && s->state != TASK_ZOMBIE && !s->exiting)
			signal_force(s, SIGKILL, NULL);
}

__noreturn void task_exit(int wstatus, bool group)
{
	struct task *t = current, *leader = t->leader;

	t->exiting = true;
	if (group || leader->group_exit) {
		if (!leader->group_exit) {
			leader->group_exit = true;
			leader->wait_status = wstatus;	/* the process's status */
		}
		kill_other_threads(t);
	}
	t->wait_status = leader->group_exit && t == leader ? leader->wait_status : wstatus;
	/* Linux's mm_release: the tid word cleared and its waiter woken. */
	futex_exit_robust_list(t);
	if (t->clear_child_tid && !put_user(0, (int *)t->clear_child_tid))
		futex_wake_address(t->us, t->clear_child_tid, 1, ~0u);
	perf_log_task_exit(t);		/* PERF_RECORD_EXIT */
	perf_event_exit_task(t);	/* its events stop */
	fd_table_put(t->fds);
	t->fds = NULL;
	if (t->cwd)
		inode_put(t->cwd);
	t->cwd = NULL;
	cli();
	uspace_activate(NULL);
	uspace_put(t->us);
	t->us = NULL;
	t->vfork_parent = NULL;		/* a vfork parent runs on */
	t->state = TASK_ZOMBIE;
	orphan_threads_children(t, leader);
	if (process_dead(leader)) {
		itimers_exit(leader);	/* no signal for the dead */
		/* Orphans go to the nearest living subreaper above (Linux's
		 * find_new_reaper) or init (or, init gone, to the kernel, which
		 * reaps them); a zombie among them tells its new parent at once. */
		struct task *reaper = new_reaper(leader);
		for (struct task *c = sched_first(); c; c = c->next) {
			if (c->parent != leader)
				continue;
			c->parent = reaper;
			if (reaper && c == c->leader && process_dead(c))
				notify_parent(c);
		}
		notify_parent(leader);
	}
	sched_wakeup();	/* waiters on other CPUs (wait4, exec, a vfork parent) look */
	schedule();
	panic("an exited task was resumed");
}

long sys_exit(long code)
{
	task_exit((code & 0xff) << 8, false);
}

long sys_exit_group(long code)
{
	task_exit((code & 0xff) << 8, true);
}

/* ---- wait4, waitid ---- */

struct wait_opts {
	int type;		/* P_ALL, P_PID, P_PGID */
	int id;
	int options;
	struct task *found;	/* a child that can be reported */
	bool any;		/* a child matches at all */
};

static bool child_matches(const struct wait_opts *w, const struct task *c)
{
	if (c->parent != current->leader || c != c->leader)
		return false;
	/* __WCLONE: only children that do not send SIGCHLD; __WALL: both. */
	if (!(w->options & __WALL) && !!(w->options & __WCLONE) != (c->exit_signal != SIGCHLD))
		return false;
	switch (w->type) {
	case P_PID:
		return c->tgid == w->id;
	case P_PGID:
		return c->pgid == w->id;
	default:
		return true;
	}
}

static bool scan_children(void *arg)
{
	struct wait_opts *w = arg;

	w->found = NULL;
	w->any = false;
	for (struct task *c = sched_first(); c; c = c->next) {
		if (!child_matches(w, c))
			continue;
		w->any = true;
		if (process_dead(c)) {
			w->found = c;
			return true;
		}
	}
	return !w->any;
}

/* Wait as Linux's do_wait: a child to report, 0 for WNOHANG, -ECHILD when
 * none matches, -ERESTARTSYS when a signal comes. */
static long do_wait(struct wait_opts *w)
{
	for (;;) {
		if (scan_children(w))
			return w->found ? 0 : -ECHILD;
		if (w->options & WNOHANG)
			return 1;
		if (task_wait(scan_children, w, 0))
			return -ERESTARTSYS;
	}
}

static void fill_rusage(const struct task *c, struct rusage *ru)
{
	uint64_t ns = tsc_to_ns(task_process_cputime_tsc(c) + c->child_exec_tsc);

	*ru = (struct rusage){ 0 };
	ru->ru_utime.tv_sec = ns / 1000000000ul;
	ru->ru_utime.tv_usec = ns % 1000000000ul / 1000;
}

/* Report c and, unless WNOWAIT, reap it. */
static void reap(struct task *c, bool keep)
{
	if (keep)
		return;
	current->leader->child_exec_tsc += task_process_cputime_tsc(c) + c->child_exec_tsc;
	sched_remove(c);
	task_free(c);
}

long sys_wait4(long pid, long ustatus, long options, long urusage)
{
	pid = (int)pid, options = (int)options;	/* pid_t, int: sign-extended as Linux does */
	struct wait_opts w = { .options = options };

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	if ((int)pid == -2147483647 - 1)	/* INT_MIN: no such group */
		return -ESRCH;
	if (pid < -1)
		w.type = P_PGID, w.id = -pid;
	else if (pid == 0)
		w.type = P_PGID, w.id = current->pgid;
	else if (pid > 0)
		w.type = P_PID, w.id = pid;
	long r = do_wait(&w);
	if (r)
		return r == 1 ? 0 : r;
	struct task *c = w.found;
	struct rusage ru;
	int ws = c->wait_status;
	fill_rusage(c, &ru);
	if ((ustatus && put_user(ws, (int *)ustatus)) ||
	    (urusage && copy_to_user((void *)urusage, &ru, sizeof(ru))))
		return -EFAULT;
	int tgid = c->tgid;
	reap(c, false);
	return tgid;
}

long sys_waitid(long idtype, long id, long uinfo, long options, long urusage)
{
	idtype = (int)idtype, id = (int)id, options = (int)options;
	struct wait_opts w = { .options = options };

	if (options & ~(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED | __WNOTHREAD |
			__WCLONE | __WALL))
		return -EINVAL;
	if (!(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	switch (idtype) {
	case P_ALL:
		break;
	case P_PID:
	case P_PGID:
		if (id <= 0 && !(idtype == P_PGID && id == 0))
			return -EINVAL;
		w.type = idtype;
		w.id = idtype == P_PGID && !id ? current->pgid : id;
		break;
	default:
		return -EINVAL;
	}
	if (!(options & WEXITED))
		return (options & WNOHANG) ? 0 : -ECHILD;	/* no stops here */
	long r = do_wait(&w);
	siginfo_t info = { 0 };
	if (r < 0)
		return r;
	if (r == 0) {
		struct task *c = w.found;
		int ws = c->wait_status;
		info.si_signo = SIGCHLD;
		info.si_code = ws & 0x7f ? CLD_KILLED : CLD_EXITED;
		info.si_pid = c->tgid;
		info.si_status = ws & 0x7f ? ws & 0x7f : (ws >> 8) & 0xff;
		struct rusage ru;
		fill_rusage(c, &ru);
		if (urusage && copy_to_user((void *)urusage, &ru, sizeof(ru)))
			return -EFAULT;
		reap(c, options & WNOWAIT);
	}
	/* WNOHANG with nothing to report: a zeroed siginfo, as Linux leaves it. */
	if (uinfo && copy_to_user((void *)uinfo, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}
