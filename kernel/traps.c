/* Exception and interrupt dispatch, the register dump, the exception fixup table. */
#include "traps.h"
#include "kernel_lock.h"
#include "apic.h"
#include "entry_work.h"
#include "cpu_stats.h"
#include "nmi.h"
#include "panic.h"
#include "pmu/breakpoint.h"
#include "printk.h"
#include "sched.h"
#include "signal.h"
#include "task.h"
#include "x86.h"

static const char *const exception_names[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow",
	"bound range exceeded", "invalid opcode", "device not available",
	"double fault", "coprocessor segment overrun", "invalid TSS",
	"segment not present", "stack-segment fault", "general protection fault",
	"page fault", "reserved", "x87 floating-point error", "alignment check",
	"machine check", "SIMD floating-point exception", "virtualization exception",
	"control protection exception",
};

static irq_handler_t irq_handlers[256];


/* Vectors whose handlers take no kernel lock (kernel_lock.c). */
static bool irq_lockless[256];

void irq_register(unsigned vector, irq_handler_t handler)
{
	assert(vector >= 32 && vector < 256 && !irq_handlers[vector]);
	irq_handlers[vector] = handler;
}

void irq_register_lockless(unsigned vector, irq_handler_t handler)
{
	irq_register(vector, handler);
	irq_lockless[vector] = true;
}

static const struct extable_entry *search_extable(uint64_t rip)
{
	extern const struct extable_entry __extable_start[], __extable_end[];

	for (const struct extable_entry *e = __extable_start; e < __extable_end; e++)
		if (e->insn == rip)
			return e;
	return NULL;
}

bool fixup_exception(struct pt_regs *regs)
{
	const struct extable_entry *e = search_extable(regs->rip);

	if (!e)
		return false;
	regs->rax = regs->vector;
	regs->rip = e->fixup;
	return true;
}

static void kernel_exception(struct pt_regs *regs)
{
	const char *name = exception_names[regs->vector];

	/* A user copy touching a not-yet-populated anonymous page: provide
	 * it and retry, as a user access would. Only at the instructions the
	 * exception table lists: anywhere else it is a kernel bug. */
	if (regs->vector == X86_TRAP_PF && search_extable(regs->rip) &&
	    task_kernel_fault_on_user(regs, read_cr2()))
		return;
	if (fixup_exception(regs))
		return;
	if (regs->vector == X86_TRAP_PF)
		panic_regs(regs, "%s at address %016lx (%s %s)", name, read_cr2(),
			   regs->error_code & PF_WRITE ? "write" : "read",
			   regs->error_code & PF_PROT ? "protection" : "not present");
	panic_regs(regs, "%s in kernel mode", name ? name : "reserved exception");
}

void trap_dispatch(struct pt_regs *regs, uint64_t entry_tsc)
{
	unsigned v = regs->vector;

	if (user_mode(regs))
		user_entry_work(regs, entry_tsc);	/* NMIs too: time stamps only */
	if (v == X86_TRAP_NMI) {
		nmi_dispatch(regs);
		return;
	}
	/* A first touch of anonymous memory needs no kernel lock (most faults
	 * of a threaded program); every other exception and interrupt may touch
	 * what it guards, but the IPIs must not wait for it (their senders may
	 * hold it). */
	if (v == X86_TRAP_PF && user_mode(regs) && task_user_fault_first(regs))
		return;
	bool locked = v < 32 || !irq_lockless[v];
	if (locked)
		kernel_lock();
	if (v == X86_TRAP_DB && hw_breakpoint_handler(regs)) {
		/* breakpoint hits alone: nothing for the program or the tracer */
	} else if (v < 32) {
		if (user_mode(regs))
			task_user_exception(regs);
		else
			kernel_exception(regs);
	} else if (this_cpu_stats()->irqs[v]++, v != IRQ_VECTOR_SPURIOUS) {	/* spurious: no EOI (SDM Vol. 3A 11.9) */
		if (irq_handlers[v])
			irq_handlers[v](regs);
		else
			printk("pmuos: unexpected interrupt vector %u\n", v);
		irq_exit_work(regs);
		apic_eoi();
	}
	if (locked)
		kernel_unlock();
	/* entry.asm's trap_return runs the exit work on the way to user mode. */
}
