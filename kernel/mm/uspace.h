/* A user address space: its page tables (the kernel half shared). */
#pragma once
#include <stdint.h>

struct uspace {
	uint64_t pml4;		/* physical */
};

struct uspace *uspace_create(void);
/* Frees every page table and every frame the space owns. */
void uspace_destroy(struct uspace *us);
void uspace_activate(struct uspace *us);
