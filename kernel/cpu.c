/* CPUID probing into one capabilities struct, and the CR0/CR4/EFER features. */
#include "cpu.h"
#include "printk.h"
#include "x86.h"
#include "lib/string.h"

#define CR0_MP	(1ul << 1)
#define CR0_EM	(1ul << 2)

struct cpu_caps cpu_caps;

static void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	cpuid_count(leaf, 0, a, b, c, d);
}

static void probe_vendor(struct cpu_caps *cc)
{
	uint32_t a, b, c, d;

	cpuid(0, &a, &b, &c, &d);
	cc->max_leaf = a;
	memcpy(cc->vendor_id, &b, 4);
	memcpy(cc->vendor_id + 4, &d, 4);
	memcpy(cc->vendor_id + 8, &c, 4);
	if (!strcmp(cc->vendor_id, "GenuineIntel"))
		cc->vendor = VENDOR_INTEL;
	else if (!strcmp(cc->vendor_id, "AuthenticAMD"))
		cc->vendor = VENDOR_AMD;

	cpuid(1, &a, &b, &c, &d);
	cc->family = (a >> 8) & 0xf;
	cc->model = (a >> 4) & 0xf;
	cc->stepping = a & 0xf;
	if (cc->family == 0xf)
		cc->family += (a >> 20) & 0xff;
	if (cc->family >= 6)
		cc->model |= ((a >> 16) & 0xf) << 4;
	cc->x2apic = c & (1u << 21);
	cc->tsc_deadline = c & (1u << 24);
	cc->hypervisor = c & (1u << 31);
	cc->pge = d & (1u << 13);

	if (cc->max_leaf >= 7) {
		cpuid_count(7, 0, &a, &b, &c, &d);
		cc->smep = b & (1u << 7);
		cc->smap = b & (1u << 20);
	}

	/* Check the extended range first: QEMU answers leaves past its maximum
	 * with another leaf's data. */
	cpuid(0x80000000, &a, &b, &c, &d);
	cc->max_ext_leaf = a;
	if (cc->max_ext_leaf >= 0x80000001) {
		cpuid(0x80000001, &a, &b, &c, &d);
		cc->nx = d & (1u << 20);
		cc->amd_perfctr_core = cc->vendor == VENDOR_AMD && (c & (1u << 23));
	}
	if (cc->max_ext_leaf >= 0x80000004) {
		uint32_t *w = (uint32_t *)cc->brand;
		for (uint32_t leaf = 0x80000002; leaf <= 0x80000004; leaf++, w += 4)
			cpuid(leaf, &w[0], &w[1], &w[2], &w[3]);
	}
	if (cc->max_ext_leaf >= 0x80000007) {
		cpuid(0x80000007, &a, &b, &c, &d);
		cc->invariant_tsc = d & (1u << 8);
	}
}

void cpuid10_decode(uint32_t a, uint32_t b, uint32_t c, uint32_t d, struct cpuid10 *out)
{
	union cpuid10_eax eax = { .full = a };
	union cpuid10_edx edx = { .full = d };

	*out = (struct cpuid10){
		.version = eax.split.version_id,
		.gp_counters = eax.split.num_counters,
		.gp_width = eax.split.bit_width,
		.events_len = eax.split.mask_length,
		.events_unavailable = b,
	};
	if (out->version >= 2) {
		out->fixed_counters = edx.split.num_counters_fixed;
		out->fixed_width = edx.split.bit_width_fixed;
	}
	if (out->version >= 5)
		out->fixed_bitmap = c;
}

static void probe_pmu(struct cpu_caps *cc)
{
	uint32_t a, b, c, d;

	if (cc->vendor == VENDOR_INTEL && cc->max_leaf >= CPUID_ARCH_PERFMON) {
		cpuid(CPUID_ARCH_PERFMON, &a, &b, &c, &d);
		cpuid10_decode(a, b, c, d, &cc->perfmon);
	}
	if (cc->vendor == VENDOR_AMD && cc->max_ext_leaf >= 0x80000022) {
		cpuid(0x80000022, &a, &b, &c, &d);
		cc->amd_perfmon_v2 = a & 1;
		cc->amd_v2_counters = b & 0xf;
	}
}

/* Without SMAP, STAC and CLAC are #UD: each recorded site (smap.h) becomes a
 * NOP of the same length, before any user access. Kernel text is mapped
 * read-only, so with CR0.WP off for the moment. */
static void smap_patch_out(void)
{
	extern const uint64_t __smap_sites_start[], __smap_sites_end[];
	static const uint8_t nop3[] = { 0x0f, 0x1f, 0x00 };	/* NOP DWORD [RAX] */
	uint64_t cr0 = read_cr0();

	write_cr0(cr0 & ~CR0_WP);
	for (const uint64_t *site = __smap_sites_start; site < __smap_sites_end; site++)
		memcpy((void *)*site, nop3, sizeof(nop3));	/* STAC, CLAC: 3 bytes */
	write_cr0(cr0);
}

void cpu_init(void)
{
	probe_vendor(&cpu_caps);
	probe_pmu(&cpu_caps);
	cpu_init_features();
	if (!cpu_caps.smap)
		smap_patch_out();
}

/* Every CPU: the boot CPU's probe decides (the same model on every core). */
void cpu_init_features(void)
{
	if (cpu_caps.nx)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	/* SSE for user programs: no x87 emulation, FXSAVE and #XM enabled. */
	write_cr0((read_cr0() | CR0_WP | CR0_MP) & ~CR0_EM);
	uint64_t cr4 = read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT;
	if (cpu_caps.pge)
		cr4 |= CR4_PGE;
	if (cpu_caps.smep)
		cr4 |= CR4_SMEP;
	if (cpu_caps.smap)
		cr4 |= CR4_SMAP;
	write_cr4(cr4);
}

void cpu_print_banner(void)
{
	const struct cpu_caps *cc = &cpu_caps;
	const char *brand = cc->brand;

	while (*brand == ' ')
		brand++;
	printk("pmuos: CPU %s family %u model %u stepping %u \"%s\"%s\n",
	       cc->vendor_id, cc->family, cc->model, cc->stepping, brand,
	       cc->hypervisor ? " (virtual)" : "");
	printk("pmuos: CPU features: nx=%d smep=%d smap=%d x2apic=%d tsc-deadline=%d invariant-tsc=%d\n",
	       cc->nx, cc->smep, cc->smap, cc->x2apic, cc->tsc_deadline, cc->invariant_tsc);
	if (cc->vendor == VENDOR_AMD)
		printk("pmuos: PMU (CPUID): AMD, PerfCtrExtCore=%d PerfMonV2=%d (%u counters)\n",
		       cc->amd_perfctr_core, cc->amd_perfmon_v2, cc->amd_v2_counters);
	else
		printk("pmuos: PMU (CPUID 0xA): version %u, %u GP counters x %u bits, %u fixed x %u bits, events unavailable mask 0x%x\n",
		       cc->perfmon.version, cc->perfmon.gp_counters, cc->perfmon.gp_width,
		       cc->perfmon.fixed_counters, cc->perfmon.fixed_width,
		       cc->perfmon.events_unavailable);
}
