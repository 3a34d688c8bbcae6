/* user/tests/perf_ioctl.c: every perf ioctl's answer on a software event, PERF_IOC_FLAG_GROUP, prctl;
 * on pmuos, which ioctls go without the kernel lock. */
#include "cpu.h"
#include "ktap.h"
#include "perf.h"
#include "pmuos.h"

#include <pmuos/perf_ext.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define BAD_FD 1000

static int task_clock(bool disabled)
{
	return perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_TIMES, disabled, -1);
}

/* A cpu-clock event that samples every millisecond: the one kind REFRESH and PERIOD accept. */
static int sampling_event(bool inherit)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);

	attr.sample_period = 1000000;
	attr.disabled = 1;
	attr.inherit = inherit;
	int fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	return fd;
}

TEST(enable_disable_reset)
{
	int fd = task_clock(true);
	uint64_t a[3], b[3];

	perf_loop(PERF_WORK);
	perf_read_words(fd, a, 3);
	EXPECT_EQ(a[0], 0);
	EXPECT_EQ(a[1], 0);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	perf_loop(PERF_WORK);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	perf_read_words(fd, a, 3);
	EXPECT_GT(a[0], 0);
	EXPECT_GT(a[1], 0);
	perf_loop(PERF_WORK);
	perf_read_words(fd, b, 3);
	EXPECT_EQ(b[0], a[0]); /* disabled: neither the count nor the times move */
	EXPECT_EQ(b[1], a[1]);
	EXPECT_EQ(b[2], a[2]);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	perf_read_words(fd, b, 3);
	EXPECT_EQ(b[0], 0); /* the count restarts, the times do not */
	EXPECT_EQ(b[1], a[1]);
	EXPECT_EQ(b[2], a[2]);
	close(fd);
}

/* Of the argument only PERF_IOC_FLAG_GROUP is looked at. */
TEST(enable_ignores_other_arg_bits)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);

	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, ~(unsigned long)PERF_IOC_FLAG_GROUP), 0);
	perf_loop(PERF_WORK);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, ~0UL), 0);
	EXPECT_GT(perf_value(fd), 0);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_RESET, ~0UL), 0);
	EXPECT_EQ(perf_value(fd), 0);
	close(fd);
}

/* Without the flag an ioctl acts on the one event; with it, on its whole group, from any member. */
TEST(flag_group)
{
	int leader = task_clock(true);
	int sibling = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, leader);

	ASSERT_EQ(perf_ioctl(leader, PERF_EVENT_IOC_ENABLE, 0), 0);
	perf_loop(PERF_WORK);
	EXPECT_EQ(perf_value(sibling), 0);
	ASSERT_EQ(perf_ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP), 0);
	perf_loop(PERF_WORK);
	EXPECT_GT(perf_value(sibling), 0);
	ASSERT_EQ(perf_ioctl(sibling, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP), 0);
	uint64_t a[3], b[3];
	perf_read_words(leader, a, 3);
	perf_loop(PERF_WORK);
	perf_read_words(leader, b, 3);
	EXPECT_EQ(b[0], a[0]);
	EXPECT_EQ(b[1], a[1]);
	ASSERT_EQ(perf_ioctl(sibling, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP), 0);
	perf_read_words(leader, a, 3);
	EXPECT_EQ(a[0], 0);
	EXPECT_EQ(perf_value(sibling), 0);
	close(sibling);
	close(leader);
}

/* No exec happens here, so only the ioctl can start such an event. */
TEST(enable_on_exec_waits_for_ioctl)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	uint64_t buf[3];

	attr.disabled = attr.enable_on_exec = 1;
	attr.read_format = PERF_FORMAT_TIMES;
	int fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	perf_loop(PERF_WORK);
	perf_read_words(fd, buf, 3);
	EXPECT_EQ(buf[0], 0);
	EXPECT_EQ(buf[1], 0);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	perf_loop(PERF_WORK);
	perf_read_words(fd, buf, 3);
	EXPECT_GT(buf[0], 0);
	EXPECT_GT(buf[1], 0);
	close(fd);
}

TEST(refresh)
{
	int fd = task_clock(true);

	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_REFRESH, 1), EINVAL); /* not sampling */
	close(fd);
	fd = sampling_event(true);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_REFRESH, 1), EINVAL); /* inherited */
	close(fd);
	fd = sampling_event(false);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_REFRESH, 1), 0);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	close(fd);
}

/* The new period is copied in before anything else is checked. */
TEST(period)
{
	int fd = task_clock(true);
	uint64_t period = 2000000;

	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period), EINVAL);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PERIOD, 0), EFAULT);
	close(fd);
	fd = sampling_event(false);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period), 0);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PERIOD, 0), EFAULT);
	period = 0;
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period), EINVAL);
	period = 1ULL << 63;
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period), EINVAL);
	close(fd);
}

/* -1 detaches; a target must be another event whose ring is mapped; a mapped event stays put. */
TEST(set_output)
{
	int fd = task_clock(true), other = task_clock(true);

	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, -1UL), 0);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, 0xffffffffUL), EBADF);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, BAD_FD), EBADF);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, 1), EBADF);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fd), EINVAL);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, other), EINVAL);
	struct perf_event_mmap_page *page = perf_map(other);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, other), 0);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, -1UL), 0);
	EXPECT_ERRNO(perf_ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, fd), EINVAL);
	EXPECT_ERRNO(perf_ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, -1UL), EINVAL);
	munmap(page, PERF_PAGE);
	close(other);
	close(fd);
}

/* Filters are for tracepoints and address filters; the string is copied in first. */
TEST(set_filter)
{
	int fd = task_clock(true);

	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)"filter"), EINVAL);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)""), EINVAL);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_FILTER, 0), EFAULT);
	close(fd);
}

TEST(id)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_ID, true, -1);
	uint64_t id = 0, buf[2];

	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	perf_read_words(fd, buf, 2);
	EXPECT_EQ(id, buf[1]);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_ID, 0), EFAULT);
	close(fd);
}

/* The argument is a BPF program's fd: a closed one is EBADF, any other file EINVAL. */
TEST(set_bpf)
{
	int fd = task_clock(true);

	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_BPF, -1UL), EBADF);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_BPF, BAD_FD), EBADF);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_BPF, 1), EINVAL);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_SET_BPF, fd), EINVAL);
	close(fd);
}

/* Pausing needs a ring with data pages; the control page alone is not one. */
TEST(pause_output)
{
	int fd = task_clock(true);

	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), EINVAL);
	struct perf_event_mmap_page *page = perf_map(fd);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), EINVAL);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0), EINVAL);
	munmap(page, PERF_PAGE);
	close(fd);
}

/* Only tracepoints carry BPF program arrays; that is checked before the pointer is used. */
TEST(query_bpf)
{
	int fd = task_clock(true);
	struct perf_event_query_bpf query = { .ids_len = 0 };

	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, (unsigned long)&query), EINVAL);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, 0), EINVAL);
	close(fd);
}

/* Only breakpoints can be modified; the new attr goes through perf_event_open's copy first. */
TEST(modify_attributes)
{
	int fd = task_clock(true);
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	unsigned long cmd = PERF_EVENT_IOC_MODIFY_ATTRIBUTES;

	EXPECT_ERRNO(perf_ioctl(fd, cmd, (unsigned long)&attr), EOPNOTSUPP);
	attr.type = PERF_TYPE_TRACEPOINT;
	EXPECT_ERRNO(perf_ioctl(fd, cmd, (unsigned long)&attr), EINVAL);
	attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.__reserved_2 = 1;
	EXPECT_ERRNO(perf_ioctl(fd, cmd, (unsigned long)&attr), EINVAL);
	attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.size = 1;
	EXPECT_ERRNO(perf_ioctl(fd, cmd, (unsigned long)&attr), E2BIG);
	EXPECT_EQ(attr.size, sizeof(attr));
	EXPECT_ERRNO(perf_ioctl(fd, cmd, 0), EFAULT);
	close(fd);
}

/* Commands are matched on the whole word: direction and size bits make a different command. */
TEST(unknown_commands)
{
	static const unsigned long cmds[] = {
		0, _IO('$', 12), _IO('$', 0xff), _IO('%', 0),
		_IOW('$', 0, int),        /* ENABLE's number with a size */
		_IOW('$', 4, uint32_t),   /* PERIOD with the wrong size */
		_IOR('$', 8, uint32_t),   /* SET_BPF with the wrong direction */
	};
	int fd = task_clock(true);

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		EXPECT_ERRNO(perf_ioctl(fd, cmds[i], 0), ENOTTY);
	close(fd);
}

/*
 * pmuos's own commands (perf_ext.h) are unknown to Linux. FLUSH is _IO('$', 8): on pmuos it
 * must not be mistaken for SET_BPF, _IOW('$', 8, __u32), whose argument is an fd.
 */
TEST(pmuos_commands)
{
	int fd = task_clock(true);

	if (!ktap_on_pmuos()) {
		EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_FLUSH, BAD_FD), ENOTTY);
		EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_DETACH, 0), ENOTTY);
		EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_ATTACH, 0), ENOTTY);
	} else {
		errno = 0;
		long ret = perf_ioctl(fd, PERF_EVENT_IOC_FLUSH, BAD_FD);
		EXPECT_TRUE(ret == 0 || (errno != EBADF && errno != ENOTTY));
	}
	close(fd);
}

TEST(not_an_event)
{
	int fd = task_clock(true);

	close(fd);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), EBADF);
	EXPECT_ERRNO(perf_ioctl(BAD_FD, PERF_EVENT_IOC_ENABLE, 0), EBADF);
}

/* prctl stops and restarts every event this task opened, times included. */
TEST(prctl_task_events)
{
	int a = task_clock(false);
	int b = perf_open_sw(PERF_COUNT_SW_CPU_CLOCK, 0, false, -1);
	uint64_t before[3], after[3];

	perf_loop(PERF_WORK);
	ASSERT_EQ(prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0), 0);
	perf_read_words(a, before, 3);
	perf_loop(PERF_WORK);
	perf_read_words(a, after, 3);
	EXPECT_GT(before[0], 0);
	EXPECT_EQ(after[0], before[0]);
	EXPECT_EQ(after[1], before[1]);
	uint64_t b_off = perf_value(b);
	perf_loop(PERF_WORK);
	EXPECT_EQ(perf_value(b), b_off);
	ASSERT_EQ(prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0), 0);
	perf_loop(PERF_WORK);
	perf_read_words(a, after, 3);
	EXPECT_GT(after[0], before[0]);
	EXPECT_GT(after[1], before[1]);
	EXPECT_GT(perf_value(b), b_off);
	close(b);
	close(a);
}

/* Not only the events prctl disabled: ENABLE starts those opened disabled too. */
TEST(prctl_enables_disabled_events)
{
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);

	ASSERT_EQ(prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0), 0);
	perf_loop(PERF_WORK);
	EXPECT_GT(perf_value(fd), 0);
	ASSERT_EQ(prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0), 0);
	close(fd);
}

/* Acquisitions of pmuos's kernel lock by ENABLE, DISABLE and RESET of fd ten times each, less
 * those of a read of the count file. */
static long lock_taken_by_ioctls(int fd, unsigned long flags)
{
	long a = pmuos_kernel_lock_taken(0), b = pmuos_kernel_lock_taken(0);

	for (int i = 0; i < 10; i++) {
		EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, flags), 0);
		EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, flags), 0);
		EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_RESET, flags), 0);
	}
	return pmuos_kernel_lock_taken(0) - b - (b - a);
}

/* pmuos: ENABLE, DISABLE and RESET of one event of the caller's own take no kernel lock, a
 * thread's too (the descriptor table shared), and with PERF_IOC_FLAG_GROUP each takes it once. */
TEST(own_event_ioctls_without_the_kernel_lock)
{
	const char *why = pmuos_kernel_lock_uncounted();

	if (why)
		SKIP("%s", why);
	pin(0);
	int fd = task_clock(true);
	EXPECT_EQ(lock_taken_by_ioctls(fd, 0), 0);
	EXPECT_EQ(lock_taken_by_ioctls(fd, PERF_IOC_FLAG_GROUP), 30);
	pmuos_sharer_start();
	EXPECT_EQ(lock_taken_by_ioctls(fd, 0), 0);
	pmuos_sharer_stop();
	close(fd);
	pin(-1);
}
