/* Self-tests of the AUX area's writer (kernel/perf/aux.c) on buffers no
 * process maps, with a fake AUX PMU: begin/skip/end and PERF_RECORD_AUX,
 * the nested-writer guard, TRUNCATED and the disable, overwrite mode,
 * aux_watermark wake-ups; and of itrace's packets (kernel/pmu/itrace.c),
 * fed through its trap hooks: the exact bytes, block padding, the skip to
 * a block boundary, PARTIAL after a refused forward, TRUNCATED without a
 * byte of unread data overwritten. */
#include "../ktest.h"
#include "../x86.h"
#include "../gdt.h"
#include "../lib/string.h"
#include "../mm/paging.h"
#include "../perf/internal.h"
#include "../pmu/itrace.h"
#include <asm-generic/errno.h>
#include <linux/poll.h>
#include <pmuos/itrace.h>

#define ID_WORDS	2		/* the events' sample_id_all trailer: TID, IDENTIFIER */
#define CANARY		0xee

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

static struct perf_event *open_event(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.disabled = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER,
		.sample_id_all = 1,
	};
	int err;

	return perf_event_alloc(&attr, NULL, &err);
}

/* An event of the fake PMU with a one-page data ring and an AUX area of
 * aux_pages; NULL on failure. The PMU stays registered until close_aux. */
static struct perf_event *open_aux(struct pmu *pmu, int aux_pages, bool overwrite,
				   uint64_t watermark, uint64_t config)
{
	if (pmu == &aux_test_pmu)
		perf_pmu_register(&aux_test_pmu);
	struct perf_event *e = open_event(pmu->type, config);
	struct perf_buffer *rb = rb_alloc(1, true, 0);
	if (!e || !rb || rb_attach(e, rb) ||
	    rb_alloc_aux(rb, e, 2 * PAGE_SIZE, aux_pages, watermark, overwrite)) {
		ktest_state.failed = true;
		return NULL;
	}
	return e;
}

static void close_aux(struct perf_event *e)
{
	struct pmu *pmu = e->pmu;

	perf_event_free(e);	/* the buffer's last user: it and its AUX area go */
	if (pmu == &aux_test_pmu)
		perf_pmu_unregister(&aux_test_pmu);
}

/* The next record of type in e's data ring from *pos, copied into buf
 * (words); false at data_head. */
static bool next_record(struct perf_event *e, uint64_t *pos, uint32_t type, uint64_t *buf,
			size_t size)
{
	struct perf_buffer *rb = e->rb;
	uint64_t mask = (uint64_t)rb->nr_pages * PAGE_SIZE - 1;
	struct perf_event_header hdr;

	while (*pos < rb->user_page->data_head) {
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

/* PERF_RECORD_AUX: header, offset, size, flags, the trailer. */
static bool aux_record_is(struct perf_event *e, uint64_t *pos, uint64_t offset, uint64_t size,
			  uint64_t flags)
{
	uint64_t r[4 + ID_WORDS];

	if (!next_record(e, pos, PERF_RECORD_AUX, r, sizeof(r)))
		return false;
	return (uint16_t)(r[0] >> 48) == sizeof(r) && r[1] == offset &&
	       r[2] == size && r[3] == flags && r[5] == e->id;
}

KTEST(aux_begin_skip_end_writes_aux_records)
{
	long areas = perf_stats.aux_areas;
	int frees = fake_frees;
	struct perf_event *e = open_aux(&aux_test_pmu, 4, false, 0, 0);
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
	struct perf_event *e = open_aux(&aux_test_pmu, 1, false, 0, 0);
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
	struct perf_event *e = open_aux(&aux_test_pmu, 1, false, 0, 0);
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
	struct perf_event *e = open_aux(&aux_test_pmu, 1, true, 0, 0);
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
	struct perf_event *e = open_aux(&aux_test_pmu, 4, false, PAGE_SIZE, 0);
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
	struct perf_event *e = open_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	struct perf_buffer *rb = rb_alloc(1, true, 0);

	KASSERT(e && rb && !rb_attach(e, rb));
	KEXPECT_EQ(rb_alloc_aux(rb, e, 2 * PAGE_SIZE, 1, 0, false), -EOPNOTSUPP);
	KEXPECT(!rb->aux);
	KEXPECT_EQ(perf_stats.aux_areas, areas);
	perf_event_free(e);
}

/* ---- itrace ---- */

static struct pmu *itrace_pmu(void)
{
	for (struct pmu *p = perf_pmus; p; p = p->next)
		if (!strcmp(p->name, PMUOS_ITRACE_PMU_NAME))
			return p;
	return NULL;
}

/* The traced task's RFLAGS as the last return to user mode left them. */
static uint64_t user_rflags;

/* One #DB step of a traced user task, through the hooks the trap path
 * calls: the instruction about to run is at ip. */
static void step(uint64_t ip)
{
	struct pt_regs r = { .rip = ip, .cs = GDT_USER_CS, .ss = GDT_USER_DS,
			     .rflags = user_rflags, .vector = X86_TRAP_DB };
	bool ok;

	itrace_user_entry(&r, 0);
	ok = !(r.rflags & X86_EFLAGS_TF);	/* the program's flags: no TF */
	ok &= itrace_debug_trap(&r) == (user_rflags != X86_EFLAGS_IF);
	__itrace_user_exit(&r);
	ok &= (r.rflags & X86_EFLAGS_TF) && itrace_tf_ours;
	user_rflags = r.rflags;
	if (!ok) {
		printk("# step to %lx: TF not itrace's\n", ip);
		ktest_state.failed = true;
	}
}

static struct perf_event *open_itrace(int aux_pages, bool overwrite)
{
	struct pmu *pmu = itrace_pmu();

	if (!pmu)
		return NULL;
	struct perf_event *e = open_aux(pmu, aux_pages, overwrite, 0, ITRACE_CONFIG_NOTIMER);
	if (e) {
		for (int i = 0; i < e->rb->aux->nr_pages; i++)
			memset(e->rb->aux->pages[i], CANARY, PAGE_SIZE);
		e->pmu->add(e, PERF_EF_START);
		user_rflags = X86_EFLAGS_IF;	/* a task not traced so far */
	}
	return e;
}

static void close_itrace(struct perf_event *e)
{
	struct pt_regs r = { 0 };

	e->pmu->del(e, PERF_EF_UPDATE);
	__itrace_user_exit(&r);		/* itrace_tf_ours back to false */
	close_aux(e);
}

static const uint8_t *aux_bytes(struct perf_event *e, uint64_t at)
{
	return (const uint8_t *)e->rb->aux->pages[at / PAGE_SIZE] + at % PAGE_SIZE;
}

/* Each packet kind, from a fixed address sequence. */
KTEST(itrace_packet_bytes)
{
	uint64_t flags = irq_save();
	struct perf_event *e = open_itrace(2, false);
	KASSERT(e);
	static const uint64_t far = 0x7fff00000000ul;
	static const uint8_t want[] = {
		ITRACE_FULL, 0x00, 0x10, 0x40, 0, 0, 0, 0, 0,	/* 0x401000 */
		0x03,						/* +3 */
		0xfd,						/* -3 */
		ITRACE_REPEAT,					/* +0 */
		ITRACE_DELTA16, 0xc8, 0x00,			/* +200 */
		ITRACE_DELTA32, 0x45, 0x23, 0x01, 0x00,		/* +0x12345 */
		ITRACE_FULL, 0, 0, 0, 0, 0xff, 0x7f, 0, 0,	/* far away */
	};
	uint64_t pos = 0, r[2 + ID_WORDS];

	KEXPECT(next_record(e, &pos, PERF_RECORD_ITRACE_START, r, sizeof(r)));
	step(0x401000);
	step(0x401003);
	step(0x401000);
	step(0x401000);
	step(0x401000 + 200);
	step(0x401000 + 200 + 0x12345);
	step(far);
	KEXPECT_EQ(e->rb->user_page->aux_head, 0);	/* all still in itrace's buffer */
	e->pmu->flush(e);
	KEXPECT(aux_record_is(e, &pos, 0, sizeof(want), 0));
	KEXPECT(!memcmp(aux_bytes(e, 0), want, sizeof(want)));
	KEXPECT_EQ(*aux_bytes(e, sizeof(want)), CANARY);

	/* The next chunk starts at the next block: the skipped bytes are PAD. */
	step(far + 1);
	for (int i = 0; i < ITRACE_BLOCK - 9; i++)	/* fills its first block */
		step(far + 2 + i);
	step(far + 100);				/* a new block: FULL */
	e->pmu->flush(e);
	KEXPECT(aux_record_is(e, &pos, ITRACE_BLOCK, ITRACE_BLOCK + 9, 0));
	for (unsigned i = sizeof(want); i < ITRACE_BLOCK; i++)
		KEXPECT_EQ(*aux_bytes(e, i), ITRACE_PAD);
	KEXPECT_EQ(*aux_bytes(e, ITRACE_BLOCK), ITRACE_FULL);
	KEXPECT_EQ(*aux_bytes(e, ITRACE_BLOCK + 9), 0x01);
	KEXPECT_EQ(*aux_bytes(e, 2 * ITRACE_BLOCK), ITRACE_FULL);
	KEXPECT_EQ(e->rb->user_page->aux_head, 2 * ITRACE_BLOCK + 9);
	close_itrace(e);
	irq_restore(flags);
}

/* A forward refused by the nested-writer guard loses its chunk: the next
 * record says PARTIAL. */
KTEST(itrace_partial_after_refused_forward)
{
	uint64_t flags = irq_save();
	struct perf_event *e = open_itrace(1, false);
	KASSERT(e);
	struct perf_output_handle h;
	long refused = perf_stats.aux_nested;
	uint64_t pos = 0;

	step(0x401000);
	KEXPECT(perf_aux_output_begin(&h, e));
	e->pmu->flush(e);
	KEXPECT_EQ(perf_stats.aux_nested, refused + 1);
	perf_aux_output_end(&h, 0);
	step(0x402000);
	e->pmu->flush(e);
	KEXPECT(aux_record_is(e, &pos, 0, 9, PERF_AUX_FLAG_PARTIAL));
	close_itrace(e);
	irq_restore(flags);
}

/* A full internal buffer is forwarded at once; a reader that never
 * consumes gets whole blocks up to its aux_tail, TRUNCATED, and not a
 * byte past them. */
KTEST(itrace_truncates_without_overwriting)
{
	uint64_t flags = irq_save();
	struct perf_event *e = open_itrace(1, false);
	KASSERT(e);
	uint64_t pos = 0;

	for (int i = 0; i < 5000; i++)
		step(0x401000 + 3 * (i % 3));		/* +3, +3, -6 */
	KEXPECT(aux_record_is(e, &pos, 0, PAGE_SIZE - ITRACE_BLOCK, PERF_AUX_FLAG_TRUNCATED));
	KEXPECT(e->pending_disable);
	e->pmu->flush(e);
	KEXPECT(aux_record_is(e, &pos, PAGE_SIZE - ITRACE_BLOCK, 0, PERF_AUX_FLAG_TRUNCATED));
	KEXPECT_EQ(e->rb->user_page->aux_head, PAGE_SIZE - ITRACE_BLOCK);
	for (unsigned i = PAGE_SIZE - ITRACE_BLOCK; i < PAGE_SIZE; i++)
		KEXPECT_EQ(*aux_bytes(e, i), CANARY);
	for (unsigned i = 0; i < PAGE_SIZE - ITRACE_BLOCK; i += ITRACE_BLOCK)
		KEXPECT_EQ(*aux_bytes(e, i), ITRACE_FULL);
	e->pending_disable = false;
	close_itrace(e);
	irq_restore(flags);
}
