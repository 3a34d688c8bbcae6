/* Intel architectural performance monitoring (SDM Vol. 3B ch. 20): the MSRs,
 * bits and CPUID leaf 0xA that the driver (intel.c) and the model (sim.c)
 * share. Names as in the SDM and Linux's msr-index.h / perf_event.h. */
#pragma once
#include <stdint.h>
#include "../cpu.h"	/* CPUID leaf 0xA: its words and decoder */

/* Counters and their controls (SDM 20.2.1, 20.2.2, 20.2.4) */
#define MSR_ARCH_PERFMON_PERFCTR0	0x0c1	/* IA32_PMCx: writes sign-extend bit 31 */
#define MSR_ARCH_PERFMON_EVENTSEL0	0x186	/* IA32_PERFEVTSELx */
#define MSR_IA32_PMC0			0x4c1	/* IA32_A_PMCx: full-width writes */
#define MSR_CORE_PERF_FIXED_CTR0	0x309	/* IA32_FIXED_CTRx */
#define MSR_CORE_PERF_FIXED_CTR_CTRL	0x38d	/* IA32_FIXED_CTR_CTRL */
#define MSR_CORE_PERF_GLOBAL_STATUS	0x38e	/* IA32_PERF_GLOBAL_STATUS (v2+) */
#define MSR_CORE_PERF_GLOBAL_CTRL	0x38f	/* IA32_PERF_GLOBAL_CTRL (v2+) */
#define MSR_CORE_PERF_GLOBAL_OVF_CTRL	0x390	/* IA32_PERF_GLOBAL_OVF_CTRL (v4: _STATUS_RESET) */
#define MSR_IA32_PERF_CAPABILITIES	0x345	/* exists when CPUID.01H:ECX.PDCM */
#define PERF_CAP_FW_WRITE		(1ull << 13)	/* IA32_A_PMCx are writable */
#define X86_FEATURE_PDCM_ECX		(1u << 15)	/* CPUID.01H:ECX bit 15 */

/* IA32_FIXED_CTR_CTRL: four bits per fixed counter n at bit 4n (SDM 20.2.2) */
#define FIXED_CTR_CTRL_BITS		4
#define FIXED_CTR_CTRL_OS		0x1	/* count in ring 0 */
#define FIXED_CTR_CTRL_USR		0x2	/* count in rings 1-3 */
#define FIXED_CTR_CTRL_ANY		0x4	/* AnyThread (v3+) */
#define FIXED_CTR_CTRL_PMI		0x8	/* interrupt on overflow */
#define FIXED_CTR_CTRL_MASK		0xf

/* IA32_PERF_GLOBAL_CTRL/STATUS: GP counter n at bit n, fixed counter n at
 * bit 32 + n (the same numbering as hw.idx, Linux's INTEL_PMC_IDX_FIXED). */
#define GLOBAL_FIXED_SHIFT		32

/* CPUID leaf 0xA (SDM Vol. 2A CPUID, Table 3-8) */
/* EBX bit n set: architectural event n is not available (SDM Table 20-1):
 * core cycles, instructions retired, reference cycles, LLC references, LLC
 * misses, branch instructions retired, branch mispredicts retired. */
enum {
	ARCH_EVENT_CORE_CYCLES, ARCH_EVENT_INSTRUCTIONS, ARCH_EVENT_REF_CYCLES,
	ARCH_EVENT_LLC_REFERENCES, ARCH_EVENT_LLC_MISSES, ARCH_EVENT_BRANCHES,
	ARCH_EVENT_BRANCH_MISSES, ARCH_EVENTS
};
/* ECX (v5+): bit n set = fixed counter n exists, beside EDX's contiguous count. */

/* The architectural event encodings (event | umask << 8), SDM Table 20-1,
 * and the pseudo-encoding Linux gives fixed counter 2 (reference cycles). */
#define ARCH_PERFMON_CORE_CYCLES	0x003c
#define ARCH_PERFMON_INSTRUCTIONS	0x00c0
#define ARCH_PERFMON_REF_CYCLES		0x013c
#define INTEL_FIXED2_PSEUDO_REF_CYCLES	0x0300
