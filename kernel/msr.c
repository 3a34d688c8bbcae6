/* MSR accesses that may fault: PMU probing on emulators and unknown CPUs. */
#include "x86.h"

int rdmsr_safe(uint32_t msr, uint64_t *v)
{
	uint32_t lo, hi;
	int err;

	__asm__ volatile(ASM_SAFE("rdmsr", "xorl %%eax, %%eax\n xorl %%edx, %%edx\n")
			 : [err] "=&r"(err), "=a"(lo), "=d"(hi)
			 : "c"(msr));
	*v = (uint64_t)hi << 32 | lo;
	return err;
}

int wrmsr_safe(uint32_t msr, uint64_t v)
{
	uint32_t lo = (uint32_t)v;	/* in-out: the fixup overwrites %eax */
	int err;

	__asm__ volatile(ASM_SAFE("wrmsr", "")
			 : [err] "=&r"(err), "+a"(lo)
			 : "c"(msr), "d"((uint32_t)(v >> 32))
			 : "memory");
	return err;
}
