/* The AMD core PMU (APM Vol. 2 13.2) as x86.c's vendor table: four legacy
 * counters, six with PerfCtrExtCore, PerfMonV2's global control and status.
 * After Linux 6.1's arch/x86/events/amd/core.c, without IBS, LBR and the
 * northbridge counters. */
#include "internal.h"
#include "../cpu.h"
#include <asm-generic/errno.h>

/* Legacy counters: four controls, then four counters (APM 13.2.1). */
#define MSR_K7_EVNTSEL0			0xc0010000
#define MSR_K7_PERFCTR0			0xc0010004
#define AMD64_NUM_COUNTERS		4
/* PerfCtrExtCore (CPUID Fn8000_0001 ECX[23]): six, control and counter
 * interleaved, the legacy MSRs aliasing the first four. */
#define MSR_F15H_PERF_CTL		0xc0010200
#define MSR_F15H_PERF_CTR		0xc0010201
#define AMD64_NUM_COUNTERS_CORE		6
/* PerfMonV2 (CPUID Fn8000_0022 EAX[0]): a global enable and overflow status. */
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS	0xc0000300
#define MSR_AMD64_PERF_CNTR_GLOBAL_CTL		0xc0000301
#define MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR	0xc0000302

#define AMD64_EVENTSEL_EVENT_HI		(0x0full << 32)	/* event select bits 11:8 */
#define AMD64_EVENTSEL_GUESTONLY	(1ull << 40)
#define AMD64_EVENTSEL_HOSTONLY		(1ull << 41)
#define AMD64_RAW_EVENT_MASK		(X86_RAW_EVENT_MASK | AMD64_EVENTSEL_EVENT_HI)
#define AMD_CNTVAL_BITS			48
#define AMD_FAMILY_MIN			6	/* K7 */
#define AMD_FAMILY_ZEN			0x17

/* Linux's amd_perfmon_event_map (K7 to family 16h). */
static const uint64_t amd_perfmon_event_map[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES]		= 0x0076,
	[PERF_COUNT_HW_INSTRUCTIONS]		= 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES]	= 0x077d,
	[PERF_COUNT_HW_CACHE_MISSES]		= 0x077e,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS]	= 0x00c2,
	[PERF_COUNT_HW_BRANCH_MISSES]		= 0x00c3,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND]	= 0x00d0,	/* "Decoder empty" */
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND]	= 0x00d1,	/* "Dispatch stalls" */
};

/* Linux 6.1's amd_f17h_perfmon_event_map (family 17h and later). */
static const uint64_t amd_f17h_perfmon_event_map[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES]		= 0x0076,
	[PERF_COUNT_HW_INSTRUCTIONS]		= 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES]	= 0xff60,
	[PERF_COUNT_HW_CACHE_MISSES]		= 0x0964,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS]	= 0x00c2,
	[PERF_COUNT_HW_BRANCH_MISSES]		= 0x00c3,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND]	= 0x0287,
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND]	= 0x0187,
};

static const struct pmu_attr amd_format[] = {
	{ "event", "config:0-7,32-35" },
	{ "umask", "config:8-15" },
	{ "edge", "config:18" },
	{ "inv", "config:23" },
	{ "cmask", "config:24-31" },
	{ NULL, NULL },
};

static uint64_t amd_counters_mask(void)
{
	return BIT_ULL(x86_pmu.num_counters) - 1;
}

/* Any counter takes any event here; Linux's family 15h/17h constraint
 * tables for a few events are not carried. */
static uint64_t amd_constraint(uint64_t config)
{
	return amd_counters_mask();
}

/* Linux's amd_core_hw_config. Host and guest are one here (no SVM), but the
 * bits keep perf's default exclude_guest=1 meaning what it means on Linux. */
static int amd_hw_config(struct perf_event *e)
{
	if (e->attr.exclude_host && e->attr.exclude_guest)
		/* HO = GO = 1 counts in both modes: count in neither instead. */
		e->hw.config &= ~(ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS);
	else if (e->attr.exclude_host)
		e->hw.config |= AMD64_EVENTSEL_GUESTONLY;
	else if (e->attr.exclude_guest)
		e->hw.config |= AMD64_EVENTSEL_HOSTONLY;
	return 0;
}

static uint32_t amd_legacy_config_addr(int idx) { return MSR_K7_EVNTSEL0 + idx; }
static uint32_t amd_legacy_event_addr(int idx) { return MSR_K7_PERFCTR0 + idx; }
static uint32_t amd_core_config_addr(int idx) { return MSR_F15H_PERF_CTL + 2 * idx; }
static uint32_t amd_core_event_addr(int idx) { return MSR_F15H_PERF_CTR + 2 * idx; }

/* PerfMonV2 (APM 13.2.2): overflow status is cleared through its own MSR. */
static uint64_t amd_v2_get_status(void)
{
	return pmu_rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & amd_counters_mask();
}

static void amd_v2_ack_status(uint64_t status)
{
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, status);
}

static void amd_v2_disable_all(void)
{
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
}

static void amd_v2_enable_all(void)
{
	pmu_wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, amd_counters_mask());
}

/* The legacy counters have no CPUID bit: x86.c's probe decides whether they
 * exist. The PMI needs no LVT unmask on AMD, and Linux's window that claims
 * the late NMIs of an already handled overflow is not carried (such an NMI
 * is reported as unknown). */
int amd_pmu_init(void)
{
	if (cpu_caps.family < AMD_FAMILY_MIN)
		return -ENODEV;
	x86_pmu.name = "AMD legacy counters";
	x86_pmu.num_counters = AMD64_NUM_COUNTERS;
	x86_pmu.config_addr = amd_legacy_config_addr;
	x86_pmu.event_addr = amd_legacy_event_addr;
	if (cpu_caps.amd_perfctr_core) {
		x86_pmu.name = "AMD PerfCtrExtCore";
		x86_pmu.num_counters = AMD64_NUM_COUNTERS_CORE;
		x86_pmu.config_addr = amd_core_config_addr;
		x86_pmu.event_addr = amd_core_event_addr;
		if (cpu_caps.amd_perfmon_v2) {
			x86_pmu.name = "AMD PerfMonV2";
			x86_pmu.version = 2;
			x86_pmu.num_counters = cpu_caps.amd_v2_counters;
			x86_pmu.get_status = amd_v2_get_status;
			x86_pmu.ack_status = amd_v2_ack_status;
			x86_pmu.disable_all = amd_v2_disable_all;
			x86_pmu.enable_all = amd_v2_enable_all;
		}
	}
	x86_pmu.cntval_bits = AMD_CNTVAL_BITS;
	x86_pmu.cntval_mask = BIT_ULL(AMD_CNTVAL_BITS) - 1;
	x86_pmu.max_period = x86_pmu.cntval_mask >> 1;
	x86_pmu.raw_event_mask = AMD64_RAW_EVENT_MASK;
	x86_pmu.event_map = cpu_caps.family >= AMD_FAMILY_ZEN ? amd_f17h_perfmon_event_map
							     : amd_perfmon_event_map;
	x86_pmu.format = amd_format;
	x86_pmu.constraint = amd_constraint;
	x86_pmu.hw_config = amd_hw_config;
	x86_pmu.enable = x86_pmu_enable_gp;
	return 0;
}
