/* Side-band records (include/uapi/linux/perf_event.h): COMM, MMAP/MMAP2,
 * EXIT, SWITCH, THROTTLE, LOST_SAMPLES, each ending with the sample_id_all
 * trailer. Linux's perf_iterate_sb sends them to the events of the CPU
 * context and of the current task's that asked and are not off. What was
 * mapped before an event existed, a tool reads from /proc/PID/maps, as on
 * Linux. */
#include "internal.h"
#include "../exec.h"
#include "../fd.h"
#include "../fs/vfs.h"
#include "../task.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../mm/uspace.h"
#include <linux/mman.h>

/* The longest name a record carries here (Linux: PATH_MAX); longer file
 * paths are cut, to keep the record off a deep stack. */
#define MMAP_NAME_MAX	512

uint64_t perf_pid_tid(const struct task *t)
{
	return t ? (uint32_t)t->tgid | (uint64_t)(uint32_t)t->pid << 32 : 0;
}

unsigned perf_event_id_sample(const struct perf_event *e, uint64_t *out)
{
	uint64_t t = e->attr.sample_type;
	uint64_t *p = out;

	if (!e->attr.sample_id_all)
		return 0;
	if (t & PERF_SAMPLE_TID)
		*p++ = perf_pid_tid(current);
	if (t & PERF_SAMPLE_TIME)
		*p++ = perf_event_clock(e);
	if (t & PERF_SAMPLE_ID)
		*p++ = perf_primary_id(e);
	if (t & PERF_SAMPLE_STREAM_ID)
		*p++ = e->id;
	if (t & PERF_SAMPLE_CPU)
		*p++ = smp_processor_id();	/* the writing CPU, reserved 0 */
	if (t & PERF_SAMPLE_IDENTIFIER)
		*p++ = perf_primary_id(e);
	return p - out;
}

void perf_output_record(struct perf_event *e, void *body, unsigned size)
{
	struct perf_event_header *hdr = body;
	struct perf_output_handle h;
	uint64_t id[PERF_ID_SAMPLE_MAX];
	unsigned n = perf_event_id_sample(e, id);

	hdr->size = size + n * sizeof(uint64_t);
	if (perf_output_begin(&h, e, hdr->size))
		return;
	perf_output_copy(&h, body, size);
	perf_output_copy(&h, id, n * sizeof(uint64_t));
	perf_output_end(&h);
}

typedef bool (*sb_match)(const struct perf_event *e, const void *arg);
typedef void (*sb_output)(struct perf_event *e, const void *arg);

/* perf_iterate_ctx's filter: not off or in error, and not bound to another
 * CPU (Linux's event_filter_match). A task's event bound to CPU 1 takes no
 * record written on CPU 0: it counts only on CPU 1, and its ring may be
 * CPU 1's events' too, which CPU 1 writes meanwhile (ring.c). */
static bool sb_wants(const struct perf_event *e, sb_match match, const void *arg)
{
	return e->state >= PERF_EVENT_STATE_INACTIVE && match(e, arg) &&
	       (e->cpu < 0 || e->cpu == smp_processor_id());
}

/* perf_iterate_sb: the CPU context's events, then those of t, which runs
 * here (the current task, or one being switched in or out), leaders and
 * siblings. Interrupts stay off so that rotation cannot reorder a list
 * under the walk. */
static void for_each_sb_event(struct task *t, sb_match match, sb_output output, const void *arg)
{
	uint64_t flags = irq_save();

	for_each_context(ctx, t) {
		for (struct perf_event *g = ctx->groups; g; g = g->ctx_next) {
			if (sb_wants(g, match, arg))
				output(g, arg);
			for_each_sibling(s, g)
				if (sb_wants(s, match, arg))
					output(s, arg);
		}
	}
	irq_restore(flags);
}

/* ---- COMM ---- */

struct comm_arg {
	struct task *t;
	bool exec;
};

static bool comm_match(const struct perf_event *e, const void *arg)
{
	return e->attr.comm;
}

static void comm_output(struct perf_event *e, const void *arg)
{
	const struct comm_arg *a = arg;
	struct {
		struct perf_event_header header;
		uint32_t pid, tid;
		char comm[TASK_COMM_LEN];	/* NUL-padded to 8 bytes */
	} r = {
		.header.type = PERF_RECORD_COMM,
		/* Linux sets it for exec whatever attr.comm_exec says: that bit
		 * only lets tools probe for the flag. */
		.header.misc = a->exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
		.pid = a->t->tgid,
		.tid = a->t->pid,
	};
	size_t len = strnlen(a->t->comm, sizeof(r.comm) - 1);

	memcpy(r.comm, a->t->comm, len);
	perf_output_record(e, &r, offsetof(typeof(r), comm) + ALIGN_UP(len + 1, 8));
}

/* To the renaming task's events, as Linux's perf_event_comm: a thread that
 * writes /proc/PID/comm renames its leader, which may be running on
 * another CPU, writing its own ring there. */
void perf_event_comm(struct task *t, bool exec)
{
	struct comm_arg a = { t, exec };

	for_each_sb_event(current, comm_match, comm_output, &a);
}

/* ---- MMAP, MMAP2 ---- */

struct mmap_arg {
	struct task *t;
	const struct vma *vma;
};

/* perf_event_mmap_match: executable mappings for attr.mmap or mmap2, the
 * others for attr.mmap_data. */
static bool mmap_match(const struct perf_event *e, const void *arg)
{
	const struct mmap_arg *a = arg;

	if (a->vma->flags & VM_EXEC)
		return e->attr.mmap || e->attr.mmap2;
	return e->attr.mmap_data;
}

/* The name /proc/PID/maps would show and Linux's perf_event_mmap_event
 * gives, and pgoff in bytes (private anonymous memory: its address); a
 * file's path is made in buf. */
static const char *vma_name(const struct task *t, const struct vma *v, uint64_t *pgoff,
			    char *buf, size_t size)
{
	const struct uspace *us = t->us;
	struct file *f = v->priv;

	*pgoff = v->pgoff;
	if (v->flags & VM_EXE)
		return t->exe;
	if (v->flags & VM_INTERP)
		return us->interp;
	if (v->flags & VM_FILE)
		return vfs_file_path(f, buf, size) > 0 ? buf : "//anon";
	if (v->flags & VM_SPECIAL)
		return f && is_perf_file(f) ? "anon_inode:[perf_event]" : "//anon";
	if (v->flags & VM_SHARED)
		return "/dev/zero (deleted)";	/* shmem behind MAP_SHARED|MAP_ANONYMOUS */
	*pgoff = v->start;
	if (v->start <= us->brk_start && v->end >= us->brk)
		return "[heap]";
	if (v->flags & VM_STACK)
		return "[stack]";
	return "//anon";
}

static void mmap_output(struct perf_event *e, const void *arg)
{
	const struct mmap_arg *a = arg;
	const struct vma *v = a->vma;
	struct {
		struct perf_event_header header;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		/* MMAP2 only, up to prot and flags */
		uint32_t maj, min;		/* the file's identity: 0:N, inode */
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
		char filename[MMAP_NAME_MAX];
	} r = {
		.header.type = e->attr.mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP,
		.header.misc = PERF_RECORD_MISC_USER |
			       (v->flags & VM_EXEC ? 0 : PERF_RECORD_MISC_MMAP_DATA),
		.pid = a->t->tgid,
		.tid = a->t->pid,
		.addr = v->start,
		.len = v->end - v->start,
		.prot = v->flags & (PROT_READ | PROT_WRITE | PROT_EXEC),
		.flags = v->flags & VM_SHARED ? MAP_SHARED : MAP_PRIVATE,
	};
	static char path[PATH_MAX_LEN];	/* one CPU; records are never written in an NMI */
	const char *name = vma_name(a->t, v, &r.pgoff, path, sizeof(path));
	size_t len = strnlen(name, MMAP_NAME_MAX - 1);
	if (v->flags & VM_FILE) {
		const struct inode *n = ((struct file *)v->priv)->inode;
		r.min = n->sb->dev;
		r.ino = n->ino;
	} else if (v->flags & VM_EXE) {
		exec_file_id(a->t, &r.min, &r.ino);
	}
	char *at = (char *)&r + (e->attr.mmap2 ? offsetof(typeof(r), filename)
					       : offsetof(typeof(r), maj));

	static_assert(VM_READ == PROT_READ && VM_WRITE == PROT_WRITE && VM_EXEC == PROT_EXEC,
		      "VM_* protections are PROT_* values");
	memset(at, 0, ALIGN_UP(len + 1, 8));
	memcpy(at, name, len);
	perf_output_record(e, &r, at - (char *)&r + ALIGN_UP(len + 1, 8));
}

void perf_event_mmap(struct task *t, const struct vma *vma)
{
	struct mmap_arg a = { t, vma };

	if (vma)
		for_each_sb_event(t, mmap_match, mmap_output, &a);
}

void perf_event_exec(struct task *t)
{
	perf_event_comm(t, true);
	for (struct vma *v = t->us->vmas; v; v = v->next)
		if (v->flags & VM_EXE)
			perf_event_mmap(t, v);
}

/* ---- FORK, EXIT ---- */

/* perf_event_task_match: any of the task-tracking bits asks for it. */
static bool task_match(const struct perf_event *e, const void *arg)
{
	const struct perf_event_attr *a = &e->attr;

	return a->comm || a->mmap || a->mmap2 || a->mmap_data || a->task;
}

struct task_arg {
	const struct task *t, *parent;
	uint32_t type;
};

static void task_output(struct perf_event *e, const void *arg)
{
	const struct task_arg *a = arg;
	struct {
		struct perf_event_header header;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} r = {
		.header.type = a->type,
		.pid = a->t->tgid,
		.ppid = a->parent ? a->parent->tgid : 0,	/* 0: the kernel's */
		.tid = a->t->pid,
		.ptid = a->parent ? a->parent->pid : 0,
		.time = perf_event_clock(e),
	};

	perf_output_record(e, &r, sizeof(r));
}

void perf_event_fork(struct task *child)
{
	struct task_arg a = { child, current, PERF_RECORD_FORK };

	for_each_sb_event(current, task_match, task_output, &a);
}

void perf_log_task_exit(struct task *t)
{
	/* Linux's ppid/ptid of an exiting thread: its creator's process. */
	struct task_arg a = { t, t->parent, PERF_RECORD_EXIT };

	for_each_sb_event(t, task_match, task_output, &a);
}

/* ---- SWITCH ---- */

static bool switch_match(const struct perf_event *e, const void *arg)
{
	return e->attr.context_switch;
}

struct switch_arg {
	const struct task *t, *other;
	bool out;
};

/* Task events get PERF_RECORD_SWITCH; CPU-wide ones SWITCH_CPU_WIDE with
 * the task on the other side (the next one going out, the previous one
 * coming in; pid 0 for the idle loop). A task switched out while it could
 * still run was preempted: SWITCH_OUT_PREEMPT. */
static void switch_output(struct perf_event *e, const void *arg)
{
	const struct switch_arg *a = arg;
	struct {
		struct perf_event_header header;
		uint32_t next_prev_pid, next_prev_tid;
	} r = {
		.header.misc = !a->out ? 0 : PERF_RECORD_MISC_SWITCH_OUT |
			       (a->other && a->t->state == TASK_RUNNING ?
				PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0),
		.next_prev_pid = a->other ? a->other->tgid : 0,
		.next_prev_tid = a->other ? a->other->pid : 0,
	};

	if (e->ctx && e->ctx->task) {
		r.header.type = PERF_RECORD_SWITCH;
		perf_output_record(e, &r, sizeof(r.header));
	} else {
		r.header.type = PERF_RECORD_SWITCH_CPU_WIDE;
		perf_output_record(e, &r, sizeof(r));
	}
}

void perf_event_switch(struct task *t, struct task *other, bool out)
{
	struct switch_arg a = { .t = t, .other = other, .out = out };

	for_each_sb_event(t, switch_match, switch_output, &a);
}

/* ---- THROTTLE, UNTHROTTLE, LOST_SAMPLES: for one event ---- */

void perf_log_throttle(struct perf_event *e, bool unthrottle)
{
	struct {
		struct perf_event_header header;
		uint64_t time, id, stream_id;
	} r = {
		.header.type = unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE,
		.time = perf_event_clock(e),
		.id = perf_primary_id(e),
		.stream_id = e->id,
	};

	perf_output_record(e, &r, sizeof(r));
}

void perf_log_lost_samples(struct perf_event *e, uint64_t lost)
{
	struct {
		struct perf_event_header header;
		uint64_t lost;
	} r = {
		.header.type = PERF_RECORD_LOST_SAMPLES,
		.lost = lost,
	};

	perf_output_record(e, &r, sizeof(r));
}
