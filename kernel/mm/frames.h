/* Physical page frames: a free list built from the boot memory map. */
#pragma once
#include <stdint.h>

/* Every usable page of RAM, never low memory (< 1 MiB), the kernel image,
 * the boot info or the modules. */
void frames_init(void);
/* A physical address, or 0 when memory is exhausted. */
uint64_t frame_alloc(void);
uint64_t frame_alloc_zeroed(void);
/* Drop a reference (frame_alloc gives the first): the last one frees it. */
void frame_free(uint64_t phys);
/* One more reference: a frame shared copy-on-write. */
void frame_get(uint64_t phys);
unsigned frame_refs(uint64_t phys);
/* Give the allocator the whole frames of [start, end), memory the boot
 * kept until now (the initramfs's archive, once unpacked, as Linux frees
 * the initrd). */
void frames_release(uint64_t start, uint64_t end);

struct frame_stats {
	uint64_t total;		/* frames the allocator manages */
	uint64_t free;
};
extern struct frame_stats frame_stats;
