/* Copies to and from user memory: every user pointer the kernel follows goes
 * through these, and a bad one gives -EFAULT, never a kernel fault. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "../smap.h"

#define UACCESS_USER_END	0x00007ffffffff000ul	/* paging.h's USER_END */
#define UACCESS_EFAULT		14			/* EFAULT */

int copy_from_user(void *dst, const void *usrc, size_t n);
int copy_to_user(void *udst, const void *src, size_t n);
int clear_user(void *udst, size_t n);
/* Copy a NUL-terminated string of at most n bytes with its NUL: its length
 * without the NUL, -ENAMETOOLONG if it does not fit, or -EFAULT. */
long strncpy_from_user(char *dst, const char *usrc, size_t n);

/* The length of a user string without its NUL: -EFAULT, or -E2BIG when no
 * NUL comes within max bytes. */
long strnlen_user(const char *u, size_t max);
/* One u64, word-sized, inline (the hot paths: perf reads, ioctl
 * arguments): one MOV where REP MOVSB counts a step per byte. The store
 * is in the exception table like copy_user.asm's: a fault resumes at the
 * fixup, which returns -EFAULT. */
static inline int __put_user_u64(uint64_t v, void *udst);
static inline int put_user_u64(uint64_t v, void *udst)
{
	if ((uint64_t)udst > UACCESS_USER_END - sizeof(v))
		return -UACCESS_EFAULT;
	return __put_user_u64(v, udst);
}
/* The same, for a caller that has checked the range itself (a file's read
 * op: sys_read checks the whole buffer, as Linux's vfs_read does). */
static inline int __put_user_u64(uint64_t v, void *udst)
{
	stac();
	__asm__ goto("1:	movq %[v], (%[p])\n"
		     ".pushsection .extable, \"a\"\n"
		     "	.balign 8\n"
		     "	.quad 1b, %l[fault]\n"
		     ".popsection"
		     : : [v] "r"(v), [p] "r"(udst) : "rax", "memory" : fault);
	clac();
	return 0;
fault:	/* traps.c's fixup put the vector in RAX */
	clac();
	return -UACCESS_EFAULT;
}
int __get_user_8(uint64_t *dst, const uint64_t *usrc);
int __get_user_4(uint32_t *dst, const uint32_t *usrc);
static inline int get_user_u32(uint32_t *v, const void *usrc)
{
	if ((uint64_t)usrc > UACCESS_USER_END - sizeof(*v))
		return -UACCESS_EFAULT;
	return __get_user_4(v, usrc);
}
static inline int get_user_u64(uint64_t *v, const void *usrc)
{
	uint64_t a = (uint64_t)usrc;

	if (a > UACCESS_USER_END - sizeof(*v))
		return -UACCESS_EFAULT;
	return __get_user_8(v, usrc);
}

#define get_user(x, uptr) copy_from_user(&(x), (uptr), sizeof(*(uptr)))
#define put_user(x, uptr) ({						\
		__typeof__(*(uptr)) __v = (x);				\
		copy_to_user((uptr), &__v, sizeof(__v));		\
	})
