/* user/tests/perf_aux.c: the AUX area of a perf mmap (seed 002): Linux's checks of the second mapping at aux_offset, EOPNOTSUPP for PMUs without AUX data, and (pmuos, with itrace) accounting, freeing, aux_watermark wake-ups, SET_OUTPUT. */
#include "ktap.h"
#include "perf.h"
#include "pmuos.h"
#include "itrace_decode.h"

#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#define DATA_PAGES 2

static int open_dummy(void)
{
	return perf_open_sw(PERF_COUNT_SW_DUMMY, 0, true, -1);
}

static struct perf_event_mmap_page *map_data(int fd)
{
	void *p = mmap(NULL, (1 + DATA_PAGES) * PERF_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	ASSERT_NE(p, MAP_FAILED);
	return p;
}

static void *map_aux(int fd, uint64_t offset, uint64_t size, int prot)
{
	return mmap(NULL, size, prot, MAP_SHARED, fd, offset);
}

#define AUX_OFF ((1 + DATA_PAGES) * PERF_PAGE)

/* Linux: the AUX mapping comes after the data mapping. */
TEST(aux_needs_data_mapping_first)
{
	int fd = open_dummy();

	EXPECT_ERRNO(map_aux(fd, AUX_OFF, PERF_PAGE, PROT_READ | PROT_WRITE), EINVAL);
	close(fd);
}

/* Linux 6.1's perf_mmap checks, in its order, on an event whose PMU writes no AUX data: each
 * wrong offset or size is EINVAL; a right one reaches rb_alloc_aux, which says EOPNOTSUPP. */
TEST(aux_offset_and_size_checks)
{
	int fd = open_dummy();
	struct perf_event_mmap_page *pc = map_data(fd);

	EXPECT_ERRNO(map_aux(fd, AUX_OFF, PERF_PAGE, PROT_READ), EINVAL); /* aux_offset 0 */
	pc->aux_offset = PERF_PAGE; /* inside the data */
	pc->aux_size = PERF_PAGE;
	EXPECT_ERRNO(map_aux(fd, PERF_PAGE, PERF_PAGE, PROT_READ), EINVAL);
	pc->aux_offset = AUX_OFF;
	EXPECT_ERRNO(map_aux(fd, AUX_OFF + PERF_PAGE, PERF_PAGE, PROT_READ), EINVAL);
	EXPECT_ERRNO(map_aux(fd, AUX_OFF, 2 * PERF_PAGE, PROT_READ), EINVAL); /* not aux_size */
	pc->aux_size = 3 * PERF_PAGE;
	EXPECT_ERRNO(map_aux(fd, AUX_OFF, 3 * PERF_PAGE, PROT_READ), EINVAL); /* 3 pages */
	pc->aux_size = 2 * PERF_PAGE;
	EXPECT_ERRNO(mmap(NULL, 2 * PERF_PAGE, PROT_READ, MAP_PRIVATE, fd, AUX_OFF), EINVAL);
	EXPECT_ERRNO(map_aux(fd, AUX_OFF, 2 * PERF_PAGE, PROT_READ), EOPNOTSUPP);
	EXPECT_ERRNO(map_aux(fd, AUX_OFF, 2 * PERF_PAGE, PROT_READ | PROT_WRITE), EOPNOTSUPP);
	EXPECT_EQ(munmap(pc, (1 + DATA_PAGES) * PERF_PAGE), 0);
	close(fd);
}

/* The itrace event's fd, disabled; SKIP without one. */
static int open_itrace(struct perf_event_attr *attr)
{
	int type = itrace_pmu_type();

	if (type < 0)
		SKIP("no PMU with an AUX area under QEMU TCG on Linux; pmuos's itrace has one");
	*attr = perf_attr(type, ITRACE_CONFIG_NOTIMER);
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	int fd = perf_open(attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	return fd;
}

/* pmuos's perf_aux_areas, exact: each mapping shares the one area, which goes with the last. */
TEST(aux_area_accounted_and_freed)
{
	struct perf_event_attr attr;
	long frames0 = pmuos_accounting("frames_free");
	int fd = open_itrace(&attr);
	long areas = pmuos_accounting("perf_aux_areas"), rings = pmuos_accounting("perf_rings");
	long frames = pmuos_accounting("frames_free");
	struct perf_event_mmap_page *pc = map_data(fd);

	pc->aux_offset = AUX_OFF;
	pc->aux_size = 4 * PERF_PAGE;
	void *a = map_aux(fd, AUX_OFF, 4 * PERF_PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(a, MAP_FAILED);
	EXPECT_EQ(pmuos_accounting("perf_aux_areas"), areas + 1);
	void *b = map_aux(fd, AUX_OFF, 4 * PERF_PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(b, MAP_FAILED);
	EXPECT_EQ(pmuos_accounting("perf_aux_areas"), areas + 1);
	((volatile char *)a)[100] = 42; /* one area, two mappings */
	EXPECT_EQ(((volatile char *)b)[100], 42);
	pc->aux_size = 2 * PERF_PAGE;
	EXPECT_ERRNO(map_aux(fd, AUX_OFF, 2 * PERF_PAGE, PROT_READ), EINVAL); /* mapped: 4 pages */
	EXPECT_EQ(munmap(a, 4 * PERF_PAGE), 0);
	EXPECT_EQ(pmuos_accounting("perf_aux_areas"), areas + 1);
	/* The data mapping may go first: the AUX mapping keeps the buffer. */
	EXPECT_EQ(munmap(pc, (1 + DATA_PAGES) * PERF_PAGE), 0);
	EXPECT_EQ(pmuos_accounting("perf_rings"), rings + 1);
	EXPECT_EQ(munmap(b, 4 * PERF_PAGE), 0);
	EXPECT_EQ(pmuos_accounting("perf_aux_areas"), areas);
	EXPECT_EQ(pmuos_accounting("perf_rings"), rings);
	EXPECT_EQ(pmuos_accounting("frames_free"), frames); /* every page back */
	/* Mapped at close: the mappings hold the event until munmap. */
	pc = map_data(fd);
	pc->aux_offset = AUX_OFF;
	pc->aux_size = PERF_PAGE;
	a = map_aux(fd, AUX_OFF, PERF_PAGE, PROT_READ);
	ASSERT_NE(a, MAP_FAILED);
	close(fd);
	EXPECT_EQ(pmuos_accounting("perf_aux_areas"), areas + 1);
	EXPECT_EQ(munmap(a, PERF_PAGE), 0);
	EXPECT_EQ(munmap(pc, (1 + DATA_PAGES) * PERF_PAGE), 0);
	EXPECT_EQ(pmuos_accounting("perf_aux_areas"), areas);
	EXPECT_EQ(pmuos_accounting("perf_rings"), rings);
	EXPECT_EQ(pmuos_accounting("frames_free"), frames0); /* the event's too */
}

static void loop_turns(long n)
{
	asm volatile("1: dec %0\n\t"
		     "nop\n\t"
		     "jnz 1b"
		     : "+r"(n));
}

/* 3584 loop instructions fill itrace's 4 KiB buffer (56 a 64-byte block). */
#define BUFFER_TURNS (3584 / 3 + 30)

static int poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

/* aux_watermark wakes the reader: by default at half the area. */
TEST(aux_watermark_wakes_poll)
{
	struct perf_event_attr attr;
	int fd = open_itrace(&attr);
	struct perf_event_mmap_page *pc = map_data(fd);

	pc->aux_offset = AUX_OFF;
	pc->aux_size = 4 * PERF_PAGE;
	void *a = map_aux(fd, AUX_OFF, 4 * PERF_PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(a, MAP_FAILED);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	loop_turns(BUFFER_TURNS);
	EXPECT_EQ(pc->aux_head, PERF_PAGE);
	EXPECT_EQ(poll_now(fd), 0);
	loop_turns(BUFFER_TURNS);
	EXPECT_EQ(pc->aux_head, 2 * PERF_PAGE);
	EXPECT_EQ(poll_now(fd), POLLIN);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	munmap(a, 4 * PERF_PAGE);
	munmap(pc, (1 + DATA_PAGES) * PERF_PAGE);
	close(fd);
}

static void count_ip(uint64_t ip __attribute__((unused)), void *ctx)
{
	++*(long *)ctx;
}

/* An itrace event sends its output to a software event's buffer (SET_OUTPUT) and maps the AUX
 * area through its own fd: the records, with its id, land in that buffer. */
TEST(set_output_to_another_buffer)
{
	struct perf_event_attr attr;
	int fd = open_itrace(&attr);
	struct perf_event_attr dattr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	dattr.disabled = 1;
	dattr.sample_id_all = 1;
	dattr.sample_type = PERF_SAMPLE_IDENTIFIER;
	int out = perf_open(&dattr, 0, -1, -1, 0);
	ASSERT_GE(out, 0);
	close(fd); /* again, with the same trailer as the target */
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER;
	fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	uint64_t id;
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	struct perf_event_mmap_page *pc = map_data(out);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, out), 0);
	pc->aux_offset = AUX_OFF;
	pc->aux_size = 4 * PERF_PAGE;
	EXPECT_ERRNO(map_aux(out, AUX_OFF, 4 * PERF_PAGE, PROT_READ), EOPNOTSUPP);
	void *a = map_aux(fd, AUX_OFF, 4 * PERF_PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(a, MAP_FAILED);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	loop_turns(100);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	uint64_t pos = 0;
	struct {
		struct perf_event_header header;
		uint64_t offset, size, flags, id;
	} r;
	ASSERT_TRUE(perf_ring_find(pc, &pos, PERF_RECORD_AUX, &r, sizeof(r)));
	EXPECT_EQ(r.header.size, sizeof(r));
	EXPECT_EQ(r.id, id);
	EXPECT_EQ(r.offset, 0);
	EXPECT_EQ(pc->aux_head, r.size);
	long n = 0;
	EXPECT_GT(itrace_decode(a, 4 * PERF_PAGE, r.offset, r.size, count_ip, &n), 300);
	EXPECT_EQ(munmap(a, 4 * PERF_PAGE), 0);
	EXPECT_EQ(munmap(pc, (1 + DATA_PAGES) * PERF_PAGE), 0);
	close(fd);
	close(out);
}
