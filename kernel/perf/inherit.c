/* The perf_event task semantics that live on fork and exec (Linux 6.1's
 * perf_event_init_task, perf_event_exit_task's sync and
 * perf_event_enable_on_exec): a new task gets a copy of each inherited group
 * of its creator's, counting from zero into the original's ring; at the
 * copy's exit its counts and times join the original's, which read() then
 * reports whole. enable_on_exec events start at exec, remove_on_exec ones
 * go. */
#include "internal.h"
#include "../sched.h"
#include "../task.h"
#include <asm-generic/errno.h>
#include <linux/sched.h>

/* A copy of e for child, in ctx, under leader (NULL: a group of its own). */
static struct perf_event *inherit_event(struct perf_event *e, struct task *child,
					struct perf_event_context *ctx,
					struct perf_event *leader)
{
	int err;
	struct perf_event *c = perf_event_alloc_target(&e->attr, leader, child->pid, &err);

	if (!c)
		return NULL;
	/* The copy starts as the original is: counting, or off. */
	c->state = e->state == PERF_EVENT_STATE_OFF ? PERF_EVENT_STATE_OFF :
		   PERF_EVENT_STATE_INACTIVE;
	c->cpu = e->cpu;
	/* A copy of a copy is the original's too (Linux's inherit_event): its
	 * counts join the original's at its exit, and the original's ioctls
	 * reach it. */
	struct perf_event *orig = e->parent ? e->parent : e;
	c->parent = orig;
	orig->nr_copies++;
	perf_event_get(orig);
	c->hw.sample_period = e->hw.sample_period;
	c->hw.last_period = c->hw.period_left = e->hw.sample_period;
	if (e->rb)
		perf_event_set_output(c, e);	/* samples go to the original's ring */
	perf_install_in_context(ctx, c);
	return c;
}

int perf_event_init_task(struct task *child, unsigned long clone_flags)
{
	struct task *p = current;
	struct perf_event_context *pctx = p->perf_ctx, *ctx = NULL;

	if (!pctx)
		return 0;
	for (struct perf_event *g = pctx->groups; g; g = g->ctx_next) {
		if (!g->attr.inherit || g->state <= PERF_EVENT_STATE_EXIT)
			continue;
		/* inherit_thread: only threads (CLONE_THREAD) get copies. */
		if (g->attr.inherit_thread && !(clone_flags & CLONE_THREAD))
			continue;
		if (!ctx)
			ctx = perf_task_context(child);
		struct perf_event *cl = inherit_event(g, child, ctx, NULL);
		if (!cl)
			return -ENOMEM;
		for_each_sibling(s, g)
			if (!inherit_event(s, child, ctx, cl))
				return -ENOMEM;
	}
	return 0;
}

void perf_event_for_each_copy(struct perf_event *e,
			      void (*fn)(struct perf_event *c, void *arg), void *arg)
{
	if (!e->nr_copies)
		return;
	for (struct task *t = sched_first(); t; t = t->next) {
		struct perf_event_context *ctx = t->perf_ctx;
		if (!ctx)
			continue;
		for (struct perf_event *g = ctx->groups; g; g = g->ctx_next) {
			if (g->parent == e)
				fn(g, arg);
			for_each_sibling(s, g)
				if (s->parent == e)
					fn(s, arg);
		}
	}
}

struct copy_sums {
	uint64_t *count, *enabled, *running;
};

static void add_copy(struct perf_event *c, void *arg)
{
	struct copy_sums *sums = arg;

	perf_event_read_update(c);
	*sums->count += c->count;
	*sums->enabled += c->total_time_enabled;
	*sums->running += c->total_time_running;
}

void perf_event_read_copies(struct perf_event *e, uint64_t *count, uint64_t *enabled,
			    uint64_t *running)
{
	struct copy_sums sums = { count, enabled, running };

	perf_event_for_each_copy(e, add_copy, &sums);
}

/* Add what the copy counted to its original, and free the copy. */
static void sync_child(struct perf_event *c)
{
	struct perf_event *p = c->parent;

	perf_event_read_update(c);
	p->child_count += c->count + c->child_count;
	p->child_total_time_enabled += c->total_time_enabled + c->child_total_time_enabled;
	p->child_total_time_running += c->total_time_running + c->child_total_time_running;
	/* inherit_stat: no PERF_RECORD_READ, as the oracle writes none (Linux
	 * 6.1 marks an exiting task's context dead before it syncs the copies,
	 * and writes none at a remove_on_exec either). */
	c->parent = NULL;
	p->nr_copies--;
	perf_event_put(c);
	perf_event_put(p);
}

/* A copied group's copies join their originals and go. */
static void sync_group(struct perf_event *g)
{
	struct perf_event *s = g->sibling_next;

	sync_child(g);		/* its siblings become groups of their own */
	for (struct perf_event *n; s; s = n) {
		n = s->sibling_next;
		if (s->parent)
			sync_child(s);
	}
}

void perf_event_exit_inherited(struct task *t)
{
	struct perf_event_context *ctx = t->perf_ctx;

	if (!ctx)
		return;
	for (struct perf_event *g = ctx->groups, *next; g; g = next) {
		next = g->ctx_next;
		if (!g->parent)
			continue;
		sync_group(g);
		next = ctx->groups;	/* the list changed: start over */
	}
}

/* remove_on_exec: the event goes, a copy's counts to its original first (as
 * at its task's exit: Linux's perf_event_exit_event); the first such event
 * of ctx, leader or sibling, or false when none is left. */
static bool remove_one_on_exec(struct perf_event_context *ctx)
{
	for (struct perf_event *g = ctx->groups; g; g = g->ctx_next) {
		struct perf_event *e = g->attr.remove_on_exec ? g : NULL;
		for_each_sibling(s, g)
			if (!e && s->attr.remove_on_exec)
				e = s;
		if (!e)
			continue;
		if (e->parent) {
			sync_child(e);
		} else {
			perf_remove_from_context(e);
			e->state = PERF_EVENT_STATE_EXIT;
		}
		return true;
	}
	return false;
}

void perf_event_exec_events(struct task *t)
{
	struct perf_event_context *ctx = t->perf_ctx;
	struct perf_event *enable[64];
	int n = 0;

	if (!ctx)
		return;
	while (remove_one_on_exec(ctx))
		;
	for (struct perf_event *g = ctx->groups, *next; g; g = next) {
		next = g->ctx_next;
		if (g->attr.enable_on_exec && g->state == PERF_EVENT_STATE_OFF && n < 64)
			enable[n++] = g;
		for_each_sibling(s, g)
			if (s->attr.enable_on_exec && s->state == PERF_EVENT_STATE_OFF && n < 64)
				enable[n++] = s;
	}
	perf_events_set_enabled(enable, n, true);
}
