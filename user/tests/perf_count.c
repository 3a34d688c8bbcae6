/* user/tests/perf_count.c: exact instruction counts of known user loops (hardware or pmuos's simulated PMU). */
#include "ktap.h"
#include "perf.h"

#include <sys/syscall.h>
#include <unistd.h>


/* count(n) - PERF_LOOP_INSNS * n is one small constant for every n, run after run. */
TEST(user_loop_exact)
{
	int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, true, -1);
	uint64_t c1 = perf_count_loop(fd, 0, 1000);
	uint64_t c2 = perf_count_loop(fd, 0, 2000);
	uint64_t c3 = perf_count_loop(fd, 0, 3000);

	ktap_print("instructions:u of 1000 turns: %llu (%llu outside the loop)",
		   (unsigned long long)c1, (unsigned long long)(c1 - 1000 * PERF_LOOP_INSNS));
	EXPECT_EQ(c2 - c1, 1000 * PERF_LOOP_INSNS);
	EXPECT_EQ(c3 - c2, 1000 * PERF_LOOP_INSNS);
	EXPECT_GE(c1, 1000 * PERF_LOOP_INSNS);
	EXPECT_LT(c1 - 1000 * PERF_LOOP_INSNS, 64);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(perf_count_loop(fd, 0, 1000), c1);
	close(fd);
}

/*
 * The kernel's share between the two ioctls does not depend on the user loop. Only on pmuos:
 * a kernel with a periodic tick counts its interrupts too, whenever one falls in the loop.
 */
TEST(kernel_side_independent_of_loop)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

	attr.disabled = attr.exclude_user = attr.exclude_hv = 1;
	int fd = perf_open_hw_attr(&attr, -1);
	if (!ktap_on_pmuos())
		SKIP("a tickless pmuos guarantee: elsewhere a timer interrupt may fall in the loop");
	uint64_t k1 = perf_count_loop(fd, 0, 1000);
	EXPECT_GT(k1, 0);
	EXPECT_EQ(perf_count_loop(fd, 0, 5000), k1);
	EXPECT_EQ(perf_count_loop(fd, 0, 1000), k1);
	close(fd);
}

/* Members started and stopped together in the kernel see the same user instructions. */
TEST(group_members_agree)
{
	int leader = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, PERF_FORMAT_GROUP, true, -1);
	int sibling = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, true, leader);
	uint64_t a[3], b[3];

	ASSERT_EQ(perf_ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP), 0);
	perf_measured_loop(leader, PERF_IOC_FLAG_GROUP, 1000);
	perf_read_words(leader, a, 3);
	ASSERT_EQ(perf_ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP), 0);
	perf_measured_loop(leader, PERF_IOC_FLAG_GROUP, 2000);
	perf_read_words(leader, b, 3);
	EXPECT_EQ(a[0], 2);
	EXPECT_EQ(a[1], a[2]);
	EXPECT_EQ(b[1], b[2]);
	EXPECT_EQ(b[1] - a[1], 1000 * PERF_LOOP_INSNS);
	EXPECT_EQ(perf_value(sibling), b[2]);
	close(sibling);
	close(leader);
}

/* read() of a running counter: the difference of two differences is the extra loop turns. */
TEST(read_while_counting)
{
	int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, false, -1);
	uint64_t d[2];

	for (int i = 0; i < 2; i++) {
		uint64_t before = perf_value(fd);

		perf_loop(1000 * (uint64_t)(i + 1));
		d[i] = perf_value(fd) - before;
	}
	EXPECT_EQ(d[1] - d[0], 1000 * PERF_LOOP_INSNS);
	close(fd);
}

/* Neither exclusion: the user loop is all there is between the ioctls' kernel parts. */
TEST(user_and_kernel_counts)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

	attr.disabled = 1;
	int fd = perf_open_hw_attr(&attr, -1);
	if (!ktap_on_pmuos())
		SKIP("a tickless pmuos guarantee: elsewhere a timer interrupt may fall in the loop");
	uint64_t c1 = perf_count_loop(fd, 0, 1000);
	EXPECT_EQ(perf_count_loop(fd, 0, 2000) - c1, 1000 * PERF_LOOP_INSNS);
	close(fd);
}
