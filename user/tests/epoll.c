/* user/tests/epoll.c: epoll_create, epoll_create1, epoll_ctl's errors (EEXIST, ENOENT, EBADF,
 * EPERM for regular files, EINVAL, ELOOP), level- and edge-triggered readiness, EPOLLONESHOT,
 * EPOLLEXCLUSIVE, the data word, maxevents, timeouts, epoll inside epoll, items leaving with
 * their file, waking from another process (as the Go runtime does with an eventfd), and the
 * accounting back at its baseline. */
#include "ktap.h"
#include "pmuos.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long baseline_epolls, baseline_files;

static int add(int ep, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static int mod(int ep, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	return epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
}

TEST(accounting_baseline)
{
	baseline_epolls = pmuos_accounting("epolls");
	baseline_files = pmuos_accounting("files_open");
	if (baseline_epolls < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
}

TEST(create)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_GE(ep, 0);
	EXPECT_EQ(fcntl(ep, F_GETFD), FD_CLOEXEC);
	char path[64], link[64] = { 0 };
	snprintf(path, sizeof(path), "/proc/self/fd/%d", ep);
	ASSERT_GT(readlink(path, link, sizeof(link) - 1), 0);
	EXPECT_STREQ(link, "anon_inode:[eventpoll]");
	close(ep);
	EXPECT_ERRNO(epoll_create1(1), EINVAL);
	EXPECT_ERRNO(syscall(SYS_epoll_create, 0), EINVAL);	/* musl's wrapper never asks */
	EXPECT_ERRNO(syscall(SYS_epoll_create, -1), EINVAL);
	ep = epoll_create(1);
	ASSERT_GE(ep, 0);
	EXPECT_EQ(fcntl(ep, F_GETFD), 0);
	close(ep);
}

TEST(ctl_errors)
{
	int ep = epoll_create1(0), efd = eventfd(0, 0), ep2 = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };

	ASSERT_GE(ep, 0);
	ASSERT_GE(efd, 0);
	EXPECT_EQ(add(ep, efd, EPOLLIN, 1), 0);
	EXPECT_ERRNO(add(ep, efd, EPOLLIN, 1), EEXIST);
	EXPECT_ERRNO(epoll_ctl(ep, EPOLL_CTL_DEL, 0x7fff, NULL), EBADF);
	EXPECT_ERRNO(epoll_ctl(0x7fff, EPOLL_CTL_ADD, efd, &ev), EBADF);
	EXPECT_ERRNO(epoll_ctl(efd, EPOLL_CTL_ADD, ep, &ev), EINVAL);	/* not an epoll */
	EXPECT_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev), EINVAL);	/* itself */
	EXPECT_ERRNO(epoll_ctl(ep, 99, efd, &ev), EINVAL);
	EXPECT_ERRNO(epoll_ctl(ep, EPOLL_CTL_ADD, efd, (void *)8), EFAULT);
	EXPECT_ERRNO(mod(ep, ep2, EPOLLIN, 0), ENOENT);
	EXPECT_ERRNO(epoll_ctl(ep, EPOLL_CTL_DEL, ep2, NULL), ENOENT);
	int reg = open("/tmp/epoll-test-file", O_CREAT | O_RDWR, 0644);
	ASSERT_GE(reg, 0);
	EXPECT_ERRNO(add(ep, reg, EPOLLIN, 0), EPERM);
	close(reg);
	unlink("/tmp/epoll-test-file");
	/* EPOLLEXCLUSIVE: ADD only, with in/out bits, never on an epoll */
	int efd2 = eventfd(0, 0);
	EXPECT_EQ(add(ep, efd2, EPOLLIN | EPOLLEXCLUSIVE, 2), 0);
	EXPECT_ERRNO(mod(ep, efd2, EPOLLIN, 2), EINVAL);
	EXPECT_ERRNO(mod(ep, efd, EPOLLIN | EPOLLEXCLUSIVE, 2), EINVAL);
	EXPECT_ERRNO(add(ep2, efd2, EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT, 2), EINVAL);
	EXPECT_ERRNO(add(ep2, ep, EPOLLIN | EPOLLEXCLUSIVE, 2), EINVAL);
	EXPECT_EQ(epoll_ctl(ep, EPOLL_CTL_DEL, efd, NULL), 0);
	EXPECT_ERRNO(epoll_ctl(ep, EPOLL_CTL_DEL, efd, NULL), ENOENT);
	/* a cycle of epoll files */
	EXPECT_EQ(add(ep2, ep, EPOLLIN, 3), 0);
	EXPECT_ERRNO(add(ep, ep2, EPOLLIN, 4), ELOOP);
	close(efd2);
	close(efd);
	close(ep2);
	close(ep);
}

TEST(level_triggered_and_data)
{
	int ep = epoll_create1(0), p[2];
	struct epoll_event evs[4];

	ASSERT_EQ(pipe(p), 0);
	EXPECT_EQ(add(ep, p[0], EPOLLIN, 0x1122334455667788ull), 0);
	EXPECT_EQ(add(ep, p[1], EPOLLOUT, 7), 0);
	EXPECT_EQ(epoll_wait(ep, evs, 4, 0), 1);
	EXPECT_EQ(evs[0].events, EPOLLOUT);
	EXPECT_EQ(evs[0].data.u64, 7);
	EXPECT_EQ(write(p[1], "ab", 2), 2);
	for (int round = 0; round < 2; round++) {	/* level: again and again */
		int n = epoll_wait(ep, evs, 4, 0);
		EXPECT_EQ(n, 2);
		bool seen = false;
		for (int i = 0; i < n; i++)
			if (evs[i].data.u64 == 0x1122334455667788ull)
				seen = evs[i].events == EPOLLIN;
		EXPECT_TRUE(seen);
	}
	/* maxevents 1 takes them in turn */
	EXPECT_EQ(epoll_wait(ep, evs, 1, 0), 1);
	uint64_t first = evs[0].data.u64;
	EXPECT_EQ(epoll_wait(ep, evs, 1, 0), 1);
	EXPECT_NE(evs[0].data.u64, first);
	EXPECT_ERRNO(epoll_wait(ep, evs, 0, 0), EINVAL);
	EXPECT_ERRNO(epoll_wait(ep, (void *)8, 1, 0), EFAULT);
	EXPECT_ERRNO(epoll_wait(p[0], evs, 1, 0), EINVAL);
	EXPECT_ERRNO(epoll_wait(0x7fff, evs, 1, 0), EBADF);
	/* the writer goes: POLLHUP comes unasked */
	close(p[1]);
	EXPECT_EQ(epoll_wait(ep, evs, 4, 0), 1);
	EXPECT_EQ(evs[0].events, EPOLLIN | EPOLLHUP);
	close(p[0]);
	EXPECT_EQ(epoll_wait(ep, evs, 4, 0), 0);	/* their items left with them */
	close(ep);
}

TEST(edge_triggered)
{
	int ep = epoll_create1(0), p[2];
	struct epoll_event evs[4];
	char buf[8];

	ASSERT_EQ(pipe(p), 0);
	EXPECT_EQ(add(ep, p[0], EPOLLIN | EPOLLET, 1), 0);
	EXPECT_EQ(epoll_wait(ep, evs, 4, 0), 0);
	EXPECT_EQ(write(p[1], "abcd", 4), 4);
	EXPECT_EQ(epoll_wait(ep, evs, 4, 0), 1);
	EXPECT_EQ(epoll_wait(ep, evs, 4, 0), 0);	/* no new edge */
	EXPECT_EQ(read(p[0], buf, 2), 2);
	EXPECT_EQ(epoll_wait(ep, evs, 4, 0), 0);	/* reading is no edge */
	EXPECT_EQ(write(p[1], "e", 1), 1);
	EXPECT_EQ(epoll_wait(ep, evs, 4, 0), 1);	/* more data is */
	/* MOD re-arms: ready now, reported now */
	EXPECT_EQ(mod(ep, p[0], EPOLLIN | EPOLLET, 2), 0);
	EXPECT_EQ(epoll_wait(ep, evs, 4, 0), 1);
	EXPECT_EQ(evs[0].data.u64, 2);
	close(p[0]);
	close(p[1]);
	close(ep);
}

TEST(oneshot)
{
	int ep = epoll_create1(0), efd = eventfd(1, 0);
	struct epoll_event evs[2];

	EXPECT_EQ(add(ep, efd, EPOLLIN | EPOLLONESHOT, 5), 0);
	EXPECT_EQ(epoll_wait(ep, evs, 2, 0), 1);
	EXPECT_EQ(epoll_wait(ep, evs, 2, 0), 0);	/* disarmed, still there */
	EXPECT_ERRNO(add(ep, efd, EPOLLIN, 5), EEXIST);
	EXPECT_EQ(mod(ep, efd, EPOLLIN | EPOLLONESHOT, 6), 0);
	EXPECT_EQ(epoll_wait(ep, evs, 2, 0), 1);
	EXPECT_EQ(evs[0].data.u64, 6);
	close(efd);
	close(ep);
}

TEST(nested)
{
	int outer = epoll_create1(0), inner = epoll_create1(0), efd = eventfd(0, 0);
	struct epoll_event evs[2];

	EXPECT_EQ(add(inner, efd, EPOLLIN, 1), 0);
	EXPECT_EQ(add(outer, inner, EPOLLIN, 2), 0);
	EXPECT_EQ(epoll_wait(outer, evs, 2, 0), 0);
	uint64_t one = 1;
	EXPECT_EQ(write(efd, &one, 8), 8);
	EXPECT_EQ(epoll_wait(outer, evs, 2, 0), 1);
	EXPECT_EQ(evs[0].data.u64, 2);
	EXPECT_EQ(evs[0].events, EPOLLIN);
	EXPECT_EQ(epoll_wait(inner, evs, 2, 0), 1);
	EXPECT_EQ(evs[0].data.u64, 1);
	close(efd);
	close(inner);
	close(outer);
}

TEST(item_follows_file_not_fd)
{
	int ep = epoll_create1(0), efd = eventfd(1, 0);
	struct epoll_event evs[2];

	EXPECT_EQ(add(ep, efd, EPOLLIN, 9), 0);
	int dup_fd = dup(efd);
	close(efd);		/* the file lives on in dup_fd: so does the item */
	EXPECT_EQ(epoll_wait(ep, evs, 2, 0), 1);
	EXPECT_EQ(evs[0].data.u64, 9);
	close(dup_fd);
	EXPECT_EQ(epoll_wait(ep, evs, 2, 0), 0);
	close(ep);
}

TEST(timeout_and_wakeup)
{
	int ep = epoll_create1(0), efd = eventfd(0, EFD_NONBLOCK);
	struct epoll_event evs[2];
	struct timespec t0, t1;

	EXPECT_EQ(add(ep, efd, EPOLLIN | EPOLLET, 1), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(epoll_wait(ep, evs, 2, 30), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_GE((t1.tv_sec - t0.tv_sec) * 1000000000l + t1.tv_nsec - t0.tv_nsec, 30000000);
	struct timespec ts = { 0, 10000000 };
	EXPECT_EQ(syscall(SYS_epoll_pwait2, ep, evs, 2, &ts, NULL, 8), 0);
	ts.tv_nsec = -1;
	EXPECT_ERRNO(syscall(SYS_epoll_pwait2, ep, evs, 2, &ts, NULL, 8), EINVAL);
	sigset_t none;
	sigemptyset(&none);
	EXPECT_ERRNO(syscall(SYS_epoll_pwait, ep, evs, 2, 0, &none, 4), EINVAL);
	pid_t pid = fork();
	if (pid == 0) {
		uint64_t one = 1;
		usleep(20000);
		_exit(write(efd, &one, 8) == 8 ? 0 : 1);
	}
	EXPECT_EQ(epoll_pwait(ep, evs, 2, -1, &none), 1);	/* the Go runtime's wake-up */
	EXPECT_EQ(evs[0].data.u64, 1);
	int status;
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	close(efd);
	close(ep);
}

TEST(accounting_back_to_baseline)
{
	if (baseline_epolls < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
	EXPECT_EQ(pmuos_accounting("epolls"), baseline_epolls);
	EXPECT_EQ(pmuos_accounting("files_open"), baseline_files);
}
