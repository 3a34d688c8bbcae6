/* Per-CPU state, reached through one accessor: this_cpu() reads the CPU's own
 * struct cpu through the GS base (IA32_GS_BASE while in the kernel; entry.asm
 * swaps in the user's with SWAPGS on every return to user mode and back on
 * every entry). Subsystems keep their own per-CPU variables with
 * DEFINE_PER_CPU and reach them through this_cpu_ptr()/per_cpu_ptr(). */
#pragma once
#include "gdt.h"
#include "kernel.h"

struct task;

#define NR_CPUS		64

/* SDM Vol. 3A 8.7, Figure 8-11 */
struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iopb;
} __packed;
static_assert(sizeof(struct tss) == 104, "SDM Vol. 3A 8.7, Figure 8-11");

/*
 * One per CPU. The first fields are read by entry.asm at fixed GS offsets
 * (CPU_* there, pinned by the static_asserts below): keep them first.
 * A CPU's own fields are touched only by that CPU, with interrupts off where
 * an interrupt handler also writes them; other CPUs read id, apic_id and
 * online.
 */
struct cpu {
	struct cpu *self;		/* this_cpu() reads it: GS:0 */
	uint64_t syscall_rsp;		/* SYSCALL's stack: the running task's kernel
					 * stack top less the frame's SS slot */
	uint64_t user_rsp;		/* SYSCALL's scratch for the user RSP */
	volatile uint32_t user_work;	/* USER_WORK_* (entry_work.h): the fast exit's test */
	uint32_t pad0;
	/* entry.asm's exit stamp (entry_work.h) */
	uint64_t user_return_tsc;
	int64_t user_return_timer_abs, user_return_timer_rel;
	volatile uint32_t *user_return_timer_reg;

	/* Not touched by entry.asm */
	int id;				/* 0 .. nr_cpus - 1, in MADT order, the BSP first */
	uint32_t apic_id;
	volatile bool online;		/* up and parked in its idle loop (or the BSP) */
	int nmi_nesting;		/* inside nmi_dispatch: in_nmi() */
	uintptr_t percpu_offset;	/* per_cpu_ptr()'s: this CPU's copy of .bss.percpu */
	struct task *curr;		/* the running task; NULL: the kernel's own loop */
	uint64_t idle_rsp;		/* the scheduler loop's stack while a task runs */
	int idle_lock_depth;		/* the idle loop's holds of the kernel lock */
	struct tss tss;
	uint64_t gdt[10] __aligned(16);	/* the same flat segments on every CPU, its own TSS */
	uint64_t ist_tops[IST_COUNT + 1];
};

static_assert(offsetof(struct cpu, self) == 0, "entry.asm CPU_SELF");
static_assert(offsetof(struct cpu, syscall_rsp) == 8, "entry.asm CPU_SYSCALL_RSP");
static_assert(offsetof(struct cpu, user_rsp) == 16, "entry.asm CPU_USER_RSP");
static_assert(offsetof(struct cpu, user_work) == 24, "entry.asm CPU_USER_WORK");
static_assert(offsetof(struct cpu, user_return_tsc) == 32, "entry.asm CPU_USER_RETURN_TSC");
static_assert(offsetof(struct cpu, user_return_timer_abs) == 40, "entry.asm CPU_USER_RETURN_TIMER_ABS");
static_assert(offsetof(struct cpu, user_return_timer_rel) == 48, "entry.asm CPU_USER_RETURN_TIMER_REL");
static_assert(offsetof(struct cpu, user_return_timer_reg) == 56, "entry.asm CPU_USER_RETURN_TIMER_REG");

extern struct cpu *cpus[NR_CPUS];	/* by id; NULL past nr_cpus */
extern int nr_cpus;			/* found in the MADT (1 without ACPI) */

/* The running CPU's struct. Not volatile, so the compiler may reuse one
 * read; the dummy input (cpus[0], as if the asm read it) makes it read
 * again after any call or barrier, since once tasks migrate a task may
 * resume on another CPU after schedule(). */
static inline struct cpu *this_cpu(void)
{
	struct cpu *c;

	__asm__("movq %%gs:0, %0" : "=r"(c) : "m"(cpus[0]));
	return c;
}

/* The running CPU's id in one load, as get_current() reads current. */
static inline int smp_processor_id(void)
{
	int id;

	__asm__("movl %%gs:%c1, %0" : "=r"(id) : "i"(offsetof(struct cpu, id)), "m"(cpus[0]));
	return id;
}

/*
 * Per-CPU variables of subsystems: DEFINE_PER_CPU puts the variable in
 * .bss.percpu, which is CPU 0's copy; every other CPU gets a zeroed copy of
 * the whole section when it is brought up (smp.c), so per-CPU variables
 * start zeroed (no initialisers) and are set up by code that runs on, or
 * for, each CPU.
 */
#define DEFINE_PER_CPU(type, name)	__section(".bss.percpu") __typeof__(type) name
#define DECLARE_PER_CPU(type, name)	extern __typeof__(type) name
#define per_cpu_ptr(ptr, cpu)	\
	((__typeof__(ptr))((uintptr_t)(ptr) + cpus[cpu]->percpu_offset))
#define this_cpu_ptr(ptr)	\
	((__typeof__(ptr))((uintptr_t)(ptr) + this_cpu()->percpu_offset))

/* The running task in one load (GS-relative, as this_cpu()'s own), read
 * again after any call or barrier for the reason this_cpu() gives. */
static inline struct task *get_current(void)
{
	struct task *t;

	__asm__("movq %%gs:%c1, %0" : "=r"(t) : "i"(offsetof(struct cpu, curr)), "m"(cpus[0]));
	return t;
}
#define current get_current()

/* The only store to curr: its "memory" clobber keeps the compiler from
 * reusing a get_current() read from before it. */
static inline void set_current(struct task *t)
{
	__asm__ volatile("movq %0, %%gs:%c1" : : "r"(t), "i"(offsetof(struct cpu, curr)) : "memory");
}

static inline bool in_nmi(void)
{
	return this_cpu()->nmi_nesting > 0;
}

/* The boot CPU's struct, and the GS base pointed at it: kmain's first step. */
void percpu_init_boot(void);
/* A zeroed struct cpu and per-CPU area for the CPU id (the boot CPU
 * allocates them before it starts that CPU). */
struct cpu *percpu_alloc(int id, uint32_t apic_id);
/* Point this CPU's GS base at c (kernel mode; the user's base lives in
 * MSR_KERNEL_GS_BASE meanwhile). */
void percpu_load(struct cpu *c);
