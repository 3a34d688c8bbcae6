/* user/tests/startup.c: what the ELF loader hands a new process: argv, auxv, program headers, stack, TLS. */
#include "ktap.h"

#include <asm/prctl.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

extern const Elf64_Ehdr __ehdr_start; /* the linker's name for the loaded ELF header */
extern char _start[];                 /* musl's entry point, in crt1.o or rcrt1.o */
extern char **environ;

/* Arguments the suite passes (USER_ARGS_startup in user/user.mk). */
TEST(argv_from_command_line)
{
	const char *base = strrchr(ktap_argv[0], '/');

	base = base ? base + 1 : ktap_argv[0];
	ASSERT_EQ(strncmp(base, "startup", 7), 0);
	ASSERT_EQ(ktap_argc, 3);
	ASSERT_STREQ(ktap_argv[1], "alpha");
	ASSERT_STREQ(ktap_argv[2], "beta");
	ASSERT_EQ(ktap_argv[3], NULL);
}

/* Linux's initial stack: argv, NULL, envp, NULL, then the auxv pairs. */
TEST(auxv_follows_envp)
{
	char **e = environ;

	ASSERT_EQ(e, ktap_argv + ktap_argc + 1);
	while (*e)
		e++;
	const Elf64_auxv_t *a = (const Elf64_auxv_t *)(e + 1);
	for (; a->a_type != AT_NULL; a++)
		if (a->a_type == AT_PAGESZ)
			break;
	ASSERT_EQ(a->a_type, AT_PAGESZ);
	ASSERT_EQ(a->a_un.a_val, 4096);
}

TEST(auxv_ids_and_secure)
{
	ASSERT_EQ(getauxval(AT_UID), 0);
	ASSERT_EQ(getauxval(AT_EUID), 0);
	ASSERT_EQ(getauxval(AT_GID), 0);
	ASSERT_EQ(getauxval(AT_EGID), 0);
	ASSERT_EQ(getauxval(AT_SECURE), 0);
}

TEST(auxv_random_bytes)
{
	const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
	unsigned any = 0;

	ASSERT_NE(r, NULL);
	for (int i = 0; i < 16; i++)
		any |= r[i];
	ASSERT_NE(any, 0);
}

/* AT_PHDR is where the headers are in memory, which for a static PIE is the only way to find them. */
TEST(auxv_program_headers)
{
	ASSERT_EQ(memcmp(__ehdr_start.e_ident, ELFMAG, SELFMAG), 0);
	ASSERT_EQ(getauxval(AT_PHDR), (uintptr_t)&__ehdr_start + __ehdr_start.e_phoff);
	ASSERT_EQ(getauxval(AT_PHNUM), __ehdr_start.e_phnum);
	ASSERT_EQ(getauxval(AT_PHENT), sizeof(Elf64_Phdr));
	ASSERT_EQ(getauxval(AT_ENTRY), (uintptr_t)_start);
}

struct phdr_seen {
	int calls;
	bool text_found;
};

static int phdr_callback(struct dl_phdr_info *info, size_t size, void *data)
{
	struct phdr_seen *seen = data;
	uintptr_t text = (uintptr_t)phdr_callback;

	(void)size;
	seen->calls++;
	if (info->dlpi_phnum != getauxval(AT_PHNUM) ||
	    (uintptr_t)info->dlpi_phdr != getauxval(AT_PHDR))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && start <= text &&
		    text < start + ph->p_memsz)
			seen->text_found = true;
	}
	return 0;
}

/* musl rebuilds the load bias from the auxv; the bias must put this code in an executable PT_LOAD. */
TEST(dl_iterate_phdr_finds_text)
{
	struct phdr_seen seen = { 0 };

	ASSERT_EQ(dl_iterate_phdr(phdr_callback, &seen), 0);
	ASSERT_EQ(seen.calls, 1);
	ASSERT_TRUE(seen.text_found);
}

/* Stack use a program may reasonably make without asking for more. */
TEST(deep_stack)
{
	volatile char buf[256 * 1024];

	for (size_t i = 0; i < sizeof(buf); i += 512)
		buf[i] = (char)i;
	for (size_t i = 0; i < sizeof(buf); i += 512)
		ASSERT_EQ(buf[i], (char)i);
}

static __thread int tls_initialised = 42;
static __thread long tls_zeroed;

/* x86-64 TLS variant II: the block lies just below the thread pointer, which points to itself. */
TEST(tls_variables)
{
	unsigned long fs = 0, self;

	ASSERT_EQ(tls_initialised, 42);
	ASSERT_EQ(tls_zeroed, 0);
	tls_initialised++;
	tls_zeroed = -1;
	ASSERT_EQ(tls_initialised, 43);
	ASSERT_EQ(tls_zeroed, -1);
	ASSERT_EQ(syscall(SYS_arch_prctl, ARCH_GET_FS, &fs), 0);
	asm volatile("mov %%fs:0, %0" : "=r"(self));
	ASSERT_EQ(self, fs);
	ASSERT_LT((uintptr_t)&tls_initialised, fs);
	ASSERT_LT(fs - (uintptr_t)&tls_initialised, 4096);
}

/* No libc between setting and restoring FS: errno and the rest of libc live behind it. */
static long raw_arch_prctl(int code, unsigned long addr)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "a"(SYS_arch_prctl), "D"(code), "S"(addr)
		     : "rcx", "r11", "memory");
	return ret;
}

TEST(arch_prctl_set_fs)
{
	static uint64_t block[2] = { 0x1122334455667788ULL, 0 };
	unsigned long old = 0, got = 0;
	uint64_t seen, seen_after_syscall;
	long set, get, pid, restore;

	ASSERT_EQ(syscall(SYS_arch_prctl, ARCH_GET_FS, &old), 0);
	set = raw_arch_prctl(ARCH_SET_FS, (unsigned long)block);
	asm volatile("mov %%fs:0, %0" : "=r"(seen) : : "memory");
	get = raw_arch_prctl(ARCH_GET_FS, (unsigned long)&got);
	asm volatile("syscall" : "=a"(pid) : "a"(SYS_getpid) : "rcx", "r11", "memory");
	asm volatile("mov %%fs:0, %0" : "=r"(seen_after_syscall) : : "memory");
	restore = raw_arch_prctl(ARCH_SET_FS, old);

	ASSERT_EQ(set, 0);
	ASSERT_EQ(restore, 0);
	ASSERT_EQ(get, 0);
	ASSERT_EQ(got, (uintptr_t)block);
	ASSERT_EQ(seen, block[0]);
	ASSERT_EQ(seen_after_syscall, block[0]);
	ASSERT_EQ(pid, getpid());
}

TEST(arch_prctl_errors)
{
	ASSERT_ERRNO(syscall(SYS_arch_prctl, ARCH_SET_FS, 0x800000000000UL), EPERM);
	ASSERT_ERRNO(syscall(SYS_arch_prctl, ARCH_GET_FS, (void *)0xffffffff80000000UL), EFAULT);
	ASSERT_ERRNO(syscall(SYS_arch_prctl, 0x9999, 0), EINVAL);
}
