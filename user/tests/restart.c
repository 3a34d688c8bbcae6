/* user/tests/restart.c: sleeps a signal interrupts, EINTR or restarted as Linux decides:
 * nanosleep and timed futex waits fail with EINTR under any handler (SA_RESTART or not) and
 * report the time left; untimed futex waits restart under SA_RESTART; an absolute
 * clock_nanosleep leaves rem alone; restart_syscall with nothing to restart is EINTR; a
 * stop and continue (no handler) does not cut a sleep short. */
#include "ktap.h"

#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC 1000000000l

static volatile int handled;
static volatile uint32_t word;

static void on_alarm(int sig)
{
	(void)sig;
	handled++;
	word = 1;		/* a restarted FUTEX_WAIT on 0 now finds 1: EAGAIN */
}

/* SIGALRM after ms milliseconds, into on_alarm with flags. */
static void alarm_in(long ms, int flags)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = flags };
	struct itimerval it = { .it_value = { ms / 1000, ms % 1000 * 1000 } };

	sigaction(SIGALRM, &sa, NULL);
	handled = 0;
	word = 0;
	setitimer(ITIMER_REAL, &it, NULL);
}

static long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ns_of(&ts);
}

TEST(restart_syscall_with_nothing_to_restart)
{
	EXPECT_ERRNO(syscall(SYS_restart_syscall), EINTR);
}

TEST(nanosleep_eintr_with_time_left_even_with_sa_restart)
{
	struct timespec req = { 2, 0 }, rem = { -1, -1 };

	alarm_in(50, SA_RESTART);
	EXPECT_ERRNO(syscall(SYS_nanosleep, &req, &rem), EINTR);
	EXPECT_EQ(handled, 1);
	EXPECT_GT(ns_of(&rem), NSEC_PER_SEC);		/* some 1.95 s */
	EXPECT_LT(ns_of(&rem), 2 * NSEC_PER_SEC);
	/* Returned to a handler: restart_syscall has nothing to go on with. */
	EXPECT_ERRNO(syscall(SYS_restart_syscall), EINTR);
	alarm_in(50, 0);
	EXPECT_ERRNO(syscall(SYS_nanosleep, &req, NULL), EINTR);
	EXPECT_EQ(handled, 1);
}

TEST(relative_clock_nanosleep_reports_time_left)
{
	struct timespec req = { 2, 0 }, rem = { -1, -1 };

	alarm_in(50, SA_RESTART);
	EXPECT_ERRNO(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, &rem), EINTR);
	EXPECT_GT(ns_of(&rem), NSEC_PER_SEC);
	EXPECT_LT(ns_of(&rem), 2 * NSEC_PER_SEC);
	alarm_in(50, SA_RESTART);
	EXPECT_ERRNO(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, (void *)8), EFAULT);
}

TEST(absolute_clock_nanosleep_leaves_rem_alone)
{
	struct timespec until, rem = { 7, 7 };
	long deadline = now_ns() + 2 * NSEC_PER_SEC;

	until.tv_sec = deadline / NSEC_PER_SEC, until.tv_nsec = deadline % NSEC_PER_SEC;
	alarm_in(50, SA_RESTART);
	EXPECT_ERRNO(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &until, &rem),
		     EINTR);
	EXPECT_EQ(handled, 1);
	EXPECT_EQ(rem.tv_sec, 7);
	EXPECT_EQ(rem.tv_nsec, 7);
	EXPECT_LT(now_ns(), deadline);
}

TEST(timed_futex_wait_eintr_even_with_sa_restart)
{
	struct timespec ts = { 2, 0 };

	alarm_in(50, SA_RESTART);
	EXPECT_ERRNO(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0), EINTR);
	EXPECT_EQ(handled, 1);
}

/* Restarted after the handler: the word it set makes the wait again fail with EAGAIN. */
TEST(untimed_futex_wait_restarts_under_sa_restart)
{
	alarm_in(50, SA_RESTART);
	EXPECT_ERRNO(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0), EAGAIN);
	EXPECT_EQ(handled, 1);
	alarm_in(50, 0);
	EXPECT_ERRNO(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0), EINTR);
	EXPECT_EQ(handled, 1);
}

/* No handler runs for a stop and a continue: Linux restarts the sleep through
 * restart_syscall to its first deadline (pmuos ignores stop signals: the same outcome). */
TEST(stop_and_continue_do_not_cut_a_sleep_short)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec req = { 0, 300 * 1000 * 1000 };
		long t0 = now_ns();
		if (syscall(SYS_nanosleep, &req, NULL))
			_exit(1);
		_exit(now_ns() - t0 >= ns_of(&req) ? 0 : 2);
	}
	ASSERT_GT(pid, 0);
	usleep(50 * 1000);
	EXPECT_EQ(kill(pid, SIGSTOP), 0);
	usleep(20 * 1000);
	EXPECT_EQ(kill(pid, SIGCONT), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
}
