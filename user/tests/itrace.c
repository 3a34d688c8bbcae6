/* user/tests/itrace.c: the itrace PMU (pmuos): the decoded trace of a known function is its exact instruction sequence, PERF_EVENT_IOC_FLUSH, the internal buffer, TRUNCATED and overwrite modes, block-aligned chunks, TF and signals. */
#include "ktap.h"
#include "perf.h"
#include "itrace_decode.h"
#include "pmuos.h"

#include <fcntl.h>
#include <pmuos/perf_ext.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/*
 * The traced function: straight-line asm with a loop (BACK packets), a jump over 300 bytes
 * (DELTA16) and a system call (the instruction after it comes back through the IRET path, not
 * a #DB). The assembler lists the address of each instruction in execution order in
 * traced_fn_expected. (No REP string instruction: it steps once per iteration, and QEMU once
 * more, so its count differs from silicon's.)
 */
void traced_fn(void);
extern const char traced_fn_end[];
extern const uint64_t traced_fn_expected[], traced_fn_expected_end[];
__attribute__((used)) static char rep_target[8];

asm(".text\n"
    ".globl traced_fn\n"
    ".type traced_fn, @function\n"
    "traced_fn:\n"
    "10:	push %rbx\n"
    "11:	mov $3, %ebx\n"
    "12:	add %ebx, %eax\n"
    "13:	dec %ebx\n"
    "14:	jnz 12b\n"
    "15:	jmp 16f\n"
    "	.skip 300, 0xcc\n"
    "16:	lea rep_target(%rip), %rdi\n"
    "17:	mov $3, %ecx\n"
    "18:	movb $1, (%rdi)\n"
    "19:	mov $39, %eax\n" /* getpid */
    "20:	syscall\n"
    "21:	pop %rbx\n"
    "22:	ret\n"
    ".globl traced_fn_end\n"
    "traced_fn_end:\n"
    ".size traced_fn, . - traced_fn\n"
    ".section .rodata\n"
    ".balign 8\n"
    ".globl traced_fn_expected\n"
    "traced_fn_expected:\n"
    "	.quad 10b, 11b, 12b, 13b, 14b, 12b, 13b, 14b, 12b, 13b, 14b, 15b\n"
    "	.quad 16b, 17b, 18b, 19b, 20b, 21b, 22b\n"
    ".globl traced_fn_expected_end\n"
    "traced_fn_expected_end:\n"
    ".text\n");

#define MAX_IPS 65536

struct trace {
	uint64_t ip[MAX_IPS];
	size_t n;
	bool overflow;
};
static struct trace trace;

static void collect(uint64_t ip, void *ctx)
{
	struct trace *t = ctx;

	if (t->n < MAX_IPS)
		t->ip[t->n++] = ip;
	else
		t->overflow = true;
}

static void trace_reset(void)
{
	trace.n = 0;
	trace.overflow = false;
}

/* The tracer, or SKIP where there is none (Linux). A test that failed left its tracer open:
 * it goes first (one itrace event at a time). */
static void open_tracer(struct itrace *t, uint64_t config, int data_pages, int aux_pages,
			bool overwrite)
{
	static struct itrace *last;

	if (itrace_pmu_type() < 0)
		SKIP("no itrace PMU: a pmuos one");
	if (last && last->fd >= 0)
		itrace_close(last);
	last = t;
	ASSERT_EQ(itrace_open(t, config, data_pages, aux_pages, overwrite), 0);
	trace_reset();
}

static void enable(struct itrace *t)
{
	ASSERT_EQ(perf_ioctl(t->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
}

static void disable(struct itrace *t)
{
	ASSERT_EQ(perf_ioctl(t->fd, PERF_EVENT_IOC_DISABLE, 0), 0);
}

static size_t expected_len(void)
{
	return traced_fn_expected_end - traced_fn_expected;
}

static bool in_fn(uint64_t ip)
{
	return ip >= (uintptr_t)traced_fn && ip < (uintptr_t)traced_fn_end;
}

/* The trace holds traced_fn's run exactly once, contiguous and complete. */
static void expect_function_run(const struct trace *t)
{
	size_t first = 0, count = 0;

	while (first < t->n && !in_fn(t->ip[first]))
		first++;
	ASSERT_LT(first, t->n);
	for (size_t i = 0; i < t->n; i++)
		count += in_fn(t->ip[i]);
	if (count != expected_len())
		for (size_t i = first; i < t->n && i < first + 30; i++)
			ktap_print("%zu: %#llx (+%lld)", i, (unsigned long long)t->ip[i],
				   (long long)(t->ip[i] - (uintptr_t)traced_fn));
	ASSERT_EQ(count, expected_len());
	ASSERT_LE(first + count, t->n);
	for (size_t i = 0; i < count; i++)
		if (t->ip[first + i] != traced_fn_expected[i]) {
			ktap_print("instruction %zu: %#llx, expected %#llx", i,
				   (unsigned long long)t->ip[first + i],
				   (unsigned long long)traced_fn_expected[i]);
			ASSERT_EQ(t->ip[first + i], traced_fn_expected[i]);
		}
	/* The instruction after ret is the one after the call. */
	ASSERT_LT(first + count, t->n);
	EXPECT_FALSE(in_fn(t->ip[first + count]));
}

/* Linux has no PERF_EVENT_IOC_FLUSH (seed 000): ENOTTY. pmuos: 0, with or without pmu->flush. */
TEST(flush_ioctl)
{
	int fd = perf_open_sw(PERF_COUNT_SW_DUMMY, 0, true, -1);

	if (!ktap_on_pmuos()) {
		EXPECT_ERRNO(perf_ioctl(fd, PERF_EVENT_IOC_FLUSH, 0), ENOTTY);
		close(fd);
		SKIP("Linux answers PERF_EVENT_IOC_FLUSH with ENOTTY; itrace is pmuos's");
	}
	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_FLUSH, 0), 0);
	close(fd);
}

TEST(pmu_in_sysfs)
{
	char buf[64];
	int type = itrace_pmu_type();

	if (type < 0)
		SKIP("no itrace PMU: a pmuos one");
	EXPECT_GE(type, PERF_TYPE_MAX);
	int fd = open("/sys/bus/event_source/devices/itrace/format/notimer", 0);
	ASSERT_GE(fd, 0);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	ASSERT_GT(n, 0);
	buf[n] = '\0';
	EXPECT_STREQ(buf, "config:16\n");
	close(fd);
}

/* A disabled tracer's attr; the test is skipped where there is no itrace PMU. */
static struct perf_event_attr tracer_attr(void)
{
	int type = itrace_pmu_type();

	if (type < 0)
		SKIP("no itrace PMU: a pmuos one");
	struct perf_event_attr attr = perf_attr(type, 0);
	attr.disabled = 1;
	return attr;
}

TEST(open_checks)
{
	struct perf_event_attr attr = tracer_attr();

	attr.config = 1ull << 40;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EINVAL);
	attr.config = 0;
	attr.exclude_user = 1;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EINVAL);
	attr.exclude_user = 0;
	attr.sample_period = 1000;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EOPNOTSUPP);
	attr.sample_period = 0;
	int fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EBUSY); /* one tracer at a time */
	close(fd);
	fd = perf_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);
}

static void trace_function(uint64_t config)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */

	open_tracer(&t, config, 4, 16, false);
	enable(&t);
	traced_fn();
	disable(&t);
	ASSERT_GT(itrace_read(&t, collect, &trace), 0);
	EXPECT_EQ(t.flags, 0);
	expect_function_run(&trace);
	itrace_close(&t);
}

TEST(known_function_exact_addresses)
{
	trace_function(0);
}

/* The C trap path (no fast #DB stub) records the same addresses. */
TEST(known_function_slow_path)
{
	trace_function(ITRACE_CONFIG_SLOWPATH);
}

/* PERF_RECORD_ITRACE_START (pid, tid) comes first, once. */
TEST(itrace_start_record)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */
	uint64_t pos = 0;
	struct {
		struct perf_event_header header;
		uint32_t pid, tid;
		uint64_t more[6]; /* room for the other records perf_ring_find passes */
	} r;

	open_tracer(&t, 0, 4, 16, false);
	enable(&t);
	disable(&t);
	enable(&t);
	traced_fn();
	disable(&t);
	ASSERT_TRUE(perf_ring_find(t.pc, &pos, PERF_RECORD_ITRACE_START, &r, sizeof(r)));
	EXPECT_EQ(r.header.size, 16);
	EXPECT_EQ(r.pid, getpid());
	EXPECT_EQ(r.tid, getpid());
	EXPECT_FALSE(perf_ring_find(t.pc, &pos, PERF_RECORD_ITRACE_START, &r, sizeof(r)));
	itrace_close(&t);
}

/* Nothing reaches the rings before the internal buffer fills or is flushed. */
TEST(flush_forwards_what_came_before)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */

	open_tracer(&t, ITRACE_CONFIG_NOTIMER, 4, 16, false);
	enable(&t);
	traced_fn();
	uint64_t head = t.pc->aux_head;
	ASSERT_EQ(perf_ioctl(t.fd, PERF_EVENT_IOC_FLUSH, 0), 0);
	uint64_t flushed = t.pc->aux_head;
	disable(&t);
	EXPECT_EQ(head, 0);
	EXPECT_GT(flushed, 0);
	ASSERT_GT(itrace_read(&t, collect, &trace), 0);
	EXPECT_EQ(t.records, 2); /* FLUSH's chunk, then DISABLE's */
	expect_function_run(&trace);
	itrace_close(&t);
}

/* A loop of 3 instructions: 56 per 64-byte block (FULL and 55 one-byte packets). */
static void loop_turns(long n)
{
	asm volatile("1: dec %0\n\t"
		     "nop\n\t"
		     "jnz 1b"
		     : "+r"(n));
}

#define PER_BLOCK 56
#define PER_BUFFER (PER_BLOCK * ITRACE_BUF_SIZE / ITRACE_BLOCK)

/* Without FLUSH or the timer, the reader sees whole internal buffers: what the PMU forwarded. */
TEST(internal_buffer_forwards_when_full)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */

	open_tracer(&t, ITRACE_CONFIG_NOTIMER, 4, 16, false);
	enable(&t);
	loop_turns(2 * PER_BUFFER / 3 + 100); /* 2 buffers and some */
	uint64_t head = t.pc->aux_head;
	long n = itrace_read(&t, collect, &trace);
	disable(&t);
	EXPECT_EQ(head, 2 * ITRACE_BUF_SIZE);
	EXPECT_EQ(t.records, 2);
	/* The loop's blocks hold PER_BLOCK each; the first few, of the code
	 * before the loop, fewer. */
	EXPECT_LE(n, 2 * PER_BUFFER);
	EXPECT_GT(n, 2 * PER_BUFFER - 100);
	itrace_close(&t);
}

/* The timer forwards what is buffered 1 ms (period) after its first packet. */
TEST(timer_forwards)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */

	open_tracer(&t, 100 /* us */, 4, 16, false);
	enable(&t);
	traced_fn();
	uint64_t t0 = perf_rdtsc();
	while (!t.pc->aux_head && perf_rdtsc() - t0 < 100000000)
		;
	uint64_t head = t.pc->aux_head;
	disable(&t);
	EXPECT_GT(head, 0);
	ASSERT_GT(itrace_read(&t, collect, &trace), 0);
	expect_function_run(&trace);
	itrace_close(&t);
}

/* Every chunk starts at a block boundary: the PMU skips to it (perf_aux_output_skip) and the
 * skipped bytes are PAD. */
TEST(chunks_start_block_aligned)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */
	uint64_t pos = 0, end = 0;
	struct {
		struct perf_event_header header;
		uint64_t offset, size, flags;
	} r;

	open_tracer(&t, ITRACE_CONFIG_NOTIMER, 4, 16, false);
	enable(&t);
	for (int i = 0; i < 5; i++) {
		loop_turns(i + 1);
		ASSERT_EQ(perf_ioctl(t.fd, PERF_EVENT_IOC_FLUSH, 0), 0);
	}
	disable(&t);
	int records = 0;
	while (perf_ring_find(t.pc, &pos, PERF_RECORD_AUX, &r, sizeof(r))) {
		EXPECT_EQ(r.offset % ITRACE_BLOCK, 0);
		EXPECT_GE(r.offset, end);
		EXPECT_LT(r.offset - end, ITRACE_BLOCK);
		for (uint64_t at = end; at < r.offset; at++)
			EXPECT_EQ(((uint8_t *)t.aux)[at], ITRACE_PAD);
		EXPECT_EQ(((uint8_t *)t.aux)[r.offset], ITRACE_FULL);
		end = r.offset + r.size;
		records++;
	}
	EXPECT_EQ(records, 6);
	EXPECT_EQ(t.pc->aux_head, end);
	itrace_close(&t);
}

/* A one-page read-write AUX area nobody drains: whole blocks up to the reader's aux_tail,
 * TRUNCATED, the event disabled (its last chunk as it stops, if it fits), and no byte past
 * CIRC_SPACE's written: the reader's unread data is safe. */
TEST(small_rw_area_truncates)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */
	uint64_t pos = 0;
	struct {
		struct perf_event_header header;
		uint64_t offset, size, flags;
	} r;

	open_tracer(&t, ITRACE_CONFIG_NOTIMER, 4, 1, false);
	memset(t.aux, 0xee, t.aux_size);
	enable(&t);
	loop_turns(PER_BUFFER / 3 + 10);
	uint64_t head = t.pc->aux_head;
	loop_turns(3 * PER_BUFFER); /* the event was disabled: nothing more */
	EXPECT_EQ(t.pc->aux_head, head);
	ASSERT_TRUE(perf_ring_find(t.pc, &pos, PERF_RECORD_AUX, &r, sizeof(r)));
	EXPECT_EQ(r.offset, 0);
	EXPECT_EQ(r.size, t.aux_size - ITRACE_BLOCK);
	EXPECT_EQ(r.flags, PERF_AUX_FLAG_TRUNCATED);
	EXPECT_GE(head, r.size);
	EXPECT_LT(head, t.aux_size);
	for (uint64_t at = head; at < t.aux_size; at++)
		EXPECT_EQ(((uint8_t *)t.aux)[at], 0xee);
	/* What is there decodes: the loop's addresses, at the end. */
	EXPECT_GT(itrace_decode(t.aux, t.aux_size, 0, r.size, collect, &trace),
		  (long)(r.size / ITRACE_BLOCK * PER_BLOCK) - 100);
	ASSERT_GT(trace.n, 300);
	for (size_t i = trace.n - 300; i < trace.n; i++)
		EXPECT_EQ(trace.ip[i], trace.ip[i - 3]);
	/* Enabled again with less room than a block: TRUNCATED, nothing written. */
	enable(&t);
	loop_turns(100);
	disable(&t);
	EXPECT_EQ(t.pc->aux_head, head);
	for (uint64_t at = head; at < t.aux_size; at++)
		EXPECT_EQ(((uint8_t *)t.aux)[at], 0xee);
	itrace_close(&t);
}

/* A read-only AUX area is overwrite (snapshot) mode: the newest trace survives. */
TEST(overwrite_keeps_newest)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */

	open_tracer(&t, 0, 4, 1, true);
	enable(&t);
	loop_turns(3 * PER_BUFFER);
	traced_fn();
	disable(&t);
	EXPECT_GT(t.pc->aux_head, 4 * t.aux_size);
	long n = itrace_snapshot(&t, collect, &trace);
	ASSERT_GT(n, 0);
	EXPECT_LE((uint64_t)n, t.aux_size);
	expect_function_run(&trace);
	/* Every record says OVERWRITE (older records' data is gone: no decoding them). */
	uint64_t pos = 0;
	struct {
		struct perf_event_header header;
		uint64_t offset, size, flags;
	} r;
	int records = 0;
	while (perf_ring_find(t.pc, &pos, PERF_RECORD_AUX, &r, sizeof(r))) {
		EXPECT_EQ(r.flags, PERF_AUX_FLAG_OVERWRITE);
		EXPECT_EQ(r.offset % ITRACE_BLOCK, 0);
		records++;
	}
	EXPECT_GT(records, 4);
	itrace_close(&t);
}

/* Tracing changes no user-mode instruction count: the fast path's instructions are kernel
 * ones, also for the simulated PMU. */
TEST(user_instruction_counts_unchanged)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */
	uint64_t plain, traced;

	if (itrace_pmu_type() < 0)
		SKIP("no itrace PMU: a pmuos one");
	int fd = perf_open_hw(PERF_COUNT_HW_INSTRUCTIONS, 0, true, -1);
	open_tracer(&t, 0, 4, 16, false);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	loop_turns(1000);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	plain = perf_value(fd);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	enable(&t);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	loop_turns(1000);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	disable(&t);
	traced = perf_value(fd);
	EXPECT_EQ(traced, plain);
	itrace_close(&t);
	close(fd);
}

/* ---- TF and signals ---- */

static volatile int traps;
static volatile unsigned long trap_flags;

static void on_sigtrap(int sig __attribute__((unused)), siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	traps++;
	trap_flags |= uc->uc_mcontext.gregs[REG_EFL];
	if (si->si_code != TRAP_TRACE)
		trap_flags |= 1ul << 63;
	uc->uc_mcontext.gregs[REG_EFL] &= ~0x100ul; /* one step is enough */
}

/* pushf; or TF; popf: the trap comes after the instruction that follows popf. */
static void set_tf(void)
{
	asm volatile("pushf\n\t"
		     "orq $0x100, (%%rsp)\n\t"
		     "popf\n\t"
		     "nop" ::: "memory", "cc");
}

static void expect_own_sigtrap(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigtrap, .sa_flags = SA_SIGINFO };

	ASSERT_EQ(sigaction(SIGTRAP, &sa, NULL), 0);
	traps = 0;
	trap_flags = 0;
	set_tf();
	EXPECT_EQ(traps, 1);
	EXPECT_EQ(trap_flags & 0x100, 0x100); /* the program's TF, in its sigcontext */
	EXPECT_EQ(trap_flags >> 63, 0);
	signal(SIGTRAP, SIG_DFL);
}

/* A program that single-steps itself gets its SIGTRAP (Linux too), also after a trace. */
TEST(own_tf_gives_sigtrap)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */

	expect_own_sigtrap();
	if (itrace_pmu_type() < 0)
		return;
	open_tracer(&t, 0, 4, 16, false);
	enable(&t);
	traced_fn();
	disable(&t);
	itrace_close(&t);
	expect_own_sigtrap();
}

static volatile unsigned long handler_flags;
static volatile int handled;

static void on_sigusr1(int sig __attribute__((unused)), siginfo_t *si __attribute__((unused)),
		       void *uc_)
{
	ucontext_t *uc = uc_;

	handler_flags = uc->uc_mcontext.gregs[REG_EFL];
	handled++;
}

/* A handler runs traced, its sigcontext shows no TF (PUSHF would: TF is set while traced), and
 * the trace goes on after sigreturn. */
TEST(signal_handler_traced_without_tf)
{
	static struct itrace t; /* static: open_tracer may close it after a failure */
	struct sigaction sa = { .sa_sigaction = on_sigusr1, .sa_flags = SA_SIGINFO };

	open_tracer(&t, 0, 4, 16, false);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	handled = 0;
	enable(&t);
	raise(SIGUSR1);
	traced_fn();
	disable(&t);
	EXPECT_EQ(handled, 1);
	EXPECT_EQ(handler_flags & 0x100, 0);
	ASSERT_GT(itrace_read(&t, collect, &trace), 0);
	size_t in_handler = 0;
	for (size_t i = 0; i < trace.n; i++)
		in_handler += trace.ip[i] == (uintptr_t)on_sigusr1;
	EXPECT_EQ(in_handler, 1);
	expect_function_run(&trace);
	signal(SIGUSR1, SIG_DFL);
	itrace_close(&t);
}

/* An AUX mapping of 2^31 pages costs the user nothing but an address range: the kernel must
 * refuse it before its page count reaches an int (ENOMEM, as Linux's kcalloc of the page
 * array fails), and a ring mapping is never split, so its AUX area is freed only with the
 * one mapping that holds it. */
TEST(huge_aux_area_is_enomem)
{
	struct perf_event_attr attr = tracer_attr();
	int fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = mmap(NULL, 2 * PERF_PAGE, PROT_READ | PROT_WRITE,
					       MAP_SHARED, fd, 0);
	ASSERT_NE(pc, MAP_FAILED);
	for (int shift = 43; shift <= 45; shift++) {
		pc->aux_offset = 2 * PERF_PAGE;
		pc->aux_size = 1ull << shift;
		EXPECT_ERRNO(mmap(NULL, 1ull << shift, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				  2 * PERF_PAGE), ENOMEM);
	}
	pc->aux_size = 2 * PERF_PAGE;
	char *a = mmap(NULL, 2 * PERF_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 2 * PERF_PAGE);
	ASSERT_NE(a, MAP_FAILED);
	EXPECT_ERRNO(munmap(a, PERF_PAGE), EINVAL);
	EXPECT_EQ(pmuos_accounting("perf_aux_areas") > 0, 1);
	EXPECT_EQ(munmap(a, 2 * PERF_PAGE), 0);
	EXPECT_EQ(munmap(pc, 2 * PERF_PAGE), 0);
	close(fd);
}
