/* user/tests/perf_sample.c: PERF_RECORD_SAMPLE's fields in Linux's order and layout, read back from page-fault samples. */
#include "cpu.h"
#include "ktap.h"
#include "perf.h"

#include <asm/perf_regs.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * The sampler: PERF_COUNT_SW_PAGE_FAULTS with sample_period 1 (Linux has no hardware PMU under
 * QEMU TCG), so each first write to a fresh page is one sample from user mode, at a known ip,
 * with the fault's address.
 */
#define OFFSET 0x128			/* where in each page the write lands */
#define R12_MARK 0x5a5a5a5aul		/* what r12 holds at the faulting store */
#define STACK_ALL (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* include/linux/perf_event.h's PERF_MEM_NA: data_src when the event has none */
#define PERF_MEM_NA (PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) | \
		     PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA))
/* Every general register x86-64 samples: AX..SS and R8..R15 (DS, ES, FS, GS are refused). */
#define REGS_ALL (((1ULL << PERF_REG_X86_64_MAX) - 1) & ~(0xfULL << PERF_REG_X86_DS))

static uint64_t record[65536 / 8];

/* The faulting store, through rdi, with r12 set: the sample's registers can be checked. */
__attribute__((noinline)) static void touch(char *p)
{
	asm volatile("mov %[mark], %%r12\n\t"
		     "movb $1, (%[p])"
		     : : [p] "D"(p), [mark] "i"(R12_MARK) : "r12", "memory");
}

/* n pages from mem, one store each; its return address from touch is in the callchains. */
__attribute__((noinline)) static void touch_pages(char *mem, int n)
{
	for (int i = 0; i < n; i++)
		touch(mem + i * PERF_PAGE + OFFSET);
	asm volatile("" : : : "memory"); /* no tail call */
}

/* The store again, but with rsp pointing at an unmapped page (rbp still the frame's). */
__attribute__((noinline)) static void touch_with_sp(char *p, char *sp)
{
	asm volatile("mov %%rsp, %%rbx\n\t"
		     "mov %[sp], %%rsp\n\t"
		     "movb $1, (%[p])\n\t"
		     "mov %%rbx, %%rsp"
		     : : [p] "r"(p), [sp] "r"(sp) : "rbx", "memory");
}

/* ip lies within size bytes of the function at fn. */
static bool in_function(uint64_t ip, uintptr_t fn, unsigned size)
{
	return ip >= fn && ip < fn + size;
}

static int open_event(struct perf_event_attr *attr, int group_fd)
{
	int fd = perf_open(attr, 0, -1, group_fd, 0);

	ASSERT_GE(fd, 0);
	return fd;
}

static char *fresh_pages(int n)
{
	char *m = mmap(NULL, n * PERF_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(m, MAP_FAILED);
	return m;
}

/* n samples of n fresh pages, with fd (a group leader: its group) enabled around them. */
static char *sample_pages(int fd, int n)
{
	char *m = fresh_pages(n);

	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(m, n);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	return m;
}

static uint64_t event_id(int fd)
{
	uint64_t id = 0;

	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	return id;
}

/* ---- the reader: perf's evsel__parse_sample, field by field ---- */

struct sample {
	uint64_t identifier, ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu, res;
	const uint64_t *read;
	uint64_t nr;
	const uint64_t *ips;
	uint32_t raw_size;
	const uint32_t *raw;
	uint64_t abi_user, abi_intr;
	const uint64_t *regs_user, *regs_intr;
	uint64_t stack_size, dyn_size;
	const char *stack;
	uint64_t weight, data_src, txn, phys_addr, cgroup, data_page_size, code_page_size;
	uint64_t aux_size;
};

static unsigned read_words(uint64_t fmt, const uint64_t *p)
{
	unsigned entry = 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
	unsigned times = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);

	return fmt & PERF_FORMAT_GROUP ? 1 + times + p[0] * entry : entry + times;
}

/* Register idx of a { regs[weight(mask)] } block: they come in bit order. */
static uint64_t reg(const uint64_t *regs, uint64_t mask, int idx)
{
	return regs[__builtin_popcountll(mask & ((1ULL << idx) - 1))];
}

/* Every field attr asks for, each where Linux puts it; the last must end the record. */
static void parse(const struct perf_event_attr *a, const struct perf_event_header *h,
		  struct sample *s)
{
	const uint64_t *p = (const uint64_t *)(h + 1);
	uint64_t t = a->sample_type;

	memset(s, 0, sizeof(*s));
	ASSERT_EQ(h->type, PERF_RECORD_SAMPLE);
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->identifier = *p++;
	if (t & PERF_SAMPLE_IP)
		s->ip = *p++;
	if (t & PERF_SAMPLE_TID) {
		s->pid = (uint32_t)*p;
		s->tid = *p++ >> 32;
	}
	if (t & PERF_SAMPLE_TIME)
		s->time = *p++;
	if (t & PERF_SAMPLE_ADDR)
		s->addr = *p++;
	if (t & PERF_SAMPLE_ID)
		s->id = *p++;
	if (t & PERF_SAMPLE_STREAM_ID)
		s->stream_id = *p++;
	if (t & PERF_SAMPLE_CPU) {
		s->cpu = (uint32_t)*p;
		s->res = *p++ >> 32;
	}
	if (t & PERF_SAMPLE_PERIOD)
		s->period = *p++;
	if (t & PERF_SAMPLE_READ) {
		s->read = p;
		p += read_words(a->read_format, p);
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		s->nr = *p++;
		s->ips = p;
		p += s->nr;
	}
	if (t & PERF_SAMPLE_RAW) {
		/* { u32 size; char data[size]; }, padded so the next field is aligned */
		s->raw = (const uint32_t *)p;
		s->raw_size = s->raw[0];
		p = (const uint64_t *)((const char *)p + sizeof(uint32_t) + s->raw_size);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		s->abi_user = *p++;
		s->regs_user = p;
		if (s->abi_user)
			p += __builtin_popcountll(a->sample_regs_user);
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		s->stack_size = *p++;
		if (s->stack_size) {
			s->stack = (const char *)p;
			p += s->stack_size / 8;
			s->dyn_size = *p++;
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = *p++;
	if (t & PERF_SAMPLE_DATA_SRC)
		s->data_src = *p++;
	if (t & PERF_SAMPLE_TRANSACTION)
		s->txn = *p++;
	if (t & PERF_SAMPLE_REGS_INTR) {
		s->abi_intr = *p++;
		s->regs_intr = p;
		if (s->abi_intr)
			p += __builtin_popcountll(a->sample_regs_intr);
	}
	if (t & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = *p++;
	if (t & PERF_SAMPLE_CGROUP)
		s->cgroup = *p++;
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = *p++;
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = *p++;
	if (t & PERF_SAMPLE_AUX) {
		s->aux_size = *p++;
		p += s->aux_size / 8;
	}
	EXPECT_EQ((const char *)p - (const char *)h, h->size);
}

/* The next sample of the ring at *pos, parsed; the test fails if there is none. */
static void next_sample(const struct perf_event_mmap_page *pc, uint64_t *pos,
			const struct perf_event_attr *a, struct sample *s)
{
	const struct perf_event_header *h = perf_ring_next(pc, pos, record, sizeof(record));

	ASSERT_TRUE(h);
	EXPECT_EQ(h->misc, PERF_RECORD_MISC_USER); /* a user fault; EXACT_IP never */
	parse(a, h, s);
}

/* PERF_SAMPLE_CPU names CPU 0: the whole program runs there. */
__attribute__((constructor)) static void on_cpu0(void)
{
	pin_cpu(0);
}

/* ---- the tests ---- */

TEST(fixed_fields_of_fault_samples)
{
	struct perf_event_attr attr = perf_fault_sampler(
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		PERF_SAMPLE_PERIOD);
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = 0, id = event_id(fd), last_time = 0;
	struct sample s;

	char *mem = sample_pages(fd, 3);
	EXPECT_EQ(pc->data_head, 3 * (8 + 9 * 8)); /* three records of nine words */
	for (int i = 0; i < 3; i++) {
		next_sample(pc, &pos, &attr, &s);
		EXPECT_EQ(s.identifier, id);
		EXPECT_TRUE(in_function(s.ip, (uintptr_t)touch, 32));
		EXPECT_EQ(s.pid, getpid());
		EXPECT_EQ(s.tid, syscall(SYS_gettid));
		EXPECT_GT(s.time, last_time);
		last_time = s.time;
		EXPECT_EQ(s.addr, (uintptr_t)mem + i * PERF_PAGE + OFFSET); /* the faulting byte */
		EXPECT_EQ(s.id, id);
		EXPECT_EQ(s.stream_id, id);
		EXPECT_EQ(s.cpu, 0);
		EXPECT_EQ(s.res, 0);
		EXPECT_EQ(s.period, 1);
	}
	EXPECT_EQ(pos, pc->data_head);
	perf_ring_unmap(pc);
	close(fd);
}

/* The sampled event's count includes its own fault: Linux adds before it checks the period. */
TEST(read_of_one_event)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_READ);
	attr.read_format = PERF_FORMAT_TIMES | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = 0, id = event_id(fd);
	struct sample s;

	sample_pages(fd, 3);
	for (int i = 0; i < 3; i++) {
		next_sample(pc, &pos, &attr, &s);
		EXPECT_EQ(s.read[0], i + 1); /* value */
		EXPECT_GT(s.read[1], 0);     /* time_enabled */
		EXPECT_EQ(s.read[2], s.read[1]); /* running all along */
		EXPECT_EQ(s.read[3], id);
		EXPECT_EQ(s.read[4], 0); /* lost */
	}
	perf_ring_unmap(pc);
	close(fd);
}

/*
 * PERF_FORMAT_GROUP: the whole group as read() gives it. The sibling counts minor faults,
 * which are counted once the fault is resolved: one behind the leader at each sample.
 */
TEST(read_of_the_group)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_READ);
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	int leader = open_event(&attr, -1);
	struct perf_event_attr min = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	min.exclude_kernel = 1;
	min.read_format = attr.read_format;
	int sibling = open_event(&min, leader);
	struct perf_event_mmap_page *pc = perf_ring_map(leader, 4);
	uint64_t pos = 0;
	struct sample s;

	sample_pages(leader, 3);
	for (int i = 0; i < 3; i++) {
		next_sample(pc, &pos, &attr, &s);
		EXPECT_EQ(s.read[0], 2); /* nr */
		EXPECT_GT(s.read[1], 0); /* time_enabled */
		EXPECT_EQ(s.read[2], i + 1);
		EXPECT_EQ(s.read[3], event_id(leader));
		EXPECT_EQ(s.read[4], i);
		EXPECT_EQ(s.read[5], event_id(sibling));
	}
	EXPECT_EQ(pos, pc->data_head);
	perf_ring_unmap(pc);
	close(sibling);
	close(leader);
}

/*
 * A fault taken in user mode has user frames only (exclude_kernel or not): the marker, the
 * faulting ip, then the return addresses the frame pointers lead to.
 */
TEST(callchain_of_a_user_fault)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
	struct sample s;

	for (int kernel_too = 0; kernel_too < 2; kernel_too++) {
		attr.exclude_kernel = !kernel_too;
		int fd = open_event(&attr, -1);
		struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
		uint64_t pos = 0;
		sample_pages(fd, 1);
		next_sample(pc, &pos, &attr, &s);
		ASSERT_GE(s.nr, 3);
		EXPECT_EQ(s.ips[0], PERF_CONTEXT_USER);
		EXPECT_EQ(s.ips[1], s.ip);
		EXPECT_TRUE(in_function(s.ips[2], (uintptr_t)touch_pages, 128));
		for (uint64_t i = 1; i < s.nr; i++)
			EXPECT_TRUE(s.ips[i] < (uint64_t)PERF_CONTEXT_MAX); /* no other marker */
		perf_ring_unmap(pc);
		close(fd);
	}
}

TEST(callchain_limits)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_CALLCHAIN);
	struct sample s;

	attr.sample_max_stack = 1; /* the marker is not counted */
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = 0;
	sample_pages(fd, 1);
	next_sample(pc, &pos, &attr, &s);
	EXPECT_EQ(s.nr, 2);
	EXPECT_EQ(s.ips[0], PERF_CONTEXT_USER);
	EXPECT_TRUE(in_function(s.ips[1], (uintptr_t)touch, 32));
	perf_ring_unmap(pc);
	close(fd);

	attr.sample_max_stack = 0;
	attr.exclude_callchain_user = 1; /* and a user fault has no kernel part */
	fd = open_event(&attr, -1);
	pc = perf_ring_map(fd, 4);
	pos = 0;
	sample_pages(fd, 1);
	next_sample(pc, &pos, &attr, &s);
	EXPECT_EQ(s.nr, 0);
	perf_ring_unmap(pc);
	close(fd);
}

/* The user registers at the faulting store; from user mode, REGS_INTR are the same. */
TEST(registers_at_the_fault)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
						 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR);
	attr.sample_regs_user = REGS_ALL;
	attr.sample_regs_intr = REGS_ALL;
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = 0;
	volatile char here;
	struct sample s;

	sample_pages(fd, 1);
	next_sample(pc, &pos, &attr, &s);
	EXPECT_EQ(s.abi_user, PERF_SAMPLE_REGS_ABI_64);
	const uint64_t *r = s.regs_user, m = REGS_ALL;
	EXPECT_EQ(reg(r, m, PERF_REG_X86_IP), s.ip);
	EXPECT_EQ(reg(r, m, PERF_REG_X86_DI), s.addr);
	EXPECT_EQ(reg(r, m, PERF_REG_X86_R12), R12_MARK);
	EXPECT_EQ(reg(r, m, PERF_REG_X86_CS), 0x33); /* __USER_CS */
	EXPECT_EQ(reg(r, m, PERF_REG_X86_SS), 0x2b); /* __USER_DS */
	EXPECT_NE(reg(r, m, PERF_REG_X86_FLAGS) & 0x200, 0); /* IF */
	uint64_t sp = reg(r, m, PERF_REG_X86_SP), bp = reg(r, m, PERF_REG_X86_BP);
	EXPECT_LT(sp, (uintptr_t)&here); /* deeper than this frame */
	EXPECT_GT(sp + 4096, (uintptr_t)&here);
	EXPECT_GE(bp, sp);
	EXPECT_LT(bp, (uintptr_t)&here);
	EXPECT_EQ(s.abi_intr, PERF_SAMPLE_REGS_ABI_64);
	EXPECT_EQ(memcmp(s.regs_intr, s.regs_user, 20 * sizeof(uint64_t)), 0);
	perf_ring_unmap(pc);
	close(fd);
}

/* The dump is the stack from rsp up: the frames of touch and touch_pages and what lies above. */
TEST(user_stack_dump)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_CALLCHAIN | STACK_ALL);
	attr.sample_regs_user = 1ULL << PERF_REG_X86_SP | 1ULL << PERF_REG_X86_BP;
	attr.sample_stack_user = 512;
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	volatile uint64_t canary[2] = { 0x1122334455667788ULL, 0x99aabbccddeeff00ULL };
	uint64_t pos = 0, frame[2];
	struct sample s;

	sample_pages(fd, 1);
	next_sample(pc, &pos, &attr, &s);
	uint64_t sp = s.regs_user[1], bp = s.regs_user[0]; /* BP (6) before SP (7) */
	EXPECT_EQ(s.stack_size, 512);
	EXPECT_EQ(s.dyn_size, 512);
	ASSERT_TRUE(s.stack);
	/* touch's frame: the saved rbp and its return into touch_pages, the callchain's third entry */
	ASSERT_LT(bp - sp, 512 - 16);
	memcpy(frame, s.stack + (bp - sp), sizeof(frame));
	EXPECT_EQ(frame[1], s.ips[2]);
	uint64_t at = (uintptr_t)canary - sp;
	ASSERT_LT(at, 512 - 16);
	EXPECT_EQ(memcmp(s.stack + at, (const void *)canary, sizeof(canary)), 0);
	perf_ring_unmap(pc);
	close(fd);
}

/*
 * rsp pointing at an unmapped page when the fault is sampled: the dump reads nothing (dyn_size
 * 0), and the sample is still whole; the frame-pointer walk does not need rsp.
 */
TEST(user_stack_pointer_unmapped)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | STACK_ALL);
	attr.sample_regs_user = 1ULL << PERF_REG_X86_SP;
	attr.sample_stack_user = 256;
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	char *gone = fresh_pages(1), *mem = fresh_pages(1);
	uint64_t pos = 0;
	struct sample s;

	ASSERT_EQ(munmap(gone, PERF_PAGE), 0);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_with_sp(mem, gone + 2048);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	next_sample(pc, &pos, &attr, &s);
	EXPECT_TRUE(in_function(s.ip, (uintptr_t)touch_with_sp, 64));
	EXPECT_EQ(s.regs_user[0], (uintptr_t)(gone + 2048));
	EXPECT_EQ(s.stack_size, 256);
	EXPECT_EQ(s.dyn_size, 0);
	ASSERT_GE(s.nr, 3);
	EXPECT_EQ(s.ips[1], s.ip);
	EXPECT_TRUE(in_function(s.ips[2], (uintptr_t)ktap_test_user_stack_pointer_unmapped, 2048));
	perf_ring_unmap(pc);
	close(fd);
}

/* The fields a software event has no source for, and what Linux writes for each. */
TEST(every_field_at_once)
{
	struct perf_event_attr attr = perf_fault_sampler((PERF_SAMPLE_MAX - 1) &
						 ~(PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT_STRUCT));
	attr.read_format = PERF_FORMAT_TIMES | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	attr.sample_regs_user = REGS_ALL;
	attr.sample_regs_intr = 1ULL << PERF_REG_X86_IP;
	attr.sample_stack_user = 64;
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = 0;
	struct sample s;

	char *mem = sample_pages(fd, 2);
	for (int i = 0; i < 2; i++) {
		next_sample(pc, &pos, &attr, &s);
		EXPECT_EQ(s.addr, (uintptr_t)mem + i * PERF_PAGE + OFFSET);
		EXPECT_EQ(s.raw_size, 4); /* no raw data outside tracepoints: { 4, 0 } */
		EXPECT_EQ(s.raw[1], 0);
		EXPECT_EQ(s.dyn_size, 64);
		EXPECT_EQ(s.weight, 0);
		EXPECT_EQ(s.data_src, PERF_MEM_NA);
		EXPECT_EQ(s.txn, 0);
		EXPECT_EQ(s.regs_intr[0], s.ip);
		EXPECT_EQ(s.phys_addr, 0);	 /* sampled before the page is there */
		EXPECT_EQ(s.cgroup, 1);		 /* the root cgroup's id */
		EXPECT_EQ(s.data_page_size, 0);	 /* not mapped yet either */
		EXPECT_EQ(s.code_page_size, 4096);
		EXPECT_EQ(s.aux_size, 0);
	}
	EXPECT_EQ(pos, pc->data_head);
	perf_ring_unmap(pc);
	close(fd);
}

/* WEIGHT_STRUCT takes WEIGHT's place; both at once is refused. */
TEST(weight_struct)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_ADDR);
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = 0;
	struct sample s;

	char *mem = sample_pages(fd, 1);
	next_sample(pc, &pos, &attr, &s);
	EXPECT_EQ(s.addr, (uintptr_t)mem + OFFSET);
	EXPECT_EQ(s.weight, 0);
	perf_ring_unmap(pc);
	close(fd);
	attr.sample_type |= PERF_SAMPLE_WEIGHT;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EINVAL);
}

/*
 * With use_clockid, TIME is that clock's: between two clock_gettime readings around it. Linux
 * reads the NMI-safe "fast" variants of the monotonic clocks, which trail clock_gettime's by
 * some microseconds under icount and up to some milliseconds without it (the -smp 2 oracle):
 * it gets 10 ms of slack; pmuos reads the very clock.
 */
TEST(time_from_clockid)
{
	static const clockid_t clocks[] = { CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME,
					    CLOCK_BOOTTIME };
	uint64_t slack = ktap_on_pmuos() ? 0 : 10000000;

	for (unsigned c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++) {
		struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_TIME);
		attr.use_clockid = 1;
		attr.clockid = clocks[c];
		int fd = open_event(&attr, -1);
		struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
		struct timespec t0, t1;
		uint64_t pos = 0;
		struct sample s;

		char *mem = fresh_pages(1);
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
		clock_gettime(clocks[c], &t0);
		touch(mem);
		clock_gettime(clocks[c], &t1);
		ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
		next_sample(pc, &pos, &attr, &s);
		EXPECT_GE(s.time + slack, t0.tv_sec * 1000000000ULL + t0.tv_nsec);
		EXPECT_LE(s.time, t1.tv_sec * 1000000000ULL + t1.tv_nsec);
		perf_ring_unmap(pc);
		close(fd);
	}
}

/*
 * What cannot be sampled is refused at open, with Linux's errnos: branch stacks (no LBR),
 * XMM registers (PEBS only), register bits that name nothing, a deeper callchain than
 * perf_event_max_stack, an AUX sample without an AUX event to take it from.
 */
TEST(unsupported_bits_refused)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_BRANCH_STACK);
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EOPNOTSUPP);

	attr = perf_fault_sampler(PERF_SAMPLE_REGS_USER);
	attr.sample_regs_user = 1ULL << PERF_REG_X86_XMM0;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EOPNOTSUPP);
	attr = perf_fault_sampler(PERF_SAMPLE_REGS_INTR);
	attr.sample_regs_intr = 1ULL << (PERF_REG_X86_XMM0 + 8);
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EOPNOTSUPP);
	attr.sample_regs_intr = 1ULL << PERF_REG_X86_64_MAX;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EINVAL);
	attr.sample_regs_intr = 1ULL << PERF_REG_X86_DS;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EINVAL);

	attr = perf_fault_sampler(PERF_SAMPLE_CALLCHAIN);
	attr.sample_max_stack = 128;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EOVERFLOW);
	attr.sample_type = PERF_SAMPLE_IP; /* the limit only matters with callchains */
	int fd = open_event(&attr, -1);
	close(fd);

	attr = perf_fault_sampler(PERF_SAMPLE_AUX);
	attr.aux_sample_size = 4096;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EINVAL);
}

/*
 * pmuos writes { size 0 } alone when sample_stack_user is 0. Linux 6.1 reserves that one word
 * but also writes a dyn_size after it, past the record's end, so the sample's last field is
 * overwritten by the next record (perf_output_sample_ustack).
 */
TEST(user_stack_of_size_zero)
{
	struct perf_event_attr attr = perf_fault_sampler(STACK_ALL | PERF_SAMPLE_CODE_PAGE_SIZE);
	attr.sample_regs_user = 1ULL << PERF_REG_X86_SP;
	attr.sample_stack_user = 0;
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = 0;
	struct sample s;

	if (!ktap_on_pmuos())
		SKIP("Linux 6.1 writes a dyn_size word past the record when the dump size is 0");
	sample_pages(fd, 2);
	for (int i = 0; i < 2; i++) {
		next_sample(pc, &pos, &attr, &s);
		EXPECT_EQ(s.stack_size, 0);
		EXPECT_EQ(s.code_page_size, 4096);
	}
	perf_ring_unmap(pc);
	close(fd);
}

/*
 * cpu-clock samples taken in the kernel, during syscalls: kernel frames behind their marker,
 * then the task's user frames from the registers it entered the kernel with, which are
 * REGS_USER too; REGS_INTR are the kernel's.
 */
TEST(kernel_samples_of_syscalls)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	attr.sample_period = 10000; /* ns */
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			   PERF_SAMPLE_REGS_INTR;
	attr.sample_regs_user = 1ULL << PERF_REG_X86_IP | 1ULL << PERF_REG_X86_CS;
	attr.sample_regs_intr = attr.sample_regs_user;
	attr.exclude_user = 1;
	attr.disabled = 1;
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 16);
	const struct perf_event_header *h;
	uint64_t pos = 0;
	int samples = 0;
	struct sample s;

	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	/* Rounds of syscalls until some are sampled: Linux at -smp 2 without icount, on a
	 * busy host, has sampled none of 3000. */
	for (int round = 0; round < 100 && !samples; round++) {
		for (int i = 0; i < 3000; i++)
			syscall(SYS_getppid);
		while ((h = perf_ring_find(pc, &pos, PERF_RECORD_SAMPLE, record, sizeof(record)))) {
			parse(&attr, h, &s);
			EXPECT_EQ(h->misc, PERF_RECORD_MISC_KERNEL); /* exclude_user */
			EXPECT_TRUE(s.ip >= 0xffff800000000000ULL);
			ASSERT_GE(s.nr, 4);
			EXPECT_EQ(s.ips[0], PERF_CONTEXT_KERNEL);
			EXPECT_EQ(s.ips[1], s.ip);
			uint64_t k = 2;
			while (k < s.nr && s.ips[k] != PERF_CONTEXT_USER)
				EXPECT_TRUE(s.ips[k++] >= 0xffff800000000000ULL);
			ASSERT_LT(k + 1, s.nr);
			EXPECT_EQ(s.abi_user, PERF_SAMPLE_REGS_ABI_64);
			EXPECT_EQ(s.ips[k + 1], s.regs_user[0]); /* the user ip, after the syscall */
			EXPECT_EQ(s.regs_user[1], 0x33);
			EXPECT_EQ(s.abi_intr, PERF_SAMPLE_REGS_ABI_64);
			EXPECT_EQ(s.regs_intr[0], s.ip);
			EXPECT_EQ(s.regs_intr[1], 0x10); /* __KERNEL_CS */
			samples++;
		}
		__atomic_store_n(&pc->data_tail, pos, __ATOMIC_RELEASE);
	}
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ktap_print("%d kernel samples", samples);
	EXPECT_GT(samples, 0);
	perf_ring_unmap(pc);
	close(fd);
}

/* RAW and AUX can be asked of any event: fixed stand-ins follow. */
TEST(raw_and_aux_without_a_source)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_IP | PERF_SAMPLE_RAW | PERF_SAMPLE_AUX);
	int fd = open_event(&attr, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = 0;
	struct sample s;

	sample_pages(fd, 1);
	next_sample(pc, &pos, &attr, &s);
	EXPECT_EQ(s.raw_size, 4);
	EXPECT_EQ(s.raw[1], 0);
	EXPECT_EQ(s.aux_size, 0);
	perf_ring_unmap(pc);
	close(fd);
}
