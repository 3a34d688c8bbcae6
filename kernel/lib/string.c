/* The freestanding string routines GCC and clang may call implicitly. */
#include "string.h"
#include <stdint.h>

/* Eight bytes a step, then the rest: under QEMU's instruction count a REP
 * step is an instruction, and a struct of 500 bytes is not 500 of them. */
void *memcpy(void *dst, const void *src, size_t n)
{
	void *ret = dst;
	size_t words = n / 8, bytes = n % 8;

	__asm__ volatile("rep movsq\n\t"
			 "mov %[bytes], %%rcx\n\t"
			 "rep movsb"
			 : "+D"(dst), "+S"(src), "+c"(words) : [bytes] "r"(bytes) : "memory");
	return ret;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *ret = dst;
	size_t words = n / 8, bytes = n % 8;
	uint64_t v = (uint8_t)c * 0x0101010101010101ull;

	__asm__ volatile("rep stosq\n\t"
			 "mov %[bytes], %%rcx\n\t"
			 "rep stosb"
			 : "+D"(dst), "+c"(words) : "a"(v), [bytes] "r"(bytes) : "memory");
	return ret;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (; *s; s++)
		if (*s == (char)c)
			return (char *)s;
	return c ? NULL : (char *)s;
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	do
		if (*s == (char)c)
			last = s;
	while (*s++);
	return (char *)last;
}
