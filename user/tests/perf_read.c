/* user/tests/perf_read.c: read() of counting events: every read_format layout, ENOSPC, group reads;
 * on pmuos, threads' reads without the kernel lock. */
#include "cpu.h"
#include "ktap.h"
#include "perf.h"
#include "pmuos.h"

#include <unistd.h>

#define ALL_ONE (PERF_FORMAT_TIMES | PERF_FORMAT_ID | PERF_FORMAT_LOST)

static uint64_t event_id(int fd)
{
	uint64_t id = 0;

	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	return id;
}

/* The size of one read: an entry per event (value, id, lost), the times and nr once. */
static size_t read_size(uint64_t format, int events)
{
	size_t entry = 1 + !!(format & PERF_FORMAT_ID) + !!(format & PERF_FORMAT_LOST);
	size_t head = !!(format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		      !!(format & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(format & PERF_FORMAT_GROUP);

	return 8 * (head + entry * (size_t)events);
}

TEST(value_only)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, false, -1);
	uint64_t buf[4];

	perf_loop(PERF_WORK);
	ASSERT_EQ(read(fd, buf, sizeof(buf)), 8);
	EXPECT_GT(buf[0], 0);
	close(fd);
}

/* Every combination of the single-event bits: the fields in ABI order, nothing else. */
TEST(single_event_layouts)
{
	for (uint64_t format = 0; format <= ALL_ONE; format++) {
		if (format & PERF_FORMAT_GROUP)
			continue;
		int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, format, false, -1);
		uint64_t buf[8], *p = buf + 1;
		size_t size = read_size(format, 1);

		perf_loop(PERF_WORK);
		ASSERT_EQ(read(fd, buf, sizeof(buf)), size);
		EXPECT_GT(buf[0], 0);
		uint64_t enabled = format & PERF_FORMAT_TOTAL_TIME_ENABLED ? *p++ : 0;
		uint64_t running = format & PERF_FORMAT_TOTAL_TIME_RUNNING ? *p++ : 0;
		if (format & PERF_FORMAT_TOTAL_TIME_ENABLED)
			EXPECT_GT(enabled, 0);
		if (format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			EXPECT_GT(running, 0);
		if ((format & PERF_FORMAT_TIMES) == PERF_FORMAT_TIMES)
			EXPECT_EQ(enabled, running); /* software events never wait for a counter */
		if (format & PERF_FORMAT_ID)
			EXPECT_EQ(*p++, event_id(fd));
		if (format & PERF_FORMAT_LOST)
			EXPECT_EQ(*p++, 0);
		EXPECT_EQ((size_t)(p - buf) * 8, size);
		close(fd);
	}
}

/* A buffer one byte short of the layout is refused whole, even an empty one. */
TEST(short_buffer_enospc)
{
	for (uint64_t format = 0; format <= (ALL_ONE | PERF_FORMAT_GROUP); format++) {
		int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, format, true, -1);
		size_t size = read_size(format, 1);
		uint64_t buf[8];

		EXPECT_ERRNO(read(fd, buf, size - 1), ENOSPC);
		EXPECT_ERRNO(read(fd, buf, 0), ENOSPC);
		EXPECT_EQ(read(fd, buf, size), size);
		close(fd);
	}
}

TEST(bad_buffer_efault)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, ALL_ONE, true, -1);

	EXPECT_ERRNO(read(fd, NULL, 64), EFAULT);
	EXPECT_ERRNO(read(fd, (void *)0xffffffff80000000UL, 64), EFAULT);
	close(fd);
}

TEST(disabled_event_reads_zero)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_TIMES, true, -1);
	uint64_t buf[3];

	perf_loop(PERF_WORK);
	perf_read_words(fd, buf, 3);
	EXPECT_EQ(buf[0], 0);
	EXPECT_EQ(buf[1], 0);
	EXPECT_EQ(buf[2], 0);
	close(fd);
}

/* Distinct events get distinct ids, and read() reports the same one IOC_ID does. */
TEST(ids_are_unique)
{
	int a = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_ID, true, -1);
	int b = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_ID, true, -1);
	uint64_t ra[2], rb[2];

	perf_read_words(a, ra, 2);
	perf_read_words(b, rb, 2);
	EXPECT_NE(ra[1], rb[1]);
	EXPECT_EQ(ra[1], event_id(a));
	EXPECT_EQ(rb[1], event_id(b));
	close(a);
	close(b);
}

/* nr, the times, then value/id/lost of the leader and each sibling in the order they joined. */
TEST(group_layout)
{
	uint64_t format = ALL_ONE | PERF_FORMAT_GROUP;
	int leader = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, format, true, -1);
	uint64_t buf[16];

	ASSERT_EQ(read(leader, buf, sizeof(buf)), read_size(format, 1));
	EXPECT_EQ(buf[0], 1);
	int s1 = perf_open_sw(PERF_COUNT_SW_CPU_CLOCK, 0, true, leader);
	int s2 = perf_open_sw(PERF_COUNT_SW_DUMMY, 0, true, leader);
	size_t size = read_size(format, 3);
	EXPECT_ERRNO(read(leader, buf, size - 1), ENOSPC);
	ASSERT_EQ(read(leader, buf, sizeof(buf)), size);
	EXPECT_EQ(buf[0], 3);
	EXPECT_EQ(buf[1], 0); /* enabled: never */
	EXPECT_EQ(buf[2], 0); /* running */
	int fds[] = { leader, s1, s2 };
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(buf[3 + 3 * i], 0);
		EXPECT_EQ(buf[4 + 3 * i], event_id(fds[i]));
		EXPECT_EQ(buf[5 + 3 * i], 0);
	}
	close(s2);
	close(s1);
	close(leader);
}

/* Enabled together, the members count over the same stretch and report one pair of times. */
TEST(group_counts)
{
	uint64_t format = PERF_FORMAT_GROUP | PERF_FORMAT_TIMES;
	int leader = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, format, true, -1);
	int sibling = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, leader);
	uint64_t buf[6];

	ASSERT_EQ(perf_ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP), 0);
	perf_loop(PERF_WORK);
	ASSERT_EQ(perf_ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP), 0);
	perf_read_words(leader, buf, 5);
	EXPECT_EQ(buf[0], 2);
	EXPECT_GT(buf[1], 0);
	EXPECT_EQ(buf[1], buf[2]);
	EXPECT_GT(buf[3], 0);
	EXPECT_GT(buf[4], 0);
	EXPECT_EQ(perf_value(sibling), buf[4]);
	close(sibling);
	close(leader);
}

/* A sibling reads the whole group in its own read_format when that has PERF_FORMAT_GROUP. */
TEST(sibling_group_read)
{
	int leader = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_ID, true, -1);
	int sibling = perf_open_sw(PERF_COUNT_SW_DUMMY, PERF_FORMAT_GROUP | PERF_FORMAT_ID, true,
				   leader);
	uint64_t buf[8];

	ASSERT_EQ(read(leader, buf, sizeof(buf)), 16);
	EXPECT_ERRNO(read(sibling, buf, 39), ENOSPC);
	ASSERT_EQ(read(sibling, buf, sizeof(buf)), 40);
	EXPECT_EQ(buf[0], 2);
	EXPECT_EQ(buf[2], event_id(leader));
	EXPECT_EQ(buf[4], event_id(sibling));
	close(sibling);
	close(leader);
}

/* Closing the leader leaves each sibling an event of its own. */
TEST(leader_close_splits_group)
{
	int leader = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);
	int s1 = perf_open_sw(PERF_COUNT_SW_DUMMY, PERF_FORMAT_GROUP, true, leader);
	int s2 = perf_open_sw(PERF_COUNT_SW_DUMMY, PERF_FORMAT_GROUP, true, leader);
	uint64_t buf[8];

	ASSERT_EQ(read(s1, buf, sizeof(buf)), read_size(PERF_FORMAT_GROUP, 3));
	close(leader);
	ASSERT_EQ(read(s1, buf, sizeof(buf)), read_size(PERF_FORMAT_GROUP, 1));
	EXPECT_EQ(buf[0], 1);
	ASSERT_EQ(read(s2, buf, sizeof(buf)), read_size(PERF_FORMAT_GROUP, 1));
	close(s2);
	close(s1);
}

/* pmuos: a thread reads its counter without the kernel lock while another thread shares its
 * descriptor table (holding a reference across the read, as Linux's fdget). */
TEST(threads_read_without_the_kernel_lock)
{
	const char *why = pmuos_kernel_lock_uncounted();
	uint64_t v;

	if (why)
		SKIP("%s", why);
	pin(0);
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, false, -1);
	pmuos_sharer_start();
	long a = pmuos_kernel_lock_taken(0), b = pmuos_kernel_lock_taken(0);
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(read(fd, &v, sizeof(v)), (long)sizeof(v));
	long c = pmuos_kernel_lock_taken(0);
	EXPECT_EQ(c - b, b - a);
	pmuos_sharer_stop();
	close(fd);
	pin(-1);
}
