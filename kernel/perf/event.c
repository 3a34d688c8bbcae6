/* Events and contexts: allocation, counting time, and putting groups onto
 * the PMUs with add/del (pinned groups first, then flexible ones, which the
 * rotation timer multiplexes when counters run out). */
#include "internal.h"
#include "../clock.h"
#include "../entry_work.h"
#include "../kernel_lock.h"
#include "../panic.h"
#include "../smp.h"
#include "../task.h"
#include "../tsc.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../mm/kmalloc.h"
#include "../mm/pool.h"
#include <asm-generic/errno.h>

/* Linux's perf_event_mux_interval_ms: one tick. */
#define ROTATION_NS	TICK_NS

DEFINE_PER_CPU(struct perf_event_context, perf_cpu_ctx);
struct perf_stats perf_stats;
struct pmu *perf_pmus;
static int next_dynamic_type = PERF_TYPE_MAX;
static uint64_t next_id = 1;
/* Each CPU multiplexes its own contexts (its CPU context and its current
 * task's), on its own timer queue. */
static DEFINE_PER_CPU(struct timer, rotation_timer);

/* ---- time ---- */

static __always_inline void update_times(struct perf_event *e, uint64_t now)
{
	uint64_t d = now - e->tstamp;

	if (e->state >= PERF_EVENT_STATE_INACTIVE)
		e->total_time_enabled += d;
	if (e->state == PERF_EVENT_STATE_ACTIVE)
		e->total_time_running += d;
	e->tstamp = now;
}

/* The context's time, like Linux's ctx->time: read once at the start of
 * each operation and handed down as now, so every state change of that
 * operation sees the same instant (an event enabled and scheduled at once
 * has enabled == running). No shared variable: operations on the contexts
 * of different CPUs run at once, each on its own CPU. */
static __always_inline void set_state(struct perf_event *e, enum perf_event_state state,
				      uint64_t now)
{
	update_times(e, now);
	e->state = state;
}

/* ---- PMUs ---- */

/* Samples of the user registers, stack or call chain read the whole user
 * frame, also of a syscall in progress: while an event takes them, every
 * syscall builds it (the entry_work bit, no hooks), on every CPU: the
 * event's task runs anywhere. Set and cleared with the first and the last
 * such event. */
static struct entry_work user_frame_work = { .name = "perf user frames" };
static long user_frame_events;

#define SAMPLE_USER_FRAME (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN)

static void user_frame_account(const struct perf_event *e, int n)
{
	if (!(e->attr.sample_type & SAMPLE_USER_FRAME))
		return;
	user_frame_events += n;
	if (user_frame_events == (n > 0))
		entry_work_set_everywhere(&user_frame_work, n > 0);
}

void perf_init(void)
{
	perf_overflow_init();
	entry_work_register(&user_frame_work);
}

int perf_pmu_register(struct pmu *pmu)
{
	if (pmu->type < 0)
		pmu->type = next_dynamic_type++;
	list_append(&perf_pmus, pmu, next);
	return 0;
}

void perf_pmu_unregister(struct pmu *pmu)
{
	for (struct pmu **link = &perf_pmus; *link; link = &(*link)->next) {
		if (*link == pmu) {
			*link = pmu->next;
			pmu->next = NULL;
			return;
		}
	}
}

/* ---- allocation ---- */

/* Events come from a pool first: open and close in a loop make and give
 * back no slab each time. */
POOL_DEFINE(event_pool, struct perf_event, 32);

/* What event_alloc zeroes: all but attr (the caller's to fill) and the
 * fields perf_event_init sets, which lie between them. */
#define PERF_EVENT_ZEROED_FROM	offsetof(struct perf_event, hw.idx)	/* 8-aligned */
#define SET_BY_INIT(f)		(offsetof(struct perf_event, f) >= sizeof(struct perf_event_attr) && \
				 offsetof(struct perf_event, f) + sizeof(((struct perf_event *)0)->f) <= \
				 PERF_EVENT_ZEROED_FROM)
static_assert(offsetof(struct perf_event, attr) == 0, "attr first");
static_assert(SET_BY_INIT(pmu) && SET_BY_INIT(group_leader) && SET_BY_INIT(id) &&
	      SET_BY_INIT(state) && SET_BY_INIT(oncpu) && SET_BY_INIT(event_limit) &&
	      SET_BY_INIT(refs) && SET_BY_INIT(hw.sample_period) && SET_BY_INIT(hw.period_left) &&
	      SET_BY_INIT(hw.last_period) && PERF_EVENT_ZEROED_FROM % 8 == 0,
	      "perf_event_init's fields lie before the zeroed part");
static_assert(sizeof(struct perf_event_attr) + sizeof(struct pmu *) + sizeof(struct perf_event *) +
	      sizeof(uint64_t) + sizeof(enum perf_event_state) + 3 * sizeof(int) +
	      3 * sizeof(uint64_t) == PERF_EVENT_ZEROED_FROM,
	      "and nothing else does (a field added there would not be zeroed)");

/* A new event: attr is the caller's to fill, perf_event_init's fields
 * perf_event_init's, the rest zeroed. */
static struct perf_event *event_alloc(void)
{
	struct perf_event *e = pool_alloc(&event_pool);

	if (!e && !(e = kmalloc(sizeof(*e))))
		return NULL;
	/* Inline (a constant size), in 8-byte stores (pool and kmalloc objects
	 * are aligned). */
	__builtin_memset(__builtin_assume_aligned((char *)e + PERF_EVENT_ZEROED_FROM, 8), 0,
			 sizeof(*e) - PERF_EVENT_ZEROED_FROM);
	return e;
}

static void event_release(struct perf_event *e)
{
	if (!pool_free(&event_pool, e))
		kfree(e);
}

struct perf_event *perf_event_new(void)
{
	return event_alloc();
}

void perf_event_discard(struct perf_event *e)
{
	event_release(e);
}

struct perf_event *perf_event_alloc(const struct perf_event_attr *attr,
				    struct perf_event *group_leader, int *err)
{
	return perf_event_alloc_target(attr, group_leader, 0, err);
}

struct perf_event *perf_event_alloc_target(const struct perf_event_attr *attr,
					   struct perf_event *group_leader, int target_pid,
					   int *err)
{
	struct perf_event *e = event_alloc();

	*err = -ENOMEM;
	if (!e)
		return NULL;
	e->attr = *attr;
	e->target_pid = target_pid;
	return perf_event_init(e, group_leader, err);
}

/* Sets the fields before PERF_EVENT_ZEROED_FROM (pmu and id where they
 * are read: once a PMU takes e), each before anything reads it. */
struct perf_event *perf_event_init(struct perf_event *e, struct perf_event *group_leader,
				   int *err)
{
	const struct perf_event_attr *attr = &e->attr;

	e->group_leader = group_leader ? group_leader : e;
	e->state = attr->disabled ? PERF_EVENT_STATE_OFF : PERF_EVENT_STATE_INACTIVE;
	e->oncpu = -1;
	e->hw.idx = -1;
	e->hw.sample_period = attr->freq ? (attr->sample_freq ? 1 : 0) : attr->sample_period;
	e->hw.last_period = e->hw.sample_period;
	e->hw.period_left = e->hw.sample_period;
	e->event_limit = 0;
	e->refs = 1;

	/* The PMU whose type matches, else each in turn (Linux's
	 * perf_init_event): -ENOENT means "not mine". For hardware and cache
	 * events, config's upper half may name a PMU (the extended type). */
	uint32_t type = attr->type;
	if ((type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE) && attr->config >> 32)
		type = attr->config >> 32;
	int r = -ENOENT;
	for (struct pmu *p = perf_pmus; p; p = p->next) {
		if (p->type == (int)type || type == PERF_TYPE_HARDWARE ||
		    type == PERF_TYPE_HW_CACHE) {
			e->pmu = p;
			r = p->event_init(e);
			if (r != -ENOENT)
				break;
		}
	}
	if (r) {
		*err = r;
		event_release(e);
		return NULL;
	}
	e->id = next_id++;
	user_frame_account(e, 1);
	perf_stats.events++;
	*err = 0;
	return e;
}

void perf_event_free(struct perf_event *e)
{
	assert(e->state != PERF_EVENT_STATE_ACTIVE && !e->ctx);
	if (READ_ONCE(e->rb))
		perf_event_release_rb(e);	/* a SET_OUTPUT redirection's hold */
	perf_pending_cancel(e);
	/* Nothing may find e once it is freed: no timer, no buffer, no list
	 * an NMI or the deferred work walks. */
	assert(!e->hw.timer.pending && !READ_ONCE(e->rb) && !e->pending_queued);
	if (e->destroy)
		e->destroy(e);		/* the PMU's own state of e */
	user_frame_account(e, -1);
	perf_stats.events--;
	event_release(e);
}

void perf_event_get(struct perf_event *e)
{
	e->refs++;
}

void perf_event_put(struct perf_event *e)
{
	assert(e->refs > 0);
	if (--e->refs)
		return;
	perf_remove_from_context(e);
	perf_event_free(e);
}

/* ---- contexts ---- */

struct perf_event_context *perf_task_context(struct task *t)
{
	if (!t->perf_ctx) {
		t->perf_ctx = &t->perf_ctx_store;	/* zeroed with t */
		t->perf_ctx->task = t;
		/* Off the CPU until it is switched in: no time yet. */
		if (t != current)
			t->perf_ctx->out_since = perf_clock();
	}
	return t->perf_ctx;
}

static bool group_fits_exclusive(struct perf_event *leader);

static __always_inline void event_sched_out(struct perf_event *e, uint64_t now)
{
	if (e->state != PERF_EVENT_STATE_ACTIVE)
		return;
	e->pmu->del(e, PERF_EF_UPDATE);
	set_state(e, PERF_EVENT_STATE_INACTIVE, now);
	e->oncpu = -1;
	perf_event_update_userpage(e);
}

static __always_inline int event_sched_in(struct perf_event *e, uint64_t now)
{
	if (e->state != PERF_EVENT_STATE_INACTIVE)
		return 0;
	if (e->pmu->add(e, PERF_EF_START))
		return -EAGAIN;
	set_state(e, PERF_EVENT_STATE_ACTIVE, now);
	e->oncpu = smp_processor_id();
	perf_event_update_userpage(e);
	return 0;
}

static void group_sched_out(struct perf_event *leader, uint64_t now)
{
	event_sched_out(leader, now);
	for_each_sibling(s, leader)
		event_sched_out(s, now);
}

/* All or nothing: a group counts together or not at all. */
static __always_inline int group_sched_in(struct perf_event *leader, uint64_t now)
{
	if (leader->state != PERF_EVENT_STATE_INACTIVE || !group_fits_exclusive(leader))
		return -EAGAIN;
	if (event_sched_in(leader, now))
		return -EAGAIN;
	for_each_sibling(s, leader) {
		if (event_sched_in(s, now)) {
			for_each_sibling(r, leader) {
				if (r == s)
					break;
				event_sched_out(r, now);
			}
			event_sched_out(leader, now);
			return -EAGAIN;
		}
	}
	return 0;
}

/* attr.exclusive: the group is alone on its PMU, or waits. */
static bool pmu_busy(struct pmu *pmu, bool exclusive_only)
{
	for_each_context(ctx, current)
		for (struct perf_event *g = ctx->groups; g; g = g->ctx_next)
			if (g->pmu == pmu && g->state == PERF_EVENT_STATE_ACTIVE &&
			    (!exclusive_only || g->attr.exclusive))
				return true;
	return false;
}

/* Exclusive groups in any context: while there is none, no PMU is busy. */
static int exclusive_groups;

static bool group_fits_exclusive(struct perf_event *leader)
{
	if (!exclusive_groups)
		return true;
	if (pmu_busy(leader->pmu, true))
		return false;
	return !leader->attr.exclusive || !pmu_busy(leader->pmu, false);
}

struct perf_event_context *perf_context_nth(int i, struct task *t)
{
	if (i == 0)	/* the CPU's own: its events run where t runs */
		return this_cpu_ptr(&perf_cpu_ctx);
	return t ? t->perf_ctx : NULL;
}

static void rotation_tick(struct timer *t, struct pt_regs *regs);

/* A lone software event, not exclusive, changes no one else's place on the
 * PMUs (software events always fit and stay out of rotation): adding or
 * removing it needs no rescheduling of the others. */
static inline bool event_stands_alone(const struct perf_event *e)
{
	return e->group_leader == e && !e->sibling_next && !e->attr.exclusive &&
	       e->pmu->type == PERF_TYPE_SOFTWARE;
}

static void start_rotation(void)
{
	struct timer *t = this_cpu_ptr(&rotation_timer);

	if (t->pending)
		return;
	t->fn = rotation_tick;
	timer_add(t, rdtsc() + ns_to_tsc(ROTATION_NS));
}

/* Put g on the PMU if it is waiting; a pinned group that cannot go on goes
 * to the error state, as Linux does. True if a flexible one must wait. */
static __always_inline bool sched_in_group(struct perf_event *g, uint64_t now)
{
	/* A task's group bound to a CPU counts only there (Linux's
	 * event_filter_match); a CPU context's are all its CPU's. */
	if (unlikely(g->cpu >= 0 && g->cpu != smp_processor_id()))
		return false;
	if (g->state != PERF_EVENT_STATE_INACTIVE || !group_sched_in(g, now))
		return false;
	if (g->attr.pinned) {
		set_state(g, PERF_EVENT_STATE_ERROR, now);
		return false;
	}
	return true;
}

/* Pinned groups of every context first, then flexible ones. */
static void sched_in_all(uint64_t now)
{
	bool starved = false;

	for (int pinned = 1; pinned >= 0; pinned--) {
		for_each_context(ctx, current)
			for (struct perf_event *g = ctx->groups; g; g = g->ctx_next)
				if (g->attr.pinned == pinned)
					starved |= sched_in_group(g, now);
	}
	/* Rotation runs only while a group waits for a counter: no stray
	 * interrupt once the last one has gone or its task is off the CPU. */
	if (starved)
		start_rotation();
	else if (this_cpu_ptr(&rotation_timer)->pending)
		timer_del(this_cpu_ptr(&rotation_timer));
}

/* Software events always fit: Linux keeps them out of rotation, and so
 * do we, so their clocks run without gaps. */
static bool group_is_software(const struct perf_event *g)
{
	if (g->pmu->type != PERF_TYPE_SOFTWARE)
		return false;
	for_each_sibling(s, g)
		if (s->pmu->type != PERF_TYPE_SOFTWARE)
			return false;
	return true;
}

static void sched_out_flexible(uint64_t now)
{
	for_each_context(ctx, current)
		for (struct perf_event *g = ctx->groups; g; g = g->ctx_next)
			if (!g->attr.pinned && !group_is_software(g))
				group_sched_out(g, now);
}

/* Re-run counter assignment for every context, pinned groups first. */
static void resched(uint64_t now)
{
	uint64_t flags = irq_save();

	sched_out_flexible(now);
	sched_in_all(now);
	irq_restore(flags);
}

/* Move the first flexible group of ctx to the end of its list. */
static void rotate_context(struct perf_event_context *ctx)
{
	struct perf_event **link = &ctx->groups, *first;

	while (*link && (*link)->attr.pinned)
		link = &(*link)->ctx_next;
	first = *link;
	if (!first || !first->ctx_next)
		return;
	*link = first->ctx_next;
	first->ctx_next = NULL;
	list_append(link, first, ctx_next);
}

static void rotation_tick(struct timer *t, struct pt_regs *regs)
{
	uint64_t now = perf_clock();
	sched_out_flexible(now);
	for_each_context(ctx, current)
		rotate_context(ctx);
	sched_in_all(now);
}

/* ---- operations on a context whose task runs on another CPU ---- */

/* The CPU other than this one where ctx's events count: its CPU's for a
 * CPU context, or the CPU whose current task is ctx's; else -1. Stable
 * while the caller holds the kernel lock: no CPU switches tasks without it.
 * An operation on such a context runs there, by IPI, as Linux's
 * event_function_call: its events are on that CPU's PMU, and its lists are
 * what that CPU's switches read. */
static int ctx_elsewhere_smp(const struct perf_event_context *ctx)
{
	struct task *t = ctx ? ctx->task : NULL;

	if (!ctx || t == current)
		return -1;
	if (!t) {
		int cpu = perf_ctx_cpu(ctx);
		return cpu != smp_processor_id() ? cpu : -1;	/* -1: a dead task's */
	}
	int cpu = READ_ONCE(t->cpu);
	return cpus[cpu]->curr == t ? cpu : -1;
}

/* On one CPU (the kernel lock off) everything is here: one test. */
static __always_inline int ctx_elsewhere(const struct perf_event_context *ctx)
{
	return likely(!kernel_lock_on) ? -1 : ctx_elsewhere_smp(ctx);
}

struct ctx_call {
	struct perf_event_context *ctx;
	struct perf_event *e;
	struct perf_event **events;
	int n;
	bool enable;
};

static void install_there(void *arg)
{
	struct ctx_call *c = arg;

	perf_install_in_context(c->ctx, c->e);
}

/* Apart from the callers, which then keep no call frame for the IPI. */
static __attribute__((noinline)) void install_on(int cpu, struct perf_event_context *ctx,
						 struct perf_event *e)
{
	smp_call_function_single(cpu, install_there, &(struct ctx_call){ .ctx = ctx, .e = e });
}

static void remove_there(void *arg)
{
	perf_remove_from_context(((struct ctx_call *)arg)->e);
}

static __attribute__((noinline)) void remove_on(int cpu, struct perf_event *e)
{
	smp_call_function_single(cpu, remove_there, &(struct ctx_call){ .e = e });
}

static void set_enabled_there(void *arg)
{
	struct ctx_call *c = arg;

	perf_events_set_enabled(c->events, c->n, c->enable);
}

void perf_install_in_context(struct perf_event_context *ctx, struct perf_event *e)
{
	int there = ctx_elsewhere(ctx);

	if (unlikely(there >= 0)) {
		install_on(there, ctx, e);
		return;
	}

	uint64_t flags = irq_save();

	/* A context off the CPU has no time passing: the event's clocks start
	 * when its task is switched in (the sched-in shift of out_since). */
	bool on_cpu = !ctx->task || ctx->task == current;	/* the CPU's, or current's */

	uint64_t now = perf_clock();
	e->tstamp = on_cpu ? now : ctx->out_since;
	e->ctx = ctx;
	ctx->nr_events++;
	if (e->group_leader == e && e->attr.exclusive)
		exclusive_groups++;
	if (e->group_leader == e) {
		list_append(&ctx->groups, e, ctx_next);
	} else {
		struct perf_event *l = e->group_leader;
		list_append(&l->sibling_next, e, sibling_next);
		l->nr_siblings++;
		/* A sibling joins a running group at once if it fits. */
		if (l->state == PERF_EVENT_STATE_ACTIVE && event_sched_in(e, now) && l->attr.pinned)
			set_state(e, PERF_EVENT_STATE_ERROR, now);
	}
	if (!on_cpu) {
		irq_restore(flags);
		return;
	}
	if (event_stands_alone(e)) {
		if (sched_in_group(e, now))
			start_rotation();
		irq_restore(flags);
		return;
	}
	irq_restore(flags);
	resched(now);
}

void perf_remove_from_context(struct perf_event *e)
{
	struct perf_event_context *ctx = e->ctx;
	int there = ctx_elsewhere(ctx);

	if (unlikely(there >= 0)) {
		remove_on(there, e);
		return;
	}
	uint64_t flags = irq_save();

	uint64_t now = perf_clock();
	if (!ctx) {
		irq_restore(flags);
		return;
	}
	bool alone = event_stands_alone(e);
	if (e->group_leader == e && e->attr.exclusive)
		exclusive_groups--;
	event_sched_out(e, now);
	if (e->group_leader == e) {
		struct perf_event **link = &ctx->groups;
		while (*link != e)
			link = &(*link)->ctx_next;
		*link = e->ctx_next;
		/* Its siblings carry on as groups of their own (Linux's
		 * perf_group_detach), appended in order. */
		for (struct perf_event *s = e->sibling_next, *next; s; s = next) {
			next = s->sibling_next;
			event_sched_out(s, now);
			s->group_leader = s;
			s->sibling_next = NULL;
			s->ctx_next = NULL;
			list_append(&ctx->groups, s, ctx_next);
		}
		e->sibling_next = NULL;
		e->nr_siblings = 0;
	} else {
		struct perf_event *l = e->group_leader, **link = &l->sibling_next;
		while (*link != e)
			link = &(*link)->sibling_next;
		*link = e->sibling_next;
		l->nr_siblings--;
		e->group_leader = e;
	}
	ctx->nr_events--;
	e->ctx = NULL;
	e->ctx_next = e->sibling_next = NULL;
	/* The context of a task that is gone goes with its last event, and
	 * the task's memory that holds it. */
	if (!ctx->task && !ctx->nr_events && !perf_ctx_is_cpu(ctx))
		task_free_memory(container_of(ctx, struct task, perf_ctx_store));
	irq_restore(flags);
	if (!alone)
		resched(now);
}

bool perf_task_release_context(struct task *t)
{
	struct perf_event_context *ctx = t->perf_ctx;

	if (!ctx || !ctx->nr_events)
		return false;
	ctx->task = NULL;	/* events others opened on t outlive it */
	return true;
}

/* The state changes of enabling and disabling, without rescheduling: an
 * operation on many events (a group, prctl) changes them all, then puts
 * groups on the PMU once, so no group runs for a moment in between. */
static bool enable_one(struct perf_event *e, uint64_t now)
{
	if (e->state != PERF_EVENT_STATE_OFF && e->state != PERF_EVENT_STATE_ERROR)
		return false;
	set_state(e, PERF_EVENT_STATE_INACTIVE, now);
	/* A sibling of a running group joins it at once (pinned groups do not
	 * go through rescheduling). */
	struct perf_event *l = e->group_leader;
	if (l != e && l->state == PERF_EVENT_STATE_ACTIVE)
		event_sched_in(e, now);
	return true;
}

static bool disable_one(struct perf_event *e, uint64_t now)
{
	if (e->state < PERF_EVENT_STATE_INACTIVE)
		return false;
	if (e->group_leader == e)
		group_sched_out(e, now);
	else
		event_sched_out(e, now);
	set_state(e, PERF_EVENT_STATE_OFF, now);
	return true;
}

void perf_events_set_enabled(struct perf_event **events, int n, bool enable)
{
	/* One context's events (a group's, or a task's own). */
	int there = n ? ctx_elsewhere(events[0]->ctx) : -1;

	if (there >= 0) {
		smp_call_function_single(there, set_enabled_there,
					 &(struct ctx_call){ .events = events, .n = n, .enable = enable });
		return;
	}
	uint64_t flags = irq_save();
	bool changed = false;

	uint64_t now = perf_clock();
	for (int i = 0; i < n; i++)
		changed |= enable ? enable_one(events[i], now) : disable_one(events[i], now);
	irq_restore(flags);
	if (changed)
		resched(now);	/* freed counters go to waiting groups */
}

void perf_event_enable(struct perf_event *e)
{
	perf_events_set_enabled(&e, 1, true);
}

void perf_event_disable(struct perf_event *e)
{
	perf_events_set_enabled(&e, 1, false);
}

void perf_event_read_update(struct perf_event *e)
{
	uint64_t flags = irq_save();

	uint64_t now = perf_clock();
	perf_event_fold(e);
	update_times(e, now);
	irq_restore(flags);
}

/* On the CPU the event was active on when the caller looked: it may have
 * left the PMU since (its count is then folded) or moved on (the count
 * misses what ran there since, as a read racing a migration may). */
static void fold_here(void *arg)
{
	struct perf_event *e = arg;

	if (e->state == PERF_EVENT_STATE_ACTIVE && e->oncpu == smp_processor_id())
		e->pmu->read(e);
}

void perf_event_fold_remote(struct perf_event *e)
{
	smp_call_function_single(e->oncpu, fold_here, e);
}

/* The CPU other than this one where e's PMU state and its ring's writers
 * are, else -1: where e is active; else the CPU e is bound to, the only one
 * where it counts and whose CPU-wide events may share its ring; else where
 * its context runs (ctx_elsewhere: its task is current there). Stable as
 * ctx_elsewhere: the caller holds the kernel lock, so e stays on the PMU it
 * is on and its task where it is. */
static int event_elsewhere(const struct perf_event *e)
{
	int cpu = e->state == PERF_EVENT_STATE_ACTIVE ? READ_ONCE(e->oncpu) : e->cpu;

	if (cpu < 0)
		return ctx_elsewhere(e->ctx);
	return cpu != smp_processor_id() ? cpu : -1;
}

void perf_event_call(struct perf_event *e, void (*fn)(void *arg), void *arg)
{
	int cpu = event_elsewhere(e);

	if (cpu >= 0)
		smp_call_function_single(cpu, fn, arg);
	else
		fn(arg);
}

static void flush_here(void *arg)
{
	struct perf_event *e = arg;

	e->pmu->flush(e);
}

/* PERF_EVENT_IOC_FLUSH: the PMU's internal buffer is its CPU's, drained
 * there (an event off the PMU has nothing buffered). */
void perf_event_flush(struct perf_event *e)
{
	perf_event_call(e, flush_here, e);
}

static void reset_here(void *arg)
{
	struct perf_event *e = arg;
	uint64_t flags = irq_save();

	perf_event_fold(e);	/* the counter in; the times go on */
	e->count = 0;
	if (unlikely(e->rb))
		perf_event_update_userpage(e);
	irq_restore(flags);
}

/* With a control page, on its writers' CPU (perf_event_call): its seqlock
 * is a plain count, which one CPU's writers share by nesting only. */
void perf_event_reset(struct perf_event *e)
{
	if (unlikely(e->rb))
		perf_event_call(e, reset_here, e);
	else
		reset_here(e);
}

static void update_userpage_here(void *arg)
{
	perf_event_update_userpage(arg);
}

void perf_event_update_userpage_there(struct perf_event *e)
{
	perf_event_call(e, update_userpage_here, e);
}

void perf_event_exit_task(struct task *t)
{
	struct perf_event_context *ctx = t->perf_ctx;

	perf_event_exit_inherited(t);	/* copies join their originals */
	uint64_t flags = irq_save();

	uint64_t now = perf_clock();
	if (ctx) {
		for (struct perf_event *g = ctx->groups; g; g = g->ctx_next) {
			group_sched_out(g, now);
			set_state(g, PERF_EVENT_STATE_EXIT, now);
			for_each_sibling(s, g)
				set_state(s, PERF_EVENT_STATE_EXIT, now);
		}
	}
	irq_restore(flags);
	perf_persistent_task_exit(t);
}

void perf_event_task_sched_out(struct task *prev)
{
	struct perf_event_context *ctx = prev->perf_ctx;
	uint64_t flags = irq_save();

	if (ctx) {
		uint64_t now = perf_clock();
		for (struct perf_event *g = ctx->groups; g; g = g->ctx_next) {
			group_sched_out(g, now);
			update_times(g, now);
			for_each_sibling(s, g)
				update_times(s, now);
		}
		ctx->out_since = now;
	}
	irq_restore(flags);
}

void perf_event_task_sched_in(struct task *next)
{
	struct perf_event_context *ctx = next->perf_ctx;
	uint64_t flags = irq_save();

	uint64_t now = perf_clock();
	if (ctx && ctx->out_since) {
		uint64_t gap = now - ctx->out_since;
		for (struct perf_event *g = ctx->groups; g; g = g->ctx_next) {
			g->tstamp += gap;
			for_each_sibling(s, g)
				s->tstamp += gap;
		}
		ctx->out_since = 0;
	}
	sched_in_all(now);
	irq_restore(flags);
}

static void enable_copy(struct perf_event *c, void *arg)
{
	perf_event_enable(c);
}

static void disable_copy(struct perf_event *c, void *arg)
{
	perf_event_disable(c);
}

/* prctl(PR_TASK_PERF_EVENTS_ENABLE/DISABLE): the events the task opened,
 * all changed before any is scheduled. */
void perf_task_events_enable(struct task *t, bool enable)
{
	struct perf_event **list;
	int n = 0, max = 0;

	for_each_context(ctx, t)
		max += ctx->nr_events;
	if (!max || !(list = kmalloc(max * sizeof(*list))))
		return;
	for_each_context(ctx, t) {
		for (struct perf_event *g = ctx->groups; g; g = g->ctx_next) {
			if (g->owner == t && n < max)
				list[n++] = g;
			for_each_sibling(s, g)
				if (s->owner == t && n < max)
					list[n++] = s;
		}
	}
	perf_events_set_enabled(list, n, enable);
	/* And their live copies, as Linux's perf_event_for_each_child. */
	for (int i = 0; i < n; i++)
		perf_event_for_each_copy(list[i], enable ? enable_copy : disable_copy, NULL);
	kfree(list);
}
