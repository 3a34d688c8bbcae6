/* The public face of kernel/perf/ for the rest of the kernel (Linux's
 * include/linux/perf_event.h against kernel/events/internal.h): the driver
 * API (struct pmu and struct perf_event, perf_event.h), the output handle
 * and AUX writer that drivers call, the task hooks, the knobs of
 * /proc/sys/kernel and the accounting. kernel/perf/internal.h is for
 * kernel/perf/ and its self-tests (kernel/perf/test/) only. */
#pragma once
#include "../kernel.h"
#include "perf_event.h"

struct task;
struct vma;

/* The events of one target: the CPU (pid -1, cpu 0: counts everything) or
 * one task. Only group leaders are listed; siblings hang off them. Public
 * for struct task, which holds its own (its life is the task's, or longer
 * while events others opened on the task remain: perf_task_release_context). */
struct perf_event_context {
	struct perf_event *groups;	/* pinned and flexible, in open order */
	struct task *task;		/* NULL for a CPU's context, or a task's that is gone */
	int nr_events;
	uint64_t out_since;		/* a task's: when it went off the CPU */
};

/* Linux's sysctl_perf_* with its defaults (Debian's paranoid is 3). Every
 * caller has root's rights, so paranoid and mlock_kb, which bound the
 * unprivileged only, change nothing here; the others are obeyed. */
struct perf_sysctl {
	int paranoid;			/* perf_event_paranoid */
	int mlock_kb;			/* perf_event_mlock_kb */
	int max_stack;			/* perf_event_max_stack: sample_max_stack's default and limit */
	int max_contexts_per_stack;	/* perf_event_max_contexts_per_stack */
	int cpu_time_max_percent;	/* perf_cpu_time_max_percent: 0 or 100 turn throttling off */
};
extern struct perf_sysctl perf_sysctl;

/* kernel.perf_event_max_sample_rate: the highest sample_freq perf_event_open
 * takes and the throttling limit. */
unsigned long perf_max_sample_rate(void);
/* Linux's perf_proc_update_handler: -EINVAL while throttling is off
 * (cpu_time_max_percent 0 or 100), else the new rate (>= 1) rules. */
int perf_set_max_sample_rate(unsigned long rate);

/* The perf core: its clock, the overflow machinery (main.c, before the
 * PMU drivers register). */
void perf_init(void);
/* Persistent events (seed 001): the "persistent" PMU. */
void perf_persistent_init(void);

/* In-kernel events with an AUX area, for the drivers' self-tests (Linux's
 * perf_event_create_kernel_counter, with buffers): an event of attr with a
 * one-page data ring and aux_pages (a power of two) of AUX area, which no
 * process maps; NULL on failure. perf_event_release_kernel frees it all. */
struct perf_event *perf_event_create_kernel_aux(const struct perf_event_attr *attr, int aux_pages,
						bool overwrite, uint64_t watermark);
void perf_event_release_kernel(struct perf_event *e);
/* The byte at offset at of its AUX area, and the area's published head. */
uint8_t *perf_aux_byte(struct perf_event *e, uint64_t at);
uint64_t perf_aux_head(struct perf_event *e);
/* The next record of type in its data ring from *pos (advanced past it),
 * its first size bytes copied to buf; false at data_head. */
bool perf_ring_next_record(struct perf_event *e, uint64_t *pos, uint32_t type, void *buf,
			   size_t size);

/* What perf holds, for the accounting file (sysfs.c). */
struct perf_stats {
	long events;		/* perf events alive */
	long rings;		/* mmap buffers */
	long aux_areas;
	long aux_nested;	/* AUX writers refused: begin inside another's begin..end */
};
extern struct perf_stats perf_stats;

/* ---- the task hooks (task.c, sys_mm.c, sys_proc.c) ---- */

/* t is ending: its events stop and take the EXIT state (Linux's name for
 * this job). Then, as t is freed, perf_task_release_context: true when
 * events others opened on t remain in its context, which t's memory holds;
 * t's memory then stays until the last of them goes, which frees it with
 * task_free_memory. */
void perf_event_exit_task(struct task *t);
bool perf_task_release_context(struct task *t);
/* prctl(PR_TASK_PERF_EVENTS_ENABLE/DISABLE). */
void perf_task_events_enable(struct task *t, bool enable);
/* Side-band records (records.c), each to every event of the CPU context and
 * of t's that asked (attr.comm, attr.mmap / mmap2 / mmap_data, attr.task,
 * attr.context_switch) and is not off, with sample_id_all. t is current. */
void perf_event_comm(struct task *t, bool exec);
void perf_event_mmap(struct task *t, const struct vma *vma);
/* Program start: COMM (COMM_EXEC) and an MMAP for each ELF segment. */
void perf_event_exec(struct task *t);
/* PERF_RECORD_SWITCH(_CPU_WIDE) of t going out to, or coming in from,
 * other (NULL: the idle loop). */
void perf_event_switch(struct task *t, struct task *other, bool out);
/* PERF_RECORD_EXIT of t (task_exit, while t is still current). */
void perf_log_task_exit(struct task *t);
/* PERF_RECORD_FORK of a new task, to the creator's events. */
void perf_event_fork(struct task *child);
/* Linux's perf_event_task_sched_out/in (sched.c): a task's events leave the
 * PMU when it goes off the CPU and come back with it; its context's time
 * stops meanwhile (neither enabled nor running time advances). */
void perf_event_task_sched_out(struct task *prev);
void perf_event_task_sched_in(struct task *next);
/* inherit.c: copies of the creator's inherited groups for a new task (0 or
 * -ENOMEM; fork.c); at a task's exit, its copies' counts join their
 * originals; at exec, enable_on_exec events start and remove_on_exec ones
 * go (exec.c). */
int perf_event_init_task(struct task *child, unsigned long clone_flags);
void perf_event_exit_inherited(struct task *t);
void perf_event_exec_events(struct task *t);

/* ---- output into the ring, for drivers (ring.c, aux.c) ---- */

struct perf_output_handle {
	struct perf_event *event;
	struct perf_buffer *rb;
	uint64_t head;		/* where this record starts (the ring's offset) */
	uint64_t offset;	/* where the next byte goes */
	uint64_t end;		/* head + size */
	uint64_t wakeup;	/* rb->wakeup when this writer began (ring.c) */
	/* AUX writers (aux.c): head is where the next AUX byte goes */
	uint64_t size;		/* AUX bytes that may be written from head */
	uint64_t aux_flags;	/* PERF_AUX_FLAG_* of the coming PERF_RECORD_AUX */
};

/* ---- the AUX area's writer (aux.c), seed 002: Linux's API ----
 *
 * perf_aux_output_begin(h, e): start writing AUX data for e (into the
 * buffer e's records go to: its own or its SET_OUTPUT target's). Returns
 * the driver's private AUX state (setup_aux's) and sets h->head and
 * h->size, the bytes that may be written from h->head without passing
 * data the reader has not consumed (aux_tail; overwrite mode: the whole
 * area); NULL when there is no AUX area, when another writer is inside
 * begin..end (refused and counted in perf_stats.aux_nested, never
 * allowed), or when a PROT_WRITE reader left no room (then, as in Linux,
 * the event is disabled and the reader woken). Call it before the
 * hardware writes, with interrupts off until the end.
 * perf_aux_output_skip(h, size): move head over size bytes (the hardware's
 * alignment wastes them); -ENOSPC beyond h->size.
 * perf_aux_output_end(h, size): size bytes were written at h->head: publish
 * aux_head, write PERF_RECORD_AUX (offset, size, flags: TRUNCATED,
 * OVERWRITE, PARTIAL as they apply) when there is something to say, and
 * wake the reader at aux_watermark. TRUNCATED disables the event (Linux).
 * perf_get_aux(h): the private state again, between begin and end. */
void *perf_aux_output_begin(struct perf_output_handle *h, struct perf_event *e);
void perf_aux_output_end(struct perf_output_handle *h, uint64_t size);
int perf_aux_output_skip(struct perf_output_handle *h, uint64_t size);
/* PERF_AUX_FLAG_TRUNCATED or PARTIAL for the coming record (OVERWRITE is
 * end's to set). */
void perf_aux_output_flag(struct perf_output_handle *h, uint64_t flags);
void *perf_get_aux(struct perf_output_handle *h);
/* PERF_RECORD_ITRACE_START (pid, tid of current) for e: a tracing PMU's
 * first start of e. */
void perf_log_itrace_start(struct perf_event *e);
