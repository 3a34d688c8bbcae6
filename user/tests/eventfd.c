/* user/tests/eventfd.c: eventfd and eventfd2: the counter, EFD_SEMAPHORE, EFD_NONBLOCK,
 * EFD_CLOEXEC, 8-byte reads and writes, the overflow rule, poll, blocking between processes,
 * /proc's name, and the accounting back at its baseline. */
#include "ktap.h"
#include "pmuos.h"

#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long baseline;

static uint64_t rd(int fd)
{
	uint64_t v = 0;

	return read(fd, &v, 8) == 8 ? v : (uint64_t)-1;
}

static long wr(int fd, uint64_t v)
{
	return write(fd, &v, 8);
}

TEST(accounting_baseline)
{
	baseline = pmuos_accounting("eventfds");
	if (baseline < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
}

TEST(counter)
{
	int fd = eventfd(5, 0);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	EXPECT_EQ(fcntl(fd, F_GETFD), 0);
	EXPECT_EQ(rd(fd), 5);
	EXPECT_EQ(wr(fd, 3), 8);
	EXPECT_EQ(wr(fd, 4), 8);
	EXPECT_EQ(rd(fd), 7);
	char small[4];
	EXPECT_ERRNO(read(fd, small, 4), EINVAL);
	EXPECT_ERRNO(write(fd, small, 4), EINVAL);
	uint64_t big[2] = { 1, 0 };
	EXPECT_EQ(write(fd, big, 16), 8);	/* only 8 bytes count */
	EXPECT_EQ(read(fd, big, 16), 8);
	EXPECT_EQ(big[0], 1);
	EXPECT_ERRNO(write(fd, (void *)8, 8), EFAULT);
	close(fd);
}

TEST(flags)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	EXPECT_EQ(fcntl(fd, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	uint64_t v;
	EXPECT_ERRNO(read(fd, &v, 8), EAGAIN);
	close(fd);
	EXPECT_ERRNO(eventfd(0, O_APPEND), EINVAL);
	EXPECT_ERRNO(syscall(SYS_eventfd2, 0, 0x100000), EINVAL);
	fd = syscall(SYS_eventfd, 2);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(rd(fd), 2);
	close(fd);
}

TEST(semaphore)
{
	int fd = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
	uint64_t v;

	ASSERT_GE(fd, 0);
	EXPECT_EQ(rd(fd), 1);
	EXPECT_EQ(rd(fd), 1);
	EXPECT_EQ(rd(fd), 1);
	EXPECT_ERRNO(read(fd, &v, 8), EAGAIN);
	close(fd);
}

TEST(overflow_and_poll)
{
	int fd = eventfd(0, EFD_NONBLOCK);
	struct pollfd pf = { .fd = fd, .events = POLLIN | POLLOUT };

	ASSERT_GE(fd, 0);
	EXPECT_EQ(poll(&pf, 1, 0), 1);
	EXPECT_EQ(pf.revents, POLLOUT);
	EXPECT_ERRNO(wr(fd, UINT64_MAX), EINVAL);
	EXPECT_EQ(wr(fd, UINT64_MAX - 1), 8);	/* the largest count */
	EXPECT_EQ(poll(&pf, 1, 0), 1);
	EXPECT_EQ(pf.revents, POLLIN);
	EXPECT_ERRNO(wr(fd, 1), EAGAIN);
	EXPECT_EQ(wr(fd, 0), 8);		/* adding 0 always fits */
	EXPECT_EQ(rd(fd), UINT64_MAX - 1);
	EXPECT_EQ(wr(fd, 1), 8);
	close(fd);
}

TEST(blocking_between_processes)
{
	int fd = eventfd(0, 0);

	ASSERT_GE(fd, 0);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(20000);
		_exit(wr(fd, 42) == 8 ? 0 : 1);
	}
	EXPECT_EQ(rd(fd), 42);		/* blocks until the child writes */
	int status;
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	/* a write that would overflow blocks until a read */
	EXPECT_EQ(wr(fd, UINT64_MAX - 1), 8);
	pid = fork();
	if (pid == 0) {
		usleep(20000);
		_exit(rd(fd) == UINT64_MAX - 1 ? 0 : 1);
	}
	EXPECT_EQ(wr(fd, 7), 8);
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(rd(fd), 7);
	close(fd);
}

TEST(proc_link_and_stat)
{
	int fd = eventfd(0, 0);
	char path[64], link[64] = { 0 };
	struct stat st;

	ASSERT_GE(fd, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_GT(readlink(path, link, sizeof(link) - 1), 0);
	EXPECT_STREQ(link, "anon_inode:[eventfd]");
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_mode, 0600);
	close(fd);
}

TEST(accounting_back_to_baseline)
{
	if (baseline < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
	EXPECT_EQ(pmuos_accounting("eventfds"), baseline);
}
