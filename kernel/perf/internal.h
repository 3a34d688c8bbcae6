/* The perf core's private state: contexts, scheduling, the event file. */
#pragma once
#include "perf.h"
#include "perf_event.h"
#include "../percpu.h"
#include "../x86.h"
#include <pmuos/perf_ext.h>

struct task;
struct file;
struct vma;

/* Each CPU's context of CPU-wide events (event.c). */
DECLARE_PER_CPU(struct perf_event_context, perf_cpu_ctx);

static inline struct perf_event_context *perf_cpu_context(int cpu)
{
	return per_cpu_ptr(&perf_cpu_ctx, cpu);
}

/* The CPU whose context ctx is, or -1 for a task's. */
static inline int perf_ctx_cpu(const struct perf_event_context *ctx)
{
	for (int i = 0; i < nr_cpus; i++)
		if (ctx == perf_cpu_context(i))
			return i;
	return -1;
}

static inline bool perf_ctx_is_cpu(const struct perf_event_context *ctx)
{
	return perf_ctx_cpu(ctx) >= 0;
}

/* The mmap buffer of an event (mmap.c); e->rb is the buffer e's records go
 * to: its own mapping's, or the SET_OUTPUT target's. It lives while an
 * event is attached (users); the last munmap detaches them all, as Linux's
 * perf_mmap_close does. */
struct perf_buffer {
	int mmap_count;			/* VMAs mapping it */
	int nr_pages;			/* data pages: 0 or a power of two */
	bool writable;			/* PROT_WRITE: the reader owns data_tail */
	bool paused;			/* PERF_EVENT_IOC_PAUSE_OUTPUT (always, with no data pages) */
	struct perf_event_mmap_page *user_page;	/* direct-map address */
	uint64_t user_page_phys;
	uint64_t *data_phys;		/* nr_pages frames */
	void *data;			/* the data pages, contiguous in vmalloc space */
	struct rb_user *users;		/* the events attached (mmap.c) */

	/* The writers' state (ring.c), changed from any context, NMIs too,
	 * by single instructions or restored by the nested writer. */
	uint64_t head;			/* reserved so far; decreasing for write_backward */
	unsigned nest;			/* writers inside begin..end, nested by interrupts */
	uint64_t wakeup;		/* wake-ups due (Linux's rb->wakeup: watermark steps + 1 per wakeup_events) */
	uint64_t watermark;		/* bytes between watermark wake-ups */
	uint64_t lost;			/* records dropped since the last PERF_RECORD_LOST */
	uint64_t events;		/* samples towards the next wakeup_events wake-up */
	unsigned poll;			/* POLLIN while a wake-up is pending; poll() takes it */
	struct perf_aux *aux;		/* the AUX area (aux.c), NULL while none is mapped */
};

/* The AUX area of a buffer (aux.c, seed 002): a second ring, mapped at
 * user_page->aux_offset of the same fd, that a tracing PMU fills in its own
 * format while PERF_RECORD_AUX records in the data ring say where. */
struct perf_aux {
	int nr_pages;			/* a power of two */
	uint64_t *phys;			/* the frames */
	void **pages;			/* their direct-map addresses, as setup_aux gets them */
	uint64_t pgoff;			/* aux_offset: where the fd maps it, bytes */
	int mmap_count;			/* VMAs mapping it */
	int refcount;			/* the mappings' one, and the writer's inside begin..end */
	bool overwrite;			/* mapped read-only: snapshot mode, no aux_tail */
	unsigned nest;			/* writers inside begin..end: 0 or 1, never more */
	uint64_t head;			/* bytes written or skipped, ever (aux_head) */
	uint64_t wakeup;		/* head at the last watermark wake-up */
	uint64_t watermark;		/* bytes between wake-ups; 0 in overwrite mode */
	struct pmu *pmu;		/* whose setup_aux made priv */
	void *priv;			/* the driver's private AUX state */
};

/* mmap.c: a buffer not (yet) mapped, for the self-tests; the last detach
 * frees it. watermark 0: half the data. */
struct perf_buffer *rb_alloc(int nr_pages, bool writable, uint64_t watermark);
/* aux.c: give rb an AUX area of nr_pages (a power of two) for e's PMU, at
 * aux_offset pgoff (bytes); watermark 0: half of it. -EOPNOTSUPP when the
 * PMU writes no AUX data (no setup_aux), -ENOMEM. The caller's reference
 * is the mappings' one: rb_put_aux drops it. */
int rb_alloc_aux(struct perf_buffer *rb, struct perf_event *e, uint64_t pgoff,
		 uint64_t nr_pages, uint64_t watermark, bool overwrite);
/* More AUX pages than this (4 GiB) are -ENOMEM before any is allocated. */
#define AUX_MAX_PAGES	(1ull << 20)
/* Drop a reference to rb's AUX area; the last frees it (free_aux first).
 * On the CPU of its writers (their count), or once rb has no user. */
void rb_put_aux(struct perf_buffer *rb);
/* Send e's records to rb (NULL: nowhere); -ENOMEM. */
int rb_attach(struct perf_event *e, struct perf_buffer *rb);
/* e goes away: stop writing into its buffer (freed with its last user). */
void perf_event_release_rb(struct perf_event *e);
/* poll() of e: POLLHUP once its task exited or with no buffer, else the
 * pending wake-up (taken: the next poll waits for another). */
unsigned perf_event_poll(struct perf_event *e);

/* The attr flag word (disabled ... sigtrap, and seed 001's persistent at
 * PMUOS_ATTR_FLAG_PERSISTENT_BIT) as one u64: the bits without a C field. */
static inline uint64_t perf_attr_flags(const struct perf_event_attr *attr)
{
	uint64_t word;

	__builtin_memcpy(&word, (const char *)attr + PMUOS_ATTR_FLAGS_OFFSET, sizeof(word));
	return word;
}

/* Bits of that word, for tests of several flags at once (Linux's bitfield
 * order; the self-test attr_flag_bits checks each against its field). */
#define ATTR_FLAG_INHERIT		(1ull << 1)
#define ATTR_FLAG_FREQ			(1ull << 10)
#define ATTR_FLAG_USE_CLOCKID		(1ull << 25)
#define ATTR_FLAG_AUX_OUTPUT		(1ull << 31)
#define ATTR_FLAG_INHERIT_THREAD	(1ull << 35)
#define ATTR_FLAG_REMOVE_ON_EXEC	(1ull << 36)
#define ATTR_FLAG_SIGTRAP		(1ull << 37)

static inline bool perf_attr_persistent(const struct perf_event_attr *attr)
{
	return perf_attr_flags(attr) & (1ull << PMUOS_ATTR_FLAG_PERSISTENT_BIT);
}

/* attr.c: copy struct perf_event_attr in as Linux's perf_copy_attr does
 * (sizes, E2BIG with the size written back, reserved bits). */
int perf_copy_attr(const void *uattr, struct perf_event_attr *attr);

/* event.c */
/* perf_event_open's way: a new event whose attr the caller fills (nothing
 * else is set), then perf_event_init, which frees it on failure (*err);
 * perf_event_discard gives it back before that. perf_event_alloc does
 * both from a copy of attr. */
struct perf_event *perf_event_new(void);
void perf_event_discard(struct perf_event *e);
struct perf_event *perf_event_init(struct perf_event *e, struct perf_event *group_leader,
				   int *err);
struct perf_event *perf_event_alloc(const struct perf_event_attr *attr,
				    struct perf_event *group_leader, int *err);
/* The same for an event that follows task target_pid (0: CPU-wide), which
 * event_init sees in e->target_pid (the breakpoint PMU's slot count). */
struct perf_event *perf_event_alloc_target(const struct perf_event_attr *attr,
					   struct perf_event *group_leader, int target_pid,
					   int *err);
void perf_event_free(struct perf_event *e);
/* References: each fd's file and a persistent event's own; the last put
 * takes the event out of its context and frees it. */
void perf_event_get(struct perf_event *e);
void perf_event_put(struct perf_event *e);
void perf_install_in_context(struct perf_event_context *ctx, struct perf_event *e);
void perf_remove_from_context(struct perf_event *e);
void perf_event_enable(struct perf_event *e);
void perf_event_disable(struct perf_event *e);
/* Enable or disable n events together: one rescheduling after all. */
void perf_events_set_enabled(struct perf_event **events, int n, bool enable);
void perf_event_reset(struct perf_event *e);
/* Bring e->count and the times up to date. */
void perf_event_read_update(struct perf_event *e);
/* Only e->count. */
/* The id records and read values carry (Linux's primary_event_id): an
 * inherited copy's is its original's, so that a tool finds the event it
 * opened; STREAM_ID alone tells the copies apart. */
static inline uint64_t perf_primary_id(const struct perf_event *e)
{
	return e->parent ? e->parent->id : e->id;
}

/* Fold an active event's counter into e->count where it counts: the PMU's
 * read on this CPU, or by IPI on the CPU it is active on (Linux's
 * perf_event_read); interrupts off. */
void perf_event_fold_remote(struct perf_event *e);
static inline void perf_event_fold_active(struct perf_event *e)
{
	if (likely(e->oncpu == smp_processor_id()))
		e->pmu->read(e);
	else
		perf_event_fold_remote(e);
}

static inline void perf_event_fold(struct perf_event *e)
{
	if (e->state == PERF_EVENT_STATE_ACTIVE)
		perf_event_fold_active(e);
}

static inline void perf_event_read_count(struct perf_event *e)
{
	uint64_t flags = irq_save();

	perf_event_fold(e);
	irq_restore(flags);
}
/* fn(arg) on the CPU whose PMU has e, else on the CPU e is bound to, else
 * where its task is current, by IPI from another; here when none of these
 * is another CPU (Linux's event_function_call for one event). There fn is
 * the only writer of e's ring and control page, beside the ones it
 * interrupts (ring.c). Kernel lock held. */
void perf_event_call(struct perf_event *e, void (*fn)(void *arg), void *arg);
/* perf_event_update_userpage there: from process context (mmap). */
void perf_event_update_userpage_there(struct perf_event *e);
/* The PMU's flush, on the CPU whose PMU has e. */
void perf_event_flush(struct perf_event *e);
/* inherit.c: fn(c, arg) for each live copy of e (all of an original's copies,
 * children's children too, point at it, as Linux's); nothing when it has none. */
void perf_event_for_each_copy(struct perf_event *e,
			      void (*fn)(struct perf_event *c, void *arg), void *arg);
/* What e's live copies counted so far, added to *count, *enabled, *running
 * (Linux's read adds its child list's values). */
void perf_event_read_copies(struct perf_event *e, uint64_t *count, uint64_t *enabled,
			    uint64_t *running);
/* The task context of t (t's own storage), set up on first use. */
struct perf_event_context *perf_task_context(struct task *t);

/* open.c: the perf event file */
bool is_perf_file(const struct file *f);
/* A new file for e (taking a reference), as a reopen needs. */
struct file *perf_event_file(struct perf_event *e);

/* persistent.c (seed 001) */
/* The PMU that names the persistent events' type; perf_event_open tests
 * every attr against it, inline. */
extern struct pmu perf_persistent_pmu;
static inline bool perf_is_persistent_type(uint32_t type)
{
	return type == (uint32_t)perf_persistent_pmu.type;
}
long perf_persistent_open(const struct perf_event_attr *attr, int pid, int cpu,
			  int group_fd, unsigned long flags);
long perf_event_detach(struct perf_event *e);
long perf_event_attach(struct perf_event *e);
void perf_persistent_task_exit(struct task *t);

/* read.c: read() of an event's file (its priv is the event: one step from
 * the descriptor). */
long perf_file_read(struct file *f, char *ubuf, size_t n);
/* ioctl.c: ioctl() of an event's file, and of the event itself */
long perf_file_ioctl(struct file *f, unsigned cmd, unsigned long arg);
long perf_ioctl(struct perf_event *e, unsigned cmd, unsigned long arg);
/* mmap.c */
long perf_mmap(struct file *f, struct vma *vma);
/* Send e's records to out's buffer (NULL: e's own); -EINVAL while e is
 * mapped itself or out has no mapping. */
long perf_event_set_output(struct perf_event *e, struct perf_event *out);

/* The contexts an operation on task t walks, in Linux's perf_iterate_sb
 * order: the CPU's, then t's if it has one (t may be NULL). */
struct perf_event_context *perf_context_nth(int i, struct task *t);
#define for_each_context(ctx, t)						\
	for (int __ctx_i = 0; __ctx_i < 2; __ctx_i++)				\
		for (struct perf_event_context *ctx = perf_context_nth(__ctx_i, (t)); ctx; \
		     ctx = NULL)

#define for_each_sibling(s, leader) \
	for (struct perf_event *s = (leader)->sibling_next; s; s = s->sibling_next)

/* ---- output into the ring (ring.c), seed 003's ABI with today's Linux
 * semantics. All of it may run in NMI context: no locks, no allocation,
 * no faults. ---- */

/* Reserve size bytes (a multiple of 8) in the buffer e's records go to (its
 * own, or its SET_OUTPUT target's). 0 on success; -ENOSPC when the record
 * must be dropped (no buffer, paused, or a PROT_WRITE reader has not made
 * room: the loss is counted and a PERF_RECORD_LOST follows when room
 * returns). Writers nest: an interrupt or NMI may begin and end a record
 * of the same buffer inside another's begin..end; the outermost end
 * publishes data_head for all of them. */
int perf_output_begin(struct perf_output_handle *h, struct perf_event *e, unsigned size);
void perf_output_copy(struct perf_output_handle *h, const void *buf, unsigned len);
/* Publish the record (data_head, with the barrier the ABI documents) and
 * wake the reader when wakeup_events/wakeup_watermark say so. */
void perf_output_end(struct perf_output_handle *h);
/* Self-test hook: when set to 1..RB_NMI_POINTS, the write path raises a
 * self-NMI once it reaches that point (kernel/perf/test/ring.c). */
#define RB_NMI_POINTS	8
extern unsigned rb_nmi_point;

/* ---- samples and side-band records (sample.c, records.c) ---- */

/* sysctl_perf_event_max_stack: attr.sample_max_stack's default and limit. */
#define PERF_MAX_STACK_DEPTH	127

/* Write one PERF_RECORD_SAMPLE for e as attr.sample_type asks, from regs
 * (the interrupted context: user or kernel; NULL: the caller's kernel
 * context); addr is PERF_SAMPLE_ADDR's value (the faulting address for
 * page-fault events, else 0). Any context, NMIs included. */
void perf_event_output(struct perf_event *e, struct pt_regs *regs, uint64_t addr);
/* One side-band record for e: body (its header's size is set here, the
 * trailer included), then the sample_id_all trailer. */
void perf_output_record(struct perf_event *e, void *body, unsigned size);
/* Open-time checks of what a sample can hold (Linux's errnos: XMM
 * registers, branch stacks, sample_max_stack, AUX samples), and the first
 * read of use_clockid's clock. An attr with none of the fields they look
 * at (most) passes one test, inline; __perf_sample_event_init looks at
 * nothing else. */
int __perf_sample_event_init(struct perf_event *e);
static inline int perf_sample_event_init(struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;

	if (!((a->sample_type & (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_CALLCHAIN)) |
	      a->sample_regs_user | a->sample_regs_intr | a->aux_sample_size |
	      (perf_attr_flags(a) & ATTR_FLAG_USE_CLOCKID)))
		return 0;
	return __perf_sample_event_init(e);
}
/* The time records of e carry: attr.clockid's clock with use_clockid, else
 * the perf clock. */
uint64_t perf_event_clock(const struct perf_event *e);
/* sample_id_all: the trailer Linux's perf_event__output_id_sample writes
 * after each side-band record (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER as
 * attr.sample_type asks). Returns the words put in out: 0 without
 * sample_id_all. */
#define PERF_ID_SAMPLE_MAX	6
/* PERF_SAMPLE_TID's word for t: its process id, then its thread id. */
uint64_t perf_pid_tid(const struct task *t);
unsigned perf_event_id_sample(const struct perf_event *e, uint64_t *out);

void perf_log_throttle(struct perf_event *e, bool unthrottle);
void perf_log_lost_samples(struct perf_event *e, uint64_t lost);

/* ---- overflow (overflow.c) ---- */

/* Deferred work an NMI cannot do itself (wake-ups, signals, disabling):
 * queued here, run from a self-IPI once the NMI has returned. The ring
 * calls this when a reader is due a wake-up. */
void perf_pending_work(struct perf_event *e);
/* e goes away: drop its queued work and throttling. */
void __perf_pending_cancel(struct perf_event *e);
static inline void perf_pending_cancel(struct perf_event *e)
{
	/* The test inline: most events were never queued. */
	if (READ_ONCE(e->pending_queued) || READ_ONCE(e->throttled_queued))
		__perf_pending_cancel(e);
}
void perf_overflow_init(void);
