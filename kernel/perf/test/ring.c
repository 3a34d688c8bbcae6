/* Self-tests of the data ring's writer (kernel/perf/ring.c) on buffers no
 * process maps: space and PERF_RECORD_LOST in PROT_WRITE mode, overwrite
 * mode, write_backward, records wrapping at the end, wake-up rules, nested
 * writers, and a torture run in which self-NMIs and timer interrupts write
 * records from inside other writers' begin..end. */
#include "../../ktest.h"
#include "../../cpu_stats.h"
#include "../../nmi.h"
#include "../../timer.h"
#include "../../x86.h"
#include "../../lib/string.h"
#include "../../mm/paging.h"
#include "../internal.h"
#include <asm-generic/errno.h>
#include <linux/poll.h>

#define RECORD_TYPE(k)	(0x7000 + (k))	/* the tests' own record types */

static struct perf_event *ring_event(uint64_t sample_type, bool backward, int wakeup_events)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.sample_type = sample_type,
		.sample_id_all = sample_type != 0,
		.write_backward = backward,
		.wakeup_events = wakeup_events,
	};
	int err;

	return perf_event_alloc(&attr, NULL, &err);
}

static uint64_t pattern(uint32_t type, uint64_t seq, unsigned at)
{
	return seq * 0x9e3779b97f4a7c15ull ^ (uint64_t)type << 40 ^ at;
}

/* One record of size bytes: header, then words the reader can check. */
static int put_record(struct perf_event *e, uint32_t type, uint64_t seq, unsigned size)
{
	struct perf_output_handle h;
	struct perf_event_header hdr = { .type = type, .size = size };

	if (perf_output_begin(&h, e, size))
		return -ENOSPC;
	perf_output_copy(&h, &hdr, sizeof(hdr));
	for (unsigned at = sizeof(hdr); at < size; at += 8) {
		uint64_t w = pattern(type, seq, at);
		perf_output_copy(&h, &w, sizeof(w));
	}
	perf_output_end(&h);
	return 0;
}

/* n bytes at ring position pos, as a reader sees them across the end. */
static void ring_read(const struct perf_buffer *rb, uint64_t pos, void *buf, size_t n)
{
	uint64_t size = (uint64_t)rb->nr_pages * PAGE_SIZE, at = pos & (size - 1);
	size_t first = MIN(n, size - at);

	memcpy(buf, (const char *)rb->data + at, first);
	memcpy((char *)buf + first, rb->data, n - first);
}

static bool record_ok(const struct perf_buffer *rb, uint64_t pos, uint32_t type, uint64_t seq,
		      unsigned size)
{
	struct perf_event_header hdr;

	ring_read(rb, pos, &hdr, sizeof(hdr));
	if (hdr.type != type || hdr.size != size)
		return false;
	for (unsigned at = sizeof(hdr); at < size; at += 8) {
		uint64_t w;
		ring_read(rb, pos + at, &w, sizeof(w));
		if (w != pattern(type, seq, at))
			return false;
	}
	return true;
}

/* PROT_WRITE mode never writes over what the reader has not consumed; the
 * records that did not fit come back as one PERF_RECORD_LOST, here across
 * the end of the ring, with its sample_id_all trailer. */
KTEST(ring_lost_record_after_drain)
{
	long rings = perf_stats.rings;
	struct perf_event *e = ring_event(PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER, false, 1);
	KASSERT(e);
	struct perf_buffer *rb = rb_alloc(1, true, 0);
	KASSERT(rb && !rb_attach(e, rb));
	int fitted = 0;

	for (int i = 0; i < 200; i++)
		fitted += !put_record(e, RECORD_TYPE(0), i, 24);
	/* CIRC_SPACE leaves a byte: 170 records of 24 in 4095 bytes. */
	KEXPECT_EQ(fitted, 170);
	KEXPECT_EQ(rb->user_page->data_head, 170 * 24);
	KEXPECT_EQ(e->lost_samples, 30);
	KEXPECT_EQ(rb->lost, 30);
	for (int i = 0; i < 170; i++)
		KEXPECT(record_ok(rb, i * 24, RECORD_TYPE(0), i, 24));

	rb->user_page->data_tail = rb->user_page->data_head;
	KEXPECT_EQ(put_record(e, RECORD_TYPE(0), 200, 24), 0);
	uint64_t at = 170 * 24, lost[5];
	struct perf_event_header hdr;
	ring_read(rb, at, lost, sizeof(lost));
	memcpy(&hdr, lost, sizeof(hdr));
	KEXPECT_EQ(hdr.type, PERF_RECORD_LOST);
	KEXPECT_EQ(hdr.size, 40);
	KEXPECT_EQ(lost[1], e->id);
	KEXPECT_EQ(lost[2], 30);
	KEXPECT_EQ(lost[3], 0);		/* pid, tid: no task here */
	KEXPECT_EQ(lost[4], e->id);	/* PERF_SAMPLE_IDENTIFIER */
	KEXPECT(record_ok(rb, at + 40, RECORD_TYPE(0), 200, 24));
	KEXPECT_EQ(rb->user_page->data_head, at + 40 + 24);
	KEXPECT_EQ(rb->lost, 0);
	KEXPECT_EQ(e->lost_samples, 30);
	perf_event_free(e);
	KEXPECT_EQ(perf_stats.rings, rings);
}

/* A read-only mapping: the kernel writes on, over the oldest records. */
KTEST(ring_overwrite_keeps_newest)
{
	long rings = perf_stats.rings;
	struct perf_event *e = ring_event(0, false, 1);
	KASSERT(e);
	struct perf_buffer *rb = rb_alloc(1, false, 0);
	KASSERT(rb && !rb_attach(e, rb));

	for (int i = 0; i < 1000; i++)
		KEXPECT_EQ(put_record(e, RECORD_TYPE(0), i, 24), 0);
	uint64_t head = rb->user_page->data_head;
	KEXPECT_EQ(head, 24000);
	KEXPECT_EQ(e->lost_samples, 0);
	for (int i = 999; i > 999 - 4096 / 24; i--)
		KEXPECT(record_ok(rb, i * 24, RECORD_TYPE(0), i, 24));
	perf_event_free(e);
	KEXPECT_EQ(perf_stats.rings, rings);
}

/* write_backward: data_head goes down; from it, the newest record first. */
KTEST(ring_write_backward)
{
	long rings = perf_stats.rings;
	struct perf_event *e = ring_event(0, true, 1);
	KASSERT(e);
	struct perf_buffer *rb = rb_alloc(1, false, 0);
	KASSERT(rb && !rb_attach(e, rb));

	for (int i = 0; i < 3; i++)
		KEXPECT_EQ(put_record(e, RECORD_TYPE(0), i, 16 + 8 * i), 0);
	uint64_t head = rb->user_page->data_head;
	KEXPECT_EQ(head, -(uint64_t)(16 + 24 + 32));
	KEXPECT(record_ok(rb, head, RECORD_TYPE(0), 2, 32));
	KEXPECT(record_ok(rb, head + 32, RECORD_TYPE(0), 1, 24));
	KEXPECT(record_ok(rb, head + 56, RECORD_TYPE(0), 0, 16));
	perf_event_free(e);

	/* PROT_WRITE backward: the space check runs the other way round. */
	e = ring_event(0, true, 1);
	KASSERT(e);
	rb = rb_alloc(1, true, 0);
	KASSERT(rb && !rb_attach(e, rb));
	int fitted = 0;
	for (int i = 0; i < 200; i++)
		fitted += !put_record(e, RECORD_TYPE(0), i, 24);
	KEXPECT_EQ(fitted, 170);
	KEXPECT_EQ(rb->user_page->data_head, -(uint64_t)(170 * 24));
	perf_event_free(e);
	KEXPECT_EQ(perf_stats.rings, rings);
}

/* A writer nested in another's begin..end (an interrupt) reserves after
 * it; data_head moves only when the outer one ends, over both. */
KTEST(ring_nested_writer_publishes_with_outer)
{
	struct perf_event *e = ring_event(0, false, 1);
	KASSERT(e);
	struct perf_buffer *rb = rb_alloc(1, true, 0);
	KASSERT(rb && !rb_attach(e, rb));
	struct perf_output_handle outer;
	struct perf_event_header hdr = { .type = RECORD_TYPE(1), .size = 16 };
	uint64_t w = pattern(RECORD_TYPE(1), 0, 8);

	KASSERT(!perf_output_begin(&outer, e, 16));
	perf_output_copy(&outer, &hdr, sizeof(hdr));
	KEXPECT_EQ(put_record(e, RECORD_TYPE(2), 0, 32), 0);
	KEXPECT_EQ(rb->user_page->data_head, 0);
	KEXPECT_EQ(rb->nest, 1);
	perf_output_copy(&outer, &w, sizeof(w));
	perf_output_end(&outer);
	KEXPECT_EQ(rb->user_page->data_head, 48);
	KEXPECT_EQ(rb->nest, 0);
	KEXPECT(record_ok(rb, 0, RECORD_TYPE(1), 0, 16));
	KEXPECT(record_ok(rb, 16, RECORD_TYPE(2), 0, 32));
	perf_event_free(e);
}

/* Linux's rules: a wake-up each wakeup_events samples (other records do
 * not count), or each time the unread bytes pass the watermark (">"). */
KTEST(ring_wakeup_rules)
{
	struct perf_event *e = ring_event(0, false, 3);
	KASSERT(e);
	struct perf_buffer *rb = rb_alloc(4, true, 0);
	KASSERT(rb && !rb_attach(e, rb));
	unsigned polls[7];

	for (int i = 0; i < 7; i++) {
		put_record(e, PERF_RECORD_SAMPLE, i, 24);
		put_record(e, RECORD_TYPE(0), i, 24);	/* not a sample */
		polls[i] = perf_event_poll(e);
	}
	for (int i = 0; i < 7; i++)
		KEXPECT_EQ(polls[i], i == 2 || i == 5 ? POLLIN : 0);
	perf_event_free(e);

	e = ring_event(0, false, 0);
	KASSERT(e);
	e->attr.watermark = 1;
	rb = rb_alloc(4, true, 100);
	KASSERT(rb && !rb_attach(e, rb));
	for (int i = 0; i < 10; i++) {
		put_record(e, PERF_RECORD_SAMPLE, i, 24);
		/* after 120 bytes (> 100), then 216 (> 200) */
		KEXPECT_EQ(perf_event_poll(e), i == 4 || i == 8 ? POLLIN : 0);
	}
	perf_event_free(e);
}

/* PAUSE_OUTPUT drops records, counted as lost; SET_OUTPUT users share the
 * buffer, which goes with the last of them. */
KTEST(ring_pause_and_shared_users)
{
	long rings = perf_stats.rings;
	struct perf_event *a = ring_event(0, false, 1), *b = ring_event(0, false, 1);
	KASSERT(a && b);
	struct perf_buffer *rb = rb_alloc(2, true, 0);
	KASSERT(rb && !rb_attach(a, rb) && !rb_attach(b, rb));

	KEXPECT_EQ(put_record(a, RECORD_TYPE(0), 0, 16), 0);
	rb->paused = true;
	KEXPECT_EQ(put_record(b, RECORD_TYPE(0), 1, 16), -ENOSPC);
	KEXPECT_EQ(put_record(b, RECORD_TYPE(0), 2, 16), -ENOSPC);
	KEXPECT_EQ(b->lost_samples, 2);
	rb->paused = false;
	KEXPECT_EQ(put_record(a, RECORD_TYPE(0), 3, 16), 0);
	struct { struct perf_event_header header; uint64_t id, lost; } lost;
	ring_read(rb, 16, &lost, sizeof(lost));
	KEXPECT_EQ(lost.header.type, PERF_RECORD_LOST);
	KEXPECT_EQ(lost.id, a->id);	/* the writer that reports it */
	KEXPECT_EQ(lost.lost, 2);
	KEXPECT(record_ok(rb, 40, RECORD_TYPE(0), 3, 16));
	perf_event_free(a);
	KEXPECT_EQ(perf_stats.rings, rings + 1);
	KEXPECT_EQ(put_record(b, RECORD_TYPE(0), 4, 16), 0);
	KEXPECT_EQ(rb->user_page->data_head, 72);
	perf_event_free(b);
	KEXPECT_EQ(perf_stats.rings, rings);
}

/* ---- the torture: nested writers from timer interrupts and NMIs ---- */

enum { W_LOOP, W_TIMER, W_NMI, WRITERS };

static struct torture {
	bool armed;
	struct perf_event *e[WRITERS];
	uint64_t attempts[WRITERS];	/* seq of each writer's next record */
	unsigned point;			/* the NMI point last armed */
	unsigned long hits[RB_NMI_POINTS + 1];
	uint64_t rand;
	struct timer timer;
	/* the reader */
	uint64_t seen[WRITERS], next_seq[WRITERS], gaps[WRITERS], reported_lost, records;
	unsigned long unpublished;
	bool bad;
} tt;

static uint64_t rnd(void)
{
	tt.rand = tt.rand * 6364136223846793005ull + 1442695040888963407ull;
	return tt.rand >> 33;
}

static unsigned record_size(int w, uint64_t seq)
{
	return 16 + 8 * ((seq * 7 + w * 3) % 14);	/* 16..120 */
}

static void write_one(int w)
{
	uint64_t seq = tt.attempts[w]++;

	put_record(tt.e[w], RECORD_TYPE(w), seq, record_size(w, seq));
}

static void arm(void)
{
	tt.point = 1 + rnd() % RB_NMI_POINTS;
	WRITE_ONCE(rb_nmi_point, tt.point);
}

static bool torture_nmi(struct pt_regs *regs)
{
	if (!READ_ONCE(tt.armed))
		return false;
	tt.hits[tt.point]++;
	write_one(W_NMI);
	return true;
}

static void torture_tick(struct timer *t, struct pt_regs *regs)
{
	if (rnd() % 2)
		arm();		/* an NMI inside the timer's record */
	write_one(W_TIMER);
	WRITE_ONCE(rb_nmi_point, 0);
	timer_add(t, rdtsc() + 500 + rnd() % 4000);
}

/* The reader's side of the ABI: records from data_tail up to data_head,
 * each checked, then data_tail moved past them. */
static void drain(struct perf_buffer *rb)
{
	uint64_t head = READ_ONCE(rb->user_page->data_head), tail = rb->user_page->data_tail;

	barrier();	/* (C) */
	while (tail != head && !tt.bad) {
		struct perf_event_header hdr;
		ring_read(rb, tail, &hdr, sizeof(hdr));
		if (hdr.size < 16 || hdr.size % 8 || hdr.size > head - tail) {
			printk("# bad record header at %lu: type %u size %u\n", tail, hdr.type, hdr.size);
			tt.bad = true;
			break;
		}
		tt.records++;
		if (hdr.type == PERF_RECORD_LOST) {
			uint64_t r[3];
			ring_read(rb, tail, r, sizeof(r));
			tt.reported_lost += r[2];
		} else if (hdr.type >= RECORD_TYPE(0) && hdr.type < RECORD_TYPE(WRITERS)) {
			int w = hdr.type - RECORD_TYPE(0);
			uint64_t seq, s = tt.next_seq[w];
			/* The first word tells the seq; the size and pattern must agree. */
			ring_read(rb, tail + 8, &seq, sizeof(seq));
			while (s < tt.attempts[w] && pattern(hdr.type, s, 8) != seq)
				s++;
			if (s == tt.attempts[w] || !record_ok(rb, tail, hdr.type, s, record_size(w, s))) {
				printk("# bad record of writer %d at %lu\n", w, tail);
				tt.bad = true;
				break;
			}
			tt.gaps[w] += s - tt.next_seq[w];
			tt.next_seq[w] = s + 1;
			tt.seen[w]++;
		} else {
			printk("# unknown record type %u at %lu\n", hdr.type, tail);
			tt.bad = true;
			break;
		}
		tail += hdr.size;
	}
	barrier();	/* (D) */
	WRITE_ONCE(rb->user_page->data_tail, tail);
}

KTEST(ring_nmi_torture)
{
	static bool registered;
	long rings = perf_stats.rings;
	unsigned long nmis = this_cpu_stats()->nmis;

	memset(&tt, 0, sizeof(tt));
	tt.rand = 42;
	for (int w = 0; w < WRITERS; w++)
		KASSERT((tt.e[w] = ring_event(0, false, 1)));
	struct perf_buffer *rb = rb_alloc(2, true, 0);
	KASSERT(rb);
	for (int w = 0; w < WRITERS; w++)
		KASSERT(!rb_attach(tt.e[w], rb));	/* as SET_OUTPUT does */
	if (!registered)
		nmi_register(torture_nmi);
	registered = true;

	uint64_t flags = irq_save();
	WRITE_ONCE(tt.armed, true);
	tt.timer.fn = torture_tick;
	timer_add(&tt.timer, rdtsc() + 1000);
	sti();
	for (int i = 0; i < 2000; i++) {
		cli();
		arm();
		sti();
		write_one(W_LOOP);
		cli();
		WRITE_ONCE(rb_nmi_point, 0);
		/* No writer is active now: all that was reserved is published. */
		if (rb->user_page->data_head != rb->head || rb->nest)
			tt.unpublished++;
		sti();
		/* Drain often, but now and then let the ring fill up. */
		if (i % 500 < 350 && i % 8 == 0)
			drain(rb);
	}
	cli();
	timer_del(&tt.timer);
	WRITE_ONCE(tt.armed, false);
	irq_restore(flags);
	/* A last record reports what the last full ring lost. */
	drain(rb);
	write_one(W_LOOP);
	drain(rb);

	KEXPECT(!tt.bad);
	KEXPECT_EQ(tt.unpublished, 0);
	KEXPECT_EQ(rb->nest, 0);
	KEXPECT_EQ(rb->user_page->data_head, rb->head);
	KEXPECT_EQ(rb->user_page->data_tail, rb->head);
	uint64_t gaps = 0;
	for (int w = 0; w < WRITERS; w++) {
		/* Every record made it, or was counted lost by its writer. */
		KEXPECT_EQ(tt.seen[w] + tt.e[w]->lost_samples, tt.attempts[w]);
		KEXPECT_EQ(tt.gaps[w] + (tt.attempts[w] - tt.next_seq[w]), tt.e[w]->lost_samples);
		gaps += tt.e[w]->lost_samples;
	}
	KEXPECT_EQ(tt.reported_lost + rb->lost, gaps);
	KEXPECT(tt.reported_lost > 0);
	KEXPECT(tt.attempts[W_TIMER] > 100);
	KEXPECT(this_cpu_stats()->nmis - nmis >= tt.attempts[W_NMI]);
	for (unsigned p = 1; p <= RB_NMI_POINTS; p++) {
		if (!tt.hits[p])
			printk("# no NMI at write-path point %u\n", p);
		KEXPECT(tt.hits[p] > 0);
	}
	printk("# %lu records read: loop %lu, timer %lu, nmi %lu; %lu lost\n", tt.records,
	       tt.seen[W_LOOP], tt.seen[W_TIMER], tt.seen[W_NMI], gaps);
	for (int w = 0; w < WRITERS; w++)
		perf_event_free(tt.e[w]);
	KEXPECT_EQ(perf_stats.rings, rings);
}
