/* Self-tests of itrace's packets (kernel/pmu/itrace.c) fed through its trap
 * hooks, into an AUX area of perf.h's in-kernel events: the exact bytes,
 * block padding, the skip to a block boundary, PARTIAL after a refused
 * forward, TRUNCATED without a byte of unread data overwritten. */
#include "aux_record.h"
#include "../ktest.h"
#include "../gdt.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../mm/paging.h"
#include "../pmu/itrace.h"
#include <pmuos/itrace.h>

#define CANARY		0xee		/* the AUX bytes nobody wrote */

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
	ok &= (r.rflags & X86_EFLAGS_TF) && itrace_tf_ours();
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
	struct perf_event_attr attr = aux_test_attr(pmu->type, ITRACE_CONFIG_NOTIMER);
	struct perf_event *e = perf_event_create_kernel_aux(&attr, aux_pages, overwrite, 0);
	if (e) {
		for (int i = 0; i < aux_pages; i++)
			memset(perf_aux_byte(e, (uint64_t)i * PAGE_SIZE), CANARY, PAGE_SIZE);
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
	perf_event_release_kernel(e);
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
	uint64_t pos = 0, r[2 + AUX_TEST_ID_WORDS];

	KEXPECT(perf_ring_next_record(e, &pos, PERF_RECORD_ITRACE_START, r, sizeof(r)));
	step(0x401000);
	step(0x401003);
	step(0x401000);
	step(0x401000);
	step(0x401000 + 200);
	step(0x401000 + 200 + 0x12345);
	step(far);
	KEXPECT_EQ(perf_aux_head(e), 0);	/* all still in itrace's buffer */
	e->pmu->flush(e);
	KEXPECT(aux_record_is(e, &pos, 0, sizeof(want), 0));
	KEXPECT(!memcmp(perf_aux_byte(e, 0), want, sizeof(want)));
	KEXPECT_EQ(*perf_aux_byte(e, sizeof(want)), CANARY);

	/* The next chunk starts at the next block: the skipped bytes are PAD. */
	step(far + 1);
	for (int i = 0; i < ITRACE_BLOCK - 9; i++)	/* fills its first block */
		step(far + 2 + i);
	step(far + 100);				/* a new block: FULL */
	e->pmu->flush(e);
	KEXPECT(aux_record_is(e, &pos, ITRACE_BLOCK, ITRACE_BLOCK + 9, 0));
	for (unsigned i = sizeof(want); i < ITRACE_BLOCK; i++)
		KEXPECT_EQ(*perf_aux_byte(e, i), ITRACE_PAD);
	KEXPECT_EQ(*perf_aux_byte(e, ITRACE_BLOCK), ITRACE_FULL);
	KEXPECT_EQ(*perf_aux_byte(e, ITRACE_BLOCK + 9), 0x01);
	KEXPECT_EQ(*perf_aux_byte(e, 2 * ITRACE_BLOCK), ITRACE_FULL);
	KEXPECT_EQ(perf_aux_head(e), 2 * ITRACE_BLOCK + 9);
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
	KEXPECT_EQ(perf_aux_head(e), PAGE_SIZE - ITRACE_BLOCK);
	for (unsigned i = PAGE_SIZE - ITRACE_BLOCK; i < PAGE_SIZE; i++)
		KEXPECT_EQ(*perf_aux_byte(e, i), CANARY);
	for (unsigned i = 0; i < PAGE_SIZE - ITRACE_BLOCK; i += ITRACE_BLOCK)
		KEXPECT_EQ(*perf_aux_byte(e, i), ITRACE_FULL);
	e->pending_disable = false;
	close_itrace(e);
	irq_restore(flags);
}
