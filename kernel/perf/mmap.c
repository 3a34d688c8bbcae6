/* mmap of a perf event (seed 003's ABI): 1 + 2^n pages, the first the
 * control page (struct perf_event_mmap_page: seqlock, index, offset, times,
 * data_head/data_tail), the rest the data ring. A second mmap of the same
 * event shares the buffer and must have the same size; SET_OUTPUT sends
 * other events' records into it. Who holds the buffer, as in Linux: every
 * event attached to it (its own mapper, SET_OUTPUT redirections); an event
 * detaches when its own last mapping goes, and the buffer's last mapping
 * detaches them all, which frees it. The AUX area (seed 002, aux.c) is one
 * more mapping of the fd, at the aux_offset written into the control page;
 * its last mapping frees it, and it counts among the buffer's mappings. */
#include "internal.h"
#include "../panic.h"
#include "../cpu_stats.h"
#include "../fd.h"
#include "../task.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../mm/frames.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include "../mm/uspace.h"
#include "../mm/vmalloc.h"
#include <asm-generic/errno.h>

static_assert(offsetof(struct perf_event_mmap_page, data_head) == 1024, "mmap page ABI");
static_assert(offsetof(struct perf_event_mmap_page, aux_head) == 1024 + 32, "mmap page ABI");

/* An event attached to a buffer, and how many of the buffer's VMAs are
 * mappings of that event's own file. */
struct rb_user {
	struct perf_event *e;
	int mmap_count;
	struct rb_user *next;
};

static void rb_free(struct perf_buffer *rb)
{
	/* No writer may be inside it, no event send to it, no VMA map it. */
	assert(!rb->users && !rb->mmap_count && !rb->nest);
	if (rb->aux)
		rb_put_aux(rb);		/* (a buffer loses its AUX mappings first) */
	vfree(rb->data);
	for (int i = 0; i < rb->nr_pages; i++)
		frame_free(rb->data_phys[i]);
	frame_free(rb->user_page_phys);
	kfree(rb->data_phys);
	kfree(rb);
	perf_stats.rings--;
}

struct perf_buffer *rb_alloc(int nr_pages, bool writable, uint64_t watermark)
{
	struct perf_buffer *rb = kzalloc(sizeof(*rb));
	uint64_t max_size = (uint64_t)nr_pages * PAGE_SIZE;

	if (!rb)
		return NULL;
	perf_stats.rings++;
	rb->nr_pages = nr_pages;
	rb->writable = writable;
	/* Linux's ring_buffer_init: a control page alone takes no records. */
	rb->paused = !nr_pages;
	rb->watermark = watermark ? MIN(watermark, max_size) : 0;
	if (!rb->watermark)
		rb->watermark = max_size / 2;
	rb->user_page_phys = frame_alloc_zeroed();
	rb->data_phys = kzalloc(MAX(nr_pages, 1) * sizeof(uint64_t));
	if (!rb->user_page_phys || !rb->data_phys)
		goto fail;
	for (int i = 0; i < nr_pages; i++) {
		rb->data_phys[i] = frame_alloc_zeroed();
		if (!rb->data_phys[i]) {
			rb->nr_pages = i;
			goto fail;
		}
	}
	if (nr_pages && !(rb->data = vmap(rb->data_phys, nr_pages)))
		goto fail;
	rb->user_page = phys_to_virt(rb->user_page_phys);
	rb->user_page->size = offsetof(struct perf_event_mmap_page, __reserved);
	rb->user_page->data_offset = PAGE_SIZE;
	rb->user_page->data_size = max_size;
	return rb;
fail:
	if (!rb->user_page_phys)
		rb->user_page_phys = frame_alloc();	/* so rb_free has one to free */
	if (rb->user_page_phys)
		rb_free(rb);
	return NULL;
}

static struct rb_user *rb_user_of(struct perf_buffer *rb, const struct perf_event *e)
{
	for (struct rb_user *u = READ_ONCE(rb->users); u; u = u->next)
		if (u->e == e)
			return u;
	return NULL;
}

/* On the CPU of e's writers (perf_event_call). They find the buffer through
 * e->rb only and write with interrupts off, or in an NMI that finishes
 * before the code it interrupted goes on: once e->rb is NULL there, none of
 * them is inside the buffer or can enter it. */
static void rb_unpoint(void *arg)
{
	WRITE_ONCE(((struct perf_event *)arg)->rb, NULL);
}

/* Once no event points at the buffer, nothing can be writing it. */
static void rb_detach(struct perf_event *e)
{
	struct perf_buffer *rb = e->rb;

	if (!rb)
		return;
	perf_event_call(e, rb_unpoint, e);
	uint64_t flags = irq_save();
	struct rb_user **link = &rb->users, *u;
	while ((u = *link)->e != e)
		link = &u->next;
	WRITE_ONCE(*link, u->next);
	irq_restore(flags);
	kfree(u);
	if (!rb->users)
		rb_free(rb);
}

/* The buffer lost its last mapping: nobody can read it any more, unless a
 * persistent event keeps it for a reopen to map again (seed 001). */
static void rb_detach_all(struct perf_buffer *rb)
{
	for (struct rb_user *u = rb->users, *next; u; u = next) {
		next = u->next;		/* rb_detach frees u, and rb after the last */
		if (!u->e->persistent)
			rb_detach(u->e);
	}
}

/* ---- in-kernel events with buffers (perf.h) ---- */

struct perf_event *perf_event_create_kernel_aux(const struct perf_event_attr *attr, int aux_pages,
						bool overwrite, uint64_t watermark)
{
	int err;
	struct perf_event *e = perf_event_alloc(attr, NULL, &err);
	struct perf_buffer *rb = e ? rb_alloc(1, true, 0) : NULL;

	if (!rb)
		goto fail;
	if (rb_attach(e, rb)) {
		rb_free(rb);
		goto fail;
	}
	/* At aux_offset two pages, past the control page and the one data page. */
	if (rb_alloc_aux(rb, e, 2 * PAGE_SIZE, aux_pages, watermark, overwrite))
		goto fail;	/* the buffer goes with e, its one user */
	return e;
fail:
	if (e)
		perf_event_free(e);
	return NULL;
}

void perf_event_release_kernel(struct perf_event *e)
{
	perf_event_free(e);	/* the buffer's last user: it and its AUX area go */
}

uint8_t *perf_aux_byte(struct perf_event *e, uint64_t at)
{
	return (uint8_t *)e->rb->aux->pages[at / PAGE_SIZE] + at % PAGE_SIZE;
}

uint64_t perf_aux_head(struct perf_event *e)
{
	return READ_ONCE(e->rb->user_page->aux_head);
}

bool perf_ring_next_record(struct perf_event *e, uint64_t *pos, uint32_t type, void *buf,
			   size_t size)
{
	struct perf_buffer *rb = e->rb;
	uint64_t mask = (uint64_t)rb->nr_pages * PAGE_SIZE - 1;
	struct perf_event_header hdr;

	while (*pos < READ_ONCE(rb->user_page->data_head)) {
		for (size_t i = 0; i < sizeof(hdr); i++)
			((char *)&hdr)[i] = ((char *)rb->data)[(*pos + i) & mask];
		for (size_t i = 0; i < MIN((size_t)hdr.size, size); i++)
			((char *)buf)[i] = ((char *)rb->data)[(*pos + i) & mask];
		*pos += hdr.size;
		if (hdr.type == type)
			return true;
	}
	return false;
}

int rb_attach(struct perf_event *e, struct perf_buffer *rb)
{
	struct rb_user *u = NULL;

	if (rb == e->rb)
		return 0;
	if (rb && !(u = kzalloc(sizeof(*u))))
		return -ENOMEM;
	rb_detach(e);
	if (rb) {
		u->e = e;
		u->next = rb->users;
		barrier();	/* the node is whole before a reader can see it */
		WRITE_ONCE(rb->users, u);
		WRITE_ONCE(e->rb, rb);
	}
	return 0;
}

void perf_event_release_rb(struct perf_event *e)
{
	rb_detach(e);
}

/* Only an event that maps the buffer itself describes itself in its control
 * page: Linux lets a SET_OUTPUT event overwrite its target's index and
 * times, which makes the target's self-monitoring read the wrong counter. */
void __perf_event_update_userpage(struct perf_event *e)
{
	struct perf_buffer *rb = READ_ONCE(e->rb);
	uint32_t mult, shift;

	if (!rb)
		return;	/* gone since the caller's test */
	struct rb_user *u = rb_user_of(rb, e);
	if (!u || !u->mmap_count)
		return;
	struct perf_event_mmap_page *pg = rb->user_page;
	uint64_t flags = irq_save();
	unsigned long nmis;

again:
	/* An NMI (the PMI rearming this event) may update the page inside our
	 * update: then ours, finished after it, would leave stale values under
	 * an even lock. Redo it from the new state. */
	nmis = READ_ONCE(this_cpu_stats()->nmis);
	uint64_t now = perf_clock();

	mult = clock_tsc_mult, shift = clock_tsc_shift;
	/* The seqlock: odd while fields change; readers retry on a change. */
	WRITE_ONCE(pg->lock, pg->lock + 1);
	barrier();
	bool on_pmu = e->state == PERF_EVENT_STATE_ACTIVE;
	pg->index = on_pmu && e->pmu->event_idx ? e->pmu->event_idx(e) : 0;
	pg->offset = e->count;
	if (pg->index)
		pg->offset -= e->hw.prev_count;
	pg->time_enabled = e->total_time_enabled + (e->state >= PERF_EVENT_STATE_INACTIVE ?
						    now - e->tstamp : 0);
	pg->time_running = e->total_time_running + (on_pmu ? now - e->tstamp : 0);
	pg->cap_bit0_is_deprecated = 1;
	pg->cap_user_rdpmc = e->pmu->pmc_width != 0;
	pg->cap_user_time = 1;
	pg->cap_user_time_zero = 1;
	pg->pmc_width = e->pmu->pmc_width;
	pg->time_mult = mult;
	pg->time_shift = shift;
	pg->time_offset = -now;
	pg->time_zero = 0;
	barrier();
	WRITE_ONCE(pg->lock, pg->lock + 1);
	if (READ_ONCE(this_cpu_stats()->nmis) != nmis)
		goto again;
	irq_restore(flags);
}

/* The AUX area is mapped at aux_offset, the data ring at 0: perf mappings
 * are never split, so a VMA's pgoff tells which it is. */
static bool is_aux_vma(const struct perf_buffer *rb, const struct vma *vma)
{
	return rb->aux && vma->pgoff == rb->aux->pgoff;
}

static void put_aux_here(void *rb)
{
	rb_put_aux(rb);
}

/* The AUX area's mappings' hold on it, dropped where its writers are (the
 * buffer's users', e's among them: perf_event_call): they write with
 * interrupts off, so none is inside it there, and its count is theirs. */
static void put_aux(struct perf_event *e, struct perf_buffer *rb)
{
	perf_event_call(e, put_aux_here, rb);
}

/* A mapping of e's file never outlives e (it holds the file), and e keeps
 * the buffer it maps: SET_OUTPUT is refused while e maps one. The AUX
 * area's mappings count as mappings of the buffer too (Linux's
 * rb->mmap_count), so the control page outlives them. */
static void perf_vma_close(struct vma *vma)
{
	struct file *f = vma->priv;
	struct perf_event *e = f->priv;
	struct perf_buffer *rb = e->rb;
	struct rb_user *u = rb_user_of(rb, e);

	/* The AUX area's last mapping frees it. */
	if (is_aux_vma(rb, vma) && !--rb->aux->mmap_count)
		put_aux(e, rb);

	if (--u->mmap_count) {
		rb->mmap_count--;
	} else {
		if (e->pmu->event_unmapped)
			e->pmu->event_unmapped(e);
		if (--rb->mmap_count)
			rb_detach(e);
		else
			rb_detach_all(rb);
	}
	file_put(f);	/* the mapping held the file */
}

/* Linux's perf_mmap_may_split (6.1.147 and later): a piece of a ring or AUX
 * mapping would have an offset and size that no count matches, so munmap,
 * mprotect or MAP_FIXED of part of one fails with EINVAL. */
static int perf_vma_may_split(struct vma *vma, uint64_t addr)
{
	return -EINVAL;
}

static const struct vma_ops perf_vma_ops = {
	.may_split = perf_vma_may_split,
	.close = perf_vma_close,
};

/* Map pages frames from phys[] at offset at of the VMA; -ENOMEM (mmap's
 * caller unmaps what was mapped: borrowed pages stay). */
static long map_pages(struct vma *vma, uint64_t at, const uint64_t *phys, uint64_t pages)
{
	/* PROT_NONE: the frames are in place but every access faults, as on Linux (whose
	 * perf_mmap_fault never runs for a VMA that allows no access). */
	uint64_t pte = !(vma->flags & (VM_READ | VM_WRITE | VM_EXEC)) ? PTE_BORROWED | PTE_PROTNONE :
		       PTE_U | PTE_BORROWED | PTE_NX | (vma->flags & VM_WRITE ? PTE_W : 0);

	for (uint64_t i = 0; i < pages; i++)
		if (map_page(current->us->pml4, vma->start + at + i * PAGE_SIZE, phys[i], pte))
			return -ENOMEM;
	return 0;
}

/* The VMA maps e's buffer now: count it, and hold e's file. */
static void vma_mapped(struct file *f, struct vma *vma)
{
	struct perf_event *e = f->priv;
	struct perf_buffer *rb = e->rb;
	struct rb_user *u = rb_user_of(rb, e);

	rb->mmap_count++;
	if (u->mmap_count++ == 0 && e->pmu->event_mapped)
		e->pmu->event_mapped(e);
	vma->ops = &perf_vma_ops;
	vma->priv = f;
	file_get(f);
}

/* The AUX area: a second mapping of the fd at the aux_offset and aux_size
 * the reader wrote into the control page, Linux 6.1's checks in its order.
 * PROT_WRITE makes the reader own aux_tail; read-only is overwrite mode. */
static long perf_mmap_aux(struct file *f, struct vma *vma)
{
	struct perf_event *e = f->priv;
	struct perf_buffer *rb = e->rb;
	uint64_t size = vma->end - vma->start, nr_pages = size / PAGE_SIZE;

	if (!rb)
		return -EINVAL;		/* the data mapping comes first */
	uint64_t aux_offset = READ_ONCE(rb->user_page->aux_offset);
	uint64_t aux_size = READ_ONCE(rb->user_page->aux_size);
	if (aux_offset < (uint64_t)rb->nr_pages * PAGE_SIZE + PAGE_SIZE ||
	    aux_offset != vma->pgoff)
		return -EINVAL;
	if (rb->aux && rb->aux->pgoff != vma->pgoff)
		return -EINVAL;		/* mapped already, elsewhere */
	if (aux_size != size || (rb->aux && (uint64_t)rb->aux->nr_pages != nr_pages))
		return -EINVAL;
	if (nr_pages & (nr_pages - 1))
		return -EINVAL;
	if (!rb->mmap_count)
		return -EINVAL;		/* a persistent event's buffer, unmapped */
	bool fresh = !rb->aux;
	if (fresh) {
		long err = rb_alloc_aux(rb, e, vma->pgoff, nr_pages, e->attr.aux_watermark,
					!(vma->flags & VM_WRITE));
		if (err)
			return err;	/* EOPNOTSUPP: the PMU writes no AUX data */
	}
	if (map_pages(vma, 0, rb->aux->phys, nr_pages)) {
		if (fresh)
			put_aux(e, rb);	/* a writer may have found it already */
		return -ENOMEM;
	}
	rb->aux->mmap_count++;
	vma_mapped(f, vma);
	return 0;
}

long perf_mmap(struct file *f, struct vma *vma)
{
	struct perf_event *e = f->priv;
	uint64_t pages = (vma->end - vma->start) / PAGE_SIZE;
	int nr_pages = pages - 1;

	/* Linux: children of an inherited per-task event would all write here. */
	if (e->cpu == -1 && e->attr.inherit)
		return -EINVAL;
	if (!(vma->flags & VM_SHARED))
		return -EINVAL;
	if (vma->pgoff)
		return perf_mmap_aux(f, vma);
	if (nr_pages < 0 || pages > 1 + (1u << 20) || (nr_pages & (nr_pages - 1)))
		return -EINVAL;
	/* Mapped already, or redirected by SET_OUTPUT: that buffer, same size. */
	struct perf_buffer *rb = e->rb;
	bool fresh = !rb;
	if (rb && rb->nr_pages != nr_pages)
		return -EINVAL;
	if (fresh) {
		uint64_t watermark = e->attr.watermark ? e->attr.wakeup_watermark : 0;
		rb = rb_alloc(nr_pages, vma->flags & VM_WRITE, watermark);
		if (!rb)
			return -ENOMEM;
		if (rb_attach(e, rb)) {
			rb_free(rb);
			return -ENOMEM;
		}
	}
	if (map_pages(vma, 0, &rb->user_page_phys, 1) ||
	    map_pages(vma, PAGE_SIZE, rb->data_phys, nr_pages)) {
		if (fresh)
			rb_detach(e);	/* frees it */
		return -ENOMEM;
	}
	vma_mapped(f, vma);
	perf_event_update_userpage_there(e);
	return 0;
}

/* Linux's perf_event_set_output, after ioctl.c's checks of the pair: out's
 * buffer (its own or where it redirects), which must be mapped; e must not
 * map one itself. NULL sends e's records nowhere again. */
long perf_event_set_output(struct perf_event *e, struct perf_event *out)
{
	struct perf_buffer *rb = NULL;

	if (e->rb && rb_user_of(e->rb, e)->mmap_count)
		return -EINVAL;		/* can't redirect an active mmap() */
	/* pmuos: nor an inherited task's event, as perf_mmap refuses to map
	 * one: its copies in other tasks would write the ring from other CPUs
	 * at once (ring.c). Linux 6.1 lets it through. */
	if (out && e->cpu == -1 && e->attr.inherit)
		return -EINVAL;
	if (out) {
		rb = out->rb;
		if (!rb || !rb->mmap_count)
			return -EINVAL;
		/* Linux: two events that write AUX data share it only on one PMU. */
		if (e->pmu->setup_aux && out->pmu->setup_aux && e->pmu != out->pmu)
			return -EINVAL;
	}
	return rb_attach(e, rb);
}
