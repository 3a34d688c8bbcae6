/* /proc's system-wide files in Linux 6.1's formats: cpuinfo (from CPUID),
 * meminfo, stat, uptime, loadavg, version, mounts, filesystems, kallsyms,
 * interrupts; and the root table that lists them. */
#include "../clock.h"
#include "proc.h"
#include "../cpu.h"
#include "../cpu_stats.h"
#include "../kallsyms.h"
#include "../nmi.h"
#include "../syscall.h"
#include "../task.h"
#include "../traps.h"
#include "../tsc.h"
#include "../x86.h"
#include "../fs/ramfs.h"
#include "../lib/string.h"
#include "../lib/vsprintf.h"
#include "../mm/paging.h"
#include "../mm/frames.h"
#include "../mm/kmalloc.h"
#include <asm-generic/errno.h>
#include <linux/stat.h>
#include <linux/time.h>
#include <linux/utsname.h>

#define USER_HZ		100
#define KB_PER_PAGE	(PAGE_SIZE / 1024)

int proc_kptr_restrict;		/* kernel.kptr_restrict: 2 hides kallsyms' addresses */

/* ---- cpuinfo ---- */

/* The CPUID bits Linux names in "flags", in its order (the X86_FEATURE
 * words: 1.EDX, 8000_0001.EDX, 1.ECX, 8000_0001.ECX, 7.EBX, 0xD.1.EAX,
 * 6.EAX, 7.ECX, 7.EDX). */
struct cpu_flag {
	uint32_t leaf, sub;
	uint8_t reg;			/* 0 EAX, 1 EBX, 2 ECX, 3 EDX */
	uint8_t bit;
	const char *name;
};

#define F(l, s, r, b, n)	{ l, s, r, b, n }
static const struct cpu_flag cpu_flags[] = {
	F(1, 0, 3, 0, "fpu"), F(1, 0, 3, 1, "vme"), F(1, 0, 3, 2, "de"), F(1, 0, 3, 3, "pse"),
	F(1, 0, 3, 4, "tsc"), F(1, 0, 3, 5, "msr"), F(1, 0, 3, 6, "pae"), F(1, 0, 3, 7, "mce"),
	F(1, 0, 3, 8, "cx8"), F(1, 0, 3, 9, "apic"), F(1, 0, 3, 11, "sep"), F(1, 0, 3, 12, "mtrr"),
	F(1, 0, 3, 13, "pge"), F(1, 0, 3, 14, "mca"), F(1, 0, 3, 15, "cmov"),
	F(1, 0, 3, 16, "pat"), F(1, 0, 3, 17, "pse36"), F(1, 0, 3, 18, "pn"),
	F(1, 0, 3, 19, "clflush"), F(1, 0, 3, 21, "dts"), F(1, 0, 3, 22, "acpi"),
	F(1, 0, 3, 23, "mmx"), F(1, 0, 3, 24, "fxsr"), F(1, 0, 3, 25, "sse"),
	F(1, 0, 3, 26, "sse2"), F(1, 0, 3, 27, "ss"), F(1, 0, 3, 28, "ht"), F(1, 0, 3, 29, "tm"),
	F(1, 0, 3, 31, "pbe"),
	F(0x80000001, 0, 3, 11, "syscall"), F(0x80000001, 0, 3, 20, "nx"),
	F(0x80000001, 0, 3, 22, "mmxext"), F(0x80000001, 0, 3, 25, "fxsr_opt"),
	F(0x80000001, 0, 3, 26, "pdpe1gb"), F(0x80000001, 0, 3, 27, "rdtscp"),
	F(0x80000001, 0, 3, 29, "lm"), F(0x80000001, 0, 3, 30, "3dnowext"),
	F(0x80000001, 0, 3, 31, "3dnow"),
	F(1, 0, 2, 0, "pni"), F(1, 0, 2, 1, "pclmulqdq"), F(1, 0, 2, 2, "dtes64"),
	F(1, 0, 2, 3, "monitor"), F(1, 0, 2, 4, "ds_cpl"), F(1, 0, 2, 5, "vmx"),
	F(1, 0, 2, 6, "smx"), F(1, 0, 2, 7, "est"), F(1, 0, 2, 8, "tm2"), F(1, 0, 2, 9, "ssse3"),
	F(1, 0, 2, 10, "cid"), F(1, 0, 2, 11, "sdbg"), F(1, 0, 2, 12, "fma"),
	F(1, 0, 2, 13, "cx16"), F(1, 0, 2, 14, "xtpr"), F(1, 0, 2, 15, "pdcm"),
	F(1, 0, 2, 17, "pcid"), F(1, 0, 2, 18, "dca"), F(1, 0, 2, 19, "sse4_1"),
	F(1, 0, 2, 20, "sse4_2"), F(1, 0, 2, 21, "x2apic"), F(1, 0, 2, 22, "movbe"),
	F(1, 0, 2, 23, "popcnt"), F(1, 0, 2, 24, "tsc_deadline_timer"), F(1, 0, 2, 25, "aes"),
	F(1, 0, 2, 26, "xsave"), F(1, 0, 2, 28, "avx"), F(1, 0, 2, 29, "f16c"),
	F(1, 0, 2, 30, "rdrand"), F(1, 0, 2, 31, "hypervisor"),
	F(0x80000001, 0, 2, 0, "lahf_lm"), F(0x80000001, 0, 2, 1, "cmp_legacy"),
	F(0x80000001, 0, 2, 2, "svm"), F(0x80000001, 0, 2, 3, "extapic"),
	F(0x80000001, 0, 2, 4, "cr8_legacy"), F(0x80000001, 0, 2, 5, "abm"),
	F(0x80000001, 0, 2, 6, "sse4a"), F(0x80000001, 0, 2, 7, "misalignsse"),
	F(0x80000001, 0, 2, 8, "3dnowprefetch"), F(0x80000001, 0, 2, 9, "osvw"),
	F(0x80000001, 0, 2, 10, "ibs"), F(0x80000001, 0, 2, 11, "xop"),
	F(0x80000001, 0, 2, 12, "skinit"), F(0x80000001, 0, 2, 13, "wdt"),
	F(0x80000001, 0, 2, 15, "lwp"), F(0x80000001, 0, 2, 16, "fma4"),
	F(0x80000001, 0, 2, 17, "tce"), F(0x80000001, 0, 2, 19, "nodeid_msr"),
	F(0x80000001, 0, 2, 21, "tbm"), F(0x80000001, 0, 2, 22, "topoext"),
	F(0x80000001, 0, 2, 23, "perfctr_core"), F(0x80000001, 0, 2, 24, "perfctr_nb"),
	F(0x80000001, 0, 2, 26, "bpext"), F(0x80000001, 0, 2, 27, "ptsc"),
	F(0x80000001, 0, 2, 28, "perfctr_llc"), F(0x80000001, 0, 2, 29, "mwaitx"),
	F(7, 0, 1, 0, "fsgsbase"), F(7, 0, 1, 1, "tsc_adjust"), F(7, 0, 1, 2, "sgx"),
	F(7, 0, 1, 3, "bmi1"), F(7, 0, 1, 4, "hle"), F(7, 0, 1, 5, "avx2"), F(7, 0, 1, 7, "smep"),
	F(7, 0, 1, 8, "bmi2"), F(7, 0, 1, 9, "erms"), F(7, 0, 1, 10, "invpcid"),
	F(7, 0, 1, 11, "rtm"), F(7, 0, 1, 14, "mpx"), F(7, 0, 1, 16, "avx512f"),
	F(7, 0, 1, 17, "avx512dq"), F(7, 0, 1, 18, "rdseed"), F(7, 0, 1, 19, "adx"),
	F(7, 0, 1, 20, "smap"), F(7, 0, 1, 21, "avx512ifma"), F(7, 0, 1, 23, "clflushopt"),
	F(7, 0, 1, 24, "clwb"), F(7, 0, 1, 25, "intel_pt"), F(7, 0, 1, 26, "avx512pf"),
	F(7, 0, 1, 27, "avx512er"), F(7, 0, 1, 28, "avx512cd"), F(7, 0, 1, 29, "sha_ni"),
	F(7, 0, 1, 30, "avx512bw"), F(7, 0, 1, 31, "avx512vl"),
	F(0xd, 1, 0, 0, "xsaveopt"), F(0xd, 1, 0, 1, "xsavec"), F(0xd, 1, 0, 2, "xgetbv1"),
	F(0xd, 1, 0, 3, "xsaves"),
	F(6, 0, 0, 2, "arat"),
	F(7, 0, 2, 1, "avx512vbmi"), F(7, 0, 2, 2, "umip"), F(7, 0, 2, 3, "pku"),
	F(7, 0, 2, 4, "ospke"), F(7, 0, 2, 5, "waitpkg"), F(7, 0, 2, 6, "avx512_vbmi2"),
	F(7, 0, 2, 8, "gfni"), F(7, 0, 2, 9, "vaes"), F(7, 0, 2, 10, "vpclmulqdq"),
	F(7, 0, 2, 11, "avx512_vnni"), F(7, 0, 2, 12, "avx512_bitalg"),
	F(7, 0, 2, 14, "avx512_vpopcntdq"), F(7, 0, 2, 16, "la57"), F(7, 0, 2, 22, "rdpid"),
	F(7, 0, 2, 25, "cldemote"), F(7, 0, 2, 27, "movdiri"), F(7, 0, 2, 28, "movdir64b"),
	F(7, 0, 3, 4, "fsrm"), F(7, 0, 3, 8, "avx512_vp2intersect"), F(7, 0, 3, 10, "md_clear"),
	F(7, 0, 3, 14, "serialize"), F(7, 0, 3, 18, "pconfig"), F(7, 0, 3, 28, "flush_l1d"),
	F(7, 0, 3, 29, "arch_capabilities"),
};
#undef F

static uint32_t cpuid_reg(uint32_t leaf, uint32_t sub, int reg)
{
	uint32_t r[4] = { 0 };

	/* A leaf past the maximum returns another leaf's data: never ask. */
	if (leaf < 0x80000000 ? leaf > cpu_caps.max_leaf : leaf > cpu_caps.max_ext_leaf)
		return 0;
	cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]);
	return r[reg];
}

/* The cache size Linux reports: AMD's L2 (8000_0006.ECX), Intel's last
 * level from leaf 4. */
static unsigned cache_kb(void)
{
	unsigned kb = cpuid_reg(0x80000006, 0, 2) >> 16;

	if (cpu_caps.vendor == VENDOR_INTEL && cpu_caps.max_leaf >= 4) {
		for (uint32_t i = 0; i < 16; i++) {
			uint32_t a, b, c, d;
			cpuid_count(4, i, &a, &b, &c, &d);
			if (!(a & 0x1f))
				break;
			kb = (((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) *
			      (c + 1)) / 1024;
		}
	}
	return kb;
}

/* One paragraph per CPU that came up; the CPUID words are the reading CPU's
 * (every CPU here is the same model). The topology is one package of
 * single-threaded cores, numbered as the CPUs. */
static void cpuinfo_show_cpu(int cpu, struct seq *s);

static int cpuinfo_show(const struct proc_node *n, struct seq *s)
{
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		cpuinfo_show_cpu(cpu, s);
	return 0;
}

static void cpuinfo_show_cpu(int cpu, struct seq *s)
{
	const struct cpu_caps *cc = &cpu_caps;
	uint32_t ebx1 = cpuid_reg(1, 0, 1), addr = cpuid_reg(0x80000008, 0, 0);
	uint64_t ucode = 0, khz = tsc_hz / 1000;
	const char *brand = cc->brand;

	while (*brand == ' ')
		brand++;
	if (rdmsr_safe(0x8b, &ucode) == 0)		/* IA32_BIOS_SIGN_ID / PATCH_LEVEL */
		ucode = cc->vendor == VENDOR_INTEL ? ucode >> 32 : (uint32_t)ucode;
	seq_printf(s, "processor\t: %d\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
		   "model name\t: %s\nstepping\t: %u\nmicrocode\t: 0x%lx\n"
		   "cpu MHz\t\t: %lu.%03lu\ncache size\t: %u KB\nphysical id\t: 0\n"
		   "siblings\t: %d\ncore id\t\t: %d\ncpu cores\t: %d\napicid\t\t: %u\n"
		   "initial apicid\t: %u\nfpu\t\t: yes\nfpu_exception\t: yes\n"
		   "cpuid level\t: %u\nwp\t\t: yes\nflags\t\t:",
		   cpu, cc->vendor_id, cc->family, cc->model, *brand ? brand : "unknown",
		   cc->stepping, ucode, khz / 1000, khz % 1000, cache_kb(), nr_cpus, cpu, nr_cpus,
		   cpus[cpu]->apic_id, cpus[cpu]->apic_id, cc->max_leaf);
	for (size_t i = 0; i < ARRAY_SIZE(cpu_flags); i++) {
		const struct cpu_flag *f = &cpu_flags[i];
		if (cpuid_reg(f->leaf, f->sub, f->reg) & (1u << f->bit))
			seq_printf(s, " %s", f->name);
	}
	/* bogomips: Linux's calibrated delay loop, two loops a TSC tick */
	seq_printf(s, "\nbugs\t\t:\nbogomips\t: %lu.%02lu\nclflush size\t: %u\n"
		   "cache_alignment\t: %u\naddress sizes\t: %u bits physical, %u bits virtual\n"
		   "power management:\n\n", khz * 2 / 1000, khz * 2 / 10 % 100,
		   ((ebx1 >> 8) & 0xff) * 8, ((ebx1 >> 8) & 0xff) * 8, addr & 0xff,
		   (addr >> 8) & 0xff);
}

/* ---- meminfo ---- */

static int meminfo_show(const struct proc_node *n, struct seq *s)
{
	unsigned long total = frame_stats.total * KB_PER_PAGE;
	unsigned long free = frame_stats.free * KB_PER_PAGE;
	unsigned long files = ramfs_pages * KB_PER_PAGE, slab = heap_stats.bytes / 1024;
	/* The RAM file system's pages are Linux's tmpfs pages: Cached and
	 * Shmem; the kernel heap is Slab (unreclaimable). */
	const struct { const char *name; unsigned long kb; } lines[] = {
		{ "MemTotal:       ", total }, { "MemFree:        ", free },
		{ "MemAvailable:   ", free }, { "Buffers:        ", 0 },
		{ "Cached:         ", files }, { "SwapCached:     ", 0 },
		{ "Active:         ", 0 }, { "Inactive:       ", files },
		{ "Active(anon):   ", 0 }, { "Inactive(anon): ", files },
		{ "Active(file):   ", 0 }, { "Inactive(file): ", 0 },
		{ "Unevictable:    ", 0 }, { "Mlocked:        ", 0 },
		{ "SwapTotal:      ", 0 }, { "SwapFree:       ", 0 },
		{ "Zswap:          ", 0 }, { "Zswapped:       ", 0 },
		{ "Dirty:          ", 0 }, { "Writeback:      ", 0 },
		{ "AnonPages:      ", 0 }, { "Mapped:         ", 0 },
		{ "Shmem:          ", files }, { "KReclaimable:   ", 0 },
		{ "Slab:           ", slab }, { "SReclaimable:   ", 0 },
		{ "SUnreclaim:     ", slab }, { "KernelStack:    ", 0 },
		{ "PageTables:     ", 0 }, { "SecPageTables:  ", 0 },
		{ "NFS_Unstable:   ", 0 }, { "Bounce:         ", 0 },
		{ "WritebackTmp:   ", 0 }, { "CommitLimit:    ", total / 2 },
		{ "Committed_AS:   ", 0 }, { "VmallocTotal:   ", 34359738367ul },
		{ "VmallocUsed:    ", 0 }, { "VmallocChunk:   ", 0 },
		{ "Percpu:         ", 0 }, { "HardwareCorrupted: ", 0 },
		{ "AnonHugePages:  ", 0 }, { "ShmemHugePages: ", 0 },
		{ "ShmemPmdMapped: ", 0 }, { "FileHugePages:  ", 0 },
		{ "FilePmdMapped:  ", 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		seq_kb(s, lines[i].name, lines[i].name[16] ? 5 : 8, lines[i].kb);
	seq_puts(s, "HugePages_Total:       0\nHugePages_Free:        0\n"
		 "HugePages_Rsvd:        0\nHugePages_Surp:        0\n");
	seq_kb(s, "Hugepagesize:   ", 8, 2048);
	seq_kb(s, "Hugetlb:        ", 8, 0);
	seq_kb(s, "DirectMap4k:    ", 8, 0);
	seq_kb(s, "DirectMap2M:    ", 8, 0);
	seq_kb(s, "DirectMap1G:    ", 8, 0);
	return 0;
}

/* ---- stat, uptime, loadavg ---- */

static uint64_t uptime_ns(void)
{
	uint64_t ns = 0;

	clock_read_ns(CLOCK_BOOTTIME, &ns);
	return ns;
}

static unsigned long interrupts_total(void)
{
	unsigned long sum = 0;

	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		const struct cpu_stats *st = cpu_stats_of(cpu);

		sum += READ_ONCE(st->nmis);
		for (int v = 32; v < 256; v++)
			sum += READ_ONCE(st->irqs[v]);
	}
	return sum;
}

static uint64_t to_user_hz(uint64_t tsc)
{
	return tsc_to_ns(tsc) / (NSEC_PER_SEC / USER_HZ);
}

/* A CPU's time not idle counts as user time (pmuos keeps no split). */
static void stat_cpu_line(struct seq *s, uint64_t up, uint64_t idle)
{
	seq_printf(s, " %lu 0 0 %lu 0 0 0 0 0 0\n", up > idle ? up - idle : 0, idle);
}

static int stat_show(const struct proc_node *n, struct seq *s)
{
	uint64_t up = uptime_ns() / (NSEC_PER_SEC / USER_HZ);
	uint64_t realtime = 0;

	clock_read_ns(CLOCK_REALTIME, &realtime);
	seq_puts(s, "cpu ");
	stat_cpu_line(s, up * nr_cpus, to_user_hz(cpu_stats_idle_tsc()));
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		seq_printf(s, "cpu%d", cpu);
		stat_cpu_line(s, up, to_user_hz(READ_ONCE(cpu_stats_of(cpu)->idle_tsc)));
	}
	seq_printf(s, "intr %lu", interrupts_total());
	for (int irq = 0; irq < 16; irq++)
		seq_puts(s, " 0");		/* no device interrupt: the UART is polled */
	seq_printf(s, "\nctxt %lu\nbtime %lu\nprocesses %lu\nprocs_running 1\n"
		   "procs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n", context_switches,
		   (realtime - uptime_ns()) / NSEC_PER_SEC, tasks_forked);
	return 0;
}

static int uptime_show(const struct proc_node *n, struct seq *s)
{
	uint64_t up = uptime_ns() / (NSEC_PER_SEC / 100), idle = tsc_to_ns(cpu_stats_idle_tsc()) /
		      (NSEC_PER_SEC / 100);

	seq_printf(s, "%lu.%02lu %lu.%02lu\n", up / 100, up % 100, idle / 100, idle % 100);
	return 0;
}

static int loadavg_show(const struct proc_node *n, struct seq *s)
{
	/* runnable/all tasks (Linux's nr_threads), the last pid */
	seq_printf(s, "0.00 0.00 0.00 %d/%ld %d\n", current ? 1 : 0, tasks_alive, last_pid);
	return 0;
}

static int version_show(const struct proc_node *n, struct seq *s)
{
	seq_printf(s, "Linux version %s (pmuos@pmuos) (gcc version " __VERSION__ ") %s\n",
		   system_utsname.release, system_utsname.version);
	return 0;
}

/* ---- mounts ---- */

/* A mount's options: (mount options, super block options). */
static void mount_opts(const struct super_block *sb, char *mnt, char *super, size_t size)
{
	unsigned long kb = frame_stats.total * KB_PER_PAGE / 2, inodes = frame_stats.total / 2;

	if (!strcmp(sb->type, "rootfs")) {
		snprintf(mnt, size, "rw");
		snprintf(super, size, "rw,size=%luk,nr_inodes=%lu,inode64", kb, inodes);
	} else if (!strcmp(sb->type, "devtmpfs")) {
		snprintf(mnt, size, "rw,relatime");
		snprintf(super, size, "rw,size=%luk,nr_inodes=%lu,mode=755", kb, inodes);
	} else {
		snprintf(mnt, size, "rw,relatime");
		snprintf(super, size, "rw");
	}
}

static int mounts_each(struct seq *s, bool info)
{
	char *path = kmalloc(PATH_MAX_LEN);
	char mnt[64], super[96];

	if (!path)
		return -ENOMEM;
	for (struct super_block *sb = vfs_mounts; sb; sb = sb->next) {
		if (vfs_path_of(sb->root, path, PATH_MAX_LEN) < 0)
			continue;
		mount_opts(sb, mnt, super, sizeof(mnt));
		if (info) {
			int parent = sb->mountpoint ? sb->mountpoint->sb->mnt_id : sb->mnt_id;
			seq_printf(s, "%d %d 0:%u / %s %s - %s %s %s\n", sb->mnt_id, parent,
				   sb->dev, path, mnt, sb->type, sb->source, super);
		} else {
			/* the options once: the mount's, then the super block's past "rw" */
			seq_printf(s, "%s %s %s %s%s 0 0\n", sb->source, path, sb->type, mnt,
				   super + 2);
		}
	}
	kfree(path);
	return 0;
}

int proc_mounts_show(const struct proc_node *n, struct seq *s)
{
	return mounts_each(s, false);
}

int proc_mountinfo_show(const struct proc_node *n, struct seq *s)
{
	return mounts_each(s, true);
}

static int mounts_link_show(const struct proc_node *n, struct seq *s)
{
	seq_puts(s, "self/mounts");
	return 0;
}

static int filesystems_show(const struct proc_node *n, struct seq *s)
{
	seq_puts(s, "nodev\tsysfs\nnodev\ttmpfs\nnodev\tproc\nnodev\tdevtmpfs\nnodev\tramfs\n");
	return 0;
}

/* ---- kallsyms, interrupts ---- */

static int kallsyms_show(const struct proc_node *n, struct seq *s)
{
	const char *name = kallsyms_names;

	for (unsigned long i = 0; i < kallsyms_num && !s->overflow; i++) {
		seq_printf(s, "%016lx %c %s\n", proc_kptr_restrict >= 2 ? 0 : kallsyms_addresses[i],
			   kallsyms_types[i], name);
		name += strlen(name) + 1;
	}
	return 0;
}

static int interrupts_show(const struct proc_node *n, struct seq *s)
{
	/* arch_show_interrupts' lines for what pmuos takes, a column per CPU:
	 * NMIs, the local timer, spurious ones, PMIs, the self-IPI of deferred
	 * perf work (Linux's irq_work, IWI) and the reschedule and function-call
	 * IPIs. No device interrupt: the UART is polled. */
#define STAT(field)	offsetof(struct cpu_stats, field)
	static const struct { const char *name; size_t count; const char *what; } lines[] = {
		{ "NMI", STAT(nmis), "Non-maskable interrupts" },
		{ "LOC", STAT(irqs[IRQ_VECTOR_TIMER]), "Local timer interrupts" },
		{ "SPU", STAT(irqs[IRQ_VECTOR_SPURIOUS]), "Spurious interrupts" },
		{ "PMI", STAT(pmis), "Performance monitoring interrupts" },
		{ "IWI", STAT(irqs[IRQ_VECTOR_PERF_WORK]), "IRQ work interrupts" },
		{ "RES", STAT(irqs[IRQ_VECTOR_RESCHEDULE]), "Rescheduling interrupts" },
		{ "CAL", STAT(irqs[IRQ_VECTOR_CALL_FUNCTION]), "Function call interrupts" },
	};
#undef STAT

	seq_printf(s, "%*s", 3 + 8, "");
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		seq_printf(s, "CPU%-8d", cpu);
	seq_puts(s, "\n");
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		seq_printf(s, "%3s:", lines[i].name);
		for (int cpu = 0; cpu < nr_cpus; cpu++) {
			const char *st = (const char *)cpu_stats_of(cpu);

			seq_printf(s, " %10lu", READ_ONCE(*(const unsigned long *)(st +
										 lines[i].count)));
		}
		seq_printf(s, "   %s\n", lines[i].what);
	}
	seq_printf(s, "%3s: %10lu\n%3s: %10lu\n", "ERR", 0ul, "MIS", 0ul);
	return 0;
}

const struct proc_entry proc_root_entries[] = {
	PROC_DIR("sys", proc_sys_entries),
	PROC_LINK("mounts", mounts_link_show),
	PROC_FILE("stat", stat_show),
	PROC_FILE("uptime", uptime_show),
	PROC_FILE("cpuinfo", cpuinfo_show),
	PROC_FILE("loadavg", loadavg_show),
	PROC_FILE("meminfo", meminfo_show),
	PROC_FILE("version", version_show),
	PROC_FILE("kallsyms", kallsyms_show),
	PROC_FILE("interrupts", interrupts_show),
	PROC_FILE("filesystems", filesystems_show),
	PROC_LINK("self", proc_self_show),
	PROC_LINK("thread-self", proc_thread_self_show),
	{ 0 },
};
