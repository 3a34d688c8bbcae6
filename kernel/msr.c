/* MSR accesses that may fault: PMU probing on emulators and unknown CPUs. */
#include "x86.h"

/* The fixup (traps.c) resumes at label 2 with the vector in %rax. */
int rdmsr_safe(uint32_t msr, uint64_t *v)
{
	uint32_t lo, hi;
	int err;

	__asm__ volatile("xorl %[err], %[err]\n"
			 "1: rdmsr\n"
			 "jmp 3f\n"
			 "2: movl %%eax, %[err]\n"
			 "xorl %%eax, %%eax\n"
			 "xorl %%edx, %%edx\n"
			 "3:\n"
			 ".pushsection .extable, \"a\"\n"
			 ".balign 8\n"
			 ".quad 1b, 2b\n"
			 ".popsection\n"
			 : [err] "=&r"(err), "=a"(lo), "=d"(hi)
			 : "c"(msr));
	*v = (uint64_t)hi << 32 | lo;
	return err;
}

int wrmsr_safe(uint32_t msr, uint64_t v)
{
	uint32_t lo = (uint32_t)v;	/* in-out: the fixup overwrites %eax */
	int err;

	__asm__ volatile("xorl %[err], %[err]\n"
			 "1: wrmsr\n"
			 "jmp 3f\n"
			 "2: movl %%eax, %[err]\n"
			 "3:\n"
			 ".pushsection .extable, \"a\"\n"
			 ".balign 8\n"
			 ".quad 1b, 2b\n"
			 ".popsection\n"
			 : [err] "=&r"(err), "+a"(lo)
			 : "c"(msr), "d"((uint32_t)(v >> 32))
			 : "memory");
	return err;
}
