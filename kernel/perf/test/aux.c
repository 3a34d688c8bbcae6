/* Self-tests of the AUX area's writer (kernel/perf/aux.c) on buffers no
 * process maps, with a fake AUX PMU: begin/skip/end and PERF_RECORD_AUX,
 * the nested-writer guard, TRUNCATED and the disable, overwrite mode,
 * aux_watermark wake-ups. kernel/test/itrace.c tests a real AUX PMU the
 * same way, through perf.h's in-kernel events. */
#include "../../ktest.h"
#include "../../x86.h"
#include "../../gdt.h"
#include "../../lib/string.h"
#include "../../mm/paging.h"
#include "../internal.h"
#include "../../test/aux_record.h"
#include <asm-generic/errno.h>
#include <linux/poll.h>


/* ---- a fake PMU that writes AUX data ---- */

static struct pmu aux_test_pmu;
static char fake_priv;
static int fake_frees;

static int fake_init(struct perf_event *e)
{
	return e->attr.type == (uint32_t)aux_test_pmu.type ? 0 : -ENOENT;
}

static int fake_add(struct perf_event *e, int flags) { return 0; }
static void fake_nop(struct perf_event *e, int flags) { }
static void fake_read(struct perf_event *e) { }

static void *fake_setup_aux(struct perf_event *e, void **pages, int nr_pages, bool overwrite)
{
	return &fake_priv;
}

static void fake_free_aux(void *priv)
{
	fake_frees += priv == &fake_priv;
}

static struct pmu aux_test_pmu = {
	.name = "ktest-aux",
	.type = -1,
	.event_init = fake_init,
	.add = fake_add,
	.del = fake_nop,
	.start = fake_nop,
	.stop = fake_nop,
	.read = fake_read,
	.setup_aux = fake_setup_aux,
	.free_aux = fake_free_aux,
};

/* An event of the fake PMU with a one-page data ring and an AUX area of
 * aux_pages; NULL on failure. The PMU stays registered until close_aux. */
static struct perf_event *open_aux(int aux_pages, bool overwrite, uint64_t watermark)
{
	perf_pmu_register(&aux_test_pmu);
	struct perf_event_attr attr = aux_test_attr(aux_test_pmu.type, 0);
	struct perf_event *e = perf_event_create_kernel_aux(&attr, aux_pages, overwrite, watermark);
	if (!e)
		ktest_state.failed = true;
	return e;
}

static void close_aux(struct perf_event *e)
{
	perf_event_release_kernel(e);
	perf_pmu_unregister(&aux_test_pmu);
}

KTEST(aux_begin_skip_end_writes_aux_records)
{
	long areas = perf_stats.aux_areas;
	int frees = fake_frees;
	struct perf_event *e = open_aux(4, false, 0);
	KASSERT(e);
	struct perf_buffer *rb = e->rb;
	struct perf_output_handle h;
	uint64_t pos = 0, flags = irq_save();

	KEXPECT_EQ(perf_stats.aux_areas, areas + 1);
	KEXPECT_EQ(rb->aux->watermark, 2 * PAGE_SIZE);	/* half, by default */
	KEXPECT(perf_aux_output_begin(&h, e) == &fake_priv);
	KEXPECT_EQ(h.head, 0);
	KEXPECT_EQ(h.size, 4 * PAGE_SIZE - 1);	/* CIRC_SPACE keeps a byte */
	KEXPECT(perf_get_aux(&h) == &fake_priv);
	KEXPECT_EQ(perf_aux_output_skip(&h, 24), 0);
	KEXPECT_EQ(h.head, 24);
	KEXPECT_EQ(h.size, 4 * PAGE_SIZE - 25);
	KEXPECT_EQ(rb->user_page->aux_head, 24);
	KEXPECT_EQ(perf_aux_output_skip(&h, 4 * PAGE_SIZE), -ENOSPC);
	perf_aux_output_end(&h, 100);
	KEXPECT(perf_get_aux(&h) == NULL);
	KEXPECT_EQ(rb->user_page->aux_head, 124);
	KEXPECT(aux_record_is(e, &pos, 24, 100, 0));
	/* Nothing written and nothing to say: no record. */
	uint64_t head = rb->user_page->data_head;
	KEXPECT(perf_aux_output_begin(&h, e));
	perf_aux_output_end(&h, 0);
	KEXPECT_EQ(rb->user_page->data_head, head);
	KEXPECT_EQ(rb->aux->refcount, 1);
	irq_restore(flags);
	close_aux(e);
	KEXPECT_EQ(fake_frees, frees + 1);
	KEXPECT_EQ(perf_stats.aux_areas, areas);
}

/* A begin inside another writer's begin..end: refused, counted, and the
 * first writer's state is untouched. */
KTEST(aux_nested_writer_refused_and_counted)
{
	struct perf_event *e = open_aux(1, false, 0);
	KASSERT(e);
	struct perf_output_handle h, nested;
	long refused = perf_stats.aux_nested;
	uint64_t flags = irq_save();

	KEXPECT(perf_aux_output_begin(&h, e));
	KEXPECT(perf_aux_output_begin(&nested, e) == NULL);
	KEXPECT_EQ(perf_stats.aux_nested, refused + 1);
	KEXPECT(perf_get_aux(&nested) == NULL);
	KEXPECT_EQ(e->rb->aux->nest, 1);
	perf_aux_output_end(&h, 8);
	KEXPECT_EQ(e->rb->user_page->aux_head, 8);
	KEXPECT(perf_aux_output_begin(&h, e));	/* one at a time is fine */
	perf_aux_output_end(&h, 0);
	KEXPECT_EQ(perf_stats.aux_nested, refused + 1);
	irq_restore(flags);
	close_aux(e);
}

/* A PROT_WRITE reader that does not consume: TRUNCATED disables the event
 * and wakes the reader; then begin finds no room at all. */
KTEST(aux_full_truncates_and_disables)
{
	struct perf_event *e = open_aux(1, false, 0);
	KASSERT(e);
	struct perf_buffer *rb = e->rb;
	struct perf_output_handle h;
	uint64_t pos = 0, flags = irq_save();

	KEXPECT(perf_aux_output_begin(&h, e));
	KEXPECT_EQ(h.size, PAGE_SIZE - 1);
	perf_aux_output_flag(&h, PERF_AUX_FLAG_TRUNCATED);
	perf_aux_output_end(&h, PAGE_SIZE - 1);
	KEXPECT(e->pending_disable);
	KEXPECT_EQ(rb->poll, POLLIN);
	KEXPECT(aux_record_is(e, &pos, 0, PAGE_SIZE - 1, PERF_AUX_FLAG_TRUNCATED));
	e->pending_disable = false;
	KEXPECT(perf_aux_output_begin(&h, e) == NULL);
	KEXPECT(e->pending_disable);
	KEXPECT_EQ(rb->aux->nest, 0);
	rb->user_page->aux_tail = PAGE_SIZE - 1;	/* the reader catches up */
	KEXPECT(perf_aux_output_begin(&h, e));
	KEXPECT_EQ(h.size, PAGE_SIZE - 1);
	perf_aux_output_end(&h, 0);
	irq_restore(flags);
	close_aux(e);
}

/* A read-only AUX mapping: the whole area every time, OVERWRITE on each
 * record, no wake-ups. */
KTEST(aux_overwrite_mode)
{
	struct perf_event *e = open_aux(1, true, 0);
	KASSERT(e);
	struct perf_buffer *rb = e->rb;
	struct perf_output_handle h;
	uint64_t pos = 0, flags = irq_save();

	for (int i = 0; i < 3; i++) {
		KEXPECT(perf_aux_output_begin(&h, e));
		KEXPECT_EQ(h.size, PAGE_SIZE);
		perf_aux_output_end(&h, PAGE_SIZE);
		KEXPECT(aux_record_is(e, &pos, i * PAGE_SIZE, PAGE_SIZE, PERF_AUX_FLAG_OVERWRITE));
	}
	KEXPECT_EQ(rb->user_page->aux_head, 3 * PAGE_SIZE);
	KEXPECT_EQ(rb->poll, 0);
	uint64_t head = rb->user_page->data_head;
	KEXPECT(perf_aux_output_begin(&h, e));
	perf_aux_output_end(&h, 0);	/* OVERWRITE alone says nothing new */
	KEXPECT_EQ(rb->user_page->data_head, head);
	irq_restore(flags);
	close_aux(e);
}

KTEST(aux_watermark_wakes_reader)
{
	struct perf_event *e = open_aux(4, false, PAGE_SIZE);
	KASSERT(e);
	struct perf_buffer *rb = e->rb;
	struct perf_output_handle h;
	uint64_t flags = irq_save();

	KEXPECT(perf_aux_output_begin(&h, e));
	perf_aux_output_end(&h, PAGE_SIZE - 100);
	KEXPECT_EQ(rb->poll, 0);
	KEXPECT(perf_aux_output_begin(&h, e));
	KEXPECT_EQ(perf_aux_output_skip(&h, 200), 0);	/* skipped bytes count */
	KEXPECT_EQ(rb->poll, POLLIN);
	perf_aux_output_end(&h, 0);
	KEXPECT_EQ(rb->aux->wakeup, PAGE_SIZE);
	irq_restore(flags);
	close_aux(e);
}

KTEST(aux_area_needs_a_pmu_that_writes_one)
{
	long areas = perf_stats.aux_areas;
	struct perf_event_attr attr = aux_test_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	int err;
	struct perf_event *e = perf_event_alloc(&attr, NULL, &err);
	struct perf_buffer *rb = rb_alloc(1, true, 0);

	KASSERT(e && rb && !rb_attach(e, rb));
	KEXPECT_EQ(rb_alloc_aux(rb, e, 2 * PAGE_SIZE, 1, 0, false), -EOPNOTSUPP);
	KEXPECT(!rb->aux);
	KEXPECT_EQ(perf_stats.aux_areas, areas);
	perf_event_free(e);
}
