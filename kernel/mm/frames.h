/* Physical page frames: a free list built from the boot memory map. */
#pragma once
#include <stdint.h>

/* Every usable page of RAM, never low memory (< 1 MiB), the kernel image,
 * the boot info or the modules. */
void frames_init(void);
/* A physical address, or 0 when memory is exhausted. */
uint64_t frame_alloc(void);
uint64_t frame_alloc_zeroed(void);
void frame_free(uint64_t phys);

struct frame_stats {
	uint64_t total;		/* frames the allocator manages */
	uint64_t free;
};
extern struct frame_stats frame_stats;
