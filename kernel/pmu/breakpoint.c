/* The breakpoint PMU (PERF_TYPE_BREAKPOINT, "breakpoint"): the debug
 * registers DR0-DR3 as four counters of accesses to an address, Linux's
 * `mem:ADDR[:rwx]` events. Each hit is one event, counted (and sampled,
 * with the interrupted IP and bp_addr as ADDR) from the #DB handler.
 *
 * Slots: as Linux's constraint table, an event reserves a slot when it is
 * opened, enabled or not, flexible counted as pinned: a task's breakpoints
 * plus the CPU-wide ones, and the CPU-wide ones plus the most any one task
 * has, must fit in four (else ENOSPC). Which DR an event gets is decided
 * when it is added to the PMU (a task's at its switch-in).
 *
 * What the hardware gives (SDM Vol. 3B 18.2-18.3): a data breakpoint (W or
 * RW; R alone does not exist on x86) traps after the access, with RIP at the
 * next instruction; an execute breakpoint faults before the instruction, so
 * the handler sets RFLAGS.RF for the IRET to run it once without faulting
 * again. DR6's B0-B3 say which breakpoints matched and BS a TF single step:
 * one #DB may carry both, and the step goes on to its owner (itrace, or the
 * program's SIGTRAP). A kernel access to a watched user address (a copy_to_
 * user) is a #DB in kernel mode, counted unless exclude_kernel.
 *
 * Context: add/del/start/stop and the #DB handler run with interrupts off;
 * the #DB can come in any code that touches user memory, so the handler
 * takes only what an NMI may take (the overflow path is NMI-safe). */
#include "breakpoint.h"
#include "sw.h"
#include "../panic.h"
#include "../task.h"
#include "../traps.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../mm/kmalloc.h"
#include "../perf/perf_event.h"
#include <asm-generic/errno.h>
#include <asm/debugreg.h>
#include <linux/hw_breakpoint.h>

#define HBP_NUM		4
/* Linux's TASK_SIZE_MAX: an address range reaching it is the kernel's. */
#define TASK_SIZE_MAX	((1ul << 47) - 4096)
#define X86_EFLAGS_RF	(1ul << 16)
#define DR7_LE		DR_LOCAL_SLOWDOWN	/* exact data breakpoints (SDM 18.2.4) */

struct bp {
	struct perf_event *e;
	uint64_t addr;
	unsigned rw_len;	/* DR7's R/W and LEN fields of its slot, shifted down */
	int dr;			/* the debug register it is on; -1: none */
	struct bp *next;	/* every breakpoint event: the slot count */
};

static struct bp *all_bps;

/* Each CPU's debug registers: whose events they hold. */
struct bp_cpu {
	struct bp *on_dr[HBP_NUM];
	uint64_t dr7;		/* what DR7 holds (the enabled slots) */
	bool armed;		/* DR7 enables something: itrace's #DB stub stays off */
};
static DEFINE_PER_CPU(struct bp_cpu, bp_cpu);

static inline struct bp_cpu *this_bpc(void)
{
	return this_cpu_ptr(&bp_cpu);
}

bool hw_breakpoint_armed(void)
{
	return this_bpc()->armed;
}

/* Linux's arch checks: bp_type W, RW or X; data lengths 1, 2, 4, 8 on an
 * address aligned to them; X has the length of a long. */
static int parse(const struct perf_event_attr *attr, uint64_t *addr, unsigned *rw_len)
{
	unsigned rw, len;

	switch (attr->bp_type) {
	case HW_BREAKPOINT_W: rw = DR_RW_WRITE; break;
	case HW_BREAKPOINT_RW: rw = DR_RW_READ; break;	/* x86's "read" is read or write */
	case HW_BREAKPOINT_X:
		if (attr->bp_len != sizeof(long))
			return -EINVAL;
		rw = DR_RW_EXECUTE;
		break;
	default:
		return -EINVAL;	/* R alone, EMPTY, or more than one kind */
	}
	if (rw == DR_RW_EXECUTE) {
		len = DR_LEN_1;		/* LEN must be 0 for instruction breakpoints */
	} else {
		switch (attr->bp_len) {
		case 1: len = DR_LEN_1; break;
		case 2: len = DR_LEN_2; break;
		case 4: len = DR_LEN_4; break;
		case 8: len = DR_LEN_8; break;
		default: return -EINVAL;
		}
		if (attr->bp_addr & (attr->bp_len - 1))
			return -EINVAL;
	}
	/* Kernel addresses: Linux lets root watch them (unless exclude_kernel);
	 * pmuos does not, since a hit inside its NMI path would nest there. */
	uint64_t last = attr->bp_addr + (rw == DR_RW_EXECUTE ? 0 : attr->bp_len - 1);
	if (attr->bp_addr >= TASK_SIZE_MAX || last >= TASK_SIZE_MAX)
		return -EINVAL;
	*addr = attr->bp_addr;
	*rw_len = rw | len;
	return 0;
}

/* The slots busy on CPU cpu: its CPU-wide breakpoints, and a task's (every
 * task breakpoint may run on any CPU, so each counts on all). */
static int busy_on(int cpu, int target_pid, const struct bp *skip)
{
	int cpu_wide = 0, mine = 0, max_task = 0;

	for (struct bp *b = all_bps; b; b = b->next) {
		if (b == skip)
			continue;
		int t = b->e->target_pid;
		if (!t) {
			cpu_wide += b->e->cpu == cpu;
			continue;
		}
		if (t == target_pid)
			mine++;
		int n = 0;		/* the most any one task has */
		for (struct bp *c = all_bps; c; c = c->next)
			n += c != skip && c->e->target_pid == t;
		max_task = MAX(max_task, n);
	}
	return cpu_wide + (target_pid ? mine : max_task);
}

/* The slots busy for one more event following target_pid (0: CPU-wide) on
 * cpu (-1: any), as Linux's per-CPU constraint: the fullest CPU it may run on. */
static int busy_slots(int target_pid, int cpu, const struct bp *skip)
{
	if (cpu >= 0)
		return busy_on(cpu, target_pid, skip);
	int most = 0;
	for (int c = 0; c < nr_cpus; c++)
		most = MAX(most, busy_on(c, target_pid, skip));
	return most;
}

static void bp_destroy(struct perf_event *e)
{
	struct bp *b = e->pmu_private;

	for (struct bp **link = &all_bps; *link; link = &(*link)->next) {
		if (*link == b) {
			*link = b->next;
			break;
		}
	}
	assert(b->dr < 0);
	kfree(b);
	e->pmu_private = NULL;
}

static int bp_event_init(struct perf_event *e)
{
	uint64_t addr;
	unsigned rw_len;

	if (e->attr.type != PERF_TYPE_BREAKPOINT)
		return -ENOENT;
	int err = parse(&e->attr, &addr, &rw_len);
	if (err)
		return err;
	if (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	if (busy_slots(e->target_pid, e->target_pid ? -1 : e->cpu, NULL) + 1 > HBP_NUM)
		return -ENOSPC;
	struct bp *b = kmalloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	*b = (struct bp){ .e = e, .addr = addr, .rw_len = rw_len, .dr = -1, .next = all_bps };
	all_bps = b;
	e->pmu_private = b;
	e->destroy = bp_destroy;
	e->hw.period_left = e->hw.sample_period;
	return 0;
}

static void write_addr(int dr, uint64_t addr)
{
	switch (dr) {
	case 0: write_dr0(addr); break;
	case 1: write_dr1(addr); break;
	case 2: write_dr2(addr); break;
	case 3: write_dr3(addr); break;
	}
}

static void load_dr7(struct bp_cpu *c)
{
	/* DR6 is sticky and itrace's #DB stub never clears it: a BS of its
	 * steps would make the first hit look like a step too. From here on
	 * every #DB reaches hw_breakpoint_handler, which clears it. */
	if (!c->armed)
		write_dr6(DR6_RESERVED);
	c->armed = c->dr7 & DR_LOCAL_ENABLE_MASK;
	write_dr7(c->dr7);
}

static void bp_start(struct perf_event *e, int flags)
{
	struct bp_cpu *c = this_bpc();
	struct bp *b = e->pmu_private;
	int shift = DR_CONTROL_SHIFT + b->dr * DR_CONTROL_SIZE;

	assert(b->dr >= 0 && c->on_dr[b->dr] == b);
	write_addr(b->dr, b->addr);
	c->dr7 &= ~(0xful << shift);
	c->dr7 |= (uint64_t)b->rw_len << shift | DR_LOCAL_ENABLE << (b->dr * DR_ENABLE_SIZE) |
		  DR7_LE;
	load_dr7(c);
	e->hw.state = 0;
}

static void bp_stop(struct perf_event *e, int flags)
{
	struct bp_cpu *c = this_bpc();
	struct bp *b = e->pmu_private;

	assert(b->dr >= 0 && c->on_dr[b->dr] == b);
	c->dr7 &= ~((uint64_t)DR_LOCAL_ENABLE << (b->dr * DR_ENABLE_SIZE));
	if (!(c->dr7 & DR_LOCAL_ENABLE_MASK))
		c->dr7 = 0;
	load_dr7(c);
	e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int bp_add(struct perf_event *e, int flags)
{
	struct bp_cpu *c = this_bpc();
	struct bp *b = e->pmu_private;

	for (int i = 0; i < HBP_NUM; i++) {
		if (c->on_dr[i])
			continue;
		c->on_dr[i] = b;
		b->dr = i;
		e->hw.idx = i;
		e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		if (flags & PERF_EF_START)
			bp_start(e, PERF_EF_RELOAD);
		return 0;
	}
	return -EAGAIN;		/* the slot count keeps this from happening */
}

static void bp_del(struct perf_event *e, int flags)
{
	struct bp *b = e->pmu_private;

	if (!(e->hw.state & PERF_HES_STOPPED))
		bp_stop(e, PERF_EF_UPDATE);
	this_bpc()->on_dr[b->dr] = NULL;
	b->dr = -1;
	e->hw.idx = -1;
}

static void bp_read(struct perf_event *e)
{
	/* hits are added to e->count as they happen */
}

/* Linux's modify_user_hw_breakpoint_check: only bp_addr, bp_type, bp_len
 * and disabled may differ from the event's attr; a new type must find a
 * slot (one pool on x86: the count does not change). e is disabled. */
static int bp_modify(struct perf_event *e, struct perf_event_attr *attr)
{
	struct bp *b = e->pmu_private;
	struct perf_event_attr old = e->attr;
	uint64_t addr;
	unsigned rw_len;

	int err = parse(attr, &addr, &rw_len);
	if (err)
		return err;
	old.bp_addr = attr->bp_addr;
	old.bp_type = attr->bp_type;
	old.bp_len = attr->bp_len;
	old.disabled = attr->disabled;
	if (memcmp(&old, attr, sizeof(old)))
		return -EINVAL;
	e->attr = old;
	b->addr = addr;
	b->rw_len = rw_len;
	return 0;
}

bool hw_breakpoint_handler(struct pt_regs *regs)
{
	uint64_t dr6 = read_dr6();
	bool user = user_mode(regs);

	/* DR6's bits are sticky: cleared on every #DB, or a later one would
	 * show this one's causes too. */
	if ((dr6 & (DR_TRAP_BITS | DR_STEP)) == 0)
		return false;
	write_dr6(DR6_RESERVED);
	if (!(dr6 & DR_TRAP_BITS))
		return false;
	for (int i = 0; i < HBP_NUM; i++) {
		struct bp *b = this_bpc()->on_dr[i];
		if (!(dr6 & (DR_TRAP0 << i)) || !b)
			continue;
		struct perf_event *e = b->e;
		if ((b->rw_len & 3) == DR_RW_EXECUTE)
			regs->rflags |= X86_EFLAGS_RF;	/* run the instruction it faulted before */
		if (e->hw.state & PERF_HES_STOPPED)
			continue;
		if (user ? e->attr.exclude_user : e->attr.exclude_kernel)
			continue;
		e->count++;
		if (is_sampling_event(e))
			perf_swevent_overflow(e, 1, regs, e->attr.bp_addr);
	}
	return !(dr6 & DR_STEP);	/* a step in the same #DB is its owner's still */
}

static struct pmu bp_pmu = {
	.name = "breakpoint",
	.type = PERF_TYPE_BREAKPOINT,
	.event_init = bp_event_init,
	.add = bp_add,
	.del = bp_del,
	.start = bp_start,
	.stop = bp_stop,
	.read = bp_read,
	.modify = bp_modify,
};

void hw_breakpoint_init(void)
{
	write_dr7(0);
	write_dr6(DR6_RESERVED);
	perf_pmu_register(&bp_pmu);
}
