/* user/lib/perf.h: perf_event_open and the small helpers the perf tests and the bench share. */
#ifndef USER_PERF_H
#define USER_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERF_PAGE 4096UL
#define PERF_FORMAT_TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* A zeroed attr of the running header's size (Linux 6.1: PERF_ATTR_SIZE_VER7). */
struct perf_event_attr perf_attr(uint32_t type, uint64_t config);
/* The deterministic sampler both kernels have: a page-fault software event with
 * sample_period 1 (each first write to a fresh page is exactly one sample, whose ADDR is
 * that page), user mode only, opened disabled, a wake-up per sample. */
struct perf_event_attr perf_fault_sampler(uint64_t sample_type);

/* The raw system call: -1 and errno on failure, as libc would give. */
int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	      unsigned long flags);

/* A task-clock (or other software) event of this process, any CPU; the test fails if refused. */
int perf_open_sw(uint64_t config, uint64_t read_format, bool disabled, int group_fd);

/*
 * The raw ioctl with a full 64-bit argument: through libc's variadic ioctl() an int -1
 * reaches the kernel as 0xffffffff (SET_OUTPUT then reads it as a descriptor, not as -1).
 */
long perf_ioctl(int fd, unsigned long cmd, unsigned long arg);

/*
 * Opens a hardware event of this process, or ends the test as SKIP when the kernel has no
 * hardware PMU: Linux under QEMU TCG answers ENOENT, a PMU that cannot count this EOPNOTSUPP.
 */
int perf_open_hw_attr(struct perf_event_attr *attr, int group_fd);

/* The same for a user-only (exclude_kernel, exclude_hv) PERF_TYPE_HARDWARE event. */
int perf_open_hw(uint64_t config, uint64_t read_format, bool disabled, int group_fd);

#define PERF_LOOP_INSNS 3 /* inc, dec, jnz */
#define PERF_WORK 30000   /* loop turns: some 100k user instructions for the clocks to see */

/* n (> 0) turns of a loop of PERF_LOOP_INSNS user instructions: work of a known count. */
void perf_loop(uint64_t n);

/*
 * ioctl(fd, ENABLE, flags), n (> 0) turns of perf_loop's loop, ioctl(fd, DISABLE, flags), in
 * one asm block: between the two system calls run only the loop and a fixed handful of
 * instructions, so the user count is PERF_LOOP_INSNS * n plus a constant.
 */
void perf_measured_loop(int fd, unsigned long flags, uint64_t n);
/* The count of one perf_measured_loop(n), from zero (RESET first). */
uint64_t perf_count_loop(int fd, unsigned long flags, uint64_t n);

/* read() of exactly n u64 words; the test fails on any other length. */
void perf_read_words(int fd, uint64_t *buf, size_t n);

/* The value of an event opened with read_format 0. */
uint64_t perf_value(int fd);

/* The event's first page (struct perf_event_mmap_page), shared, read-write; ASSERTs success. */
struct perf_event_mmap_page *perf_map(int fd);

/*
 * The self-monitoring read of perf_event.h's comment on struct perf_event_mmap_page: the
 * count (offset plus the counter's value through RDPMC when the page allows it) and the
 * times, each extrapolated with the TSC when cap_user_time says the page can, all under the
 * page's seqlock.
 */
struct perf_self {
	uint64_t count, enabled, running;
	uint32_t index;
};
void perf_self_read(volatile struct perf_event_mmap_page *pc, struct perf_self *out);

/*
 * A ring of 1 + data_pages pages, read-write (the reader owns data_tail), every page touched
 * now: Linux fills a perf mapping on demand, and a fault of the reader's would be sampled.
 */
struct perf_event_mmap_page *perf_ring_map(int fd, int data_pages);
void perf_ring_unmap(struct perf_event_mmap_page *pc);

/*
 * The record at ring position *pos copied whole into buf (records may wrap around the ring's
 * end; a record larger than size fails the test), *pos moved past it; NULL at data_head.
 * Start with *pos = data_tail (0 for a fresh ring).
 */
const struct perf_event_header *perf_ring_next(const struct perf_event_mmap_page *pc,
					       uint64_t *pos, void *buf, size_t size);

/* The same, skipping records of other types than type. */
const struct perf_event_header *perf_ring_find(const struct perf_event_mmap_page *pc,
					       uint64_t *pos, uint32_t type, void *buf,
					       size_t size);

static inline uint64_t perf_rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t perf_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter) : "memory");
	return (uint64_t)hi << 32 | lo;
}

#endif
