/* user/lib/itrace_decode.h: pmuos's itrace PMU from userland: open it on this process with a data ring and an AUX area, and decode its packets (include/uapi/pmuos/itrace.h) back into instruction addresses. */
#ifndef USER_ITRACE_DECODE_H
#define USER_ITRACE_DECODE_H

#include <linux/perf_event.h>
#include <pmuos/itrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The itrace PMU's dynamic type from /sys/bus/event_source/devices/itrace/type; -1 without one (Linux). */
int itrace_pmu_type(void);

/* Called for each instruction decoded, in execution order. */
typedef void (*itrace_fn)(uint64_t ip, void *ctx);

/*
 * Decode the packets in AUX bytes [pos, pos + size), positions taken modulo aux_size (a power
 * of two); pos must start a packet: a PERF_RECORD_AUX's offset or a multiple of ITRACE_BLOCK.
 * Returns the instructions decoded, or -1 at a malformed stream (a reserved byte, a packet
 * across a block boundary, a block that does not start with FULL).
 */
long itrace_decode(const void *aux, uint64_t aux_size, uint64_t pos, uint64_t size, itrace_fn fn,
		   void *ctx);

/* A tracer of this process: the event, its control page and data ring, its AUX area. */
struct itrace {
	int fd;
	struct perf_event_mmap_page *pc;
	size_t data_pages;
	void *aux;
	uint64_t aux_size;
	bool overwrite;  /* the AUX area is mapped read-only: snapshot mode */
	uint64_t flags;  /* PERF_AUX_FLAG_* of the records read so far, ORed */
	unsigned records; /* PERF_RECORD_AUX records read so far */
};

/*
 * Open a disabled itrace event of this process with attr.config = config, map its data ring
 * (data_pages, a power of two) read-write and its AUX area (aux_pages, a power of two),
 * read-write or, for overwrite mode, read-only. 0, or -1 with errno (t->fd -1 if not opened).
 */
int itrace_open(struct itrace *t, uint64_t config, int data_pages, int aux_pages, bool overwrite);
/* The same for perf_event_open's pid and cpu (itrace_open: 0, -1): a CPU-wide tracer with -1, cpu. */
int itrace_open_on(struct itrace *t, pid_t pid, int cpu, uint64_t config, int data_pages,
		   int aux_pages, bool overwrite);
void itrace_close(struct itrace *t);

/*
 * Decode the AUX data that the PERF_RECORD_AUX records since the last call announce, then
 * consume them (data_tail; aux_tail in read-write mode). Returns the instructions decoded, or
 * -1 at a malformed stream.
 */
long itrace_read(struct itrace *t, itrace_fn fn, void *ctx);

/*
 * Overwrite mode: decode the newest data the area holds, from the first block boundary in
 * [aux_head - aux_size, aux_head) (the event disabled first). Returns as itrace_decode.
 */
long itrace_snapshot(struct itrace *t, itrace_fn fn, void *ctx);

#endif
