/* user/fuzz/ring.c: one strict check amid the random calls: a fresh page-fault sampler with a
 * random sample format and a fresh ring of its own, k faults, then every record between
 * data_tail and data_head must parse (sizes, types, each SAMPLE field by field as Linux lays it
 * out) and the samples plus the lost ones must be exactly k. Whatever else the fuzzer has left
 * running (throttled clocks, groups, SIGIO owners), the ring writer must stay consistent. */
#include "fuzz.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Fields whose size the record itself tells, or that are plain u64s. */
#define SAFE_SAMPLE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
			 PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_STREAM_ID | \
			 PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
			 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER | \
			 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | \
			 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | \
			 PERF_SAMPLE_CODE_PAGE_SIZE)
#define REGS_MASK	0xffffffull & ~(0xfull << 12)	/* AX..R15 without DS, ES, FS, GS */

/* More than any SAMPLE of random_sampler's takes (a 504-byte stack, 40 registers...). */
#define ROOM		2048

static uint8_t rec[65536];

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t take(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, n < 8 ? n : 8);
	c->p += n;
	return v;
}

/* The SAMPLE body in perf_output_sample's order; false if it does not fill the record. */
static bool parse_sample(const struct perf_event_attr *a, const uint8_t *body, size_t len)
{
	struct cursor c = { body, body + len, false };
	uint64_t st = a->sample_type, rf = a->read_format;
	int words = __builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD));

	take(&c, 8 * words);
	if (st & PERF_SAMPLE_READ) {
		int entry = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		int times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			    !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
		if (rf & PERF_FORMAT_GROUP) {
			uint64_t nr = take(&c, 8);
			if (nr != 1)		/* a lone leader */
				return false;
			take(&c, 8 * (times + entry));
		} else {
			take(&c, 8 * (entry + times));
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take(&c, 8);
		if (nr > 4096)
			return false;
		take(&c, 8 * nr);
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t size = take(&c, 4);
		take(&c, size);
		if ((4 + size) % 8)
			return false;
	}
	if (st & PERF_SAMPLE_REGS_USER && take(&c, 8))
		take(&c, 8 * __builtin_popcountll(a->sample_regs_user));
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take(&c, 8);
		if (size) {
			take(&c, size);
			if (take(&c, 8) > size)		/* dyn_size */
				return false;
		}
	}
	take(&c, 8 * __builtin_popcountll(st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
						PERF_SAMPLE_TRANSACTION)));
	if (st & PERF_SAMPLE_REGS_INTR && take(&c, 8))
		take(&c, 8 * __builtin_popcountll(a->sample_regs_intr));
	take(&c, 8 * __builtin_popcountll(st & (PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
						PERF_SAMPLE_DATA_PAGE_SIZE |
						PERF_SAMPLE_CODE_PAGE_SIZE)));
	return !c.bad && c.p == c.end;
}

static void random_sampler(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_PAGE_FAULTS;
	a->sample_period = 1;
	a->sample_type = fz_rand() & SAFE_SAMPLE;
	a->read_format = fz_rand() & (PERF_FORMAT_MAX - 1);
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->sample_id_all = fz_below(2);
	a->mmap = fz_below(2);
	a->comm = fz_below(2);
	a->task = fz_below(2);
	a->wakeup_events = fz_below(3);
	a->sample_regs_user = fz_rand() & REGS_MASK;
	a->sample_regs_intr = fz_rand() & REGS_MASK;
	a->sample_stack_user = 8 * fz_below(64);
	a->sample_max_stack = fz_below(8);
	if (!a->sample_regs_user)
		a->sample_type &= ~PERF_SAMPLE_REGS_USER;
	if (!a->sample_regs_intr)
		a->sample_type &= ~PERF_SAMPLE_REGS_INTR;
	if (!a->sample_stack_user)
		a->sample_type &= ~PERF_SAMPLE_STACK_USER;
}

/* The record at pos, copied out whole (it may wrap); NULL if its header is impossible. */
static const struct perf_event_header *record_at(const uint8_t *data, uint64_t size,
						 uint64_t pos, uint64_t head)
{
	struct perf_event_header *h = (void *)rec;

	for (size_t b = 0; b < sizeof(*h); b++)
		rec[b] = data[(pos + b) & (size - 1)];
	if (h->size < sizeof(*h) || h->size % 8 || h->size > size || h->size > head - pos)
		return NULL;
	for (size_t b = sizeof(*h); b < h->size; b++)
		rec[b] = data[(pos + b) & (size - 1)];
	return h;
}

void fz_op_ring_check(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_CHECK);
	struct perf_event_attr a;
	size_t pages = (size_t)1 << fz_below(4), len = (1 + pages) * FZ_PAGE;
	unsigned faults = fz_below(48);

	random_sampler(&a);
	r->a[0] = a.sample_type, r->a[1] = a.read_format, r->a[2] = pages, r->a[3] = faults;
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fz_rec_end(r, -1);	/* not ours to judge: the open's checks are fuzzed elsewhere */
		return;
	}
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		fz_rec_end(r, -1);
		return;
	}
	volatile struct perf_event_mmap_page *pc = (void *)m;
	uint8_t *touch = fz_scratch() - 8 * FZ_PAGE;	/* the first half: ours alone */
	syscall(SYS_ioctl, fd, PERF_EVENT_IOC_ENABLE, 0);
	for (unsigned i = 0; i < faults; i++) {
		uint8_t *p = touch + (i % 8) * FZ_PAGE;
		madvise(p, FZ_PAGE, MADV_DONTNEED);
		*(volatile uint8_t *)p = 1;
	}
	syscall(SYS_ioctl, fd, PERF_EVENT_IOC_DISABLE, 0);

	uint64_t head = pc->data_head, tail = pc->data_tail, size = pc->data_size;
	uint64_t samples = 0, lost = 0, throttles = 0, pos = tail;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (size != pages * FZ_PAGE || head - tail > size)
		fz_fail("ring check: data_size %llu (want %zu), head %llu, tail %llu",
			(unsigned long long)size, pages * FZ_PAGE, (unsigned long long)head,
			(unsigned long long)tail);
	while (pos != head) {
		const struct perf_event_header *h = record_at(m + FZ_PAGE, size, pos, head);
		if (!h)
			fz_fail("ring check: a bad record header at %llu (head %llu): type %u size %u",
				(unsigned long long)pos, (unsigned long long)head,
				((struct perf_event_header *)rec)->type,
				((struct perf_event_header *)rec)->size);
		if (h->type == PERF_RECORD_SAMPLE) {
			samples++;
			if (!parse_sample(&a, rec + sizeof(*h), h->size - sizeof(*h)))
				fz_fail("ring check: a %u-byte SAMPLE that does not parse as "
					"sample_type %#llx read_format %#llx", h->size,
					(unsigned long long)a.sample_type,
					(unsigned long long)a.read_format);
		} else if (h->type == PERF_RECORD_LOST) {
			lost += ((const uint64_t *)(rec + sizeof(*h)))[1];
		} else if (h->type == PERF_RECORD_THROTTLE) {
			throttles++;
		} else if (h->type == 0 || h->type >= PERF_RECORD_MAX) {
			fz_fail("ring check: a record of type %u", h->type);
		}
		pos += h->size;
	}
	pc->data_tail = head;
	/* The count: every fault the event saw while on the PMU (an exclusive group elsewhere
	 * can keep it off). Each counted fault is a sample, written or lost, unless the event
	 * was throttled (it counts on, as Linux's software events do); the last losses have no
	 * LOST record yet, but a ring with room to spare lost none. */
	uint64_t v[16];
	long n = read(fd, v, sizeof(v));
	int times = !!(a.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		    !!(a.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t count = a.read_format & PERF_FORMAT_GROUP ? v[1 + times] : v[0];
	long want = 8 * (1 + times + !!(a.read_format & PERF_FORMAT_ID) +
			 !!(a.read_format & PERF_FORMAT_LOST) + !!(a.read_format & PERF_FORMAT_GROUP));
	if (n != want)
		fz_fail("ring check: read of the sampler gave %ld, not %ld (errno %d)", n, want,
			errno);
	/* LOST counts every record that did not fit, the COMM and MMAP records synthesized
	 * for a new ring too (a 4 KiB ring fills with MMAP records of the fuzzer's mappings):
	 * it bounds nothing here. */
	if (count > faults || samples > count ||
	    (!lost && !throttles && size - (head - tail) > 2 * ROOM && samples != count))
		fz_fail("ring check: %u faults, counted %llu, %llu samples and %llu lost in %llu "
			"of %llu bytes", faults, (unsigned long long)count,
			(unsigned long long)samples, (unsigned long long)lost,
			(unsigned long long)(head - tail), (unsigned long long)size);
	munmap(m, len);
	close(fd);
	fz_rec_end(r, samples);
}
