/* user/tests/brk.c: the program break: its start, growth, shrinking and refused moves. */
#include "ktap.h"

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096UL

/* The raw syscall: musl's brk() always fails, and the kernel answers with the new break. */
static uintptr_t sys_brk(uintptr_t addr)
{
	return (uintptr_t)syscall(SYS_brk, addr);
}

extern char _end[]; /* the linker's end of .bss */

TEST(break_starts_after_bss)
{
	uintptr_t cur = sys_brk(0);

	ASSERT_GE(cur, (uintptr_t)_end);
	ASSERT_EQ(sys_brk(0), cur);
}

TEST(grow_write_shrink)
{
	uintptr_t cur = sys_brk(0), len = 16 * PAGE + 123;

	ASSERT_EQ(sys_brk(cur + len), cur + len);
	ASSERT_EQ(sys_brk(0), cur + len);
	volatile unsigned char *p = (volatile unsigned char *)cur;
	for (uintptr_t i = 0; i < len; i += 61)
		p[i] = (unsigned char)(i / 61);
	p[len - 1] = 0xa5;
	for (uintptr_t i = 0; i < len; i += 61)
		ASSERT_EQ(p[i], (unsigned char)(i / 61));
	ASSERT_EQ(p[len - 1], 0xa5);
	ASSERT_EQ(sys_brk(cur), cur);
	ASSERT_EQ(sys_brk(0), cur);
}

/* Pages given back by shrinking come back zeroed, like any fresh anonymous memory. */
TEST(regrown_pages_are_zero)
{
	uintptr_t cur = sys_brk(0), first = (cur + PAGE - 1) & ~(PAGE - 1);
	uintptr_t end = first + 4 * PAGE;

	ASSERT_EQ(sys_brk(end), end);
	for (uintptr_t a = first; a < end; a += PAGE / 4)
		*(volatile uint32_t *)a = 0xdeadbeef;
	ASSERT_EQ(sys_brk(cur), cur);
	ASSERT_EQ(sys_brk(end), end);
	for (uintptr_t a = first; a < end; a += PAGE / 4)
		ASSERT_EQ(*(volatile uint32_t *)a, 0);
	ASSERT_EQ(sys_brk(cur), cur);
}

/* A refused move leaves the break where it was and returns it. */
TEST(refused_moves_return_old_break)
{
	uintptr_t cur = sys_brk(0);

	ASSERT_EQ(sys_brk(PAGE), cur);                 /* below the program */
	ASSERT_EQ(sys_brk(cur + (1UL << 47)), cur);    /* past the top of user space */
	ASSERT_EQ(sys_brk(0xffffffff80000000UL), cur); /* into the kernel */
	ASSERT_EQ(sys_brk(0), cur);
}

TEST(many_small_steps)
{
	uintptr_t cur = sys_brk(0);

	for (uintptr_t i = 1; i <= 64; i++) {
		ASSERT_EQ(sys_brk(cur + i * 100), cur + i * 100);
		((volatile char *)cur)[i * 100 - 1] = (char)i;
	}
	for (uintptr_t i = 1; i <= 64; i++)
		ASSERT_EQ(((volatile char *)cur)[i * 100 - 1], (char)i);
	ASSERT_EQ(sys_brk(cur), cur);
}
