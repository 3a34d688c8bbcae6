/* user/tests/faults.c: CPU exceptions in user mode become signals with Linux's si_code, si_addr and context. */
#include "ktap.h"

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define PAGE 4096UL

static sigjmp_buf recover;
static siginfo_t fault;
static volatile uintptr_t fault_rip;
static volatile int hits;
#define LONGJMP (-1)
static int skip_bytes; /* how far on_trap moves RIP before returning, or LONGJMP */

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	fault = *si;
	fault_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	hits++;
	if (skip_bytes == LONGJMP)
		siglongjmp(recover, 1);
	uc->uc_mcontext.gregs[REG_RIP] += (greg_t)skip_bytes; /* resumes through rt_sigreturn */
}

static void catch_signal(int sig, int skip)
{
	struct sigaction sa = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	memset(&fault, 0, sizeof(fault));
	fault_rip = 0;
	hits = 0;
	skip_bytes = skip;
}

/* Runs fn(arg) with sig caught; true when it faulted. The default action is back after. */
static bool faults(int sig, void (*fn)(uintptr_t), uintptr_t arg)
{
	catch_signal(sig, LONGJMP);
	if (sigsetjmp(recover, 1) == 0)
		fn(arg);
	signal(sig, SIG_DFL);
	return hits == 1;
}

/* noipa: a constant NULL seen by the optimiser could become a ud2 instead of a load. */
__attribute__((noipa)) static void load(uintptr_t addr)
{
	(void)*(volatile int *)addr;
}

__attribute__((noipa)) static void store(uintptr_t addr)
{
	*(volatile int *)addr = 1;
}

__attribute__((noipa)) static void call(uintptr_t addr)
{
	((void (*)(void))addr)();
}

__attribute__((noipa)) static void halt(uintptr_t unused)
{
	(void)unused;
	asm volatile("hlt" : : : "memory");
}

TEST(null_read_segv_maperr)
{
	ASSERT_TRUE(faults(SIGSEGV, load, 16));
	ASSERT_EQ(fault.si_signo, SIGSEGV);
	ASSERT_EQ(fault.si_code, SEGV_MAPERR);
	ASSERT_EQ(fault.si_addr, (void *)16);
}

/* siglongjmp out of the handler restores the mask saved by sigsetjmp: SIGSEGV works again. */
TEST(segv_handler_reentered)
{
	sigset_t now;

	ASSERT_TRUE(faults(SIGSEGV, store, 0));
	ASSERT_EQ(fault.si_addr, NULL);
	ASSERT_EQ(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	ASSERT_FALSE(sigismember(&now, SIGSEGV));
	ASSERT_TRUE(faults(SIGSEGV, store, 8));
	ASSERT_EQ(fault.si_addr, (void *)8);
}

TEST(write_to_read_only_accerr)
{
	char *p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(p, MAP_FAILED);
	ASSERT_TRUE(faults(SIGSEGV, store, (uintptr_t)p + 40));
	ASSERT_EQ(fault.si_code, SEGV_ACCERR);
	ASSERT_EQ(fault.si_addr, p + 40);
	ASSERT_EQ(munmap(p, PAGE), 0);
}

TEST(read_prot_none_accerr)
{
	char *p = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(p, MAP_FAILED);
	ASSERT_TRUE(faults(SIGSEGV, load, (uintptr_t)p));
	ASSERT_EQ(fault.si_code, SEGV_ACCERR);
	ASSERT_EQ(fault.si_addr, p);
	ASSERT_EQ(munmap(p, PAGE), 0);
}

TEST(touch_after_munmap_maperr)
{
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(p, MAP_FAILED);
	p[0] = 1;
	ASSERT_EQ(munmap(p, PAGE), 0);
	ASSERT_TRUE(faults(SIGSEGV, load, (uintptr_t)p + 100));
	ASSERT_EQ(fault.si_code, SEGV_MAPERR);
	ASSERT_EQ(fault.si_addr, p + 100);
}

/* Kernel memory is not the program's to map: Linux says MAPERR though the page is present. */
TEST(kernel_address_maperr)
{
	ASSERT_TRUE(faults(SIGSEGV, load, 0xffffffff80000000UL));
	ASSERT_EQ(fault.si_code, SEGV_MAPERR);
	ASSERT_EQ(fault.si_addr, (void *)0xffffffff80000000UL);
}

/* A non-canonical address raises #GP, not #PF: no address is known, si_code is SI_KERNEL. */
TEST(noncanonical_address_gp)
{
	ASSERT_TRUE(faults(SIGSEGV, load, 0x8000000000000000UL));
	ASSERT_EQ(fault.si_code, SI_KERNEL);
	ASSERT_EQ(fault.si_addr, NULL);
}

TEST(privileged_instruction_gp)
{
	ASSERT_TRUE(faults(SIGSEGV, halt, 0));
	ASSERT_EQ(fault.si_code, SI_KERNEL);
	ASSERT_EQ(fault.si_addr, NULL);
}

/* Data pages are not executable (NX): the fetch faults at the page itself. */
TEST(execute_data_page_accerr)
{
	unsigned char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(p, MAP_FAILED);
	p[0] = 0xc3; /* ret */
	ASSERT_TRUE(faults(SIGSEGV, call, (uintptr_t)p));
	ASSERT_EQ(fault.si_code, SEGV_ACCERR);
	ASSERT_EQ(fault.si_addr, p);
	ASSERT_EQ(fault_rip, (uintptr_t)p);
	ASSERT_EQ(munmap(p, PAGE), 0);
}

TEST(execute_after_mprotect)
{
	static const unsigned char code[] = { 0xb8, 0x2a, 0, 0, 0, 0xc3 }; /* mov $42, %eax; ret */
	unsigned char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(p, MAP_FAILED);
	memcpy(p, code, sizeof(code));
	ASSERT_EQ(mprotect(p, PAGE, PROT_READ | PROT_EXEC), 0);
	ASSERT_EQ(((int (*)(void))p)(), 42);
	ASSERT_EQ(munmap(p, PAGE), 0);
}

/* The handler steps over the instruction and returns: rt_sigreturn resumes at the new RIP. */
TEST(ud2_sigill)
{
	catch_signal(SIGILL, 2);
	asm volatile("ud2" : : : "memory");
	signal(SIGILL, SIG_DFL);
	ASSERT_EQ(hits, 1);
	ASSERT_EQ(fault.si_signo, SIGILL);
	ASSERT_EQ(fault.si_code, ILL_ILLOPN);
	ASSERT_EQ(fault.si_addr, (void *)fault_rip);
	ASSERT_EQ(((unsigned char *)fault_rip)[0], 0x0f);
	ASSERT_EQ(((unsigned char *)fault_rip)[1], 0x0b);
}

TEST(divide_by_zero_sigfpe)
{
	unsigned lo = 1, hi = 0;

	catch_signal(SIGFPE, 2);
	asm volatile("divl %%ecx" : "+a"(lo), "+d"(hi) : "c"(0) : "memory"); /* f7 f1 */
	signal(SIGFPE, SIG_DFL);
	ASSERT_EQ(hits, 1);
	ASSERT_EQ(fault.si_signo, SIGFPE);
	ASSERT_EQ(fault.si_code, FPE_INTDIV);
	ASSERT_EQ(fault.si_addr, (void *)fault_rip);
	ASSERT_EQ(((unsigned char *)fault_rip)[0], 0xf7);
	ASSERT_EQ(((unsigned char *)fault_rip)[1], 0xf1);
}

/* int3 is a trap: the saved RIP is already past it, so the handler returns to it unchanged. */
TEST(int3_sigtrap)
{
	catch_signal(SIGTRAP, 0);
	asm volatile("int3" : : : "memory");
	signal(SIGTRAP, SIG_DFL);
	ASSERT_EQ(hits, 1);
	ASSERT_EQ(fault.si_signo, SIGTRAP);
	ASSERT_EQ(fault.si_code, SI_KERNEL);
	ASSERT_EQ(((unsigned char *)fault_rip)[-1], 0xcc);
}
