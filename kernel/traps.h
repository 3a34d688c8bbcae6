/* The saved register frame of every kernel entry, and exception dispatch. */
#pragma once
#include "kernel.h"

/* Built by entry.asm for exceptions, interrupts and syscalls alike. The
 * general registers follow Linux's struct pt_regs order. */
struct pt_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi;
	uint64_t vector;
	uint64_t error_code;	/* exceptions; the syscall number for syscalls */
	uint64_t rip, cs, rflags, rsp, ss;
};
static_assert(sizeof(struct pt_regs) == 22 * 8, "entry.asm frame layout");
static_assert(offsetof(struct pt_regs, vector) == 15 * 8, "entry.asm frame layout");
static_assert(offsetof(struct pt_regs, rip) == 17 * 8, "entry.asm frame layout");

/* Exception vectors (SDM Vol. 3A 6.3.1) */
enum {
	X86_TRAP_DE = 0, X86_TRAP_DB = 1, X86_TRAP_NMI = 2, X86_TRAP_BP = 3,
	X86_TRAP_OF = 4, X86_TRAP_BR = 5, X86_TRAP_UD = 6, X86_TRAP_NM = 7,
	X86_TRAP_DF = 8, X86_TRAP_TS = 10, X86_TRAP_NP = 11, X86_TRAP_SS = 12,
	X86_TRAP_GP = 13, X86_TRAP_PF = 14, X86_TRAP_MF = 16, X86_TRAP_AC = 17,
	X86_TRAP_MC = 18, X86_TRAP_XF = 19,
};

/* Page-fault error code bits (SDM Vol. 3A 4.7) */
#define PF_PROT		(1u << 0)
#define PF_WRITE	(1u << 1)
#define PF_USER		(1u << 2)
#define PF_INSTR	(1u << 4)

/* Interrupt vectors used by the kernel */
#define IRQ_VECTOR_COM1		0x34	/* serial input: the lowest priority class in use */
#define IRQ_VECTOR_TIMER	0xec
#define IRQ_VECTOR_PERF_WORK	0xf6	/* self-IPI: perf work an NMI deferred */
#define IRQ_VECTOR_RESCHEDULE	0xf7	/* IPI: look at the run queue again (sched.c) */
#define IRQ_VECTOR_CALL_FUNCTION 0xf8	/* IPI: run a function on another CPU (smp.c) */
#define IRQ_VECTOR_SPURIOUS	0xff

static inline bool user_mode(const struct pt_regs *regs)
{
	return (regs->cs & 3) == 3;
}

/* A kernel instruction allowed to fault, and where to resume when it does
 * (the user-copy routines, the _safe MSR accessors). */
struct extable_entry {
	uint64_t insn;
	uint64_t fixup;
};

typedef void (*irq_handler_t)(struct pt_regs *regs);

void irq_register(unsigned vector, irq_handler_t handler);
/* The same for an IPI whose handler takes no kernel lock (kernel_lock.c):
 * it must touch only per-CPU state or what its sender waits on. */
void irq_register_lockless(unsigned vector, irq_handler_t handler);
/* For an in-kernel fault: resume at its fixup and return true, if it has one.
 * The fixup finds the exception vector in %rax. */
bool fixup_exception(struct pt_regs *regs);
/* The C side of entry.asm: every exception and interrupt lands here;
 * entry_tsc is the TSC of its stub's first instruction. */
void trap_dispatch(struct pt_regs *regs, uint64_t entry_tsc);
