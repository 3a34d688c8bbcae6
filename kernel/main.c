/* The kernel's entry from boot/entry.asm: bring the machine up in order, test
 * it (unless ktest=0), run /init (which runs the run list), send /out to
 * the host, halt with init's status. */
#include "acpi.h"
#include "apic.h"
#include "clock.h"
#include "cmdline.h"
#include "console.h"
#include "cpu.h"
#include "gdt.h"
#include "hostout.h"
#include "idt.h"
#include "ioapic.h"
#include "ktest.h"
#include "fs/initramfs.h"
#include "multiboot.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "perf/perf.h"
#include "pmu/breakpoint.h"
#include "pmu/itrace.h"
#include "pmu/pmu.h"
#include "pmu/sw.h"
#include "syscall.h"
#include "task.h"
#include "timer.h"
#include "tsc.h"
#include "x86.h"
#include "mm/frames.h"
#include "mm/vmalloc.h"
#include "mm/paging.h"

static void print_banner(void)
{
	printk("pmuos: booted by %s, command line \"%s\"\n", boot_info.loader,
	       boot_info.cmdline);
	cpu_print_banner();
	printk("pmuos: memory: %lu MiB usable in %lu frames, %d modules, ACPI RSDP %s\n",
	       frame_stats.total * PAGE_SIZE / MiB, frame_stats.total,
	       boot_info.nr_modules, boot_info.rsdp_size ? "present" : "absent");
	printk("pmuos: APIC: %s, id %u; TSC %lu kHz (%s); LAPIC timer %lu kHz%s\n",
	       apic_is_x2apic() ? "x2APIC" : "xAPIC", apic_id(), tsc_hz / 1000,
	       tsc_source, apic_timer_hz / 1000,
	       cpu_caps.tsc_deadline ? ", TSC-deadline mode" : "");
}

void kmain(uint32_t magic, uint32_t info_phys)
{
	percpu_init_boot();	// this CPU's struct cpu: the GS base
	console_init();		// serial console
	gdt_init(this_cpu());	// segments, TSS
	idt_init();		// exception and interrupt gates
	multiboot_parse(magic, info_phys);	// memory map, modules
	hostout_init();		// files to the host: COM2
	cpu_init();		// CPUID, NX, SMEP, SMAP
	paging_init();		// direct map, W^X kernel image
	frames_init();		// physical memory
	vmalloc_init();		// the vmalloc area's page tables
	fork_init();		// task limits
	gdt_init_ist();		// NMI, #DF, #MC stacks
	pic_disable();		// legacy PIC off
	apic_init();		// local APIC
	ioapic_init();		// I/O APIC
	console_rx_init();	// serial input interrupt
	tsc_init();		// TSC and LAPIC timer frequency
	clock_init();		// the clocks
	timer_init();		// deadline queue
	perf_init();		// perf core
	sw_pmu_init();		// software events
	perf_persistent_init();	// persistent events
	itrace_init();		// instruction trace PMU
	sti();

	printk("pmuos 0.1\n");
	print_banner();
	acpi_init();		// RSDP, MADT
	smp_boot_aps();		// the other CPUs, in their idle loops
	syscall_init();		// SYSCALL/SYSRET (the fast table: the kernel lock or not)
	sched_init();		// run queues, reschedule IPI
	x86_pmu_init();		// hardware PMU, or its model (after itrace: entry_work order)
	hw_breakpoint_init();	// breakpoint PMU: DR0-DR3
	fs_init();		// initramfs, /dev, /proc, /sys
	if (cmdline_ulong("ktest", 1))	// make run passes ktest=0
		ktest_run_all();
	hostout_selftest();	// hostout.selftest=N
	int status = task_run_init();	// /init and the run list
	outdir_send("/out");	// files for the host
	machine_halt(status);
}
