/* itrace: an instruction tracer for user mode on any x86-64 CPU, written
 * as a hardware tracer's driver would be (Intel PT's, say): it records the
 * address of every user-mode instruction of the traced task as packets in
 * its own 4 KiB buffer, and forwards that buffer into the event's AUX area
 * (perf_aux_output_begin/skip/end) only when it fills, when its timer
 * fires (1 ms after the first packet of a chunk) or on PERF_EVENT_IOC_FLUSH.
 * The packet format is in include/uapi/pmuos/itrace.h and the README.
 *
 * How it sees instructions: RFLAGS.TF, a #DB after each user instruction.
 * The instruction recorded is the one about to run: at each return to user
 * mode (itrace_user_exit, after signal delivery), the return address when
 * it is new (not the one recorded last; after a #DB step always: a REP
 * string instruction steps in place). A fault or an interrupt returns to
 * an instruction already recorded; SYSCALL clears TF (SFMASK) and
 * returns through IRET (sysret_safe), so the instruction after it is not
 * reached by a #DB but by that return; a signal handler is new, and so is
 * the point sigreturn goes back to.
 *
 * TF is itrace's only between its return to user mode and the next entry:
 * itrace_user_entry takes it off the saved frame, so signal frames,
 * sigreturn and the sample registers see the program's own. A program
 * that sets TF itself still gets SIGTRAP, traced or not.
 *
 * The fast path: most steps end in itrace_debug_entry, a #DB stub of 25
 * instructions that appends a one-byte packet to the open block (28 when it
 * opens the next block with FULL) and returns; the rest (a far jump, a full
 * buffer, the program's own TF, a kernel-mode #DB) go on to entry.asm's
 * stub and itrace_debug_trap. The simulated PMU never sees the stub's
 * kernel entry, so the stub moves the CPU's user_return_tsc (percpu.h) on
 * by its own length (with the SWAPGS pair a user-mode entry needs):
 * its instructions count as kernel ones, and exclude_kernel counts of
 * traced code stay exact. */
#include "itrace.h"
#include "breakpoint.h"
#include "../entry_work.h"
#include "../idt.h"
#include "../panic.h"
#include "../percpu.h"
#include "../timer.h"
#include "../tsc.h"
#include "../lib/string.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include "../perf/perf.h"
#include <asm-generic/errno.h>
#include <pmuos/itrace.h>

#define NO_IP		(~0ull)		/* no user address: nothing recorded yet */
#define NS_PER_US	1000ul
#define DEFAULT_PERIOD_US	1000

/* The fast path's state; C reads and writes it too, interrupts off. */
struct itrace_fast {
	uint8_t *pos;		/* where the next packet goes */
	uint8_t *end;		/* the open block's end, the stub writes below it; NULL: off */
	uint64_t last_ip;	/* the last packet's address */
	uint8_t *limit;		/* the stub opens blocks below this; NULL: none */
};
static_assert(offsetof(struct itrace_fast, end) == 8, "itrace_debug_entry");
static_assert(offsetof(struct itrace_fast, last_ip) == 16, "itrace_debug_entry");
static_assert(offsetof(struct itrace_fast, limit) == 24, "itrace_debug_entry");

/* Each CPU traces its own task, as each core's Intel PT does: its tracer,
 * the stub's state and whose TF the user frame carries are the CPU's. */
struct itrace_cpu {
	struct itrace_fast fast;	/* first: the stub's */
	struct itrace *tracer;		/* the tracer running here (its event active) */
	bool tf_ours;			/* the user frame's TF is itrace's */
};
static_assert(offsetof(struct itrace_cpu, fast) == 0, "itrace_debug_entry");
DEFINE_PER_CPU(struct itrace_cpu, itrace_cpu);	/* not static: the stub's */

static inline struct itrace_cpu *this_itc(void)
{
	return this_cpu_ptr(&itrace_cpu);
}

static inline struct itrace_fast *this_fast(void)
{
	return &this_itc()->fast;
}

struct itrace {
	struct perf_event *e;
	uint8_t *buf;		/* ITRACE_BUF_SIZE: the "hardware" buffer */
	uint8_t *blk_end;	/* the open block's end (pos == blk_end: none open), while
				 * the stub is off: it keeps its own in itrace_fast.end */
	uint64_t period;	/* flush timer, TSC ticks; 0: none */
	struct timer timer;
	bool tracing;		/* started: this is itrace_current */
	bool stepped;		/* this kernel entry is one of its #DB steps */
	bool lost;		/* a chunk was dropped: the next one says PARTIAL */
	bool slow;		/* config slowpath: no fast path */
	bool logged;		/* PERF_RECORD_ITRACE_START written */
};

/* One tracer per CPU, as Linux's exclusive PMUs: a CPU-wide event holds
 * its CPU, a task's (it may run anywhere) all of them. */
static struct perf_event *itrace_owner[NR_CPUS];

bool itrace_tf_ours(void)
{
	return this_itc()->tf_ours;
}

/* What setup_aux gives the core: where the AUX pages are. */
struct itrace_aux {
	void **pages;
	uint64_t size;
	bool overwrite;
};

/* ---- the fast path ---- */

/*
 * Two cases go through the #DB stub alone: a one-byte packet (SHORT or BACK)
 * into the open block, and a FULL opening the next block of the buffer when
 * the open one is full (the common way a block ends in a loop). The rest
 * bails out to entry.asm's stub (isr_stubs[1]), trap_dispatch and
 * itrace_debug_trap: a delta of 0 or beyond -64..127, a full buffer, the
 * stub off (end and limit NULL), a kernel-mode #DB.
 *
 * The instruction counts in the comments are what the stub moves
 * user_return_tsc on by: each path's instructions up to and with its
 * IRETQ, or up to its jump to entry.asm's stub (whose TRAP_ENTRY_INSNS the
 * model knows already).
 */
void itrace_debug_entry(void);
static_assert(offsetof(struct cpu, user_return_tsc) == 32, "USER_RETURN_TSC");
static_assert(offsetof(struct cpu, percpu_offset) == 80, "PERCPU_OFFSET");
__asm__(".set USER_RETURN_TSC, 32\n"
	".set PERCPU_OFFSET, 80\n"
	".pushsection .text\n"
	".globl itrace_debug_entry\n"
	".p2align 4\n"
	"itrace_debug_entry:\n"
	"	testb $3, 8(%rsp)\n"			/* 1: the CS of the trap frame */
	"	jz 9f\n"				/* 2: kernel mode */
	"	swapgs\n"				/* 3: the CPU's struct cpu (percpu.h) */
	"	push %rax\n"				/* 4 */
	"	push %rcx\n"				/* 5 */
	"	push %rdx\n"				/* 6 */
	"	mov %gs:PERCPU_OFFSET, %rdx\n"		/* 7: this CPU's itrace_cpu */
	"	mov 24(%rsp), %rcx\n"			/* 8: the next user RIP */
	"	sub itrace_cpu+16(%rdx), %rcx\n"	/* 9: its distance from the last */
	"	mov itrace_cpu(%rdx), %rax\n"		/* 10 */
	"	cmp itrace_cpu+8(%rdx), %rax\n"	/* 11: room in the open block? */
	"	jae 5f\n"				/* 12 */
	"	mov %cl, (%rax)\n"			/* 13: SHORT or BACK, if it is one */
	"	lea 64(%rcx), %rax\n"			/* 14 */
	"	cmp $191, %rax\n"			/* 15: -64..127 */
	"	ja 2f\n"				/* 16 */
	"	jrcxz 1f\n"				/* 17: 0 is REPEAT */
	"	incq itrace_cpu(%rdx)\n"		/* 18 */
	"	add %rcx, itrace_cpu+16(%rdx)\n"	/* 19 */
	"	addq $25, %gs:USER_RETURN_TSC\n"	/* 20 */
	"	pop %rdx\n"				/* 21 */
	"	pop %rcx\n"				/* 22 */
	"	pop %rax\n"				/* 23 */
	"	swapgs\n"				/* 24 */
	"	iretq\n"				/* 25 */
	"5:	cmp itrace_cpu+24(%rdx), %rax\n"	/* 13: room for a block? */
	"	jae 3f\n"				/* 14 */
	"	movb $0x88, (%rax)\n"			/* 15: ITRACE_FULL */
	"	mov 24(%rsp), %rcx\n"			/* 16 */
	"	mov %rcx, 1(%rax)\n"			/* 17 */
	"	mov %rcx, itrace_cpu+16(%rdx)\n"	/* 18 */
	"	lea 9(%rax), %rcx\n"			/* 19 */
	"	mov %rcx, itrace_cpu(%rdx)\n"		/* 20 */
	"	add $64, %rax\n"			/* 21: ITRACE_BLOCK */
	"	mov %rax, itrace_cpu+8(%rdx)\n"	/* 22 */
	"	addq $28, %gs:USER_RETURN_TSC\n"	/* 23 */
	"	pop %rdx\n"				/* 24 */
	"	pop %rcx\n"				/* 25 */
	"	pop %rax\n"				/* 26 */
	"	swapgs\n"				/* 27 */
	"	iretq\n"				/* 28 */
	"1:	pop %rdx\n"
	"	pop %rcx\n"
	"	pop %rax\n"
	"	addq $23, %gs:USER_RETURN_TSC\n"	/* 17 + 6 */
	"	swapgs\n"				/* entry.asm's stub swaps again */
	"	jmp *isr_stubs+8(%rip)\n"
	"2:	pop %rdx\n"
	"	pop %rcx\n"
	"	pop %rax\n"
	"	addq $22, %gs:USER_RETURN_TSC\n"	/* 16 + 6 */
	"	swapgs\n"
	"	jmp *isr_stubs+8(%rip)\n"
	"3:	pop %rdx\n"
	"	pop %rcx\n"
	"	pop %rax\n"
	"	addq $20, %gs:USER_RETURN_TSC\n"	/* 14 + 6 */
	"	swapgs\n"
	"	jmp *isr_stubs+8(%rip)\n"
	"9:	jmp *isr_stubs+8(%rip)\n"
	".popsection\n");
static_assert(ITRACE_FULL == 0x88 && ITRACE_BLOCK == 64, "itrace_debug_entry");

/* The stub stops: C takes the open block's end back (only the FULL path,
 * which needs limit, moves it). */
static void fast_off(struct itrace *it)
{
	struct itrace_fast *f = this_fast();

	if (f->limit)
		it->blk_end = f->end;
	f->end = f->limit = NULL;
}

/* The stub may run while the tracer traces with TF its own; it opens no
 * chunk (emit arms the timer for that). */
static void fast_on(struct itrace *it)
{
	/* Not while a breakpoint is armed: the stub would take its #DB for a
	 * step (breakpoint.c tells them apart by DR6, on the slow path). */
	struct itrace_fast *f = this_fast();

	if (it->tracing && this_itc()->tf_ours && !it->slow && !hw_breakpoint_armed()) {
		f->end = it->blk_end;
		if (f->pos != it->buf)
			f->limit = it->buf + ITRACE_BUF_SIZE;
	}
}

/* ---- packets ---- */

static unsigned encode(uint8_t *p, uint64_t ip, int64_t d, bool full)
{
	if (full || d != (int32_t)d) {
		p[0] = ITRACE_FULL;
		memcpy(p + 1, &ip, 8);
		return 9;
	}
	if (!d) {
		p[0] = ITRACE_REPEAT;
		return 1;
	}
	if (d >= ITRACE_BACK_MIN && d <= ITRACE_SHORT_MAX) {
		p[0] = (uint8_t)d;
		return 1;
	}
	if (d == (int16_t)d) {
		int16_t v = d;
		p[0] = ITRACE_DELTA16;
		memcpy(p + 1, &v, 2);
		return 3;
	}
	int32_t v = d;
	p[0] = ITRACE_DELTA32;
	memcpy(p + 1, &v, 4);
	return 5;
}

static void forward(struct itrace *it);

/* Append the packet of one instruction; a block that cannot hold it is
 * padded and a new one starts with FULL; a full buffer is forwarded. */
static void emit(struct itrace *it, uint64_t ip)
{
	struct itrace_fast *f = this_fast();
	uint8_t pkt[ITRACE_MAX_PACKET];
	bool open = f->pos < it->blk_end;
	unsigned n = encode(pkt, ip, ip - f->last_ip, !open);

	if (!open || f->pos + n > it->blk_end) {
		memset(f->pos, ITRACE_PAD, it->blk_end - f->pos);
		f->pos = it->blk_end;
		if (f->pos == it->buf + ITRACE_BUF_SIZE)
			forward(it);
		if (f->pos == it->buf && it->period)
			timer_add(&it->timer, rdtsc() + it->period);
		it->blk_end = f->pos + ITRACE_BLOCK;
		n = encode(pkt, ip, 0, true);
	}
	memcpy(f->pos, pkt, n);
	f->pos += n;
	f->last_ip = ip;
}

/* ---- forwarding into the AUX area ---- */

/* len bytes of src (NULL: PAD) at AUX position pos, round the end. */
static void aux_write(const struct itrace_aux *a, uint64_t pos, const uint8_t *src, uint64_t len)
{
	while (len) {
		uint64_t at = pos & (a->size - 1), off = at % PAGE_SIZE;
		uint64_t n = MIN(len, PAGE_SIZE - off);
		uint8_t *dst = (uint8_t *)a->pages[at / PAGE_SIZE] + off;
		if (src) {
			memcpy(dst, src, n);
			src += n;
		} else {
			memset(dst, ITRACE_PAD, n);
		}
		pos += n;
		len -= n;
	}
}

/* The internal buffer goes out as one chunk, starting at a block boundary
 * of the AUX area: the bytes up to it are skipped (and padded). */
static void forward(struct itrace *it)
{
	struct itrace_fast *f = this_fast();
	uint64_t n, drop = 0;
	struct perf_output_handle h;
	struct itrace_aux *a;

	fast_off(it);
	n = f->pos - it->buf;
	if (!n)
		goto reset;
	if (!(a = perf_aux_output_begin(&h, it->e))) {
		it->lost = true;	/* nowhere to go: lost */
		goto reset;
	}
	uint64_t pad = -h.head & (ITRACE_BLOCK - 1);
	if (pad <= h.size)
		aux_write(a, h.head, NULL, pad);
	if (perf_aux_output_skip(&h, pad)) {
		perf_aux_output_flag(&h, PERF_AUX_FLAG_TRUNCATED);
		perf_aux_output_end(&h, 0);
		goto reset;
	}
	if (n > h.size) {
		if (a->overwrite) {
			/* The chunk's oldest blocks, which its newest would
			 * overwrite anyway. */
			drop = ALIGN_UP(n - h.size, ITRACE_BLOCK);
		} else {
			/* The reader has not made room: what fits, whole
			 * blocks; nothing unread is overwritten. */
			n = ALIGN_DOWN(h.size, ITRACE_BLOCK);
			perf_aux_output_flag(&h, PERF_AUX_FLAG_TRUNCATED);
		}
	}
	if (it->lost)
		perf_aux_output_flag(&h, PERF_AUX_FLAG_PARTIAL);
	it->lost = false;
	aux_write(a, h.head, it->buf + drop, n - drop);
	perf_aux_output_end(&h, n - drop);
reset:
	f->pos = it->blk_end = it->buf;	/* the next packet opens a block: FULL */
	timer_del(&it->timer);
}

static void flush_timer(struct timer *t, struct pt_regs *regs)
{
	forward(container_of(t, struct itrace, timer));
}

/* ---- the hooks ---- */

static struct entry_work itrace_work = {
	.name = "itrace",
	.user_entry = itrace_user_entry,
	.user_exit = __itrace_user_exit,
};

/* The hooks run while a tracer runs or its TF is still in a user frame. */
static void itrace_work_update(void)
{
	struct itrace_cpu *c = this_itc();

	entry_work_set(&itrace_work, c->tracer || c->tf_ours);
}

void itrace_user_entry(struct pt_regs *regs, uint64_t tsc)
{
	if (unlikely(this_itc()->tf_ours))
		regs->rflags &= ~X86_EFLAGS_TF;
}

bool itrace_debug_trap(struct pt_regs *regs)
{
	struct itrace_cpu *c = this_itc();
	struct itrace *it = c->tracer;

	if (!it)
		return false;
	it->stepped = true;	/* itrace_user_exit records the next instruction */
	return c->tf_ours;
}

void __itrace_user_exit(struct pt_regs *regs)
{
	struct itrace_cpu *c = this_itc();
	struct itrace *it = c->tracer;

	c->tf_ours = false;
	if (!it) {
		itrace_work_update();
		return;			/* (the stub went off as the tracer stopped) */
	}
	fast_off(it);
	if (it->stepped || regs->rip != c->fast.last_ip)
		emit(it, regs->rip);
	it->stepped = false;
	if (!(regs->rflags & X86_EFLAGS_TF)) {
		regs->rflags |= X86_EFLAGS_TF;
		c->tf_ours = true;
	}
	fast_on(it);
}

/* ---- struct pmu ---- */

static struct pmu itrace_pmu;

static void itrace_destroy(struct perf_event *e)
{
	struct itrace *it = e->pmu_private;

	assert(!it->tracing);
	timer_del(&it->timer);
	kfree(it->buf);
	kfree(it);
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		if (itrace_owner[cpu] == e)
			itrace_owner[cpu] = NULL;
}

static int itrace_event_init(struct perf_event *e)
{
	uint64_t config = e->attr.config;

	if (e->attr.type != (uint32_t)itrace_pmu.type)
		return -ENOENT;
	if ((config & ~ITRACE_CONFIG_MASK) || e->attr.exclude_user)
		return -EINVAL;		/* user mode is all it traces */
	/* A task's event may run on any CPU (cpu -1), and inherited copies
	 * (their cpu not yet set) conflict with their original. */
	int first = e->cpu >= 0 && !e->target_pid ? e->cpu : 0;
	int last = e->cpu >= 0 && !e->target_pid ? e->cpu : nr_cpus - 1;
	for (int cpu = first; cpu <= last; cpu++)
		if (itrace_owner[cpu])
			return -EBUSY;	/* one tracer a CPU: Linux's exclusive PMUs */
	struct itrace *it = kzalloc(sizeof(*it));
	if (!it)
		return -ENOMEM;
	if (!(it->buf = kmalloc(ITRACE_BUF_SIZE))) {
		kfree(it);
		return -ENOMEM;
	}
	uint64_t us = config & ITRACE_CONFIG_PERIOD;
	if (!(config & ITRACE_CONFIG_NOTIMER))
		it->period = ns_to_tsc((us ? us : DEFAULT_PERIOD_US) * NS_PER_US);
	it->slow = config & ITRACE_CONFIG_SLOWPATH;
	it->e = e;
	it->timer.fn = flush_timer;
	e->pmu_private = it;
	e->destroy = itrace_destroy;
	for (int cpu = first; cpu <= last; cpu++)
		itrace_owner[cpu] = e;
	return 0;
}

static void itrace_start(struct perf_event *e, int flags)
{
	struct itrace *it = e->pmu_private;
	struct perf_output_handle h;

	/* As a hardware tracer: only with an AUX area to write to (and
	 * room, or the core disables the event). */
	if (!perf_aux_output_begin(&h, e)) {
		e->hw.state = PERF_HES_STOPPED;
		return;
	}
	perf_aux_output_end(&h, 0);
	e->hw.state = 0;
	if (!it->logged)
		perf_log_itrace_start(e);
	it->logged = true;
	it->tracing = true;
	it->stepped = false;
	*this_fast() = (struct itrace_fast){ .pos = it->buf, .last_ip = NO_IP };
	it->blk_end = it->buf;
	this_itc()->tracer = it;
	itrace_work_update();
}

/* What the buffer holds goes out as the tracer stops. */
static void itrace_stop(struct perf_event *e, int flags)
{
	struct itrace *it = e->pmu_private;

	if (it->tracing) {
		it->tracing = false;
		this_itc()->tracer = NULL;
		itrace_work_update();
		forward(it);		/* (and the stub goes off) */
	}
	e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int itrace_add(struct perf_event *e, int flags)
{
	e->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		itrace_start(e, 0);
	return 0;
}

static void itrace_del(struct perf_event *e, int flags)
{
	itrace_stop(e, PERF_EF_UPDATE);
}

static void itrace_read(struct perf_event *e)
{
}

/* PERF_EVENT_IOC_FLUSH (seed 000): what was traced before the call is in
 * the rings when it returns. */
static void itrace_flush(struct perf_event *e)
{
	struct itrace *it = e->pmu_private;
	uint64_t flags = irq_save();

	if (it->tracing && this_itc()->tracer == it)	/* the core calls it there */
		forward(it);
	irq_restore(flags);
}

static void *itrace_setup_aux(struct perf_event *e, void **pages, int nr_pages, bool overwrite)
{
	struct itrace_aux *a = kmalloc(sizeof(*a));

	if (a)
		*a = (struct itrace_aux){ pages, (uint64_t)nr_pages * PAGE_SIZE, overwrite };
	return a;
}

static void itrace_free_aux(void *aux)
{
	kfree(aux);
}

static const struct pmu_attr itrace_format[] = {
	{ "period", "config:0-15" },
	{ "notimer", "config:16" },
	{ "slowpath", "config:17" },
	{ NULL, NULL },
};

/* What perf list shows for it: the trace of user instructions with the
 * default flush period, as itrace/instructions/. */
static const struct pmu_attr itrace_events[] = {
	{ "instructions", "period=0" },
	{ NULL, NULL },
};

static struct pmu itrace_pmu = {
	.name = PMUOS_ITRACE_PMU_NAME,
	.type = -1,
	.capabilities = PERF_PMU_CAP_NO_INTERRUPT | PERF_PMU_CAP_AUX_OUTPUT,
	.format = itrace_format,
	.events = itrace_events,
	.event_init = itrace_event_init,
	.add = itrace_add,
	.del = itrace_del,
	.start = itrace_start,
	.stop = itrace_stop,
	.read = itrace_read,
	.flush = itrace_flush,
	.setup_aux = itrace_setup_aux,
	.free_aux = itrace_free_aux,
};

void itrace_init(void)
{
	perf_pmu_register(&itrace_pmu);
	entry_work_register(&itrace_work);	/* before the PMU model's: its exit is last */
	idt_set_handler(X86_TRAP_DB, itrace_debug_entry);
}
