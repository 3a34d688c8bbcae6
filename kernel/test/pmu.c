/* Self-tests of the hardware PMU: the probe's verdict, the model's registers,
 * its exact kernel counts and PMI positions, LVT PerfMon, and the "cpu"
 * struct pmu's errnos and counter scheduling. User-mode exactness and RDPMC
 * are the userland suite's (user/tests/perf_count.c, perf_mmap.c). */
#include "../ktest.h"
#include "../apic.h"
#include "../cmdline.h"
#include "../cpu.h"
#include "../percpu.h"
#include "../smp.h"
#include "../traps.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../pmu/intel.h"
#include "../pmu/pmu.h"
#include "../pmu/sim.h"
#include <asm/perf_regs.h>
#include <asm-generic/errno.h>

/* The model's counters these tests borrow (no event holds them at boot). */
#define TEST_GP		3
#define TEST_FIXED	0
#define EVENTSEL(n)	(MSR_ARCH_PERFMON_EVENTSEL0 + (n))
#define PMC(n)		(MSR_IA32_PMC0 + (n))
#define INSTRUCTIONS_OS	(ARCH_PERFMON_INSTRUCTIONS | ARCH_PERFMON_EVENTSEL_OS | \
			 ARCH_PERFMON_EVENTSEL_ENABLE)

static struct pmu *cpu_pmu(void)
{
	for (struct pmu *p = perf_pmus; p; p = p->next)
		if (!strcmp(p->name, "cpu"))
			return p;
	return NULL;
}

static bool pmu_cmdline(const char *mode)
{
	char v[8];

	return cmdline_get("pmu", v, sizeof(v)) && !strcmp(v, mode);
}

KTEST(pmu_probe_verdict_matches_the_machine)
{
	if (pmu_cmdline("off")) {
		KEXPECT(!cpu_pmu());
		KSKIP("pmu=off");
	}
	KASSERT(cpu_pmu());
	/* QEMU TCG implements no counter: its MSRs read 0 and drop writes. */
	if (!strncmp(cpu_caps.brand, "QEMU TCG", strlen("QEMU TCG")))
		KEXPECT(!x86_pmu_probe_hw());
	if (!pmu_cmdline("sim"))
		KEXPECT_EQ(x86_pmu_simulated, !x86_pmu_probe_hw());
	if (!x86_pmu_simulated && cpu_caps.vendor == VENDOR_INTEL)
		KEXPECT(cpu_caps.perfmon.version >= 1);
}

/* Borrow the model's test counters with every counter globally off; give
 * them back as the driver left them. */
static uint64_t saved_ctrl;

static void model_borrow(void)
{
	saved_ctrl = sim_rdmsr(MSR_CORE_PERF_GLOBAL_CTRL);
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, 0);
}

static void model_return(void)
{
	sim_wrmsr(EVENTSEL(TEST_GP), 0);
	sim_wrmsr(PMC(TEST_GP), 0);
	sim_wrmsr(MSR_CORE_PERF_FIXED_CTR_CTRL, 0);
	sim_wrmsr(MSR_CORE_PERF_FIXED_CTR0 + TEST_FIXED, 0);
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_OVF_CTRL, sim_rdmsr(MSR_CORE_PERF_GLOBAL_STATUS));
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, saved_ctrl);
}

/* n turns of a two-instruction loop between two reads of msr: the reads'
 * own instructions are the same every call, so differences are exact. */
__attribute__((noinline)) static uint64_t count_kernel_loop(uint32_t msr, uint64_t n)
{
	uint64_t before = sim_rdmsr(msr);

	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
	return sim_rdmsr(msr) - before;
}

KTEST(pmu_model_registers)
{
	union cpuid10_eax eax;
	union cpuid10_edx edx;
	uint32_t ebx, ecx;

	if (!x86_pmu_simulated)
		KSKIP("the model is not in use (a real PMU, or pmu=off)");
	sim_cpuid(CPUID_ARCH_PERFMON, &eax.full, &ebx, &ecx, &edx.full);
	KEXPECT_EQ(eax.split.version_id, 4);
	KEXPECT_EQ(eax.split.num_counters, SIM_GP);
	KEXPECT_EQ(eax.split.bit_width, SIM_WIDTH);
	KEXPECT_EQ(edx.split.num_counters_fixed, SIM_FIXED);
	KEXPECT_EQ(ebx, BIT_ULL(ARCH_EVENT_LLC_REFERENCES) | BIT_ULL(ARCH_EVENT_LLC_MISSES) |
			BIT_ULL(ARCH_EVENT_BRANCHES) | BIT_ULL(ARCH_EVENT_BRANCH_MISSES));
	KEXPECT(sim_rdmsr(MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE);

	uint64_t flags = irq_save();
	model_borrow();
	/* Full-width writes keep 48 bits; legacy ones sign-extend bit 31. */
	sim_wrmsr(PMC(TEST_GP), 0x123456789abc);
	KEXPECT_EQ(sim_rdmsr(MSR_ARCH_PERFMON_PERFCTR0 + TEST_GP), 0x123456789abc);
	sim_wrmsr(PMC(TEST_GP), ~0ull);
	KEXPECT_EQ(sim_rdmsr(PMC(TEST_GP)), SIM_MASK);
	sim_wrmsr(MSR_ARCH_PERFMON_PERFCTR0 + TEST_GP, 0x80000000);
	KEXPECT_EQ(sim_rdmsr(PMC(TEST_GP)), 0xffff80000000);
	sim_wrmsr(MSR_ARCH_PERFMON_PERFCTR0 + TEST_GP, 0x17fffffff);
	KEXPECT_EQ(sim_rdmsr(PMC(TEST_GP)), 0x7fffffff);
	sim_wrmsr(EVENTSEL(TEST_GP), ARCH_PERFMON_EVENTSEL_USR | 0x00c4);
	KEXPECT_EQ(sim_rdmsr(EVENTSEL(TEST_GP)), ARCH_PERFMON_EVENTSEL_USR | 0x00c4);

	/* IA32_PERF_GLOBAL_CTRL gates an enabled counter. */
	sim_wrmsr(PMC(TEST_GP), 0);
	sim_wrmsr(EVENTSEL(TEST_GP), INSTRUCTIONS_OS);
	KEXPECT_EQ(count_kernel_loop(PMC(TEST_GP), 1000), 0);
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, BIT_ULL(TEST_GP));
	KEXPECT(count_kernel_loop(PMC(TEST_GP), 1000) >= 2000);
	/* Events the model lacks, and user-only counting, see nothing here. */
	sim_wrmsr(EVENTSEL(TEST_GP), INSTRUCTIONS_OS ^ ARCH_PERFMON_INSTRUCTIONS ^ 0x00c4);
	KEXPECT_EQ(count_kernel_loop(PMC(TEST_GP), 1000), 0);
	sim_wrmsr(EVENTSEL(TEST_GP), INSTRUCTIONS_OS ^ ARCH_PERFMON_EVENTSEL_OS ^
				     ARCH_PERFMON_EVENTSEL_USR);
	KEXPECT_EQ(count_kernel_loop(PMC(TEST_GP), 1000), 0);

	/* A wrap sets the counter's status bit (no PMI: INT is clear);
	 * IA32_PERF_GLOBAL_OVF_CTRL clears it. */
	sim_wrmsr(EVENTSEL(TEST_GP), INSTRUCTIONS_OS);
	sim_wrmsr(PMC(TEST_GP), SIM_MASK - 99);
	count_kernel_loop(PMC(TEST_GP), 1000);
	KEXPECT(sim_rdmsr(MSR_CORE_PERF_GLOBAL_STATUS) & BIT_ULL(TEST_GP));
	KEXPECT(sim_rdmsr(PMC(TEST_GP)) < SIM_MASK / 2);
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_OVF_CTRL, BIT_ULL(TEST_GP));
	KEXPECT_EQ(sim_rdmsr(MSR_CORE_PERF_GLOBAL_STATUS), 0);
	model_return();
	irq_restore(flags);
}

KTEST(pmu_model_counts_kernel_instructions_exactly)
{
	uint32_t fixed = MSR_CORE_PERF_FIXED_CTR0 + TEST_FIXED;

	if (!x86_pmu_simulated)
		KSKIP("the model is not in use (a real PMU, or pmu=off)");
	uint64_t flags = irq_save();
	model_borrow();
	sim_wrmsr(EVENTSEL(TEST_GP), INSTRUCTIONS_OS);
	sim_wrmsr(MSR_CORE_PERF_FIXED_CTR_CTRL, FIXED_CTR_CTRL_OS << TEST_FIXED * FIXED_CTR_CTRL_BITS);
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, BIT_ULL(TEST_GP) |
					     BIT_ULL(GLOBAL_FIXED_SHIFT + TEST_FIXED));
	uint64_t c1 = count_kernel_loop(PMC(TEST_GP), 1000);
	uint64_t c2 = count_kernel_loop(PMC(TEST_GP), 2000);
	uint64_t c3 = count_kernel_loop(PMC(TEST_GP), 3000);
	KEXPECT_EQ(c2 - c1, 2 * 1000);
	KEXPECT_EQ(c3 - c2, 2 * 1000);
	KEXPECT_EQ(count_kernel_loop(PMC(TEST_GP), 1000), c1);
	uint64_t f1 = count_kernel_loop(fixed, 1000);
	KEXPECT_EQ(count_kernel_loop(fixed, 5000) - f1, 2 * 4000);
	model_return();
	irq_restore(flags);
}

/* Each CPU counts in its own model, powered up by x86_pmu_init_cpu: the
 * exact kernel count of the test above, run there by IPI (the sender
 * waits with its vCPU switched out, so no other instruction interleaves). */
struct cpu_model_check {
	uint64_t ctrl, lvt, loop_diff;
	bool pmi;
};

static void check_model_here(void *arg)
{
	struct cpu_model_check *r = arg;
	/* An IPI that ends an idle CPU's halt runs with its model stopped
	 * (halted time counts in neither ring): run it as after the halt. */
	bool halted = this_sim()->halted;

	if (halted)
		pmu_sim_halt(false);
	r->lvt = apic_read(APIC_LVT_PERF);
	r->pmi = this_sim()->pmi == x86_pmu_handle_irq;
	model_borrow();
	r->ctrl = saved_ctrl;
	sim_wrmsr(EVENTSEL(TEST_GP), INSTRUCTIONS_OS);
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, BIT_ULL(TEST_GP));
	uint64_t c1 = count_kernel_loop(PMC(TEST_GP), 1000);
	r->loop_diff = count_kernel_loop(PMC(TEST_GP), 4000) - c1;
	model_return();
	if (halted)
		pmu_sim_halt(true);
}

KTEST(pmu_model_counts_on_every_cpu)
{
	if (!x86_pmu_simulated)
		KSKIP("the model is not in use (a real PMU, or pmu=off)");
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		struct cpu_model_check r = { 0 };
		KEXPECT_EQ(smp_call_function_single(cpu, check_model_here, &r), 0);
		KEXPECT_EQ(r.lvt, APIC_DM_NMI);
		KEXPECT(r.pmi);
		/* The driver's enable_all sets every counter's global bit. */
		KEXPECT_EQ(r.ctrl & (BIT_ULL(SIM_GP) - 1), BIT_ULL(SIM_GP) - 1);
		KEXPECT_EQ(r.loop_diff, 2 * 3000);
	}
}

/* The PMI of a counter armed at -period: where did it land? */
static volatile bool pmi_seen;
static struct pt_regs pmi_regs;

static bool capture_pmi(struct pt_regs *regs)
{
	pmi_regs = *regs;
	pmi_seen = true;
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, 0);
	apic_write(APIC_LVT_PERF, APIC_DM_NMI);
	return true;
}

/* Count kernel instructions from enabling the counter; return the TSC of
 * the instruction the PMI interrupted (t0: when counting began). */
static uint64_t pmi_position(uint64_t period, uint64_t *t0)
{
	uint64_t tsc, l_inc, l_cmp, l_je;

	sim_wrmsr(EVENTSEL(TEST_GP), INSTRUCTIONS_OS | ARCH_PERFMON_EVENTSEL_INT);
	sim_wrmsr(PMC(TEST_GP), -period & SIM_MASK);
	pmi_seen = false;
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, BIT_ULL(TEST_GP));
	*t0 = this_sim()->sync_tsc;
	/* From RDTSC: shl, or, xor, then turns of inc, cmp, je. */
	__asm__ volatile("lea 1f(%%rip), %[inc]\n\t"
			 "lea 2f(%%rip), %[cmp]\n\t"
			 "lea 3f(%%rip), %[je]\n\t"
			 "sti\n\t"
			 "rdtsc\n\t"
			 "shl $32, %%rdx\n\t"
			 "or %%rdx, %%rax\n\t"
			 "xor %%ecx, %%ecx\n"
			 "1:\tinc %%rcx\n"
			 "2:\tcmpb $0, %[seen]\n"
			 "3:\tje 1b\n\t"
			 "cli"
			 : "=a"(tsc), [inc] "=&r"(l_inc), [cmp] "=&r"(l_cmp), [je] "=&r"(l_je)
			 : [seen] "m"(pmi_seen)
			 : "rcx", "rdx", "cc", "memory");
	uint64_t turns = pmi_regs.rcx;	/* incs done */
	if (pmi_regs.rip == l_inc)
		return tsc + 4 + 3 * turns;
	if (pmi_regs.rip == l_cmp)
		return tsc + 4 + 3 * turns - 2;
	if (pmi_regs.rip == l_je)
		return tsc + 4 + 3 * turns - 1;
	return 0;
}

KTEST(pmu_model_pmi_lands_on_the_overflowing_instruction)
{
	if (!x86_pmu_simulated)
		KSKIP("the model is not in use (a real PMU, or pmu=off)");
	uint64_t flags = irq_save(), t0;
	nmi_handler_t handler = this_sim()->pmi;

	model_borrow();
	this_sim()->pmi = capture_pmi;
	/* Three periods: the PMI lands on each instruction of the loop. */
	for (uint64_t period = 3000; period < 3003; period++) {
		uint64_t at = pmi_position(period, &t0);
		KEXPECT(pmi_seen);
		KEXPECT_EQ(at - t0, period);
	}
	this_sim()->pmi = handler;
	model_return();
	irq_restore(flags);
}

KTEST(pmu_lvt_perfmon_is_an_unmasked_nmi_after_a_pmi)
{
	if (!cpu_pmu())
		KSKIP("no hardware PMU (pmu=off)");
	KEXPECT_EQ(apic_read(APIC_LVT_PERF), APIC_DM_NMI);
	if (!x86_pmu_simulated)
		return;		/* a real PMI needs a real event: the userland suite's */
	/* The model masks LVT PerfMon as it delivers, like Intel's APIC; the
	 * driver's handler (no event owns this counter) must unmask it, and
	 * acknowledge the stray overflow. */
	uint64_t flags = irq_save();
	model_borrow();
	sim_wrmsr(EVENTSEL(TEST_GP), INSTRUCTIONS_OS | ARCH_PERFMON_EVENTSEL_INT);
	sim_wrmsr(PMC(TEST_GP), -1000ull & SIM_MASK);
	sim_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, BIT_ULL(TEST_GP));
	bool wrapped = false;
	for (int i = 0; i < 100 && !wrapped; i++) {
		sti_hlt();	/* the model's timer ends the halt */
		cli();
		wrapped = sim_rdmsr(PMC(TEST_GP)) < SIM_MASK / 2;
	}
	KEXPECT(wrapped);
	KEXPECT(!this_sim()->pmi_pending);
	KEXPECT_EQ(sim_rdmsr(MSR_CORE_PERF_GLOBAL_STATUS), 0);
	KEXPECT_EQ(apic_read(APIC_LVT_PERF), APIC_DM_NMI);
	model_return();
	irq_restore(flags);
}

/* ---- the "cpu" struct pmu ---- */

static int init_event(struct perf_event *e, uint32_t type, uint64_t config)
{
	memset(e, 0, sizeof(*e));
	e->attr.size = sizeof(e->attr);
	e->attr.type = type;
	e->attr.config = config;
	e->group_leader = e;
	e->pmu = cpu_pmu();
	e->hw.idx = -1;
	return e->pmu->event_init(e);
}

KTEST(pmu_event_init_errnos)
{
	struct perf_event e;
	struct pmu *pmu = cpu_pmu();

	if (!pmu)
		KSKIP("no hardware PMU (pmu=off)");
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS), 0);
	KEXPECT_EQ(e.hw.config & ~(uint64_t)X86_RAW_EVENT_MASK,
		   ARCH_PERFMON_EVENTSEL_INT | ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS);
	KEXPECT_EQ(e.hw.sample_period, x86_pmu.max_period);
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX), -EINVAL);
	KEXPECT_EQ(init_event(&e, PERF_TYPE_SOFTWARE, 0), -ENOENT);
	/* The extended type: ours is PERF_TYPE_RAW's number. */
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HARDWARE,
			      (uint64_t)PERF_TYPE_RAW << PERF_PMU_TYPE_SHIFT | PERF_COUNT_HW_INSTRUCTIONS), 0);
	KEXPECT_EQ(e.attr.config, PERF_COUNT_HW_INSTRUCTIONS);
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HARDWARE,
			      (uint64_t)PERF_TYPE_SOFTWARE << PERF_PMU_TYPE_SHIFT), -ENOENT);
	/* Cache events: fields out of range, then none in the tables. */
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_MAX), -EINVAL);
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_OP_MAX << 8), -EINVAL);
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_RESULT_MAX << 16), -EINVAL);
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D), -ENOENT);
	/* Raw configs keep the vendor's event-select bits only. */
	KEXPECT_EQ(init_event(&e, PERF_TYPE_RAW, ~ARCH_PERFMON_EVENTSEL_ANY), 0);
	KEXPECT_EQ(e.hw.config & ~(uint64_t)(ARCH_PERFMON_EVENTSEL_INT | ARCH_PERFMON_EVENTSEL_USR |
					     ARCH_PERFMON_EVENTSEL_OS), x86_pmu.raw_event_mask);
	/* precise_ip up to what the PMU has: the model's zero skid is 3. */
	e.attr.precise_ip = 3;
	KEXPECT_EQ(pmu->event_init(&e), x86_pmu.max_precise == 3 ? 0 : -EOPNOTSUPP);
	e.attr.precise_ip = 1;
	KEXPECT_EQ(pmu->event_init(&e), x86_pmu.max_precise ? 0 : -EOPNOTSUPP);
	init_event(&e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	e.attr.exclude_kernel = 1;
	KEXPECT_EQ(pmu->event_init(&e), 0);
	KEXPECT(!(e.hw.config & ARCH_PERFMON_EVENTSEL_OS) && (e.hw.config & ARCH_PERFMON_EVENTSEL_USR));
	e.attr.sample_regs_user = 1ull << PERF_REG_X86_XMM0;
	KEXPECT_EQ(pmu->event_init(&e), -EINVAL);
	e.attr.sample_regs_user = 0;
	e.attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	KEXPECT_EQ(pmu->event_init(&e), -EOPNOTSUPP);
	if (!x86_pmu_simulated)
		return;
	/* The model has cycles, instructions and reference cycles only. */
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES), -ENOENT);
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES), -ENOENT);
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES), 0);
	KEXPECT_EQ(init_event(&e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES), 0);
}

#define MANY 8

KTEST(pmu_scheduling_prefers_fixed_counters_and_keeps_them)
{
	static struct perf_event ev[MANY];
	struct pmu *pmu = cpu_pmu();
	int n = 0;

	if (!pmu || !x86_pmu_simulated)
		KSKIP("the counter layout is the model's");
	uint64_t flags = irq_save();
	/* Cycles: fixed counter 1 first, then the four general-purpose ones. */
	for (; n < MANY; n++) {
		KASSERT(init_event(&ev[n], PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES) == 0);
		if (pmu->add(&ev[n], PERF_EF_START))
			break;
	}
	KEXPECT_EQ(n, 1 + SIM_GP);
	KEXPECT_EQ(ev[0].hw.idx, X86_PMC_IDX_FIXED + 1);
	KEXPECT_EQ(pmu->event_idx(&ev[0]), (RDPMC_FIXED | 1) + 1);
	KEXPECT_EQ(pmu->event_idx(&ev[1]), 0 + 1);
	KEXPECT_EQ(pmu->add(&ev[n], 0), -EAGAIN);
	/* Reference cycles have fixed counter 2 only. */
	init_event(&ev[n], PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES);
	KEXPECT_EQ(pmu->add(&ev[n], PERF_EF_START), 0);
	KEXPECT_EQ(ev[n].hw.idx, X86_PMC_IDX_FIXED + 2);
	KEXPECT_EQ(pmu->add(&ev[n + 1], 0), -EAGAIN);
	pmu->del(&ev[n], 0);
	KEXPECT_EQ(pmu->event_idx(&ev[n]), 0);
	/* stop/start keep the counter, and the count goes on. */
	pmu->stop(&ev[1], PERF_EF_UPDATE);
	uint64_t stopped = ev[1].count;
	KEXPECT_EQ(ev[1].hw.idx, 0);
	pmu->start(&ev[1], 0);
	KEXPECT_EQ(ev[1].hw.idx, 0);
	pmu->read(&ev[1]);
	KEXPECT(ev[1].count > stopped);
	/* del frees it for the next event; instructions take fixed counter 0. */
	pmu->del(&ev[1], 0);
	KEXPECT_EQ(ev[1].hw.idx, -1);
	KEXPECT_EQ(pmu->add(&ev[1], PERF_EF_START), 0);
	KEXPECT_EQ(ev[1].hw.idx, 0);
	init_event(&ev[n], PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	KEXPECT_EQ(pmu->add(&ev[n], PERF_EF_START), 0);
	KEXPECT_EQ(ev[n].hw.idx, X86_PMC_IDX_FIXED + 0);
	pmu->del(&ev[n], 0);
	for (int i = 0; i < n; i++)
		pmu->del(&ev[i], 0);
	irq_restore(flags);
}

KTEST(pmu_group_that_can_never_fit_is_einval)
{
	static struct perf_event ev[MANY];
	int n;

	if (!cpu_pmu() || !x86_pmu_simulated)
		KSKIP("the counter layout is the model's");
	/* Cycles fit on fixed counter 1 and the four general-purpose ones. */
	for (n = 0; n < MANY; n++) {
		struct perf_event *e = &ev[n];
		memset(e, 0, sizeof(*e));
		e->attr.type = PERF_TYPE_HARDWARE;
		e->attr.config = PERF_COUNT_HW_CPU_CYCLES;
		e->group_leader = &ev[0];
		e->pmu = cpu_pmu();
		int err = e->pmu->event_init(e);
		if (err) {
			KEXPECT_EQ(err, -EINVAL);
			break;
		}
		if (n)
			ev[n - 1].sibling_next = e;
	}
	KEXPECT_EQ(n, 1 + SIM_GP);
}
