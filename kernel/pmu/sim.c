/* The simulated PMU's registers: a register-level model of Intel architectural perfmon v4
 * (SDM Vol. 3B 20.2) under intel.c's MSR accessors, for machines without a
 * PMU (QEMU TCG). Under -icount shift=0,sleep=off each guest instruction is
 * one TSC tick, so instructions, core cycles and reference cycles are all
 * elapsed ticks, split by ring at each kernel entry and exit (sim_split.c):
 * counts and overflow positions are exact and the same on every boot.
 *
 * Where it differs from silicon (deterministically):
 *  - one instruction is one core cycle and one reference cycle;
 *  - QEMU's instruction count: a REP string instruction counts one per
 *    iteration plus one; an instruction that faults at translation (UD2,
 *    ring-3 CLI/HLT) counts one, one faulting at run time (#PF, #DE) none;
 *  - only events 0xc0 (instructions), 0x3c (core cycles), 0x013c and fixed
 *    counter 2 (reference cycles) count, and only without EDGE, INV or
 *    CMASK; CPUID 0xA marks the other architectural events unavailable;
 *  - halted time counts in neither ring, and neither does the interrupt that
 *    ends a halt or the one that delivers a user-mode PMI (sim_split.c);
 *  - the PMI comes from the LAPIC timer, a maskable interrupt (sim_split.c);
 *  - user RDPMC traps and is emulated (sim_split.c);
 *  - reserved bits written to its MSRs are dropped, not a #GP; AnyThread is
 *    ignored (one thread); an MSR it lacks is a kernel bug: panic. */
#include "sim.h"
#include "intel.h"
#include "../panic.h"
#include "../lib/string.h"

/* CPUID.0AH's answer (SDM Vol. 2A Table 3-8): v4, 4 + 3 counters of 48 bits. */
#define SIM_VERSION		4
#define SIM_EVENTS_UNAVAILABLE	(BIT_ULL(ARCH_EVENT_LLC_REFERENCES) | BIT_ULL(ARCH_EVENT_LLC_MISSES) | \
				 BIT_ULL(ARCH_EVENT_BRANCHES) | BIT_ULL(ARCH_EVENT_BRANCH_MISSES))
/* The writable bits: IA32_PERFEVTSELx's low half, four per fixed counter,
 * one per counter in IA32_PERF_GLOBAL_CTRL/STATUS. */
#define SIM_EVENTSEL_BITS	0xffffffffull
#define SIM_FIXED_CTRL_BITS	(BIT_ULL(SIM_FIXED * FIXED_CTR_CTRL_BITS) - 1)
#define SIM_GLOBAL_BITS		((BIT_ULL(SIM_GP) - 1) | (BIT_ULL(SIM_FIXED) - 1) << GLOBAL_FIXED_SHIFT)

DEFINE_PER_CPU(struct sim, sim_state);
bool x86_pmu_simulated;

uint64_t sim_status_bit(int c)
{
	return c < SIM_GP ? BIT_ULL(c) : BIT_ULL(GLOBAL_FIXED_SHIFT + c - SIM_GP);
}

static unsigned fixed_bits(int c)
{
	return (this_sim()->fixed_ctrl >> (c - SIM_GP) * FIXED_CTR_CTRL_BITS) & FIXED_CTR_CTRL_MASK;
}

/* The events the model implements: each counts one per instruction here. */
static bool event_modelled(uint64_t sel)
{
	uint64_t code = sel & X86_RAW_EVENT_MASK;

	return code == ARCH_PERFMON_INSTRUCTIONS || code == ARCH_PERFMON_CORE_CYCLES ||
	       code == ARCH_PERFMON_REF_CYCLES;
}

/* The rings counter c counts in and whether it interrupts, from the
 * registers: cached, as every entry and exit asks. */
static void update_counting(void)
{
	this_sim()->pmi_counters = 0;
	for (int c = 0; c < SIM_COUNTERS; c++) {
		bool os, usr, pmi;
		if (c < SIM_GP) {
			uint64_t sel = this_sim()->eventsel[c];
			bool on = (sel & ARCH_PERFMON_EVENTSEL_ENABLE) && event_modelled(sel);
			os = on && (sel & ARCH_PERFMON_EVENTSEL_OS);
			usr = on && (sel & ARCH_PERFMON_EVENTSEL_USR);
			pmi = sel & ARCH_PERFMON_EVENTSEL_INT;
		} else {
			os = fixed_bits(c) & FIXED_CTR_CTRL_OS;
			usr = fixed_bits(c) & FIXED_CTR_CTRL_USR;
			pmi = fixed_bits(c) & FIXED_CTR_CTRL_PMI;
		}
		if (!(this_sim()->global_ctrl & sim_status_bit(c)))
			os = usr = false;
		this_sim()->rings[c] = (os ? BIT_ULL(RING_KERNEL) : 0) | (usr ? BIT_ULL(RING_USER) : 0);
		if (this_sim()->rings[c] && pmi)
			this_sim()->pmi_counters |= BIT_ULL(c);
	}
}

unsigned sim_counter_rings(int c)
{
	return this_sim()->rings[c];
}

bool sim_counter_pmi(int c)
{
	return this_sim()->pmi_counters & BIT_ULL(c);
}

uint64_t sim_ticks_to_overflow(int c)
{
	return BIT_ULL(SIM_WIDTH) - this_sim()->count[c];
}

uint64_t sim_kernel_ticks(uint64_t now)
{
	return this_sim()->ticks[RING_KERNEL] + (this_sim()->halted ? 0 : now - this_sim()->since);
}

void sim_sync(uint64_t now)
{
	uint64_t ticks[RINGS] = { sim_kernel_ticks(now), this_sim()->ticks[RING_USER] };

	for (int c = 0; c < SIM_COUNTERS; c++) {
		unsigned rings = sim_counter_rings(c);
		uint64_t n = 0;
		for (int r = 0; r < RINGS; r++)
			if (rings & BIT_ULL(r))
				n += ticks[r] - this_sim()->synced[r];
		if (!n)
			continue;
		uint64_t v = this_sim()->count[c] + n;
		if (v > SIM_MASK) {
			this_sim()->global_status |= sim_status_bit(c);
			this_sim()->pmi_pending |= sim_counter_pmi(c);
		}
		this_sim()->count[c] = v & SIM_MASK;
	}
	memcpy(this_sim()->synced, ticks, sizeof(ticks));
	this_sim()->sync_tsc = now;
}

/* The counter an MSR names, or -1: legacy and full-width GP addresses, fixed ones. */
static int counter_of(uint32_t msr)
{
	if (msr - MSR_ARCH_PERFMON_PERFCTR0 < SIM_GP)
		return msr - MSR_ARCH_PERFMON_PERFCTR0;
	if (msr - MSR_IA32_PMC0 < SIM_GP)
		return msr - MSR_IA32_PMC0;
	if (msr - MSR_CORE_PERF_FIXED_CTR0 < SIM_FIXED)
		return SIM_GP + msr - MSR_CORE_PERF_FIXED_CTR0;
	return -1;
}

uint64_t sim_rdmsr(uint32_t msr)
{
	uint64_t flags = irq_save(), v;
	int c = counter_of(msr);

	sim_wake(rdtsc());
	sim_sync(rdtsc());
	if (c >= 0)
		v = this_sim()->count[c];
	else if (msr - MSR_ARCH_PERFMON_EVENTSEL0 < SIM_GP)
		v = this_sim()->eventsel[msr - MSR_ARCH_PERFMON_EVENTSEL0];
	else if (msr == MSR_CORE_PERF_FIXED_CTR_CTRL)
		v = this_sim()->fixed_ctrl;
	else if (msr == MSR_CORE_PERF_GLOBAL_STATUS)
		v = this_sim()->global_status;
	else if (msr == MSR_CORE_PERF_GLOBAL_CTRL)
		v = this_sim()->global_ctrl;
	else if (msr == MSR_CORE_PERF_GLOBAL_OVF_CTRL)
		v = 0;
	else if (msr == MSR_IA32_PERF_CAPABILITIES)
		v = PERF_CAP_FW_WRITE;
	else
		panic("pmu model: RDMSR %#x is not modelled", msr);
	irq_restore(flags);
	return v;
}

/* Each write takes effect at the catch-up before it (this_sim()->sync_tsc); the PMI
 * timer then follows the new settings. */
void sim_wrmsr(uint32_t msr, uint64_t v)
{
	uint64_t flags = irq_save();
	int c = counter_of(msr);

	sim_wake(rdtsc());
	sim_sync(rdtsc());
	if (c >= 0 && msr - MSR_ARCH_PERFMON_PERFCTR0 < SIM_GP)
		this_sim()->count[c] = (uint64_t)(int64_t)(int32_t)v & SIM_MASK;	/* bits 31:0, sign-extended */
	else if (c >= 0)
		this_sim()->count[c] = v & SIM_MASK;
	else if (msr - MSR_ARCH_PERFMON_EVENTSEL0 < SIM_GP)
		this_sim()->eventsel[msr - MSR_ARCH_PERFMON_EVENTSEL0] = v & SIM_EVENTSEL_BITS;
	else if (msr == MSR_CORE_PERF_FIXED_CTR_CTRL)
		this_sim()->fixed_ctrl = v & SIM_FIXED_CTRL_BITS;
	else if (msr == MSR_CORE_PERF_GLOBAL_CTRL)
		this_sim()->global_ctrl = v & SIM_GLOBAL_BITS;
	else if (msr == MSR_CORE_PERF_GLOBAL_OVF_CTRL)
		this_sim()->global_status &= ~v;
	else
		panic("pmu model: WRMSR %#x <- %#lx is not modelled", msr, v);
	/* A PMI not delivered yet is dropped with the last status bit. */
	if (!this_sim()->global_status)
		this_sim()->pmi_pending = false;
	update_counting();
	sim_update_work();
	sim_rearm();
	irq_restore(flags);
}

void sim_cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	union cpuid10_eax eax = { .split = { SIM_VERSION, SIM_GP, SIM_WIDTH, ARCH_EVENTS } };
	union cpuid10_edx edx = { .split = { .num_counters_fixed = SIM_FIXED,
					     .bit_width_fixed = SIM_WIDTH } };

	cpuid_count(leaf, 0, a, b, c, d);
	if (leaf == 0)
		*a = MAX(*a, (uint32_t)CPUID_ARCH_PERFMON);
	if (leaf == 1)
		*c |= X86_FEATURE_PDCM_ECX;	/* IA32_PERF_CAPABILITIES exists */
	if (leaf == CPUID_ARCH_PERFMON) {
		*a = eax.full;
		*b = SIM_EVENTS_UNAVAILABLE;
		*c = 0;
		*d = edx.full;
	}
}
