/* Range checks in front of copy_user.asm's fault-tolerant copies. */
#include "uaccess.h"
#include "paging.h"
#include "../kernel.h"
#include <asm-generic/errno.h>

static_assert(UACCESS_USER_END == USER_END && UACCESS_EFAULT == EFAULT, "uaccess.h's copies");

int __copy_user(void *dst, const void *src, size_t n);
int __clear_user(void *dst, size_t n);
long __strncpy_user(char *dst, const char *src, size_t n);

int copy_from_user(void *dst, const void *usrc, size_t n)
{
	if (!is_user_range((uint64_t)usrc, n))
		return -EFAULT;
	return __copy_user(dst, usrc, n);
}

int copy_to_user(void *udst, const void *src, size_t n)
{
	if (!is_user_range((uint64_t)udst, n))
		return -EFAULT;
	return __copy_user(udst, src, n);
}

int clear_user(void *udst, size_t n)
{
	if (!is_user_range((uint64_t)udst, n))
		return -EFAULT;
	return __clear_user(udst, n);
}

long strncpy_from_user(char *dst, const char *usrc, size_t n)
{
	uint64_t a = (uint64_t)usrc;

	if (a > USER_END)
		return -EFAULT;
	/* Never read past the end of user space. */
	long len = __strncpy_user(dst, usrc, n < USER_END - a ? n : USER_END - a);
	if (len < 0)
		return len;
	if (len == 0 || dst[len - 1] != '\0')
		return (size_t)len == n ? -ENAMETOOLONG : -EFAULT;
	return len - 1;
}

long strnlen_user(const char *u, size_t max)
{
	char buf[64];

	for (size_t n = 0; n < max;) {
		uint64_t a = (uint64_t)u + n;
		/* Never past the page the string may end on. */
		size_t chunk = MIN(MIN(sizeof(buf), PAGE_SIZE - (a & (PAGE_SIZE - 1))), max - n);
		if (copy_from_user(buf, (const void *)a, chunk))
			return -EFAULT;
		for (size_t i = 0; i < chunk; i++)
			if (!buf[i])
				return n + i;
		n += chunk;
	}
	return -E2BIG;
}
