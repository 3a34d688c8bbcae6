/* Physical page frames: a LIFO free list threaded through freed frames
 * themselves (via the direct map), and the boot memory map's free ranges,
 * handed out from the bottom up when the list is empty. O(1) both ways,
 * and boot touches no free frame: under QEMU, writing one into each of
 * 512 MiB of frames made the host allocate all of it (1-4 s of a boot). */
#include "frames.h"
#include "paging.h"
#include "../kernel.h"
#include "../kernel_lock.h"
#include "../multiboot.h"
#include "../panic.h"
#include "../spinlock.h"
#include "../x86.h"
#include "../lib/string.h"

#define LOW_MEMORY	(1 * MiB)
#define FREE_MAGIC	0xf4eef4eef4eef4eeul	/* catches a corrupted free list */

struct free_frame {
	uint64_t next;		/* physical address of the next free frame */
	uint64_t magic;
};

/* The free list, the untouched ranges, the counts and every frame's
 * references: page faults of anonymous memory take frames without the
 * kernel lock (anon_fault.c). While one CPU runs kernel code (the kernel
 * lock off) interrupts off are the lock, as they were: a fork and exit
 * make hundreds of frame operations. */
static struct spinlock frames_lock = SPINLOCK_INIT("frames");

static uint64_t lock_frames(void)
{
	uint64_t flags = irq_save();

	if (kernel_lock_on)
		spin_lock(&frames_lock);
	return flags;
}

static void unlock_frames(uint64_t flags)
{
	if (kernel_lock_on)
		spin_unlock(&frames_lock);
	irq_restore(flags);
}
static uint64_t free_head;
struct frame_stats frame_stats;

struct reserved { uint64_t start, end; };

/* Each frame's references (mappings, page-table or file owners): a frame
 * shared copy-on-write after fork has one per address space. */
static uint16_t *refs;

/* Never handed out yet: [next, end) of each range, in address order. */
#define MAX_RANGES	(BOOT_MMAP_MAX + BOOT_MODULES_MAX + 2)
static struct reserved untouched[MAX_RANGES];
static int nr_untouched, cur_untouched;

static void push(uint64_t pa)
{
	struct free_frame *f = phys_to_virt(pa);

	f->next = free_head;
	f->magic = FREE_MAGIC;
	free_head = pa;
	frame_stats.free++;
}

/* Add [start, end) less the reserved ranges to the untouched ones. */
static void add_range(uint64_t start, uint64_t end, const struct reserved *r, int n)
{
	for (uint64_t pa = start; pa < end;) {
		uint64_t stop = end, skip = 0;
		for (int i = 0; i < n; i++) {
			uint64_t rs = ALIGN_DOWN(r[i].start, PAGE_SIZE), re = ALIGN_UP(r[i].end, PAGE_SIZE);
			if (re > pa && rs < stop) {
				if (rs <= pa)
					skip = MAX(skip, re);	/* pa is inside: jump past it */
				else
					stop = rs;
			}
		}
		if (skip) {
			pa = skip;
			continue;
		}
		if (nr_untouched == MAX_RANGES)
			panic("the boot memory map has too many pieces");
		untouched[nr_untouched++] = (struct reserved){ pa, stop };
		frame_stats.total += (stop - pa) / PAGE_SIZE;
		pa = stop;
	}
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

	for (int i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mem_region *m = &boot_info.mmap[i];
		if (m->type != MULTIBOOT_MEMORY_AVAILABLE)
			continue;
		uint64_t start = MAX(ALIGN_UP(m->base, PAGE_SIZE), LOW_MEMORY);
		uint64_t end = MIN(ALIGN_DOWN(m->base + m->length, PAGE_SIZE), direct_map_end);
		if (start < end)
			add_range(start, end, r, n);
	}
	if (!frame_stats.total)
		panic("no usable memory in the boot memory map");
	/* The reference counts take the first range that holds them. */
	size_t bytes = ALIGN_UP((direct_map_end / PAGE_SIZE) * sizeof(*refs), PAGE_SIZE);
	for (int i = 0; i < nr_untouched && !refs; i++) {
		struct reserved *u = &untouched[i];
		if (u->end - u->start >= bytes) {
			refs = phys_to_virt(u->start);
			u->start += bytes;
			frame_stats.total -= bytes / PAGE_SIZE;
		}
	}
	if (!refs)
		panic("no room for the frames' reference counts");
	memset(refs, 0, bytes);
	frame_stats.free = frame_stats.total;
}

/* The lowest frame never handed out, or 0. */
static uint64_t take_untouched(void)
{
	for (; cur_untouched < nr_untouched; cur_untouched++) {
		struct reserved *u = &untouched[cur_untouched];
		if (u->start < u->end) {
			uint64_t pa = u->start;
			u->start += PAGE_SIZE;
			return pa;
		}
	}
	return 0;
}

uint64_t frame_alloc(void)
{
	uint64_t flags = lock_frames();
	uint64_t pa = free_head;

	if (pa) {
		struct free_frame *f = phys_to_virt(pa);
		assert(f->magic == FREE_MAGIC);
		free_head = f->next;
		f->magic = 0;
	} else {
		pa = take_untouched();
	}
	if (pa) {
		frame_stats.free--;
		refs[pa / PAGE_SIZE] = 1;
	}
	unlock_frames(flags);
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
	uint64_t flags = lock_frames();
	assert(refs[pa / PAGE_SIZE] > 0);
	if (!--refs[pa / PAGE_SIZE])
		push(pa);
	unlock_frames(flags);
}

void frame_get(uint64_t pa)
{
	uint64_t flags = lock_frames();
	assert(refs[pa / PAGE_SIZE] > 0 && refs[pa / PAGE_SIZE] < UINT16_MAX);
	refs[pa / PAGE_SIZE]++;
	unlock_frames(flags);
}

unsigned frame_refs(uint64_t pa)
{
	return READ_ONCE(refs[pa / PAGE_SIZE]);
}

void frames_release(uint64_t start, uint64_t end)
{
	uint64_t flags = lock_frames();

	for (uint64_t pa = ALIGN_UP(start, PAGE_SIZE); pa + PAGE_SIZE <= end; pa += PAGE_SIZE) {
		frame_stats.total++;
		push(pa);
	}
	unlock_frames(flags);
}
