/* user/tests/persist_release.c: the last of three programs (seed 001): reopens the
 * persistent event, makes it mortal with PERF_EVENT_IOC_ATTACH and closes it; the event,
 * its ring and their pages return to the allocator. */
#include "ktap.h"
#include "perf.h"
#include "pmuos.h"

#include <errno.h>
#include <unistd.h>
#include <pmuos/perf_ext.h>

#define RING_PAGES 9	/* the control page and 8 data pages persist_create mapped */

TEST(attach_and_close_frees_everything)
{
	if (!ktap_on_pmuos())
		SKIP("persistent events are a pmuos extension (seed 001)");
	uint64_t id = pmuos_persistent_first_id();
	ASSERT_GT(id, 0);
	long events = pmuos_accounting("perf_events"), rings = pmuos_accounting("perf_rings");
	long frames = pmuos_accounting("frames_free");
	ASSERT_GE(events, 1);
	ASSERT_GE(rings, 1);

	struct perf_event_attr attr = perf_attr(pmuos_persistent_type(), id);
	int fd = perf_open(&attr, -1, 0, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ATTACH, 0), 0);
	EXPECT_EQ(pmuos_persistent_first_id(), 0);	/* no longer listed */
	close(fd);

	EXPECT_EQ(pmuos_accounting("perf_events"), events - 1);
	EXPECT_EQ(pmuos_accounting("perf_rings"), rings - 1);
	EXPECT_GE(pmuos_accounting("frames_free"), frames + RING_PAGES);
	attr = perf_attr(pmuos_persistent_type(), id);
	EXPECT_ERRNO(perf_open(&attr, -1, 0, -1, 0), ENOENT);
}
