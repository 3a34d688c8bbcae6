/* The kernel heap. Sizes up to 1 KiB come from slabs: a page per slab, a small
 * header at its start, objects of one power-of-two class after it; a slab
 * whose last object is freed goes back to the frame allocator at once, so
 * frame counts return to their baseline. Larger sizes use vmalloc. */
#include "kmalloc.h"
#include "frames.h"
#include "paging.h"
#include "vmalloc.h"
#include "../kernel.h"
#include "../panic.h"
#include "../x86.h"
#include "../lib/string.h"

#define MIN_SHIFT	4	/* 16 bytes */
#define MAX_SHIFT	10	/* 1 KiB */
#define NR_CLASSES	(MAX_SHIFT - MIN_SHIFT + 1)
#define SLAB_MAGIC	0x51ab51ab

struct slab {
	uint32_t magic;
	uint16_t class;
	uint16_t inuse;
	void *free;			/* free objects, linked through their first word */
	struct slab *prev, *next;	/* slabs of this class with a free object */
};
#define SLAB_HEADER ALIGN_UP(sizeof(struct slab), 1u << MIN_SHIFT)

static struct slab *partial[NR_CLASSES];
struct heap_stats heap_stats;

static int size_class(size_t size)
{
	int c = 0;

	while ((1ul << (c + MIN_SHIFT)) < size)
		c++;
	return c;
}

static void list_del(struct slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		partial[s->class] = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
}

static void list_add(struct slab *s)
{
	s->prev = NULL;
	s->next = partial[s->class];
	if (s->next)
		s->next->prev = s;
	partial[s->class] = s;
}

static struct slab *slab_new(int class)
{
	uint64_t pa = frame_alloc();
	size_t obj = 1ul << (class + MIN_SHIFT);

	if (!pa)
		return NULL;
	struct slab *s = phys_to_virt(pa);
	*s = (struct slab){ .magic = SLAB_MAGIC, .class = class };
	for (size_t off = PAGE_SIZE - obj; off >= SLAB_HEADER; off -= obj) {
		void **o = (void **)((char *)s + off);
		*o = s->free;
		s->free = o;
	}
	list_add(s);
	return s;
}

void *kmalloc(size_t size)
{
	if (size > (1ul << MAX_SHIFT))
		return vmalloc(size);

	int class = size_class(size ? size : 1);
	uint64_t flags = irq_save();
	struct slab *s = partial[class];
	void **o = NULL;

	if (!s)
		s = slab_new(class);
	if (s) {
		o = s->free;
		s->free = *o;
		s->inuse++;
		if (!s->free)
			list_del(s);
		heap_stats.bytes += 1ul << (class + MIN_SHIFT);
		heap_stats.objects++;
	}
	irq_restore(flags);
	return o;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	if (!p)
		return;
	if (is_vmalloc_addr(p)) {
		vfree(p);
		return;
	}

	struct slab *s = (struct slab *)ALIGN_DOWN((uint64_t)p, PAGE_SIZE);
	assert(s->magic == SLAB_MAGIC && s->inuse > 0);
	uint64_t flags = irq_save();
	bool was_full = !s->free;
	*(void **)p = s->free;
	s->free = p;
	s->inuse--;
	heap_stats.bytes -= 1ul << (s->class + MIN_SHIFT);
	heap_stats.objects--;
	if (!s->inuse) {
		if (!was_full)
			list_del(s);
		s->magic = 0;
		frame_free(virt_to_phys(s));
	} else if (was_full) {
		list_add(s);
	}
	irq_restore(flags);
}
