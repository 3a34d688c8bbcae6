/* user/tests/perf_records.c: side-band records (COMM, MMAP/MMAP2, SWITCH, EXIT) and their sample_id_all trailers. */
#include "cpu.h"
#include "file.h"
#include "ktap.h"
#include "perf.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The trailer the tests ask for: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, in this order. */
#define ID_ALL (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define ID_WORDS 6

static uint64_t record[4096 / 8];

struct comm_record {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[];
};

struct mmap_record {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	char filename[];
};

struct mmap2_record {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

/* A dummy event of this process (or CPU-wide) that asks for the side-band records in attr. */
static int open_tracker(struct perf_event_attr attr, pid_t pid, int cpu)
{
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_id_all = 1;
	attr.sample_type = ID_ALL;
	int fd = perf_open(&attr, pid, cpu, -1, 0);
	ASSERT_GE(fd, 0);
	return fd;
}

static uint64_t event_id(int fd)
{
	uint64_t id = 0;

	EXPECT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	return id;
}

static uint64_t my_tid(void)
{
	return (uint32_t)getpid() | (uint64_t)(uint32_t)syscall(SYS_gettid) << 32;
}

/* The records' CPU fields name CPU 0: the whole program runs there. */
__attribute__((constructor)) static void on_cpu0(void)
{
	pin_cpu(0);
}

/* The trailer of a record: this task's pid/tid, a time, the event's id everywhere, cpu 0. */
static void expect_trailer(const struct perf_event_header *h, uint64_t id)
{
	const uint64_t *t = (const uint64_t *)((const char *)h + h->size) - ID_WORDS;

	EXPECT_EQ(t[0], my_tid());
	EXPECT_NE(t[1], 0);
	EXPECT_EQ(t[2], id);
	EXPECT_EQ(t[3], id);
	EXPECT_EQ(t[4], 0);
	EXPECT_EQ(t[5], id);
}

static uint64_t trailer_time(const struct perf_event_header *h)
{
	return ((const uint64_t *)((const char *)h + h->size))[1 - ID_WORDS];
}

/* The next COMM record naming comm, or NULL. */
static const struct comm_record *find_comm(const struct perf_event_mmap_page *pc, uint64_t *pos,
					   const char *comm)
{
	const struct perf_event_header *h;

	while ((h = perf_ring_find(pc, pos, PERF_RECORD_COMM, record, sizeof(record))))
		if (!strcmp(((const struct comm_record *)h)->comm, comm))
			return (const struct comm_record *)h;
	return NULL;
}

/* The next MMAP or MMAP2 record of the mapping at addr, or NULL. */
static const struct mmap_record *find_mmap(const struct perf_event_mmap_page *pc, uint64_t *pos,
					   const void *addr)
{
	const struct perf_event_header *h;

	while ((h = perf_ring_next(pc, pos, record, sizeof(record)))) {
		if ((h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) &&
		    ((const struct mmap_record *)h)->addr == (uintptr_t)addr)
			return (const struct mmap_record *)h;
	}
	return NULL;
}

static char *map_anon(size_t pages, int prot, int flags)
{
	char *p = mmap(NULL, pages * PERF_PAGE, prot, flags | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(p, MAP_FAILED);
	return p;
}

/* ---- COMM ---- */

/* prctl(PR_SET_NAME) renames the task: a COMM record, not marked as an exec. */
TEST(comm_on_rename)
{
	int fd = open_tracker((struct perf_event_attr){ .comm = 1, .comm_exec = 1 }, 0, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	char old[16] = "";
	uint64_t pos = 0;

	ASSERT_EQ(prctl(PR_GET_NAME, old), 0);
	ASSERT_EQ(prctl(PR_SET_NAME, "renamed"), 0);
	const struct comm_record *r = find_comm(pc, &pos, "renamed");
	ASSERT_TRUE(r);
	EXPECT_EQ(r->header.misc, 0); /* no PERF_RECORD_MISC_COMM_EXEC */
	EXPECT_EQ(r->header.size, 8 + 8 + 8 + 8 * ID_WORDS); /* "renamed\0": one word */
	EXPECT_EQ(r->pid, getpid());
	EXPECT_EQ(r->tid, syscall(SYS_gettid));
	expect_trailer(&r->header, event_id(fd));
	/* A name of 15 characters: 16 bytes with its NUL, no more padding. */
	ASSERT_EQ(prctl(PR_SET_NAME, "fifteen-chars-x"), 0);
	ASSERT_TRUE((r = find_comm(pc, &pos, "fifteen-chars-x")));
	EXPECT_EQ(r->header.size, 8 + 8 + 16 + 8 * ID_WORDS);
	EXPECT_EQ(pos, pc->data_head);
	prctl(PR_SET_NAME, old);
	perf_ring_unmap(pc);
	close(fd);
}

static int rename_go[2];
static volatile int renamer_tid;

static void *rename_the_leader(void *arg)
{
	char c, path[32];

	(void)arg;
	renamer_tid = (int)syscall(SYS_gettid);
	if (read(rename_go[0], &c, 1) != 1)
		return (void *)1;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)getpid());
	return write_text(path, "by-a-thread") == 11 ? NULL : (void *)2;
}

/* Linux writes COMM to the renaming task's events (and the CPU's), whichever task it renames:
 * a thread writing /proc/PID/comm renames its leader, and the record (the leader's pid and tid,
 * the thread's trailer) goes to the thread's event, not to the leader's, which may be writing
 * its ring on another CPU meanwhile. Another process's comm is EINVAL. */
TEST(comm_of_the_leader_renamed_by_a_thread)
{
	char old[16] = "", now[16] = "", path[32];
	uint64_t pos = 0;
	pthread_t th;
	void *ret;

	ASSERT_EQ(prctl(PR_GET_NAME, old), 0);
	ASSERT_EQ(pipe(rename_go), 0);
	renamer_tid = 0;
	ASSERT_EQ(pthread_create(&th, NULL, rename_the_leader, NULL), 0);
	while (!renamer_tid)
		sched_yield();
	int leader = open_tracker((struct perf_event_attr){ .comm = 1 }, 0, -1);
	int thread = open_tracker((struct perf_event_attr){ .comm = 1 }, renamer_tid, -1);
	struct perf_event_mmap_page *pl = perf_ring_map(leader, 4), *pt = perf_ring_map(thread, 4);
	ASSERT_EQ(write(rename_go[1], "x", 1), 1);
	ASSERT_EQ(pthread_join(th, &ret), 0);
	EXPECT_EQ(ret, NULL);
	ASSERT_EQ(prctl(PR_GET_NAME, now), 0);
	EXPECT_STREQ(now, "by-a-thread");
	const struct comm_record *r = find_comm(pt, &pos, "by-a-thread");
	ASSERT_TRUE(r);
	EXPECT_EQ(r->pid, getpid());
	EXPECT_EQ(r->tid, getpid());
	EXPECT_EQ(record[4], (uint32_t)getpid() | (uint64_t)(uint32_t)renamer_tid << 32);
	EXPECT_EQ(record[6], event_id(thread));
	pos = 0;
	EXPECT_FALSE(find_comm(pl, &pos, "by-a-thread"));
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
	EXPECT_ERRNO(write_text(path, "not-mine"), EINVAL);
	prctl(PR_SET_NAME, old);
	perf_ring_unmap(pt);
	perf_ring_unmap(pl);
	close(thread);
	close(leader);
	close(rename_go[0]);
	close(rename_go[1]);
}

/* Without sample_id_all a record ends with its own fields. */
TEST(comm_without_trailer)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	attr.comm = 1;
	attr.sample_type = ID_ALL;
	int fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	char old[16] = "";
	uint64_t pos = 0;

	prctl(PR_GET_NAME, old);
	ASSERT_EQ(prctl(PR_SET_NAME, "bare"), 0);
	const struct comm_record *r = find_comm(pc, &pos, "bare");
	ASSERT_TRUE(r);
	EXPECT_EQ(r->header.size, 8 + 8 + 8);
	prctl(PR_SET_NAME, old);
	perf_ring_unmap(pc);
	close(fd);
}

/* A disabled event is written no side-band records. */
TEST(no_records_while_disabled)
{
	int fd = open_tracker((struct perf_event_attr){ .comm = 1, .mmap = 1, .mmap_data = 1,
							.disabled = 1 }, 0, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t head = pc->data_head;
	char old[16] = "";

	prctl(PR_GET_NAME, old);
	ASSERT_EQ(prctl(PR_SET_NAME, "unseen"), 0);
	char *p = map_anon(1, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	EXPECT_EQ(pc->data_head, head);
	munmap(p, PERF_PAGE);
	prctl(PR_SET_NAME, old);
	perf_ring_unmap(pc);
	close(fd);
}

/* ---- MMAP ---- */

static void expect_mmap(const struct mmap_record *r, const void *addr, size_t pages,
			uint64_t pgoff, bool exec, const char *name)
{
	ASSERT_TRUE(r);
	EXPECT_EQ(r->header.type, PERF_RECORD_MMAP);
	EXPECT_EQ(r->header.misc, PERF_RECORD_MISC_USER | (exec ? 0 : PERF_RECORD_MISC_MMAP_DATA));
	EXPECT_EQ(r->pid, getpid());
	EXPECT_EQ(r->tid, syscall(SYS_gettid));
	EXPECT_EQ(r->addr, (uintptr_t)addr);
	EXPECT_EQ(r->len, pages * PERF_PAGE);
	EXPECT_EQ(r->pgoff, pgoff);
	EXPECT_STREQ(r->filename, name);
	size_t used = sizeof(*r) + strlen(name) + 1;
	EXPECT_EQ(r->header.size, (used + 7) / 8 * 8 + 8 * ID_WORDS); /* NUL-padded to 8 */
}

/*
 * Each new mapping, as /proc/PID/maps would name it: the ring itself, private anonymous memory
 * (pgoff: its address), executable memory (no MMAP_DATA), shared anonymous memory (shmem's
 * "/dev/zero (deleted)"), and a protection change of one page.
 */
TEST(mmap_of_new_mappings)
{
	int fd = open_tracker((struct perf_event_attr){ .mmap = 1, .mmap_data = 1 }, 0, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	char *p = map_anon(3, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *x = map_anon(1, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	char *q = map_anon(2, PROT_READ | PROT_WRITE, MAP_SHARED);
	uint64_t pos = 0, id = event_id(fd);

	ASSERT_EQ(mprotect(p + PERF_PAGE, PERF_PAGE, PROT_READ), 0);
	const struct mmap_record *r = find_mmap(pc, &pos, pc);
	expect_mmap(r, pc, 5, 0, false, "anon_inode:[perf_event]");
	expect_trailer(&r->header, id);
	expect_mmap(find_mmap(pc, &pos, p), p, 3, (uintptr_t)p, false, "//anon");
	expect_mmap(find_mmap(pc, &pos, x), x, 1, (uintptr_t)x, true, "//anon");
	expect_mmap(find_mmap(pc, &pos, q), q, 2, 0, false, "/dev/zero (deleted)");
	r = find_mmap(pc, &pos, p + PERF_PAGE);
	expect_mmap(r, p + PERF_PAGE, 1, (uintptr_t)p + PERF_PAGE, false, "//anon");
	expect_trailer(&r->header, id);
	EXPECT_EQ(pos, pc->data_head);
	munmap(p, 3 * PERF_PAGE);
	munmap(x, PERF_PAGE);
	munmap(q, 2 * PERF_PAGE);
	perf_ring_unmap(pc);
	close(fd);
}

/* attr.mmap alone: executable mappings only. */
TEST(mmap_without_mmap_data)
{
	int fd = open_tracker((struct perf_event_attr){ .mmap = 1 }, 0, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = pc->data_head;
	char *p = map_anon(1, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *x = map_anon(1, PROT_READ | PROT_EXEC, MAP_PRIVATE);

	expect_mmap(find_mmap(pc, &pos, x), x, 1, (uintptr_t)x, true, "//anon");
	pos = 0;
	EXPECT_FALSE(find_mmap(pc, &pos, p));
	munmap(p, PERF_PAGE);
	munmap(x, PERF_PAGE);
	perf_ring_unmap(pc);
	close(fd);
}

/* MMAP2 adds device, inode, prot and flags (no device or inode for anonymous memory). */
TEST(mmap2_fields)
{
	int fd = open_tracker((struct perf_event_attr){ .mmap2 = 1, .mmap_data = 1 }, 0, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	char *p = map_anon(2, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *x = map_anon(1, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	char *q = map_anon(1, PROT_READ, MAP_SHARED);
	uint64_t pos = 0;

	const struct mmap2_record *r = (const void *)find_mmap(pc, &pos, p);
	ASSERT_TRUE(r);
	EXPECT_EQ(r->header.type, PERF_RECORD_MMAP2);
	EXPECT_EQ(r->header.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	EXPECT_EQ(r->len, 2 * PERF_PAGE);
	EXPECT_EQ(r->pgoff, (uintptr_t)p);
	EXPECT_EQ(r->maj, 0);
	EXPECT_EQ(r->min, 0);
	EXPECT_EQ(r->ino, 0);
	EXPECT_EQ(r->ino_generation, 0);
	EXPECT_EQ(r->prot, PROT_READ | PROT_WRITE);
	EXPECT_EQ(r->flags, MAP_PRIVATE);
	EXPECT_STREQ(r->filename, "//anon");
	EXPECT_EQ(r->header.size, sizeof(*r) + 8 + 8 * ID_WORDS);
	expect_trailer(&r->header, event_id(fd));
	ASSERT_TRUE((r = (const void *)find_mmap(pc, &pos, x)));
	EXPECT_EQ(r->header.misc, PERF_RECORD_MISC_USER);
	EXPECT_EQ(r->prot, PROT_READ | PROT_EXEC);
	ASSERT_TRUE((r = (const void *)find_mmap(pc, &pos, q)));
	EXPECT_EQ(r->prot, PROT_READ);
	EXPECT_EQ(r->flags, MAP_SHARED);
	munmap(p, 2 * PERF_PAGE);
	munmap(x, PERF_PAGE);
	munmap(q, PERF_PAGE);
	perf_ring_unmap(pc);
	close(fd);
}

/* brk growing the heap: the heap's mapping, whole, named [heap]. */
TEST(mmap_of_the_heap)
{
	int fd = open_tracker((struct perf_event_attr){ .mmap = 1, .mmap_data = 1 }, 0, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uintptr_t brk0 = syscall(SYS_brk, 0), top = (brk0 + 3 * PERF_PAGE - 1) & ~(PERF_PAGE - 1);
	uint64_t pos = 0;
	const struct perf_event_header *h;

	ASSERT_EQ(syscall(SYS_brk, brk0 + 2 * PERF_PAGE), brk0 + 2 * PERF_PAGE);
	while ((h = perf_ring_find(pc, &pos, PERF_RECORD_MMAP, record, sizeof(record)))) {
		const struct mmap_record *r = (const void *)h;
		if (r->addr + r->len != top)
			continue;
		EXPECT_LE(r->addr, brk0);
		EXPECT_EQ(r->pgoff, r->addr);
		EXPECT_EQ(r->header.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
		EXPECT_STREQ(r->filename, "[heap]");
		break;
	}
	EXPECT_TRUE(h);
	syscall(SYS_brk, brk0);
	perf_ring_unmap(pc);
	close(fd);
}

/*
 * What was mapped before an event existed is not written into its ring: a tool reads it from
 * /proc/PID/maps (perf record synthesizes MMAP records from there), where the program's text
 * is under its path and the stack is [stack].
 */
static int global_data = 1;

TEST(existing_mappings_come_from_proc)
{
	int fd = open_tracker((struct perf_event_attr){ .comm = 1, .mmap = 1, .mmap_data = 1,
							.disabled = 1 }, 0, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	char line[512], exe[80];
	int local = 0, found = 0;

	ASSERT_TRUE(pc);
	EXPECT_EQ(pc->data_head, 0);
	FILE *maps = fopen("/proc/self/maps", "r");
	ASSERT_TRUE(maps);
	snprintf(exe, sizeof(exe), "/bin/%s", ktap_argv[0]);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi;
		char perms[8], path[256] = "";
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &lo, &hi, perms, path) < 3)
			continue;
		if ((uintptr_t)ktap_test_existing_mappings_come_from_proc - lo < hi - lo) {
			EXPECT_STREQ(path, exe);
			EXPECT_EQ(perms[2], 'x');
			found |= 1;
		}
		if ((uintptr_t)&global_data - lo < hi - lo) {
			EXPECT_STREQ(path, exe);
			found |= 2;
		}
		if ((uintptr_t)&local - lo < hi - lo) {
			EXPECT_STREQ(path, "[stack]");
			found |= 4;
		}
	}
	fclose(maps);
	EXPECT_EQ(found, 7);
	perf_ring_unmap(pc);
	close(fd);
}

/* ---- SWITCH ---- */

/* Long enough to sleep on a slow machine too: Linux does not switch when the time has
 * passed by the time the sleeper would block (without icount, under TCG). */
static void nap(void)
{
	struct timespec ts = { 0, 2000000 };

	ASSERT_EQ(nanosleep(&ts, NULL), 0);
}

/* A task event: PERF_RECORD_SWITCH out when the task sleeps, and in when it runs again. */
TEST(switch_around_a_sleep)
{
	int fd = open_tracker((struct perf_event_attr){ .context_switch = 1 }, 0, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	const struct perf_event_header *h;
	uint64_t pos = pc->data_head, out_time = 0;

	nap();
	while ((h = perf_ring_find(pc, &pos, PERF_RECORD_SWITCH, record, sizeof(record))))
		if (h->misc == PERF_RECORD_MISC_SWITCH_OUT)
			break;
	ASSERT_TRUE(h);
	EXPECT_EQ(h->size, 8 + 8 * ID_WORDS);
	expect_trailer(h, event_id(fd));
	out_time = trailer_time(h);
	ASSERT_TRUE((h = perf_ring_find(pc, &pos, PERF_RECORD_SWITCH, record, sizeof(record))));
	EXPECT_EQ(h->misc, 0);
	expect_trailer(h, event_id(fd));
	EXPECT_GT(trailer_time(h), out_time);
	perf_ring_unmap(pc);
	close(fd);
}

/* A CPU-wide event: SWITCH_CPU_WIDE, naming the task on the other side (idle after a sleep,
 * on pmuos). The event watches CPU 0, where this task runs. */
TEST(switch_cpu_wide)
{
	int fd = open_tracker((struct perf_event_attr){ .context_switch = 1 }, -1, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	const struct perf_event_header *h;
	uint64_t pos = pc->data_head;
	const uint32_t *next_prev;

	nap();
	/* Records of other tasks' switches come too on Linux: take this task's. */
	while ((h = perf_ring_find(pc, &pos, PERF_RECORD_SWITCH_CPU_WIDE, record, sizeof(record))))
		if (h->misc == PERF_RECORD_MISC_SWITCH_OUT && (uint32_t)record[2] == (uint32_t)getpid())
			break;
	ASSERT_TRUE(h);
	EXPECT_EQ(h->size, 16 + 8 * ID_WORDS);
	expect_trailer(h, event_id(fd));
	next_prev = (const uint32_t *)(h + 1);
	if (ktap_on_pmuos())
		EXPECT_EQ(next_prev[0], 0);
	while ((h = perf_ring_find(pc, &pos, PERF_RECORD_SWITCH_CPU_WIDE, record, sizeof(record))))
		if ((uint32_t)record[2] == (uint32_t)getpid())
			break;
	ASSERT_TRUE(h);
	EXPECT_EQ(h->misc, 0);
	perf_ring_unmap(pc);
	close(fd);
}

/* SWITCH_CPU_WIDE names the real task on the other side: this task blocks on a pipe its
 * child fills, so its switch out goes to the child (pid and tid), and its switch back in
 * comes from it. Which CPU Linux runs the child on is its scheduler's choice: pmuos only. */
TEST(switch_cpu_wide_names_the_other_task)
{
	if (!ktap_on_pmuos())
		SKIP("Linux may run the child on another CPU");
	int fd = open_tracker((struct perf_event_attr){ .context_switch = 1 }, -1, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 8);
	const struct perf_event_header *h;
	uint64_t pos = pc->data_head;
	int p[2], status;
	char c;

	ASSERT_EQ(pipe(p), 0);
	pid_t child = fork();
	if (child == 0)
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	ASSERT_EQ(read(p[0], &c, 1), 1);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	bool out_to_child = false, in_from_child = false;
	while ((h = perf_ring_find(pc, &pos, PERF_RECORD_SWITCH_CPU_WIDE, record, sizeof(record)))) {
		const uint32_t *np = (const uint32_t *)(h + 1);
		if ((uint32_t)record[2] != (uint32_t)getpid())
			continue;
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT)
			out_to_child |= np[0] == (uint32_t)child && np[1] == (uint32_t)child;
		else
			in_from_child |= np[0] == (uint32_t)child && np[1] == (uint32_t)child;
	}
	EXPECT_TRUE(out_to_child);
	EXPECT_TRUE(in_from_child);
	close(p[0]);
	close(p[1]);
	perf_ring_unmap(pc);
	close(fd);
}

/* ---- EXIT ---- */

/* EXIT goes to events that outlive the task: here one on a child. */
TEST(exit_of_a_child)
{
	int go[2];

	if (ktap_on_pmuos())
		SKIP("no fork or pipe: the self-test records_of_a_program_to_cpu_wide_events has EXIT");
	ASSERT_EQ(pipe(go), 0);
	pid_t child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		char c;
		read(go[0], &c, 1);
		_exit(0);
	}
	int fd = open_tracker((struct perf_event_attr){ .task = 1 }, child, -1);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	uint64_t pos = 0;
	int status;

	ASSERT_EQ(write(go[1], "x", 1), 1);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	const struct perf_event_header *h =
		perf_ring_find(pc, &pos, PERF_RECORD_EXIT, record, sizeof(record));
	ASSERT_TRUE(h);
	const uint32_t *ids = (const uint32_t *)(h + 1);
	EXPECT_EQ(h->size, 8 + 16 + 8 + 8 * ID_WORDS);
	EXPECT_EQ(ids[0], child);    /* pid */
	EXPECT_EQ(ids[1], getpid()); /* ppid */
	EXPECT_EQ(ids[2], child);    /* tid */
	EXPECT_EQ(ids[3], getpid()); /* ptid */
	EXPECT_EQ((uint32_t)record[4], child); /* the trailer's: the exiting task's */
	perf_ring_unmap(pc);
	close(fd);
	close(go[0]);
	close(go[1]);
}
