/* The ELF loader: a static (or static-PIE) x86-64 executable into a fresh
 * address space, with Linux's initial stack. */
#pragma once
#include <stddef.h>

struct pt_regs;
struct uspace;

/* Map image's segments into us, build the stack from the module command line
 * (argv, split on spaces), and set the user entry frame. 0 or -errno. */
int elf_load(struct uspace *us, const void *image, size_t size,
	     const char *cmdline, struct pt_regs *regs);
