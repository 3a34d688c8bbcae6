/* user/tests/perf_inherit.c: perf_event's task semantics: inherit (a child's counts join its
 * parent's event, exactly under the simulated PMU; a sampler records the child's samples in the
 * parent's ring under the child's pid; inherit_stat's copies; inherit_thread), events on
 * another task with enable_on_exec, and the FORK, COMM (exec) and EXIT records of a child. */
#include "cpu.h"
#include "ktap.h"
#include "perf.h"
#include "pmuos.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static char record[4096];

/* fork a child that runs n turns of the loop and exits; the parent waits. */
static void child_loop(uint64_t n)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		perf_loop(n);
		_exit(0);
	}
	waitpid(pid, &status, 0);
}

/* What the event counted over one child_loop(n). */
static uint64_t counted(int fd, uint64_t n)
{
	uint64_t before, after;

	perf_read_words(fd, &before, 1);
	child_loop(n);
	perf_read_words(fd, &after, 1);
	return after - before;
}

TEST(inherited_counts_add_up_exactly)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

	a.exclude_kernel = a.exclude_hv = a.inherit = 1;
	int fd = perf_open(&a, 0, -1, -1, 0);
	if (fd < 0 && !ktap_on_pmuos())
		SKIP("no hardware events under TCG on Linux");
	ASSERT_GE(fd, 0);
	uint64_t c1 = counted(fd, 1000), c2 = counted(fd, 3000), c3 = counted(fd, 1000);
	/* The parent's own part and the child's fixed part cancel: the loop is what differs. */
	EXPECT_EQ(c2 - c1, 2000 * PERF_LOOP_INSNS);
	EXPECT_EQ(c3, c1);
	EXPECT_GT(c1, 1000 * PERF_LOOP_INSNS);
	close(fd);
}

/* An inherited copy's clocks run only while its task does: a child's enabled and running
 * times, added to the parent's, stay equal (a copy made while its child was not yet on the
 * CPU once had a head start in time_running). */
TEST(inherited_times_enabled_equal_running)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	uint64_t v[3];

	a.exclude_kernel = a.exclude_hv = a.inherit = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd = perf_open(&a, 0, -1, -1, 0);
	if (fd < 0 && !ktap_on_pmuos()) {
		a.type = PERF_TYPE_SOFTWARE;	/* the same rule for a software event */
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		fd = perf_open(&a, 0, -1, -1, 0);
	}
	ASSERT_GE(fd, 0);
	child_loop(100000);
	ASSERT_EQ(read(fd, v, sizeof(v)), (ssize_t)sizeof(v));
	EXPECT_EQ(v[1], v[2]);
	EXPECT_GT(v[1], 0);
	close(fd);
}

static void pipe_byte(int fd, bool out)
{
	char c = 0;

	ASSERT_EQ(out ? write(fd, &c, 1) : read(fd, &c, 1), 1);
}

/* The parent's ioctls reach a live child's copy and its read() adds the copy's count, as
 * Linux's perf_event_for_each_child and child list: page faults (software, on both kernels),
 * the child touching 32 fresh pages after the parent's ENABLE and 32 more after its DISABLE. */
TEST(ioctls_and_read_reach_a_live_copy)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	int go[2], done[2];
	uint64_t live, after;

	a.disabled = a.inherit = 1;
	int fd = perf_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	char *pages = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	ASSERT_NE(pages, MAP_FAILED);
	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(done), 0);
	pid_t pid = fork();
	if (pid == 0) {
		for (int round = 0; round < 2; round++) {
			pipe_byte(go[0], false);
			for (int i = 0; i < 32; i++)
				pages[(round * 32 + i) * 4096] = 1;
			pipe_byte(done[1], true);
		}
		_exit(0);
	}
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	pipe_byte(go[1], true);
	pipe_byte(done[0], false);
	perf_read_words(fd, &live, 1);		/* the child lives, blocked in read */
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	pipe_byte(go[1], true);
	pipe_byte(done[0], false);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	perf_read_words(fd, &after, 1);
	EXPECT_GE(live, 32);
	EXPECT_LE(live, 40);
	EXPECT_EQ(after, live);			/* the second 32 were not counted */
	munmap(pages, 64 * 4096);
	close(go[0]), close(go[1]), close(done[0]), close(done[1]), close(fd);
}

struct sample {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t id, stream_id;
};

/* A cpu-clock sampler with inherit: the child's samples land in the parent's ring. Linux maps
 * an inherited per-task event's ring only for one CPU (cpu -1 is EINVAL), as perf record does. */
TEST(inherited_sampler_records_the_child)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK, .sample_period = 100000,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ID |
						    PERF_SAMPLE_STREAM_ID,
				     .inherit = 1, .exclude_kernel = 1 };
	int status, child_samples = 0, mine = 0;
	uint64_t pos = 0, id = 0;

	pin(0);	/* the event counts on CPU 0: the child runs there too */
	int fd = perf_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(mmap(NULL, 17 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), MAP_FAILED);
	close(fd);
	fd = perf_open(&a, 0, 0, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 16);
	ASSERT_TRUE(pc);
	pid_t pid = fork();
	if (pid == 0) {
		perf_loop(5000000);	/* ~15 ms of work */
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	const struct sample *s;
	while ((s = (const void *)perf_ring_find(pc, &pos, PERF_RECORD_SAMPLE, record,
						    sizeof(record)))) {
		child_samples += s->pid == (uint32_t)pid && s->tid == (uint32_t)pid;
		mine += s->pid == (uint32_t)getpid();
		/* The copy's samples carry the original's id (primary_event_id); the
		 * stream id is whichever event took it (Linux swaps equal contexts at
		 * a switch, so the original may sample the child too). */
		EXPECT_EQ(s->id, id);
	}
	/* Some 150 (15 ms at 100 us); Linux without icount on a busy host has taken 10. */
	ktap_print("%d samples of the child", child_samples);
	EXPECT_GT(child_samples, 0);
	perf_ring_unmap(pc);
	close(fd);
	(void)mine;
	pin_cpu(-1);
}

struct task_record {
	struct perf_event_header header;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct comm_record {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[16];
};

/* A child that execs this program again: FORK, COMM with COMM_EXEC, EXIT, in order. */
TEST(fork_exec_exit_records)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_DUMMY, .task = 1, .comm = 1,
				     .comm_exec = 1, .inherit = 1, .sample_id_all = 1,
				     .sample_type = PERF_SAMPLE_TID };
	char self[256];
	int status, seen = 0;
	uint64_t pos = 0;

	pin(0);	/* the event counts on CPU 0: the child runs there too */
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_GT(n, 0);
	self[n] = '\0';
	int fd = perf_open(&a, 0, 0, -1, 0);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 8);
	ASSERT_TRUE(pc);
	pid_t pid = fork();
	if (pid == 0) {
		execl(self, "perf_inherit", "--exit", NULL);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	const struct perf_event_header *h;
	while ((h = perf_ring_next(pc, &pos, record, sizeof(record)))) {
		const struct task_record *t = (const void *)h;
		const struct comm_record *c = (const void *)h;
		if (h->type == PERF_RECORD_FORK && t->pid == (uint32_t)pid) {
			EXPECT_EQ(t->ppid, (uint32_t)getpid());
			EXPECT_EQ(t->tid, (uint32_t)pid);
			EXPECT_EQ(seen, 0);
			seen |= 1;
		} else if (h->type == PERF_RECORD_COMM && c->pid == (uint32_t)pid) {
			EXPECT_TRUE(h->misc & PERF_RECORD_MISC_COMM_EXEC);
			EXPECT_STREQ(c->comm, "perf_inherit");
			EXPECT_EQ(seen, 1);
			seen |= 2;
		} else if (h->type == PERF_RECORD_EXIT && t->pid == (uint32_t)pid) {
			EXPECT_EQ(t->ppid, (uint32_t)getpid());
			EXPECT_EQ(seen, 3);
			seen |= 4;
		}
	}
	EXPECT_EQ(seen, 7);
	perf_ring_unmap(pc);
	close(fd);
	pin_cpu(-1);
}

/* perf stat's way: an event opened on a child that waits, enabled by its exec. */
TEST(event_on_a_child_enabled_on_exec)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_PAGE_FAULTS, .disabled = 1,
				     .enable_on_exec = 1, .inherit = 1, .exclude_kernel = 1 };
	int go[2], status;
	char self[256];
	uint64_t before, after;

	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_GT(n, 0);
	self[n] = '\0';
	ASSERT_EQ(pipe(go), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execl(self, "perf_inherit", "--touch", NULL);
		_exit(127);
	}
	close(go[0]);
	int fd = perf_open(&a, pid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	perf_read_words(fd, &before, 1);
	EXPECT_EQ(before, 0);		/* off until the exec */
	ASSERT_EQ(write(go[1], "x", 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	perf_read_words(fd, &after, 1);
	EXPECT_GT(after, 16);		/* the new image touched 16 pages, and more */
	close(fd);
	close(go[1]);
	EXPECT_ERRNO(perf_open(&a, pid, -1, -1, 0), ESRCH);	/* reaped */
}

/* inherit_stat: the oracle (Linux 6.1) writes no PERF_RECORD_READ for a copy, neither at its
 * task's exit (the context is marked dead before its events are synced) nor when an exec
 * removes it (remove_on_exec); either way the copy's counts join the original's. */
TEST(inherit_stat_copies_sync_without_read_records)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_PAGE_FAULTS, .inherit = 1,
				     .inherit_stat = 1, .sample_id_all = 1,
				     .sample_type = PERF_SAMPLE_TID,
				     .read_format = PERF_FORMAT_TIMES | PERF_FORMAT_ID,
				     .exclude_kernel = 1 };
	char self[256];
	uint64_t v[4], before[4];
	int status;

	pin(0);	/* the event counts on CPU 0: the child runs there too */
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_GT(n, 0);
	self[n] = '\0';
	for (int exec = 0; exec < 2; exec++) {
		a.remove_on_exec = exec;
		int fd = perf_open(&a, 0, 0, -1, 0);
		ASSERT_GE(fd, 0);
		struct perf_event_mmap_page *pc = perf_ring_map(fd, 8);
		ASSERT_TRUE(pc);
		perf_read_words(fd, before, 4);
		pid_t pid = fork();
		if (pid == 0) {
			char *p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			for (int i = 0; i < 16; i++)
				p[i * 4096] = 1;
			if (exec)	/* the copy goes here */
				execl(self, "perf_inherit", "--touch", NULL);
			_exit(exec ? 127 : 0);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_EQ(status, 0);
		const struct perf_event_header *h;
		uint64_t pos = 0;
		int reads = 0;
		while ((h = perf_ring_next(pc, &pos, record, sizeof(record))))
			reads += h->type == PERF_RECORD_READ;
		EXPECT_EQ(reads, 0);
		perf_read_words(fd, v, 4);
		EXPECT_GE(v[0] - before[0], 16);	/* the child's pages (before its exec) */
		perf_ring_unmap(pc);
		close(fd);
	}
	pin_cpu(-1);
}

static void *touch_pages(void *arg)
{
	char *p = mmap(NULL, 256 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	for (int i = 0; i < 256; i++)
		p[i * 4096] = 1;
	munmap(p, 256 * 4096);
	return arg;
}

/* inherit_thread: the copies go to threads (CLONE_THREAD) only, not to forked children. */
TEST(inherit_thread_counts_threads_not_children)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_PAGE_FAULTS, .inherit = 1,
				     .inherit_thread = 1, .exclude_kernel = 1 };
	uint64_t v0, v1, v2;
	pthread_t t;
	int status;

	int fd = perf_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	perf_read_words(fd, &v0, 1);
	pid_t pid = fork();
	if (pid == 0) {
		touch_pages(NULL);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	perf_read_words(fd, &v1, 1);
	ASSERT_EQ(pthread_create(&t, NULL, touch_pages, NULL), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	perf_read_words(fd, &v2, 1);
	EXPECT_LT(v1 - v0, 128);		/* the parent's own faults, not the child's 256 */
	EXPECT_GE(v2 - v1, 256);		/* the thread's */
	close(fd);
	a.inherit = 0;
	EXPECT_ERRNO(perf_open(&a, 0, -1, -1, 0), EINVAL);	/* inherit_thread needs inherit */
}

/* A copy with remove_on_exec goes at the child's exec, its count joining the parent's event
 * (Linux's perf_event_exit_event): the fuzzer found pmuos keeping it for good, one event
 * leaked per exec. Page faults of 16 pages the child touches before its exec. */
TEST(remove_on_exec_copy_joins_at_exec)
{
	struct perf_event_attr a = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	long events = pmuos_accounting("perf_events");
	uint64_t value;
	int status;

	a.inherit = a.remove_on_exec = 1;
	int fd = perf_open(&a, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	char *pages = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	ASSERT_NE(pages, MAP_FAILED);
	uint64_t before = perf_value(fd);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 16; i++)
			pages[i * 4096] = 1;
		execl("/proc/self/exe", "perf_inherit", "--touch", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	perf_read_words(fd, &value, 1);
	/* the 16 and the fork's own; not the exec'd image's 16 more and its loading */
	EXPECT_GE(value - before, 16);
	EXPECT_LT(value - before, 32);
	if (events >= 0)
		EXPECT_EQ(pmuos_accounting("perf_events"), events + 1);
	munmap(pages, 16 * 4096);
	close(fd);
}

/* A task's own context-switches event counts its switches, as Linux counts them before the
 * task's events leave the CPU (pmuos counted them after: only CPU-wide events saw them).
 * 100 round trips of a byte to a child and back: the parent leaves the CPU at least once in
 * each. */
TEST(own_context_switches_counted)
{
	int there[2], back[2], status;
	char c = 0;

	/* On one CPU each round trip switches; on two, the reply may come before the reader
	 * sleeps. */
	pin(0);
	ASSERT_EQ(pipe(there), 0);
	ASSERT_EQ(pipe(back), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(there[1]);
		while (read(there[0], &c, 1) == 1 && write(back[1], &c, 1) == 1)
			;
		_exit(0);
	}
	int fd = perf_open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, false, -1);
	for (int i = 0; i < 100; i++) {
		ASSERT_EQ(write(there[1], &c, 1), 1);
		ASSERT_EQ(read(back[0], &c, 1), 1);
	}
	uint64_t n = perf_value(fd);
	close(there[1]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_GE(n, 100);
	EXPECT_LE(n, 300);
	close(fd), close(there[0]), close(back[0]), close(back[1]);
	pin_cpu(-1);
}

/* An event another process opened on a task outlives the task: it still reads what the task
 * counted after the task is reaped, and the task's context goes with the event's close (on
 * pmuos the context is the task's own memory, kept until then: the accounting's heap is back
 * at its baseline only after the close). */
TEST(event_on_a_task_outlives_it)
{
	long objects = pmuos_accounting("heap_objects"), tasks = pmuos_accounting("tasks");
	int go[2], status;
	uint64_t v;

	ASSERT_EQ(pipe(go), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(go[1]);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	}
	close(go[0]);
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK };
	int fd = perf_open(&a, pid, -1, -1, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(go[1], "x", 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	perf_read_words(fd, &v, 1);
	EXPECT_GT(v, 0);		/* the child ran, counted, and is gone */
	if (tasks >= 0) {
		EXPECT_EQ(pmuos_accounting("tasks"), tasks);
		EXPECT_GT(pmuos_accounting("heap_objects"), objects);	/* the child's memory */
	}
	close(fd);
	close(go[1]);
	if (tasks < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
	EXPECT_EQ(pmuos_accounting("heap_objects"), objects);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	if (argc > 1 && !strcmp(argv[1], "--touch")) {
		char *p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		for (int i = 0; i < 16; i++)
			p[i * 4096] = 1;
		return 0;
	}
	return ktap_main(argc, argv);
}
