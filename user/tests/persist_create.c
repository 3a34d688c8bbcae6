/* user/tests/persist_create.c: the first of three programs (seed 001): makes a CPU-wide
 * sampling event persistent with its ring and exits; persist_reopen and persist_release,
 * run next as the following modules, find it again. On Linux it checks the refusals. */
#include "ktap.h"
#include "perf.h"
#include "pmuos.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pmuos/perf_ext.h>

#define DATA_PAGES 8

/* Bit 41 of the flag word is attr.persistent. */
static void set_persistent(struct perf_event_attr *attr)
{
	uint64_t *flags = (uint64_t *)((char *)attr + PMUOS_ATTR_FLAGS_OFFSET);

	*flags |= 1ull << PMUOS_ATTR_FLAG_PERSISTENT_BIT;
}

/* Linux knows none of it: the flag is a reserved bit, the ioctls unknown. */
TEST(linux_refuses_the_extension)
{
	if (ktap_on_pmuos())
		SKIP("pmuos implements seed 001");
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	set_persistent(&attr);
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EINVAL);
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_DETACH, 0), ENOTTY);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_ATTACH, 0), ENOTTY);
	EXPECT_EQ(pmuos_persistent_type(), -1);
	close(fd);
}

/* A CPU-wide cpu-clock sampler every 50 us, kernel and user: it keeps
 * sampling between programs, where only the kernel runs. */
TEST(detach_makes_a_listed_persistent_event)
{
	if (!ktap_on_pmuos())
		SKIP("persistent events are a pmuos extension (seed 001)");
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	attr.sample_period = 50000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	int fd = perf_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, DATA_PAGES);
	ASSERT_TRUE(pc != NULL);

	long id = perf_ioctl(fd, PERF_EVENT_IOC_DETACH, 0);
	ASSERT_GT(id, 0);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DETACH, 0), id);	/* idempotent */
	EXPECT_EQ(pmuos_persistent_first_id(), (uint64_t)id);
	EXPECT_GT(pmuos_persistent_type(), PERF_TYPE_MAX - 1);
	ktap_print("persistent event p%ld, creator pid %d", id, getpid());
	/* Exit with the ring mapped and the fd open: both go at exit. */
}

/* attr.persistent at open does what DETACH does; ATTACH undoes it. */
TEST(attr_persistent_then_attach)
{
	if (!ktap_on_pmuos())
		SKIP("persistent events are a pmuos extension (seed 001)");
	long events = pmuos_accounting("perf_events");
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	set_persistent(&attr);
	int fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ATTACH, 0), 0);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_ATTACH, 0), EINVAL);
	close(fd);
	EXPECT_EQ(pmuos_accounting("perf_events"), events);
}
