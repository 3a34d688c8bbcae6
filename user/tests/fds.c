/* user/tests/fds.c: the console descriptors: fcntl, ioctl, poll/ppoll, writev, descriptor numbering. */
#include "ktap.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

TEST(console_fds_open)
{
	for (int fd = 0; fd < 3; fd++)
		ASSERT_NE(fcntl(fd, F_GETFD), -1);
	ASSERT_ERRNO(fcntl(3, F_GETFD), EBADF);
}

/* The console is writable on stdout and stderr whatever else its flags say. */
TEST(getfl_access_mode)
{
	for (int fd = 1; fd < 3; fd++) {
		int fl = fcntl(fd, F_GETFL);

		ASSERT_NE(fl, -1);
		ASSERT_NE(fl & O_ACCMODE, O_RDONLY);
	}
}

TEST(cloexec_flag)
{
	ASSERT_EQ(fcntl(1, F_GETFD), 0);
	ASSERT_EQ(fcntl(1, F_SETFD, FD_CLOEXEC), 0);
	ASSERT_EQ(fcntl(1, F_GETFD), FD_CLOEXEC);
	ASSERT_EQ(fcntl(1, F_SETFD, 0), 0);
	ASSERT_EQ(fcntl(1, F_GETFD), 0);
}

/* The flag lives in the open file, shared with the runner: put it back. */
TEST(nonblock_flag)
{
	int fl = fcntl(1, F_GETFL);

	ASSERT_NE(fl, -1);
	ASSERT_EQ(fcntl(1, F_SETFL, fl | O_NONBLOCK), 0);
	EXPECT_EQ(fcntl(1, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	ASSERT_EQ(fcntl(1, F_SETFL, fl & ~O_NONBLOCK), 0);
	ASSERT_EQ(fcntl(1, F_GETFL) & O_NONBLOCK, 0);
}

TEST(dupfd_lowest_free)
{
	int fd = fcntl(1, F_DUPFD, 0);

	ASSERT_EQ(fd, 3);
	ASSERT_EQ(fcntl(fd, F_GETFD), 0); /* the copy does not inherit close-on-exec */
	ASSERT_EQ(close(fd), 0);
	ASSERT_ERRNO(close(fd), EBADF);
}

TEST(dupfd_minimum_and_cloexec)
{
	static const char msg[] = "# written through a duplicate of fd 1\n";
	int fd = fcntl(1, F_DUPFD_CLOEXEC, 10);

	ASSERT_EQ(fd, 10);
	ASSERT_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	ASSERT_EQ(write(fd, msg, sizeof(msg) - 1), sizeof(msg) - 1);
	ASSERT_EQ(close(fd), 0);
	ASSERT_ERRNO(write(fd, msg, 1), EBADF);
	ASSERT_EQ(fcntl(1, F_GETFD), 0); /* closing the copy left fd 1 alone */
}

TEST(fcntl_bad_arguments)
{
	ASSERT_ERRNO(fcntl(1, F_DUPFD, -1), EINVAL);
	ASSERT_ERRNO(syscall(SYS_fcntl, 1, 9999, 0), EINVAL);
}

TEST(writev_gathers)
{
	struct iovec iov[] = {
		{ .iov_base = "# writev ", .iov_len = 9 },
		{ .iov_base = "", .iov_len = 0 },
		{ .iov_base = "gathers three buffers\n", .iov_len = 22 },
	};

	ASSERT_EQ(writev(1, iov, 3), 31);
}

/* musl's isatty() and stdio's line buffering both ask TIOCGWINSZ. */
TEST(console_is_a_tty)
{
	struct termios t;
	struct winsize ws;

	ASSERT_EQ(ioctl(1, TCGETS, &t), 0);
	ASSERT_EQ(ioctl(1, TIOCGWINSZ, &ws), 0);
	ASSERT_TRUE(isatty(1));
	ASSERT_ERRNO(ioctl(1, TCGETS, (void *)0xffffffff80000000UL), EFAULT);
	ASSERT_ERRNO(ioctl(1, TIOCGWINSZ, NULL), EFAULT);
}

/* PERF_EVENT_IOC_FLUSH of pmuos/perf_ext.h: a perf ioctl means nothing to a tty. */
TEST(unknown_ioctl_enotty)
{
	ASSERT_ERRNO(ioctl(1, _IO('$', 8)), ENOTTY);
}

TEST(poll_console_writable)
{
	struct pollfd p[] = {
		{ .fd = 1, .events = POLLOUT },
		{ .fd = -1, .events = POLLIN }, /* negative fds are skipped */
		{ .fd = 1000, .events = POLLOUT },
	};

	/* Until the console has room: Linux's tty buffer may hold this run's output while the
	 * UART sends it (at the host's pace, without icount). */
	ASSERT_EQ(poll(p, 1, 10000), 1);
	ASSERT_EQ(poll(p, 3, 0), 2);
	ASSERT_EQ(p[0].revents, POLLOUT);
	ASSERT_EQ(p[1].revents, 0);
	ASSERT_EQ(p[2].revents, POLLNVAL);
}

TEST(poll_timeout_without_fds)
{
	struct timespec zero = { 0, 0 };

	ASSERT_EQ(poll(NULL, 0, 1), 0);
	ASSERT_EQ(ppoll(NULL, 0, &zero, NULL), 0);
}

TEST(poll_bad_arguments)
{
	struct timespec bad = { .tv_sec = 0, .tv_nsec = 1000000000 };
	struct pollfd p = { .fd = 1, .events = POLLOUT };
	sigset_t none;

	sigemptyset(&none);

	ASSERT_ERRNO(poll(NULL, 1, 0), EFAULT);
	ASSERT_ERRNO(ppoll(&p, 1, &bad, NULL), EINVAL);
	ASSERT_ERRNO(syscall(SYS_ppoll, &p, 1, NULL, &none, 4), EINVAL); /* sigset size */
}
