/* The interface between the generic perf core (kernel/perf/) and the PMUs
 * (kernel/pmu/): struct pmu and its contract, struct perf_event, and the
 * calls a driver makes back into the core. */
#pragma once
#include "../kernel.h"
#include "../clock.h"
#include "../timer.h"
#include <linux/perf_event.h>

struct perf_event;
struct perf_event_context;
struct pt_regs;
struct file;
struct task;

/* pmu->add/del/start/stop flags (Linux's values) */
#define PERF_EF_START	0x01	/* add: start counting at once */
#define PERF_EF_RELOAD	0x02	/* start: reprogram the counter from period_left */
#define PERF_EF_UPDATE	0x04	/* stop/del: fold the counter into event->count */

/* hw.state */
#define PERF_HES_STOPPED	0x01	/* the counter does not count */
#define PERF_HES_UPTODATE	0x02	/* event->count holds the counter's value */

/* pmu->capabilities */
#define PERF_PMU_CAP_NO_INTERRUPT	0x01	/* cannot sample */
#define PERF_PMU_CAP_AUX_OUTPUT		0x02	/* writes an AUX area */

struct hw_perf_event {
	/* Set by perf_event_init (see struct perf_event). */
	uint64_t sample_period;		/* 0: counting only */
	int64_t period_left;
	uint64_t last_period;
	/* Zeroed by the allocation (idx, then set by perf_event_init, too). */
	int idx;			/* counter index, -1 while not on a counter */
	int rdpmc_index;		/* RDPMC's ECX for this counter */
	uint64_t config;		/* the event-select value, vendor format */
	unsigned long config_base;	/* its MSR */
	unsigned long event_base;	/* the counter's MSR */
	int state;			/* PERF_HES_* */
	uint64_t prev_count;		/* the counter's raw value when last folded */
	uint64_t interrupts;		/* overflows in this throttling window */
	uint64_t interrupts_seq;	/* which window */
	uint64_t freq_time_stamp;	/* sample_freq adaptation (sampling issue) */
	uint64_t freq_count_stamp;
	struct timer timer;		/* software clocks: the sampling timer */
};

/* A sysfs file of a PMU: /sys/bus/event_source/devices/<pmu>/<dir>/<name>. */
struct pmu_attr {
	const char *name;
	const char *value;		/* the file's text, without the newline */
};

/*
 * struct pmu: one per counter source (the x86 hardware PMU, software events,
 * itrace...). The core calls these and nothing else; all run with
 * interrupts off on the one CPU.
 *
 * event_init(e)  attr checks of the PMU's own; fill e->hw. -ENOENT if the
 *                event is not this PMU's (the core then asks the next),
 *                another -errno to refuse it. Called from perf_event_open.
 * add(e, flags)  claim a counter for e (schedule it onto the hardware);
 *                -EAGAIN when none fits. With PERF_EF_START also start it;
 *                without, add() must equal add() then stop().
 * del(e, flags)  stop e if running (folding its count: PERF_EF_UPDATE is
 *                implied) and release its counter. Disabling and
 *                multiplexing rotation use add/del: rotation must free
 *                counters for the next group (seed 004's distinction).
 * start(e, flags) resume counting on the counter e already holds; with
 *                PERF_EF_RELOAD reprogram it from hw.period_left first.
 * stop(e, flags) pause counting, keeping the counter (hw.idx unchanged);
 *                with PERF_EF_UPDATE fold the count into e->count. Period
 *                changes and throttling use stop/start.
 * read(e)        fold the running counter's value into e->count.
 * event_idx(e)   the mmap page's index for e: RDPMC index + 1, 0 if none.
 * flush(e)       optional (seed 000): push internally buffered samples into
 *                the rings; when it returns they are all there.
 * setup_aux/free_aux optional (seed 002): the driver's private AUX state.
 * event_mapped/event_unmapped optional: the event's control page was mapped
 *                into / unmapped from the current task (x86: user RDPMC).
 * modify(e, attr) optional (PERF_EVENT_IOC_MODIFY_ATTRIBUTES): take attr's
 *                changes in place, with e disabled; -errno leaves e as it
 *                was. Without it the ioctl is EOPNOTSUPP (Linux: only
 *                breakpoints can be modified).
 * pmc_width      bits of the counters, for the mmap page (0: no RDPMC).
 */
struct pmu {
	const char *name;
	int type;			/* PERF_TYPE_*, or -1: a dynamic type is assigned */
	unsigned capabilities;
	const struct pmu_attr *format;	/* NULL-terminated lists for sysfs */
	const struct pmu_attr *events;
	const struct pmu_attr *caps;

	int (*event_init)(struct perf_event *e);
	int (*add)(struct perf_event *e, int flags);
	void (*del)(struct perf_event *e, int flags);
	void (*start)(struct perf_event *e, int flags);
	void (*stop)(struct perf_event *e, int flags);
	void (*read)(struct perf_event *e);
	int (*event_idx)(struct perf_event *e);
	void (*flush)(struct perf_event *e);
	void *(*setup_aux)(struct perf_event *e, void **pages, int nr_pages, bool overwrite);
	void (*free_aux)(void *aux);
	void (*event_mapped)(struct perf_event *e);
	void (*event_unmapped)(struct perf_event *e);
	int (*modify)(struct perf_event *e, struct perf_event_attr *attr);
	unsigned pmc_width;

	struct pmu *next;		/* registration list */
};

enum perf_event_state {
	PERF_EVENT_STATE_DEAD = -4,
	PERF_EVENT_STATE_EXIT = -3,	/* its task exited: read gives the final count */
	PERF_EVENT_STATE_ERROR = -2,	/* pinned and could not be scheduled: read gives 0 bytes */
	PERF_EVENT_STATE_OFF = -1,
	PERF_EVENT_STATE_INACTIVE = 0,
	PERF_EVENT_STATE_ACTIVE = 1,
};

/*
 * The fields from pmu to hw.last_period are perf_event_init's, which sets
 * each of them before anything reads it: the allocation (event_alloc)
 * zeroes only what follows (PERF_EVENT_ZEROED_FROM), some 70 bytes fewer a
 * perf_event_open. event.c asserts that nothing else lies in between.
 */
struct perf_event {
	struct perf_event_attr attr;
	struct pmu *pmu;
	struct perf_event *group_leader;
	uint64_t id;			/* PERF_EVENT_IOC_ID, PERF_FORMAT_ID */
	enum perf_event_state state;
	int oncpu;			/* the CPU whose PMU has it, -1 while off */
	int event_limit;		/* PERF_EVENT_IOC_REFRESH */
	int refs;
	struct hw_perf_event hw;
	uint64_t count;			/* drivers add deltas here */
	int cpu;			/* perf_event_open's: -1, or the one CPU it counts on */
	int target_pid;			/* the task it follows; 0: CPU-wide */

	struct perf_event *sibling_next;	/* the leader's siblings, in order */
	int nr_siblings;
	struct perf_event *ctx_next;	/* the context's group leaders */
	struct perf_event_context *ctx;

	uint64_t total_time_enabled, total_time_running;
	uint64_t tstamp;		/* when the times were last updated */
	uint64_t lost_samples;		/* PERF_FORMAT_LOST */
	struct file *file;
	struct task *owner;		/* the task that opened it (prctl) */
	struct perf_event *active_next;	/* the PMU's own list of its active events */
	void *pmu_private;
	/* Set by event_init when the PMU keeps state of e's (pmu_private):
	 * perf_event_free calls it. A failing event_init cleans up itself. */
	void (*destroy)(struct perf_event *e);
	struct perf_buffer *rb;		/* the ring (sampling issue) */

	/* Work an overflow leaves for after the NMI (overflow.c). */
	struct perf_event *pending_next;
	bool pending_queued, pending_wakeup, pending_disable, pending_sigtrap;
	int pending_kill;		/* POLL_IN / POLL_HUP for SIGIO, 0: none */
	uint64_t pending_addr;		/* si_addr for sigtrap */
	struct perf_event *throttled_next;
	bool throttled_queued;		/* on throttled_cpu's throttled list */
	uint8_t pending_cpu;		/* whose pending list holds it while pending_queued */
	uint8_t throttled_cpu;
	bool persistent;		/* seed 001: outlives its last fd */
	/* inherit: a copy's original (referenced), and what the copies that
	 * have exited counted, which read() adds to the original's own. */
	int nr_copies;			/* the original's: its live copies (Linux's child list,
					 * found in the tasks' contexts while this is not 0) */
	struct perf_event *parent;
	uint64_t child_count, child_total_time_enabled, child_total_time_running;
	struct perf_event *persistent_next;
};

/* For drivers. */
int perf_pmu_register(struct pmu *pmu);
/* For PMUs that go away (the self-tests' fake one): no events may remain. */
void perf_pmu_unregister(struct pmu *pmu);
/* The registered PMUs, in registration order (sysfs walks them). */
extern struct pmu *perf_pmus;
/* Refresh the event's mmap control page (index, offset, time fields), if
 * it has a buffer: the test inline, as most events have none. On the CPU
 * where e counts or would (perf_event_call from another): the page's
 * seqlock is a plain count, shared by nested writers only (ring.c). */
void __perf_event_update_userpage(struct perf_event *e);
static inline void perf_event_update_userpage(struct perf_event *e)
{
	if (READ_ONCE(e->rb))
		__perf_event_update_userpage(e);
}
/* A sampling event's counter overflowed (from the PMI, NMI or timer context,
 * interrupts off): record what attr asks for. Returns 1 when the driver must
 * stop the event (throttled, or its REFRESH limit reached), else 0. */
int perf_event_overflow(struct perf_event *e, struct pt_regs *regs);
/* The same, with PERF_SAMPLE_ADDR's value (software events: fault address). */
int perf_event_overflow_addr(struct perf_event *e, struct pt_regs *regs, uint64_t addr);
/* This CPU's overflows and unthrottlings so far: an interrupt that sees
 * this change did sampling work. */
unsigned long perf_sample_work_now(void);
/* An interrupt (or NMI) that took tsc cycles, from its entry to its EOI,
 * had perf_sample_work_now() at before when it began: if it sampled, all of it
 * counts against the sampling CPU budget of the current window, past which
 * overflowing events are throttled. */
void perf_irq_took(unsigned long before, uint64_t tsc);
/* Sampling work of tsc cycles that no handler timed (the simulated PMU's
 * own interrupts around its PMI): counted against the budget as it is. */
void perf_sample_event_took(uint64_t tsc);
static inline bool is_sampling_event(const struct perf_event *e)
{
	return e->attr.sample_period != 0;
}
/* The perf clock in ns (clock.h: the TSC through time_mult/time_shift, the
 * same conversion the mmap page gives user space). */
static inline uint64_t perf_clock(void)
{
	return clock_perf_ns();
}
