/* tests/unit/layout_test.c: kernel/perf/layout.h on the host: the ring's and AUX area's
 * head/tail arithmetic, checked against a byte-by-byte model of a ring, the AUX writer's room
 * and watermark, and the read_format layout against include/uapi/linux/perf_event.h's
 * description. */
#include "ktap.h"
#include "../../kernel/perf/layout.h"

#include <stdlib.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

TEST(space_of_an_empty_and_a_full_ring)
{
	for (uint64_t size = 1; size <= (1ull << 32); size <<= 1) {
		EXPECT_EQ(rb_space(0, 0, size), size - 1);
		EXPECT_EQ(rb_space(size - 1, 0, size), 0);
		/* positions only ever grow: far from zero, across the 64-bit wrap */
		EXPECT_EQ(rb_space(~0ull, ~0ull, size), size - 1);
		EXPECT_EQ(rb_space(size - 2, ~0ull, size), 0);
	}
}

/* The writer may fill exactly what the reader has not kept, less one byte: used + space is
 * size - 1 whenever the reader's tail is at most size - 1 behind the head. */
TEST(space_plus_unread_is_size_less_one)
{
	for (int i = 0; i < 100000; i++) {
		uint64_t size = 1ull << (next() % 40);
		uint64_t tail = next(), used = next() % size, head = tail + used;
		ASSERT_EQ(rb_space(head, tail, size) + used, size - 1);
		ASSERT_TRUE(rb_has_room(head, tail, size, size - 1 - used, false));
		ASSERT_FALSE(rb_has_room(head, tail, size, size - used, false));
		/* backward: the head goes down from the tail */
		uint64_t bhead = tail - used;
		ASSERT_TRUE(rb_has_room(bhead, tail, size, size - 1 - used, true));
		ASSERT_FALSE(rb_has_room(bhead, tail, size, size - used, true));
	}
}

/* Whatever data_tail a reader writes, the writer's room stays below the ring's size: a
 * record that fits never overwrites more than the ring. */
TEST(room_never_exceeds_the_ring_whatever_the_tail)
{
	for (int i = 0; i < 100000; i++) {
		uint64_t size = 1ull << (next() % 24), head = next(), tail = next();
		ASSERT_LT(rb_space(head, tail, size), size);
		ASSERT_LT(rb_space(tail, head, size), size);
	}
}

/* A byte model: write records of random sizes through rb_offset/rb_contig chunks into a ring,
 * a reader consuming from the tail; every byte lands where (pos mod size) says and the
 * writer never overwrites what the reader has not read. */
TEST(chunked_copies_land_where_the_reader_looks)
{
	enum { SIZE = 64 };
	uint8_t ring[SIZE];
	uint64_t head = ~0ull - 200, tail = head;	/* wrap the 64-bit positions too */
	uint8_t seq = 0, rseq = 0;

	memset(ring, 0xee, sizeof(ring));
	for (int i = 0; i < 20000; i++) {
		uint64_t len = 1 + next() % 24;
		if (rb_has_room(head, tail, SIZE, len, false)) {
			for (uint64_t left = len; left;) {
				uint64_t n = left < rb_contig(head, SIZE) ? left : rb_contig(head, SIZE);
				ASSERT_LE(rb_offset(head, SIZE) + n, SIZE);
				for (uint64_t b = 0; b < n; b++)
					ring[rb_offset(head, SIZE) + b] = seq++;
				head += n;
				left -= n;
			}
		}
		ASSERT_LE(head - tail, SIZE - 1);
		uint64_t take = next() % (head - tail + 1);
		for (; take; take--, tail++)
			ASSERT_EQ(ring[rb_offset(tail, SIZE)], rseq++);
	}
}

/* Whatever aux_tail the reader writes, a writer that takes what aux_room offers never passes
 * the reader's tail and never writes more than the area; an implausible tail offers nothing. */
TEST(aux_room_never_passes_the_reader)
{
	for (int i = 0; i < 100000; i++) {
		uint64_t size = 1ull << (12 + next() % 20), head = next();
		uint64_t tail = next() % 2 ? head - next() % size : next();
		uint64_t room = aux_room(head, tail, size);
		ASSERT_LT(room, size);
		if (head - tail >= size) {
			ASSERT_EQ(room, 0);
			continue;
		}
		ASSERT_EQ(head - tail + room, size - 1);	/* unread + room: all but one byte */
	}
	EXPECT_EQ(aux_room(4096, 4096, 4096), 4095);		/* empty */
	EXPECT_EQ(aux_room(4096 + 4095, 4096, 4096), 0);	/* full */
	EXPECT_EQ(aux_room(4096, 4097, 4096), 0);		/* a tail ahead of the head */
	EXPECT_EQ(aux_room(8192, 4096, 4096), 0);		/* a whole area behind */
}

/* One wake-up per watermark boundary the head crosses, however the head advances. */
TEST(aux_watermark_wakes_once_per_boundary)
{
	for (int run = 0; run < 1000; run++) {
		uint64_t watermark = 1 + next() % 100000, head = next() % (1ull << 40);
		uint64_t wakeup = head - head % watermark, start = wakeup, wakes = 0;
		for (int step = 0; step < 200; step++) {
			head += next() % (next() % 2 ? watermark / 4 + 1 : 3 * watermark);
			uint64_t before = wakeup;
			if (aux_watermark_passed(head, &wakeup, watermark)) {
				wakes++;
				ASSERT_GT(wakeup, before);
				ASSERT_EQ(wakeup % watermark, 0);
				ASSERT_LE(wakeup, head);
				ASSERT_LT(head - wakeup, watermark);
			} else {
				ASSERT_LT(head - wakeup, watermark);
			}
		}
		/* never more wake-ups than boundaries crossed */
		ASSERT_LE(wakes, (wakeup - start) / watermark);
	}
}

/* read_format's words, spelt out from the uapi comment. */
static size_t expected_words(uint64_t fmt, unsigned siblings)
{
	size_t n = 0;

	if (fmt & PERF_FORMAT_GROUP) {
		n++;						/* nr */
		n += !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED);
		n += !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
		for (unsigned i = 0; i < 1 + siblings; i++) {
			n++;					/* value */
			n += !!(fmt & PERF_FORMAT_ID);
			n += !!(fmt & PERF_FORMAT_LOST);
		}
		return n;
	}
	n++;							/* value */
	n += !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED);
	n += !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	n += !!(fmt & PERF_FORMAT_ID);
	n += !!(fmt & PERF_FORMAT_LOST);
	return n;
}

TEST(read_format_words)
{
	for (uint64_t fmt = 0; fmt < PERF_FORMAT_MAX; fmt++)
		for (unsigned siblings = 0; siblings < 300; siblings++)
			ASSERT_EQ(perf_read_words(fmt, siblings), expected_words(fmt, siblings));
	/* the largest group read fits easily in a size_t */
	EXPECT_EQ(perf_read_words(PERF_FORMAT_MAX - 1, 255), 3 + 256 * 3);
}
