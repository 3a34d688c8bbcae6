/* The kernel heap: small objects from per-size slabs, large ones from vmalloc. */
#pragma once
#include <stddef.h>
#include <stdint.h>

void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);

struct heap_stats {
	uint64_t bytes;		/* bytes handed out and not freed (rounded to class) */
	uint64_t objects;
};
extern struct heap_stats heap_stats;
