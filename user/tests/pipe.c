/* user/tests/pipe.c: pipes and FIFOs: pipe2's flags, the 64 KiB buffer and F_SETPIPE_SZ,
 * PIPE_BUF atomicity, blocking reads and writes between processes, EOF, EPIPE and SIGPIPE,
 * O_NONBLOCK, O_DIRECT packets, FIONREAD, poll's bits, fstat and /proc's pipe:[INO], named
 * pipes with Linux's open rules, and the accounting back at its baseline. */
#include "ktap.h"
#include "pmuos.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FIFO "/tmp/pipe-test-fifo"
#define PIPEFS_MAGIC 0x50495045

static long baseline_pipes, baseline_files;

static int child_status(pid_t pid)
{
	int status = -1;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* Fill a non-blocking pipe with writes of n bytes; the count of bytes it took. */
static long fill(int fd, size_t n)
{
	static char buf[65536];
	long total = 0;
	ssize_t r;

	while ((r = write(fd, buf, n)) > 0)
		total += r;
	return r < 0 && errno == EAGAIN ? total : -1;
}

TEST(accounting_baseline)
{
	baseline_pipes = pmuos_accounting("pipes");
	baseline_files = pmuos_accounting("files_open");
	if (baseline_pipes < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
}

TEST(pipe2_flags)
{
	int p[2];

	ASSERT_EQ(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	EXPECT_EQ(fcntl(p[0], F_GETFD), FD_CLOEXEC);
	EXPECT_EQ(fcntl(p[1], F_GETFD), FD_CLOEXEC);
	EXPECT_EQ(fcntl(p[0], F_GETFL), O_RDONLY | O_NONBLOCK);
	EXPECT_EQ(fcntl(p[1], F_GETFL), O_WRONLY | O_NONBLOCK);
	close(p[0]);
	close(p[1]);
	EXPECT_ERRNO(pipe2(p, O_APPEND), EINVAL);
	EXPECT_ERRNO(pipe2(p, O_SYNC), EINVAL);
	EXPECT_ERRNO(syscall(SYS_pipe2, (void *)8, 0), EFAULT);
	ASSERT_EQ(pipe(p), 0);
	EXPECT_EQ(fcntl(p[0], F_GETFD), 0);
	EXPECT_EQ(fcntl(p[0], F_GETFL), O_RDONLY);
	EXPECT_ERRNO(write(p[0], "x", 1), EBADF);
	char c;
	EXPECT_ERRNO(read(p[1], &c, 1), EBADF);
	EXPECT_ERRNO(lseek(p[0], 0, SEEK_SET), ESPIPE);
	close(p[0]);
	close(p[1]);
}

TEST(capacity_and_setpipe_sz)
{
	int p[2];

	ASSERT_EQ(pipe2(p, O_NONBLOCK), 0);
	EXPECT_EQ(fcntl(p[0], F_GETPIPE_SZ), 65536);
	EXPECT_EQ(fcntl(p[1], F_GETPIPE_SZ), 65536);
	EXPECT_EQ(fill(p[1], 1), 65536);
	int n = -1;
	EXPECT_EQ(ioctl(p[0], FIONREAD, &n), 0);
	EXPECT_EQ(n, 65536);
	EXPECT_ERRNO(fcntl(p[1], F_SETPIPE_SZ, 4096), EBUSY);
	static char buf[65536];
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 65536);
	EXPECT_ERRNO(read(p[0], buf, 1), EAGAIN);
	/* a page's slots: writes of 1000 bytes fill 4 to a page */
	EXPECT_EQ(fill(p[1], 1000), 64000);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 64000);
	EXPECT_EQ(fcntl(p[1], F_SETPIPE_SZ, 0), 4096);
	EXPECT_EQ(fcntl(p[1], F_GETPIPE_SZ), 4096);
	EXPECT_EQ(fcntl(p[1], F_SETPIPE_SZ, 5000), 8192);
	EXPECT_EQ(fcntl(p[0], F_SETPIPE_SZ, 131072), 131072);
	EXPECT_EQ(fill(p[1], 4096), 131072);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 65536);
	EXPECT_ERRNO(fcntl(p[0], F_SETPIPE_SZ, (1ul << 31) + 1), EINVAL);
	EXPECT_ERRNO(fcntl(0, F_GETPIPE_SZ), EBADF);
	close(p[0]);
	close(p[1]);
}

TEST(pipe_buf_atomic_and_partial)
{
	int p[2];
	static char buf[65536 + 8192];

	ASSERT_EQ(pipe2(p, O_NONBLOCK), 0);
	EXPECT_EQ(write(p[1], buf, 65536 - 100), 65536 - 100);
	/* PIPE_BUF bytes do not fit: nothing is written */
	EXPECT_ERRNO(write(p[1], buf, PIPE_BUF), EAGAIN);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 65536 - 100);
	/* a large non-blocking write writes what fits */
	EXPECT_EQ(write(p[1], buf, 65536 + 8192), 65536);
	EXPECT_EQ(write(p[1], buf, 0), 0);
	EXPECT_EQ(read(p[0], buf, 0), 0);
	close(p[0]);
	close(p[1]);
}

TEST(eof_when_writers_close)
{
	int p[2];
	char buf[8];

	ASSERT_EQ(pipe(p), 0);
	EXPECT_EQ(write(p[1], "abc", 3), 3);
	close(p[1]);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 3);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 0);
	close(p[0]);
}

static volatile sig_atomic_t sigpipes;

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

TEST(epipe_and_sigpipe)
{
	int p[2];
	struct sigaction sa = { .sa_handler = on_sigpipe }, old;

	ASSERT_EQ(sigaction(SIGPIPE, &sa, &old), 0);
	ASSERT_EQ(pipe(p), 0);
	close(p[0]);
	sigpipes = 0;
	EXPECT_ERRNO(write(p[1], "x", 1), EPIPE);
	EXPECT_EQ(sigpipes, 1);
	struct pollfd pf = { .fd = p[1], .events = POLLOUT };
	EXPECT_EQ(poll(&pf, 1, 0), 1);
	EXPECT_EQ(pf.revents, POLLOUT | POLLERR);
	close(p[1]);
	sigaction(SIGPIPE, &old, NULL);

	/* with the default action, the writer dies of it (the read end closed before the
	 * fork: on another CPU the child could write before the parent closes it) */
	ASSERT_EQ(pipe(p), 0);
	close(p[0]);
	pid_t pid = fork();
	if (pid == 0) {
		write(p[1], "x", 1);
		_exit(0);
	}
	close(p[1]);
	int status = child_status(pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGPIPE);
}

TEST(poll_bits)
{
	int p[2];
	struct pollfd pf[2];

	ASSERT_EQ(pipe(p), 0);
	pf[0] = (struct pollfd){ .fd = p[0], .events = POLLIN | POLLOUT };
	pf[1] = (struct pollfd){ .fd = p[1], .events = POLLIN | POLLOUT };
	EXPECT_EQ(poll(pf, 2, 0), 1);
	EXPECT_EQ(pf[0].revents, 0);
	EXPECT_EQ(pf[1].revents, POLLOUT);
	EXPECT_EQ(write(p[1], "ab", 2), 2);
	EXPECT_EQ(poll(pf, 2, 0), 2);
	EXPECT_EQ(pf[0].revents, POLLIN);
	close(p[1]);
	EXPECT_EQ(poll(pf, 1, 0), 1);
	EXPECT_EQ(pf[0].revents, POLLIN | POLLHUP);
	char buf[4];
	EXPECT_EQ(read(p[0], buf, 4), 2);
	EXPECT_EQ(poll(pf, 1, 0), 1);
	EXPECT_EQ(pf[0].revents, POLLHUP);
	close(p[0]);
}

TEST(packet_mode)
{
	int p[2];
	char buf[16];

	ASSERT_EQ(pipe2(p, O_DIRECT), 0);
	EXPECT_EQ(fcntl(p[0], F_GETFL), O_RDONLY);	/* a writer's flag only */
	EXPECT_EQ(fcntl(p[1], F_GETFL), O_WRONLY | O_DIRECT);
	EXPECT_EQ(write(p[1], "hello", 5), 5);
	EXPECT_EQ(write(p[1], "world!", 6), 6);
	EXPECT_EQ(read(p[0], buf, 3), 3);	/* the rest of the packet is gone */
	EXPECT_EQ(memcmp(buf, "hel", 3), 0);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 6);
	EXPECT_EQ(memcmp(buf, "world!", 6), 0);
	close(p[0]);
	close(p[1]);
}

TEST(parent_writes_child_reads)
{
	int p[2];

	ASSERT_EQ(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		static char buf[200000];
		long total = 0;
		ssize_t r;
		close(p[1]);
		while ((r = read(p[0], buf + total, sizeof(buf) - total)) > 0)
			total += r;
		for (long i = 0; i < total; i++)
			if (buf[i] != (char)(i * 7))
				_exit(3);
		_exit(total == 150000 ? 0 : 2);
	}
	close(p[0]);
	static char out[150000];
	for (long i = 0; i < (long)sizeof(out); i++)
		out[i] = (char)(i * 7);
	/* more than the pipe holds: the writer blocks until the child reads */
	EXPECT_EQ(write(p[1], out, sizeof(out)), (long)sizeof(out));
	close(p[1]);
	EXPECT_EQ(child_status(pid), 0);
}

TEST(child_writes_parent_reads)
{
	int p[2];
	char buf[64];

	ASSERT_EQ(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		usleep(20000);		/* the parent blocks in read meanwhile */
		write(p[1], "from child", 10);
		_exit(0);
	}
	close(p[1]);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 10);
	EXPECT_EQ(memcmp(buf, "from child", 10), 0);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 0);
	close(p[0]);
	EXPECT_EQ(child_status(pid), 0);
}

TEST(fstat_and_proc_link)
{
	int p[2];
	struct stat a, b;
	char path[64], link[64] = { 0 }, want[64];

	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(fstat(p[0], &a), 0);
	ASSERT_EQ(fstat(p[1], &b), 0);
	EXPECT_TRUE(S_ISFIFO(a.st_mode));
	EXPECT_EQ(a.st_mode & 0777, 0600);
	EXPECT_EQ(a.st_ino, b.st_ino);
	EXPECT_EQ(a.st_dev, b.st_dev);
	EXPECT_EQ(a.st_nlink, 1);
	EXPECT_EQ(a.st_size, 0);
	struct statfs sf;
	ASSERT_EQ(fstatfs(p[0], &sf), 0);
	EXPECT_EQ(sf.f_type, PIPEFS_MAGIC);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	ASSERT_GT(readlink(path, link, sizeof(link) - 1), 0);
	snprintf(want, sizeof(want), "pipe:[%lu]", (unsigned long)a.st_ino);
	EXPECT_STREQ(link, want);
	/* opening the link opens the pipe itself */
	int w = open(path, O_WRONLY);
	ASSERT_GE(w, 0);
	EXPECT_EQ(write(w, "z", 1), 1);
	char c = 0;
	EXPECT_EQ(read(p[0], &c, 1), 1);
	EXPECT_EQ(c, 'z');
	close(w);
	close(p[0]);
	close(p[1]);
}

TEST(fifo_open_rules)
{
	struct stat st;

	unlink(FIFO);
	ASSERT_EQ(mkfifo(FIFO, 0644), 0);
	ASSERT_EQ(stat(FIFO, &st), 0);
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	EXPECT_ERRNO(open(FIFO, O_WRONLY | O_NONBLOCK), ENXIO);
	int r = open(FIFO, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(r, 0);
	struct pollfd pf = { .fd = r, .events = POLLIN };
	EXPECT_EQ(poll(&pf, 1, 0), 0);		/* no writer yet: no POLLHUP */
	int w = open(FIFO, O_WRONLY | O_NONBLOCK);
	ASSERT_GE(w, 0);
	EXPECT_EQ(write(w, "fifo", 4), 4);
	char buf[8];
	EXPECT_EQ(read(r, buf, sizeof(buf)), 4);
	close(w);
	EXPECT_EQ(poll(&pf, 1, 0), 1);
	EXPECT_EQ(pf.revents, POLLHUP);
	EXPECT_EQ(read(r, buf, sizeof(buf)), 0);
	close(r);
	int rw = open(FIFO, O_RDWR);		/* never blocks */
	ASSERT_GE(rw, 0);
	EXPECT_EQ(write(rw, "x", 1), 1);
	EXPECT_EQ(read(rw, buf, 1), 1);
	close(rw);

	/* O_RDONLY blocks until a writer opens, O_WRONLY until a reader */
	pid_t pid = fork();
	if (pid == 0) {
		usleep(20000);
		int fd = open(FIFO, O_WRONLY);
		if (fd < 0 || write(fd, "late", 4) != 4)
			_exit(2);
		_exit(0);
	}
	r = open(FIFO, O_RDONLY);
	ASSERT_GE(r, 0);
	EXPECT_EQ(read(r, buf, 4), 4);
	EXPECT_EQ(memcmp(buf, "late", 4), 0);
	EXPECT_EQ(child_status(pid), 0);
	close(r);
	pid = fork();
	if (pid == 0) {
		usleep(20000);
		int fd = open(FIFO, O_RDONLY);
		char c;
		_exit(fd >= 0 && read(fd, &c, 1) == 1 && c == 'q' ? 0 : 2);
	}
	w = open(FIFO, O_WRONLY);
	ASSERT_GE(w, 0);
	EXPECT_EQ(write(w, "q", 1), 1);
	close(w);
	EXPECT_EQ(child_status(pid), 0);
	/* the data of a FIFO goes when the last opener closes */
	rw = open(FIFO, O_RDWR);
	EXPECT_EQ(write(rw, "gone", 4), 4);
	close(rw);
	rw = open(FIFO, O_RDWR | O_NONBLOCK);
	EXPECT_ERRNO(read(rw, buf, 4), EAGAIN);
	close(rw);
	EXPECT_EQ(unlink(FIFO), 0);
}

static void on_alarm(int sig)
{
	(void)sig;
}

TEST(blocking_read_interrupted)
{
	int p[2];
	char c;
	struct sigaction sa = { .sa_handler = on_alarm }, old;

	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(sigaction(SIGALRM, &sa, &old), 0);
	ualarm(20000, 0);
	EXPECT_ERRNO(read(p[0], &c, 1), EINTR);
	sigaction(SIGALRM, &old, NULL);
	close(p[0]);
	close(p[1]);
}

static int restart_fd = -1;
static int restart_hits;

/* The handler makes the pipe readable: a restarted read finds its byte. */
static void feed_pipe(int sig)
{
	(void)sig;
	restart_hits++;
	if (write(restart_fd, "r", 1) != 1)
		_exit(99);
}

/* SA_RESTART: the read blocked when the signal came runs again after the handler and returns
 * the byte the handler wrote; without it the same read fails with EINTR (the byte stays). And
 * a child's wait4 under SA_RESTART outlives a signal the same way. */
TEST(sa_restart_restarts_a_blocking_read)
{
	int p[2];
	char c = 0;
	struct sigaction sa = { .sa_handler = feed_pipe, .sa_flags = SA_RESTART }, old;

	ASSERT_EQ(pipe(p), 0);
	restart_fd = p[1];
	restart_hits = 0;
	ASSERT_EQ(sigaction(SIGALRM, &sa, &old), 0);
	ualarm(20000, 0);
	EXPECT_EQ(read(p[0], &c, 1), 1);
	EXPECT_EQ(c, 'r');
	EXPECT_EQ(restart_hits, 1);

	sa.sa_flags = 0;
	ASSERT_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	ualarm(20000, 0);
	EXPECT_ERRNO(read(p[0], &c, 1), EINTR);
	EXPECT_EQ(restart_hits, 2);
	EXPECT_EQ(read(p[0], &c, 1), 1);	/* the handler's byte */

	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(60000);
		_exit(7);
	}
	ualarm(20000, 0);
	int status;
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 7);
	EXPECT_EQ(restart_hits, 3);
	sigaction(SIGALRM, &old, NULL);
	close(p[0]);
	close(p[1]);
}

TEST(accounting_back_to_baseline)
{
	if (baseline_pipes < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
	EXPECT_EQ(pmuos_accounting("pipes"), baseline_pipes);
	EXPECT_EQ(pmuos_accounting("files_open"), baseline_files);
}
