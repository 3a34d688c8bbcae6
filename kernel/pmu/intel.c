/* Intel architectural performance monitoring v1-v5 (SDM Vol. 3B ch. 20) as
 * x86.c's vendor table. Every register access goes through pmu_rdmsr,
 * pmu_wrmsr and pmu_cpuid, so the simulated PMU can stand in for it. */
#include "internal.h"
#include "../percpu.h"
#include "intel.h"
#include "../cpu.h"
#include "../lib/string.h"
#include "../lib/vsprintf.h"
#include <asm-generic/errno.h>

/* Linux's intel_perfmon_event_map. event_map is its copy without the events
 * CPUID marks unavailable (their generic events then give ENOENT). */
static const uint64_t intel_perfmon_event_map[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES]		= ARCH_PERFMON_CORE_CYCLES,
	[PERF_COUNT_HW_INSTRUCTIONS]		= ARCH_PERFMON_INSTRUCTIONS,
	[PERF_COUNT_HW_CACHE_REFERENCES]	= 0x4f2e,
	[PERF_COUNT_HW_CACHE_MISSES]		= 0x412e,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS]	= 0x00c4,
	[PERF_COUNT_HW_BRANCH_MISSES]		= 0x00c5,
	[PERF_COUNT_HW_BUS_CYCLES]		= ARCH_PERFMON_REF_CYCLES,
	[PERF_COUNT_HW_REF_CPU_CYCLES]		= INTEL_FIXED2_PSEUDO_REF_CYCLES,
};

/* The generic event behind each CPUID.0AH:EBX bit (Linux's intel_arch_events_map). */
static const uint8_t arch_event_generic[ARCH_EVENTS] = {
	[ARCH_EVENT_CORE_CYCLES]	= PERF_COUNT_HW_CPU_CYCLES,
	[ARCH_EVENT_INSTRUCTIONS]	= PERF_COUNT_HW_INSTRUCTIONS,
	[ARCH_EVENT_REF_CYCLES]		= PERF_COUNT_HW_BUS_CYCLES,
	[ARCH_EVENT_LLC_REFERENCES]	= PERF_COUNT_HW_CACHE_REFERENCES,
	[ARCH_EVENT_LLC_MISSES]		= PERF_COUNT_HW_CACHE_MISSES,
	[ARCH_EVENT_BRANCHES]		= PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	[ARCH_EVENT_BRANCH_MISSES]	= PERF_COUNT_HW_BRANCH_MISSES,
};

/* Fixed counter n counts the event intel_fixed_events[n] (Linux's
 * intel_gen_event_constraints): those events may also use any
 * general-purpose counter, except fixed counter 2's pseudo-encoding. */
static const uint64_t intel_fixed_events[] = {
	ARCH_PERFMON_INSTRUCTIONS, ARCH_PERFMON_CORE_CYCLES, INTEL_FIXED2_PSEUDO_REF_CYCLES,
};

static const struct pmu_attr intel_format[] = {
	{ "event", "config:0-7" },
	{ "umask", "config:8-15" },
	{ "edge", "config:18" },
	{ "pc", "config:19" },
	{ "any", "config:21" },
	{ "inv", "config:23" },
	{ "cmask", "config:24-31" },
	{ NULL, NULL },
};

static uint64_t event_map[PERF_COUNT_HW_MAX];
/* IA32_PERF_GLOBAL_CTRL's value with every counter on. */
static uint64_t intel_ctrl;

static uint64_t intel_constraint(uint64_t config)
{
	uint64_t gp = BIT_ULL(x86_pmu.num_counters) - 1;

	for (unsigned n = 0; n < ARRAY_SIZE(intel_fixed_events); n++) {
		if ((config & X86_RAW_EVENT_MASK) != intel_fixed_events[n])
			continue;
		uint64_t fixed = (x86_pmu.fixed_mask & BIT_ULL(n)) << X86_PMC_IDX_FIXED;
		return intel_fixed_events[n] == INTEL_FIXED2_PSEUDO_REF_CYCLES ? fixed : fixed | gp;
	}
	return gp;
}

/* Linux's intel_pmu_hw_config: AnyThread counting exists from v3. */
static int intel_hw_config(struct perf_event *e)
{
	if (e->attr.type != PERF_TYPE_RAW || !(e->attr.config & ARCH_PERFMON_EVENTSEL_ANY))
		return 0;
	if (x86_pmu.version < 3)
		return -EINVAL;
	e->hw.config |= ARCH_PERFMON_EVENTSEL_ANY;
	return 0;
}

static uint32_t intel_config_addr(int idx)
{
	if (idx >= X86_PMC_IDX_FIXED)
		return MSR_CORE_PERF_FIXED_CTR_CTRL;
	return MSR_ARCH_PERFMON_EVENTSEL0 + idx;
}

/* Without full-width writes a counter takes bits 31:0 sign-extended, which
 * is why max_period stays below 2^31 then (SDM 20.2.6). */
static uint32_t intel_event_addr(int idx)
{
	if (idx >= X86_PMC_IDX_FIXED)
		return MSR_CORE_PERF_FIXED_CTR0 + idx - X86_PMC_IDX_FIXED;
	return (x86_pmu.full_width_write ? MSR_IA32_PMC0 : MSR_ARCH_PERFMON_PERFCTR0) + idx;
}

/* IA32_FIXED_CTR_CTRL as last written. Process context and the PMI (an
 * NMI that throttles another fixed counter) both change it: each changes
 * the shadow with one cmpxchg, then writes the MSR from the shadow until
 * the shadow stays put, so the last write is the newest value. A plain
 * read-modify-write of the MSR would let the NMI's change be overwritten. */
static DEFINE_PER_CPU(uint64_t, fixed_ctrl);	/* each CPU's register */

/* A fixed counter's four bits in IA32_FIXED_CTR_CTRL (SDM 20.2.2). */
static void intel_enable(struct hw_perf_event *hw, bool on)
{
	if (hw->idx < X86_PMC_IDX_FIXED) {
		x86_pmu_enable_gp(hw, on);
		return;
	}
	int shift = (hw->idx - X86_PMC_IDX_FIXED) * FIXED_CTR_CTRL_BITS;
	uint64_t bits = 0;

	if (on) {
		if (hw->config & ARCH_PERFMON_EVENTSEL_OS)
			bits |= FIXED_CTR_CTRL_OS;
		if (hw->config & ARCH_PERFMON_EVENTSEL_USR)
			bits |= FIXED_CTR_CTRL_USR;
		if (hw->config & ARCH_PERFMON_EVENTSEL_ANY)
			bits |= FIXED_CTR_CTRL_ANY;
		if (hw->config & ARCH_PERFMON_EVENTSEL_INT)
			bits |= FIXED_CTR_CTRL_PMI;
	}
	uint64_t *shadow = this_cpu_ptr(&fixed_ctrl);
	uint64_t old = READ_ONCE(*shadow), ctrl;
	do {
		ctrl = (old & ~((uint64_t)FIXED_CTR_CTRL_MASK << shift)) | bits << shift;
	} while (!__atomic_compare_exchange_n(shadow, &old, ctrl, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	do {
		ctrl = READ_ONCE(*shadow);
		pmu_wrmsr(MSR_CORE_PERF_FIXED_CTR_CTRL, ctrl);
	} while (READ_ONCE(*shadow) != ctrl);
}

/* v2+: overflow bits in IA32_PERF_GLOBAL_STATUS, cleared through
 * IA32_PERF_GLOBAL_OVF_CTRL, all counters gated by IA32_PERF_GLOBAL_CTRL
 * (SDM 20.2.2). Bits 62-63 (buffer overflow, CondChgd) are not ours. */
static uint64_t intel_get_status(void)
{
	return pmu_rdmsr(MSR_CORE_PERF_GLOBAL_STATUS) & intel_ctrl;
}

static void intel_ack_status(uint64_t status)
{
	pmu_wrmsr(MSR_CORE_PERF_GLOBAL_OVF_CTRL, status);
}

static void intel_disable_all(void)
{
	pmu_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, 0);
}

static void intel_enable_all(void)
{
	pmu_wrmsr(MSR_CORE_PERF_GLOBAL_CTRL, intel_ctrl);
}

/* The fixed counters CPUID.0AH announces (SDM Vol. 2A CPUID leaf 0AH): v5
 * adds ECX's bitmap to EDX's contiguous count. Linux assumes three on v2-v4
 * hardware that reports fewer (a known erratum), not under a hypervisor. */
static uint64_t intel_fixed_counters(const struct cpuid10 *pm)
{
	unsigned n = pm->fixed_counters;

	if (pm->version < 2)
		return 0;
	if (pm->version < 5 && !cpu_caps.hypervisor)
		n = MAX(n, 3u);
	n = MIN(n, (unsigned)X86_PMC_MAX_FIXED);
	return (BIT_ULL(n) - 1) | (pm->fixed_bitmap & (BIT_ULL(X86_PMC_MAX_FIXED) - 1));
}

int intel_pmu_init(void)
{
	static char name[32];
	struct cpuid10 pm;
	uint32_t a, b, c, d;

	pmu_cpuid(0, &a, &b, &c, &d);
	if (a < CPUID_ARCH_PERFMON)
		return -ENODEV;
	pmu_cpuid(CPUID_ARCH_PERFMON, &a, &b, &c, &d);	/* the model's own under the model */
	cpuid10_decode(a, b, c, d, &pm);
	if (!pm.version || !pm.gp_counters)
		return -ENODEV;

	x86_pmu.version = pm.version;
	x86_pmu.num_counters = MIN(pm.gp_counters, (unsigned)X86_PMC_IDX_FIXED);
	x86_pmu.cntval_bits = pm.gp_width;
	x86_pmu.cntval_mask = BIT_ULL(x86_pmu.cntval_bits) - 1;
	x86_pmu.fixed_mask = intel_fixed_counters(&pm);
	/* Events beyond EBX's valid length count as absent. */
	memcpy(event_map, intel_perfmon_event_map, sizeof(event_map));
	for (unsigned bit = 0; bit < ARCH_EVENTS; bit++)
		if (bit >= pm.events_len || (pm.events_unavailable & BIT_ULL(bit)))
			event_map[arch_event_generic[bit]] = 0;

	pmu_cpuid(1, &a, &b, &c, &d);
	if (c & X86_FEATURE_PDCM_ECX)
		x86_pmu.full_width_write = pmu_rdmsr(MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE;
	x86_pmu.max_period = x86_pmu.full_width_write ? x86_pmu.cntval_mask >> 1 : (1ull << 31) - 1;

	snprintf(name, sizeof(name), "Intel arch perfmon v%u", x86_pmu.version);
	x86_pmu.name = name;
	x86_pmu.pmu_name = x86_pmu.version == 1 ? "generic_arch_v1" :
			   x86_pmu.version < 5 ? "generic_arch_v2+" : "generic_arch_v5+";
	x86_pmu.raw_event_mask = X86_RAW_EVENT_MASK;
	x86_pmu.event_map = event_map;
	x86_pmu.format = intel_format;
	x86_pmu.constraint = intel_constraint;
	x86_pmu.hw_config = intel_hw_config;
	x86_pmu.config_addr = intel_config_addr;
	x86_pmu.event_addr = intel_event_addr;
	x86_pmu.enable = intel_enable;
	if (x86_pmu.version >= 2) {
		intel_ctrl = (BIT_ULL(x86_pmu.num_counters) - 1) |
			     x86_pmu.fixed_mask << X86_PMC_IDX_FIXED;
		x86_pmu.get_status = intel_get_status;
		x86_pmu.ack_status = intel_ack_status;
		x86_pmu.disable_all = intel_disable_all;
		x86_pmu.enable_all = intel_enable_all;
	}
	if (x86_pmu.fixed_mask)
		pmu_wrmsr(MSR_CORE_PERF_FIXED_CTR_CTRL, *this_cpu_ptr(&fixed_ctrl));	/* the shadow's 0 */
	return 0;
}
