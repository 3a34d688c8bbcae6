/* The vmalloc area: virtually contiguous kernel memory with guard pages. */
#pragma once
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* The area's page tables, made once and kept (after frames_init). */
void vmalloc_init(void);
/* Page-granular memory, each area preceded by an unmapped guard page. */
void *vmalloc(size_t size);
void vfree(void *addr);
/* A kernel stack: returns its top; the guard page below catches overflow. */
void *vmalloc_stack(size_t size);
void vfree_stack(void *top, size_t size);
/* Map n existing frames contiguously (they stay their owner's). */
void *vmap(const uint64_t *frames, size_t n);
/* Map device memory uncached. */
void *ioremap(uint64_t phys, size_t size);
bool is_vmalloc_addr(const void *addr);
