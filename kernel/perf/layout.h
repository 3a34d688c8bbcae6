/* The perf ABI's pure arithmetic, kept apart from kernel state so the host
 * unit tests (tests/unit/) run it under ASan and UBSan: the ring's and the
 * AUX area's head/tail space, and the read_format layout. Numbers in,
 * numbers out; nothing here may touch memory but its arguments. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* ---- rings: positions grow without bound, size is a power of two ---- */

/* CIRC_SPACE of include/linux/circ_buf.h: the bytes a writer at head may
 * fill before it reaches the reader at tail. One byte stays free, so a
 * full ring is told from an empty one. */
static inline uint64_t rb_space(uint64_t head, uint64_t tail, uint64_t size)
{
	return (tail - (head + 1)) & (size - 1);
}

/* Whether len more bytes fit: a forward writer's head grows away from
 * tail, a backward one's (write_backward) shrinks towards it. */
static inline bool rb_has_room(uint64_t head, uint64_t tail, uint64_t size, uint64_t len,
			       bool backward)
{
	return (backward ? rb_space(tail, head, size) : rb_space(head, tail, size)) >= len;
}

/* Where position pos lies in the ring, and how many bytes from there fit
 * before the ring's end (a copy of more wraps to the start). */
static inline uint64_t rb_offset(uint64_t pos, uint64_t size)
{
	return pos & (size - 1);
}

static inline uint64_t rb_contig(uint64_t pos, uint64_t size)
{
	return size - rb_offset(pos, size);
}

/* ---- the AUX area (seed 002): the same positions, a reader-owned tail ---- */

/* What perf_aux_output_begin may offer a writer at head when the reader
 * wrote tail: CIRC_SPACE while the tail is plausible, and nothing when it is
 * not (ahead of the head, or a whole area or more behind), which stops the
 * event until the reader makes room, as Linux does. */
static inline uint64_t aux_room(uint64_t head, uint64_t tail, uint64_t size)
{
	return head - tail < size ? rb_space(head, tail, size) : 0;
}

/* rb_need_aux_wakeup: one wake-up for each watermark's worth of bytes
 * (watermark > 0). *wakeup is where the last one was due; true when head
 * has passed the next, which becomes the watermark boundary at or below
 * head. */
static inline bool aux_watermark_passed(uint64_t head, uint64_t *wakeup, uint64_t watermark)
{
	if (head - *wakeup < watermark)
		return false;
	*wakeup = head - head % watermark;
	return true;
}

/* ---- read_format (include/uapi/linux/perf_event.h) ---- */

/* One event's entry: { value; id if PERF_FORMAT_ID; lost if PERF_FORMAT_LOST }. */
static inline size_t perf_read_entry_words(uint64_t fmt)
{
	return 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
}

/* The words read() returns and PERF_SAMPLE_READ writes: the event alone,
 * { value, time_enabled, time_running, id, lost }, or with PERF_FORMAT_GROUP
 * { nr, time_enabled, time_running, entry[nr] } for a leader and
 * nr_siblings siblings. */
static inline size_t perf_read_words(uint64_t fmt, unsigned nr_siblings)
{
	size_t times = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (fmt & PERF_FORMAT_GROUP)
		return 1 + times + (1 + (size_t)nr_siblings) * perf_read_entry_words(fmt);
	return times + perf_read_entry_words(fmt);
}
