/* A free list of objects set aside at build time, for the objects a hot
 * path creates and destroys over and over (perf events, open files): no
 * slab to make and give back on each round trip, and the heap's and the
 * frames' counts do not move. When the pool is empty the caller falls back
 * on kmalloc; pool_free tells a pool object from a heap one by address.
 * Interrupts off or one caller at a time (process context). */
#pragma once
#include "../kernel.h"
#include "../lib/string.h"

struct pool {
	void *free;		/* freed objects, linked through their first word */
	char *base, *end;	/* the objects */
	char *next;		/* the first never handed out yet */
	size_t size;
};

#define POOL_DEFINE(name, type, n)						\
	static type name##_objects[n] __aligned(64);				\
	static struct pool name = {						\
		.base = (char *)name##_objects,					\
		.next = (char *)name##_objects,					\
		.end = (char *)name##_objects + sizeof(name##_objects),		\
		.size = sizeof(type),						\
	}

/* An object, or NULL when the pool is empty. */
static inline void *pool_alloc(struct pool *p)
{
	void *o = p->free;

	if (o) {
		p->free = *(void **)o;
	} else if (p->next < p->end) {
		o = p->next;
		p->next += p->size;
	} else {
		return NULL;
	}
	return o;
}

/* The same, zeroed. */
static inline void *pool_zalloc(struct pool *p)
{
	void *o = pool_alloc(p);

	return o ? memset(o, 0, p->size) : NULL;
}

/* Give o back if it is one of p's: true; false for any other address. */
static inline bool pool_free(struct pool *p, void *o)
{
	if ((char *)o < p->base || (char *)o >= p->end)
		return false;
	*(void **)o = p->free;
	p->free = o;
	return true;
}
