/* user/tests/dev.c: the character devices of /dev (null, zero, full, random, urandom, kmsg, tty,
 * console) and the /dev/fd, /dev/std* links, as Linux's devtmpfs and udev present them. */
#include "ktap.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

/* Every device this file checks: name, major, minor and devtmpfs's mode. */
static const struct devnode {
	const char *path;
	unsigned major, minor;
	mode_t mode;
} devnodes[] = {
	{ "/dev/null", 1, 3, 0666 },    { "/dev/zero", 1, 5, 0666 },
	{ "/dev/full", 1, 7, 0666 },    { "/dev/random", 1, 8, 0666 },
	{ "/dev/urandom", 1, 9, 0666 }, { "/dev/kmsg", 1, 11, 0644 },
	{ "/dev/tty", 5, 0, 0666 },     { "/dev/console", 5, 1, 0600 },
};

/* The links udev makes on Linux; pmuos's kernel provides them itself. */
static const struct devlink {
	const char *path, *target;
} devlinks[] = {
	{ "/dev/fd", "/proc/self/fd" },
	{ "/dev/stdin", "/proc/self/fd/0" },
	{ "/dev/stdout", "/proc/self/fd/1" },
	{ "/dev/stderr", "/proc/self/fd/2" },
};

static bool all_bytes(const unsigned char *buf, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != v)
			return false;
	return true;
}

/*
 * Linux's first read of /dev/urandom before its generator is seeded runs the jitter-entropy
 * loop: a second of guest time under icount. Credit 256 bits instead (RNDADDENTROPY, root
 * only), as a boot script restoring a seed file would; where the ioctl is unknown (pmuos),
 * nothing happens and nothing is asserted.
 */
static void credit_entropy(void)
{
	struct {
		int entropy_count, buf_size;
		uint32_t buf[8];
	} seed = { 256, 32, { 0x706d756f, 0x73206465, 0x76207465, 0x73742073,
			      0x65656420, 0x62797465, 0x2c206669, 0x78656421 } };
	int fd = open("/dev/urandom", O_WRONLY);

	if (fd >= 0) {
		ioctl(fd, _IOW('R', 0x03, int[2]), &seed); /* RNDADDENTROPY */
		close(fd);
	}
}

/*
 * The oracle's initramfs holds only /dev/console: mount devtmpfs over /dev when /dev/null is
 * missing, and make the links udev would. pmuos's kernel provides /dev whole, so there this
 * does nothing (a failing mount is ignored when /dev/null exists anyway).
 */
TEST(setup_dev)
{
	struct stat st;

	if (stat("/dev/null", &st) != 0 &&
	    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) != 0)
		ktap_print("mount devtmpfs on /dev: errno %d", errno);
	ASSERT_EQ(stat("/dev/null", &st), 0);
	credit_entropy();
	for (size_t i = 0; i < sizeof(devlinks) / sizeof(devlinks[0]); i++)
		if (lstat(devlinks[i].path, &st) != 0)
			ASSERT_EQ(symlink(devlinks[i].target, devlinks[i].path), 0);
}

TEST(device_numbers_and_modes)
{
	for (size_t i = 0; i < sizeof(devnodes) / sizeof(devnodes[0]); i++) {
		const struct devnode *d = &devnodes[i];
		struct stat st;

		if (stat(d->path, &st) != 0) {
			ktap_print("stat %s: errno %d", d->path, errno);
			EXPECT_EQ(errno, 0);
			continue;
		}
		if (st.st_mode != (S_IFCHR | d->mode) || major(st.st_rdev) != d->major ||
		    minor(st.st_rdev) != d->minor)
			ktap_print("%s: mode %o, %u:%u", d->path, (unsigned)st.st_mode,
				   major(st.st_rdev), minor(st.st_rdev));
		EXPECT_EQ(st.st_mode, S_IFCHR | d->mode);
		EXPECT_EQ(major(st.st_rdev), d->major);
		EXPECT_EQ(minor(st.st_rdev), d->minor);
		EXPECT_EQ(st.st_size, 0);
		EXPECT_EQ(st.st_uid, 0);
		EXPECT_EQ(st.st_gid, 0);
	}
}

TEST(dev_is_a_directory)
{
	struct stat st;

	ASSERT_EQ(stat("/dev", &st), 0);
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(access("/dev/null", R_OK | W_OK), 0);
}

TEST(null_reads_nothing_writes_all)
{
	char buf[64] = "untouched";
	struct iovec iov[2] = { { "ab", 2 }, { "cde", 3 } };
	int fd = open("/dev/null", O_RDWR);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "untouched");
	EXPECT_EQ(write(fd, "hello", 5), 5);
	EXPECT_EQ(write(fd, buf, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(writev(fd, iov, 2), 5);
	EXPECT_EQ(pwrite(fd, "x", 1, 1000), 1);
	EXPECT_EQ(pread(fd, buf, 1, 0), 0);
	/* The data is never touched: even a bad buffer is "written". */
	EXPECT_EQ(write(fd, NULL, 16), 16);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 0);
	EXPECT_EQ(lseek(fd, 100, SEEK_SET), 0); /* null's llseek always answers 0 */
	close(fd);
}

/* A shell's "> /dev/null": O_CREAT and O_TRUNC on an existing device node are harmless. */
TEST(null_opens_like_a_redirection)
{
	struct stat st;
	int fd = open("/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "x", 1), 1);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFCHR | 0666);
	EXPECT_EQ(st.st_rdev, makedev(1, 3));
	close(fd);
	fd = open("/dev/null", O_WRONLY | O_APPEND);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "x", 1), 1);
	close(fd);
	EXPECT_ERRNO(open("/dev/null", O_RDONLY | O_DIRECTORY), ENOTDIR);
	EXPECT_ERRNO(open("/dev/null", O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST);
}

TEST(zero_reads_zeros)
{
	unsigned char buf[8192];
	int fd = open("/dev/zero", O_RDWR);

	ASSERT_GE(fd, 0);
	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(read(fd, buf, sizeof(buf)), sizeof(buf));
	EXPECT_TRUE(all_bytes(buf, sizeof(buf), 0));
	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(pread(fd, buf + 1, 100, 12345), 100);
	EXPECT_EQ(buf[0], 0xa5);
	EXPECT_TRUE(all_bytes(buf + 1, 100, 0));
	EXPECT_EQ(buf[101], 0xa5);
	EXPECT_EQ(write(fd, "abc", 3), 3);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 0);
	EXPECT_ERRNO(read(fd, NULL, 16), EFAULT);
	close(fd);
}

TEST(zero_mmap)
{
	int fd = open("/dev/zero", O_RDWR);
	unsigned char *p, *q;

	ASSERT_GE(fd, 0);
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_TRUE(all_bytes(p, 8192, 0));
	p[100] = 7;
	EXPECT_EQ(p[100], 7);
	EXPECT_EQ(munmap(p, 8192), 0);
	/* A shared mapping of /dev/zero is shared anonymous memory. */
	q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(q, MAP_FAILED);
	EXPECT_TRUE(all_bytes(q, 4096, 0));
	q[0] = 1;
	EXPECT_EQ(q[0], 1);
	EXPECT_EQ(munmap(q, 4096), 0);
	close(fd);
}

TEST(full_is_full)
{
	unsigned char buf[256];
	int fd = open("/dev/full", O_RDWR);

	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(write(fd, "x", 1), ENOSPC);
	EXPECT_ERRNO(write(fd, buf, sizeof(buf)), ENOSPC);
	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(read(fd, buf, sizeof(buf)), sizeof(buf));
	EXPECT_TRUE(all_bytes(buf, sizeof(buf), 0));
	EXPECT_EQ(lseek(fd, 123, SEEK_SET), 0);
	close(fd);
}

/* Random bytes: only the counts are checked, never the values. */
TEST(urandom_fills_the_buffer)
{
	static unsigned char big[65536];
	unsigned char buf[64];
	int fd = open("/dev/urandom", O_RDONLY);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(read(fd, buf, 1), 1);
	EXPECT_EQ(read(fd, big, sizeof(big)), sizeof(big));
	EXPECT_EQ(read(fd, buf, 0), 0);
	EXPECT_ERRNO(read(fd, NULL, 16), EFAULT);
	close(fd);
	/* Writing mixes bytes into the pool: allowed, even for anyone. */
	fd = open("/dev/urandom", O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "seed", 4), 4);
	close(fd);
}

TEST(random_fills_the_buffer)
{
	unsigned char buf[64];
	int fd = open("/dev/random", O_RDONLY);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), sizeof(buf));
	close(fd);
}

TEST(console_opens)
{
	struct termios t;
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, TCGETS, &t), 0);
	EXPECT_EQ(isatty(fd), 1);
	EXPECT_EQ(write(fd, "", 0), 0);
	close(fd);
}

/* Our session has no controlling terminal (init opened the console without one). */
TEST(tty_needs_a_controlling_terminal)
{
	int fd = open("/dev/tty", O_RDWR);

	if (fd >= 0) {
		ktap_print("/dev/tty opened: this session has a controlling terminal");
		EXPECT_EQ(isatty(fd), 1);
		close(fd);
		return;
	}
	EXPECT_EQ(errno, ENXIO);
}

TEST(fd_and_std_links)
{
	char buf[64];

	for (size_t i = 0; i < sizeof(devlinks) / sizeof(devlinks[0]); i++) {
		struct stat st;
		long n;

		ASSERT_EQ(lstat(devlinks[i].path, &st), 0);
		EXPECT_TRUE(S_ISLNK(st.st_mode));
		n = readlink(devlinks[i].path, buf, sizeof(buf) - 1);
		ASSERT_GT(n, 0);
		buf[n] = '\0';
		EXPECT_STREQ(buf, devlinks[i].target);
	}
}

/* Through /proc/self/fd: the links name what the descriptors hold. */
TEST(std_links_resolve)
{
	struct stat st, fst;
	char path[32], buf[8];
	int fd, fd2;

	ASSERT_EQ(stat("/dev/stdout", &st), 0);
	ASSERT_EQ(fstat(1, &fst), 0);
	EXPECT_EQ(st.st_ino, fst.st_ino);
	EXPECT_EQ(st.st_rdev, fst.st_rdev);
	ASSERT_EQ(stat("/dev/fd/2", &st), 0);
	ASSERT_EQ(fstat(2, &fst), 0);
	EXPECT_EQ(st.st_rdev, fst.st_rdev);
	fd = open("/dev/zero", O_RDONLY);
	ASSERT_GE(fd, 0);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	ASSERT_EQ(stat(path, &st), 0);
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(st.st_rdev, makedev(1, 5));
	/* Opening it opens the file afresh: a new descriptor, a new open file. */
	fd2 = open(path, O_RDONLY);
	ASSERT_GE(fd2, 0);
	EXPECT_NE(fd2, fd);
	EXPECT_EQ(read(fd2, buf, sizeof(buf)), sizeof(buf));
	close(fd2);
	close(fd);
	EXPECT_ERRNO(stat("/dev/fd/999", &st), ENOENT);
}

TEST(kmsg_is_there)
{
	struct stat st;

	ASSERT_EQ(stat("/dev/kmsg", &st), 0);
	EXPECT_TRUE(S_ISCHR(st.st_mode));
}
