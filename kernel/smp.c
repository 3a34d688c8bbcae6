/* Bringing up the application processors (SDM Vol. 3A 9.4.4, "MP
 * Initialization Example"): for each CPU the MADT lists besides this one,
 * the boot CPU allocates its struct cpu, per-CPU area, idle stack and IST
 * stacks, fills the trampoline's slots (trampoline.asm) and sends INIT,
 * then STARTUP with the trampoline's page; the CPU enters long mode, loads
 * the kernel's page tables, its own GDT, TSS and GS base, the IDT, enables
 * its LAPIC, says it is online and halts with interrupts on, waiting for
 * work. One CPU starts at a time: they share the trampoline page.
 *
 * Each AP sets up its own LAPIC timer (its timer queue) as it comes up,
 * its PMU state when x86_pmu_init sends it x86_pmu_init_cpu, and runs its
 * run queue's tasks from its idle loop (sched_idle). */
#include "smp.h"
#include "spinlock.h"
#include "traps.h"
#include "acpi.h"
#include "apic.h"
#include "cmdline.h"
#include "cpu.h"
#include "gdt.h"
#include "idt.h"
#include "kernel_lock.h"
#include "multiboot.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "syscall.h"
#include "timer.h"
#include "tsc.h"
#include "x86.h"
#include "lib/string.h"
#include <asm-generic/errno.h>
#include "mm/frames.h"
#include "mm/paging.h"
#include "mm/vmalloc.h"

#define AP_STACK_SIZE		(16 * KiB)
#define LOW_LIMIT		0xa0000		/* conventional memory's end */
#define INIT_DELAY_NS		10000000	/* SDM 9.4.4.1: 10 ms after INIT */
#define SIPI_DELAY_NS		200000		/* and 200 us after each STARTUP */
#define AP_TIMEOUT_NS		100000000	/* then give it 100 ms to report */

extern char trampoline_start[], trampoline_end[], tr_gdt[], tr_long[];
extern uint32_t tr_gdt_ptr[];	/* at +2: the GDT's base (after the 16-bit limit) */
extern uint32_t tr_far[];
extern uint64_t tr_cr3[], tr_efer[], tr_stack[], tr_cpu[], tr_entry[];

/* The trampoline's page: free RAM below 1 MiB (the STARTUP vector is its
 * page number) that neither the boot info nor a module occupies. */
static uint64_t find_low_page(void)
{
	for (uint64_t pa = PAGE_SIZE; pa < LOW_LIMIT; pa += PAGE_SIZE) {
		bool ram = false, used = false;
		for (int i = 0; i < boot_info.nr_mmap && !ram; i++) {
			const struct boot_mem_region *m = &boot_info.mmap[i];
			ram = m->type == MULTIBOOT_MEMORY_AVAILABLE && m->base <= pa &&
			      pa + PAGE_SIZE <= m->base + m->length;
		}
		used = pa < boot_info.info_phys + boot_info.info_size &&
		       boot_info.info_phys < pa + PAGE_SIZE;
		for (int i = 0; i < boot_info.nr_modules && !used; i++)
			used = pa < boot_info.modules[i].end && boot_info.modules[i].start < pa + PAGE_SIZE;
		if (ram && !used)
			return pa;
	}
	return 0;
}

/* Page tables for the trampoline's switch to long mode: the kernel's upper
 * half, and the first 2 MiB identity-mapped (executable) for the page. */
static uint64_t tables[3];	/* PML4, PDPT, PD */

static uint64_t build_tables(void)
{
	for (int i = 0; i < 3; i++) {
		tables[i] = frame_alloc_zeroed();
		assert(tables[i] && tables[i] < 4 * GiB);	/* CR3 is loaded from 32 bits */
	}
	uint64_t *pml4 = phys_to_virt(tables[0]), *kernel = phys_to_virt(kernel_pml4_phys);

	memcpy(pml4 + 256, kernel + 256, 256 * sizeof(*pml4));
	pml4[0] = tables[1] | PTE_P | PTE_W;
	((uint64_t *)phys_to_virt(tables[1]))[0] = tables[2] | PTE_P | PTE_W;
	((uint64_t *)phys_to_virt(tables[2]))[0] = 0 | PTE_P | PTE_W | PTE_PS;
	return tables[0];
}

static void call_function_interrupt(struct pt_regs *regs);
static void call_boxes_init(void);

static void on_delay(struct timer *t, struct pt_regs *regs)
{
}

/* Halt until the timer fires or *flag is set (by the CPU being started). */
static void wait_ns(uint64_t ns, volatile bool *flag)
{
	struct timer t = { .fn = on_delay };

	timer_add(&t, rdtsc() + ns_to_tsc(ns));
	for (;;) {
		cli();
		if (!t.pending || (flag && *flag))
			break;
		sti_hlt();	/* in QEMU's round robin the halted CPU lets the other run */
	}
	if (t.pending)
		timer_del(&t);
	sti();
}

static void __noreturn smp_ap_entry(struct cpu *c)
{
	write_cr3(kernel_pml4_phys);
	gdt_init(c);		// segments, TSS, GS base
	assert(this_cpu() == c);
	idt_load();		// the one IDT
	cpu_init_features();	// NX, SMEP, SMAP, SSE
	syscall_init_cpu();	// SYSCALL MSRs
	apic_init_cpu();	// its LAPIC
	timer_init_cpu();	// its LAPIC timer: its own timer queue
	assert(apic_id() == c->apic_id);	/* the MADT's id is the CPU's */
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
	sti();
	sched_idle(NULL, NULL);	// its run queue's tasks, for ever
	panic("idle loop of CPU %d returned", c->id);
}

/* Where the trampoline's symbol sym lies in its copy at physical page. */
#define TR_SLOT(page, sym) \
	((void *)((char *)phys_to_virt(page) + ((char *)(sym) - trampoline_start)))

static void copy_trampoline(uint64_t page, uint64_t cr3)
{
	memcpy(phys_to_virt(page), trampoline_start, trampoline_end - trampoline_start);
	*(uint32_t *)((char *)TR_SLOT(page, tr_gdt_ptr) + 2) =
		page + (uint32_t)(tr_gdt - trampoline_start);
	*(uint32_t *)TR_SLOT(page, tr_far) = page + (uint32_t)(tr_long - trampoline_start);
	*(uint64_t *)TR_SLOT(page, tr_cr3) = cr3;
	*(uint64_t *)TR_SLOT(page, tr_efer) = rdmsr(MSR_EFER) & ~EFER_LMA;
	*(uint64_t *)TR_SLOT(page, tr_entry) = (uint64_t)smp_ap_entry;
}

/* INIT, then STARTUP twice unless the first one worked (SDM 9.4.4.1). */
static bool start_ap(struct cpu *c, uint64_t page)
{
	void *stack = vmalloc_stack(AP_STACK_SIZE);

	assert(stack);
	gdt_alloc_ist(c);
	*(uint64_t *)TR_SLOT(page, tr_stack) = (uint64_t)stack;
	*(uint64_t *)TR_SLOT(page, tr_cpu) = (uint64_t)c;
	apic_send_ipi(c->apic_id, APIC_DM_INIT | APIC_ICR_LEVEL_ASSERT);
	wait_ns(INIT_DELAY_NS, NULL);
	for (int i = 0; i < 2 && !c->online; i++) {
		apic_send_ipi(c->apic_id, APIC_DM_STARTUP | APIC_ICR_LEVEL_ASSERT | page >> PAGE_SHIFT);
		wait_ns(SIPI_DELAY_NS, &c->online);
	}
	wait_ns(AP_TIMEOUT_NS, &c->online);
	return __atomic_load_n(&c->online, __ATOMIC_ACQUIRE);
}

void smp_boot_aps(void)
{
	unsigned long max = cmdline_ulong("maxcpus", NR_CPUS);
	struct cpu *bsp = this_cpu();
	uint64_t page = 0;
	bool stuck = false;

	bsp->apic_id = apic_id();
	irq_register_lockless(IRQ_VECTOR_CALL_FUNCTION, call_function_interrupt);
	for (int i = 0; i < acpi_madt.nr_cpus && (unsigned long)nr_cpus < MIN(max, NR_CPUS); i++) {
		uint32_t id = acpi_madt.apic_ids[i];
		if (id == bsp->apic_id)
			continue;
		if (id > 0xff && !apic_is_x2apic()) {
			printk("pmuos: SMP: APIC id %u needs x2APIC: not started\n", id);
			continue;
		}
		if (!page) {
			page = find_low_page();
			if (!page) {
				printk("pmuos: SMP: no free page below 640 KiB: one CPU\n");
				return;
			}
			copy_trampoline(page, build_tables());
		}
		kernel_lock_enable();	/* before another CPU runs kernel code */
		struct cpu *c = percpu_alloc(nr_cpus, id);
		if (!start_ap(c, page)) {
			/* It may still wake up later and use its struct, its stacks
			 * and the trampoline: keep them all, start no more. */
			printk("pmuos: SMP: CPU with APIC id %u did not start\n", id);
			stuck = true;
			break;
		}
		nr_cpus++;
	}
	if (page && !stuck) {
		memset(phys_to_virt(page), 0, PAGE_SIZE);
		for (int i = 0; i < 3; i++)
			frame_free(tables[i]);
	}
	call_boxes_init();
	printk("pmuos: SMP: %d CPU%s up (", nr_cpus, nr_cpus == 1 ? "" : "s");
	for (int i = 0; i < nr_cpus; i++)
		printk("%sAPIC id %u", i ? ", " : "", cpus[i]->apic_id);
	printk(")\n");
}

/* ---- calls on another CPU ---- */

struct smp_call {
	void (*fn)(void *arg);
	void *arg;
	bool done;
};

/* Each CPU's mailbox: one request at a time, the lock held by its sender
 * from posting it until it is done. */
struct call_box {
	struct spinlock lock;
	struct smp_call *req;
	unsigned long taken;
};
static DEFINE_PER_CPU(struct call_box, call_box);

/* Before any CPU sends a call: the name is the boxes' lockdep class. */
static void call_boxes_init(void)
{
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		per_cpu_ptr(&call_box, cpu)->lock.name = "call box";
}

void smp_poll_calls(void)
{
	struct call_box *box = this_cpu_ptr(&call_box);
	struct smp_call *req = __atomic_load_n(&box->req, __ATOMIC_ACQUIRE);

	if (!req)
		return;
	box->req = NULL;
	box->taken++;
	req->fn(req->arg);
	__atomic_store_n(&req->done, true, __ATOMIC_RELEASE);
}

static void call_function_interrupt(struct pt_regs *regs)
{
	smp_poll_calls();
}

int smp_call_function_single(int cpu, void (*fn)(void *arg), void *arg)
{
	assert(!in_nmi());
	if (cpu < 0 || cpu >= nr_cpus || !cpus[cpu] || !cpus[cpu]->online)
		return -ENXIO;
	uint64_t flags = irq_save();
	if (cpu == smp_processor_id()) {
		fn(arg);
		irq_restore(flags);
		return 0;
	}
	struct call_box *box = per_cpu_ptr(&call_box, cpu);
	struct smp_call req = { .fn = fn, .arg = arg };

	/* Interrupts stay off: a task switch while the box is held would
	 * leave the next sender spinning on this CPU. */
	while (!spin_trylock(&box->lock))
		smp_poll_calls();	/* another sender holds it: take our own calls */
	__atomic_store_n(&box->req, &req, __ATOMIC_RELEASE);
	apic_send_ipi(cpus[cpu]->apic_id, APIC_DM_FIXED | IRQ_VECTOR_CALL_FUNCTION);
	while (!__atomic_load_n(&req.done, __ATOMIC_ACQUIRE)) {
		smp_poll_calls();
		pause();
	}
	spin_unlock(&box->lock);
	irq_restore(flags);
	return 0;
}

unsigned long smp_calls_taken(int cpu)
{
	return per_cpu_ptr(&call_box, cpu)->taken;
}
