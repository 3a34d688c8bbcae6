/* Self-tests of the perf core's scheduling on a fake two-counter PMU:
 * multiplexing by rotation, all-or-nothing groups, pinned groups that
 * cannot fit going to the error state, start/stop keeping the counter. */
#include "../../ktest.h"
#include "../../timer.h"
#include "../../x86.h"
#include "../internal.h"
#include <asm-generic/errno.h>

#define FAKE_COUNTERS 2

static struct perf_event *fake_slot[FAKE_COUNTERS];
static bool fake_registered;

static int fake_event_init(struct perf_event *e)
{
	return e->attr.type == (uint32_t)e->pmu->type ? 0 : -ENOENT;
}

static void fake_read(struct perf_event *e)
{
	uint64_t now = rdtsc();

	if (!(e->hw.state & PERF_HES_STOPPED))
		e->count += now - e->hw.prev_count;
	e->hw.prev_count = now;
}

static void fake_start(struct perf_event *e, int flags)
{
	e->hw.prev_count = rdtsc();
	e->hw.state = 0;
}

static void fake_stop(struct perf_event *e, int flags)
{
	fake_read(e);
	e->hw.state = PERF_HES_STOPPED;
}

static int fake_add(struct perf_event *e, int flags)
{
	for (int i = 0; i < FAKE_COUNTERS; i++) {
		if (!fake_slot[i]) {
			fake_slot[i] = e;
			e->hw.idx = i;
			e->hw.state = PERF_HES_STOPPED;
			if (flags & PERF_EF_START)
				fake_start(e, 0);
			return 0;
		}
	}
	return -EAGAIN;
}

static void fake_del(struct perf_event *e, int flags)
{
	fake_stop(e, 0);
	fake_slot[e->hw.idx] = NULL;
	e->hw.idx = -1;
}

static struct pmu fake_pmu = {
	.name = "ktest-fake",
	.type = -1,
	.event_init = fake_event_init,
	.add = fake_add,
	.del = fake_del,
	.start = fake_start,
	.stop = fake_stop,
	.read = fake_read,
};

static struct perf_event *open_fake(struct perf_event *leader, bool pinned)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .pinned = pinned };
	int err;

	if (!fake_registered)
		perf_pmu_register(&fake_pmu);
	fake_registered = true;
	attr.type = fake_pmu.type;
	struct perf_event *e = perf_event_alloc(&attr, leader, &err);
	if (e)
		perf_install_in_context(perf_cpu_context(0), e);
	return e;
}

/* The last close unregisters the PMU, so it never shows in sysfs. */
static void close_fake(struct perf_event *e)
{
	perf_remove_from_context(e);
	perf_event_free(e);
	if (!fake_slot[0] && !fake_slot[1] && !perf_cpu_context(0)->nr_events) {
		perf_pmu_unregister(&fake_pmu);
		fake_registered = false;
	}
}

/* Let the rotation timer run a few times. */
static void wait_rotations(int n)
{
	unsigned long start = timer_interrupts;

	while (timer_interrupts - start < (unsigned long)n)
		sti_hlt();
	cli();
}

KTEST(perf_multiplexes_more_events_than_counters)
{
	struct perf_event *e[3];

	for (int i = 0; i < 3; i++)
		KASSERT((e[i] = open_fake(NULL, false)));
	wait_rotations(6);
	uint64_t running = 0;
	for (int i = 0; i < 3; i++) {
		perf_event_read_update(e[i]);
		KEXPECT(e[i]->total_time_running > 0);
		KEXPECT(e[i]->total_time_running < e[i]->total_time_enabled);
		running += e[i]->total_time_running;
	}
	/* Two counters for three events: about two thirds each. */
	KEXPECT(running > e[0]->total_time_enabled);
	for (int i = 0; i < 3; i++)
		close_fake(e[i]);
	KEXPECT(!fake_slot[0] && !fake_slot[1]);
}

KTEST(perf_group_is_all_or_nothing)
{
	struct perf_event *l = open_fake(NULL, false);
	KASSERT(l);
	struct perf_event *s1 = open_fake(l, false), *s2 = open_fake(l, false);
	KASSERT(s1 && s2);
	/* Three members, two counters: the group never goes on. */
	KEXPECT_EQ(l->state, PERF_EVENT_STATE_INACTIVE);
	KEXPECT_EQ(s1->state, PERF_EVENT_STATE_INACTIVE);
	KEXPECT(!fake_slot[0] && !fake_slot[1]);
	close_fake(s2);
	close_fake(s1);
	close_fake(l);
}

KTEST(perf_pinned_group_that_cannot_fit_errors)
{
	struct perf_event *a = open_fake(NULL, true), *b = open_fake(NULL, true);
	struct perf_event *c = open_fake(NULL, true);

	KASSERT(a && b && c);
	KEXPECT_EQ(a->state, PERF_EVENT_STATE_ACTIVE);
	KEXPECT_EQ(b->state, PERF_EVENT_STATE_ACTIVE);
	KEXPECT_EQ(c->state, PERF_EVENT_STATE_ERROR);
	close_fake(c);
	close_fake(b);
	close_fake(a);
}

KTEST(perf_stop_start_keeps_the_counter)
{
	struct perf_event *e = open_fake(NULL, false);

	KASSERT(e);
	int idx = e->hw.idx;
	KEXPECT(idx >= 0);
	e->pmu->stop(e, PERF_EF_UPDATE);
	e->pmu->start(e, PERF_EF_RELOAD);
	KEXPECT_EQ(e->hw.idx, idx);
	KEXPECT(fake_slot[idx] == e);
	perf_event_disable(e);		/* disable releases it (del) */
	KEXPECT_EQ(e->hw.idx, -1);
	close_fake(e);
}

/* internal.h's ATTR_FLAG_* are the bits of the fields they name. */
KTEST(attr_flag_bits)
{
	struct perf_event_attr a = { .inherit = 1 };

	KEXPECT_EQ(perf_attr_flags(&a), ATTR_FLAG_INHERIT);
	a = (struct perf_event_attr){ .freq = 1 };
	KEXPECT_EQ(perf_attr_flags(&a), ATTR_FLAG_FREQ);
	a = (struct perf_event_attr){ .use_clockid = 1 };
	KEXPECT_EQ(perf_attr_flags(&a), ATTR_FLAG_USE_CLOCKID);
	a = (struct perf_event_attr){ .aux_output = 1 };
	KEXPECT_EQ(perf_attr_flags(&a), ATTR_FLAG_AUX_OUTPUT);
	a = (struct perf_event_attr){ .inherit_thread = 1 };
	KEXPECT_EQ(perf_attr_flags(&a), ATTR_FLAG_INHERIT_THREAD);
	a = (struct perf_event_attr){ .remove_on_exec = 1 };
	KEXPECT_EQ(perf_attr_flags(&a), ATTR_FLAG_REMOVE_ON_EXEC);
	a = (struct perf_event_attr){ .sigtrap = 1 };
	KEXPECT_EQ(perf_attr_flags(&a), ATTR_FLAG_SIGTRAP);
}
