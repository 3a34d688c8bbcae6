/* user/lib/perf.c: perf_event_open and the small helpers the perf tests and the bench share. */
#include "perf.h"
#include "ktap.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct perf_event_attr perf_attr(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	return attr;
}

struct perf_event_attr perf_fault_sampler(uint64_t sample_type)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);

	attr.sample_period = 1;
	attr.sample_type = sample_type;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.wakeup_events = 1;
	return attr;
}

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	      unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int perf_open_sw(uint64_t config, uint64_t read_format, bool disabled, int group_fd)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, config);

	attr.read_format = read_format;
	attr.disabled = disabled;
	int fd = perf_open(&attr, 0, -1, group_fd, 0);
	ASSERT_GE(fd, 0);
	return fd;
}

long perf_ioctl(int fd, unsigned long cmd, unsigned long arg)
{
	return syscall(SYS_ioctl, fd, cmd, arg);
}

int perf_open_hw_attr(struct perf_event_attr *attr, int group_fd)
{
	int fd = perf_open(attr, 0, -1, group_fd, 0);

	if (fd < 0 && (errno == ENOENT || errno == EOPNOTSUPP))
		SKIP("no hardware PMU (perf_event_open: %s)", strerror(errno));
	ASSERT_GE(fd, 0);
	return fd;
}

int perf_open_hw(uint64_t config, uint64_t read_format, bool disabled, int group_fd)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_HARDWARE, config);

	attr.read_format = read_format;
	attr.disabled = disabled;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return perf_open_hw_attr(&attr, group_fd);
}

void perf_loop(uint64_t n)
{
	asm volatile("1:\n\t"
		     "inc %%rax\n\t"
		     "dec %[n]\n\t"
		     "jnz 1b"
		     : [n] "+r"(n)
		     :
		     : "rax", "cc");
}

/*
 * ioctl(fd, ENABLE, flags), n turns of the loop, ioctl(fd, DISABLE, flags), in one asm block:
 * between the two system calls run only the loop and a fixed handful of instructions, so
 * the user count is PERF_LOOP_INSNS * n plus a constant, whatever the compiler does elsewhere.
 */
void perf_measured_loop(int fd, unsigned long flags, uint64_t n)
{
	register long rax asm("rax") = SYS_ioctl;
	register long rsi asm("rsi") = PERF_EVENT_IOC_ENABLE;
	uint64_t sink = 0;

	asm volatile("syscall\n\t"
		     "mov %[n], %%rcx\n"
		     "1:\n\t"
		     "inc %[sink]\n\t"
		     "dec %%rcx\n\t"
		     "jnz 1b\n\t"
		     "mov %[nr], %%eax\n\t"
		     "mov %[off], %%esi\n\t"
		     "syscall"
		     : "+a"(rax), "+S"(rsi), [sink] "+r"(sink)
		     : "D"((long)fd), "d"(flags), [n] "r"(n), [nr] "i"(SYS_ioctl),
		       [off] "i"(PERF_EVENT_IOC_DISABLE)
		     : "rcx", "r11", "memory", "cc");
	ASSERT_EQ(rax, 0);
	ASSERT_EQ(sink, n);
}

/* The count of one measured_loop(n), from zero. */
uint64_t perf_count_loop(int fd, unsigned long flags, uint64_t n)
{
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_RESET, flags), 0);
	perf_measured_loop(fd, flags, n);
	return perf_value(fd);
}

void perf_read_words(int fd, uint64_t *buf, size_t n)
{
	ASSERT_EQ(read(fd, buf, n * sizeof(*buf)), n * sizeof(*buf));
}

uint64_t perf_value(int fd)
{
	uint64_t v;

	perf_read_words(fd, &v, 1);
	return v;
}

struct perf_event_mmap_page *perf_map(int fd)
{
	void *p = mmap(NULL, PERF_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	ASSERT_NE(p, MAP_FAILED);
	return p;
}

/* The counter's value as the page's pmc_width bits, sign-extended as perf_event.h shows. */
static int64_t pmc_value(uint32_t index, uint16_t width)
{
	uint64_t pmc = perf_rdpmc(index - 1);

	pmc <<= 64 - width;
	return (int64_t)pmc >> (64 - width);
}

void perf_self_read(volatile struct perf_event_mmap_page *pc, struct perf_self *out)
{
	uint64_t cyc = 0, time_offset = 0;
	uint32_t seq, time_mult = 0;
	uint16_t time_shift = 0;
	bool user_time;

	do {
		seq = pc->lock;
		asm volatile("" : : : "memory");
		out->enabled = pc->time_enabled;
		out->running = pc->time_running;
		user_time = pc->cap_user_time;
		if (user_time) {
			cyc = perf_rdtsc();
			time_offset = pc->time_offset;
			time_mult = pc->time_mult;
			time_shift = pc->time_shift;
		}
		out->index = pc->index;
		out->count = pc->offset;
		if (pc->cap_user_rdpmc && out->index)
			out->count += pmc_value(out->index, pc->pmc_width);
		asm volatile("" : : : "memory");
	} while (pc->lock != seq);

	if (user_time) {
		uint64_t quot = cyc >> time_shift;
		uint64_t rem = cyc & ((1ULL << time_shift) - 1);
		uint64_t delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);

		out->enabled += delta;
		if (out->index)
			out->running += delta;
	}
}

struct perf_event_mmap_page *perf_ring_map(int fd, int data_pages)
{
	size_t len = (1 + (size_t)data_pages) * PERF_PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	ASSERT_NE(p, MAP_FAILED);
	for (size_t off = 0; off < len; off += PERF_PAGE)
		(void)((volatile char *)p)[off];
	return (struct perf_event_mmap_page *)p;
}

void perf_ring_unmap(struct perf_event_mmap_page *pc)
{
	EXPECT_EQ(munmap(pc, PERF_PAGE + pc->data_size), 0);
}

const struct perf_event_header *perf_ring_next(const struct perf_event_mmap_page *pc,
					       uint64_t *pos, void *buf, size_t size)
{
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	const char *data = (const char *)pc + pc->data_offset;
	struct perf_event_header *h = buf;

	if (*pos == head)
		return NULL;
	for (size_t i = 0; i < sizeof(*h); i++)
		((char *)buf)[i] = data[(*pos + i) & (pc->data_size - 1)];
	ASSERT_GE(h->size, sizeof(*h));
	ASSERT_LE(h->size, size);
	ASSERT_LE(h->size, head - *pos);
	for (size_t i = sizeof(*h); i < h->size; i++)
		((char *)buf)[i] = data[(*pos + i) & (pc->data_size - 1)];
	*pos += h->size;
	return h;
}

const struct perf_event_header *perf_ring_find(const struct perf_event_mmap_page *pc,
					       uint64_t *pos, uint32_t type, void *buf,
					       size_t size)
{
	const struct perf_event_header *h;

	while ((h = perf_ring_next(pc, pos, buf, size)) && h->type != type)
		;
	return h;
}
