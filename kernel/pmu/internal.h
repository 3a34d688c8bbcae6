/* Private to the x86 PMU (x86.c, intel.c, amd.c, sim.c): the vendor table,
 * counter indexes, event-select bits and the MSR accessors. */
#pragma once
#include "../perf/perf_event.h"
#include "../x86.h"

/* hw.idx as Linux numbers counters: general-purpose ones from 0, fixed ones
 * from 32, so one 64-bit mask covers both (and matches Intel's GLOBAL_* MSRs). */
#define X86_PMC_IDX_FIXED	32
#define X86_PMC_IDX_MAX		64
#define X86_PMC_MAX_FIXED	16
/* RDPMC's ECX for fixed counter n is this | n (SDM Vol. 2B RDPMC). */
#define RDPMC_FIXED		(1u << 30)

/* Event-select bits shared by Intel (SDM 20.2.1.1) and AMD (APM Vol. 2 13.2.1). */
#define ARCH_PERFMON_EVENTSEL_EVENT	0x000000ffull
#define ARCH_PERFMON_EVENTSEL_UMASK	0x0000ff00ull
#define ARCH_PERFMON_EVENTSEL_USR	(1ull << 16)
#define ARCH_PERFMON_EVENTSEL_OS	(1ull << 17)
#define ARCH_PERFMON_EVENTSEL_EDGE	(1ull << 18)
#define ARCH_PERFMON_EVENTSEL_PIN_CONTROL (1ull << 19)
#define ARCH_PERFMON_EVENTSEL_INT	(1ull << 20)
#define ARCH_PERFMON_EVENTSEL_ANY	(1ull << 21)
#define ARCH_PERFMON_EVENTSEL_ENABLE	(1ull << 22)
#define ARCH_PERFMON_EVENTSEL_INV	(1ull << 23)
#define ARCH_PERFMON_EVENTSEL_CMASK	0xff000000ull
/* What PERF_TYPE_RAW's config may set on every x86 (Linux's mask). */
#define X86_RAW_EVENT_MASK (ARCH_PERFMON_EVENTSEL_EVENT | ARCH_PERFMON_EVENTSEL_UMASK | \
			    ARCH_PERFMON_EVENTSEL_EDGE | ARCH_PERFMON_EVENTSEL_INV | \
			    ARCH_PERFMON_EVENTSEL_CMASK)

/*
 * One vendor's PMU, filled by intel_pmu_init() or amd_pmu_init() (Linux's
 * struct x86_pmu, reduced to what these drivers use). x86.c does the rest:
 * scheduling, periods, the PMI. Optional hooks may be NULL.
 */
struct x86_pmu {
	const char *name;		/* for the boot line */
	const char *pmu_name;		/* sysfs caps/pmu_name (Intel), or NULL */
	unsigned version;		/* Intel arch perfmon or AMD PerfMon version */
	unsigned num_counters;		/* general-purpose counters */
	uint64_t fixed_mask;		/* bit n: fixed counter n exists */
	unsigned cntval_bits;
	uint64_t cntval_mask;
	uint64_t max_period;		/* 2^(bits-1) - 1 at most: an armed counter has its top bit set */
	uint64_t raw_event_mask;	/* PERF_TYPE_RAW config bits the event select takes */
	const uint64_t *event_map;	/* PERF_COUNT_HW_* -> event select; 0: not on this CPU */
	const struct pmu_attr *format;	/* sysfs format/ */
	bool full_width_write;		/* Intel: counters written through IA32_A_PMCx */
	/* The highest attr.precise_ip (Linux's caps/max_precise): 0 without
	 * PEBS or IBS; 3 for the model, whose samples have no skid at all. */
	unsigned max_precise;

	/* The counters event select config may use, as an hw.idx mask. */
	uint64_t (*constraint)(uint64_t config);
	/* Vendor checks after the generic ones of event_init. */
	int (*hw_config)(struct perf_event *e);
	/* The MSRs of counter idx: its control and its count. */
	uint32_t (*config_addr)(int idx);
	uint32_t (*event_addr)(int idx);
	/* Start (on) or stop counter hw->idx as hw->config says. */
	void (*enable)(struct hw_perf_event *hw, bool on);
	/* Overflowed counters (hw.idx mask) and their acknowledgement; NULL
	 * where overflow shows only in a counter's cleared top bit. */
	uint64_t (*get_status)(void);
	void (*ack_status)(uint64_t status);
	/* The global switch, off for the length of a PMI (v2+, AMD v2). */
	void (*disable_all)(void);
	void (*enable_all)(void);
};

extern struct x86_pmu x86_pmu;
/* The "cpu" struct pmu (x86.c) that probe.c registers. */
extern struct pmu x86_cpu_pmu;

/* -ENODEV when CPUID says there is no such PMU. */
int intel_pmu_init(void);
int amd_pmu_init(void);
/* Program a general-purpose counter's event select (both vendors). */
void x86_pmu_enable_gp(struct hw_perf_event *hw, bool on);
/* The PMI handler: fold overflowed counters, start their next periods,
 * report samples. Interrupts off, NMI-safe. True if a counter overflowed. */
bool x86_pmu_handle_irq(struct pt_regs *regs);
/* Whether a counter of the vendor table keeps a value written to it. */
bool x86_pmu_probe_hw(void);

/* ---- the simulated PMU (sim.c): Intel arch perfmon v4 behind these ---- */
extern bool x86_pmu_simulated;
uint64_t sim_rdmsr(uint32_t msr);
void sim_wrmsr(uint32_t msr, uint64_t v);
void sim_cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d);
/* Switch the model on, this CPU's too; pmi is called for each PMI it raises. */
void sim_init(bool (*pmi)(struct pt_regs *regs));
/* Power up this CPU's model registers (each CPU's own, after sim_init). */
void sim_init_cpu(bool (*pmi)(struct pt_regs *regs));

/* Every PMU register access of the drivers goes through these, so the
 * model can stand in for the hardware. */
static inline uint64_t pmu_rdmsr(uint32_t msr)
{
	return x86_pmu_simulated ? sim_rdmsr(msr) : rdmsr(msr);
}

static inline void pmu_wrmsr(uint32_t msr, uint64_t v)
{
	if (x86_pmu_simulated)
		sim_wrmsr(msr, v);
	else
		wrmsr(msr, v);
}

static inline void pmu_cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	if (x86_pmu_simulated)
		sim_cpuid(leaf, a, b, c, d);
	else
		cpuid_count(leaf, 0, a, b, c, d);
}
