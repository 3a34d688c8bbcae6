/* user/tests/pthreads.c: musl's threads: create and join, mutexes, condition variables,
 * barriers, thread-local storage, pthread_exit's value, detached threads, and the process's
 * CPU time, which keeps what its exited threads ran. */
#include "ktap.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#define THREADS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *add(void *arg)
{
	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&lock);
		total += (intptr_t)arg;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

TEST(create_join_and_mutex)
{
	pthread_t t[THREADS];
	void *ret;

	total = 0;
	for (intptr_t i = 0; i < THREADS; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, add, (void *)(i + 1)), 0);
	for (intptr_t i = 0; i < THREADS; i++) {
		ASSERT_EQ(pthread_join(t[i], &ret), 0);
		EXPECT_EQ((intptr_t)ret, i + 1);
	}
	EXPECT_EQ(total, 10000l * (1 + 2 + 3 + 4));
}

static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int stage;

static void *wait_for_stage(void *arg __attribute__((unused)))
{
	pthread_mutex_lock(&lock);
	while (stage != 1)
		pthread_cond_wait(&cond, &lock);
	stage = 2;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	return NULL;
}

TEST(condition_variables)
{
	pthread_t t;

	stage = 0;
	ASSERT_EQ(pthread_create(&t, NULL, wait_for_stage, NULL), 0);
	pthread_mutex_lock(&lock);
	stage = 1;
	pthread_cond_broadcast(&cond);
	while (stage != 2)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	EXPECT_EQ(pthread_join(t, NULL), 0);
}

static pthread_barrier_t barrier;
static int arrived;

static void *meet(void *arg __attribute__((unused)))
{
	__atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
	pthread_barrier_wait(&barrier);
	return (void *)(intptr_t)__atomic_load_n(&arrived, __ATOMIC_SEQ_CST);
}

TEST(barriers)
{
	pthread_t t[THREADS];
	void *ret;

	arrived = 0;
	ASSERT_EQ(pthread_barrier_init(&barrier, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, meet, NULL), 0);
	for (int i = 0; i < THREADS; i++) {
		ASSERT_EQ(pthread_join(t[i], &ret), 0);
		EXPECT_EQ((intptr_t)ret, THREADS);	/* nobody left before all arrived */
	}
	pthread_barrier_destroy(&barrier);
}

static __thread int tls_value = 7;

static void *tls_thread(void *arg __attribute__((unused)))
{
	tls_value += 1;
	return (void *)(intptr_t)(tls_value * 100);
}

TEST(thread_local_storage_and_ids)
{
	pthread_t t;
	void *ret;

	tls_value = 7;
	ASSERT_EQ(pthread_create(&t, NULL, tls_thread, NULL), 0);
	ASSERT_EQ(pthread_join(t, &ret), 0);
	EXPECT_EQ((intptr_t)ret, 800);		/* its own copy, from the initial 7 */
	EXPECT_EQ(tls_value, 7);
	EXPECT_EQ(getpid(), (pid_t)syscall(SYS_gettid));	/* the main thread's tid is the pid */
}

static void *exit_early(void *arg __attribute__((unused)))
{
	pthread_exit((void *)(intptr_t)99);
	return NULL;
}

TEST(pthread_exit_value)
{
	pthread_t t;
	void *ret;

	ASSERT_EQ(pthread_create(&t, NULL, exit_early, NULL), 0);
	ASSERT_EQ(pthread_join(t, &ret), 0);
	EXPECT_EQ((intptr_t)ret, 99);
}

static volatile int detached_ran;

static void *detached(void *arg __attribute__((unused)))
{
	detached_ran = 1;
	return NULL;
}

TEST(detached_threads)
{
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	ASSERT_EQ(pthread_create(&t, &a, detached, NULL), 0);
	while (!detached_ran)
		sched_yield();
	pthread_attr_destroy(&a);
}

static long long cpu_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* 20 ms of CPU time in the calling thread. */
static void *burn(void *arg)
{
	long long start = cpu_ns(CLOCK_THREAD_CPUTIME_ID);

	while (cpu_ns(CLOCK_THREAD_CPUTIME_ID) - start < 20000000)
		;
	return arg;
}

static volatile sig_atomic_t usr1_seen;
static volatile long thread_tid;
static volatile int thread_stop;

static void on_usr1(int sig)
{
	usr1_seen = sig;
}

static void *wait_for_stop(void *arg)
{
	thread_tid = syscall(SYS_gettid);
	while (!thread_stop)
		sched_yield();
	return arg;
}

/* kill() of a thread's id signals its whole process, as Linux's kill_pid_info does. */
TEST(kill_of_a_thread_id_signals_the_process)
{
	pthread_t t;

	signal(SIGUSR1, on_usr1);
	ASSERT_EQ(pthread_create(&t, NULL, wait_for_stop, NULL), 0);
	while (!thread_tid)
		sched_yield();
	EXPECT_NE(thread_tid, getpid());
	EXPECT_EQ(kill(thread_tid, SIGUSR1), 0);
	/* Either thread may take it, the other one on another CPU. */
	for (int i = 0; i < 1000000 && !usr1_seen; i++)
		sched_yield();
	EXPECT_EQ(usr1_seen, SIGUSR1);
	thread_stop = 1;
	ASSERT_EQ(pthread_join(t, NULL), 0);
	signal(SIGUSR1, SIG_DFL);
}

/* A joined thread's CPU time stays the process's: in its CPU clock and in getrusage. */
TEST(process_cpu_time_keeps_exited_threads)
{
	struct rusage ru;
	pthread_t t;
	long long before = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);

	ASSERT_EQ(pthread_create(&t, NULL, burn, NULL), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	EXPECT_GE(cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - before, 20000000);
	EXPECT_LT(cpu_ns(CLOCK_THREAD_CPUTIME_ID), cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - 20000000);
	ASSERT_EQ(getrusage(RUSAGE_SELF, &ru), 0);
	EXPECT_GE((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
		  ru.ru_utime.tv_usec + ru.ru_stime.tv_usec, 20000);
}
