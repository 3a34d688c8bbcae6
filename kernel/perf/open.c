/* perf_event_open(2) and the perf event file: Linux 6.1's checks in Linux's
 * order (kernel/events/core.c), so each bad argument gets Linux's errno. */
#include "internal.h"
#include "../fd.h"
#include "../syscall.h"
#include "../task.h"
#include "../lib/string.h"
#include "../mm/kmalloc.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/poll.h>
#include <linux/time.h>
#include <pmuos/perf_ext.h>

static unsigned perf_file_poll(struct file *f)
{
	return perf_event_poll(f->priv);
}

static void perf_file_stat(struct file *f, unsigned *mode, long *size)
{
	*mode = 0600;		/* an anonymous inode: no file type bits */
	*size = 0;
}

static void perf_file_release(struct file *f)
{
	struct perf_event *e = f->priv;

	if (e->file == f)
		e->file = NULL;
	perf_event_put(e);
}

static const struct file_ops perf_fops = {
	.name = "anon_inode:[perf_event]",
	.read = perf_file_read,
	.lockless = true,
	.ioctl = perf_file_ioctl,
	.poll = perf_file_poll,
	.mmap = perf_mmap,
	.stat = perf_file_stat,
	.release = perf_file_release,
};

bool is_perf_file(const struct file *f)
{
	return f->ops == &perf_fops;
}

struct file *perf_event_file(struct perf_event *e)
{
	struct file *f = file_new(&perf_fops, e, O_RDWR);

	if (f) {
		f->read_format = e->attr.read_format;
		perf_event_get(e);
		if (!e->file)
			e->file = f;
	}
	return f;
}

static bool is_software(const struct perf_event *e)
{
	return e->pmu->type == PERF_TYPE_SOFTWARE;
}

static int valid_clockid(int clockid)
{
	switch (clockid) {
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		return 0;
	default:
		return -EINVAL;
	}
}

/* The group checks of Linux's perf_event_open, for event e joining l. */
static int check_group(struct perf_event *e, struct perf_event *l,
		       struct perf_event_context *ctx)
{
	if (l->group_leader != l || l->ctx != ctx || l->cpu != e->cpu)
		return -EINVAL;
	if (e->attr.exclusive || e->attr.pinned)
		return -EINVAL;		/* only a leader can be */
	if (e->attr.use_clockid != l->attr.use_clockid ||
	    (e->attr.use_clockid && e->attr.clockid != l->attr.clockid))
		return -EINVAL;
	/* One PMU per group; software events may join any group, and a
	 * hardware event may join a group of software events. */
	if (!is_software(e) && !is_software(l) && e->pmu != l->pmu)
		return -EINVAL;
	for_each_sibling(s, l)
		if (!is_software(e) && !is_software(s) && e->pmu != s->pmu)
			return -EINVAL;
	return 0;
}

/* Before perf_event_init: give e back and return err. */
static long discard(struct perf_event *e, long err)
{
	perf_event_discard(e);
	return err;
}

/* The rest of perf_event_open for e, whose attr holds the user's: e is
 * installed (the new descriptor is returned) or freed (an errno). */
static __always_inline long
open_event(struct perf_event *e, int pid, int cpu, int group_fd, unsigned long flags)
{
	const struct perf_event_attr *attr = &e->attr;
	struct perf_event *leader = NULL, *output = NULL;
	struct task *task = NULL;
	int err;

	if (perf_is_persistent_type(attr->type))
		return discard(e, perf_persistent_open(attr, pid, cpu, group_fd, flags));
	if (attr->freq ? attr->sample_freq > perf_max_sample_rate() : attr->sample_period >> 63)
		return discard(e, -EINVAL);
	if ((flags & PERF_FLAG_PID_CGROUP) && (pid == -1 || cpu == -1))
		return discard(e, -EINVAL);
	/* Linux takes the descriptor number first. */
	int fd = fd_unused(current->fds, 0);
	if (fd < 0)
		return discard(e, fd);
	if (group_fd != -1) {
		struct file *g = fd_get(current->fds, group_fd);
		if (!g || !is_perf_file(g))
			return discard(e, -EBADF);
		leader = g->priv;
		if (flags & PERF_FLAG_FD_OUTPUT)
			output = leader;
		if (flags & PERF_FLAG_FD_NO_GROUP)
			leader = NULL;
	}
	if (pid != -1 && !(flags & PERF_FLAG_PID_CGROUP)) {
		/* A thread by its tid, any task's: every caller is root. */
		task = pid ? task_by_pid((int)pid) : current;
		if (!task || task->state == TASK_ZOMBIE || task->exiting)
			return discard(e, -ESRCH);
	}
	if (task && leader && leader->attr.inherit != attr->inherit)
		return discard(e, -EINVAL);
	/* Every possible CPU is online: no ENODEV. */
	if ((unsigned int)cpu >= (unsigned int)nr_cpus && (!task || cpu != -1))
		return discard(e, -EINVAL);
	if (unlikely(perf_attr_flags(attr) & (ATTR_FLAG_SIGTRAP | ATTR_FLAG_INHERIT))) {
		if (attr->sigtrap && !task)
			return discard(e, -EINVAL);
		if (attr->inherit && (attr->sample_type & PERF_SAMPLE_READ))
			return discard(e, -EINVAL);
	}

	e->target_pid = task ? task->pid : 0;	/* before the PMU's event_init */
	e->cpu = cpu;
	if (!(e = perf_event_init(e, leader, &err)))
		return err;
	if (unlikely((flags & PERF_FLAG_PID_CGROUP) ||
		     (perf_attr_flags(attr) & (ATTR_FLAG_AUX_OUTPUT | ATTR_FLAG_USE_CLOCKID)))) {
		if (flags & PERF_FLAG_PID_CGROUP)
			err = -EBADF;	/* no cgroup directories here */
		else if (attr->aux_output && !(e->pmu->capabilities & PERF_PMU_CAP_AUX_OUTPUT))
			err = -EOPNOTSUPP;
	}
	if (!err && is_sampling_event(e) && (e->pmu->capabilities & PERF_PMU_CAP_NO_INTERRUPT))
		err = -EOPNOTSUPP;
	else if (!err && attr->use_clockid)
		err = valid_clockid(attr->clockid);
	if (!err)
		err = perf_sample_event_init(e);	/* what a sample can hold */
	if (err)
		goto fail;

	struct perf_event_context *ctx = task ? perf_task_context(task) : perf_cpu_context(cpu);
	if (leader && (err = check_group(e, leader, ctx)))
		goto fail;
	if (output && (output->cpu != e->cpu || (output->cpu == -1 && output->ctx != ctx) ||
		       output->attr.write_backward != attr->write_backward ||
		       (err = perf_event_set_output(e, output)))) {
		err = -EINVAL;
		goto fail;
	}
	struct file *f = file_new(&perf_fops, e, O_RDWR);
	err = -ENOMEM;
	if (!f)
		goto fail;
	f->read_format = attr->read_format;
	e->file = f;
	e->owner = current;
	fd_set_file(current->fds, fd, f);
	current->fds->cloexec[fd] = !!(flags & PERF_FLAG_FD_CLOEXEC);
	perf_install_in_context(ctx, e);
	if (perf_attr_persistent(attr))
		perf_event_detach(e);	/* attr->persistent (seed 001) */
	return fd;
fail:
	perf_event_free(e);
	return err;
}

long sys_perf_event_open(long uattr, long pid, long cpu, long group_fd, long flags)
{
	struct perf_event *e;
	int err;

	if (flags & ~(PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP |
		      PERF_FLAG_FD_CLOEXEC))
		return -EINVAL;
	/* The user's attr goes straight into the new event. */
	if (!(e = perf_event_new()))
		return -ENOMEM;
	if ((err = perf_copy_attr((void *)uattr, &e->attr)))
		return discard(e, err);
	return open_event(e, pid, cpu, group_fd, flags);	/* ints in Linux */
}
