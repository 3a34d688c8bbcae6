/* The software PMU (type PERF_TYPE_SOFTWARE, "software"): the clocks read
 * the TSC through the perf clock; the other events are counted where they
 * happen (perf_sw_event). Linux 6.1's set (PERF_COUNT_SW_MAX = 12). */
#include "sw.h"
#include "../task.h"
#include "../traps.h"
#include "../x86.h"
#include "../perf/internal.h"
#include <asm-generic/errno.h>

/* Active events by config, so a fault finds its counters at once. */
static struct perf_event *active[PERF_COUNT_SW_MAX];

/* The clocks' sources, in ns: CPU time for cpu-clock, the task's own time
 * (halted time excluded) for task-clock. */
static uint64_t clock_now(const struct perf_event *e)
{
	if (e->attr.config == PERF_COUNT_SW_CPU_CLOCK)
		return perf_clock();
	if (!current)
		return 0;
	return perf_clock_cycles_to_ns(rdtsc() - current->idle_tsc, NULL, NULL);
}

static bool is_clock(const struct perf_event *e)
{
	return e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
	       e->attr.config == PERF_COUNT_SW_TASK_CLOCK;
}

static int sw_event_init(struct perf_event *e)
{
	if (e->attr.type != PERF_TYPE_SOFTWARE)
		return -ENOENT;
	if (e->attr.config >= PERF_COUNT_SW_MAX)
		return -ENOENT;
	if (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;	/* no branch sampling for software events */
	return 0;
}

static void sw_read(struct perf_event *e)
{
	if (!is_clock(e) || (e->hw.state & PERF_HES_STOPPED))
		return;
	uint64_t now = clock_now(e);
	e->count += now - e->hw.prev_count;
	e->hw.prev_count = now;
}

static void sw_start(struct perf_event *e, int flags)
{
	if (is_clock(e))
		e->hw.prev_count = clock_now(e);
	e->hw.state = 0;
}

static void sw_stop(struct perf_event *e, int flags)
{
	if (flags & PERF_EF_UPDATE)
		sw_read(e);
	e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int sw_add(struct perf_event *e, int flags)
{
	struct perf_event **head = &active[e->attr.config];

	e->active_next = *head;
	*head = e;
	e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		sw_start(e, PERF_EF_RELOAD);
	return 0;	/* software events never fail to schedule */
}

static void sw_del(struct perf_event *e, int flags)
{
	sw_stop(e, PERF_EF_UPDATE);
	for (struct perf_event **link = &active[e->attr.config]; *link;
	     link = &(*link)->active_next) {
		if (*link == e) {
			*link = e->active_next;
			break;
		}
	}
	e->active_next = NULL;
}

void perf_sw_event(unsigned id, uint64_t n, const struct pt_regs *regs)
{
	bool user = regs && user_mode(regs);

	for (struct perf_event *e = active[id]; e; e = e->active_next) {
		if (e->hw.state & PERF_HES_STOPPED)
			continue;
		if (user ? e->attr.exclude_user : e->attr.exclude_kernel)
			continue;
		e->count += n;
	}
}

static struct pmu sw_pmu = {
	.name = "software",
	.type = PERF_TYPE_SOFTWARE,
	.event_init = sw_event_init,
	.add = sw_add,
	.del = sw_del,
	.start = sw_start,
	.stop = sw_stop,
	.read = sw_read,
};

void sw_pmu_init(void)
{
	perf_pmu_register(&sw_pmu);
}
