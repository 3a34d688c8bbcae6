/* user/fuzz/mem.c: the fuzzer's memory: an arena where every perf mapping goes (MAP_FIXED, so
 * a random munmap or mprotect can never hit the fuzzer's own pages), the pointers it hands the
 * kernel, mmap/munmap/mprotect of rings and AUX areas, writes into control pages, and the work
 * that makes events count and sample. */
#include "fuzz.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The arena's pages as the fuzzer believes them to be (a failed MAP_FIXED leaves the range
 * unknown: marked unmapped, so the fuzzer itself never touches it). */
#define PG_PROT		0x07	/* PROT_* */
#define PG_MAPPED	0x08
#define PG_PERF		0x10	/* a perf mapping's page */
#define PG_CTL		0x20	/* ... its control page */

static uint8_t *arena;
uint8_t *fz_file_maps;
static uint8_t pg[FZ_ARENA_PAGES];
static int16_t pg_fd[FZ_ARENA_PAGES];	/* the fd a perf page was mapped from (a hint) */
/* Scratch: 16 pages the kernel may write, the first 8 also faulted by fz_op_work. */
#define SCRATCH_PAGES	16
static uint8_t *scratch;
/* A page whose next page is not mapped: buffers that straddle its end. */
static uint8_t *edge;

/* An address range nothing is ever mapped in (the kernel places mappings top-down from
 * 128 MiB below the stack; the program and its heap are low). */
#define HUGE_HOLE	((void *)(1ull << 44))

/* Outside the arena: mappings the kernel placed itself (no MAP_FIXED). */
static struct { void *addr; size_t len; } outside[16];

static void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fz_fail("mmap of %zu bytes for the fuzzer: errno %d", len, errno);
	return p;
}

void fz_mem_init(void)
{
	/* The arena is an address range, mapped only by the calls: at the baseline and at
	 * the end nothing is there, so every kernel object a mapping needs (VMAs, page
	 * tables) is made and freed within the run. The fuzzer's own pages go below it. */
	arena = map_anon((FZ_ARENA_PAGES + FZ_FILE_MAP_PAGES) * FZ_PAGE, PROT_NONE);
	fz_file_maps = arena + FZ_ARENA_PAGES * FZ_PAGE;
	for (int i = 0; i < FZ_ARENA_PAGES; i++)
		pg_fd[i] = -1;
	scratch = map_anon(SCRATCH_PAGES * FZ_PAGE, PROT_READ | PROT_WRITE);
	edge = map_anon(2 * FZ_PAGE, PROT_READ | PROT_WRITE);
	munmap(edge + FZ_PAGE, FZ_PAGE);
	munmap(arena, (FZ_ARENA_PAGES + FZ_FILE_MAP_PAGES) * FZ_PAGE);
	memset(edge, 0, FZ_PAGE);
	/* Its page table is made now, and kept by MADV_DONTNEED as Linux keeps it; its pages
	 * come and go (fz_op_work faults them in), and none is held at the baseline. */
	memset(scratch, 0, SCRATCH_PAGES * FZ_PAGE);
	madvise(scratch, SCRATCH_PAGES * FZ_PAGE, MADV_DONTNEED);
}

void *fz_scratch(void)
{
	return scratch + 8 * FZ_PAGE;
}

static void *arena_ptr(void)
{
	return arena + fz_below(FZ_ARENA_PAGES) * FZ_PAGE + (fz_one_in(2) ? 0 : fz_below(FZ_PAGE));
}

/* Addresses no user copy may follow. */
static void *bad_ptr(void)
{
	static const uint64_t bad[] = {
		0, 1, 0xfff, 0x10000,
		0x00007ffffffff000ull - 8,	/* the last bytes below USER_END */
		0x00007ffffffff000ull,		/* USER_END */
		0x0000800000000000ull,		/* non-canonical */
		0xdead000000000000ull,
		0xffff800000000000ull,		/* the direct map */
		0xffff800000100000ull,
		0xffffc90000000000ull,		/* vmalloc */
		0xffffffff80000000ull,		/* the kernel image */
		0xffffffff80100000ull,
		0xfffffffffffff000ull,
		~0ull,
	};

	return (void *)FZ_PICK(bad);
}

/* timeout: the same draws, but never memory whose bytes the kernel may read as something else
 * (fz_timeout_ptr). */
static void *in_ptr(const void *buf, size_t len, bool timeout)
{
	void *p;

	switch (fz_below(16)) {
	case 0:
		p = bad_ptr();
		return timeout ? (void *)0xffffffff80000000ull : p;	/* NULL waits for ever */
	case 1: {
		/* a copy of buf whose first min(len, k) bytes fit before the page's end */
		size_t k = len ? 1 + fz_below(len) : 0;
		if (k > FZ_PAGE)
			k = FZ_PAGE;
		memcpy(edge + FZ_PAGE - k, buf, k);
		return timeout ? (void *)buf : edge + FZ_PAGE - k;
	}
	case 2:
		p = arena_ptr();
		return timeout ? (void *)buf : p;
	default:
		return (void *)buf;
	}
}

void *fz_in_ptr(const void *buf, size_t len)
{
	return in_ptr(buf, len, false);
}

const void *fz_timeout_ptr(const void *ts, size_t len)
{
	return in_ptr(ts, len, true);
}

void *fz_out_ptr(size_t len)
{
	switch (fz_below(8)) {
	case 0:
		return bad_ptr();
	case 1:
		return edge + FZ_PAGE - (len ? 1 + fz_below(len < FZ_PAGE ? len : FZ_PAGE) : 0);
	case 2:
		return arena_ptr();
	default:
		return len <= 8 * FZ_PAGE ? scratch + 8 * FZ_PAGE : edge;
	}
}

/* ---- mmap, munmap, mprotect ---- */

static void mark(size_t first, size_t n, uint8_t state, int fd)
{
	for (size_t i = first; i < first + n && i < FZ_ARENA_PAGES; i++)
		pg[i] = state, pg_fd[i] = fd;
}

static size_t random_pages(void)
{
	switch (fz_below(8)) {
	case 0: return 1 + fz_below(40);
	case 1: return 1 + (1u << fz_below(9));
	case 2: return fz_one_in(64) ? (size_t)1 << (10 + fz_below(24)) : 1;
	default: return 1 + (1u << fz_below(5));
	}
}

static int random_prot(void)
{
	switch (fz_below(5)) {
	case 0: return PROT_READ;
	case 1: return fz_below(8);
	default: return PROT_READ | PROT_WRITE;
	}
}

static void note_outside(void *p, size_t len)
{
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		if (!outside[i].addr) {
			outside[i].addr = p, outside[i].len = len;
			return;
		}
	}
	munmap(p, len);
}

/* An AUX offset worth trying: where a control page says, else past the data pages. */
static uint64_t aux_offset_guess(int fd)
{
	for (int tries = 0; tries < 8; tries++) {
		size_t i = fz_below(FZ_ARENA_PAGES);
		if ((pg[i] & (PG_CTL | PG_PROT)) > PG_CTL && pg_fd[i] == fd) {
			volatile struct perf_event_mmap_page *pc = (void *)(arena + i * FZ_PAGE);
			return fz_one_in(2) ? pc->aux_offset : FZ_PAGE + pc->data_size;
		}
	}
	return FZ_PAGE * (1 + (1u << fz_below(5)));
}

void fz_op_mmap(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_MMAP);
	int fd = fz_pick_fd(), prot = random_prot();
	bool anon = fz_one_in(10);
	size_t pages = random_pages(), len = pages * FZ_PAGE;
	int flags = (anon ? MAP_PRIVATE | MAP_ANONYMOUS : fz_one_in(10) ? MAP_PRIVATE : MAP_SHARED);
	uint64_t off = 0;
	bool fixed = pages <= FZ_ARENA_PAGES && !fz_one_in(32);
	size_t first = fixed ? fz_below(FZ_ARENA_PAGES - pages + 1) : 0;
	void *addr = fixed ? arena + first * FZ_PAGE : NULL;

	if (fixed)
		flags |= fz_one_in(8) ? MAP_FIXED_NOREPLACE : MAP_FIXED;
	if (fz_one_in(16))
		flags |= FZ_PICK(((const int[]){ MAP_POPULATE, MAP_SHARED_VALIDATE, MAP_NORESERVE,
						 MAP_LOCKED, 0x40000000 }));
	if (!anon && fz_one_in(6))
		off = fz_one_in(4) ? fz_value() & ~(FZ_PAGE - 1) : aux_offset_guess(fd);
	if (fz_one_in(32))
		len = len - fz_below(FZ_PAGE);		/* not a page multiple */
	r->a[0] = (long)addr, r->a[1] = len, r->a[2] = prot, r->a[3] = flags;
	r->a[4] = anon ? -1 : fd, r->a[5] = off;
	void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, anon ? -1 : fd, off);
	fz_rec_end(r, p == MAP_FAILED ? -1 : (long)p);
	if (!fixed && p != MAP_FAILED) {
		uint8_t *end = (uint8_t *)p + len, *arena_end = arena + FZ_ARENA_PAGES * FZ_PAGE;
		if (end <= arena || (uint8_t *)p >= arena_end) {
			note_outside(p, len);
			return;
		}
		if ((uint8_t *)p < arena || end > arena_end) {
			munmap(p, len);		/* half in the arena: not worth tracking */
			return;
		}
		fixed = true;	/* the kernel chose a hole of the arena */
		first = ((uint8_t *)p - arena) / FZ_PAGE;
		pages = (len + FZ_PAGE - 1) / FZ_PAGE;
	}
	if (!fixed)
		return;
	if (p == MAP_FAILED) {
		/* A refused MAP_FIXED may have unmapped the range first (Linux does too):
		 * the fuzzer forgets what it had there. */
		if (errno != EEXIST)
			mark(first, pages, 0, -1);
		return;
	}
	/* A file's pages (files.c's descriptors) are never touched here: past its end they
	 * fault, and they hold no ring. */
	bool perf = !anon && !(fd >= 0 && fd < FZ_FDS && fz_fds[fd].file);
	uint8_t state = PG_MAPPED | (prot & PG_PROT) | (perf ? PG_PERF : 0);
	mark(first, pages, state, perf ? fd : -1);
	if (perf && off == 0)
		pg[first] |= PG_CTL;
}

/* A range in the arena, mostly over something mapped. */
static void arena_range(size_t *first, size_t *n)
{
	size_t start = fz_below(FZ_ARENA_PAGES);

	for (size_t i = 0; i < 64; i++) {
		size_t j = (start + i) % FZ_ARENA_PAGES;
		if (pg[j] & PG_PERF) {
			start = j;
			break;
		}
	}
	if (fz_one_in(4) && start > 0)
		start -= fz_below(start < 4 ? start : 4);
	*first = start;
	*n = 1 + fz_below(fz_one_in(4) ? 64 : 4);
	if (*first + *n > FZ_ARENA_PAGES)
		*n = FZ_ARENA_PAGES - *first;
}

void fz_op_munmap(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_MUNMAP);
	size_t first, n;

	if (fz_one_in(8)) {
		/* refused: unaligned, empty, kernel, beyond user space */
		void *p = fz_one_in(2) ? bad_ptr() : arena + 1 + fz_below(FZ_PAGE - 1);
		size_t len = fz_one_in(2) ? 0 : FZ_PAGE;
		if ((uintptr_t)p < FZ_PAGE * 16)
			len = FZ_PAGE;		/* never a range that could reach our own pages */
		r->a[0] = (long)p, r->a[1] = len;
		fz_rec_end(r, syscall(SYS_munmap, p, len));
		return;
	}
	if (fz_one_in(16)) {
		/* Huge and empty: [16 TiB, 24 TiB) holds nothing of ours, and a walk of it
		 * a page at a time would take the kernel minutes. */
		uint64_t len = 1ull << (30 + fz_below(14));
		r->a[0] = (long)HUGE_HOLE, r->a[1] = len;
		fz_rec_end(r, syscall(SYS_munmap, HUGE_HOLE, len));
		return;
	}
	if (fz_one_in(8)) {
		for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
			if (outside[i].addr) {
				r->a[0] = (long)outside[i].addr, r->a[1] = outside[i].len;
				fz_rec_end(r, syscall(SYS_munmap, outside[i].addr, outside[i].len));
				outside[i].addr = NULL;
				return;
			}
		}
	}
	arena_range(&first, &n);
	r->a[0] = (long)(arena + first * FZ_PAGE), r->a[1] = n * FZ_PAGE;
	if (fz_rec_end(r, syscall(SYS_munmap, arena + first * FZ_PAGE, n * FZ_PAGE)) == 0)
		mark(first, n, 0, -1);
}

void fz_op_mprotect(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_MPROTECT);
	size_t first, n;
	int prot = fz_one_in(8) ? (int)fz_value() : (int)fz_below(8);

	arena_range(&first, &n);
	r->a[0] = (long)(arena + first * FZ_PAGE), r->a[1] = n * FZ_PAGE, r->a[2] = prot;
	long ret = fz_rec_end(r, syscall(SYS_mprotect, arena + first * FZ_PAGE, n * FZ_PAGE, prot));
	for (size_t i = first; i < first + n; i++) {
		if (ret == 0 && (pg[i] & PG_MAPPED))
			pg[i] = (pg[i] & ~PG_PROT) | (prot & PG_PROT);
		else if (ret != 0 && errno == ENOMEM)
			break;	/* a hole: Linux changes what lies before it; we forget it */
	}
	if (ret != 0 && errno == ENOMEM)
		mark(first, n, 0, -1);
}

/* ---- control pages and rings ---- */

/* A mapped control page the fuzzer may read (and write, with want_write), or -1. */
static long pick_ctl(bool want_write)
{
	size_t start = fz_below(FZ_ARENA_PAGES);

	for (size_t i = 0; i < FZ_ARENA_PAGES; i++) {
		size_t j = (start + i) % FZ_ARENA_PAGES;
		uint8_t s = pg[j];
		if (!(s & PG_CTL) || !(s & PG_PROT))
			continue;
		if (want_write && !(s & PROT_WRITE))
			continue;
		return j;
	}
	return -1;
}

void fz_op_ctl_write(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_CTL);
	long i = pick_ctl(true);

	if (i < 0) {
		fz_rec_end(r, -2);
		return;
	}
	volatile struct perf_event_mmap_page *pc = (void *)(arena + i * FZ_PAGE);
	uint64_t v, head = pc->data_head;
	size_t at;
	switch (fz_below(8)) {
	case 0: v = head; at = offsetof(struct perf_event_mmap_page, data_tail); break;
	case 1: v = fz_one_in(2) ? fz_value() : head - 8 * fz_below(64);
		at = offsetof(struct perf_event_mmap_page, data_tail); break;
	case 2: v = fz_one_in(2) ? FZ_PAGE + pc->data_size : fz_value() & ~(FZ_PAGE - 1);
		at = offsetof(struct perf_event_mmap_page, aux_offset); break;
	case 3: v = fz_one_in(2) ? FZ_PAGE << fz_below(6) : fz_value();
		at = offsetof(struct perf_event_mmap_page, aux_size); break;
	case 4: v = fz_one_in(2) ? pc->aux_head : fz_value();
		at = offsetof(struct perf_event_mmap_page, aux_tail); break;
	default: v = fz_value(); at = 8 * fz_below(FZ_PAGE / 8); break;
	}
	r->a[0] = (long)pc, r->a[1] = at, r->a[2] = v;
	*(volatile uint64_t *)((char *)pc + at) = v;
	fz_rec_end(r, 0);
}

/* Walk a ring's records from data_tail to data_head like a reader, then consume them. */
void fz_op_ring_read(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_RINGREAD);
	long i = pick_ctl(false);

	if (i < 0) {
		fz_rec_end(r, -2);
		return;
	}
	volatile struct perf_event_mmap_page *pc = (void *)(arena + i * FZ_PAGE);
	uint64_t head = pc->data_head, tail = pc->data_tail, size = pc->data_size, n = 0;
	size_t pages = size / FZ_PAGE;
	r->a[0] = (long)pc, r->a[1] = head, r->a[2] = tail, r->a[3] = size;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* (C) */
	bool readable = size && !(size & (size - 1)) && (size_t)i + pages < FZ_ARENA_PAGES &&
			head - tail <= size;
	for (size_t k = 1; readable && k <= pages; k++)
		readable = (pg[i + k] & (PG_PERF | PG_CTL)) == PG_PERF && (pg[i + k] & PG_PROT) &&
			   pg_fd[i + k] == pg_fd[i];
	const uint8_t *data = arena + (i + 1) * FZ_PAGE;
	for (uint64_t at = tail; readable && at < head && n < 4096; n++) {
		struct perf_event_header h;
		for (size_t b = 0; b < sizeof(h); b++)
			((uint8_t *)&h)[b] = data[(at + b) & (size - 1)];
		if (!h.size)
			break;
		at += h.size;
	}
	if (readable && (pg[i] & PROT_WRITE))
		pc->data_tail = head;		/* (D) after the loads above: program order on x86 */
	fz_rec_end(r, n);
}

/* ---- work: instructions, page faults, syscalls, a short sleep ---- */

void fz_op_work(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_WORK);
	uint64_t loops = fz_one_in(8) ? fz_below(50000) : fz_below(5000);
	unsigned faults = fz_below(4), sleep_ms = fz_one_in(16);

	r->a[0] = loops, r->a[1] = faults, r->a[2] = sleep_ms;
	for (volatile uint64_t k = 0; k < loops; k++)
		;
	for (unsigned f = 0; f < faults; f++) {
		uint8_t *p = scratch + fz_below(8) * FZ_PAGE;
		madvise(p, FZ_PAGE, MADV_DONTNEED);
		*(volatile uint8_t *)p = 1;
	}
	syscall(SYS_getpid);
	if (sleep_ms)
		poll(NULL, 0, 1);	/* a context switch, and the timers' turn */
	fz_rec_end(r, 0);
}

/* Back to the state of the baseline: nothing in the arena, scratch holding no pages. */
void fz_mem_cleanup(void)
{
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		if (outside[i].addr)
			munmap(outside[i].addr, outside[i].len);
	munmap(arena, FZ_ARENA_PAGES * FZ_PAGE);
	madvise(scratch, SCRATCH_PAGES * FZ_PAGE, MADV_DONTNEED);
	memset(pg, 0, sizeof(pg));
}
