/* What CPUID says about this processor, probed once at boot. */
#pragma once
#include "kernel.h"

enum cpu_vendor { VENDOR_OTHER, VENDOR_INTEL, VENDOR_AMD };

#define CPUID_ARCH_PERFMON	0xa
/* CPUID leaf 0xA, Intel architectural perfmon (SDM Vol. 2A CPUID 0AH,
 * Vol. 3B 20.2), as the registers say it ... */
union cpuid10_eax {
	struct {
		uint32_t version_id:8;		/* 0: no architectural perfmon */
		uint32_t num_counters:8;	/* general-purpose counters */
		uint32_t bit_width:8;
		uint32_t mask_length:8;		/* valid bits of EBX */
	} split;
	uint32_t full;
};
union cpuid10_edx {
	struct {
		uint32_t num_counters_fixed:5;	/* contiguous fixed counters (v2+) */
		uint32_t bit_width_fixed:8;
		uint32_t reserved:2;
		uint32_t anythread_deprecated:1;
		uint32_t reserved2:16;
	} split;
	uint32_t full;
};
/* ... and decoded once, by name (cpuid10_decode). */
struct cpuid10 {
	unsigned version, gp_counters, gp_width, fixed_counters, fixed_width;
	unsigned events_len;		/* valid bits of events_unavailable */
	uint32_t events_unavailable;	/* EBX: a set bit = event absent */
	uint32_t fixed_bitmap;		/* ECX (v5+): fixed counters beyond the contiguous ones */
};
/* The leaf's EAX, EBX, ECX, EDX: fixed counters only from version 2 on. */
void cpuid10_decode(uint32_t a, uint32_t b, uint32_t c, uint32_t d, struct cpuid10 *out);

struct cpu_caps {
	enum cpu_vendor vendor;
	char vendor_id[13];
	char brand[49];
	unsigned family, model, stepping;
	uint32_t max_leaf, max_ext_leaf;
	bool nx, smep, smap, pge, x2apic, tsc_deadline, invariant_tsc, hypervisor;
	struct cpuid10 perfmon;	/* the CPU's own leaf 0xA (the PMU model has its own) */
	/* AMD (APM Vol. 2 13.2, CPUID Fn8000_0001 ECX[23], Fn8000_0022) */
	bool amd_perfctr_core, amd_perfmon_v2;
	unsigned amd_v2_counters;
};

extern struct cpu_caps cpu_caps;
/* Probe CPUID; turn on NX, WP, global pages, SSE state, SMEP and SMAP (or
 * patch out STAC and CLAC where there is none). */
void cpu_init(void);
/* EFER.NXE, CR0 and CR4 as cpu_caps says: cpu_init's second half, which
 * each application processor runs for itself. */
void cpu_init_features(void);
void cpu_print_banner(void);
