/* user/tests/persist_reopen.c: the second of three programs (seed 001): reopens the
 * persistent event persist_create left, by id, maps its ring and finds the samples taken
 * while no fd existed, the kernel's work between the two programs included. */
#include "ktap.h"
#include "perf.h"
#include "pmuos.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <pmuos/perf_ext.h>

#define DATA_PAGES 8

struct sample {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
};

static struct perf_event_attr reopen_attr(uint64_t id)
{
	struct perf_event_attr attr = perf_attr(pmuos_persistent_type(), id);

	return attr;
}

TEST(reopen_errors)
{
	if (!ktap_on_pmuos())
		SKIP("persistent events are a pmuos extension (seed 001)");
	uint64_t id = pmuos_persistent_first_id();
	ASSERT_GT(id, 0);
	struct perf_event_attr attr = reopen_attr(id + 1000);
	EXPECT_ERRNO(perf_open(&attr, -1, 0, -1, 0), ENOENT);
	attr = reopen_attr(id);
	EXPECT_ERRNO(perf_open(&attr, -1, -1, -1, 0), EINVAL);	/* CPU-wide: cpu 0 */
	EXPECT_ERRNO(perf_open(&attr, 0, 0, -1, 0), EINVAL);	/* reopened by id, not task */
	attr.sample_type = PERF_SAMPLE_ADDR;			/* not the event's */
	EXPECT_ERRNO(perf_open(&attr, -1, 0, -1, 0), EINVAL);
}

TEST(ring_kept_the_samples_taken_between_programs)
{
	if (!ktap_on_pmuos())
		SKIP("persistent events are a pmuos extension (seed 001)");
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	uint64_t started = start.tv_sec * 1000000000ull + start.tv_nsec;
	uint64_t id = pmuos_persistent_first_id();
	ASSERT_GT(id, 0);
	struct perf_event_attr attr = reopen_attr(id);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;	/* its own: fine */
	int fd = perf_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, DATA_PAGES);
	ASSERT_TRUE(pc != NULL);
	EXPECT_GT(pc->data_head, 0);

	unsigned creator = 0, between = 0, before = 0, mine = 0;
	uint64_t pos = pc->data_tail;
	struct sample s;
	while (perf_ring_find(pc, &pos, PERF_RECORD_SAMPLE, &s, sizeof(s))) {
		creator += s.pid == (uint32_t)getpid() - 1;
		mine += s.pid == (uint32_t)getpid();
		between += s.pid == 1 || s.pid == 0;	/* init's work, or the kernel's */
		before += s.time < started;
	}
	ktap_print("samples: %u of the creator, %u of init or the kernel between programs, "
		   "%u of this one, %u before it started", creator, between, mine, before);
	EXPECT_GT(creator, 0);
	EXPECT_GT(between, 0);
	EXPECT_GT(before, 0);
	perf_ring_unmap(pc);
	close(fd);	/* it stays: still persistent */
	EXPECT_EQ(pmuos_persistent_first_id(), id);
}
