/* The ELF loader: a static (or static-PIE) x86-64 executable into a fresh
 * address space, with Linux's initial stack. */
#pragma once
#include <stddef.h>

struct pt_regs;
struct uspace;

/* What a new program is given: the path it was run by (AT_EXECFN), its
 * arguments and environment, byte for byte. */
struct exec_args {
	const char *filename;
	int argc, envc;
	const char *const *argv, *const *envp;
};

/* The dynamic loader a program names (PT_INTERP) into path: 1, 0 for a
 * static program, -ENOEXEC for a damaged header. */
int elf_interp(const void *image, size_t size, char *path, size_t path_size);
/* Map image's segments into us (and the loader's, interp, when it has one:
 * entered first, with AT_BASE), build the stack from args, and set the user
 * entry frame. 0 or -errno (-E2BIG: the strings do not fit the stack;
 * -ELIBBAD: the loader is no shared object). */
int elf_load(struct uspace *us, const void *image, size_t size, const void *interp,
	     size_t interp_size, const struct exec_args *args, struct pt_regs *regs);
