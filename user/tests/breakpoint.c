/* user/tests/breakpoint.c: the breakpoint PMU (PERF_TYPE_BREAKPOINT, DR0-DR3): Linux's attr
 * checks, four slots per task and CPU (ENOSPC at the fifth), exact counts of writes, reads
 * and executions of a known variable and function (kernel accesses too), samples with the
 * IP after the access (before the instruction, for X) and bp_addr as ADDR, and
 * PERF_EVENT_IOC_MODIFY_ATTRIBUTES. Linux under QEMU TCG has it too, with the same counts. */
#include "ktap.h"
#include "perf.h"

#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile uint64_t var[4] __attribute__((aligned(64)));
#define A ((uint64_t)&var[1])

__attribute__((noinline)) int func(int x)
{
	asm volatile("");
	return x * 3 + 1;
}
static int (*volatile func_ptr)(int) = func;	/* never inlined or folded */

static struct perf_event_attr bp_attr(unsigned type, uint64_t addr, unsigned len)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_BREAKPOINT, 0);

	attr.bp_type = type;
	attr.bp_addr = addr;
	attr.bp_len = len;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	return attr;
}

static int bp_open(unsigned type, uint64_t addr, unsigned len)
{
	struct perf_event_attr attr = bp_attr(type, addr, len);

	return perf_open(&attr, 0, -1, -1, 0);
}

static int open_errno(struct perf_event_attr attr)
{
	int fd = perf_open(&attr, 0, -1, -1, 0);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

TEST(sysfs_type_is_5)
{
	char buf[16] = "";
	int fd = open("/sys/bus/event_source/devices/breakpoint/type", O_RDONLY);

	ASSERT_GE(fd, 0);
	EXPECT_GT(read(fd, buf, sizeof(buf) - 1), 0);
	EXPECT_STREQ(buf, "5\n");
	close(fd);
}

/* W, RW and X; R alone does not exist on x86. Data lengths 1, 2, 4, 8, aligned; X is 8. */
TEST(attr_checks)
{
	static const int type_errno[8] = { EINVAL, EINVAL, 0, 0, 0, EINVAL, EINVAL, EINVAL };

	for (unsigned t = 0; t < 8; t++)
		EXPECT_EQ(open_errno(bp_attr(t, t == HW_BREAKPOINT_X ? (uint64_t)func : A, 8)),
			  type_errno[t]);
	for (unsigned len = 0; len <= 9; len++) {
		bool ok = len == 1 || len == 2 || len == 4 || len == 8;
		EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_W, A, len)), ok ? 0 : EINVAL);
		EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_X, (uint64_t)func, len)),
			  len == 8 ? 0 : EINVAL);
	}
	for (unsigned off = 1; off < 8; off++) {
		EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_W, A + off, 8)), EINVAL);
		EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_RW, A + off, 4)), off % 4 ? EINVAL : 0);
		EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_W, A + off, 2)), off % 2 ? EINVAL : 0);
		EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_W, A + off, 1)), 0);
	}
	EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_X, (uint64_t)func + 1, 8)), 0);
	EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_W, 0, 8)), 0);
	/* The last user page and beyond are the kernel's (Linux's TASK_SIZE_MAX). */
	EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_W, 0x7fffffffeff8ul, 8)), 0);
	EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_W, 0x7ffffffff000ul, 8)), EINVAL);
	EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_W, 0x800000000000ul, 8)), EINVAL);
	EXPECT_EQ(open_errno(bp_attr(HW_BREAKPOINT_W, 0xffffffff81000000ul, 8)), EINVAL);
}

/* Four slots: a task's breakpoints plus the CPU's, pinned or flexible, enabled or not. */
TEST(enospc_at_the_fifth)
{
	int fds[4];

	for (int i = 0; i < 4; i++) {
		struct perf_event_attr attr = bp_attr(HW_BREAKPOINT_W, A, 8);
		attr.pinned = i & 1;
		fds[i] = perf_open(&attr, 0, -1, -1, 0);
		ASSERT_GE(fds[i], 0);
	}
	EXPECT_ERRNO(bp_open(HW_BREAKPOINT_W, A, 8), ENOSPC);
	EXPECT_ERRNO(bp_open(HW_BREAKPOINT_X, (uint64_t)func, 8), ENOSPC);
	struct perf_event_attr cpu = bp_attr(HW_BREAKPOINT_W, A, 8);
	EXPECT_ERRNO(perf_open(&cpu, -1, 0, -1, 0), ENOSPC);
	close(fds[3]);
	int c = perf_open(&cpu, -1, 0, -1, 0);		/* CPU-wide: counts against every task */
	EXPECT_GE(c, 0);
	EXPECT_ERRNO(bp_open(HW_BREAKPOINT_W, A, 8), ENOSPC);
	close(c);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	EXPECT_GE(fds[0] = bp_open(HW_BREAKPOINT_W, A, 8), 0);
	close(fds[0]);
}

/* The accesses each count sees: 100 writes of var[1], 50 reads, 30 calls of func, one byte
 * written inside var[1] and one just past it, then the kernel writes 16 bytes at var[1]
 * (clock_gettime) and reads 8 there (rt_sigprocmask's set: all zero, blocks nothing). */
static uint64_t count_accesses(struct perf_event_attr attr)
{
	int fd = perf_open(&attr, 0, -1, -1, 0);
	uint64_t s = 0;

	if (fd < 0)
		return ~0ull;
	perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 100; i++)
		var[1] = i;
	for (int i = 0; i < 50; i++)
		s += var[1];
	for (int i = 0; i < 30; i++)
		s += func_ptr(i);
	*(volatile uint8_t *)(A + 7) = 1;
	*(volatile uint8_t *)(A + 8) = 1;
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, (void *)A);
	var[1] = var[2] = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, (void *)A, NULL, 8);
	perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t n = perf_value(fd);
	close(fd);
	return n + (s & 0);
}

TEST(exact_counts)
{
	struct perf_event_attr attr;

	/* writes: the 100, the byte inside, the two of "var[1] = var[2] = 0" */
	EXPECT_EQ(count_accesses(bp_attr(HW_BREAKPOINT_W, A, 8)), 102);
	/* x86's RW: the reads as well (the loop's 50 and var[1]'s in the last line) */
	EXPECT_EQ(count_accesses(bp_attr(HW_BREAKPOINT_RW, A, 8)), 152);
	EXPECT_EQ(count_accesses(bp_attr(HW_BREAKPOINT_X, (uint64_t)func, 8)), 30);
	/* var[1]'s first 4 bytes with the kernel's accesses: the 102 less the byte at +7, plus
	 * clock_gettime's write. Both kernels copy short user data 8 bytes a move: one hit. */
	attr = bp_attr(HW_BREAKPOINT_W, A, 4);
	attr.exclude_kernel = 0;
	EXPECT_EQ(count_accesses(attr), 102);
	/* the kernel's alone: its write and its read */
	attr = bp_attr(HW_BREAKPOINT_RW, A, 2);
	attr.exclude_kernel = 0;
	attr.exclude_user = 1;
	EXPECT_EQ(count_accesses(attr), 2);
	/* a byte just past var[1] */
	EXPECT_EQ(count_accesses(bp_attr(HW_BREAKPOINT_W, A + 8, 1)), 2);
}

extern const char store_done[];

static void store_42(void)
{
	asm volatile("movq $42, (%0)\n"
		     ".globl store_done\n"
		     "store_done:" : : "r"(A) : "memory");
}

static uint64_t words[4096];

/* The ring's samples of IP and ADDR into out (pairs); their number. */
static int ring_samples(struct perf_event_mmap_page *pc, uint64_t *out, int max)
{
	uint64_t pos = pc->data_tail;
	int n = 0;

	while (n < max && perf_ring_find(pc, &pos, PERF_RECORD_SAMPLE, words, sizeof(words))) {
		out[2 * n] = words[1];
		out[2 * n + 1] = words[2];
		n++;
	}
	return n;
}

/* A data breakpoint traps after the access: the sample's IP is the next instruction. */
TEST(samples_of_a_write_and_an_execution)
{
	struct perf_event_attr attr = bp_attr(HW_BREAKPOINT_W, A, 8);
	uint64_t s[8];

	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	attr.wakeup_events = 1;
	int fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 2);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	store_42();
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(ring_samples(pc, s, 4), 1);
	EXPECT_EQ(s[0], (uint64_t)store_done);
	EXPECT_EQ(s[1], A);
	perf_ring_unmap(pc);
	close(fd);

	/* An execute breakpoint faults before the instruction: IP is the function. */
	attr = bp_attr(HW_BREAKPOINT_X, (uint64_t)func, 8);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	attr.wakeup_events = 1;
	fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	pc = perf_ring_map(fd, 2);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	EXPECT_EQ(func_ptr(3), 10);
	EXPECT_EQ(func_ptr(4), 13);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(ring_samples(pc, s, 4), 2);
	EXPECT_EQ(s[0], (uint64_t)func);
	EXPECT_EQ(s[1], (uint64_t)func);
	EXPECT_EQ(s[2], (uint64_t)func);
	perf_ring_unmap(pc);
	close(fd);

	/* sample_period 3: a sample every third write, all counted. */
	attr = bp_attr(HW_BREAKPOINT_W, A, 8);
	attr.sample_period = 3;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	pc = perf_ring_map(fd, 2);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (int i = 0; i < 10; i++)
		var[1] = i;
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(perf_value(fd), 10);
	EXPECT_EQ(ring_samples(pc, s, 4), 3);
	perf_ring_unmap(pc);
	close(fd);
}

/* MODIFY_ATTRIBUTES: address, type and length in place; anything else in the attr differing
 * is EINVAL; attr.disabled says whether it runs afterwards. */
TEST(modify_attributes)
{
	struct perf_event_attr attr = bp_attr(HW_BREAKPOINT_W, A, 8);
	int fd = perf_open(&attr, 0, -1, -1, 0);
	unsigned long cmd = PERF_EVENT_IOC_MODIFY_ATTRIBUTES;

	ASSERT_GE(fd, 0);
	struct perf_event_attr m = attr;
	m.bp_addr = (uint64_t)&var[2];
	m.disabled = 0;
	ASSERT_EQ(perf_ioctl(fd, cmd, (unsigned long)&m), 0);	/* and enabled */
	var[2] = 1;
	var[2] = 2;
	var[1] = 3;
	EXPECT_EQ(perf_value(fd), 2);
	m.bp_type = HW_BREAKPOINT_RW;
	m.bp_addr = A;
	ASSERT_EQ(perf_ioctl(fd, cmd, (unsigned long)&m), 0);
	uint64_t x = var[1];
	var[1] = x;
	EXPECT_EQ(perf_value(fd), 4);
	m.sample_period = 5;
	EXPECT_ERRNO(perf_ioctl(fd, cmd, (unsigned long)&m), EINVAL);
	m.sample_period = 0;
	m.bp_type = HW_BREAKPOINT_R;
	EXPECT_ERRNO(perf_ioctl(fd, cmd, (unsigned long)&m), EINVAL);
	m.bp_type = HW_BREAKPOINT_W;
	m.bp_addr = A + 1;
	EXPECT_ERRNO(perf_ioctl(fd, cmd, (unsigned long)&m), EINVAL);
	m.bp_type = HW_BREAKPOINT_X;
	m.bp_addr = (uint64_t)func;
	ASSERT_EQ(perf_ioctl(fd, cmd, (unsigned long)&m), 0);
	func_ptr(1);
	EXPECT_EQ(perf_value(fd), 5);
	m.disabled = 1;
	ASSERT_EQ(perf_ioctl(fd, cmd, (unsigned long)&m), 0);	/* and disabled */
	func_ptr(1);
	EXPECT_EQ(perf_value(fd), 5);
	close(fd);
}
