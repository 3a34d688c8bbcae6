/* user/lib/itrace_decode.c: the itrace packet decoder and a small tracer of this process (data ring + AUX area), for tests and for programs that trace their own functions. */
#include "itrace_decode.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096UL

int itrace_pmu_type(void)
{
	char buf[32];
	int fd = open("/sys/bus/event_source/devices/" PMUOS_ITRACE_PMU_NAME "/type", O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

/* Bytes a packet takes by its first byte; 0 for a reserved one. */
static unsigned packet_len(uint8_t b)
{
	if (b < 0x80 || b >= 0xc0 || b == ITRACE_REPEAT)
		return 1;
	switch (b) {
	case ITRACE_DELTA16:
		return 3;
	case ITRACE_DELTA32:
		return 5;
	case ITRACE_FULL:
		return 9;
	}
	return 0;
}

long itrace_decode(const void *aux, uint64_t aux_size, uint64_t pos, uint64_t size, itrace_fn fn,
		   void *ctx)
{
	const uint8_t *area = aux;
	uint64_t end = pos + size, ip = 0;
	uint8_t pkt[ITRACE_MAX_PACKET];
	bool synced = false;
	long n = 0;

	while (pos < end) {
		uint8_t b = area[pos & (aux_size - 1)];
		unsigned len = packet_len(b);

		if (!len || pos % ITRACE_BLOCK + len > ITRACE_BLOCK || len > end - pos)
			return -1;
		if (pos % ITRACE_BLOCK == 0 && b != ITRACE_FULL)
			return -1;
		for (unsigned i = 0; i < len; i++)
			pkt[i] = area[(pos + i) & (aux_size - 1)];
		pos += len;
		if (b == ITRACE_PAD)
			continue;
		if (b == ITRACE_FULL) {
			memcpy(&ip, pkt + 1, 8);
			synced = true;
		} else if (!synced) {
			return -1;
		} else if (b == ITRACE_DELTA16) {
			int16_t d;
			memcpy(&d, pkt + 1, 2);
			ip += d;
		} else if (b == ITRACE_DELTA32) {
			int32_t d;
			memcpy(&d, pkt + 1, 4);
			ip += d;
		} else if (b != ITRACE_REPEAT) {
			ip += (int8_t)b; /* SHORT and BACK */
		}
		if (fn)
			fn(ip, ctx);
		n++;
	}
	return n;
}

int itrace_open(struct itrace *t, uint64_t config, int data_pages, int aux_pages, bool overwrite)
{
	return itrace_open_on(t, 0, -1, config, data_pages, aux_pages, overwrite);
}

int itrace_open_on(struct itrace *t, pid_t pid, int cpu, uint64_t config, int data_pages,
		   int aux_pages, bool overwrite)
{
	struct perf_event_attr attr;
	int type = itrace_pmu_type();

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (type < 0) {
		errno = ENOENT;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	t->fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, 0);
	if (t->fd < 0)
		return -1;
	t->data_pages = data_pages;
	t->pc = mmap(NULL, (1 + data_pages) * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->pc == MAP_FAILED) {
		t->pc = NULL;
		return -1;
	}
	t->aux_size = aux_pages * PAGE;
	t->overwrite = overwrite;
	t->pc->aux_offset = (1 + data_pages) * PAGE;
	t->pc->aux_size = t->aux_size;
	t->aux = mmap(NULL, t->aux_size, overwrite ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED,
		      t->fd, t->pc->aux_offset);
	if (t->aux == MAP_FAILED) {
		t->aux = NULL;
		return -1;
	}
	return 0;
}

void itrace_close(struct itrace *t)
{
	if (t->aux)
		munmap(t->aux, t->aux_size);
	if (t->pc)
		munmap(t->pc, (1 + t->data_pages) * PAGE);
	if (t->fd >= 0)
		close(t->fd);
	t->aux = NULL;
	t->pc = NULL;
	t->fd = -1;
}

/* n bytes at data ring position pos (a record may wrap round the end). */
static void ring_copy(const struct perf_event_mmap_page *pc, uint64_t pos, void *buf, size_t n)
{
	const char *data = (const char *)pc + pc->data_offset;

	for (size_t i = 0; i < n; i++)
		((char *)buf)[i] = data[(pos + i) & (pc->data_size - 1)];
}

long itrace_read(struct itrace *t, itrace_fn fn, void *ctx)
{
	struct perf_event_mmap_page *pc = t->pc;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE), tail = pc->data_tail;
	uint64_t aux_tail = pc->aux_tail;
	long total = 0;

	while (tail < head) {
		struct {
			struct perf_event_header header;
			uint64_t offset, size, flags;
		} r;
		ring_copy(pc, tail, &r.header, sizeof(r.header));
		if (r.header.size < sizeof(r.header))
			return -1;
		if (r.header.type == PERF_RECORD_AUX) {
			ring_copy(pc, tail, &r, sizeof(r));
			long n = itrace_decode(t->aux, t->aux_size, r.offset, r.size, fn, ctx);
			if (n < 0)
				return -1;
			total += n;
			t->flags |= r.flags;
			t->records++;
			aux_tail = r.offset + r.size;
		}
		tail += r.header.size;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	if (!t->overwrite)
		__atomic_store_n(&pc->aux_tail, aux_tail, __ATOMIC_RELEASE);
	return total;
}

long itrace_snapshot(struct itrace *t, itrace_fn fn, void *ctx)
{
	uint64_t head = __atomic_load_n(&t->pc->aux_head, __ATOMIC_ACQUIRE);
	uint64_t start = head > t->aux_size ? head - t->aux_size : 0;

	start = (start + ITRACE_BLOCK - 1) / ITRACE_BLOCK * ITRACE_BLOCK;
	return itrace_decode(t->aux, t->aux_size, start, head - start, fn, ctx);
}
