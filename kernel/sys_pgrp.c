/* Process groups and sessions: setpgid, getpgid, getpgrp, setsid, getsid,
 * with Linux's rules (kernel/sys.c): a child's group may be changed by its
 * parent until it execs, never a session leader's, and only to a group of
 * the same session. Every thread of a process carries its ids. */
#include "syscall.h"
#include "sched.h"
#include "task.h"
#include <asm-generic/errno.h>

static void set_ids(int tgid, int pgid, int sid)
{
	for (struct task *t = sched_first(); t; t = t->next) {
		if (t->tgid == tgid) {
			t->pgid = pgid;
			t->sid = sid;
		}
	}
}

long sys_setpgid(long pid, long pgid)
{
	pid = (int)pid, pgid = (int)pgid;
	struct task *leader = current->leader, *p;

	pid = (int)pid, pgid = (int)pgid;
	if (!pid)
		pid = leader->tgid;
	if (!pgid)
		pgid = pid;
	if (pgid < 0)
		return -EINVAL;
	if (!(p = task_by_pid(pid)))
		return -ESRCH;
	if (p != p->leader)
		return -EINVAL;
	if (p->parent == leader) {
		if (p->sid != leader->sid)
			return -EPERM;
		if (p->did_exec)
			return -EACCES;
	} else if (p != leader) {
		return -ESRCH;
	}
	if (p->sid == p->tgid)		/* a session leader */
		return -EPERM;
	if (pgid != pid) {
		bool found = false;
		for (struct task *g = sched_first(); g && !found; g = g->next)
			found = g->pgid == pgid && g->sid == leader->sid && g->state != TASK_ZOMBIE;
		if (!found)
			return -EPERM;
	}
	set_ids(p->tgid, pgid, p->sid);
	return 0;
}

/* A process's ids: 0 names the caller. */
static long ids_of(long pid, struct task **t)
{
	*t = (int)pid ? task_by_pid((int)pid) : current;
	return *t ? 0 : -ESRCH;
}

long sys_getpgid(long pid)
{
	pid = (int)pid;
	struct task *t;

	return ids_of(pid, &t) ?: t->pgid;
}

long sys_getpgrp(void)
{
	return current->pgid;
}

long sys_getsid(long pid)
{
	pid = (int)pid;
	struct task *t;

	return ids_of(pid, &t) ?: t->sid;
}

long sys_setsid(void)
{
	int id = current->tgid;

	for (struct task *t = sched_first(); t; t = t->next)
		if (t->pgid == id)
			return -EPERM;		/* already a group's id */
	set_ids(id, id, id);
	return id;
}
