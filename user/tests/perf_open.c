/* user/tests/perf_open.c: perf_event_open's checks and errnos: attr size and fields, pid, cpu, flags, groups. */
#include "ktap.h"
#include "perf.h"

#include <fcntl.h>
#include <pmuos/perf_ext.h>
#include <sys/mman.h>
#include <unistd.h>

#define ATTR_SIZE ((uint32_t)sizeof(struct perf_event_attr)) /* PERF_ATTR_SIZE_VER7 on Linux 6.1 */
#define NO_PID 99999 /* above both kernels' pid range in these boots */

/* Opens a task-clock event through attr bytes of any length; returns the fd or -1. */
static int open_bytes(void *bytes, uint32_t size)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	attr.size = size;
	memcpy(bytes, &attr, sizeof(attr));
	return perf_open(bytes, 0, -1, -1, 0);
}

static int open_attr(struct perf_event_attr *attr)
{
	return perf_open(attr, 0, -1, -1, 0);
}

/* The flag word that starts at attr.disabled (Linux 6.1: bits 38..63 are __reserved_1). */
static uint64_t *flag_word(struct perf_event_attr *attr)
{
	return (uint64_t *)((char *)attr + PMUOS_ATTR_FLAGS_OFFSET);
}

TEST(attr_size_of_each_version)
{
	static const uint32_t sizes[] = {
		PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER2, PERF_ATTR_SIZE_VER3,
		PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5, PERF_ATTR_SIZE_VER6, PERF_ATTR_SIZE_VER7,
	};
	struct perf_event_attr attr;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int fd = open_bytes(&attr, sizes[i]);

		ASSERT_GE(fd, 0);
		EXPECT_EQ(attr.size, sizes[i]);
		close(fd);
	}
}

/* Size 0 is read as PERF_ATTR_SIZE_VER0; sizes between versions are copied as they are. */
TEST(attr_size_zero_and_odd_sizes)
{
	static const uint32_t sizes[] = { 0, PERF_ATTR_SIZE_VER0 + 1, ATTR_SIZE - 1 };
	struct perf_event_attr attr;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int fd = open_bytes(&attr, sizes[i]);

		ASSERT_GE(fd, 0);
		EXPECT_EQ(attr.size, sizes[i]);
		close(fd);
	}
}

/* E2BIG, with the size the kernel supports written back into attr.size. */
TEST(attr_size_below_ver0)
{
	static const uint32_t sizes[] = { 1, 8, PERF_ATTR_SIZE_VER0 - 1 };
	struct perf_event_attr attr;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ASSERT_ERRNO(open_bytes(&attr, sizes[i]), E2BIG);
		EXPECT_EQ(attr.size, ATTR_SIZE);
	}
}

/* A newer program's larger attr is fine while the fields this kernel does not know are zero. */
TEST(attr_larger_than_known)
{
	static char page[PERF_PAGE + 1];
	static const uint32_t sizes[] = { ATTR_SIZE + 8, 2 * ATTR_SIZE, PERF_PAGE };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(page, 0, sizeof(page));
		int fd = open_bytes(page, sizes[i]);
		ASSERT_GE(fd, 0);
		close(fd);
		page[sizes[i] - 1] = 1;
		ASSERT_ERRNO(open_bytes(page, sizes[i]), E2BIG);
		EXPECT_EQ(((struct perf_event_attr *)page)->size, ATTR_SIZE);
	}
	memset(page, 0, sizeof(page));
	ASSERT_ERRNO(open_bytes(page, PERF_PAGE + 1), E2BIG);
	EXPECT_EQ(((struct perf_event_attr *)page)->size, ATTR_SIZE);
}

/* The attr is read only as far as its size says: a VER0 attr may end where the mapping does. */
TEST(attr_bad_pointer)
{
	char *m = mmap(NULL, 2 * PERF_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	ASSERT_NE(m, MAP_FAILED);
	ASSERT_EQ(munmap(m + PERF_PAGE, PERF_PAGE), 0);
	char *tail = m + PERF_PAGE - PERF_ATTR_SIZE_VER0;
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.size = PERF_ATTR_SIZE_VER0;
	memcpy(tail, &attr, PERF_ATTR_SIZE_VER0);
	int fd = perf_open((struct perf_event_attr *)tail, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	close(fd);
	((struct perf_event_attr *)tail)->size = PERF_ATTR_SIZE_VER1;
	EXPECT_ERRNO(perf_open((struct perf_event_attr *)tail, 0, -1, -1, 0), EFAULT);
	EXPECT_ERRNO(perf_open(NULL, 0, -1, -1, 0), EFAULT);
	munmap(m, PERF_PAGE);
}

/*
 * Linux 6.1 refuses every reserved bit. pmuos gives bit 41 of the flag word a meaning
 * (attr.persistent, perf_ext.h): there it is left to the persistent-event tests.
 */
TEST(reserved_fields)
{
	for (int bit = 38; bit < 64; bit++) {
		struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

		if (bit == PMUOS_ATTR_FLAG_PERSISTENT_BIT && ktap_on_pmuos())
			continue;
		*flag_word(&attr) = 1ULL << bit;
		EXPECT_ERRNO(open_attr(&attr), EINVAL);
	}
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.__reserved_2 = 1;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
	attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.__reserved_3 = 1;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
}

TEST(unknown_format_and_sample_bits)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	attr.read_format = PERF_FORMAT_MAX - 1; /* every known bit */
	int fd = open_attr(&attr);
	ASSERT_GE(fd, 0);
	close(fd);
	attr.read_format = PERF_FORMAT_MAX;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
	attr.read_format = 0;
	attr.sample_type = PERF_SAMPLE_MAX;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
	attr.sample_type = 0;
	attr.sample_period = 1ULL << 63;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
}

/* Flags that only make sense together; a sigtrap event must also go away on exec. */
TEST(flag_combinations)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	attr.inherit_thread = 1;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
	attr.inherit = 1;
	int fd = open_attr(&attr);
	ASSERT_GE(fd, 0);
	close(fd);
	attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.enable_on_exec = attr.remove_on_exec = 1;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
	attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.sigtrap = 1;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
	attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.aux_output = 1; /* the software PMU writes no AUX area */
	EXPECT_ERRNO(open_attr(&attr), EOPNOTSUPP);
}

TEST(accepted_flags)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	attr.exclude_user = attr.exclude_kernel = attr.exclude_hv = attr.exclude_idle = 1;
	attr.exclude_host = attr.exclude_guest = 1;
	attr.exclude_callchain_kernel = attr.exclude_callchain_user = 1;
	attr.disabled = attr.pinned = attr.exclusive = attr.inherit = attr.enable_on_exec = 1;
	int fd = open_attr(&attr);
	ASSERT_GE(fd, 0);
	close(fd);
}

TEST(software_configs)
{
	for (uint64_t c = 0; c < PERF_COUNT_SW_MAX; c++) {
		struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, c);
		int fd = open_attr(&attr);

		EXPECT_GE(fd, 0);
		close(fd);
	}
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_MAX);
	EXPECT_ERRNO(open_attr(&attr), ENOENT);
	attr.config = 1ULL << 32;
	EXPECT_ERRNO(open_attr(&attr), ENOENT);
	attr = perf_attr(1000, 0); /* no PMU has this type */
	EXPECT_ERRNO(open_attr(&attr), ENOENT);
}

/* The x86 PMU's range checks; under QEMU TCG Linux has no hardware PMU at all. */
TEST(hardware_configs)
{
	close(perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, true, -1));
	struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX);
	attr.exclude_kernel = 1;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
	attr.type = PERF_TYPE_HW_CACHE;
	attr.config = PERF_COUNT_HW_CACHE_MAX;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
	attr.config = PERF_COUNT_HW_CACHE_OP_MAX << 8;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
	attr.config = PERF_COUNT_HW_CACHE_RESULT_MAX << 16;
	EXPECT_ERRNO(open_attr(&attr), EINVAL);
}

TEST(pid_argument)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int fd = perf_open(&attr, getpid(), -1, -1, 0);

	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_ERRNO(perf_open(&attr, NO_PID, -1, -1, 0), ESRCH);
	EXPECT_ERRNO(perf_open(&attr, -2, -1, -1, 0), ESRCH);
}

/* Any online CPU or any (-1), nothing past the last. */
TEST(cpu_argument)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);

	for (int cpu = 0; cpu < cpus; cpu++) {
		int fd = perf_open(&attr, 0, cpu, -1, 0);
		ASSERT_GE(fd, 0);
		close(fd);
	}
	EXPECT_ERRNO(perf_open(&attr, 0, cpus, -1, 0), EINVAL);
	EXPECT_ERRNO(perf_open(&attr, 0, 4096, -1, 0), EINVAL);
	EXPECT_ERRNO(perf_open(&attr, 0, -2, -1, 0), EINVAL);
}

TEST(cpu_wide_events)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	int fd = perf_open(&attr, -1, 0, -1, 0);

	ASSERT_GE(fd, 0);
	perf_loop(PERF_WORK);
	/* Once is enough under icount. Linux at -smp 2 without it has read 0: CPU 0's
	 * local_clock had not moved since the start (this task may run on CPU 1). */
	for (int i = 0; i < 1000 && !perf_value(fd); i++)
		perf_loop(PERF_WORK);
	EXPECT_GT(perf_value(fd), 0);
	close(fd);
	EXPECT_ERRNO(perf_open(&attr, -1, -1, -1, 0), EINVAL);
	EXPECT_ERRNO(perf_open(&attr, -1, (int)sysconf(_SC_NPROCESSORS_ONLN), -1, 0), EINVAL);
}

TEST(open_flags)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC << 1), EINVAL);
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 1UL << 63), EINVAL);
	int fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFD), 0);
	EXPECT_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	close(fd);
	fd = perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	close(fd);
}

/* Cgroup mode needs a CPU and a cgroup directory's fd in pid; the console is no such thing. */
TEST(cgroup_flag)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	EXPECT_ERRNO(perf_open(&attr, 1, -1, -1, PERF_FLAG_PID_CGROUP), EINVAL);
	EXPECT_ERRNO(perf_open(&attr, -1, 0, -1, PERF_FLAG_PID_CGROUP), EINVAL);
	EXPECT_ERRNO(perf_open(&attr, 1, 0, -1, PERF_FLAG_PID_CGROUP), EBADF);
}

TEST(group_fd_must_be_an_event)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);

	close(fd);
	EXPECT_ERRNO(perf_open(&attr, 0, -1, fd, 0), EBADF);
	EXPECT_ERRNO(perf_open(&attr, 0, -1, 1, 0), EBADF);
	EXPECT_ERRNO(perf_open(&attr, 0, -1, 1000, 0), EBADF);
}

/* Members share the leader's task or CPU and its inherit; only a leader is pinned or exclusive. */
TEST(group_rules)
{
	int leader = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);
	int sibling = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, leader);
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	EXPECT_ERRNO(perf_open(&attr, 0, -1, sibling, 0), EINVAL);
	EXPECT_ERRNO(perf_open(&attr, -1, 0, leader, 0), EINVAL);
	EXPECT_ERRNO(perf_open(&attr, 0, 0, leader, 0), EINVAL);
	attr.pinned = 1;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, leader, 0), EINVAL);
	attr.pinned = 0;
	attr.exclusive = 1;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, leader, 0), EINVAL);
	attr.exclusive = 0;
	attr.inherit = 1;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, leader, 0), EINVAL);
	attr.inherit = 0;
	int cpu_leader = perf_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(cpu_leader, 0);
	EXPECT_ERRNO(perf_open(&attr, 0, -1, cpu_leader, 0), EINVAL);
	int cpu_sibling = perf_open(&attr, -1, 0, cpu_leader, 0);
	EXPECT_GE(cpu_sibling, 0);
	close(cpu_sibling);
	close(cpu_leader);
	close(sibling);
	close(leader);
}

/* nr, the first word of a PERF_FORMAT_GROUP read: how many events the group has. */
static uint64_t group_size(int leader)
{
	uint64_t buf[16];

	ASSERT_GT(read(leader, buf, sizeof(buf)), 0);
	return buf[0];
}

TEST(no_group_flag)
{
	int leader = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_GROUP, true, -1);
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int fd = perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_NO_GROUP);

	ASSERT_GE(fd, 0);
	close(fd);
	fd = perf_open(&attr, 0, -1, leader, PERF_FLAG_FD_NO_GROUP);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(group_size(leader), 1);
	close(fd);
	close(leader);
}

/* FD_OUTPUT sends the new event's records to group_fd's ring, which must be mapped. */
TEST(output_flag)
{
	int leader = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_GROUP, true, -1);
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int fd = perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_OUTPUT);

	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_ERRNO(perf_open(&attr, 0, -1, leader, PERF_FLAG_FD_OUTPUT), EINVAL);
	struct perf_event_mmap_page *page = perf_map(leader);
	int lone = perf_open(&attr, 0, -1, leader, PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP);
	EXPECT_GE(lone, 0);
	EXPECT_EQ(group_size(leader), 1);
	fd = perf_open(&attr, 0, -1, leader, PERF_FLAG_FD_OUTPUT);
	EXPECT_GE(fd, 0);
	EXPECT_EQ(group_size(leader), 2);
	close(fd);
	close(lone);
	munmap(page, PERF_PAGE);
	close(leader);
}

/* Software events may join a hardware group, and a hardware event a software-only group. */
TEST(hardware_groups)
{
	int hw_leader = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, PERF_FORMAT_GROUP, true, -1);
	int sw = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, hw_leader);
	int sw_leader = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_GROUP, true, -1);
	int hw = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, true, sw_leader);

	EXPECT_EQ(group_size(hw_leader), 2);
	EXPECT_EQ(group_size(sw_leader), 2);
	close(hw);
	close(sw_leader);
	close(sw);
	close(hw_leader);
}
