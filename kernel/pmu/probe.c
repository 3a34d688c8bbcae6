/* Which PMU this machine has: the vendor's CPUID, a write/read-back probe
 * of a counter, the kernel command line (pmu=off, pmu=sim), the model when
 * no counter works; then the "cpu" PMU's sysfs files, its registration and
 * the boot line. */
#include "internal.h"
#include "pmu.h"
#include "../apic.h"
#include "../cmdline.h"
#include "../cpu.h"
#include "../nmi.h"
#include "../panic.h"
#include "../percpu.h"
#include "../printk.h"
#include "../smp.h"
#include "../lib/string.h"
#include "../lib/vsprintf.h"
#include <asm-generic/errno.h>

/* sysfs events/: the generic events this CPU has, spelled as Linux's
 * x86_event_sysfs_show spells them (no edge/inv/cmask in any map). */
static const char *const hw_event_names[PERF_COUNT_HW_MAX] = {
	"cpu-cycles", "instructions", "cache-references", "cache-misses",
	"branch-instructions", "branch-misses", "bus-cycles",
	"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
};
static char event_strings[PERF_COUNT_HW_MAX][32];
static struct pmu_attr events_attrs[PERF_COUNT_HW_MAX + 1];
static struct pmu_attr caps_attrs[] = {
	{ "max_precise", "0" },
	{ "pmu_name", NULL },	/* Intel only, as in Linux */
	{ NULL, NULL },
};

static void x86_pmu_sysfs_init(void)
{
	struct pmu_attr *a = events_attrs;

	for (int i = 0; i < PERF_COUNT_HW_MAX; i++) {
		uint64_t c = x86_pmu.event_map[i];
		if (!c)
			continue;
		/* AMD's event select bits 35:32 extend the event number. */
		uint64_t event = (c & ARCH_PERFMON_EVENTSEL_EVENT) | ((c >> 24) & 0xf00);
		uint64_t umask = (c & ARCH_PERFMON_EVENTSEL_UMASK) >> 8;
		int n = snprintf(event_strings[i], sizeof(event_strings[i]), "event=0x%02lx", event);
		if (umask)
			snprintf(event_strings[i] + n, sizeof(event_strings[i]) - n, ",umask=0x%02lx", umask);
		*a++ = (struct pmu_attr){ hw_event_names[i], event_strings[i] };
	}
	static char max_precise[4];
	snprintf(max_precise, sizeof(max_precise), "%u", x86_pmu.max_precise);
	caps_attrs[0].value = max_precise;
	caps_attrs[1].value = x86_pmu.pmu_name;
	if (!x86_pmu.pmu_name)
		caps_attrs[1].name = NULL;
	x86_cpu_pmu.format = x86_pmu.format;
	x86_cpu_pmu.events = events_attrs;
	x86_cpu_pmu.caps = caps_attrs;
}

/* Linux's check_hw_exists(): a counter keeps what is written to it. QEMU TCG
 * reads every PMU MSR as 0 and drops writes; other hypervisors fault. A
 * counter that firmware left enabled is not touched. */
#define PROBE_VALUE	0xffff

bool x86_pmu_probe_hw(void)
{
	int free = -1;
	uint64_t v;

	for (unsigned i = 0; i < x86_pmu.num_counters; i++) {
		if (rdmsr_safe(x86_pmu.config_addr(i), &v))
			return false;
		if (!(v & ARCH_PERFMON_EVENTSEL_ENABLE))
			free = i;
	}
	if (free < 0)
		return false;
	uint32_t ctr = x86_pmu.event_addr(free);
	if (wrmsr_safe(ctr, PROBE_VALUE) || rdmsr_safe(ctr, &v))
		return false;
	wrmsr_safe(ctr, 0);
	return v == PROBE_VALUE;
}

static int fixed_counters(void)
{
	int n = 0;

	for (uint64_t m = x86_pmu.fixed_mask; m; m &= m - 1)
		n++;
	return n;
}

/* Each CPU's own PMU state: the model's registers, the PMI's LVT entry and
 * the counters' global enable are per core. */
static void x86_pmu_init_cpu(void *unused)
{
	if (x86_pmu_simulated && smp_processor_id())
		sim_init_cpu(x86_pmu_handle_irq);	/* CPU 0's: sim_init */
	/* PMIs are NMIs: they reach the handler inside interrupts-off code.
	 * The model raises its PMIs from its timer interrupt instead, so it
	 * never runs inside itself. */
	apic_write(APIC_LVT_PERF, APIC_DM_NMI);
	if (x86_pmu.enable_all)
		x86_pmu.enable_all();
}

void x86_pmu_init(void)
{
	char mode[8] = "";
	const char *model = NULL;
	int err = -ENODEV;

	cmdline_get("pmu", mode, sizeof(mode));
	if (!strcmp(mode, "off")) {
		printk("pmuos: PMU: off (pmu=off): software events only\n");
		return;
	}
	if (!strcmp(mode, "sim")) {
		model = "pmu=sim";
	} else {
		if (cpu_caps.vendor == VENDOR_INTEL)
			err = intel_pmu_init();
		else if (cpu_caps.vendor == VENDOR_AMD)
			err = amd_pmu_init();
		if (err)
			model = "CPUID shows no PMU";
		else if (!x86_pmu_probe_hw())
			model = "no counter keeps what is written to it";
	}
	if (model) {
		memset(&x86_pmu, 0, sizeof(x86_pmu));
		sim_init(x86_pmu_handle_irq);
		err = intel_pmu_init();
		assert(!err);
		/* The model samples the instruction that overflowed, exactly:
		 * zero skid, what precise_ip 3 asks of PEBS. */
		x86_pmu.max_precise = 3;
	}
	if (!x86_pmu_simulated)
		nmi_register(x86_pmu_handle_irq);
	x86_pmu_init_cpu(NULL);
	for (int cpu = 1; cpu < nr_cpus; cpu++)
		smp_call_function_single(cpu, x86_pmu_init_cpu, NULL);
	x86_cpu_pmu.pmc_width = x86_pmu.cntval_bits;
	x86_pmu_sysfs_init();
	perf_pmu_register(&x86_cpu_pmu);
	printk("pmuos: PMU: %s%s%s%s, %u general-purpose + %d fixed counters x %u bits%s\n",
	       x86_pmu.name, model ? " (simulated: " : "", model ? model : "", model ? ")" : "",
	       x86_pmu.num_counters, fixed_counters(),
	       x86_pmu.cntval_bits, x86_pmu.full_width_write ? ", full-width writes" : "");
}
