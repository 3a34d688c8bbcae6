/* user/tests/mm_smp.c: memory on several CPUs: page faults of anonymous memory leave pmuos's
 * kernel lock, threads fault one region at once, faults race munmap and madvise. */
#include "cpu.h"
#include "ktap.h"
#include "pmuos.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define MAX_THREADS 4

static char *map_pages(size_t n)
{
	char *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Between two reads of the file, a read's own acquisitions; with 64 first touches of
 * anonymous pages in between, the same: those faults take no kernel lock. */
TEST(anonymous_faults_take_no_kernel_lock)
{
	const char *why = pmuos_kernel_lock_uncounted();

	if (why)
		SKIP("%s", why);
	pin(0);
	char *p = map_pages(64);
	ASSERT_TRUE(p != NULL);

	long a = pmuos_kernel_lock_taken(0), b = pmuos_kernel_lock_taken(0);
	long c = pmuos_kernel_lock_taken(0);
	for (size_t i = 0; i < 64; i++)
		p[i * PAGE] = 1;
	long d = pmuos_kernel_lock_taken(0);
	ktap_print("a read of the file takes the lock %ld times; with 64 faults between: %ld",
		   b - a, d - c);
	EXPECT_GT(b - a, 0);
	EXPECT_EQ(d - c, b - a);
	munmap(p, 64 * PAGE);
	pin(-1);
}

struct toucher {
	pthread_t thread;
	int cpu, n;
	char *region;
	size_t pages;
	int bad;		/* pages that were not zero before the first write */
};

/* Pages i, i + n, i + 2n ... of one region: the threads' faults fill the same page tables. */
static void *touch_interleaved(void *arg)
{
	struct toucher *t = arg;

	pin_cpu(t->cpu);
	for (size_t pg = t->cpu; pg < t->pages; pg += t->n) {
		uint64_t *w = (uint64_t *)(t->region + pg * PAGE);
		t->bad += w[0] != 0 || w[PAGE / 8 - 1] != 0;
		w[0] = pg;
		w[PAGE / 8 - 1] = ~pg;
	}
	return NULL;
}

static int nr_threads(void)
{
	int n = online_cpus();

	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

TEST(threads_fault_one_region_on_every_cpu)
{
	const size_t pages = 1024;
	int n = nr_threads();
	char *region = map_pages(pages);
	struct toucher t[MAX_THREADS];

	ASSERT_TRUE(region != NULL);
	for (int i = 0; i < n; i++) {
		t[i] = (struct toucher){ .cpu = i, .n = n, .region = region, .pages = pages };
		ASSERT_EQ(pthread_create(&t[i].thread, NULL, touch_interleaved, &t[i]), 0);
	}
	int bad = 0, wrong = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i].thread, NULL);
		bad += t[i].bad;
	}
	for (size_t pg = 0; pg < pages; pg++) {
		uint64_t *w = (uint64_t *)(region + pg * PAGE);
		wrong += w[0] != pg || w[PAGE / 8 - 1] != ~pg || w[1] != 0;
	}
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(wrong, 0);
	munmap(region, pages * PAGE);
}

/* One thread faults a region in, checks and drops it again (MADV_DONTNEED) round after round,
 * while the other maps, touches and unmaps regions of the same address space: faults without
 * the kernel lock against the changes made under it. */
struct churn {
	char *region;
	size_t pages;
	int rounds, bad;
};

static void *fault_and_drop(void *arg)
{
	struct churn *c = arg;

	pin_cpu(1);
	for (int r = 0; r < c->rounds; r++) {
		for (size_t pg = 0; pg < c->pages; pg++) {
			volatile int *w = (volatile int *)(c->region + pg * PAGE);
			c->bad += *w != 0;
			*w = r + 1;
		}
		madvise(c->region, c->pages * PAGE, MADV_DONTNEED);
	}
	return NULL;
}

TEST(faults_race_munmap_and_madvise)
{
	if (online_cpus() < 2)
		SKIP("one CPU");
	long frames = pmuos_accounting("frames_free");
	struct churn c = { .region = map_pages(64), .pages = 64, .rounds = 40 };
	pthread_t thread;
	int bad = 0;

	ASSERT_TRUE(c.region != NULL);
	pin(0);
	ASSERT_EQ(pthread_create(&thread, NULL, fault_and_drop, &c), 0);
	for (int r = 0; r < 200; r++) {
		char *p = map_pages(8);
		ASSERT_TRUE(p != NULL);
		for (size_t pg = 0; pg < 8; pg++) {
			bad += p[pg * PAGE] != 0;
			p[pg * PAGE] = 1;
		}
		munmap(p, 8 * PAGE);
	}
	pthread_join(thread, NULL);
	munmap(c.region, c.pages * PAGE);
	pin(-1);
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(c.bad, 0);
	if (frames >= 0) {
		long now = pmuos_accounting("frames_free");	/* pmuos's: back to where it was */
		ktap_print("frames free before %ld, after %ld", frames, now);
		EXPECT_EQ(now, frames);
	}
}
