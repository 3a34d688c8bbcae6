/* read() of a perf event: the read_format layouts (include/uapi/linux/
 * perf_event.h), for one event or its whole group. */
#include "internal.h"
#include "layout.h"
#include "../fd.h"
#include "../kernel_lock.h"
#include "../mm/kmalloc.h"
#include "../mm/uaccess.h"
#include <asm-generic/errno.h>

/* Bytes a read needs: Linux refuses a shorter buffer with ENOSPC. */
static size_t read_size(const struct perf_event *e, uint64_t fmt)
{
	return perf_read_words(fmt, e->group_leader->nr_siblings) * 8;
}

/* What read() reports of e (its count and times brought up to date first):
 * its own, its exited copies' and its live copies' (inherit). */
struct reading {
	uint64_t value, enabled, running;
};

static struct reading reading_of(struct perf_event *e)
{
	struct reading r = {
		.value = e->count + e->child_count,
		.enabled = e->total_time_enabled + e->child_total_time_enabled,
		.running = e->total_time_running + e->child_total_time_running,
	};

	perf_event_read_copies(e, &r.value, &r.enabled, &r.running);
	return r;
}

static uint64_t *put_entry(uint64_t *p, struct perf_event *e, uint64_t fmt)
{
	*p++ = reading_of(e).value;
	if (fmt & PERF_FORMAT_ID)
		*p++ = e->id;
	if (fmt & PERF_FORMAT_LOST)
		*p++ = e->lost_samples;
	return p;
}

static long read_formatted(struct perf_event *e, uint64_t fmt, char *ubuf, size_t n);

/* Every other read, inside the kernel lock (file_ops.lockless: only the fast
 * path goes without); apart, so the fast path keeps few registers. */
static __attribute__((noinline)) long read_locked(struct file *f, char *ubuf, size_t n)
{
	kernel_lock();
	long ret = read_formatted(f->priv, f->read_format, ubuf, n);
	kernel_unlock();
	return ret;
}

/* The common read first: a lone value, no times, no ids (read_format 0),
 * one word copied as one. A file op runs in process context, interrupts
 * on: off around the PMU's read, as perf_event_read_count does.
 *
 * Without the kernel lock (sys_read_lockless) on several CPUs, this reads
 * e alone. e lives as long as the caller's hold on the file: its own
 * descriptor while the table is the caller's alone, else a reference
 * (fd_get_file); another task's close drops only its own. An e active on this CPU stays
 * so with interrupts off: other CPUs change it here by IPI, which waits;
 * one not active reads the count its last fold left. One active on another
 * CPU is read inside the lock, by IPI: four CPUs' threads reading each
 * other's events without it, each waiting for another's answer with
 * interrupts off, took the fuzzer's races past 20 s of virtual time under
 * QEMU's icount round robin (SMP=4, seeds 12 and 13).
 * The copies of an inherited event and read_format's other fields walk
 * lists that tasks on other CPUs change: those reads take the lock. */
long perf_file_read(struct file *f, char *ubuf, size_t n)
{
	struct perf_event *e = f->priv;

	if (unlikely(f->read_format || e->nr_copies || n < sizeof(uint64_t)))
		return read_locked(f, ubuf, n);
	cli();
	if (likely(e->state == PERF_EVENT_STATE_ACTIVE)) {
		if (unlikely(e->oncpu != smp_processor_id())) {
			sti();		/* an IPI's wait: as before, one CPU at a time */
			return read_locked(f, ubuf, n);
		}
		e->pmu->read(e);
	} else if (e->state == PERF_EVENT_STATE_ERROR) {
		sti();
		return 0;	/* as read_formatted */
	}
	sti();
	/* sys_read checked [ubuf, ubuf + n). */
	return __put_user_u64(e->count + e->child_count, ubuf) ? -EFAULT : (long)sizeof(uint64_t);
}

static long read_formatted(struct perf_event *e, uint64_t fmt, char *ubuf, size_t n)
{
	uint64_t small[16];
	size_t size = read_size(e, fmt);

	if (e->state == PERF_EVENT_STATE_ERROR)
		return 0;
	if (n < size)
		return -ENOSPC;
	uint64_t *buf = size <= sizeof(small) ? small : kmalloc(size), *p = buf;
	if (!buf)
		return -ENOMEM;

	if (!(fmt & PERF_FORMAT_GROUP)) {
		/* { value, time_enabled, time_running, id, lost } */
		if (fmt & (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING))
			perf_event_read_update(e);
		else
			perf_event_read_count(e);	/* the times are not asked for */
		struct reading r = reading_of(e);
		*p++ = r.value;
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			*p++ = r.enabled;
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			*p++ = r.running;
		if (fmt & PERF_FORMAT_ID)
			*p++ = e->id;
		if (fmt & PERF_FORMAT_LOST)
			*p++ = e->lost_samples;
	} else {
		/* { nr, time_enabled, time_running, { value, id, lost } [nr] },
		 * the times being the leader's. */
		struct perf_event *l = e->group_leader;
		perf_event_read_update(l);
		struct reading r = reading_of(l);
		*p++ = 1 + l->nr_siblings;
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			*p++ = r.enabled;
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			*p++ = r.running;
		p = put_entry(p, l, fmt);
		for_each_sibling(s, l) {
			perf_event_read_update(s);
			p = put_entry(p, s, fmt);
		}
	}
	long r = copy_to_user(ubuf, buf, size) ? -EFAULT : (long)size;
	if (buf != small)
		kfree(buf);
	return r;
}
