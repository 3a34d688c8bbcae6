/* Small macros every kernel file uses. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT_ULL(n)		(1ull << (n))
#define ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))
/* Append node at the tail of the singly linked list *head, whose nodes
 * link through their field next_field (the list walks written once). */
#define list_append(head, node, next_field) do {			\
		__typeof__(node) *__link = (head);			\
		while (*__link)						\
			__link = &(*__link)->next_field;		\
		*__link = (node);					\
	} while (0)
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define __noreturn	__attribute__((noreturn))
#define __section(s)	__attribute__((section(s)))
#define __aligned(n)	__attribute__((aligned(n)))
#define __packed	__attribute__((packed))
/* For the small steps of a hot path (perf's scheduling, the software PMU's
 * start and stop): a call and its frame cost more than their bodies. */
#ifndef __always_inline	/* the host's unit tests have glibc's, the same */
#define __always_inline	inline __attribute__((always_inline))
#endif
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#define static_assert _Static_assert

#define KiB 1024ul
#define MiB (1024ul * KiB)
#define GiB (1024ul * MiB)
