/* user/tests/select.c: select and pselect6 over pipes and eventfds: the read, write and
 * exception sets, the count, timeouts with the time left written back, a zero timeout left
 * alone, EBADF, EINVAL, EFAULT, the signal mask of pselect6, and waking from another
 * process; ppoll's time left too. */
#include "ktap.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long ns_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000000l + t.tv_nsec - t0->tv_nsec;
}

TEST(sets_and_count)
{
	int p[2];
	fd_set r, w, e;

	ASSERT_EQ(pipe(p), 0);
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_ZERO(&e);
	FD_SET(p[0], &r);
	FD_SET(p[1], &w);
	FD_SET(p[0], &e);
	struct timeval tv = { 0, 0 };
	EXPECT_EQ(select(p[1] + 1, &r, &w, &e, &tv), 1);
	EXPECT_FALSE(FD_ISSET(p[0], &r));
	EXPECT_TRUE(FD_ISSET(p[1], &w));
	EXPECT_FALSE(FD_ISSET(p[0], &e));
	EXPECT_EQ(write(p[1], "x", 1), 1);
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(p[0], &r);
	FD_SET(p[1], &w);
	FD_SET(p[0], &w);	/* a read end is never writable */
	EXPECT_EQ(select(p[1] + 1, &r, &w, NULL, &tv), 2);
	EXPECT_TRUE(FD_ISSET(p[0], &r));
	EXPECT_TRUE(FD_ISSET(p[1], &w));
	EXPECT_FALSE(FD_ISSET(p[0], &w));
	/* nfds bounds the sets: the read end above it is not looked at */
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	EXPECT_EQ(select(p[0], &r, NULL, NULL, &tv), 0);
	EXPECT_FALSE(FD_ISSET(p[0], &r));
	/* a hung-up read end is readable */
	close(p[1]);
	char c;
	EXPECT_EQ(read(p[0], &c, 1), 1);
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	EXPECT_EQ(select(p[0] + 1, &r, NULL, NULL, &tv), 1);
	close(p[0]);
}

TEST(errors)
{
	fd_set r;
	struct timeval tv = { 0, 0 };
	int fd = eventfd(0, 0);

	ASSERT_GE(fd, 0);
	FD_ZERO(&r);
	FD_SET(fd, &r);
	close(fd);
	EXPECT_ERRNO(select(fd + 1, &r, NULL, NULL, &tv), EBADF);
	EXPECT_ERRNO(syscall(SYS_select, -1, NULL, NULL, NULL, &tv), EINVAL);
	tv.tv_usec = -1;
	EXPECT_ERRNO(select(0, NULL, NULL, NULL, &tv), EINVAL);
	tv = (struct timeval){ -1, 0 };
	EXPECT_ERRNO(select(0, NULL, NULL, NULL, &tv), EINVAL);
	tv = (struct timeval){ 0, 0 };
	EXPECT_ERRNO(syscall(SYS_select, 1, (void *)8, NULL, NULL, &tv), EFAULT);
	EXPECT_ERRNO(syscall(SYS_select, 0, NULL, NULL, NULL, (void *)8), EFAULT);
	/* a huge nfds is cut to the table's size */
	EXPECT_EQ(syscall(SYS_select, 1 << 20, NULL, NULL, NULL, &tv), 0);
}

TEST(timeout_written_back)
{
	struct timeval tv = { 0, 30000 };
	struct timespec t0;
	int p[2];
	fd_set r;

	ASSERT_EQ(pipe(p), 0);
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(syscall(SYS_select, p[0] + 1, &r, NULL, NULL, &tv), 0);
	EXPECT_GE(ns_since(&t0), 30000000);
	EXPECT_EQ(tv.tv_sec, 0);
	EXPECT_EQ(tv.tv_usec, 0);
	EXPECT_FALSE(FD_ISSET(p[0], &r));
	/* ready at once: most of the time is left */
	EXPECT_EQ(write(p[1], "x", 1), 1);
	tv = (struct timeval){ 5, 0 };
	FD_SET(p[0], &r);
	EXPECT_EQ(syscall(SYS_select, p[0] + 1, &r, NULL, NULL, &tv), 1);
	EXPECT_EQ(tv.tv_sec, 4);
	EXPECT_GT(tv.tv_usec, 900000);
	/* microseconds past a second are carried, not refused */
	tv = (struct timeval){ 0, 1500000 };
	EXPECT_EQ(syscall(SYS_select, p[0] + 1, &r, NULL, NULL, &tv), 1);
	EXPECT_EQ(tv.tv_sec, 1);
	/* (musl's select hands the kernel a copy of tv: hence syscall) */
	/* pselect6 writes its timespec back too; ppoll as well */
	struct timespec ts = { 3, 0 };
	EXPECT_EQ(syscall(SYS_pselect6, p[0] + 1, &r, NULL, NULL, &ts, NULL), 1);
	EXPECT_EQ(ts.tv_sec, 2);
	ts = (struct timespec){ 3, 0 };
	struct pollfd pf = { .fd = p[0], .events = POLLIN };
	EXPECT_EQ(syscall(SYS_ppoll, &pf, 1, &ts, NULL, 8), 1);
	EXPECT_EQ(ts.tv_sec, 2);
	close(p[0]);
	close(p[1]);
}

TEST(wakes_on_another_process)
{
	int fd = eventfd(0, 0);
	fd_set r;

	ASSERT_GE(fd, 0);
	pid_t pid = fork();
	if (pid == 0) {
		uint64_t one = 1;
		usleep(20000);
		_exit(write(fd, &one, 8) == 8 ? 0 : 1);
	}
	FD_ZERO(&r);
	FD_SET(fd, &r);
	EXPECT_EQ(select(fd + 1, &r, NULL, NULL, NULL), 1);
	EXPECT_TRUE(FD_ISSET(fd, &r));
	int status;
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	close(fd);
}

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

TEST(pselect6_sigmask)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t block, none;
	struct timespec ts = { 0, 0 };

	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigemptyset(&none);
	ASSERT_EQ(sigprocmask(SIG_BLOCK, &block, NULL), 0);
	struct { const void *ss; size_t len; } arg = { &none, 4 };
	EXPECT_ERRNO(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, &arg), EINVAL);
	EXPECT_ERRNO(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, (void *)8), EFAULT);
	/* a pending signal the temporary mask lets through ends the wait */
	got = 0;
	kill(getpid(), SIGUSR1);
	EXPECT_EQ(got, 0);
	arg.len = 8;
	ts.tv_sec = 5;
	EXPECT_ERRNO(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, &arg), EINTR);
	ASSERT_EQ(sigprocmask(SIG_UNBLOCK, &block, NULL), 0);
	EXPECT_EQ(got, 1);
	signal(SIGUSR1, SIG_DFL);
}
