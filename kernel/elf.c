/* The ELF loader (System V gABI, x86-64 psABI 3.4): PT_LOAD segments as VMAs
 * with their own permissions, file bytes copied, the rest demand-zero, then
 * Linux's initial stack: argc, argv, envp, auxv, and the strings above. */
#include "elf.h"
#include "gdt.h"
#include "kernel.h"
#include "traps.h"
#include "x86.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include "mm/uspace.h"
#include <linux/elf.h>
#include <linux/auxvec.h>
#include <asm-generic/errno.h>

#define STACK_INITIAL	(128 * KiB)	/* populated now; the rest on demand */
/* Linux's limit: the strings may take a quarter of RLIMIT_STACK. */
#define ARG_MAX_BYTES	(STACK_MAX / 4)

static int check_header(const Elf64_Ehdr *eh, size_t size)
{
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 ||
	    eh->e_phoff > size || eh->e_phnum > (size - eh->e_phoff) / sizeof(Elf64_Phdr))
		return -ENOEXEC;
	return 0;
}

static int load_segment(struct uspace *us, const uint8_t *image, size_t size,
			const Elf64_Phdr *ph, uint64_t bias, unsigned kind)
{
	unsigned prot = (ph->p_flags & PF_R ? VM_READ : 0) |
			(ph->p_flags & PF_W ? VM_WRITE : 0) |
			(ph->p_flags & PF_X ? VM_EXEC : 0);

	/* Every sum below checked before it is made: a wrapped one would map
	 * a short VMA and the copy would run past it. Linux's load_elf_binary
	 * checks the same (-EINVAL); the file range is ours to check. */
	if (ph->p_filesz > ph->p_memsz || ph->p_vaddr > USER_END - bias ||
	    !is_user_range(ph->p_vaddr + bias, ph->p_memsz))
		return -EINVAL;
	if (ph->p_offset > size || ph->p_filesz > size - ph->p_offset ||
	    (ph->p_vaddr & (PAGE_SIZE - 1)) != (ph->p_offset & (PAGE_SIZE - 1)))
		return -ENOEXEC;
	uint64_t start = ALIGN_DOWN(ph->p_vaddr + bias, PAGE_SIZE);
	uint64_t end = ALIGN_UP(ph->p_vaddr + bias + ph->p_memsz, PAGE_SIZE);
	if (start >= end)
		return -ENOEXEC;
	struct vma *v = vma_insert(us, start, end, prot | VM_ANON | kind);
	if (!v)
		return -ENOEXEC;	/* overlapping segments */
	v->pgoff = ALIGN_DOWN(ph->p_offset, PAGE_SIZE);	/* for MMAP records */

	/* Copy the file-backed pages; what lies past p_filesz reads as zero. */
	uint64_t file_start = ph->p_vaddr + bias, file_end = file_start + ph->p_filesz;
	for (uint64_t va = start; va < ALIGN_UP(file_end, PAGE_SIZE); va += PAGE_SIZE) {
		uint64_t lo = MAX(va, file_start), hi = MIN(va + PAGE_SIZE, file_end);
		int err = uspace_populate(us, va, NULL, 0);
		if (err)
			return err;
		/* The frame from the entry itself: translate() finds none
		 * behind a PROT_NONE segment's (not present) entry. */
		pte_t *e = pte_walk(us->pml4, va, false);
		memcpy((uint8_t *)phys_to_virt(*e & PTE_ADDR) + (lo - va),
		       image + ph->p_offset + (lo - file_start), hi - lo);
	}
	return 0;
}

/* Write to the new stack through the direct map (the space is not active
 * yet). Only the STACK_INITIAL populated up front can be written: arguments
 * that do not fit there fail the load, as too large ones do on Linux. */
static int poke(struct uspace *us, uint64_t va, const void *src, size_t n)
{
	for (size_t done = 0; done < n;) {
		uint64_t at = va + done;
		size_t chunk = MIN(n - done, PAGE_SIZE - (at & (PAGE_SIZE - 1)));
		uint64_t pa = translate(us->pml4, at, true, true);
		if (!pa)
			return -E2BIG;
		memcpy(phys_to_virt(pa), (const uint8_t *)src + done, chunk);
		done += chunk;
	}
	return 0;
}

/* The new sp, or 0 when the bytes do not fit; 0 stays 0, so a run of pushes
 * is checked once at its end. */
static uint64_t push_bytes(struct uspace *us, uint64_t sp, const void *src, size_t n)
{
	return sp && !poke(us, sp - n, src, n) ? sp - n : 0;
}

static uint64_t push_string(struct uspace *us, uint64_t sp, const char *s, size_t n)
{
	char nul = 0;

	sp = push_bytes(us, sp, &nul, 1);
	return push_bytes(us, sp, s, n);
}

/* Push n strings last to first, their addresses into va[]; sp, or 0. */
static uint64_t push_strings(struct uspace *us, uint64_t sp, const char *const *s, int n,
			     uint64_t *va)
{
	for (int i = n - 1; i >= 0 && sp; i--)
		va[i] = sp = push_string(us, sp, s[i], strlen(s[i]));
	return sp;
}

static int build_stack(struct uspace *us, const struct exec_args *args, const Elf64_Ehdr *eh,
		       uint64_t phdr_va, uint64_t bias, uint64_t interp_base, uint64_t *rsp)
{
	uint64_t sp = STACK_TOP, bytes = 0;

	for (int i = 0; i < args->argc; i++)
		bytes += strlen(args->argv[i]) + 1;
	for (int i = 0; i < args->envc; i++)
		bytes += strlen(args->envp[i]) + 1;
	if (bytes + strlen(args->filename) > ARG_MAX_BYTES)
		return -E2BIG;
	if (!vma_insert(us, STACK_TOP - STACK_MAX, STACK_TOP,
			VM_READ | VM_WRITE | VM_ANON | VM_STACK))
		return -ENOMEM;
	for (uint64_t va = STACK_TOP - STACK_INITIAL; va < STACK_TOP; va += PAGE_SIZE)
		if (uspace_populate(us, va, NULL, 0))
			return -ENOMEM;

	/* AT_RANDOM: fixed bytes, so runs repeat exactly. */
	static const char random[16] = "pmuos-at-random!";
	uint64_t at_random = sp = push_bytes(us, sp, random, sizeof(random));
	const char *platform = "x86_64";
	uint64_t at_platform = sp = push_string(us, sp, platform, strlen(platform));
	uint64_t at_execfn = sp = push_string(us, sp, args->filename, strlen(args->filename));

	uint32_t a, b, c, hwcap;
	cpuid_count(1, 0, &a, &b, &c, &hwcap);
	/* No AT_SYSINFO_EHDR: there is no vDSO, so musl makes real syscalls. */
	const uint64_t auxv[][2] = {
		{ AT_HWCAP, hwcap },		/* CPUID.1:EDX, as Linux reports it */
		{ AT_PAGESZ, PAGE_SIZE },
		{ AT_CLKTCK, 100 },
		{ AT_PHDR, phdr_va },
		{ AT_PHENT, sizeof(Elf64_Phdr) },
		{ AT_PHNUM, eh->e_phnum },
		{ AT_BASE, interp_base },	/* where the dynamic loader is, or 0 */
		{ AT_FLAGS, 0 },
		{ AT_ENTRY, eh->e_entry + bias },
		{ AT_UID, 0 }, { AT_EUID, 0 }, { AT_GID, 0 }, { AT_EGID, 0 },
		{ AT_SECURE, 0 },
		{ AT_RANDOM, at_random },
		{ AT_EXECFN, at_execfn },
		{ AT_PLATFORM, at_platform },
		{ AT_NULL, 0 },
	};

	/* Below the strings: argc, argv[], NULL, envp[], NULL, auxv; rsp 16-aligned. */
	size_t words = 1 + args->argc + 1 + args->envc + 1 + 2 * ARRAY_SIZE(auxv), n = 0;
	uint64_t *vec = kmalloc(8 * words);
	if (!vec)
		return -ENOMEM;
	vec[n++] = args->argc;
	sp = push_strings(us, sp, args->envp, args->envc, &vec[1 + args->argc + 1]);
	sp = sp ? push_strings(us, sp, args->argv, args->argc, &vec[1]) : 0;
	n += args->argc;
	vec[n++] = 0;
	n += args->envc;
	vec[n++] = 0;
	memcpy(&vec[n], auxv, sizeof(auxv)), n += 2 * ARRAY_SIZE(auxv);
	*rsp = ALIGN_DOWN(sp - 8 * n, 16);
	/* The strings lie argv's, then envp's, each NUL-terminated. */
	uint64_t *argv = &vec[1], *envp = &vec[1 + args->argc + 1];
	us->arg_start = args->argc ? argv[0] : sp;
	us->arg_end = !args->argc ? sp :
		argv[args->argc - 1] + strlen(args->argv[args->argc - 1]) + 1;
	us->env_start = args->envc ? envp[0] : us->arg_end;
	us->env_end = !args->envc ? us->arg_end :
		envp[args->envc - 1] + strlen(args->envp[args->envc - 1]) + 1;
	us->start_stack = *rsp;
	int err = sp ? poke(us, *rsp, vec, 8 * n) : -E2BIG;
	kfree(vec);
	return err;
}

int elf_interp(const void *image, size_t size, char *path, size_t path_size)
{
	const Elf64_Ehdr *eh = image;
	int err = check_header(eh, size);

	if (err)
		return err;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)((const uint8_t *)image + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_INTERP)
			continue;
		/* A NUL-terminated path inside the file (Linux: ENOEXEC else). */
		if (ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset ||
		    ph[i].p_filesz < 2 || ph[i].p_filesz > path_size)
			return -ENOEXEC;
		const char *p = (const char *)image + ph[i].p_offset;
		if (p[ph[i].p_filesz - 1])
			return -ENOEXEC;
		memcpy(path, p, ph[i].p_filesz);
		return 1;
	}
	return 0;
}

/* The dynamic loader's segments, placed as one block below mmap_base as
 * Linux's mmap would place it; its base address (AT_BASE) and entry. */
static int load_interp(struct uspace *us, const void *image, size_t size, uint64_t *base,
		       uint64_t *entry)
{
	const Elf64_Ehdr *eh = image;
	uint64_t lo = UINT64_MAX, hi = 0;
	int err = check_header(eh, size);

	if (err)
		return -ELIBBAD;
	if (eh->e_type != ET_DYN)
		return -ELIBBAD;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)((const uint8_t *)image + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr > USER_END || ph[i].p_memsz > USER_END)
			return -EINVAL;
		lo = MIN(lo, ALIGN_DOWN(ph[i].p_vaddr, PAGE_SIZE));
		hi = MAX(hi, ALIGN_UP(ph[i].p_vaddr + ph[i].p_memsz, PAGE_SIZE));
	}
	if (lo >= hi)
		return -ELIBBAD;
	uint64_t at = uspace_find_free(us, hi - lo, us->mmap_base);
	if (!at)
		return -ENOMEM;
	uint64_t bias = at - lo;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD &&
		    (err = load_segment(us, image, size, &ph[i], bias, VM_INTERP)))
			return err;
	if (eh->e_entry >= USER_END - bias)
		return -EINVAL;
	*base = at;
	*entry = eh->e_entry + bias;
	return 0;
}

int elf_load(struct uspace *us, const void *image, size_t size, const void *interp,
	     size_t interp_size, const struct exec_args *args, struct pt_regs *regs)
{
	const Elf64_Ehdr *eh = image;
	const uint8_t *bytes = image;
	uint64_t bias = 0, phdr_va = 0, brk = 0, rsp, interp_base = 0, entry;
	int err = check_header(eh, size);

	if (err)
		return err;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(bytes + eh->e_phoff);
	if (eh->e_type == ET_DYN)
		bias = ET_DYN_BASE;
	/* Not a user address: IRET there would fault in ring 0. Linux refuses
	 * it too (BAD_ADDR in load_elf_binary). */
	if (eh->e_entry >= USER_END - bias)
		return -EINVAL;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		err = load_segment(us, bytes, size, &ph[i], bias, VM_EXE);
		if (err)
			return err;
		/* AT_PHDR: where the headers are in memory (the segment that
		 * maps file offset e_phoff). */
		if (eh->e_phoff >= ph[i].p_offset &&
		    eh->e_phoff < ph[i].p_offset + ph[i].p_filesz)
			phdr_va = ph[i].p_vaddr + bias + (eh->e_phoff - ph[i].p_offset);
		brk = MAX(brk, ALIGN_UP(ph[i].p_vaddr + bias + ph[i].p_memsz, PAGE_SIZE));
	}
	if (!brk)
		return -ENOEXEC;
	us->brk_start = us->brk = brk;
	entry = eh->e_entry + bias;
	if (interp && (err = load_interp(us, interp, interp_size, &interp_base, &entry)))
		return err;
	err = build_stack(us, args, eh, phdr_va, bias, interp_base, &rsp);
	if (err)
		return err;
	*regs = (struct pt_regs){
		.rip = entry,
		.cs = GDT_USER_CS,
		.rflags = X86_EFLAGS_IF | 0x2,	/* bit 1 always reads as 1 */
		.rsp = rsp,
		.ss = GDT_USER_DS,
	};
	return 0;
}
