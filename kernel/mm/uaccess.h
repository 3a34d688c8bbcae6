/* Copies to and from user memory: every user pointer the kernel follows goes
 * through these, and a bad one gives -EFAULT, never a kernel fault. */
#pragma once
#include <stddef.h>
#include <stdint.h>

int copy_from_user(void *dst, const void *usrc, size_t n);
int copy_to_user(void *udst, const void *src, size_t n);
int clear_user(void *udst, size_t n);
/* Copy a NUL-terminated string of at most n bytes with its NUL: its length
 * without the NUL, -ENAMETOOLONG if it does not fit, or -EFAULT. */
long strncpy_from_user(char *dst, const char *usrc, size_t n);

/* The length of a user string without its NUL: -EFAULT, or -E2BIG when no
 * NUL comes within max bytes. */
long strnlen_user(const char *u, size_t max);
#define get_user(x, uptr) copy_from_user(&(x), (uptr), sizeof(*(uptr)))
#define put_user(x, uptr) ({						\
		__typeof__(*(uptr)) __v = (x);				\
		copy_to_user((uptr), &__v, sizeof(__v));		\
	})
