/* user/tests/filemap.c: mmap of files: shared mappings are the file's pages, private ones a copy;
 * offsets, PROT_EXEC, msync, SIGBUS past the end, and the MMAP2 record that names the file. */
#include "ktap.h"
#include "perf.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096
#define DIR "/tmp/filemap-test"

/* A new file of n bytes, byte i = i * 7; its descriptor (O_RDWR). */
static int make_file(const char *name, size_t n)
{
	char path[128], buf[PAGE];

	mkdir(DIR, 0755);
	snprintf(path, sizeof(path), DIR "/%s", name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < sizeof(buf) ? n - done : sizeof(buf);
		for (size_t i = 0; i < k; i++)
			buf[i] = (char)((done + i) * 7);
		if (write(fd, buf, k) != (ssize_t)k)
			return -1;
		done += k;
	}
	return fd;
}

TEST(shared_mapping_is_the_file)
{
	int fd = make_file("shared", 3 * PAGE);
	char buf[16];

	ASSERT_GE(fd, 0);
	unsigned char *p = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(p[PAGE + 5], (unsigned char)((PAGE + 5) * 7));
	memcpy(p + 100, "through-map", 11);
	ASSERT_EQ(pread(fd, buf, 11, 100), 11);
	EXPECT_EQ(memcmp(buf, "through-map", 11), 0);
	ASSERT_EQ(pwrite(fd, "by-write", 8, 2 * PAGE + 1), 8);
	EXPECT_EQ(memcmp(p + 2 * PAGE + 1, "by-write", 8), 0);
	EXPECT_EQ(msync(p, 3 * PAGE, MS_SYNC), 0);
	EXPECT_ERRNO(msync(p + 1, PAGE, MS_SYNC), EINVAL);
	EXPECT_ERRNO(msync(p, PAGE, MS_SYNC | MS_ASYNC), EINVAL);
	ASSERT_EQ(munmap(p, 3 * PAGE), 0);
	close(fd);
}

TEST(private_mapping_is_a_copy)
{
	int fd = make_file("private", 2 * PAGE);
	char c;

	ASSERT_GE(fd, 0);
	unsigned char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(p[7], (unsigned char)(7 * 7));
	p[7] = 0xee;
	ASSERT_EQ(pread(fd, &c, 1, 7), 1);
	EXPECT_EQ((unsigned char)c, (unsigned char)(7 * 7));
	ASSERT_EQ(munmap(p, 2 * PAGE), 0);
	close(fd);
}

TEST(offsets_and_partial_pages)
{
	int fd = make_file("offsets", 2 * PAGE + 100);

	ASSERT_GE(fd, 0);
	unsigned char *p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, PAGE);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(p[0], (unsigned char)(PAGE * 7));
	EXPECT_EQ(p[PAGE + 99], (unsigned char)((PAGE + PAGE + 99) * 7));
	EXPECT_EQ(p[PAGE + 100], 0);	/* past the end, in the last page: zeros */
	EXPECT_EQ(p[PAGE + 200], 0);
	ASSERT_EQ(munmap(p, 2 * PAGE), 0);
	EXPECT_EQ(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 1), MAP_FAILED);
	close(fd);
}

static sigjmp_buf jump;
static volatile int bus_code;

static void on_bus(int sig __attribute__((unused)), siginfo_t *si, void *ctx __attribute__((unused)))
{
	bus_code = si->si_code;
	siglongjmp(jump, 1);
}

TEST(sigbus_past_the_end)
{
	struct sigaction sa = { .sa_sigaction = on_bus, .sa_flags = SA_SIGINFO }, old;
	int fd = make_file("bus", 100);
	volatile unsigned char *p;

	ASSERT_GE(fd, 0);
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE((void *)p, MAP_FAILED);
	ASSERT_EQ(sigaction(SIGBUS, &sa, &old), 0);
	bus_code = 0;
	if (!sigsetjmp(jump, 1))
		(void)p[PAGE];		/* the second page is wholly past the end */
	EXPECT_EQ(bus_code, BUS_ADRERR);
	sigaction(SIGBUS, &old, NULL);
	munmap((void *)p, 2 * PAGE);
	close(fd);
}

TEST(access_modes)
{
	int fd = make_file("modes", PAGE);
	char path[] = DIR "/modes";

	ASSERT_GE(fd, 0);
	close(fd);
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), MAP_FAILED);
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	EXPECT_NE(p, MAP_FAILED);
	munmap(p, PAGE);
	close(fd);
	fd = open(path, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0), MAP_FAILED);
	close(fd);
}

/* A file of code: "mov eax, 42; ret" run from a PROT_EXEC mapping. */
TEST(exec_mapping)
{
	static const unsigned char code[] = { 0xb8, 42, 0, 0, 0, 0xc3 };
	int fd = make_file("code", 0);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, code, sizeof(code)), (ssize_t)sizeof(code));
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(((int (*)(void))p)(), 42);
	munmap(p, PAGE);
	close(fd);
}

/* Unlinked while mapped: the mapping keeps the file. */
TEST(unlinked_while_mapped)
{
	int fd = make_file("gone", PAGE);

	ASSERT_GE(fd, 0);
	unsigned char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	close(fd);
	ASSERT_EQ(unlink(DIR "/gone"), 0);
	EXPECT_EQ(p[3], (unsigned char)(3 * 7));
	p[3] = 1;
	EXPECT_EQ(munmap(p, PAGE), 0);
}

struct mmap2_record {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

/* The record names the file by its path, and says where in it the mapping starts. */
TEST(mmap2_record_names_the_file)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_DUMMY, .sample_period = 1,
				     .mmap = 1, .mmap2 = 1, .mmap_data = 1, .exclude_kernel = 1 };
	static char record[8192];
	const struct perf_event_header *h;
	uint64_t pos = 0;
	struct stat st;
	int found = 0;

	int fd = make_file("named", 2 * PAGE);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	int ev = perf_open(&a, 0, -1, -1, 0);
	ASSERT_GE(ev, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(ev, 4);
	ASSERT_TRUE(pc);
	void *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, PAGE);
	ASSERT_NE(p, MAP_FAILED);
	while ((h = perf_ring_next(pc, &pos, record, sizeof(record)))) {
		const struct mmap2_record *r = (const void *)h;
		if (h->type != PERF_RECORD_MMAP2 || r->addr != (uintptr_t)p)
			continue;
		EXPECT_STREQ(r->filename, DIR "/named");
		EXPECT_EQ(r->pgoff, (uint64_t)PAGE);
		EXPECT_EQ(r->len, (uint64_t)PAGE);
		EXPECT_EQ(r->ino, (uint64_t)st.st_ino);
		EXPECT_EQ(r->flags, (uint32_t)MAP_SHARED);
		found++;
	}
	EXPECT_EQ(found, 1);
	munmap(p, PAGE);
	perf_ring_unmap(pc);
	close(ev);
	close(fd);
}
