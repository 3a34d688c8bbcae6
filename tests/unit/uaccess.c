/* tests/unit/uaccess.c: the kernel's user copies (kernel/mm/uaccess.h) over one window of
 * host memory, faulting where the window ends. */
#include "uaccess.h"
#include "../../kernel/mm/uaccess.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

static const char *lo, *hi;
static bool window_writable;
unsigned uaccess_writes;

void uaccess_window(void *base, size_t len, bool writable)
{
	lo = base;
	hi = base ? (const char *)base + len : NULL;
	window_writable = writable;
	uaccess_writes = 0;
}

/* The bytes of [p, p + n) that can be touched before the first fault. */
static size_t reachable(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;

	if (!lo || a < (uintptr_t)lo || a >= (uintptr_t)hi)
		return 0;
	return n < (uintptr_t)hi - a ? n : (uintptr_t)hi - a;
}

int copy_from_user(void *dst, const void *usrc, size_t n)
{
	size_t ok = reachable(usrc, n);

	memcpy(dst, usrc, ok);
	return ok == n ? 0 : -EFAULT;
}

int copy_to_user(void *udst, const void *src, size_t n)
{
	size_t ok = window_writable ? reachable(udst, n) : 0;

	memcpy(udst, src, ok);
	uaccess_writes++;
	return ok == n ? 0 : -EFAULT;
}

int clear_user(void *udst, size_t n)
{
	size_t ok = window_writable ? reachable(udst, n) : 0;

	memset(udst, 0, ok);
	return ok == n ? 0 : -EFAULT;
}

long strncpy_from_user(char *dst, const char *usrc, size_t n)
{
	size_t ok = reachable(usrc, n);

	for (size_t i = 0; i < ok; i++) {
		dst[i] = usrc[i];
		if (!dst[i])
			return i;
	}
	return ok == n ? -ENAMETOOLONG : -EFAULT;
}

/* uaccess.h's word-sized reads, after its range check. */
int __get_user_4(uint32_t *dst, const uint32_t *usrc)
{
	return copy_from_user(dst, usrc, sizeof(*dst));
}

int __get_user_8(uint64_t *dst, const uint64_t *usrc)
{
	return copy_from_user(dst, usrc, sizeof(*dst));
}
