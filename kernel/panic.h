/* Stopping the machine: the clean halt at the end of a run, panic and assert. */
#pragma once
#include "kernel.h"

struct pt_regs;

/* Exit status the isa-debug-exit device reports for a panic (QEMU exits 255). */
#define PANIC_EXIT_STATUS 0x7f

__noreturn void machine_halt(int status);
__noreturn void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
__noreturn void panic_regs(const struct pt_regs *regs, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void dump_regs(const struct pt_regs *regs);

/* Always on, in every build: a broken invariant stops the kernel loudly. */
#define assert(e)							\
	do {								\
		if (unlikely(!(e)))					\
			panic("assertion \"%s\" failed at %s:%d in %s()", \
			      #e, __FILE__, __LINE__, __func__);	\
	} while (0)
