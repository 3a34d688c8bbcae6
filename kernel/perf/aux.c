/* The AUX area (seed 002; Linux 6.1's kernel/events/ring_buffer.c): a
 * second ring of a perf buffer that a tracing PMU fills in its own format,
 * mapped at aux_offset of the same fd (mmap.c), while PERF_RECORD_AUX
 * records in the data ring tell the reader where each new stretch lies.
 *
 * One writer at a time: a PMU writes between perf_aux_output_begin and
 * perf_aux_output_end with interrupts off. AUX data goes where the hardware
 * puts it, at the head, so a second writer inside the first's begin..end
 * would write over it: such a begin is refused and counted, never allowed
 * (Linux WARNs). Its writers are the data ring's, on one CPU (ring.c), and
 * with interrupts off only a driver bug, or the self-test that forces it,
 * can try.
 *
 * Ordering against the reader, as for the data ring (ring.c):
 *
 *	kernel				user
 *	if (LOAD aux_tail) {		LOAD aux_head
 *			(A)		rmb			(C)
 *	    STORE AUX data		LOAD AUX data
 *	    wmb		(B)		mb			(D)
 *	    STORE aux_head		STORE aux_tail
 *	}
 *
 * (A) is the control dependency of h->size on aux_tail; on x86 (B) needs
 * only the compiler held back: barrier(). Overwrite mode (a read-only AUX
 * mapping) has no aux_tail: the writer goes round and round.
 *
 * pmuos's one change to the API: in overwrite mode Linux's drivers hand
 * end() the new head through h->head; here end(h, size) means the same in
 * both modes, size bytes written at h->head, and begin offers the whole
 * area as h->size. */
#include "internal.h"
#include "layout.h"
#include "../panic.h"
#include "../task.h"
#include "../x86.h"
#include "../mm/frames.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include <asm-generic/errno.h>
#include <linux/poll.h>

static uint64_t aux_size(const struct perf_aux *aux)
{
	return (uint64_t)aux->nr_pages * PAGE_SIZE;
}

/* ---- the area ---- */

static void aux_free(struct perf_aux *aux)
{
	if (aux->priv && aux->pmu->free_aux)
		aux->pmu->free_aux(aux->priv);
	for (int i = 0; i < aux->nr_pages; i++)
		frame_free(aux->phys[i]);
	kfree(aux->phys);
	kfree(aux->pages);
	kfree(aux);
	perf_stats.aux_areas--;
}

int rb_alloc_aux(struct perf_buffer *rb, struct perf_event *e, uint64_t pgoff,
		 uint64_t nr_pages, uint64_t watermark, bool overwrite)
{
	/* Linux's has_aux(): a PMU without setup_aux writes no AUX data. */
	if (!e->pmu->setup_aux)
		return -EOPNOTSUPP;
	/* Linux's kcalloc of the page array fails first for a size like this
	 * one (an empty mapping of 2^43 bytes costs the user nothing). */
	if (nr_pages > AUX_MAX_PAGES)
		return -ENOMEM;
	assert(!rb->aux && nr_pages > 0 && !(nr_pages & (nr_pages - 1)));
	struct perf_aux *aux = kzalloc(sizeof(*aux));
	if (!aux)
		return -ENOMEM;
	perf_stats.aux_areas++;
	aux->phys = kzalloc(nr_pages * sizeof(*aux->phys));
	aux->pages = kzalloc(nr_pages * sizeof(*aux->pages));
	if (!aux->phys || !aux->pages)
		goto fail;
	for (int i = 0; i < (int)nr_pages; i++) {
		if (!(aux->phys[i] = frame_alloc_zeroed()))
			goto fail;
		aux->pages[i] = phys_to_virt(aux->phys[i]);
		aux->nr_pages = i + 1;
	}
	aux->overwrite = overwrite;
	/* Linux: half the area unless attr.aux_watermark says; overwrite
	 * mode wakes nobody. */
	aux->watermark = overwrite ? 0 : watermark ? watermark : aux_size(aux) / 2;
	/* aux_head goes on from where an earlier area of the buffer left it,
	 * as Linux keeps rb->aux_head. */
	aux->head = aux->wakeup = READ_ONCE(rb->user_page->aux_head);
	aux->pgoff = pgoff;
	aux->pmu = e->pmu;
	aux->refcount = 1;
	aux->priv = e->pmu->setup_aux(e, aux->pages, nr_pages, overwrite);
	if (!aux->priv)
		goto fail;
	WRITE_ONCE(rb->aux, aux);
	return 0;
fail:
	aux_free(aux);
	return -ENOMEM;
}

void rb_put_aux(struct perf_buffer *rb)
{
	struct perf_aux *aux = rb->aux;
	uint64_t flags = irq_save();

	assert(aux && aux->refcount > 0);
	if (--aux->refcount) {
		irq_restore(flags);
		return;
	}
	WRITE_ONCE(rb->aux, NULL);	/* no writer can find it any more */
	irq_restore(flags);
	aux_free(aux);
}

/* ---- records ---- */

static void log_aux(struct perf_event *e, uint64_t offset, uint64_t size, uint64_t flags)
{
	struct {
		struct perf_event_header header;
		uint64_t offset, size, flags;
	} r = {
		.header.type = PERF_RECORD_AUX,
		.offset = offset,
		.size = size,
		.flags = flags,
	};

	perf_output_record(e, &r, sizeof(r));
}

void perf_log_itrace_start(struct perf_event *e)
{
	uint64_t pidtid = perf_pid_tid(current);
	struct {
		struct perf_event_header header;
		uint32_t pid, tid;
	} r = {
		.header.type = PERF_RECORD_ITRACE_START,
		.pid = (uint32_t)pidtid,
		.tid = pidtid >> 32,
	};

	perf_output_record(e, &r, sizeof(r));
}

/* ---- the writer ---- */

/* Linux's perf_output_wakeup: POLLIN, and SIGIO after any NMI. */
static void aux_wakeup(struct perf_buffer *rb, struct perf_event *e)
{
	WRITE_ONCE(rb->poll, POLLIN);
	perf_pending_work(e);
}

/* rb_need_aux_wakeup: a wake-up for each watermark's worth of bytes. */
static bool need_wakeup(struct perf_aux *aux)
{
	return !aux->overwrite && aux_watermark_passed(aux->head, &aux->wakeup, aux->watermark);
}

/* perf_event_disable_inatomic: from the deferred work, not here. */
static void disable_later(struct perf_event *e)
{
	e->pending_disable = true;
}

void *perf_aux_output_begin(struct perf_output_handle *h, struct perf_event *e)
{
	struct perf_buffer *rb = READ_ONCE(e->rb);
	struct perf_aux *aux = rb ? READ_ONCE(rb->aux) : NULL;

	h->event = NULL;
	h->rb = rb;
	h->size = 0;
	h->aux_flags = 0;
	if (!aux)
		return NULL;
	if (aux->nest) {
		__atomic_fetch_add(&perf_stats.aux_nested, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	aux->nest = 1;
	aux->refcount++;
	h->head = aux->head;
	if (aux->overwrite) {
		h->size = aux_size(aux);
	} else {
		h->size = aux_room(aux->head, READ_ONCE(rb->user_page->aux_tail), aux_size(aux));
		barrier();	/* (A): no AUX store before the tail is read */
		if (!h->size) {
			/* Full: Linux stops the event until the reader makes
			 * room and enables it again. */
			disable_later(e);
			aux_wakeup(rb, e);
			aux->nest = 0;
			rb_put_aux(rb);
			return NULL;
		}
	}
	h->event = e;
	return aux->priv;
}

void *perf_get_aux(struct perf_output_handle *h)
{
	return h->event ? h->rb->aux->priv : NULL;
}

void perf_aux_output_flag(struct perf_output_handle *h, uint64_t flags)
{
	assert(!(flags & PERF_AUX_FLAG_OVERWRITE));
	h->aux_flags |= flags;
}

int perf_aux_output_skip(struct perf_output_handle *h, uint64_t size)
{
	struct perf_buffer *rb = h->rb;
	struct perf_aux *aux = rb->aux;

	assert(h->event);
	if (size > h->size)
		return -ENOSPC;
	aux->head += size;
	barrier();		/* (B) */
	WRITE_ONCE(rb->user_page->aux_head, aux->head);
	if (need_wakeup(aux))
		aux_wakeup(rb, h->event);
	h->head = aux->head;
	h->size -= size;
	return 0;
}

void perf_aux_output_end(struct perf_output_handle *h, uint64_t size)
{
	struct perf_buffer *rb = h->rb;
	struct perf_aux *aux = rb->aux;
	struct perf_event *e = h->event;
	bool wakeup = h->aux_flags & PERF_AUX_FLAG_TRUNCATED;
	uint64_t offset = aux->head;

	assert(e && size <= h->size);
	if (aux->overwrite)
		h->aux_flags |= PERF_AUX_FLAG_OVERWRITE;
	aux->head += size;
	/* Linux: a record only when it says something new; OVERWRITE alone
	 * with no data does not. */
	if (size || (h->aux_flags & ~(uint64_t)PERF_AUX_FLAG_OVERWRITE))
		log_aux(e, offset, size, h->aux_flags);
	barrier();		/* (B): the AUX data before aux_head */
	WRITE_ONCE(rb->user_page->aux_head, aux->head);
	if (need_wakeup(aux))
		wakeup = true;
	if (wakeup) {
		if (h->aux_flags & PERF_AUX_FLAG_TRUNCATED)
			disable_later(e);
		aux_wakeup(rb, e);
	}
	h->event = NULL;
	aux->nest = 0;
	rb_put_aux(rb);
}
