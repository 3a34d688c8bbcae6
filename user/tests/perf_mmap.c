/* user/tests/perf_mmap.c: the event's control page (struct perf_event_mmap_page) and self-monitoring reads. */
#include "ktap.h"
#include "perf.h"

#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

static void *map(int fd, int prot, int flags, off_t offset)
{
	return mmap(NULL, PERF_PAGE, prot, flags, fd, offset);
}

TEST(map_first_page)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);
	void *rw = map(fd, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	void *ro = map(fd, PROT_READ, MAP_SHARED, 0);

	ASSERT_NE(rw, MAP_FAILED);
	ASSERT_NE(ro, MAP_FAILED);
	EXPECT_EQ(memcmp(rw, ro, PERF_PAGE), 0); /* one page, seen twice */
	EXPECT_EQ(munmap(ro, PERF_PAGE), 0);
	EXPECT_ERRNO(map(fd, PROT_READ, MAP_PRIVATE, 0), EINVAL);
	EXPECT_ERRNO(map(fd, PROT_READ, MAP_SHARED, PERF_PAGE), EINVAL); /* an AUX area: none */
	EXPECT_EQ(munmap(rw, PERF_PAGE), 0);
	close(fd);
	EXPECT_ERRNO(map(fd, PROT_READ, MAP_SHARED, 0), EBADF);
}

/* What a reader checks before trusting the rest; no data pages were asked for. */
TEST(header_fields)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);
	struct perf_event_mmap_page *pc = perf_map(fd);

	EXPECT_EQ(pc->version, 0);
	EXPECT_EQ(pc->compat_version, 0);
	EXPECT_EQ(pc->lock % 2, 0);
	EXPECT_EQ(pc->size, offsetof(struct perf_event_mmap_page, __reserved));
	EXPECT_EQ(pc->data_offset, PERF_PAGE);
	EXPECT_EQ(pc->data_size, 0);
	EXPECT_EQ(pc->cap_bit0, 0);
	EXPECT_EQ(pc->cap_bit0_is_deprecated, 1);
	munmap(pc, PERF_PAGE);
	close(fd);
}

TEST(disabled_event_page)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);
	struct perf_event_mmap_page *pc = perf_map(fd);

	perf_loop(PERF_WORK);
	EXPECT_EQ(pc->index, 0);
	EXPECT_EQ(pc->offset, 0);
	EXPECT_EQ(pc->time_enabled, 0);
	EXPECT_EQ(pc->time_running, 0);
	munmap(pc, PERF_PAGE);
	close(fd);
}

/* A software event is on no counter: no RDPMC, and the page's figures trail read()'s. */
TEST(software_event_page)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_TIMES, false, -1);
	struct perf_event_mmap_page *pc = perf_map(fd);
	uint64_t buf[3];

	perf_loop(PERF_WORK);
	perf_read_words(fd, buf, 3);
	EXPECT_EQ(pc->index, 0);
	EXPECT_EQ(pc->cap_user_rdpmc, 0);
	EXPECT_LE((uint64_t)pc->offset, buf[0]);
	EXPECT_LE(pc->time_enabled, buf[1]);
	EXPECT_LE(pc->time_running, buf[2]);
	EXPECT_EQ(pc->lock % 2, 0);
	munmap(pc, PERF_PAGE);
	close(fd);
}

/*
 * With cap_user_time the reader extrapolates time_enabled with the TSC; the estimate lies
 * between the page's snapshot and what a later read() reports. The event runs from before
 * the mapping, so the snapshot the page starts from is one of a running event.
 */
TEST(user_time_extrapolation)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_TIMES, false, -1);
	struct perf_event_mmap_page *pc = perf_map(fd);
	struct perf_self self;
	uint64_t buf[3];

	if (!pc->cap_user_time && !ktap_on_pmuos())
		SKIP("this kernel offers no cap_user_time here (TSC not stable?)");
	EXPECT_EQ(pc->cap_user_time, 1);
	EXPECT_EQ(pc->cap_user_time_zero, 1);
	EXPECT_LT(pc->time_shift, 64);
	EXPECT_NE(pc->time_mult, 0);
	perf_loop(PERF_WORK);
	perf_self_read(pc, &self);
	perf_read_words(fd, buf, 3);
	EXPECT_GT(self.enabled, pc->time_enabled);
	EXPECT_LE(self.enabled, buf[1]);
	munmap(pc, PERF_PAGE);
	close(fd);
}

TEST(unmap_keeps_event)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, false, -1);
	struct perf_event_mmap_page *pc = perf_map(fd);

	EXPECT_EQ(munmap(pc, PERF_PAGE), 0);
	perf_loop(PERF_WORK);
	EXPECT_GT(perf_value(fd), 0);
	pc = perf_map(fd);
	EXPECT_EQ(pc->version, 0);
	munmap(pc, PERF_PAGE);
	close(fd);
}

/* The hardware path: RDPMC from user space, agreeing with read() that follows it. */
TEST(rdpmc_self_read)
{
	int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, false, -1);
	struct perf_event_mmap_page *pc = perf_map(fd);
	struct perf_self self;

	EXPECT_EQ(pc->cap_user_rdpmc, 1);
	EXPECT_GE(pc->pmc_width, 32);
	EXPECT_LE(pc->pmc_width, 64);
	for (int round = 0; round < 3; round++) {
		perf_loop(PERF_WORK);
		perf_self_read(pc, &self);
		uint64_t value = perf_value(fd);
		EXPECT_NE(self.index, 0);
		EXPECT_GT(self.count, 0);
		EXPECT_LE(self.count, value);
		EXPECT_LT(value - self.count, 1000); /* the user instructions between the two */
	}
	munmap(pc, PERF_PAGE);
	close(fd);
}

/* pmuos (DESIGN.md) updates the page when an event leaves its counter: index 0 says "off". */
TEST(index_follows_counter)
{
	int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, false, -1);
	struct perf_event_mmap_page *pc = perf_map(fd);

	if (!ktap_on_pmuos())
		SKIP("a pmuos guarantee; Linux may leave a stale index until the next update");
	EXPECT_NE(pc->index, 0);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(pc->index, 0);
	uint64_t value = perf_value(fd);
	EXPECT_EQ((uint64_t)pc->offset, value);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	EXPECT_NE(pc->index, 0);
	munmap(pc, PERF_PAGE);
	close(fd);
}

/* Linux 6.1.147 and later (perf_mmap_may_split): part of a ring's mapping cannot be unmapped,
 * protected or mapped over, which would leave pieces no count matches; the whole can. */
TEST(ring_mapping_is_never_split)
{
	int fd = perf_open_sw(PERF_COUNT_SW_DUMMY, 0, true, -1);
	char *p = mmap(NULL, 9 * PERF_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	ASSERT_NE(p, MAP_FAILED);
	EXPECT_ERRNO(munmap(p + PERF_PAGE, PERF_PAGE), EINVAL);
	EXPECT_ERRNO(munmap(p, PERF_PAGE), EINVAL);
	EXPECT_ERRNO(munmap(p - PERF_PAGE, 2 * PERF_PAGE), EINVAL);	/* the end cuts it */
	EXPECT_ERRNO(mprotect(p + 2 * PERF_PAGE, PERF_PAGE, PROT_READ), EINVAL);
	EXPECT_ERRNO(mmap(p + PERF_PAGE, PERF_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
			  MAP_FIXED, -1, 0), ENOMEM);	/* Linux 6.1's mmap_region */
	EXPECT_EQ(((struct perf_event_mmap_page *)p)->data_size, 8 * PERF_PAGE);	/* intact */
	EXPECT_EQ(mprotect(p, 9 * PERF_PAGE, PROT_READ), 0);
	EXPECT_EQ(munmap(p, 9 * PERF_PAGE), 0);
	close(fd);
}

/* Linux's file_mmap_ok for perf's file (no type: ULONG_MAX): a mapping must end no higher than
 * the last page below 2^64; below that, the offset is perf's to refuse. */
TEST(offset_that_wraps_is_eoverflow)
{
	int fd = perf_open_sw(PERF_COUNT_SW_DUMMY, 0, true, -1);

	EXPECT_ERRNO(mmap(NULL, 2 * PERF_PAGE, PROT_READ, MAP_SHARED, fd, -PERF_PAGE), EOVERFLOW);
	EXPECT_ERRNO(mmap(NULL, 2 * PERF_PAGE, PROT_READ, MAP_SHARED, fd, -2 * PERF_PAGE),
		     EOVERFLOW);
	EXPECT_ERRNO(mmap(NULL, PERF_PAGE, PROT_READ, MAP_SHARED, fd, -2 * PERF_PAGE), EINVAL);
	EXPECT_ERRNO(mmap(NULL, PERF_PAGE, PROT_READ, MAP_SHARED, fd, INT64_MAX & -PERF_PAGE),
		     EINVAL);
	close(fd);
}
