/* Every privileged x86 instruction the kernel uses, as a small static inline. */
#pragma once
#include <stdint.h>
#include <stdbool.h>

/* CR0/CR4/EFER bits (SDM Vol. 3A 2.5, 2.2.1) */
#define CR0_WP		(1ul << 16)
#define CR0_NW		(1ul << 29)
#define CR0_CD		(1ul << 30)
#define CR4_PGE		(1ul << 7)
#define CR4_PCE		(1ul << 8)
#define CR4_OSFXSR	(1ul << 9)
#define CR4_OSXMMEXCPT	(1ul << 10)
#define CR4_FSGSBASE	(1ul << 16)
#define CR4_SMEP	(1ul << 20)
#define CR4_SMAP	(1ul << 21)

#define MSR_EFER		0xc0000080
#define EFER_SCE		(1ul << 0)
#define EFER_LME		(1ul << 8)
#define EFER_LMA		(1ul << 10)
#define EFER_NXE		(1ul << 11)
#define MSR_STAR		0xc0000081
#define MSR_LSTAR		0xc0000082
#define MSR_SFMASK		0xc0000084
#define MSR_FS_BASE		0xc0000100
#define MSR_GS_BASE		0xc0000101
#define MSR_KERNEL_GS_BASE	0xc0000102
#define MSR_IA32_APIC_BASE	0x1b

#define X86_EFLAGS_TF	(1ul << 8)
#define X86_EFLAGS_IF	(1ul << 9)
#define X86_EFLAGS_DF	(1ul << 10)
#define X86_EFLAGS_AC	(1ul << 18)

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void cpuid_count(uint32_t leaf, uint32_t sub, uint32_t *a,
			       uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid"
			 : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(sub));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

/* One instruction that may fault, for the _safe variants: %[err] ends 0, or
 * the vector the fault's fixup (traps.c, through the exception table) leaves
 * in %eax, after the fixup's own instructions. */
#define ASM_SAFE(insn, fixup)						\
	"xorl %[err], %[err]\n"						\
	"1: " insn "\n"							\
	"jmp 3f\n"							\
	"2: movl %%eax, %[err]\n"					\
	fixup								\
	"3:\n"								\
	".pushsection .extable, \"a\"\n"				\
	".balign 8\n"							\
	".quad 1b, 2b\n"							\
	".popsection\n"

/* Probing variants: return 0, or the exception vector (#GP = 13) the access
 * raised. */
int rdmsr_safe(uint32_t msr, uint64_t *v);
int wrmsr_safe(uint32_t msr, uint64_t v);

/* FXRSTOR of a 512-byte, 16-aligned image that may be refused: MXCSR bits
 * outside the CPU's MXCSR_MASK raise #GP (SDM Vol. 1 11.6.6). 0 or the
 * vector, as the MSR variants. */
static inline int fxrstor_safe(const void *image)
{
	int err;

	__asm__ volatile(ASM_SAFE("fxrstor64 %[fx]", "")
			 : [err] "=&r"(err)
			 : [fx] "m"(*(const uint8_t (*)[512])image)
			 : "rax");
	return err;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

#define DEFINE_CR(n)							\
	static inline uint64_t read_cr##n(void)				\
	{								\
		uint64_t v;						\
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));	\
		return v;						\
	}								\
	static inline void write_cr##n(uint64_t v)			\
	{								\
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); \
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

/* Debug registers DR0-DR3 (addresses), DR6 (status), DR7 (control). */
#define DEFINE_DR(n)							\
	static inline uint64_t read_dr##n(void)				\
	{								\
		uint64_t v;						\
		__asm__ volatile("mov %%db" #n ", %0" : "=r"(v));	\
		return v;						\
	}								\
	static inline void write_dr##n(uint64_t v)			\
	{								\
		__asm__ volatile("mov %0, %%db" #n : : "r"(v) : "memory"); \
	}
DEFINE_DR(0)
DEFINE_DR(1)
DEFINE_DR(2)
DEFINE_DR(3)
DEFINE_DR(6)
DEFINE_DR(7)
#undef DEFINE_DR

static inline void invlpg(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
static inline void pause(void) { __asm__ volatile("pause"); }
/* STI's one-instruction interrupt shadow makes "sti; hlt" race-free. */
static inline void sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }


static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static inline bool irqs_enabled(void)
{
	return read_rflags() & X86_EFLAGS_IF;
}

/* Save and disable interrupts; restore puts IF back as it was. */
static inline uint64_t irq_save(void)
{
	uint64_t f = read_rflags();
	cli();
	return f;
}

static inline void irq_restore(uint64_t flags)
{
	if (flags & X86_EFLAGS_IF)
		sti();
}

static inline void lgdt(const void *p) { __asm__ volatile("lgdt (%0)" : : "r"(p) : "memory"); }
static inline void lidt(const void *p) { __asm__ volatile("lidt (%0)" : : "r"(p) : "memory"); }
static inline void ltr(uint16_t sel) { __asm__ volatile("ltr %0" : : "r"(sel)); }

static inline void barrier(void) { __asm__ volatile("" ::: "memory"); }
