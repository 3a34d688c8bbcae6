/* PERF_RECORD_SAMPLE: the fields attr.sample_type asks for, in the order and
 * layout of include/uapi/linux/perf_event.h and Linux 6.1's
 * perf_output_sample, written from any context, NMIs included.
 *
 * Nothing here may fault. User memory (callchain frames, the stack dump) is
 * read through the page tables in use (CR3) and the direct map, page by
 * page, stopping at the first page not mapped for user reads; it is never
 * touched through its user address (SMAP would stop that too). Kernel
 * frames are followed only inside the stack the interrupted code ran on. */
#include "internal.h"
#include "../clock.h"
#include "../gdt.h"
#include "../task.h"
#include "../traps.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../mm/paging.h"
#include <asm/perf_regs.h>
#include <asm-generic/errno.h>
#include <linux/time.h>

#define MAX_CONTEXTS	8	/* sysctl_perf_event_max_contexts_per_stack */
/* data_src when the source gives none: include/linux/perf_event.h */
#define PERF_MEM_NA	(PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) | \
			 PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA))
#define ROOT_CGROUP_ID	1	/* no cgroups: every task is in the root one */
#define RECORD_MAX	0xffff	/* perf_event_header.size is 16 bits */
#define LARGE_PAGE	(2 * MiB)

/* The boot stack (linker.ld): kmain, the self-tests and the idle loop run on it. */
extern char __boot_stack_guard[], boot_stack_guarded_top[];

/* Each field it looks at is in perf_sample_event_init's test too. */
int __perf_sample_event_init(struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;

	/* perf_try_init_event's has_extended_regs: XMM0.. come from PEBS only. */
	if ((a->sample_regs_user | a->sample_regs_intr) & PERF_REG_EXTENDED_MASK)
		return -EOPNOTSUPP;
	if (a->sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;	/* nor branch stacks (no LBR) */
	if ((a->sample_type & PERF_SAMPLE_CALLCHAIN) && a->sample_max_stack > (uint32_t)perf_sysctl.max_stack)
		return -EOVERFLOW;	/* get_callchain_buffers */
	if (a->aux_sample_size)
		return -EINVAL;		/* perf_get_aux_event: no PMU snapshots AUX */
	/* The first realtime read consults the CMOS clock: never from an NMI. */
	if (a->use_clockid)
		perf_event_clock(e);
	return 0;
}

uint64_t perf_event_clock(const struct perf_event *e)
{
	uint64_t ns;

	if (e->attr.use_clockid) {
		/* TAI is realtime until someone sets the offset (never, here). */
		int clock = e->attr.clockid == CLOCK_TAI ? CLOCK_REALTIME : e->attr.clockid;
		if (!clock_read_ns(clock, &ns))
			return ns;
	}
	return perf_clock();
}

/* ---- reading memory without faulting ---- */

static uint64_t active_pml4(void)
{
	return read_cr3() & PTE_ADDR;
}

/* Up to n bytes of user memory at va, page by page through the direct map,
 * into dst or the record h (or nowhere: to measure). Returns the bytes that
 * could be read: all, or those before the first page not mapped. */
static size_t user_read(uint64_t pml4, uint64_t va, void *dst,
			struct perf_output_handle *h, size_t n)
{
	size_t done = 0;

	while (done < n) {
		uint64_t at = va + done;
		size_t chunk = MIN(n - done, PAGE_SIZE - (at & (PAGE_SIZE - 1)));
		if (at < va || at >= USER_END)
			break;
		uint64_t pa = translate(pml4, at, false, true);
		if (!pa || pa + chunk > direct_map_end)
			break;
		if (h)
			perf_output_copy(h, phys_to_virt(pa), chunk);
		else if (dst)
			memcpy((char *)dst + done, phys_to_virt(pa), chunk);
		done += chunk;
	}
	return done;
}

/* Linux's perf_get_page_size: the size of the page mapping va, 0 if none. */
static uint64_t page_size(uint64_t pml4, uint64_t va)
{
	if (!va)
		return 0;
	pte_t *e = pte_walk(pml4, va, false);
	if (!e || !(*e & PTE_P))
		return 0;
	return *e & PTE_PS ? LARGE_PAGE : PAGE_SIZE;
}

/* Linux's perf_virt_to_phys: user pages present now, the direct map and the
 * kernel image; 0 for the rest (vmalloc space, unmapped pages). */
static uint64_t sample_phys_addr(uint64_t pml4, uint64_t va)
{
	if (!va)
		return 0;
	if (va < USER_END)
		return translate(pml4, va, false, true);
	if (va >= DIRECT_MAP_BASE && va - DIRECT_MAP_BASE < direct_map_end)
		return va - DIRECT_MAP_BASE;
	if (va >= KERNEL_VMA)
		return virt_to_phys((void *)va);
	return 0;
}

/* The kernel stack sp lies in: the current task's or the boot stack. */
static bool kernel_stack(uint64_t sp, uint64_t *lo, uint64_t *hi)
{
	if (current && current->kstack_top) {
		*hi = (uint64_t)current->kstack_top;
		*lo = *hi - KSTACK_SIZE;
		if (sp >= *lo && sp < *hi)
			return true;
	}
	*lo = (uint64_t)__boot_stack_guard + PAGE_SIZE;
	*hi = (uint64_t)boot_stack_guarded_top;
	return sp >= *lo && sp < *hi;
}

/* ---- the user registers (Linux's perf_sample_regs_user) ---- */

/* regs when they are user mode; else the frame the current task's last
 * entry from user mode saved at the top of its kernel stack. None for no
 * task, or while an entry or exit stub is still building or unwinding that
 * frame (rsp above the frame's start, or still the user's after SYSCALL):
 * its contents are not this entry's then (perf_get_regs_user's check). */
static const struct pt_regs *user_regs(const struct pt_regs *regs)
{
	if (user_mode(regs))
		return regs;
	if (!current || !current->kstack_top)
		return NULL;
	const struct pt_regs *frame = (const struct pt_regs *)current->kstack_top - 1;
	uint64_t lo = (uint64_t)current->kstack_top - KSTACK_SIZE;
	if (regs->rsp < lo || regs->rsp > (uint64_t)frame || !user_mode(frame))
		return NULL;
	return frame;
}

/* ---- callchains (kernel/events/callchain.c, arch/x86/events/core.c) ---- */

struct callchain {
	uint64_t ip[PERF_MAX_STACK_DEPTH + MAX_CONTEXTS];
	unsigned nr;		/* entries, context markers included */
	unsigned ips;		/* entries that are addresses: at most max_stack */
	unsigned contexts;
	unsigned max_stack;
	bool contexts_maxed;
};

static bool chain_store(struct callchain *c, uint64_t ip)
{
	if (c->ips >= c->max_stack || c->contexts_maxed)
		return false;
	c->ip[c->nr++] = ip;
	c->ips++;
	return true;
}

/* Markers do not count towards sample_max_stack, only towards their own limit. */
static bool chain_store_context(struct callchain *c, uint64_t marker)
{
	if (c->contexts >= MAX_CONTEXTS) {
		c->contexts_maxed = true;
		return false;
	}
	c->ip[c->nr++] = marker;
	c->contexts++;
	return true;
}

/* The interrupted ip, then the return addresses of the frame-pointer chain:
 * [rbp] = the caller's rbp, [rbp + 8] = the return address; each frame lies
 * above the last, inside the stack the interrupted code ran on. The chain
 * ends at an entry stub, whose saved rbp is a user one. */
static void callchain_kernel(struct callchain *c, const struct pt_regs *regs)
{
	uint64_t lo, hi, fp = regs->rbp;

	if (!chain_store(c, regs->rip) || !kernel_stack(regs->rsp, &lo, &hi))
		return;
	while (fp >= regs->rsp && fp >= lo && fp <= hi - 16 && IS_ALIGNED(fp, 8)) {
		const uint64_t *frame = (const uint64_t *)fp;
		if (!frame[1] || !chain_store(c, frame[1]) || frame[0] <= fp)
			return;
		fp = frame[0];
	}
}

/* x86's perf_callchain_user: the ip, then frames while they can be read
 * (no ordering test: Linux has none either; max_stack bounds the walk). */
static void callchain_user(struct callchain *c, const struct pt_regs *u, uint64_t pml4)
{
	uint64_t fp = u->rbp, frame[2];

	if (!chain_store(c, u->rip))
		return;
	while (fp <= USER_END - sizeof(frame) &&
	       user_read(pml4, fp, frame, NULL, sizeof(frame)) == sizeof(frame) &&
	       chain_store(c, frame[1]))
		fp = frame[0];
}

/* get_perf_callchain: kernel frames when the interrupt came from the
 * kernel, then the task's user frames, each behind its context marker. */
static void callchain(struct callchain *c, const struct perf_event *e, const struct pt_regs *regs,
		      const struct pt_regs *uregs, uint64_t pml4)
{
	/* No user frames of another task than the event's. */
	bool crosstask = e->ctx && e->ctx->task && e->ctx->task != current;

	/* Open refuses more for callchain events; in-kernel ones are held to it too. */
	c->max_stack = MIN(e->attr.sample_max_stack, (uint32_t)PERF_MAX_STACK_DEPTH);
	if (!e->attr.exclude_callchain_kernel && !user_mode(regs)) {
		chain_store_context(c, PERF_CONTEXT_KERNEL);
		callchain_kernel(c, regs);
	}
	if (!e->attr.exclude_callchain_user && uregs && !crosstask) {
		chain_store_context(c, PERF_CONTEXT_USER);
		callchain_user(c, uregs, pml4);
	}
}

/* ---- the record ---- */

struct sample {
	struct perf_event *e;
	const struct pt_regs *regs;	/* the interrupted context */
	const struct pt_regs *uregs;	/* the user registers, NULL if none */
	uint64_t pml4, addr, time;
	uint16_t size;
	uint16_t stack_size;		/* STACK_USER's static size */
	uint16_t stack_dyn;		/* of which readable */
	struct callchain chain;
};

/* The layout is described once, by put_sample: a pass without a handle
 * sizes the record, a pass with one writes it. */
struct out {
	struct perf_output_handle *h;
	unsigned size;
};

static void put(struct out *o, const void *p, unsigned n)
{
	if (o->h)
		perf_output_copy(o->h, p, n);
	o->size += n;
}

static void put64(struct out *o, uint64_t v)
{
	put(o, &v, sizeof(v));
}

/* pt_regs slots in perf_event_x86_regs order; DS..GS are not kept on x86-64. */
#define REG(r)	(offsetof(struct pt_regs, r) / 8)
static const int8_t reg_slot[PERF_REG_X86_64_MAX] = {
	[PERF_REG_X86_AX] = REG(rax), [PERF_REG_X86_BX] = REG(rbx),
	[PERF_REG_X86_CX] = REG(rcx), [PERF_REG_X86_DX] = REG(rdx),
	[PERF_REG_X86_SI] = REG(rsi), [PERF_REG_X86_DI] = REG(rdi),
	[PERF_REG_X86_BP] = REG(rbp), [PERF_REG_X86_SP] = REG(rsp),
	[PERF_REG_X86_IP] = REG(rip), [PERF_REG_X86_FLAGS] = REG(rflags),
	[PERF_REG_X86_CS] = REG(cs), [PERF_REG_X86_SS] = REG(ss),
	[PERF_REG_X86_DS] = -1, [PERF_REG_X86_ES] = -1,
	[PERF_REG_X86_FS] = -1, [PERF_REG_X86_GS] = -1,
	[PERF_REG_X86_R8] = REG(r8), [PERF_REG_X86_R9] = REG(r9),
	[PERF_REG_X86_R10] = REG(r10), [PERF_REG_X86_R11] = REG(r11),
	[PERF_REG_X86_R12] = REG(r12), [PERF_REG_X86_R13] = REG(r13),
	[PERF_REG_X86_R14] = REG(r14), [PERF_REG_X86_R15] = REG(r15),
};
#undef REG

/* { abi; regs[weight(mask)] }: abi NONE and nothing more without registers. */
static void put_regs(struct out *o, const struct pt_regs *regs, uint64_t mask)
{
	put64(o, regs ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE);
	if (!regs)
		return;
	for (int i = 0; i < PERF_REG_X86_64_MAX; i++) {
		if (mask & (1ull << i))
			put64(o, reg_slot[i] < 0 ? 0 : ((const uint64_t *)regs)[reg_slot[i]]);
	}
}

/* The event's times as read() would give them now, without changing any
 * state an interrupted update may be in the middle of (calc_timer_values). */
static void event_times(const struct perf_event *e, uint64_t *enabled, uint64_t *running)
{
	uint64_t now = perf_clock(), d = now > e->tstamp ? now - e->tstamp : 0;

	*enabled = e->total_time_enabled + (e->state >= PERF_EVENT_STATE_INACTIVE ? d : 0);
	*running = e->total_time_running + (e->state == PERF_EVENT_STATE_ACTIVE ? d : 0);
}

/* A group member's { value, id, lost }; the others than the sampled event
 * are read first if they count (perf_output_read_group). */
static void put_read_entry(struct out *o, struct perf_event *s, const struct perf_event *e)
{
	uint64_t fmt = e->attr.read_format;

	if (o->h && s != e && s->state == PERF_EVENT_STATE_ACTIVE)
		s->pmu->read(s);
	put64(o, s->count);
	if (fmt & PERF_FORMAT_ID)
		put64(o, perf_primary_id(s));
	if (fmt & PERF_FORMAT_LOST)
		put64(o, s->lost_samples);
}

/* PERF_SAMPLE_READ: read()'s layout, with the sampled event's own times. */
static void put_read(struct out *o, struct perf_event *e)
{
	uint64_t fmt = e->attr.read_format, enabled = 0, running = 0;
	struct perf_event *l = e->group_leader;

	if (o->h)
		event_times(e, &enabled, &running);
	if (fmt & PERF_FORMAT_GROUP) {
		/* The list, not nr_siblings: an NMI may come while process
		 * context links or unlinks a sibling, between the list and the
		 * count. Within one NMI the list holds still. */
		uint64_t nr = 1;
		for_each_sibling(s, l)
			nr++;
		put64(o, nr);
	} else {
		put64(o, e->count);
	}
	if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put64(o, enabled);
	if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put64(o, running);
	if (!(fmt & PERF_FORMAT_GROUP)) {
		if (fmt & PERF_FORMAT_ID)
			put64(o, perf_primary_id(e));
		if (fmt & PERF_FORMAT_LOST)
			put64(o, e->lost_samples);
		return;
	}
	put_read_entry(o, l, e);
	for_each_sibling(s, l)
		put_read_entry(o, s, e);
}

/* { size; data[size]; dyn_size }, the part of the dump that could be read
 * and zeros for the rest. A size of 0 has no data and no dyn_size (Linux
 * 6.1 writes a dyn_size past the record's end then: see README). */
static void put_stack(struct out *o, const struct sample *s)
{
	static const uint64_t zeros[32];

	put64(o, s->stack_size);
	if (!s->stack_size)
		return;
	if (o->h)
		user_read(s->pml4, s->uregs->rsp, NULL, o->h, s->stack_dyn);
	o->size += s->stack_dyn;
	for (unsigned left = s->stack_size - s->stack_dyn; left;) {
		unsigned n = MIN(left, sizeof(zeros));
		put(o, zeros, n);
		left -= n;
	}
	put64(o, s->stack_dyn);
}

static void put_sample(struct out *o, const struct sample *s)
{
	struct perf_event *e = s->e;
	const struct pt_regs *regs = s->regs;
	uint64_t type = e->attr.sample_type, pidtid = perf_pid_tid(current);
	struct perf_event_header hdr = {
		.type = PERF_RECORD_SAMPLE,
		.misc = user_mode(regs) ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL,
		.size = s->size,
	};

	put(o, &hdr, sizeof(hdr));
	if (type & PERF_SAMPLE_IDENTIFIER)
		put64(o, perf_primary_id(e));
	if (type & PERF_SAMPLE_IP)
		put64(o, regs->rip);
	if (type & PERF_SAMPLE_TID)
		put64(o, pidtid);
	if (type & PERF_SAMPLE_TIME)
		put64(o, s->time);
	if (type & PERF_SAMPLE_ADDR)
		put64(o, s->addr);
	if (type & PERF_SAMPLE_ID)
		put64(o, perf_primary_id(e));
	if (type & PERF_SAMPLE_STREAM_ID)
		put64(o, e->id);			/* a copy's own */
	if (type & PERF_SAMPLE_CPU)
		put64(o, smp_processor_id());		/* the writing CPU, reserved 0 */
	if (type & PERF_SAMPLE_PERIOD)
		put64(o, e->hw.last_period);
	if (type & PERF_SAMPLE_READ)
		put_read(o, e);
	if (type & PERF_SAMPLE_CALLCHAIN) {
		put64(o, s->chain.nr);
		put(o, s->chain.ip, s->chain.nr * sizeof(uint64_t));
	}
	if (type & PERF_SAMPLE_RAW) {
		/* No raw data outside tracepoints: Linux's { size 4, 0 }. */
		const uint32_t raw[2] = { sizeof(uint32_t), 0 };
		put(o, raw, sizeof(raw));
	}
	/* PERF_SAMPLE_BRANCH_STACK: refused at open. */
	if (type & PERF_SAMPLE_REGS_USER)
		put_regs(o, s->uregs, e->attr.sample_regs_user);
	if (type & PERF_SAMPLE_STACK_USER)
		put_stack(o, s);
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put64(o, 0);
	if (type & PERF_SAMPLE_DATA_SRC)
		put64(o, PERF_MEM_NA);
	if (type & PERF_SAMPLE_TRANSACTION)
		put64(o, 0);
	if (type & PERF_SAMPLE_REGS_INTR)
		put_regs(o, regs, e->attr.sample_regs_intr);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		put64(o, sample_phys_addr(s->pml4, s->addr));
	if (type & PERF_SAMPLE_CGROUP)
		put64(o, ROOT_CGROUP_ID);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		put64(o, page_size(s->pml4, s->addr));
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		put64(o, page_size(s->pml4, regs->rip));
	if (type & PERF_SAMPLE_AUX)
		put64(o, 0);				/* no AUX snapshot: size 0 */
}

/* perf_sample_ustack_size: the asked size, within the user address space
 * above rsp and what the 16-bit record size leaves (size_without: the
 * record's size with an empty dump). */
static uint16_t stack_dump_size(const struct sample *s, unsigned size_without)
{
	uint64_t want = s->e->attr.sample_stack_user;

	if (!s->uregs || !s->uregs->rsp || s->uregs->rsp >= USER_END)
		return 0;
	want = MIN(want, USER_END - s->uregs->rsp);
	/* size_without has the size word already; dyn_size follows the data. */
	if (size_without + sizeof(uint64_t) >= RECORD_MAX)
		return 0;
	return MIN(want, ALIGN_DOWN(RECORD_MAX - size_without - sizeof(uint64_t), 8));
}

void perf_event_output(struct perf_event *e, struct pt_regs *regs, uint64_t addr)
{
	struct pt_regs caller;
	struct sample s;
	uint64_t type = e->attr.sample_type;

	if (!regs) {
		/* Linux's perf_fetch_caller_regs: where the caller was. */
		const uint64_t *fp = __builtin_frame_address(0);
		memset(&caller, 0, sizeof(caller));
		caller.rip = fp[1];
		caller.rbp = fp[0];
		caller.rsp = (uint64_t)fp;
		caller.cs = GDT_KERNEL_CS;
		regs = &caller;
	}
	s.e = e;
	s.regs = regs;
	s.uregs = NULL;
	s.pml4 = active_pml4();
	s.addr = addr;
	s.time = type & PERF_SAMPLE_TIME ? perf_event_clock(e) : 0;
	s.size = s.stack_size = s.stack_dyn = 0;
	s.chain.nr = s.chain.ips = s.chain.contexts = 0;
	s.chain.contexts_maxed = false;
	if (type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN))
		s.uregs = user_regs(regs);
	if (type & PERF_SAMPLE_CALLCHAIN)
		callchain(&s.chain, e, regs, s.uregs, s.pml4);

	struct out o = { NULL, 0 };
	put_sample(&o, &s);
	if (type & PERF_SAMPLE_STACK_USER) {
		s.stack_size = stack_dump_size(&s, o.size);
		if (s.stack_size) {
			s.stack_dyn = user_read(s.pml4, s.uregs->rsp, NULL, NULL, s.stack_size);
			o.size += s.stack_size + sizeof(uint64_t);
		}
	}
	if (o.size > RECORD_MAX)
		return;		/* a group too large to describe: Linux warns and drops it too */
	s.size = o.size;

	struct perf_output_handle h;
	if (perf_output_begin(&h, e, s.size))
		return;
	o = (struct out){ &h, 0 };
	put_sample(&o, &s);
	perf_output_end(&h);
}
