/* What CPUID says about this processor, probed once at boot. */
#pragma once
#include "kernel.h"

enum cpu_vendor { VENDOR_OTHER, VENDOR_INTEL, VENDOR_AMD };

struct cpu_caps {
	enum cpu_vendor vendor;
	char vendor_id[13];
	char brand[49];
	unsigned family, model, stepping;
	uint32_t max_leaf, max_ext_leaf;
	bool nx, smep, smap, pge, x2apic, tsc_deadline, invariant_tsc, hypervisor;
	/* Intel architectural perfmon, CPUID leaf 0xA (SDM Vol. 3B 20.2) */
	unsigned perfmon_version, gp_counters, gp_width, fixed_counters, fixed_width;
	uint32_t arch_events_unavailable;	/* EBX: a set bit = event absent */
	unsigned arch_events_len;
	/* AMD (APM Vol. 2 13.2, CPUID Fn8000_0001 ECX[23], Fn8000_0022) */
	bool amd_perfctr_core, amd_perfmon_v2;
	unsigned amd_v2_counters;
};

extern struct cpu_caps cpu_caps;
/* Read by entry.asm and uaccess.asm: CLAC/STAC exist only with SMAP. */
extern uint8_t smap_enabled;

/* Probe CPUID; turn on NX, WP, global pages, SSE state, SMEP and SMAP. */
void cpu_init(void);
void cpu_print_banner(void);
