/* The perf core's private state: contexts, scheduling, the event file. */
#pragma once
#include "perf_event.h"

struct task;
struct file;
struct vma;

/* The events of one target: the CPU (pid -1, cpu 0: counts everything) or
 * one task. Only group leaders are listed; siblings hang off them. */
struct perf_event_context {
	struct perf_event *groups;	/* pinned and flexible, in open order */
	struct task *task;		/* NULL for the CPU context */
	int nr_events;
};

extern struct perf_event_context perf_cpu_ctx;

/* The mmap buffer of an event (mmap.c). */
struct perf_buffer {
	int mmap_count;			/* VMAs mapping it */
	int nr_pages;			/* data pages: 0 or a power of two */
	bool writable;			/* PROT_WRITE: the reader owns data_tail */
	bool paused;			/* PERF_EVENT_IOC_PAUSE_OUTPUT */
	struct perf_event_mmap_page *user_page;	/* direct-map address */
	uint64_t user_page_phys;
	uint64_t *data_phys;		/* nr_pages frames */
	void *data;			/* the data pages, contiguous in vmalloc space */
};


struct perf_stats {
	long events;		/* perf events alive */
	long rings;		/* mmap buffers */
	long aux_areas;
};
extern struct perf_stats perf_stats;

/* attr.c: copy struct perf_event_attr in as Linux's perf_copy_attr does
 * (sizes, E2BIG with the size written back, reserved bits). */
int perf_copy_attr(const void *uattr, struct perf_event_attr *attr);

/* event.c */
/* The perf clock and the PMUs every machine has (software). */
void perf_init(void);
/* cycles -> ns as the mmap page's time_mult/time_shift do it. */
uint64_t perf_clock_cycles_to_ns(uint64_t cyc, uint32_t *mult, uint32_t *shift);
struct perf_event *perf_event_alloc(const struct perf_event_attr *attr,
				    struct perf_event *group_leader, int *err);
void perf_event_free(struct perf_event *e);
void perf_install_in_context(struct perf_event_context *ctx, struct perf_event *e);
void perf_remove_from_context(struct perf_event *e);
void perf_event_enable(struct perf_event *e);
void perf_event_disable(struct perf_event *e);
void perf_event_reset(struct perf_event *e);
/* Bring e->count and the times up to date. */
void perf_event_read_update(struct perf_event *e);
/* The task context of t, made on first use; NULL on allocation failure. */
struct perf_event_context *perf_task_context(struct task *t, bool create);
/* t is ending: its events stop and take the EXIT state. */
void perf_task_exit(struct task *t);
void perf_task_events_enable(struct task *t, bool enable);

/* open.c: the perf event file */
bool is_perf_file(const struct file *f);

/* read.c */
long perf_read(struct perf_event *e, char *ubuf, size_t n);
/* ioctl.c */
long perf_ioctl(struct perf_event *e, unsigned cmd, unsigned long arg);
/* mmap.c */
long perf_mmap(struct file *f, struct vma *vma);
/* Send e's records to out's buffer (NULL: e's own); -EINVAL while e is
 * mapped itself or out has no mapping. */
long perf_event_set_output(struct perf_event *e, struct perf_event *out);

#define for_each_sibling(s, leader) \
	for (struct perf_event *s = (leader)->sibling_next; s; s = s->sibling_next)
