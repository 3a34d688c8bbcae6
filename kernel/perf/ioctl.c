/* ioctl() on a perf event: Linux 6.1's commands and answers (kernel/events/
 * core.c _perf_ioctl), matched on the full command word, plus pmuos's
 * PERF_EVENT_IOC_FLUSH (seed 000). */
#include "internal.h"
#include "../fd.h"
#include "../kernel_lock.h"
#include "../task.h"
#include "../x86.h"
#include "../mm/kmalloc.h"
#include "../mm/uaccess.h"
#include <asm-generic/errno.h>
#include <pmuos/perf_ext.h>

typedef void (*event_fn)(struct perf_event *e);

static void copy_apply(struct perf_event *c, void *fn)
{
	((event_fn)fn)(c);
}

/* fn on e and on its live copies (inherit), as Linux's perf_event_for_each_child. */
static void with_copies(struct perf_event *e, event_fn fn)
{
	fn(e);
	perf_event_for_each_copy(e, copy_apply, (void *)fn);
}

/* PERF_IOC_FLAG_GROUP applies fn to the whole group of e. */
static void for_each_target(struct perf_event *e, unsigned long flags, event_fn fn)
{
	if (!(flags & PERF_IOC_FLAG_GROUP)) {
		with_copies(e, fn);
		return;
	}
	struct perf_event *l = e->group_leader;
	with_copies(l, fn);
	for_each_sibling(s, l)
		with_copies(s, fn);
}

static void copy_enable(struct perf_event *c)
{
	perf_event_enable(c);
}

static void copy_disable(struct perf_event *c)
{
	perf_event_disable(c);
}

/* ENABLE/DISABLE: with PERF_IOC_FLAG_GROUP the whole group changes at once. */
static long set_enabled(struct perf_event *e, unsigned long flags, bool enable)
{
	struct perf_event *l = e->group_leader, *small[16], **list = small;
	int n = 0;

	if (!(flags & PERF_IOC_FLAG_GROUP)) {
		perf_events_set_enabled(&e, 1, enable);
		perf_event_for_each_copy(e, copy_apply, enable ? copy_enable : copy_disable);
		return 0;
	}
	if (l->nr_siblings + 1 > (int)ARRAY_SIZE(small) &&
	    !(list = kmalloc((l->nr_siblings + 1) * sizeof(*list))))
		return -ENOMEM;
	list[n++] = l;
	for_each_sibling(s, l)
		list[n++] = s;
	perf_events_set_enabled(list, n, enable);
	/* The copies: each group of a child's whole, one after the other. */
	for (int i = 0; i < n; i++)
		perf_event_for_each_copy(list[i], copy_apply, enable ? copy_enable : copy_disable);
	if (list != small)
		kfree(list);
	return 0;
}

struct period_call {
	struct perf_event *e;
	uint64_t value;
};

/* Seed 004: a new period keeps the counter; stop and start only. On the
 * CPU where the event is active, if it is: its PMU (a clock's timer) is
 * that CPU's. */
static void set_period_here(void *arg)
{
	struct period_call *c = arg;
	struct perf_event *e = c->e;
	uint64_t flags = irq_save();
	bool active = e->state == PERF_EVENT_STATE_ACTIVE;

	if (active)
		e->pmu->stop(e, PERF_EF_UPDATE);
	if (e->attr.freq) {
		e->attr.sample_freq = c->value;
	} else {
		e->attr.sample_period = c->value;
		e->hw.sample_period = c->value;
	}
	e->hw.period_left = 0;
	if (active)
		e->pmu->start(e, PERF_EF_RELOAD);
	perf_event_update_userpage(e);
	irq_restore(flags);
}

static long set_period(struct perf_event *e, uint64_t value)
{
	if (!is_sampling_event(e) || !value)
		return -EINVAL;
	if (e->attr.freq && value > perf_max_sample_rate())
		return -EINVAL;
	if (!e->attr.freq && (value >> 63))
		return -EINVAL;
	perf_event_call(e, set_period_here, &(struct period_call){ e, value });
	return 0;
}

/* Linux's perf_event_set_output: the target must be mapped, on the same
 * CPU or task, write in the same direction; a mapped event stays put. */
static long set_output(struct perf_event *e, unsigned long arg)
{
	struct perf_event *out = NULL;

	if (arg != -1ul) {
		struct file *f = fd_get(current->fds, (unsigned int)arg);
		if (!f || !is_perf_file(f))
			return -EBADF;
		out = f->priv;
		if (out == e || out->cpu != e->cpu ||
		    (out->cpu == -1 && out->ctx != e->ctx) ||
		    out->attr.write_backward != e->attr.write_backward ||
		    out->attr.use_clockid != e->attr.use_clockid ||
		    (out->attr.use_clockid && out->attr.clockid != e->attr.clockid))
			return -EINVAL;
	}
	return perf_event_set_output(e, out);
}

/* An event of the caller's own task that counts wherever the task runs
 * and has no copies (inherit): its context's lists, its PMU state and its
 * ring's writers are on this CPU, where other CPUs' operations on it come
 * by IPI (ctx_elsewhere, perf_event_call), which wait while interrupts are
 * off here. So ENABLE, DISABLE and RESET of it, done here with interrupts
 * off, need no kernel lock (sys_ioctl_lockless) and no IPI. */
static bool own_event(const struct perf_event *e)
{
	const struct perf_event_context *ctx = e->ctx;

	return ctx && ctx->task == current && e->cpu == -1 && !e->nr_copies;
}

/* Everything but the fast paths, inside the kernel lock; apart, so the
 * fast paths keep few registers. */
static __attribute__((noinline)) long ioctl_locked(struct perf_event *e, unsigned cmd,
						   unsigned long arg)
{
	kernel_lock();
	long ret = perf_ioctl(e, cmd, arg);
	kernel_unlock();
	return ret;
}

/* ioctl() of an event's file: RESET, ENABLE and DISABLE of one event of
 * the caller's own first (process context, interrupts on: off around the
 * PMU's read, as perf_event_reset does). */
long perf_file_ioctl(struct file *f, unsigned cmd, unsigned long arg)
{
	struct perf_event *e = f->priv;

	/* One CPU (the kernel lock off): any event's RESET; its copies are
	 * perf_ioctl's. */
	if (likely(cmd == PERF_EVENT_IOC_RESET && !(arg & PERF_IOC_FLAG_GROUP) &&
		   !e->nr_copies && (likely(!kernel_lock_on) || own_event(e)))) {
		if (unlikely(e->rb)) {
			perf_event_reset(e);	/* its control page, where it is written */
			return 0;
		}
		cli();
		perf_event_fold(e);	/* the counter in; the times go on */
		e->count = 0;
		sti();
		return 0;
	}
	if ((cmd == PERF_EVENT_IOC_ENABLE || cmd == PERF_EVENT_IOC_DISABLE) &&
	    !(arg & PERF_IOC_FLAG_GROUP) && own_event(e)) {
		perf_events_set_enabled(&e, 1, cmd == PERF_EVENT_IOC_ENABLE);
		return 0;
	}
	return ioctl_locked(e, cmd, arg);
}

long perf_ioctl(struct perf_event *e, unsigned cmd, unsigned long arg)
{
	switch (cmd) {
	case PERF_EVENT_IOC_ENABLE:
		return set_enabled(e, arg, true);
	case PERF_EVENT_IOC_DISABLE:
		return set_enabled(e, arg, false);
	case PERF_EVENT_IOC_RESET:
		for_each_target(e, arg, perf_event_reset);
		return 0;
	case PERF_EVENT_IOC_REFRESH:
		if (e->attr.inherit || !is_sampling_event(e))
			return -EINVAL;
		e->event_limit += (int)arg;
		perf_event_enable(e);
		return 0;
	case PERF_EVENT_IOC_PERIOD: {
		uint64_t value;
		if (copy_from_user(&value, (void *)arg, sizeof(value)))
			return -EFAULT;
		return set_period(e, value);
	}
	case PERF_EVENT_IOC_ID:
		return put_user(e->id, (uint64_t *)arg) ? -EFAULT : 0;
	case PERF_EVENT_IOC_SET_OUTPUT:
		return set_output(e, arg);
	case PERF_EVENT_IOC_SET_FILTER: {
		/* Only tracepoints and address filters take filters: none here.
		 * Linux copies the string first, so a bad pointer is EFAULT. */
		char c;
		return copy_from_user(&c, (void *)arg, 1) ? -EFAULT : -EINVAL;
	}
	case PERF_EVENT_IOC_SET_BPF:
		/* No BPF: a descriptor that is not a BPF program. */
		return fd_get(current->fds, (int)(uint32_t)arg) ? -EINVAL : -EBADF;
	case PERF_EVENT_IOC_PAUSE_OUTPUT:
		if (!e->rb || !e->rb->nr_pages)
			return -EINVAL;
		e->rb->paused = !!arg;
		return 0;
	case PERF_EVENT_IOC_QUERY_BPF:
		return -EINVAL;		/* tracepoints only */
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES: {
		struct perf_event_attr attr;
		int err = perf_copy_attr((void *)arg, &attr);
		if (err)
			return err;
		if (attr.type != e->attr.type)
			return -EINVAL;
		if (!e->pmu->modify)
			return -EOPNOTSUPP;	/* breakpoints only */
		/* As Linux: sig_data first, then the PMU's own fields with the
		 * event disabled; attr.disabled says whether it runs after,
		 * whatever came of the change. */
		e->attr.sig_data = attr.sig_data;
		perf_event_disable(e);
		err = e->pmu->modify(e, &attr);
		if (!e->attr.disabled)
			perf_event_enable(e);
		return err;
	}
	case PERF_EVENT_IOC_DETACH:
		return perf_event_detach(e);
	case PERF_EVENT_IOC_ATTACH:
		return perf_event_attach(e);
	case PERF_EVENT_IOC_FLUSH:
		if (e->pmu->flush)
			perf_event_flush(e);
		return 0;
	default:
		return -ENOTTY;
	}
}
