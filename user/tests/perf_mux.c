/* user/tests/perf_mux.c: more events than counters: rotation, time_enabled/time_running scaling, pinned errors. */
#include "ktap.h"
#include "perf.h"

#include <sys/prctl.h>
#include <unistd.h>

#define MANY 16          /* events: more than any x86 PMU has counters */
#define GROUPS 8         /* pairs of events: MANY counters wanted at once */
#define CHUNK 1000000    /* loop turns between two looks at the groups */
#define MAX_CHUNKS 400

/* A software event never waits for a counter: however many, each runs whenever enabled. */
TEST(software_events_never_multiplex)
{
	int fds[MANY];

	for (int i = 0; i < MANY; i++) {
		struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

		attr.read_format = PERF_FORMAT_TIMES;
		attr.pinned = i % 2;
		fds[i] = perf_open(&attr, 0, -1, -1, 0);
		ASSERT_GE(fds[i], 0);
	}
	perf_loop(PERF_WORK);
	for (int i = 0; i < MANY; i++) {
		uint64_t buf[3];

		perf_read_words(fds[i], buf, 3);
		EXPECT_GT(buf[0], 0);
		EXPECT_GT(buf[1], 0);
		EXPECT_EQ(buf[1], buf[2]);
		close(fds[i]);
	}
}

/* A group is scheduled whole or not at all, so one that cannot fit the PMU is refused at open. */
TEST(oversized_group_refused)
{
	int fds[4 * MANY], n = 1, err = 0;

	fds[0] = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, true, -1);
	for (; n < 4 * MANY; n++) {
		struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

		attr.exclude_kernel = attr.exclude_hv = 1;
		fds[n] = perf_open(&attr, 0, -1, fds[0], 0);
		if (fds[n] < 0) {
			err = errno;
			break;
		}
	}
	ktap_print("a group takes %d instructions events", n);
	EXPECT_EQ(err, EINVAL);
	EXPECT_GE(n, 2);
	while (n-- > 0)
		close(fds[n]);
}

struct pair {
	int leader, sibling;
	uint64_t nr, enabled, running, value[2];
};

static void read_pair(struct pair *p)
{
	perf_read_words(p->leader, &p->nr, 5);
}

/*
 * Eight groups of two user-instruction events want sixteen counters, so they take turns.
 * Each turn a group counts while the same loop runs, so value * enabled / running estimates
 * the whole run's instructions; both members of a group always count the same stretches.
 */
TEST(rotation_scales_counts)
{
	struct pair g[GROUPS];
	int chunks = 0, all_ran = 0;

	for (int i = 0; i < GROUPS; i++) {
		g[i].leader = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, PERF_FORMAT_GROUP | PERF_FORMAT_TIMES,
					   true, -1);
		g[i].sibling = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, true, g[i].leader);
	}
	ASSERT_EQ(prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0), 0);
	/* Run until every group has had a turn, then as long again. */
	while (chunks < MAX_CHUNKS && (!all_ran || chunks < 2 * all_ran)) {
		perf_loop(CHUNK);
		chunks++;
		bool ran = true;
		for (int i = 0; i < GROUPS; i++) {
			read_pair(&g[i]);
			ran = ran && g[i].running > 0;
		}
		if (ran && !all_ran)
			all_ran = chunks;
	}
	ASSERT_EQ(prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0), 0);
	ktap_print("every group had a turn after %d of %d chunks", all_ran, chunks);
	ASSERT_NE(all_ran, 0);
	uint64_t expect = (uint64_t)chunks * CHUNK * PERF_LOOP_INSNS;
	bool multiplexed = false;
	for (int i = 0; i < GROUPS; i++) {
		read_pair(&g[i]);
		EXPECT_EQ(g[i].nr, 2);
		EXPECT_GT(g[i].running, 0);
		EXPECT_LE(g[i].running, g[i].enabled);
		EXPECT_EQ(g[i].value[0], g[i].value[1]);
		multiplexed = multiplexed || g[i].running < g[i].enabled;
		uint64_t scaled = (uint64_t)((double)g[i].value[0] * g[i].enabled / g[i].running);
		ktap_print("group %d: %llu counted in %llu of %llu ns, scaled %llu (loop: %llu)", i,
			   (unsigned long long)g[i].value[0], (unsigned long long)g[i].running,
			   (unsigned long long)g[i].enabled, (unsigned long long)scaled,
			   (unsigned long long)expect);
		EXPECT_GT(scaled, expect - expect / 20);
		EXPECT_LT(scaled, expect + expect / 20);
		close(g[i].sibling);
		close(g[i].leader);
	}
	EXPECT_TRUE(multiplexed);
}

/*
 * Pinned events never rotate: once the counters are taken, the next pinned event goes into
 * error state and read() returns 0 (end of file) until an ioctl enables it again.
 */
TEST(pinned_error_state)
{
	int fds[MANY], n_ok = 0;

	for (int i = 0; i < MANY; i++) {
		struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

		attr.exclude_kernel = attr.exclude_hv = attr.pinned = 1;
		fds[i] = perf_open_hw_attr(&attr, -1);
	}
	for (int i = 0; i < MANY; i++) {
		uint64_t v;
		ssize_t got = read(fds[i], &v, sizeof(v));

		if (got == 8 && i == n_ok)
			n_ok++;
		else
			EXPECT_EQ(got, 0); /* after the first that found no counter, none does */
	}
	ktap_print("%d pinned instructions events fit", n_ok);
	ASSERT_GT(n_ok, 0);
	ASSERT_LT(n_ok, MANY);
	/* A flexible event gets no turn while the pinned ones hold every counter. */
	int flex = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, PERF_FORMAT_TIMES, false, -1);
	uint64_t buf[3];
	perf_loop(PERF_WORK);
	perf_read_words(flex, buf, 3);
	EXPECT_GT(buf[1], 0);
	EXPECT_EQ(buf[2], 0);
	EXPECT_EQ(buf[0], 0);
	close(flex);
	/* Freeing one counter lets the first failed event back in, once it is enabled. */
	uint64_t v;
	close(fds[0]);
	EXPECT_EQ(read(fds[n_ok], &v, sizeof(v)), 0);
	ASSERT_EQ(perf_ioctl(fds[n_ok], PERF_EVENT_IOC_ENABLE, 0), 0);
	EXPECT_EQ(read(fds[n_ok], &v, sizeof(v)), 8);
	for (int i = 1; i < MANY; i++)
		close(fds[i]);
}
