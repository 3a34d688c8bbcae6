/* Persistent events (seed 001): an event that outlives its last fd. It is
 * made persistent by attr.persistent at open or PERF_EVENT_IOC_DETACH (which
 * returns its id), listed as /sys/bus/event_source/devices/persistent/
 * events/p<id> ("config=<id>"), reopened by perf_event_open with type =
 * the persistent PMU's dynamic type and config = id, and made mortal again
 * by PERF_EVENT_IOC_ATTACH.
 *
 * pmuos's decisions where the seed is silent: any program may reopen any
 * persistent event (every program has root's rights); a reopen names the
 * event's cpu (0 for CPU-wide events, -1 for task-bound ones) with pid -1;
 * a task-bound persistent event stops when its program exits and keeps its
 * final counts and its ring, readable and mappable through a reopened fd. */
#include "internal.h"
#include "../fd.h"
#include "../sysfs.h"
#include "../task.h"
#include "../lib/vsprintf.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <pmuos/perf_ext.h>

static struct perf_event *persistent_events;	/* newest first */

static const struct pmu_attr persistent_format[] = {
	{ "config", "config:0-63" },
	{ NULL, NULL },
};

/* The PMU only names the type; reopening never makes a new event. */
static int persistent_event_init(struct perf_event *e)
{
	return -ENOENT;
}

struct pmu perf_persistent_pmu = {
	.name = PMUOS_PERSISTENT_PMU_NAME,
	.type = -1,
	.capabilities = PERF_PMU_CAP_NO_INTERRUPT,
	.format = persistent_format,
	.event_init = persistent_event_init,
};

static bool sysfs_entry(long i, char *name, char *value, size_t value_size)
{
	struct perf_event *e = persistent_events;

	for (; e && i > 0; i--)
		e = e->persistent_next;
	if (!e)
		return false;
	snprintf(name, SYSFS_NAME_MAX, "p%lu", e->id);
	snprintf(value, value_size, "config=%lu", e->id);
	return true;
}

static struct sysfs_events_source sysfs_source = {
	.pmu = &perf_persistent_pmu,
	.entry = sysfs_entry,
};

void perf_persistent_init(void)
{
	perf_pmu_register(&perf_persistent_pmu);
	sysfs_add_events_source(&sysfs_source);
}

long perf_event_detach(struct perf_event *e)
{
	if (!e->persistent) {
		e->persistent = true;
		perf_event_get(e);	/* the reference no fd holds */
		e->persistent_next = persistent_events;
		persistent_events = e;
	}
	return e->id;
}

long perf_event_attach(struct perf_event *e)
{
	if (!e->persistent)
		return -EINVAL;
	for (struct perf_event **link = &persistent_events; *link;
	     link = &(*link)->persistent_next) {
		if (*link == e) {
			*link = e->persistent_next;
			break;
		}
	}
	e->persistent = false;
	e->persistent_next = NULL;
	if (e->rb && !e->rb->mmap_count)
		perf_event_release_rb(e);	/* kept only for a reopen */
	perf_event_put(e);	/* the caller's fd still holds one */
	return 0;
}

/* A reopen may only repeat the event's own settings: every attr byte after
 * config is zero or the event's, and flags a subset of the event's. What
 * perf stat asks of any event and changes nothing here is let through:
 * its read_format (the reopened fd reads in it), sample_type IDENTIFIER
 * (it samples nothing), disabled, inherit (a reopen makes no new event) and
 * exclude_guest (no guests run here). */
static bool attr_contradicts(const struct perf_event_attr *attr, const struct perf_event_attr *ev)
{
	struct perf_event_attr a = *attr;
	const uint8_t *x = (const uint8_t *)&a, *y = (const uint8_t *)ev;
	size_t flags_off = PMUOS_ATTR_FLAGS_OFFSET;

	/* perf_copy_attr turned a zero sample_max_stack into the default: nothing asked. */
	if (a.sample_max_stack == PERF_MAX_STACK_DEPTH)
		a.sample_max_stack = 0;
	a.read_format = 0;
	if (a.sample_type == PERF_SAMPLE_IDENTIFIER)
		a.sample_type = 0;

	for (size_t i = offsetof(struct perf_event_attr, sample_period); i < sizeof(a); i++) {
		if (i >= flags_off && i < flags_off + 8)
			continue;
		if (x[i] && x[i] != y[i])
			return true;
	}
	uint64_t fa, fe;
	__builtin_memcpy(&fa, x + flags_off, 8);
	__builtin_memcpy(&fe, y + flags_off, 8);
	const struct perf_event_attr ignored = { .disabled = 1, .inherit = 1, .exclude_guest = 1 };
	fa &= ~((1ull << PMUOS_ATTR_FLAG_PERSISTENT_BIT) | perf_attr_flags(&ignored));
	return (fa & ~fe) != 0;
}

long perf_persistent_open(const struct perf_event_attr *attr, int pid, int cpu,
			  int group_fd, unsigned long flags)
{
	struct perf_event *e = persistent_events;

	while (e && e->id != attr->config)
		e = e->persistent_next;
	if (!e)
		return -ENOENT;
	if (pid != -1 || cpu != e->cpu || group_fd != -1 || (flags & ~PERF_FLAG_FD_CLOEXEC) ||
	    attr_contradicts(attr, &e->attr))
		return -EINVAL;
	struct file *f = perf_event_file(e);
	if (!f)
		return -ENOMEM;
	f->read_format = attr->read_format;
	int fd = fd_install(current->fds, f, 0, flags & PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* The task of a task-bound persistent event ends: the event leaves the
 * task's context (which goes away) with its final counts. */
void perf_persistent_task_exit(struct task *t)
{
	for (struct perf_event *e = persistent_events; e; e = e->persistent_next)
		if (e->ctx && e->ctx->task == t)
			perf_remove_from_context(e);
}
