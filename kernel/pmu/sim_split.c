/* The simulated PMU's clock: which ring each TSC tick belongs to (entry.asm's
 * hooks at every kernel entry and return to user mode, task.c's around HLT),
 * the PMI timed with the one-shot LAPIC timer to land exactly on the
 * overflowing instruction, and user RDPMC emulated from its #UD.
 *
 * The model's timer (timer.c) only makes an interrupt come: after any
 * interrupt handler, sim_irq_exit catches the counters up and hands a
 * pending PMI to the handler the NMI uses, interrupts off. timer.c's own
 * arming lands a few instructions late, so the model stores the LAPIC count
 * again from fixed instruction sequences (here for kernel mode, entry.asm on
 * the way to user mode) whose lengths it knows. Unlike an NMI this interrupt
 * waits while interrupts are off: an overflow in such a kernel region is
 * taken when they come back on, one in the last instructions of a return to
 * user mode at the first user instruction (one already seen is raised
 * before returning). NMI safety is for self-NMI tests to prove. */
#include "sim.h"
#include "pmu.h"
#include "../apic.h"
#include "../entry_work.h"
#include "../gdt.h"
#include "../percpu.h"
#include "../traps.h"
#include "../tsc.h"
#include "../lib/string.h"
#include "../mm/paging.h"
#include "../mm/uaccess.h"
#include "../mm/vmalloc.h"

/* QEMU TCG with -icount: a one-shot xAPIC timer given count C by a store
 * at TSC t interrupts just before the instruction at TSC t + C + 2 (DESIGN.md:
 * C + 1 instructions after the store; kernel/test/pmu.c checks it). */
#define SIM_LAPIC_LAG	2
/* lapic_exact's instructions from its RDTSC to its store. */
#define SIM_ARM_INSNS	7
/* Beyond this many ticks, arm a re-check instead: the LAPIC count is 32
 * bits, and timer.c's conversion drifts with distance. */
#define SIM_HORIZON	(1ull << 31)
/* Well over the kernel instructions between sim_user_exit's catch-up
 * and the first user instruction: a kernel-only counter due in that span
 * still gets its PMI (at the first user instruction), and timer.c's
 * deadline for a user-mode overflow (the fallback when entry.asm cannot
 * arm it) is no earlier than the overflow, and far enough after the return
 * that an entry at once cancels it before it expires. */
#define SIM_EXIT_TAIL	4096
/* The Interrupt Request Register: 32 vectors per 16-byte register (SDM
 * Vol. 3A 11.8.4, Table 11-1). */
#define APIC_IRR	0x200
/* No target: far beyond any count entry.asm computes. */
#define SIM_NONE	(INT64_MAX / 4)

/* The model's subscription to user entries and exits (entry_work.h): on
 * while a counter counts or a PMI waits, so that a machine with no event
 * on the model pays nothing on its syscalls. entry.asm's return to user
 * mode stamps the TSC of the first user instruction (user_return_tsc, struct cpu) and
 * stores the exact count into the LAPIC timer from the targets sim_user_exit
 * leaves (user_return_timer_*). */
static struct entry_work sim_work;
static bool sim_counting(void);

/* Whether a count stored now for an interrupt at TSC target delays no other
 * timer: the LAPIC is idle or due no earlier. One due within the slack of
 * the estimate (timer.c's arming latency, or the rest of a return to user
 * mode) looks the same, and fires that much later.
 * Not while a timer interrupt is pending: it comes first, and a count stored
 * now would expire inside its handler, before the model's entry hook could
 * re-arm, and leave the next one pending in turn: an interrupt storm. */
static bool lapic_may_store(uint64_t target)
{
	if (!this_sim()->lapic_timer_init)
		return false;
	uint32_t irr = apic_read(APIC_IRR + IRQ_VECTOR_TIMER / 32 * 0x10);
	if (irr & 1u << IRQ_VECTOR_TIMER % 32)
		return false;
	uint64_t cur = apic_read(APIC_TIMER_CUR);
	return !cur || rdtsc() + cur * tsc_hz / apic_timer_hz >= target;
}

/* timer.c runs code between reading the TSC and storing the count, so its
 * interrupt comes some instructions late: store the count again from a
 * fixed sequence to land exactly on this_sim()->target. */
static void lapic_exact(void)
{
	if (!this_sim()->target || !lapic_may_store(this_sim()->target))
		return;
	uint64_t count = this_sim()->target - SIM_ARM_INSNS - SIM_LAPIC_LAG;

	__asm__ volatile("rdtsc\n\t"
			 "shl $32, %%rdx\n\t"
			 "or %%rdx, %%rax\n\t"
			 "sub %%rax, %[c]\n\t"
			 "mov $1, %%edx\n\t"
			 "cmp %%rdx, %[c]\n\t"
			 "cmovl %%rdx, %[c]\n\t"	/* at least 1: 0 stops the timer */
			 "movl %k[c], (%[reg])"
			 : [c] "+r"(count)
			 : [reg] "r"(this_sim()->lapic_timer_init)
			 : "rax", "rdx", "cc", "memory");
}

/* Queue the model's timer at deadline, never before the PMI is due: the
 * interrupt only has to come, sim_irq_exit does the work. exact: the
 * TSC the interrupt must land on (0: none, or entry.asm times it). */
static void sim_arm(uint64_t deadline, uint64_t exact)
{
	if (deadline == UINT64_MAX) {
		timer_del(&this_sim()->timer);
		this_sim()->target = 0;
		return;
	}
	if (deadline > this_sim()->sync_tsc + SIM_HORIZON) {
		deadline = this_sim()->sync_tsc + SIM_HORIZON;	/* a re-check */
		exact = 0;
	}
	timer_add(&this_sim()->timer, deadline);
	this_sim()->target = exact;
	lapic_exact();
}

void sim_rearm(void)
{
	uint64_t due = UINT64_MAX;

	if (this_sim()->pmi_pending) {
		sim_arm(this_sim()->sync_tsc, 0);
		return;
	}
	for (int c = 0; c < SIM_COUNTERS && !this_sim()->halted; c++)
		if (sim_counter_pmi(c) && (sim_counter_rings(c) & BIT_ULL(RING_KERNEL)))
			due = MIN(due, this_sim()->sync_tsc + sim_ticks_to_overflow(c));
	sim_arm(due, due);
}

/* Deliver a pending PMI. Intel's LAPIC masks LVT PerfMon as it delivers one
 * (the handler unmasks it); a masked entry drops it. */
static void sim_pmi(struct pt_regs *regs)
{
	if (!this_sim()->pmi_pending)
		return;
	this_sim()->pmi_pending = false;
	uint32_t lvt = apic_read(APIC_LVT_PERF);
	if (lvt & APIC_LVT_MASKED)
		return;
	apic_write(APIC_LVT_PERF, lvt | APIC_LVT_MASKED);
	this_sim()->pmi(regs);
}

/* The interrupt was the point: sim_irq_exit follows. */
static void sim_timer_fn(struct timer *t, struct pt_regs *regs)
{
}

/* Rings split at the TSC of the kernel entry: the time since the return to
 * user mode was the user's. */
static void split_at_entry(uint64_t tsc)
{
	if (this_sim()->in_user) {
		this_sim()->ticks[RING_KERNEL] += this_cpu()->user_return_tsc - this_sim()->since;
		this_sim()->ticks[RING_USER] += tsc - this_cpu()->user_return_tsc;
		this_sim()->in_user = false;
	}
	this_sim()->since = tsc;
}

/* The model's clock stands still from here to the return to user mode, as
 * while halted. */
static void stop_clock(uint64_t now)
{
	this_sim()->ticks[RING_KERNEL] = sim_kernel_ticks(now);
	this_sim()->halted = true;
}

/*
 * The model's own interrupts, charged to the sampling budget. Under -icount
 * the TSC is QEMU's one virtual clock, which every running vCPU advances:
 * beside another busy CPU a user-only counter also counts that CPU's
 * instructions (README, "SMP"), and one with a short period reaches its
 * overflow in the other CPU's slices before the task's first instruction
 * after a return (the return's own tail is 19 instructions). The interrupt
 * then lands where the last one did, its handler re-arms the period, and the
 * task never runs: a fuzzer's two racers, period 7, made no progress for
 * minutes, each round some 18,000 TSC ticks of which the PMI handler timed
 * 3,200, some 130 rounds a 4 ms window, under both the rate limit (400) and
 * the budget. Silicon counts only the task's own instructions, so a PMI
 * follows at least one of them and Linux's rate limit bounds the rest. So
 * here a timer interrupt from user mode, beside another busy CPU, that finds
 * the registers of the last return unchanged (no user instruction retired,
 * as far as the frame can tell) is the model's work from that return to its
 * own, and is charged to the budget whole (the PMI handler's part twice,
 * erring on the side of the task): once the budget is spent the event is
 * throttled until the next window, and the task runs. With the other CPUs
 * idle every overflow follows the task's instructions and nothing more is
 * charged: the counts are exact, as before.
 */

/* Another CPU is not halted in its idle loop: it advances the TSC too. */
static bool sim_clock_shared(void)
{
	for (int c = 0; c < nr_cpus; c++)
		if (c != smp_processor_id() && !READ_ONCE(per_cpu_ptr(&sim_state, c)->idle))
			return true;
	return false;
}

static void frame_words(const struct pt_regs *regs, uint64_t *w)
{
	memcpy(w, regs, offsetof(struct pt_regs, vector));	/* r15 .. rdi */
	w[SIM_FRAME_WORDS - 3] = regs->rip;
	w[SIM_FRAME_WORDS - 2] = regs->rflags;
	w[SIM_FRAME_WORDS - 1] = regs->rsp;
}
static_assert(offsetof(struct pt_regs, vector) == (SIM_FRAME_WORDS - 3) * sizeof(uint64_t),
	      "the frame's GPRs");

/* A return to user mode, the model's timer armed: its registers, for the
 * next entry to compare (only beside another busy CPU, where it matters). */
static void charge_watch(const struct pt_regs *regs)
{
	struct sim *sim = this_sim();

	sim->watch_return = sim->pmi_counters && sim_clock_shared();
	if (sim->watch_return)
		frame_words(regs, sim->return_frame);
}

/* At a user entry: a timer interrupt that finds the task where it left it
 * is charged from that return on. */
static void charge_begin(const struct pt_regs *regs)
{
	struct sim *sim = this_sim();
	uint64_t w[SIM_FRAME_WORDS];

	if (!sim->watch_return)
		return;
	sim->watch_return = false;
	if (regs->vector != IRQ_VECTOR_TIMER)
		return;
	frame_words(regs, w);
	if (memcmp(w, sim->return_frame, sizeof(w)))
		return;
	sim->charge_from = this_cpu()->user_return_tsc;
}

/* At the return to user mode (or a halt) that ends the charged stretch. */
static void charge_end(void)
{
	struct sim *sim = this_sim();

	if (!sim->charge_from)
		return;
	perf_sample_event_took(rdtsc() - sim->charge_from);
	sim->charge_from = 0;
}

static void sim_user_entry(struct pt_regs *regs, uint64_t tsc)
{
	struct sim *sim = this_sim();

	charge_begin(regs);
	split_at_entry(tsc);
	/* Nothing to time: the counters catch up at their next access. */
	if (!sim->pmi_counters && !sim->timer.pending)
		return;
	sim_sync(rdtsc());
	/* The model's own interrupt, come to deliver a user-mode overflow: its
	 * bookkeeping (timer.c, the catch-ups, the re-arming) is no ring's
	 * work, as halted time is not. Silicon counts only the NMI's entry in
	 * ring 0 before the handler stops the PMU; here the ring-0 part is the
	 * stretch from the return's catch-up to user mode. */
	if (sim->pmi_pending && regs->vector == IRQ_VECTOR_TIMER && !sim->halted) {
		stop_clock(rdtsc());
		sim->delivering = true;
	}
	sim_rearm();	/* kernel-only counters count again, user-only ones stop */
}

static void sim_user_exit(struct pt_regs *regs)
{
	uint64_t abs = UINT64_MAX, rel = UINT64_MAX;

	if (this_sim()->delivering) {
		this_sim()->delivering = false;
		sim_sync(rdtsc());
		this_sim()->since = rdtsc();
		this_sim()->halted = false;
	}

	if (!this_sim()->pmi_counters && !this_sim()->pmi_pending && !this_sim()->timer.pending) {
		this_sim()->in_user = true;
		this_sim()->watch_return = false;
		charge_end();
		if (!sim_counting())
			entry_work_set(&sim_work, false);	/* nothing to split any more */
		return;
	}
	sim_sync(rdtsc());
	if (this_sim()->pmi_pending) {
		/* Due while interrupts were off: a PMI in the kernel, now. */
		struct pt_regs regs = {
			.rip = (uint64_t)__builtin_return_address(0),
			.cs = GDT_KERNEL_CS, .ss = GDT_KERNEL_DS, .rflags = read_rflags(),
			.rsp = (uint64_t)__builtin_frame_address(0),
			.rbp = (uint64_t)__builtin_frame_address(0),
		};
		sim_pmi(&regs);
		sim_sync(rdtsc());
	}
	/* User-only counters overflow a number of user instructions after the
	 * return (rel); counters of both rings at a TSC (abs). */
	for (int c = 0; c < SIM_COUNTERS; c++) {
		if (!sim_counter_pmi(c))
			continue;
		unsigned rings = sim_counter_rings(c);
		uint64_t left = sim_ticks_to_overflow(c);
		if (rings == BIT_ULL(RING_USER))
			rel = MIN(rel, left);
		else if (rings & BIT_ULL(RING_USER) || left <= SIM_EXIT_TAIL)
			abs = MIN(abs, this_sim()->sync_tsc + left);
	}
	/* The PMI is due no earlier than first (the rest of this return runs
	 * before user mode) and no later than timer.c's deadline; entry.asm
	 * stores the exact count once it knows the TSC of the return. */
	uint64_t first = MIN(abs, rel == UINT64_MAX ? UINT64_MAX : this_sim()->sync_tsc + rel);
	sim_arm(MIN(abs, rel == UINT64_MAX ? UINT64_MAX : this_sim()->sync_tsc + SIM_EXIT_TAIL + rel), 0);
	this_cpu()->user_return_timer_abs = abs == UINT64_MAX ? SIM_NONE : (int64_t)(abs - SIM_LAPIC_LAG);
	this_cpu()->user_return_timer_rel = rel == UINT64_MAX ? SIM_NONE : (int64_t)(rel - SIM_LAPIC_LAG);
	if (first <= this_sim()->sync_tsc + SIM_HORIZON && lapic_may_store(first))
		this_cpu()->user_return_timer_reg = this_sim()->lapic_timer_init;
	this_sim()->in_user = true;	/* after the PMI: its handler may wake the clock */
	charge_watch(regs);
	charge_end();
}

/* The model's PMIs are delivered here, after any interrupt handler: its
 * own timer's, or another that came first. */
static void sim_irq_exit(struct pt_regs *regs)
{
	if (!x86_pmu_simulated || (!this_sim()->pmi_counters && !this_sim()->pmi_pending))
		return;
	sim_sync(rdtsc());
	sim_pmi(regs);
	sim_rearm();	/* timer.c may have re-armed the LAPIC over it */
}

/* HLT with -icount sleep=off jumps the TSC to the next timer deadline:
 * neither ring ran. The wake-up interrupt's instructions fall in the gap. */
void pmu_sim_halt(bool halting)
{
	if (!x86_pmu_simulated)
		return;
	uint64_t flags = irq_save(), now = rdtsc();

	sim_sync(now);
	this_sim()->delivering = false;	/* a halt ends the delivery's stretch */
	this_sim()->idle = halting;
	if (halting) {
		charge_end();
		stop_clock(now);
	} else {
		this_sim()->since = now;
		this_sim()->halted = false;
	}
	sim_rearm();
	irq_restore(flags);
}

/* RDPMC (0F 33) from user mode with CR4.PCE set: QEMU raises #UD (and #GP
 * without PCE, as silicon). Answer it as silicon would: the counter's value
 * before the instruction, ECX = n or RDPMC_FIXED | n, #GP for no such counter. */
bool pmu_sim_rdpmc(struct pt_regs *regs)
{
	static const uint8_t rdpmc[] = { 0x0f, 0x33 };
	uint8_t insn[sizeof(rdpmc)];
	uint32_t ecx = regs->rcx, n = ecx & ~RDPMC_FIXED;

	if (!x86_pmu_simulated || regs->vector != X86_TRAP_UD || !(read_cr4() & CR4_PCE) ||
	    copy_from_user(insn, (const void *)regs->rip, sizeof(insn)) ||
	    memcmp(insn, rdpmc, sizeof(insn)))
		return false;
	if (n >= (ecx & RDPMC_FIXED ? SIM_FIXED : SIM_GP)) {
		regs->vector = X86_TRAP_GP;
		regs->error_code = 0;
		return false;
	}
	int c = ecx & RDPMC_FIXED ? SIM_GP + n : n;
	uint64_t flags = irq_save();

	sim_sync(rdtsc());
	/* QEMU counted the faulting RDPMC as executed (its helper raises #UD
	 * without rewinding the instruction count): right for what follows,
	 * but the value is the count before it. */
	uint64_t v = this_sim()->count[c];
	if (sim_counter_rings(c) & BIT_ULL(RING_USER))
		v = (v - 1) & SIM_MASK;
	regs->rax = (uint32_t)v;
	regs->rdx = v >> 32;
	regs->rip += sizeof(rdpmc);
	sim_pmi(regs);
	sim_rearm();
	irq_restore(flags);
	return true;
}

/* Off, the model's clock stood still: nothing counted, so the time since
 * its last stamp may go to either ring; the counters catch up (sim_sync)
 * before any new setting counts. Kernel mode, interrupts off. */
void sim_wake(uint64_t now)
{
	if (!sim_work.bit || (this_cpu()->user_work & sim_work.bit))
		return;
	this_sim()->ticks[RING_KERNEL] = sim_kernel_ticks(now);	/* what a catch-up saw so far */
	this_sim()->in_user = false;
	this_sim()->since = now;
}

static bool sim_counting(void)
{
	bool on = this_sim()->pmi_pending;

	for (int c = 0; c < SIM_COUNTERS; c++)
		on |= this_sim()->rings[c] != 0;
	return on;
}

/* On at once; off only at a return to user mode (sim_user_exit), so that
 * the PMI handler's disable_all and enable_all do not switch it off and on. */
void sim_update_work(void)
{
	if (!(this_cpu()->user_work & sim_work.bit) && sim_counting())
		entry_work_set(&sim_work, true);
}

static struct entry_work sim_work = {
	.name = "pmu model",
	.user_entry = sim_user_entry,
	.user_exit = sim_user_exit,	/* last: itrace registered before */
	.irq_exit = sim_irq_exit,
	.nmi = true,
};

/* One mapping serves every CPU: each sees its own LAPIC at the same address. */
static volatile uint32_t *xapic_timer_init;

void sim_init(nmi_handler_t pmi)
{
	/* A second mapping of the xAPIC page, for entry.asm's and lapic_exact's
	 * single-store arming; IA32_APIC_BASE's low 12 bits are flags. */
	if (!apic_is_x2apic()) {
		uint64_t base = rdmsr(MSR_IA32_APIC_BASE) & ~(PAGE_SIZE - 1);
		xapic_timer_init = (uint32_t *)ioremap(base, PAGE_SIZE) +
				   APIC_TIMER_INIT / sizeof(uint32_t);
	}
	x86_pmu_simulated = true;
	entry_work_register(&sim_work);
	sim_init_cpu(pmi);
}

void sim_init_cpu(nmi_handler_t pmi)
{
	this_sim()->pmi = pmi;
	this_sim()->global_ctrl = BIT_ULL(SIM_GP) - 1;	/* power-up value (SDM 20.2.2) */
	this_sim()->timer.fn = sim_timer_fn;
	this_sim()->since = rdtsc();
	this_sim()->lapic_timer_init = xapic_timer_init;
}
