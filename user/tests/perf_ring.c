/* user/tests/perf_ring.c: the data ring of a perf mmap: records, data_head/data_tail, lost records, overwrite and backward modes, wake-ups, SET_OUTPUT, PAUSE_OUTPUT. */
#include "ktap.h"
#include "perf.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>

/*
 * The sampler: a page-fault software event (Linux has no hardware PMU under QEMU TCG) with
 * sample_period 1, so each write to a fresh page is exactly one sample, whose ADDR is that page.
 */
#define BASIC (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR)
#define BASIC_SIZE 32 /* header, ip, pid/tid, addr */

static int open_attr(struct perf_event_attr *attr)
{
	int fd = perf_open(attr, 0, -1, -1, 0);

	ASSERT_GE(fd, 0);
	return fd;
}

static int open_faults(uint64_t sample_type)
{
	struct perf_event_attr attr = perf_fault_sampler(sample_type);

	return open_attr(&attr);
}

/* Linux fills a perf mapping on demand: touch every page now, so no fault of the reader's is sampled. */
static struct perf_event_mmap_page *map_ring(int fd, int data_pages, int prot)
{
	size_t len = (1 + data_pages) * PERF_PAGE;
	char *p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);

	ASSERT_NE(p, MAP_FAILED);
	for (size_t off = 0; off < len; off += PERF_PAGE)
		(void)((volatile char *)p)[off];
	return (struct perf_event_mmap_page *)p;
}

static void unmap_ring(struct perf_event_mmap_page *pc, int data_pages)
{
	EXPECT_EQ(munmap(pc, (1 + data_pages) * PERF_PAGE), 0);
}

/*
 * n write faults on fresh pages while fd is enabled: n samples. Returns the first page's
 * address (the pages are unmapped again; page i was at base + i * PERF_PAGE).
 */
static uintptr_t fault_pages(int fd, int n)
{
	char *m = mmap(NULL, n * PERF_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(m, MAP_FAILED);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (int i = 0; i < n; i++)
		((volatile char *)m)[i * PERF_PAGE] = 1;
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	munmap(m, n * PERF_PAGE);
	return (uintptr_t)m;
}

struct record {
	struct perf_event_header header;
	uint64_t word[7];
};

/* n bytes at position pos of the data area: a record may wrap around its end. */
static void ring_copy(const struct perf_event_mmap_page *pc, uint64_t pos, void *buf, size_t n)
{
	const char *data = (const char *)pc + pc->data_offset;

	for (size_t i = 0; i < n; i++)
		((char *)buf)[i] = data[(pos + i) & (pc->data_size - 1)];
}

static void record_at(const struct perf_event_mmap_page *pc, uint64_t pos, struct record *r)
{
	ring_copy(pc, pos, &r->header, sizeof(r->header));
	ASSERT_GE(r->header.size, sizeof(r->header));
	ASSERT_LE(r->header.size, sizeof(*r));
	ASSERT_EQ(r->header.size % 8, 0);
	ring_copy(pc, pos, r, r->header.size);
}

/*
 * The reader's side of the ABI (include/uapi/linux/perf_event.h): data_head with acquire
 * (the rmb), the records from data_tail up to it, then data_tail with release (the mb), as
 * perf's tools do. consume: move data_tail (a PROT_WRITE mapping only).
 */
static int read_records(struct perf_event_mmap_page *pc, struct record *out, int max, bool consume)
{
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE), tail = pc->data_tail;
	int n = 0;

	while (head - tail > 0 && n < max) {
		record_at(pc, tail, &out[n]);
		tail += out[n++].header.size;
	}
	EXPECT_EQ(tail, head); /* the last record ends at data_head */
	if (consume)
		__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

static uint64_t my_tid(void)
{
	return (uint32_t)getpid() | (uint64_t)(uint32_t)syscall(SYS_gettid) << 32;
}

/* A BASIC sample of a user-mode fault at addr. */
static void expect_sample(const struct record *r, uintptr_t addr)
{
	EXPECT_EQ(r->header.type, PERF_RECORD_SAMPLE);
	EXPECT_EQ(r->header.misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_USER);
	EXPECT_EQ(r->header.size, BASIC_SIZE);
	EXPECT_EQ(r->word[1], my_tid());
	EXPECT_EQ(r->word[2], addr);
}

/* poll() without waiting: the revents. */
static int poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	ASSERT_GE(poll(&p, 1, 0), 0);
	return p.revents;
}

static uint64_t lost_samples(int fd)
{
	uint64_t v[2];

	perf_read_words(fd, v, 2); /* read_format PERF_FORMAT_LOST: { value, lost } */
	return v[1];
}

static uint64_t event_id(int fd)
{
	uint64_t id = 0;

	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	return id;
}

TEST(one_sample_per_fault)
{
	int fd = open_faults(BASIC);
	struct perf_event_mmap_page *pc = map_ring(fd, 8, PROT_READ | PROT_WRITE);
	struct record r[16];

	EXPECT_EQ(pc->data_size, 8 * PERF_PAGE);
	EXPECT_EQ(pc->data_offset, PERF_PAGE);
	EXPECT_EQ(pc->data_head, 0);
	uintptr_t base = fault_pages(fd, 3);
	EXPECT_EQ(pc->data_head, 3 * BASIC_SIZE); /* exactly the records' bytes */
	ASSERT_EQ(read_records(pc, r, 16, true), 3);
	for (int i = 0; i < 3; i++)
		expect_sample(&r[i], base + i * PERF_PAGE);
	EXPECT_EQ(pc->data_tail, 3 * BASIC_SIZE);
	base = fault_pages(fd, 10);
	EXPECT_EQ(pc->data_head, 13 * BASIC_SIZE);
	ASSERT_EQ(read_records(pc, r, 16, true), 10);
	for (int i = 0; i < 10; i++)
		expect_sample(&r[i], base + i * PERF_PAGE);
	EXPECT_NE(r[0].word[0], 0); /* an ip */
	unmap_ring(pc, 8);
	close(fd);
}

/*
 * PROT_WRITE: the reader owns data_tail, and the kernel never writes over what it has not
 * consumed. Records that do not fit are dropped and counted (PERF_FORMAT_LOST); once room
 * returns, a PERF_RECORD_LOST { id, lost } with sample_id_all's trailer comes first.
 */
TEST(full_ring_drops_then_reports_lost)
{
	struct perf_event_attr attr = perf_fault_sampler(BASIC | PERF_SAMPLE_ID);
	attr.sample_id_all = 1;
	attr.read_format = PERF_FORMAT_LOST;
	int fd = open_attr(&attr);
	struct perf_event_mmap_page *pc = map_ring(fd, 1, PROT_READ | PROT_WRITE);
	const int size = BASIC_SIZE + 8, fit = (PERF_PAGE - 1) / size; /* one byte stays free */
	struct record r[4];

	fault_pages(fd, 200);
	EXPECT_EQ(pc->data_head, fit * size);
	EXPECT_EQ(lost_samples(fd), 200 - fit);
	fault_pages(fd, 1); /* still full */
	EXPECT_EQ(pc->data_head, fit * size);
	EXPECT_EQ(lost_samples(fd), 201 - fit);

	__atomic_store_n(&pc->data_tail, pc->data_head, __ATOMIC_RELEASE); /* drained, unread */
	uintptr_t base = fault_pages(fd, 2);
	ASSERT_EQ(read_records(pc, r, 4, true), 3);
	EXPECT_EQ(r[0].header.type, PERF_RECORD_LOST);
	EXPECT_EQ(r[0].header.size, 24 + 16); /* + pid/tid, id */
	EXPECT_EQ(r[0].word[0], event_id(fd));
	EXPECT_EQ(r[0].word[1], 201 - fit);
	EXPECT_EQ(r[0].word[2], my_tid());
	EXPECT_EQ(r[0].word[3], event_id(fd));
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(r[1 + i].header.type, PERF_RECORD_SAMPLE);
		EXPECT_EQ(r[1 + i].word[2], base + i * PERF_PAGE);
		EXPECT_EQ(r[1 + i].word[3], event_id(fd));
	}
	EXPECT_EQ(lost_samples(fd), 201 - fit); /* a running total */
	unmap_ring(pc, 1);
	close(fd);
}

/* A PROT_READ mapping is overwrite mode: the newest records are there, data_head runs on. */
TEST(read_only_ring_overwrites)
{
	struct perf_event_attr attr = perf_fault_sampler(BASIC);
	attr.read_format = PERF_FORMAT_LOST;
	int fd = open_attr(&attr);
	struct perf_event_mmap_page *pc = map_ring(fd, 1, PROT_READ);
	struct record r;

	uintptr_t base = fault_pages(fd, 200);
	EXPECT_EQ(pc->data_head, 200 * BASIC_SIZE);
	EXPECT_GT(pc->data_head, pc->data_size);
	EXPECT_EQ(lost_samples(fd), 0);
	for (int i = 200 - PERF_PAGE / BASIC_SIZE; i < 200; i++) {
		record_at(pc, i * BASIC_SIZE, &r);
		expect_sample(&r, base + i * PERF_PAGE);
	}
	unmap_ring(pc, 1);
	close(fd);
}

/* write_backward: data_head goes down from 0; reading up from it, the newest record first. */
TEST(write_backward)
{
	struct perf_event_attr attr = perf_fault_sampler(BASIC);
	attr.write_backward = 1;
	attr.read_format = PERF_FORMAT_LOST;
	int fd = open_attr(&attr);
	struct perf_event_mmap_page *pc = map_ring(fd, 1, PROT_READ);
	struct record r;

	uintptr_t base = fault_pages(fd, 3);
	EXPECT_EQ(pc->data_head, -(uint64_t)(3 * BASIC_SIZE));
	for (int i = 0; i < 3; i++) {
		record_at(pc, pc->data_head + i * BASIC_SIZE, &r);
		expect_sample(&r, base + (2 - i) * PERF_PAGE);
	}
	unmap_ring(pc, 1);
	close(fd);

	/* Backward in a PROT_WRITE mapping: Linux checks room the other way round. */
	fd = open_attr(&attr);
	pc = map_ring(fd, 1, PROT_READ | PROT_WRITE);
	const int fit = (PERF_PAGE - 1) / BASIC_SIZE;
	fault_pages(fd, 200);
	EXPECT_EQ(pc->data_head, -(uint64_t)(fit * BASIC_SIZE));
	EXPECT_EQ(lost_samples(fd), 200 - fit);
	unmap_ring(pc, 1);
	close(fd);
}

/*
 * wakeup_events: POLLIN after each wakeup_events samples; poll() takes the wake-up, the next
 * one waits for another. Nothing else runs to wake a blocked poll: timeouts stay small.
 */
TEST(wakeup_events)
{
	struct perf_event_attr attr = perf_fault_sampler(BASIC);
	attr.wakeup_events = 3;
	int fd = open_attr(&attr);
	struct perf_event_mmap_page *pc = map_ring(fd, 4, PROT_READ | PROT_WRITE);
	struct pollfd p = { .fd = fd, .events = POLLIN };

	EXPECT_EQ(poll(&p, 1, 10), 0); /* nothing yet: the timeout */
	for (int i = 1; i <= 7; i++) {
		fault_pages(fd, 1);
		EXPECT_EQ(poll_now(fd), i % 3 ? 0 : POLLIN);
	}
	fault_pages(fd, 2);
	EXPECT_EQ(poll(&p, 1, 10), 1);
	EXPECT_EQ(p.revents, POLLIN);
	EXPECT_EQ(poll_now(fd), 0); /* taken */
	unmap_ring(pc, 4);
	close(fd);
}

/* watermark: POLLIN each time the bytes written pass the last wake-up by more than wakeup_watermark. */
TEST(wakeup_watermark)
{
	struct perf_event_attr attr = perf_fault_sampler(BASIC);
	attr.watermark = 1;
	attr.wakeup_watermark = 100;
	int fd = open_attr(&attr);
	struct perf_event_mmap_page *pc = map_ring(fd, 4, PROT_READ | PROT_WRITE);
	uint64_t head = 0, woken = 0;

	for (int i = 1; i <= 10; i++) {
		fault_pages(fd, 1);
		head += BASIC_SIZE;
		bool wake = head - woken > 100; /* 128, 224, 320 */
		if (wake)
			woken += 100;
		EXPECT_EQ(poll_now(fd), wake ? POLLIN : 0);
	}
	EXPECT_EQ(woken, 300);
	unmap_ring(pc, 4);
	close(fd);
}

/* Without wakeup_events (0) nor a watermark, the default watermark is half the data area. */
TEST(default_watermark_half_ring)
{
	struct perf_event_attr attr = perf_fault_sampler(BASIC);
	attr.wakeup_events = 0;
	int fd = open_attr(&attr);
	struct perf_event_mmap_page *pc = map_ring(fd, 1, PROT_READ | PROT_WRITE);
	const int half = PERF_PAGE / 2 / BASIC_SIZE;

	fault_pages(fd, half);
	EXPECT_EQ(pc->data_head, PERF_PAGE / 2);
	EXPECT_EQ(poll_now(fd), 0);
	fault_pages(fd, 1);
	EXPECT_EQ(poll_now(fd), POLLIN);
	unmap_ring(pc, 1);
	close(fd);
}

/*
 * POLLHUP: an event with no buffer has nothing to wait for (Linux's perf_poll). The REFRESH
 * limit disables the event; that is no hang-up, only a wake-up for its last sample.
 */
TEST(pollhup_without_buffer)
{
	int fd = open_faults(BASIC);
	struct perf_event_mmap_page *pc;

	EXPECT_EQ(poll_now(fd), POLLHUP);
	pc = map_ring(fd, 0, PROT_READ);
	EXPECT_EQ(poll_now(fd), 0);
	unmap_ring(pc, 0);
	EXPECT_EQ(poll_now(fd), POLLHUP);

	pc = map_ring(fd, 1, PROT_READ | PROT_WRITE);
	char *m = mmap(NULL, 5 * PERF_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(m, MAP_FAILED);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_REFRESH, 2), 0);
	for (int i = 0; i < 5; i++)
		((volatile char *)m)[i * PERF_PAGE] = 1;
	EXPECT_EQ(pc->data_head, 2 * BASIC_SIZE);
	EXPECT_EQ(poll_now(fd), POLLIN);
	munmap(m, 5 * PERF_PAGE);
	unmap_ring(pc, 1);
	close(fd);
}

/*
 * SET_OUTPUT: B's records go to A's ring, told apart by their id (PERF_SAMPLE_IDENTIFIER, the
 * first word). B polls A's ring; wakeup_events counts the ring's samples, whoever wrote them.
 */
TEST(set_output_redirects)
{
	struct perf_event_attr attr = perf_fault_sampler(BASIC | PERF_SAMPLE_IDENTIFIER);
	attr.wakeup_events = 2;
	int a = open_attr(&attr), b = open_attr(&attr);
	struct record r[4];

	EXPECT_ERRNO(perf_ioctl(b, PERF_EVENT_IOC_SET_OUTPUT, a), EINVAL); /* A has no ring yet */
	struct perf_event_mmap_page *pc = map_ring(a, 2, PROT_READ | PROT_WRITE);
	ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_SET_OUTPUT, a), 0);
	EXPECT_EQ(poll_now(b), 0);
	uintptr_t base_a = fault_pages(a, 1);
	EXPECT_EQ(poll_now(a), 0);
	uintptr_t base_b = fault_pages(b, 1);
	EXPECT_EQ(poll_now(b), POLLIN); /* the second sample of the ring */
	EXPECT_EQ(poll_now(a), 0);	/* the ring's wake-up, taken through B */
	ASSERT_EQ(read_records(pc, r, 4, true), 2);
	EXPECT_EQ(r[0].word[0], event_id(a));
	EXPECT_EQ(r[0].word[3], base_a);
	EXPECT_EQ(r[1].word[0], event_id(b));
	EXPECT_EQ(r[1].word[3], base_b);

	/* B's own mapping is A's ring, at A's size only; mapped, B cannot be redirected. */
	EXPECT_ERRNO(mmap(NULL, 2 * PERF_PAGE, PROT_READ, MAP_SHARED, b, 0), EINVAL);
	struct perf_event_mmap_page *pb = map_ring(b, 2, PROT_READ);
	EXPECT_EQ(pb->data_head, pc->data_head);
	EXPECT_ERRNO(perf_ioctl(b, PERF_EVENT_IOC_SET_OUTPUT, -1ul), EINVAL);
	unmap_ring(pb, 2);
	/* Back to no output at all: B's records go nowhere, and B hangs up. */
	ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_SET_OUTPUT, -1ul), 0);
	EXPECT_EQ(poll_now(b), POLLHUP);
	fault_pages(b, 1);
	EXPECT_EQ(read_records(pc, r, 4, true), 0);
	unmap_ring(pc, 2);
	close(a);
	close(b);
}

/*
 * An inherited event of a task writes through its copies in the task's children, which run on
 * other CPUs at once: perf_mmap refuses to map one (EINVAL) unless it is bound to a CPU, and
 * pmuos refuses to redirect one into another event's ring too (SET_OUTPUT, FD_OUTPUT), as the
 * ring's writers must all be on one CPU (kernel/perf/ring.c). Linux 6.1 lets these through.
 * Bound to CPU 0 (all its copies count there only), it may.
 */
TEST(set_output_of_an_inherited_task_event)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	int ring = perf_open(&attr, 0, -1, -1, 0), ring0 = perf_open(&attr, 0, 0, -1, 0);
	ASSERT_GE(ring, 0);
	ASSERT_GE(ring0, 0);
	struct perf_event_mmap_page *pc = map_ring(ring, 1, PROT_READ | PROT_WRITE);
	struct perf_event_mmap_page *pc0 = map_ring(ring0, 1, PROT_READ | PROT_WRITE);
	attr.inherit = 1;
	int task = perf_open(&attr, 0, -1, -1, 0), bound = perf_open(&attr, 0, 0, -1, 0);
	ASSERT_GE(task, 0);
	ASSERT_GE(bound, 0);
	EXPECT_ERRNO(mmap(NULL, 2 * PERF_PAGE, PROT_READ, MAP_SHARED, task, 0), EINVAL);
	EXPECT_EQ(perf_ioctl(bound, PERF_EVENT_IOC_SET_OUTPUT, ring0), 0);
	if (ktap_on_pmuos()) {
		EXPECT_ERRNO(perf_ioctl(task, PERF_EVENT_IOC_SET_OUTPUT, ring), EINVAL);
		EXPECT_ERRNO(perf_open(&attr, 0, -1, ring, PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP),
			     EINVAL);
	}
	close(bound);
	close(task);
	unmap_ring(pc0, 1);
	unmap_ring(pc, 1);
	close(ring0);
	close(ring);
}

/*
 * PAUSE_OUTPUT: while paused, records are dropped and counted as lost, then reported by a
 * PERF_RECORD_LOST. Pausing a redirected event pauses the ring it writes to.
 */
TEST(pause_output)
{
	struct perf_event_attr attr = perf_fault_sampler(BASIC);
	attr.read_format = PERF_FORMAT_LOST;
	int fd = open_attr(&attr);
	struct record r[4];

	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), EINVAL); /* no ring */
	struct perf_event_mmap_page *pc = map_ring(fd, 0, PROT_READ);
	EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), EINVAL); /* no data pages */
	unmap_ring(pc, 0);

	pc = map_ring(fd, 1, PROT_READ | PROT_WRITE);
	fault_pages(fd, 2);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), 0);
	fault_pages(fd, 3);
	EXPECT_EQ(pc->data_head, 2 * BASIC_SIZE);
	EXPECT_EQ(lost_samples(fd), 3);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0), 0);
	uintptr_t base = fault_pages(fd, 1);
	ASSERT_EQ(read_records(pc, r, 4, true), 4);
	EXPECT_EQ(r[2].header.type, PERF_RECORD_LOST);
	EXPECT_EQ(r[2].header.size, 24);
	EXPECT_EQ(r[2].word[0], event_id(fd));
	EXPECT_EQ(r[2].word[1], 3);
	expect_sample(&r[3], base);

	int b = open_attr(&attr);
	ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_SET_OUTPUT, fd), 0);
	ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), 0);
	fault_pages(fd, 1);
	EXPECT_EQ(read_records(pc, r, 4, true), 0);
	EXPECT_EQ(lost_samples(fd), 4);
	ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_PAUSE_OUTPUT, 0), 0);
	close(b);
	unmap_ring(pc, 1);
	close(fd);
}

/* Two mmaps of one event share its buffer; another size is refused while one is mapped. */
TEST(two_mappings_share_the_ring)
{
	int fd = open_faults(BASIC);
	struct perf_event_mmap_page *rw = map_ring(fd, 2, PROT_READ | PROT_WRITE);
	struct perf_event_mmap_page *ro = map_ring(fd, 2, PROT_READ);
	struct record r;

	EXPECT_ERRNO(mmap(NULL, 2 * PERF_PAGE, PROT_READ, MAP_SHARED, fd, 0), EINVAL);
	uintptr_t base = fault_pages(fd, 2);
	EXPECT_EQ(rw->data_head, 2 * BASIC_SIZE);
	EXPECT_EQ(ro->data_head, 2 * BASIC_SIZE);
	record_at(ro, BASIC_SIZE, &r);
	expect_sample(&r, base + PERF_PAGE);
	unmap_ring(rw, 2);
	fault_pages(fd, 1);
	EXPECT_EQ(ro->data_head, 3 * BASIC_SIZE);
	close(fd); /* the mapping keeps the event and its ring */
	EXPECT_EQ(ro->data_head, 3 * BASIC_SIZE);
	record_at(ro, 0, &r);
	expect_sample(&r, base);
	unmap_ring(ro, 2);

	/* All maps gone: another size is fine again. */
	fd = open_faults(BASIC);
	ro = map_ring(fd, 1, PROT_READ);
	unmap_ring(ro, 1);
	ro = map_ring(fd, 4, PROT_READ);
	EXPECT_EQ(ro->data_size, 4 * PERF_PAGE);
	unmap_ring(ro, 4);
	close(fd);
}

/* 1 + 2^n pages only; an inherited per-task event cannot be mapped (its children would share it). */
TEST(mmap_sizes)
{
	int fd = open_faults(BASIC);

	for (int n = 0; n <= 8; n++) {
		size_t len = (1 + n) * PERF_PAGE;
		void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (n & (n - 1)) {
			EXPECT_EQ(p, MAP_FAILED);
			EXPECT_EQ(errno, EINVAL);
		} else {
			ASSERT_NE(p, MAP_FAILED);
			EXPECT_EQ(((struct perf_event_mmap_page *)p)->data_size, n * PERF_PAGE);
			munmap(p, len);
		}
	}
	close(fd);

	struct perf_event_attr attr = perf_fault_sampler(BASIC);
	attr.inherit = 1;
	fd = open_attr(&attr);
	EXPECT_ERRNO(mmap(NULL, 2 * PERF_PAGE, PROT_READ, MAP_SHARED, fd, 0), EINVAL);
	close(fd);
}

/* pmuos's accounting file: a counter's value, -1 when missing. */
static long pmuos_counter(const char *name)
{
	char text[1024], *l;
	int fd = open("/sys/kernel/pmuos/accounting", 0);
	ssize_t n;

	ASSERT_GE(fd, 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_GT(n, 0);
	text[n] = '\0';
	size_t len = strlen(name);
	for (l = text; l; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (!strncmp(l, name, len) && l[len] == ' ')
			return strtol(l + len + 1, NULL, 10);
	}
	return -1;
}

/* The buffer lives while a mapping or a redirected event holds it, in any order of release. */
TEST(pmuos_rings_accounting)
{
	if (!ktap_on_pmuos())
		SKIP("pmuos's accounting file");
	long rings = pmuos_counter("perf_rings"), objects = pmuos_counter("heap_objects");
	long frames = pmuos_counter("frames_free");

	for (int order = 0; order < 4; order++) {
		int a = open_faults(BASIC), b = open_faults(BASIC);
		struct perf_event_mmap_page *pa = map_ring(a, 2, PROT_READ | PROT_WRITE);
		struct perf_event_mmap_page *pa2 = map_ring(a, 2, PROT_READ);
		ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_SET_OUTPUT, a), 0);
		struct perf_event_mmap_page *pb = map_ring(b, 2, PROT_READ);
		EXPECT_EQ(pmuos_counter("perf_rings"), rings + 1);
		fault_pages(b, 1);
		switch (order) {
		case 0: /* mappings first, then the events */
			unmap_ring(pa, 2);
			unmap_ring(pb, 2);
			unmap_ring(pa2, 2);
			EXPECT_EQ(pmuos_counter("perf_rings"), rings);
			close(a);
			close(b);
			break;
		case 1: /* the events first: the mappings keep the ring */
			close(b);
			close(a);
			unmap_ring(pb, 2);
			unmap_ring(pa, 2);
			EXPECT_EQ(pmuos_counter("perf_rings"), rings + 1);
			unmap_ring(pa2, 2);
			break;
		case 2: /* the redirected event's mapping outlives A's */
			unmap_ring(pa, 2);
			unmap_ring(pa2, 2);
			close(a);
			EXPECT_EQ(pmuos_counter("perf_rings"), rings + 1);
			fault_pages(b, 1);
			EXPECT_EQ(pb->data_head, 2 * BASIC_SIZE);
			unmap_ring(pb, 2);
			close(b);
			break;
		default: /* unmapped while B still points at it */
			unmap_ring(pb, 2);
			unmap_ring(pa, 2);
			unmap_ring(pa2, 2);
			EXPECT_EQ(pmuos_counter("perf_rings"), rings);
			fault_pages(b, 1);
			close(a);
			close(b);
			break;
		}
		EXPECT_EQ(pmuos_counter("perf_rings"), rings);
	}
	EXPECT_EQ(pmuos_counter("heap_objects"), objects);
	EXPECT_EQ(pmuos_counter("frames_free"), frames);
}
