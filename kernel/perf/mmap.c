/* mmap of a perf event (seed 003's ABI): 1 + 2^n pages, the first the
 * control page (struct perf_event_mmap_page: seqlock, index, offset, times,
 * data_head/data_tail), the rest the data ring. A second mmap of the same
 * event shares the buffer and must have the same size. */
#include "internal.h"
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

static void rb_free(struct perf_buffer *rb)
{
	vfree(rb->data);
	for (int i = 0; i < rb->nr_pages; i++)
		frame_free(rb->data_phys[i]);
	frame_free(rb->user_page_phys);
	kfree(rb->data_phys);
	kfree(rb);
	perf_stats.rings--;
}

static struct perf_buffer *rb_alloc(int nr_pages, bool writable)
{
	struct perf_buffer *rb = kzalloc(sizeof(*rb));

	if (!rb)
		return NULL;
	perf_stats.rings++;
	rb->nr_pages = nr_pages;
	rb->writable = writable;
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
	rb->user_page->data_size = (uint64_t)nr_pages * PAGE_SIZE;
	return rb;
fail:
	if (!rb->user_page_phys)
		rb->user_page_phys = frame_alloc();	/* so rb_free has one to free */
	if (rb->user_page_phys)
		rb_free(rb);
	return NULL;
}

void perf_event_update_userpage(struct perf_event *e)
{
	struct perf_buffer *rb = e->rb;
	uint32_t mult, shift;

	if (!rb)
		return;
	struct perf_event_mmap_page *pg = rb->user_page;
	uint64_t now = perf_clock_cycles_to_ns(rdtsc(), &mult, &shift);
	uint64_t flags = irq_save();

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
	irq_restore(flags);
}

static void perf_vma_close(struct vma *vma)
{
	struct file *f = vma->priv;
	struct perf_event *e = f->priv;

	if (--e->rb->mmap_count == 0) {
		if (e->pmu->event_unmapped)
			e->pmu->event_unmapped(e);
		rb_free(e->rb);
		e->rb = NULL;
	}
	file_put(f);	/* the mapping held the file */
}

/* A munmap split the mapping in two: both pieces hold the buffer. */
static void perf_vma_open(struct vma *vma)
{
	struct file *f = vma->priv;
	struct perf_event *e = f->priv;

	e->rb->mmap_count++;
	file_get(f);
}

static const struct vma_ops perf_vma_ops = {
	.open = perf_vma_open,
	.close = perf_vma_close,
};

long perf_mmap(struct file *f, struct vma *vma)
{
	struct perf_event *e = f->priv;
	uint64_t pages = (vma->end - vma->start) / PAGE_SIZE;
	int nr_pages = pages - 1;

	if (!(vma->flags & VM_SHARED) || vma->pgoff)
		return -EINVAL;
	if (nr_pages < 0 || pages > 1 + (1u << 20) || (nr_pages & (nr_pages - 1)))
		return -EINVAL;
	if (e->rb && e->rb->nr_pages != nr_pages)
		return -EINVAL;
	if (!e->rb) {
		e->rb = rb_alloc(nr_pages, vma->flags & VM_WRITE);
		if (!e->rb)
			return -ENOMEM;
		if (e->pmu->event_mapped)
			e->pmu->event_mapped(e);
	}
	struct perf_buffer *rb = e->rb;
	uint64_t pte = PTE_U | PTE_BORROWED | PTE_NX | (vma->flags & VM_WRITE ? PTE_W : 0);
	for (uint64_t i = 0; i < pages; i++) {
		uint64_t pa = i ? rb->data_phys[i - 1] : rb->user_page_phys;
		if (map_page(current->us->pml4, vma->start + i * PAGE_SIZE, pa, pte)) {
			/* mmap's caller unmaps what was mapped (borrowed: kept). */
			if (!rb->mmap_count) {
				if (e->pmu->event_unmapped)
					e->pmu->event_unmapped(e);
				rb_free(rb);
				e->rb = NULL;
			}
			return -ENOMEM;
		}
	}
	rb->mmap_count++;
	vma->ops = &perf_vma_ops;
	vma->priv = f;
	file_get(f);
	perf_event_update_userpage(e);
	return 0;
}

long perf_event_set_output(struct perf_event *e, struct perf_event *out)
{
	if (e->rb)
		return -EINVAL;		/* can't redirect an active mmap() */
	if (out && !out->rb)
		return -EINVAL;
	e->output = out;
	return 0;
}
