/* Self-tests of PERF_RECORD_SAMPLE (kernel/perf/sample.c) and the side-band
 * records (kernel/perf/records.c) on buffers no process maps: every field
 * in Linux's order, user stacks and frames that run into unmapped pages, a
 * sample taken inside a real NMI, and COMM/MMAP/EXIT/SWITCH/THROTTLE/
 * LOST_SAMPLES with their sample_id_all trailers. */
#include "../../gdt.h"
#include "../../ktest.h"
#include "../../nmi.h"
#include "../../apic.h"
#include "../../task.h"
#include "../../traps.h"
#include "../../x86.h"
#include "../../lib/string.h"
#include "../../mm/paging.h"
#include "../../mm/uspace.h"
#include "../internal.h"
#include <asm/perf_regs.h>
#include <asm-generic/errno.h>
#include <linux/mman.h>

#define USER_STACK	0x10000000ul	/* where the tests map a user page */
#define ALL_REGS	(((1ull << PERF_REG_X86_64_MAX) - 1) & \
			 ~(0xfull << PERF_REG_X86_DS))	/* 20 registers */

static struct perf_event *sample_event(const struct perf_event_attr *tmpl)
{
	struct perf_event_attr attr = *tmpl;
	int err;

	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	struct perf_event *e = perf_event_alloc(&attr, NULL, &err);
	if (!e)
		return NULL;
	struct perf_buffer *rb = rb_alloc(4, false, 0);
	if (!rb || rb_attach(e, rb)) {
		perf_event_free(e);
		return NULL;
	}
	return e;
}

/* The record at byte pos of e's ring (the tests write less than a ring). */
static const uint64_t *record_at(const struct perf_event *e, uint64_t pos)
{
	return (const uint64_t *)((const char *)e->rb->data + pos);
}

static const struct perf_event_header *hdr_of(const uint64_t *r)
{
	return (const struct perf_event_header *)r;
}

/* The record after r (NULL: r is the first), or NULL past data_head: a
 * test that fails reads no further than what was written. */
static const uint64_t *next_record(const struct perf_event *e, const uint64_t *r)
{
	uint64_t at = r ? (const char *)r - (const char *)e->rb->data + hdr_of(r)->size : 0;

	if ((r && !hdr_of(r)->size) || at + sizeof(struct perf_event_header) >
	    e->rb->user_page->data_head)
		return NULL;
	return record_at(e, at);
}

static struct pt_regs fake_user_regs(uint64_t rsp, uint64_t rbp)
{
	struct pt_regs r;

	for (unsigned i = 0; i < sizeof(r) / 8; i++)
		((uint64_t *)&r)[i] = 0x1000 + i;	/* every slot told apart */
	r.cs = GDT_USER_CS;
	r.ss = GDT_USER_DS;
	r.rip = 0x401234;
	r.rsp = rsp;
	r.rbp = rbp;
	r.rflags = 0x246;
	return r;
}

/* Every field Linux 6.1 writes for a software event, in its order, from a
 * user context whose stack pointer and frame pointer point at nothing. */
KTEST(sample_fields_in_linux_order)
{
	struct perf_event_attr attr = {
		.sample_type = (PERF_SAMPLE_MAX - 1) &
			       ~(PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT_STRUCT),
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			       PERF_FORMAT_ID | PERF_FORMAT_LOST,
		.sample_regs_user = ALL_REGS,
		.sample_regs_intr = 1ull << PERF_REG_X86_IP | 1ull << PERF_REG_X86_SP,
		.sample_stack_user = 64,
		.sample_max_stack = PERF_MAX_STACK_DEPTH,
		.sample_period = 1,
	};
	struct perf_event *e = sample_event(&attr);
	KASSERT(e);
	KASSERT(!translate(read_cr3() & PTE_ADDR, 0x7fff0000, false, true));
	struct pt_regs regs = fake_user_regs(0x7fff0000, 0x7fff0100);
	e->count = 5;
	e->hw.last_period = 3;

	uint64_t t0 = perf_clock();
	perf_event_output(e, &regs, 0x5000);
	uint64_t t1 = perf_clock();
	const uint64_t *r = next_record(e, NULL), *p = r + 1;
	KASSERT(r);
	const struct perf_event_header *h = hdr_of(r);
	KEXPECT_EQ(h->type, PERF_RECORD_SAMPLE);
	KEXPECT_EQ(h->misc, PERF_RECORD_MISC_USER);
	KEXPECT_EQ(e->rb->user_page->data_head, h->size);
	KEXPECT_EQ(*p++, e->id);			/* IDENTIFIER */
	KEXPECT_EQ(*p++, 0x401234);			/* IP */
	KEXPECT_EQ(*p++, 0);				/* TID: no task */
	KEXPECT(*p >= t0 && *p <= t1);		/* TIME */
	p++;
	KEXPECT_EQ(*p++, 0x5000);			/* ADDR */
	KEXPECT_EQ(*p++, e->id);			/* ID */
	KEXPECT_EQ(*p++, e->id);			/* STREAM_ID */
	KEXPECT_EQ(*p++, 0);				/* CPU */
	KEXPECT_EQ(*p++, 3);				/* PERIOD */
	KEXPECT_EQ(*p++, 5);				/* READ: value, */
	p += 2;						/* enabled, running */
	KEXPECT_EQ(*p++, e->id);			/* id, */
	KEXPECT_EQ(*p++, 0);				/* lost */
	KEXPECT_EQ(*p++, 2);				/* CALLCHAIN: nr */
	KEXPECT_EQ(*p++, PERF_CONTEXT_USER);
	KEXPECT_EQ(*p++, 0x401234);			/* rbp led nowhere */
	KEXPECT_EQ(*p++, 4);				/* RAW: size 4, data 0 */
	KEXPECT_EQ(*p++, PERF_SAMPLE_REGS_ABI_64);	/* REGS_USER */
	KEXPECT_EQ(p[PERF_REG_X86_AX], regs.rax);
	KEXPECT_EQ(p[PERF_REG_X86_SP], regs.rsp);
	KEXPECT_EQ(p[PERF_REG_X86_IP], regs.rip);
	KEXPECT_EQ(p[PERF_REG_X86_FLAGS], regs.rflags);
	KEXPECT_EQ(p[PERF_REG_X86_CS], GDT_USER_CS);
	KEXPECT_EQ(p[PERF_REG_X86_SS], GDT_USER_DS);
	KEXPECT_EQ(p[PERF_REG_X86_R8 - 4], regs.r8);	/* DS..GS are left out */
	KEXPECT_EQ(p[PERF_REG_X86_R15 - 4], regs.r15);
	p += 20;
	KEXPECT_EQ(*p++, 64);				/* STACK_USER: size */
	for (int i = 0; i < 8; i++)
		KEXPECT_EQ(*p++, 0);			/* nothing readable */
	KEXPECT_EQ(*p++, 0);				/* dyn_size */
	KEXPECT_EQ(*p++, 0);				/* WEIGHT */
	KEXPECT_EQ(*p++, 0x5080021);			/* DATA_SRC: PERF_MEM_NA */
	KEXPECT_EQ(*p++, 0);				/* TRANSACTION */
	KEXPECT_EQ(*p++, PERF_SAMPLE_REGS_ABI_64);	/* REGS_INTR: sp, ip */
	KEXPECT_EQ(*p++, regs.rsp);
	KEXPECT_EQ(*p++, regs.rip);
	KEXPECT_EQ(*p++, 0);				/* PHYS_ADDR: unmapped */
	KEXPECT_EQ(*p++, 1);				/* CGROUP: the root */
	KEXPECT_EQ(*p++, 0);				/* DATA_PAGE_SIZE */
	KEXPECT_EQ(*p++, 0);				/* CODE_PAGE_SIZE */
	KEXPECT_EQ(*p++, 0);				/* AUX: size 0 */
	KEXPECT_EQ((p - r) * 8, h->size);
	perf_event_free(e);
}

/* A user stack whose second page is not mapped: the dump and the frame
 * walk read what the first page has and stop there, without a fault. */
KTEST(sample_user_stack_stops_at_unmapped_page)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER |
			       PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_PHYS_ADDR,
		.sample_stack_user = 64,
		.sample_max_stack = PERF_MAX_STACK_DEPTH,
	};
	struct perf_event *e = sample_event(&attr);
	struct uspace *us = uspace_create();
	KASSERT(e && us);
	KASSERT(vma_insert(us, USER_STACK, USER_STACK + PAGE_SIZE, VM_READ | VM_WRITE | VM_ANON));
	uint64_t words[PAGE_SIZE / 8];
	for (unsigned i = 0; i < ARRAY_SIZE(words); i++)
		words[i] = 0xabc0000 + i;
	/* Frames: at +0x100 {+0x200, ret1}; at +0x200 {last word, ret2}; the
	 * last word's frame straddles into the unmapped page. */
	words[0x100 / 8] = USER_STACK + 0x200, words[0x108 / 8] = 0x401111;
	words[0x200 / 8] = USER_STACK + PAGE_SIZE - 8, words[0x208 / 8] = 0x402222;
	KASSERT(!uspace_populate(us, USER_STACK, words, sizeof(words)));
	struct pt_regs regs = fake_user_regs(USER_STACK + PAGE_SIZE - 24, USER_STACK + 0x100);
	uint64_t pa = translate(us->pml4, USER_STACK, false, true);

	uint64_t flags = irq_save();
	uspace_activate(us);
	perf_event_output(e, &regs, USER_STACK + 8);
	uspace_activate(NULL);
	irq_restore(flags);

	const uint64_t *r = next_record(e, NULL), *p = r + 1;
	KASSERT(r);
	KEXPECT_EQ(*p++, 4);				/* CALLCHAIN */
	KEXPECT_EQ(*p++, PERF_CONTEXT_USER);
	KEXPECT_EQ(*p++, regs.rip);
	KEXPECT_EQ(*p++, 0x401111);
	KEXPECT_EQ(*p++, 0x402222);
	KEXPECT_EQ(*p++, 64);				/* STACK_USER */
	for (int i = 0; i < 3; i++)
		KEXPECT_EQ(*p++, words[PAGE_SIZE / 8 - 3 + i]);
	for (int i = 3; i < 8; i++)
		KEXPECT_EQ(*p++, 0);
	KEXPECT_EQ(*p++, 24);				/* dyn_size */
	KEXPECT_EQ(*p++, pa + 8);			/* PHYS_ADDR */
	KEXPECT_EQ(*p++, PAGE_SIZE);			/* DATA_PAGE_SIZE */
	KEXPECT_EQ((p - r) * 8, hdr_of(r)->size);
	uspace_destroy(us);
	perf_event_free(e);
}

KTEST(sample_max_stack_and_excluded_callchains)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_CALLCHAIN,
		.sample_max_stack = 2,
	};
	struct perf_event *e = sample_event(&attr);
	struct uspace *us = uspace_create();
	KASSERT(e && us);
	KASSERT(vma_insert(us, USER_STACK, USER_STACK + PAGE_SIZE, VM_READ | VM_WRITE | VM_ANON));
	/* A frame that points at itself: only max_stack ends the walk. */
	uint64_t loop[2] = { USER_STACK, 0x403333 };
	KASSERT(!uspace_populate(us, USER_STACK, loop, sizeof(loop)));
	struct pt_regs regs = fake_user_regs(USER_STACK, USER_STACK);

	uint64_t flags = irq_save();
	uspace_activate(us);
	perf_event_output(e, &regs, 0);
	e->attr.sample_max_stack = 5;
	perf_event_output(e, &regs, 0);
	e->attr.exclude_callchain_user = 1;
	perf_event_output(e, &regs, 0);
	uspace_activate(NULL);
	irq_restore(flags);

	const uint64_t *r;
	KASSERT((r = next_record(e, NULL)));
	KEXPECT_EQ(r[1], 3);	/* the marker, then max_stack addresses */
	KEXPECT_EQ(r[2], PERF_CONTEXT_USER);
	KEXPECT_EQ(r[3], regs.rip);
	KEXPECT_EQ(r[4], 0x403333);
	KASSERT((r = next_record(e, r)));
	KEXPECT_EQ(r[1], 6);
	KEXPECT_EQ(r[6], 0x403333);
	KASSERT((r = next_record(e, r)));
	KEXPECT_EQ(r[1], 0);	/* nothing left to record */
	KEXPECT_EQ(hdr_of(r)->size, 16);
	uspace_destroy(us);
	perf_event_free(e);
}

/* ---- kernel contexts ---- */

static struct perf_event *nmi_event;
static uint64_t nmi_rip;
static volatile bool nmi_armed;

static bool sample_nmi(struct pt_regs *regs)
{
	if (!nmi_armed)
		return false;
	nmi_armed = false;
	nmi_rip = regs->rip;
	perf_event_output(nmi_event, regs, 0);
	return true;
}

static bool kernel_text(uint64_t a)
{
	extern char __text_start[], __text_end[];

	return a >= (uint64_t)__text_start && a < (uint64_t)__text_end;
}

/* A sample taken inside an NMI that interrupted the kernel: kernel frames
 * from the interrupted rip up the boot stack, no user part (no task), user
 * registers ABI_NONE, no stack dump. */
KTEST(sample_in_nmi_walks_kernel_frames)
{
	static bool registered;
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR,
		.sample_regs_user = ALL_REGS,
		.sample_regs_intr = 1ull << PERF_REG_X86_IP | 1ull << PERF_REG_X86_CS,
		.sample_stack_user = 512,
		.sample_max_stack = PERF_MAX_STACK_DEPTH,
	};
	KASSERT((nmi_event = sample_event(&attr)));
	if (!registered)
		nmi_register(sample_nmi);
	registered = true;
	nmi_armed = true;
	uint64_t flags = irq_save();
	apic_send_self(APIC_DM_NMI, 0);
	for (int i = 0; i < 1000000 && nmi_armed; i++)
		pause();
	irq_restore(flags);
	KASSERT(!nmi_armed);

	const uint64_t *r = next_record(nmi_event, NULL), *p = r + 1;
	KASSERT(r);
	KEXPECT_EQ(hdr_of(r)->misc, PERF_RECORD_MISC_KERNEL);
	KEXPECT_EQ(*p++, nmi_rip);
	uint64_t nr = *p++;
	KEXPECT(nr >= 4);	/* the marker, rip, this test, the test runner, ... */
	KEXPECT_EQ(p[0], PERF_CONTEXT_KERNEL);
	KEXPECT_EQ(p[1], nmi_rip);
	for (uint64_t i = 1; i < nr; i++)
		KEXPECT(kernel_text(p[i]));
	/* The NMI lands in apic_send_self, a leaf without a frame of its own
	 * (so this test's frame is the one rbp names: frame pointers cannot
	 * tell the leaf's caller), or in the wait loop; the chain goes on
	 * through the test runner to kmain. */
	uint64_t i = 2;
	while (i < nr && p[i] - (uint64_t)ktest_run_all >= 0x400)
		i++;
	KEXPECT(i < nr);
	p += nr;
	KEXPECT_EQ(*p++, PERF_SAMPLE_REGS_ABI_NONE);	/* REGS_USER */
	KEXPECT_EQ(*p++, 0);				/* STACK_USER: size 0 */
	KEXPECT_EQ(*p++, PERF_SAMPLE_REGS_ABI_64);	/* REGS_INTR */
	KEXPECT_EQ(*p++, nmi_rip);
	KEXPECT_EQ(*p++, GDT_KERNEL_CS);
	KEXPECT_EQ((p - r) * 8, hdr_of(r)->size);
	perf_event_free(nmi_event);
}

/* regs NULL: the caller's own context (Linux's perf_fetch_caller_regs). */
KTEST(sample_without_regs_is_the_callers)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_CODE_PAGE_SIZE,
		.sample_max_stack = 3,
	};
	struct perf_event *e = sample_event(&attr);
	KASSERT(e);
	perf_event_output(e, NULL, 0);
	const uint64_t *r = next_record(e, NULL);
	KASSERT(r);
	uint64_t here = (uint64_t)ktest_sample_without_regs_is_the_callers;
	KEXPECT_EQ(hdr_of(r)->misc, PERF_RECORD_MISC_KERNEL);
	KEXPECT(r[1] - here < 0x200);
	KEXPECT_EQ(r[2], 4);
	KEXPECT_EQ(r[3], PERF_CONTEXT_KERNEL);
	KEXPECT_EQ(r[4], r[1]);
	KEXPECT(kernel_text(r[5]) && r[5] != r[4]);
	KEXPECT_EQ(r[7], PAGE_SIZE);	/* the kernel image: 4 KiB pages (W^X) */
	perf_event_free(e);
}

KTEST(sample_open_errnos)
{
	static const struct {
		struct perf_event_attr attr;
		int err;
	} cases[] = {
		{ { .sample_type = PERF_SAMPLE_REGS_INTR, .sample_regs_intr = 1ull << 32 }, -EOPNOTSUPP },
		{ { .sample_regs_user = 1ull << 40 }, -EOPNOTSUPP },
		{ { .sample_type = PERF_SAMPLE_BRANCH_STACK }, -EOPNOTSUPP },
		{ { .sample_type = PERF_SAMPLE_CALLCHAIN, .sample_max_stack = 128 }, -EOVERFLOW },
		{ { .sample_type = PERF_SAMPLE_CALLCHAIN, .sample_max_stack = 127 }, 0 },
		{ { .sample_max_stack = 500 }, 0 },
		{ { .sample_type = PERF_SAMPLE_AUX, .aux_sample_size = 64 }, -EINVAL },
		{ { .sample_type = PERF_SAMPLE_AUX | PERF_SAMPLE_RAW }, 0 },
	};
	struct perf_event e;

	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		e.attr = cases[i].attr;
		KEXPECT_EQ(perf_sample_event_init(&e), cases[i].err);
	}
}

/* ---- side-band records ---- */

static struct perf_event *sb_event(struct perf_event_attr attr)
{
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	struct perf_event *e = sample_event(&attr);
	if (e)
		perf_install_in_context(perf_cpu_context(0), e);
	return e;
}

static void sb_free(struct perf_event *e)
{
	perf_remove_from_context(e);
	perf_event_free(e);
}

/* The five trailer words: pid/tid of current (none: 0), time, id, cpu, id. */
static bool trailer_ok(const struct perf_event *e, const uint64_t *r)
{
	const uint64_t *t = r + hdr_of(r)->size / 8 - 5;

	return t[0] == 0 && t[1] && t[1] <= perf_clock() && t[2] == e->id && t[3] == 0 &&
	       t[4] == e->id;
}

/* The records a CPU-wide event gets for a program's life, as the seed-001
 * persistent events see them: COMM (exec) and the ELF's MMAPs at start, a
 * new mapping, a sleep, EXIT. */
KTEST(records_of_a_program_to_cpu_wide_events)
{
	struct perf_event *e = sb_event((struct perf_event_attr){
		.comm = 1, .mmap = 1, .mmap_data = 1, .task = 1, .context_switch = 1 });
	struct perf_event *m2 = sb_event((struct perf_event_attr){ .mmap2 = 1 });
	struct perf_event *off = sb_event((struct perf_event_attr){ .comm = 1, .task = 1,
								    .disabled = 1 });
	static struct task t;	/* a program that never runs */
	KASSERT(e && m2 && off);
	memset(&t, 0, sizeof(t));
	t.pid = t.tgid = 42;
	t.leader = &t;
	memcpy(t.comm, "prog", 5);
	memcpy(t.exe, "/boot/prog", 11);
	KASSERT((t.us = uspace_create()));
	struct vma *text = vma_insert(t.us, 0x400000, 0x402000, VM_READ | VM_EXEC | VM_ANON | VM_EXE);
	struct vma *data = vma_insert(t.us, 0x403000, 0x404000, VM_READ | VM_WRITE | VM_ANON | VM_EXE);
	struct vma *anon = vma_insert(t.us, 0x7000000, 0x7003000, VM_READ | VM_WRITE | VM_ANON);
	KASSERT(text && data && anon);
	text->pgoff = 0;
	data->pgoff = 0x2000;

	perf_event_exec(&t);
	perf_event_mmap(&t, anon);
	perf_event_switch(&t, NULL, true);
	perf_event_switch(&t, NULL, false);
	perf_log_task_exit(&t);

	const uint64_t *r;
	const struct perf_event_header *h;
	KASSERT((r = next_record(e, NULL)));
	h = hdr_of(r);
	KEXPECT_EQ(h->type, PERF_RECORD_COMM);
	KEXPECT_EQ(h->misc, PERF_RECORD_MISC_COMM_EXEC);
	KEXPECT_EQ(h->size, 8 + 8 + 8 + 40);
	KEXPECT_EQ(r[1], 42ull << 32 | 42);
	KEXPECT(!memcmp(&r[2], "prog\0\0\0\0", 8));
	KEXPECT(trailer_ok(e, r));

	KASSERT((r = next_record(e, r)));
	h = hdr_of(r);
	KEXPECT_EQ(h->type, PERF_RECORD_MMAP);
	KEXPECT_EQ(h->misc, PERF_RECORD_MISC_USER);
	KEXPECT_EQ(h->size, 8 + 32 + 16 + 40);
	KEXPECT_EQ(r[2], 0x400000);
	KEXPECT_EQ(r[3], 0x2000);
	KEXPECT_EQ(r[4], 0);
	KEXPECT(!memcmp(&r[5], "/boot/prog\0\0\0\0\0\0", 16));
	KEXPECT(trailer_ok(e, r));

	KASSERT((r = next_record(e, r)));
	h = hdr_of(r);
	KEXPECT_EQ(h->type, PERF_RECORD_MMAP);
	KEXPECT_EQ(h->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	KEXPECT_EQ(r[2], 0x403000);
	KEXPECT_EQ(r[4], 0x2000);

	KASSERT((r = next_record(e, r)));
	h = hdr_of(r);
	KEXPECT_EQ(h->type, PERF_RECORD_MMAP);
	KEXPECT_EQ(r[2], 0x7000000);
	KEXPECT_EQ(r[3], 0x3000);
	KEXPECT_EQ(r[4], 0x7000000);		/* private anonymous: pgoff = address */
	KEXPECT(!memcmp(&r[5], "//anon\0\0", 8));

	KASSERT((r = next_record(e, r)));
	h = hdr_of(r);
	KEXPECT_EQ(h->type, PERF_RECORD_SWITCH_CPU_WIDE);
	KEXPECT_EQ(h->misc, PERF_RECORD_MISC_SWITCH_OUT);
	KEXPECT_EQ(h->size, 8 + 8 + 40);
	KEXPECT_EQ(r[1], 0);			/* to the idle task */
	KASSERT((r = next_record(e, r)));
	h = hdr_of(r);
	KEXPECT_EQ(h->type, PERF_RECORD_SWITCH_CPU_WIDE);
	KEXPECT_EQ(h->misc, 0);

	KASSERT((r = next_record(e, r)));
	h = hdr_of(r);
	KEXPECT_EQ(h->type, PERF_RECORD_EXIT);
	KEXPECT_EQ(h->size, 8 + 24 + 40);
	KEXPECT_EQ(r[1], 42);			/* pid 42, ppid 0 */
	KEXPECT_EQ(r[2], 42);			/* tid 42, ptid 0 */
	KEXPECT(r[3] && r[3] <= perf_clock());
	KEXPECT(trailer_ok(e, r));
	KEXPECT(!next_record(e, r));

	/* mmap2 alone: the executable mappings only, the MMAP2 layout, EXIT. */
	KASSERT((r = next_record(m2, NULL)));
	h = hdr_of(r);
	KEXPECT_EQ(h->type, PERF_RECORD_MMAP2);
	KEXPECT_EQ(h->size, 8 + 64 + 16 + 40);
	KEXPECT_EQ(r[2], 0x400000);
	KEXPECT_EQ(r[5], 0);			/* maj, min */
	KEXPECT_EQ(r[8], (uint64_t)MAP_PRIVATE << 32 | (PROT_READ | PROT_EXEC));
	KEXPECT(!memcmp(&r[9], "/boot/prog\0\0\0\0\0\0", 16));
	KASSERT((r = next_record(m2, r)));
	KEXPECT_EQ(hdr_of(r)->type, PERF_RECORD_EXIT);	/* any task-tracking bit asks */
	KEXPECT(!next_record(m2, r));
	KEXPECT_EQ(off->rb->user_page->data_head, 0);	/* off: nothing */

	uspace_destroy(t.us);
	sb_free(off);
	sb_free(m2);
	sb_free(e);
}

KTEST(records_throttle_and_lost_samples)
{
	struct perf_event *e = sb_event((struct perf_event_attr){ .disabled = 1 });
	KASSERT(e);
	perf_log_throttle(e, false);
	perf_log_throttle(e, true);
	perf_log_lost_samples(e, 7);
	const uint64_t *r;
	KASSERT((r = next_record(e, NULL)));
	KEXPECT_EQ(hdr_of(r)->type, PERF_RECORD_THROTTLE);
	KEXPECT_EQ(hdr_of(r)->size, 32 + 40);
	KEXPECT(r[1] && r[2] == e->id && r[3] == e->id);
	KEXPECT(trailer_ok(e, r));
	KASSERT((r = next_record(e, r)));
	KEXPECT_EQ(hdr_of(r)->type, PERF_RECORD_UNTHROTTLE);
	KASSERT((r = next_record(e, r)));
	KEXPECT_EQ(hdr_of(r)->type, PERF_RECORD_LOST_SAMPLES);
	KEXPECT_EQ(hdr_of(r)->size, 16 + 40);
	KEXPECT_EQ(r[1], 7);
	KEXPECT(trailer_ok(e, r));
	sb_free(e);
}
