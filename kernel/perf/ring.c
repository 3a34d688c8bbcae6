/* The data ring's writer (seed 003's output ABI, Linux 6.1's rules from
 * kernel/events/ring_buffer.c): perf_output_begin reserves room,
 * perf_output_copy fills it, perf_output_end publishes data_head and wakes
 * the reader; records dropped for want of room become a PERF_RECORD_LOST.
 *
 * One CPU writes a ring at a time, as Linux's local_t writer assumes: the
 * events of a ring all count on one CPU at a time, and every record is
 * written on the CPU where its event counts or would:
 *  - a ring is one event's (perf_mmap), and SET_OUTPUT joins events bound
 *    to one CPU, or, bound to none, of one task (ioctl.c's set_output,
 *    open.c's FD_OUTPUT). An inherited task event, whose copies run in
 *    other tasks, is neither mapped (perf_mmap) nor redirected
 *    (perf_event_set_output: pmuos's own, Linux 6.1 lets it through);
 *  - samples and THROTTLE come from the overflow where the event is active;
 *    side-band records from the current task, to its events and its CPU's,
 *    not to those bound to another CPU (records.c); AUX ones from the
 *    tracer where it traces (aux.c);
 *  - what another CPU starts runs where the event's context does
 *    (perf_event_call, by IPI): the UNTHROTTLE of the throttling CPU's
 *    timer (overflow.c), PERIOD, FLUSH, RESET's and mmap's control page,
 *    and an event letting go of the buffer before it is freed (mmap.c's
 *    rb_detach) or of its AUX area (put_aux). Where no CPU runs it (its
 *    task off every CPU, kept so by the kernel lock the caller holds)
 *    nobody else writes its ring.
 * The kernel lock alone would not do: the PMU's NMI writes without it.
 * On that CPU writers nest: a syscall's record can be interrupted by the
 * timer's, that by an NMI's, each finishing before the one it interrupted
 * goes on. So:
 *  - rb->head is advanced by a compare-and-exchange: a plain load and
 *    store would lose the reservation of a writer that ran in between;
 *  - counters (lost, wakeup, events) change by single read-modify-write
 *    instructions, which an interrupt cannot split;
 *  - rb->nest counts the writers inside begin..end; a nested writer
 *    returns it to the value it found, so a plain increment does, and only
 *    the outermost end publishes data_head (Linux's perf_output_put_handle).
 *    Writers on two CPUs would not nest: the outermost could publish
 *    another's record half written, and nest would lose counts.
 *
 * The reader runs on any CPU, beside the writer (include/uapi/linux/
 * perf_event.h):
 *
 *	kernel				user
 *	if (LOAD data_tail) {		LOAD data_head
 *			(A)		rmb			(C)
 *	    STORE record		LOAD records
 *	    wmb		(B)		mb			(D)
 *	    STORE data_head		STORE data_tail
 *	}
 *
 * (A) is the control dependency of the space check on data_tail. On x86
 * (TSO) stores become visible in program order and no store passes an
 * earlier load, so (B), like (A), only needs the compiler kept from
 * reordering: barrier(). */
#include "internal.h"
#include "layout.h"
#include "../apic.h"
#include "../cpu_stats.h"
#include "../panic.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../mm/paging.h"
#include <asm-generic/errno.h>
#include <linux/poll.h>

static uint64_t data_size(const struct perf_buffer *rb)
{
	return (uint64_t)rb->nr_pages * PAGE_SIZE;
}

/* Single instructions: atomic against interrupts on this CPU. */
static void local_add(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

/* ---- the self-test's NMI hook (kernel/perf/test/ring.c) ---- */

unsigned rb_nmi_point;

/* At write-path point n, when a self-test armed it: raise a self-NMI and
 * wait until it has been taken, so a nested writer runs exactly here. */
static inline void nmi_point(unsigned n)
{
	if (__builtin_expect(READ_ONCE(rb_nmi_point) != n, 1))
		return;
	WRITE_ONCE(rb_nmi_point, 0);
	unsigned long seen = READ_ONCE(this_cpu_stats()->nmis);
	apic_send_self(APIC_DM_NMI, 0);
	for (int spin = 0; spin < 100000 && READ_ONCE(this_cpu_stats()->nmis) == seen; spin++)
		pause();
}

/* ---- begin, copy, end ---- */

struct lost_record {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

static bool has_space(struct perf_buffer *rb, uint64_t head, uint64_t size, bool backward)
{
	uint64_t tail = READ_ONCE(rb->user_page->data_tail);

	return rb_has_room(head, tail, data_size(rb), size, backward);
}

static void output_wakeup(struct perf_output_handle *h)
{
	WRITE_ONCE(h->rb->poll, POLLIN);
	perf_pending_work(h->event);	/* SIGIO for O_ASYNC readers, after the NMI */
}

static void get_handle(struct perf_output_handle *h)
{
	struct perf_buffer *rb = h->rb;

	WRITE_ONCE(rb->nest, rb->nest + 1);
	barrier();
	h->wakeup = READ_ONCE(rb->wakeup);
}

/* Only the outermost writer publishes data_head, and wakes the reader for
 * the writers nested in it too (their wake-ups moved rb->wakeup). */
static void put_handle(struct perf_output_handle *h)
{
	struct perf_buffer *rb = h->rb;
	unsigned nest = READ_ONCE(rb->nest);
	uint64_t head;

	if (nest > 1) {
		WRITE_ONCE(rb->nest, nest - 1);
		return;
	}
again:
	nmi_point(4);
	barrier();
	head = READ_ONCE(rb->head);
	nmi_point(5);
	barrier();			/* (B): the records before data_head */
	WRITE_ONCE(rb->user_page->data_head, head);
	/* ...so publish before leaving nest, else a writer nested after this
	 * point publishes a newer head and this store would take it back. */
	barrier();
	nmi_point(6);
	WRITE_ONCE(rb->nest, 0);
	barrier();
	/* A writer that came between the load and nest = 0 did not publish. */
	nmi_point(7);
	if (head != READ_ONCE(rb->head)) {
		WRITE_ONCE(rb->nest, 1);
		goto again;
	}
	if (h->wakeup != READ_ONCE(rb->wakeup))
		output_wakeup(h);
}

int perf_output_begin(struct perf_output_handle *h, struct perf_event *e, unsigned size)
{
	struct perf_buffer *rb = READ_ONCE(e->rb);
	bool backward = e->attr.write_backward;
	uint64_t lost = 0, offset, head, id_sample[PERF_ID_SAMPLE_MAX];
	unsigned id_words = 0;

	if (!rb)
		return -ENOSPC;
	if (READ_ONCE(rb->paused)) {
		if (rb->nr_pages) {
			local_add(&rb->lost, 1);
			local_add(&e->lost_samples, 1);
		}
		return -ENOSPC;
	}
	/* Take the pending loss in one instruction, so that a nested writer
	 * cannot report it too; it goes back if this record fails as well. */
	if (READ_ONCE(rb->lost))
		lost = __atomic_exchange_n(&rb->lost, 0, __ATOMIC_RELAXED);
	if (lost) {
		id_words = perf_event_id_sample(e, id_sample);
		size += sizeof(struct lost_record) + id_words * sizeof(uint64_t);
	}

	h->rb = rb;
	h->event = e;
	get_handle(h);
	nmi_point(1);
	offset = READ_ONCE(rb->head);
	do {
		head = offset;
		if (rb->writable && !has_space(rb, head, size, backward))
			goto fail;
		head = backward ? head - size : head + size;
		nmi_point(2);
	} while (!__atomic_compare_exchange_n(&rb->head, &offset, head, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	/* Forward the record spans [offset, head), backward [head, offset). */
	uint64_t start = backward ? head : offset;
	uint64_t written = backward ? -head : head;
	/* The watermark wake-up: Linux's test, ">" included. */
	if (written - READ_ONCE(rb->wakeup) > rb->watermark)
		local_add(&rb->wakeup, rb->watermark);
	h->offset = h->head = start;
	h->end = start + size;
	if (lost) {
		struct lost_record r = {
			.header.type = PERF_RECORD_LOST,
			.header.size = sizeof(r) + id_words * sizeof(uint64_t),
			.id = perf_primary_id(e),	/* the original's, as Linux writes it */
			.lost = lost,
		};
		perf_output_copy(h, &r, sizeof(r));
		perf_output_copy(h, id_sample, id_words * sizeof(uint64_t));
		h->head = h->offset;	/* the caller's record */
	}
	nmi_point(3);
	return 0;
fail:
	local_add(&rb->lost, lost + 1);
	local_add(&e->lost_samples, 1);
	put_handle(h);
	return -ENOSPC;
}

void perf_output_copy(struct perf_output_handle *h, const void *buf, unsigned len)
{
	struct perf_buffer *rb = h->rb;
	uint64_t size = data_size(rb);

	assert(len <= h->end - h->offset);
	while (len) {
		unsigned n = MIN((uint64_t)len, rb_contig(h->offset, size));	/* a record may wrap */
		memcpy((char *)rb->data + rb_offset(h->offset, size), buf, n);
		buf = (const char *)buf + n;
		len -= n;
		h->offset += n;
		nmi_point(8);
	}
}

/* Linux's perf_output_sample counts samples, and only samples, towards
 * wakeup_events: rb->events is the buffer's, shared by the events that
 * write into it, each comparing it with its own wakeup_events. */
static void count_sample(struct perf_output_handle *h)
{
	struct perf_buffer *rb = h->rb;
	uint64_t n = h->event->attr.wakeup_events;

	if (h->event->attr.watermark || !n || h->end - h->head < sizeof(struct perf_event_header))
		return;
	const struct perf_event_header *hdr =
		(void *)((char *)rb->data + (h->head & (data_size(rb) - 1)));
	if (hdr->type != PERF_RECORD_SAMPLE)
		return;
	/* One cmpxchg decides both the count and the wake-up: a nested writer
	 * between an add and a subtract would subtract n twice. */
	uint64_t seen = READ_ONCE(rb->events), next;
	bool wake;
	do {
		wake = seen + 1 >= n;
		next = wake ? seen + 1 - n : seen + 1;
	} while (!__atomic_compare_exchange_n(&rb->events, &seen, next, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	if (wake)
		local_add(&rb->wakeup, 1);
}

void perf_output_end(struct perf_output_handle *h)
{
	count_sample(h);
	put_handle(h);
}

unsigned perf_event_poll(struct perf_event *e)
{
	/* Linux's is_event_hup: the task is gone (no children here). */
	if (e->state <= PERF_EVENT_STATE_EXIT)
		return POLLHUP;
	struct perf_buffer *rb = READ_ONCE(e->rb);
	if (!rb)
		return POLLHUP;		/* Linux too: nothing to wait for */
	return __atomic_exchange_n(&rb->poll, 0, __ATOMIC_RELAXED);
}
