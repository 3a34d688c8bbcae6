/* user/tests/mmap.c: anonymous mappings: mmap, munmap, mprotect, MAP_FIXED and their EINVAL cases. */
#include "ktap.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096UL
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

static char *map(size_t len, int prot)
{
	return mmap(NULL, len, prot, ANON, -1, 0);
}

TEST(page_size)
{
	ASSERT_EQ(sysconf(_SC_PAGESIZE), PAGE);
}

TEST(fresh_memory_is_zero_and_aligned)
{
	char *p = map(8 * PAGE, RW);

	ASSERT_NE(p, MAP_FAILED);
	ASSERT_EQ((uintptr_t)p % PAGE, 0);
	for (size_t i = 0; i < 8 * PAGE; i += 8)
		ASSERT_EQ(*(volatile uint64_t *)(p + i), 0);
	ASSERT_EQ(munmap(p, 8 * PAGE), 0);
}

TEST(many_pages_touched)
{
	size_t n = 256;
	char *p = map(n * PAGE, RW);

	ASSERT_NE(p, MAP_FAILED);
	for (size_t i = 0; i < n; i++)
		*(volatile size_t *)(p + i * PAGE + i % 512 * 8) = i;
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(*(volatile size_t *)(p + i * PAGE + i % 512 * 8), i);
	ASSERT_EQ(munmap(p, n * PAGE), 0);
}

/* 16 MiB of which two pages are used: mappings need not be backed up front. */
TEST(large_mapping_sparse_use)
{
	size_t len = 16UL << 20;
	char *p = map(len, RW);

	ASSERT_NE(p, MAP_FAILED);
	p[0] = 1;
	p[len - 1] = 2;
	ASSERT_EQ(p[0] + p[len - 1], 3);
	ASSERT_EQ(munmap(p, len), 0);
}

TEST(distinct_mappings_do_not_overlap)
{
	char *a = map(PAGE, RW), *b = map(3 * PAGE, RW);

	ASSERT_NE(a, MAP_FAILED);
	ASSERT_NE(b, MAP_FAILED);
	ASSERT_TRUE(a + PAGE <= b || b + 3 * PAGE <= a);
	ASSERT_EQ(munmap(a, PAGE), 0);
	ASSERT_EQ(munmap(b, 3 * PAGE), 0);
}

/* MAP_FIXED replaces what was there with fresh zero pages, at exactly that address. */
TEST(map_fixed_replaces)
{
	char *p = map(4 * PAGE, RW);

	ASSERT_NE(p, MAP_FAILED);
	for (size_t i = 0; i < 4; i++)
		p[i * PAGE] = 'a' + (char)i;
	char *q = mmap(p + PAGE, 2 * PAGE, RW, ANON | MAP_FIXED, -1, 0);
	ASSERT_EQ(q, p + PAGE);
	ASSERT_EQ(p[0], 'a');
	ASSERT_EQ(p[PAGE], 0);
	ASSERT_EQ(p[2 * PAGE], 0);
	ASSERT_EQ(p[3 * PAGE], 'd');
	ASSERT_EQ(munmap(p, 4 * PAGE), 0);
}

/* Unmapping the middle keeps both ends; unmapping it again is not an error. */
TEST(munmap_middle)
{
	char *p = map(3 * PAGE, RW);

	ASSERT_NE(p, MAP_FAILED);
	p[0] = 1;
	p[2 * PAGE] = 3;
	ASSERT_EQ(munmap(p + PAGE, PAGE), 0);
	ASSERT_EQ(munmap(p + PAGE, PAGE), 0);
	ASSERT_EQ(p[0], 1);
	ASSERT_EQ(p[2 * PAGE], 3);
	ASSERT_ERRNO(mprotect(p, 3 * PAGE, PROT_READ), ENOMEM); /* the hole */
	ASSERT_EQ(munmap(p, 3 * PAGE), 0);
}

TEST(prot_none_then_mprotect)
{
	char *p = map(2 * PAGE, PROT_NONE);

	ASSERT_NE(p, MAP_FAILED);
	ASSERT_EQ(mprotect(p, 2 * PAGE, RW), 0);
	p[0] = 7;
	p[2 * PAGE - 1] = 9;
	ASSERT_EQ(mprotect(p, PAGE, PROT_READ), 0);
	ASSERT_EQ(p[0], 7);
	p[PAGE] = 8; /* the second page stayed writable */
	ASSERT_EQ(munmap(p, 2 * PAGE), 0);
}

/* The kernel copies a buffer out of a page it has just been allowed to read. */
TEST(syscall_reads_mprotected_buffer)
{
	static const char msg[] = "# written from an mprotect()ed page\n";
	char *p = map(PAGE, RW);

	ASSERT_NE(p, MAP_FAILED);
	for (size_t i = 0; i < sizeof(msg); i++)
		p[i] = msg[i];
	ASSERT_EQ(mprotect(p, PAGE, PROT_READ), 0);
	ASSERT_EQ(write(1, p, sizeof(msg) - 1), sizeof(msg) - 1);
	ASSERT_EQ(mprotect(p, PAGE, PROT_NONE), 0);
	ASSERT_ERRNO(write(1, p, sizeof(msg) - 1), EFAULT);
	ASSERT_EQ(munmap(p, PAGE), 0);
}

/* Raw syscalls below: musl's wrappers round mprotect's range and check mmap's offset and length. */
static long sys_mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
	return syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

TEST(invalid_arguments)
{
	char *p = map(PAGE, RW);

	ASSERT_NE(p, MAP_FAILED);
	ASSERT_ERRNO(sys_mmap(NULL, 0, RW, ANON, -1, 0), EINVAL);
	ASSERT_ERRNO(sys_mmap(p + 1, PAGE, RW, ANON | MAP_FIXED, -1, 0), EINVAL);
	ASSERT_ERRNO(sys_mmap(NULL, PAGE, RW, MAP_ANONYMOUS, -1, 0), EINVAL); /* neither private nor shared */
	ASSERT_ERRNO(sys_mmap(NULL, PAGE, RW, ANON, -1, 1), EINVAL);
	ASSERT_ERRNO(syscall(SYS_munmap, p + 1, PAGE), EINVAL);
	ASSERT_ERRNO(syscall(SYS_munmap, p, 0), EINVAL);
	ASSERT_ERRNO(syscall(SYS_mprotect, p + 1, PAGE, PROT_READ), EINVAL);
	ASSERT_ERRNO(syscall(SYS_mprotect, p, PAGE, 0x100), EINVAL);
	ASSERT_EQ(munmap(p, PAGE), 0);
}

TEST(file_mapping_needs_a_file)
{
	ASSERT_ERRNO(sys_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, -1, 0), EBADF);
	ASSERT_ERRNO(sys_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, 1000, 0), EBADF);
}

TEST(too_large)
{
	ASSERT_ERRNO(sys_mmap(NULL, 1UL << 48, RW, ANON, -1, 0), ENOMEM);
	ASSERT_ERRNO(sys_mmap(NULL, -PAGE, RW, ANON, -1, 0), ENOMEM);
}

/* vm.mmap_min_addr: a hint below 64 KiB is raised to it (round_hint_to_min); root may still
 * map there with MAP_FIXED, on Linux as here. */
TEST(low_hint_is_raised_to_mmap_min_addr)
{
	void *p = mmap((void *)0x1000, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ((uintptr_t)p, 0x10000);
	EXPECT_EQ(munmap(p, 4096), 0);
	p = mmap((void *)0x1000, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	EXPECT_EQ((uintptr_t)p, 0x1000);
	EXPECT_EQ(munmap((void *)0x1000, 4096), 0);
}

/* 32 TiB of address space costs nothing until touched: mapping, protecting and unmapping it
 * must not walk it a page at a time (2^33 steps). */
TEST(huge_reservation_maps_protects_and_unmaps)
{
	size_t len = 1ull << 45;
	char *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(mprotect(p, len, PROT_READ | PROT_WRITE), 0);
	p[0] = 1, p[len / 2] = 2, p[len - 1] = 3;
	EXPECT_EQ(mprotect(p, len, PROT_READ), 0);
	EXPECT_EQ(p[len / 2], 2);
	EXPECT_EQ(munmap(p, len), 0);
}

/* vm.max_map_count (65530): mappings past it are ENOMEM, and so is an mprotect that splits one
 * and a munmap of the middle of one (one VMA more); a munmap of its head leaves none more and
 * goes through. Alternate protections keep Linux from merging neighbours. */
TEST(max_map_count)
{
	static char *maps[70000];
	size_t n = 0;

	for (; n < sizeof(maps) / sizeof(maps[0]); n++) {
		maps[n] = mmap(NULL, 3 * 4096, n % 2 ? PROT_READ : PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (maps[n] == MAP_FAILED)
			break;
	}
	EXPECT_EQ(errno, ENOMEM);
	EXPECT_GE(n, 65000);
	EXPECT_LE(n, 65531);
	EXPECT_ERRNO(munmap(maps[0] + 4096, 4096), ENOMEM);
	/* read-write: no neighbour to merge with, so a split */
	EXPECT_ERRNO(mprotect(maps[1] + 8192, 4096, PROT_READ | PROT_WRITE), ENOMEM);
	EXPECT_EQ(munmap(maps[0], 4096), 0);
	EXPECT_ERRNO(munmap(maps[1] + 4096, 4096), ENOMEM);
	/* mmap stopped one past the limit: two fewer make room for one more */
	EXPECT_EQ(munmap(maps[2], 3 * 4096), 0);
	EXPECT_EQ(munmap(maps[3], 3 * 4096), 0);
	EXPECT_EQ(munmap(maps[1] + 4096, 4096), 0);
	while (n-- > 4)		/* lowest first: each is found near the list's head */
		munmap(maps[n], 3 * 4096);
	munmap(maps[0] + 4096, 2 * 4096);
	munmap(maps[1], 4096);
	munmap(maps[1] + 8192, 4096);
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	EXPECT_NE(p, MAP_FAILED);
	munmap(p, 4096);
}
