/* Physical page frames: a LIFO free list threaded through the free frames
 * themselves (via the direct map), O(1) both ways. */
#include "frames.h"
#include "paging.h"
#include "../kernel.h"
#include "../multiboot.h"
#include "../panic.h"
#include "../x86.h"
#include "../lib/string.h"

#define LOW_MEMORY	(1 * MiB)
#define FREE_MAGIC	0xf4eef4eef4eef4eeul	/* catches a corrupted free list */

struct free_frame {
	uint64_t next;		/* physical address of the next free frame */
	uint64_t magic;
};

static uint64_t free_head;
struct frame_stats frame_stats;

struct reserved { uint64_t start, end; };

static bool overlaps(uint64_t pa, const struct reserved *r, int n)
{
	for (int i = 0; i < n; i++)
		if (pa + PAGE_SIZE > r[i].start && pa < r[i].end)
			return true;
	return false;
}

static void push(uint64_t pa)
{
	struct free_frame *f = phys_to_virt(pa);

	f->next = free_head;
	f->magic = FREE_MAGIC;
	free_head = pa;
	frame_stats.free++;
}

void frames_init(void)
{
	extern char __kernel_phys_start[], __kernel_phys_end[];
	struct reserved r[BOOT_MODULES_MAX + 2];
	int n = 0;

	r[n++] = (struct reserved){ (uint64_t)__kernel_phys_start, (uint64_t)__kernel_phys_end };
	r[n++] = (struct reserved){ boot_info.info_phys, boot_info.info_phys + boot_info.info_size };
	for (int i = 0; i < boot_info.nr_modules; i++)
		r[n++] = (struct reserved){ boot_info.modules[i].start, boot_info.modules[i].end };

	/* Push from the top down, so allocation hands out low frames first. */
	for (int i = boot_info.nr_mmap - 1; i >= 0; i--) {
		const struct boot_mem_region *m = &boot_info.mmap[i];
		if (m->type != MULTIBOOT_MEMORY_AVAILABLE)
			continue;
		uint64_t start = MAX(ALIGN_UP(m->base, PAGE_SIZE), LOW_MEMORY);
		uint64_t end = MIN(ALIGN_DOWN(m->base + m->length, PAGE_SIZE), direct_map_end);
		for (uint64_t pa = end; pa > start; pa -= PAGE_SIZE) {
			if (overlaps(pa - PAGE_SIZE, r, n))
				continue;
			push(pa - PAGE_SIZE);
			frame_stats.total++;
		}
	}
	if (!frame_stats.total)
		panic("no usable memory in the boot memory map");
}

uint64_t frame_alloc(void)
{
	uint64_t flags = irq_save();
	uint64_t pa = free_head;

	if (pa) {
		struct free_frame *f = phys_to_virt(pa);
		assert(f->magic == FREE_MAGIC);
		free_head = f->next;
		f->magic = 0;
		frame_stats.free--;
	}
	irq_restore(flags);
	return pa;
}

uint64_t frame_alloc_zeroed(void)
{
	uint64_t pa = frame_alloc();

	if (pa)
		memset(phys_to_virt(pa), 0, PAGE_SIZE);
	return pa;
}

void frame_free(uint64_t pa)
{
	assert(pa && IS_ALIGNED(pa, PAGE_SIZE) && pa < direct_map_end);
	uint64_t flags = irq_save();
	push(pa);
	irq_restore(flags);
}
