/* user/tests/files.c: the file syscalls on the writable root (Linux's initramfs rootfs), with
 * Linux 6.1's return values and errnos; everything happens under a fresh /ftest. */
#include "ktap.h"
#include "file.h"

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define W "/ftest"

#define TMPFS_MAGIC_ 0x01021994
#define RAMFS_MAGIC_ 0x858458f6
#define PROC_SUPER_MAGIC_ 0x9fa0
#define SYSFS_MAGIC_ 0x62656572

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#define RENAME_WHITEOUT (1 << 2)
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
#define AT_BOGUS 0x80000000u /* no AT_* flag has this bit */

/* struct statx and its mask bits (<linux/stat.h> clashes with musl's <sys/stat.h>). */
struct statx_ts {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t reserved;
};

struct statx_ {
	uint32_t stx_mask, stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink, stx_uid, stx_gid;
	uint16_t stx_mode, spare0;
	uint64_t stx_ino, stx_size, stx_blocks, stx_attributes_mask;
	struct statx_ts stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor, stx_dev_major, stx_dev_minor;
	uint64_t spare2[14];
};
_Static_assert(sizeof(struct statx_) == 256, "struct statx is 256 bytes");

#define STATX_MODE_ 0x2u
#define STATX_NLINK_ 0x4u
#define STATX_SIZE_ 0x200u
#define STATX_BASIC_STATS_ 0x7ffu

/* Raw getdents64 records: the layout is the ABI under test. */
struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

enum { DT_DIR_ = 4, DT_REG_ = 8, DT_LNK_ = 10 };

/* A page that is never mapped: a path or buffer there faults. */
static char *unmapped(void)
{
	static char *p;

	if (!p) {
		p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
	return p;
}

/* Raw syscalls where libc would add or hide behaviour (flags, emulations, NULL checks). */
static long sys_newfstatat(int dfd, const char *path, struct stat *st, long flags)
{
	return syscall(SYS_newfstatat, dfd, path, st, flags);
}

static long sys_renameat2(int ofd, const char *o, int nfd, const char *n, unsigned flags)
{
	return syscall(SYS_renameat2, ofd, o, nfd, n, flags);
}

static long sys_getcwd(char *buf, size_t size)
{
	return syscall(SYS_getcwd, buf, size);
}

static long sys_getdents64(int fd, void *buf, size_t n)
{
	return syscall(SYS_getdents64, fd, buf, n);
}

static long sys_faccessat2(int dfd, const char *path, int mode, int flags)
{
	return syscall(SYS_faccessat2, dfd, path, mode, flags);
}

static long sys_statx(int dfd, const char *path, int flags, unsigned mask, void *buf)
{
	return syscall(SYS_statx, dfd, path, flags, mask, buf);
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Creates path with exactly these bytes; the test ends if it cannot. */
static void put(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, data, len), len);
	ASSERT_EQ(close(fd), 0);
}

static void puts_(const char *path, const char *text)
{
	put(path, text, strlen(text));
}

static void mkd(const char *path)
{
	ASSERT_EQ(mkdir(path, 0755), 0);
}

static long long lsize(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? -1 : (long long)st.st_size;
}

static long long nlinks(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? -1 : (long long)st.st_nlink;
}

static long long lmode(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? -1 : (long long)st.st_mode;
}

static long long ino(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? -1 : (long long)st.st_ino;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* ---- set-up ---- */

TEST(setup_work_dir)
{
	struct stat st;

	if (lstat(W, &st) == 0)
		ASSERT_EQ(nftw(W, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	EXPECT_EQ(umask(022), 022); /* init's umask, inherited */
	ASSERT_EQ(mkdir(W, 0777), 0);
	ASSERT_EQ(stat(W, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFDIR | 0755);
	EXPECT_EQ(st.st_nlink, 2);
	EXPECT_EQ(st.st_uid, 0);
	EXPECT_EQ(st.st_gid, 0);
	EXPECT_EQ(chdir("/"), 0);
}

/* ---- open, openat, creat ---- */

TEST(open_creat_new_file)
{
	struct stat st;
	int fd = open(W "/new", O_CREAT | O_WRONLY, 0644);

	ASSERT_GE(fd, 3);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0644);
	EXPECT_EQ(st.st_size, 0);
	EXPECT_EQ(st.st_nlink, 1);
	EXPECT_EQ(st.st_uid, 0);
	EXPECT_EQ(st.st_gid, 0);
	EXPECT_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_WRONLY);
	ASSERT_EQ(close(fd), 0);
	/* O_CREAT on an existing file opens it: the mode argument is ignored. */
	fd = open(W "/new", O_CREAT | O_RDWR, 0600);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(lmode(W "/new"), S_IFREG | 0644);
	close(fd);
}

TEST(open_missing)
{
	EXPECT_ERRNO(open(W "/missing", O_RDONLY), ENOENT);
	EXPECT_ERRNO(open(W "/missing/x", O_CREAT | O_RDWR, 0644), ENOENT);
	EXPECT_ERRNO(open("", O_RDONLY), ENOENT);
	EXPECT_ERRNO(open("", O_CREAT | O_RDWR, 0644), ENOENT);
	EXPECT_FALSE(exists(W "/missing"));
}

TEST(open_excl)
{
	int fd;

	puts_(W "/excl", "x");
	EXPECT_ERRNO(open(W "/excl", O_CREAT | O_EXCL | O_RDWR, 0644), EEXIST);
	/* A symlink is never followed with O_EXCL, even a dangling one. */
	ASSERT_EQ(symlink("excl-nowhere", W "/excl-link"), 0);
	EXPECT_ERRNO(open(W "/excl-link", O_CREAT | O_EXCL | O_RDWR, 0644), EEXIST);
	EXPECT_FALSE(exists(W "/excl-nowhere"));
	EXPECT_ERRNO(open(W, O_CREAT | O_EXCL | O_RDONLY, 0644), EEXIST);
	fd = open(W "/excl2", O_CREAT | O_EXCL | O_RDWR, 0600);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(lmode(W "/excl2"), S_IFREG | 0600);
	close(fd);
}

/* O_CREAT without O_EXCL through a dangling symlink creates the link's target. */
TEST(open_creat_through_dangling_symlink)
{
	int fd;

	ASSERT_EQ(symlink("dangle-target", W "/dangle"), 0);
	fd = open(W "/dangle", O_CREAT | O_WRONLY, 0640);
	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(lmode(W "/dangle-target"), S_IFREG | 0640);
	EXPECT_EQ(lmode(W "/dangle"), S_IFLNK | 0777);
}

TEST(open_trunc)
{
	int fd;

	puts_(W "/trunc", "0123456789");
	fd = open(W "/trunc", O_WRONLY | O_TRUNC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(lsize(W "/trunc"), 0);
	close(fd);
	/* Linux truncates even when the file is opened read-only. */
	puts_(W "/trunc", "0123456789");
	fd = open(W "/trunc", O_RDONLY | O_TRUNC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(lsize(W "/trunc"), 0);
	close(fd);
}

TEST(open_append)
{
	char buf[32];
	int fd;

	puts_(W "/append", "abc");
	fd = open(W "/append", O_WRONLY | O_APPEND);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 0);
	EXPECT_EQ(lseek(fd, 1, SEEK_SET), 1);
	EXPECT_EQ(write(fd, "de", 2), 2); /* at the end, wherever the position was */
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 5);
	/* Linux's pwrite ignores the offset of an O_APPEND file (a known deviation from POSIX). */
	EXPECT_EQ(pwrite(fd, "f", 1, 0), 1);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 5);
	close(fd);
	EXPECT_EQ(slurp(W "/append", buf, sizeof(buf)), 6);
	EXPECT_STREQ(buf, "abcdef");
}

TEST(creat_is_open_creat_wronly_trunc)
{
	int fd;

	puts_(W "/creat", "0123456789");
	fd = creat(W "/creat", 0600);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_WRONLY);
	EXPECT_EQ(lsize(W "/creat"), 0);
	EXPECT_EQ(lmode(W "/creat"), S_IFREG | 0644); /* it existed: mode unchanged */
	close(fd);
	fd = syscall(SYS_creat, W "/creat2", 0600);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(lmode(W "/creat2"), S_IFREG | 0600);
	close(fd);
}

TEST(open_directories)
{
	int fd;

	puts_(W "/odir-file", "x");
	EXPECT_ERRNO(open(W "/odir-file", O_RDONLY | O_DIRECTORY), ENOTDIR);
	EXPECT_ERRNO(open(W "/odir-file/", O_RDONLY), ENOTDIR);
	EXPECT_ERRNO(open(W "/odir-file/x", O_RDONLY), ENOTDIR);
	fd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	close(fd);
	fd = open(W "/", O_RDONLY);
	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_ERRNO(open(W, O_WRONLY), EISDIR);
	EXPECT_ERRNO(open(W, O_RDWR), EISDIR);
	EXPECT_ERRNO(open(W, O_CREAT | O_RDONLY, 0644), EISDIR);
	/* A new name with a trailing slash cannot be created as a file. */
	EXPECT_ERRNO(open(W "/odir-new/", O_CREAT | O_RDWR, 0644), EISDIR);
	EXPECT_FALSE(exists(W "/odir-new"));
	/*
	 * O_CREAT | O_DIRECTORY is EINVAL whatever the path names (6.4's rule, backported to
	 * Debian's 6.1; older kernels created a file and failed with ENOTDIR).
	 */
	EXPECT_ERRNO(open(W, O_CREAT | O_DIRECTORY | O_RDONLY, 0644), EINVAL);
	EXPECT_ERRNO(open(W "/odir-creat", O_CREAT | O_DIRECTORY | O_RDONLY, 0644), EINVAL);
	EXPECT_FALSE(exists(W "/odir-creat"));
}

TEST(open_nofollow)
{
	struct stat st;
	int fd;

	puts_(W "/nof-target", "x");
	ASSERT_EQ(symlink("nof-target", W "/nof-link"), 0);
	EXPECT_ERRNO(open(W "/nof-link", O_RDONLY | O_NOFOLLOW), ELOOP);
	/* Only the last component counts: a link earlier in the path is followed. */
	ASSERT_EQ(symlink(".", W "/nof-dot"), 0);
	fd = open(W "/nof-dot/nof-target", O_RDONLY | O_NOFOLLOW);
	ASSERT_GE(fd, 0);
	close(fd);
	/* With O_PATH, O_NOFOLLOW opens the link itself. */
	fd = open(W "/nof-link", O_PATH | O_NOFOLLOW);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFLNK | 0777);
	EXPECT_EQ(st.st_size, strlen("nof-target"));
	close(fd);
}

TEST(open_cloexec)
{
	int fd = open(W, O_RDONLY | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	EXPECT_EQ(fcntl(fd, F_GETFL) & O_CLOEXEC, 0); /* a descriptor flag, not a file flag */
	close(fd);
	fd = open(W, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFD), 0);
	close(fd);
}

TEST(open_path_names_only)
{
	char buf[8];
	struct stat st;
	struct statfs sfs;
	int fd, dfd;

	puts_(W "/opath", "hello");
	fd = open(W "/opath", O_PATH);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(read(fd, buf, 1), EBADF);
	EXPECT_ERRNO(write(fd, buf, 1), EBADF);
	EXPECT_ERRNO(pread(fd, buf, 1, 0), EBADF);
	EXPECT_ERRNO(lseek(fd, 0, SEEK_SET), EBADF);
	EXPECT_ERRNO(ftruncate(fd, 0), EBADF);
	EXPECT_ERRNO(fsync(fd), EBADF);
	/* Raw calls: musl retries these through /proc/self/fd on EBADF. */
	EXPECT_ERRNO(syscall(SYS_fchmod, fd, 0600), EBADF);
	EXPECT_ERRNO(syscall(SYS_fchown, fd, 0, 0), EBADF);
	EXPECT_ERRNO(ioctl(fd, FIONREAD, &(int){ 0 }), EBADF);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0644);
	EXPECT_EQ(st.st_size, 5);
	EXPECT_EQ(fstatfs(fd, &sfs), 0);
	EXPECT_EQ(fcntl(fd, F_GETFL), O_PATH); /* O_LARGEFILE is not added to O_PATH files */
	EXPECT_EQ(fcntl(fd, F_GETFD), 0);
	close(fd);
	/* A directory opened O_PATH still anchors *at() lookups and fchdir. */
	dfd = open(W, O_PATH | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	fd = openat(dfd, "opath", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 5);
	close(fd);
	EXPECT_ERRNO(sys_getdents64(dfd, buf, sizeof(buf)), EBADF);
	EXPECT_EQ(fchdir(dfd), 0);
	EXPECT_EQ(access("opath", F_OK), 0);
	EXPECT_EQ(chdir("/"), 0);
	close(dfd);
}

TEST(openat_anchors)
{
	int dfd, fd, ffd;

	mkd(W "/at");
	dfd = open(W "/at", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	fd = openat(dfd, "f", O_CREAT | O_RDWR, 0600);
	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(lmode(W "/at/f"), S_IFREG | 0600);
	EXPECT_EQ(chdir(W), 0);
	fd = openat(AT_FDCWD, "at/f", O_RDONLY);
	EXPECT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(chdir("/"), 0);
	/* A relative path needs a directory; an absolute one ignores dirfd, even a bad one. */
	ffd = open(W "/at/f", O_RDONLY);
	ASSERT_GE(ffd, 0);
	EXPECT_ERRNO(openat(ffd, "x", O_RDONLY), ENOTDIR);
	EXPECT_ERRNO(openat(999, "f", O_RDONLY), EBADF);
	EXPECT_ERRNO(openat(-5, "f", O_RDONLY), EBADF);
	fd = openat(999, W "/at/f", O_RDONLY);
	EXPECT_GE(fd, 0);
	close(fd);
	fd = openat(ffd, W "/at/f", O_RDONLY);
	EXPECT_GE(fd, 0);
	close(fd);
	close(ffd);
	close(dfd);
}

TEST(open_lowest_free_descriptor)
{
	int a = open(W, O_RDONLY), b = open(W, O_RDONLY), c;

	ASSERT_GE(a, 3);
	ASSERT_EQ(b, a + 1);
	close(a);
	c = open(W, O_RDONLY);
	EXPECT_EQ(c, a);
	close(b);
	close(c);
}

/* ---- read, write and their vector and positioned forms ---- */

TEST(read_write_roundtrip)
{
	char buf[32];
	int fd = open(W "/rw", O_CREAT | O_RDWR | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "hello, world", 12), 12);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 12);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 0); /* at the end */
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
	EXPECT_EQ(read(fd, buf, 5), 5);
	EXPECT_EQ(memcmp(buf, "hello", 5), 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 7);
	EXPECT_EQ(memcmp(buf, ", world", 7), 0);
	EXPECT_EQ(write(fd, buf, 0), 0);
	EXPECT_EQ(write(fd, NULL, 0), 0);
	EXPECT_EQ(read(fd, NULL, 0), 0);
	/* Overwrite in the middle. */
	EXPECT_EQ(pwrite(fd, "J", 1, 0), 1);
	EXPECT_EQ(pread(fd, buf, 5, 0), 5);
	EXPECT_EQ(memcmp(buf, "Jello", 5), 0);
	close(fd);
}

TEST(read_write_access_modes)
{
	char buf[4];
	int ro, wo, dfd;

	puts_(W "/modes", "abcd");
	ro = open(W "/modes", O_RDONLY);
	wo = open(W "/modes", O_WRONLY);
	ASSERT_GE(ro, 0);
	ASSERT_GE(wo, 0);
	EXPECT_ERRNO(write(ro, "x", 1), EBADF);
	EXPECT_ERRNO(read(wo, buf, 1), EBADF);
	EXPECT_ERRNO(pwrite(ro, "x", 1, 0), EBADF);
	EXPECT_ERRNO(pread(wo, buf, 1, 0), EBADF);
	close(ro);
	close(wo);
	dfd = open(W, O_RDONLY);
	ASSERT_GE(dfd, 0);
	EXPECT_ERRNO(read(dfd, buf, 1), EISDIR);
	EXPECT_ERRNO(pread(dfd, buf, 1, 0), EISDIR);
	close(dfd);
	EXPECT_ERRNO(read(999, buf, 1), EBADF);
	EXPECT_ERRNO(write(-1, buf, 1), EBADF);
}

TEST(pread_pwrite_leave_the_position)
{
	char buf[16];
	int fd = open(W "/pio", O_CREAT | O_RDWR | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "0123456789", 10), 10);
	EXPECT_EQ(lseek(fd, 3, SEEK_SET), 3);
	EXPECT_EQ(pread(fd, buf, 4, 5), 4);
	EXPECT_EQ(memcmp(buf, "5678", 4), 0);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 8), 2);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 10), 0);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 1000), 0);
	EXPECT_EQ(pwrite(fd, "AB", 2, 12), 2); /* past the end: a hole of 2 */
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 3);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 8), 6);
	EXPECT_EQ(memcmp(buf, "89\0\0AB", 6), 0);
	EXPECT_ERRNO(pread(fd, buf, 1, -1), EINVAL);
	EXPECT_ERRNO(pwrite(fd, buf, 1, -1), EINVAL);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 3);
	close(fd);
}

TEST(readv_writev)
{
	char a[4], b[8], c[16];
	struct iovec wv[] = { { "abc", 3 }, { NULL, 0 }, { "defgh", 5 } };
	struct iovec rv[] = { { a, sizeof(a) }, { b, sizeof(b) } };
	int fd = open(W "/vec", O_CREAT | O_RDWR | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(writev(fd, wv, 3), 8);
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
	EXPECT_EQ(readv(fd, rv, 2), 8);
	EXPECT_EQ(memcmp(a, "abcd", 4), 0);
	EXPECT_EQ(memcmp(b, "efgh", 4), 0);
	EXPECT_EQ(readv(fd, rv, 2), 0);
	EXPECT_EQ(writev(fd, wv, 0), 0);
	EXPECT_ERRNO(writev(fd, wv, -1), EINVAL);
	EXPECT_ERRNO(readv(fd, rv, 1025), EINVAL); /* more than UIO_MAXIOV */
	EXPECT_ERRNO(readv(fd, NULL, 1), EFAULT);
	/* preadv/pwritev: at an offset, the position untouched. */
	EXPECT_EQ(lseek(fd, 1, SEEK_SET), 1);
	EXPECT_EQ(pwritev(fd, wv, 3, 8), 8);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 1);
	struct iovec cv[] = { { c, sizeof(c) } };
	EXPECT_EQ(preadv(fd, cv, 1, 6), 10);
	EXPECT_EQ(memcmp(c, "ghabcdefgh", 10), 0);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 1);
	EXPECT_ERRNO(preadv(fd, cv, 1, -1), EINVAL);
	close(fd);
}

TEST(bad_buffers_fault)
{
	int fd = open(W "/fault", O_CREAT | O_RDWR | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(write(fd, NULL, 4), EFAULT);
	EXPECT_ERRNO(write(fd, unmapped(), 4), EFAULT);
	EXPECT_EQ(write(fd, "data", 4), 4);
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
	EXPECT_ERRNO(read(fd, NULL, 4), EFAULT);
	EXPECT_ERRNO(read(fd, unmapped(), 4), EFAULT);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 0);
	close(fd);
}

/* Many pages, read back in odd-sized pieces that straddle page boundaries. */
TEST(multi_page_data)
{
	static unsigned char data[300 * 1024 + 123], back[sizeof(data)];
	size_t done = 0;
	long n;
	int fd = open(W "/big", O_CREAT | O_RDWR | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + i / 4096);
	EXPECT_EQ(write(fd, data, sizeof(data)), sizeof(data));
	EXPECT_EQ(lsize(W "/big"), sizeof(data));
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
	while (done < sizeof(back) && (n = read(fd, back + done, 4095)) > 0)
		done += n;
	EXPECT_EQ(done, sizeof(data));
	EXPECT_EQ(memcmp(back, data, sizeof(data)), 0);
	EXPECT_EQ(pread(fd, back, 10, 4090), 10);
	EXPECT_EQ(memcmp(back, data + 4090, 10), 0);
	close(fd);
}

/* Bytes cut off by a shrink are gone: growing again shows zeros, not the old data. */
TEST(shrink_then_grow_reads_zeros)
{
	unsigned char buf[8192];
	int fd = open(W "/regrow", O_CREAT | O_RDWR | O_TRUNC, 0644), zeros = 0;

	ASSERT_GE(fd, 0);
	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(write(fd, buf, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(ftruncate(fd, 5000), 0);
	EXPECT_EQ(ftruncate(fd, 8192), 0);
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 0), 8192);
	EXPECT_EQ(buf[4999], 'x');
	for (int i = 5000; i < 8192; i++)
		zeros += buf[i] == 0;
	EXPECT_EQ(zeros, 3192);
	/* The same through a write past the end after a shrink. */
	EXPECT_EQ(ftruncate(fd, 100), 0);
	EXPECT_EQ(pwrite(fd, "y", 1, 200), 1);
	EXPECT_EQ(pread(fd, buf, 300, 0), 201);
	EXPECT_EQ(buf[99], 'x');
	EXPECT_EQ(buf[100], 0);
	EXPECT_EQ(buf[199], 0);
	EXPECT_EQ(buf[200], 'y');
	close(fd);
}

/* Access mode 3 (O_WRONLY | O_RDWR): neither reads nor writes, as Linux has it. */
TEST(open_access_mode_3)
{
	char buf[4];
	int fd;

	puts_(W "/acc3", "abc");
	fd = open(W "/acc3", O_WRONLY | O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, 3);
	EXPECT_ERRNO(read(fd, buf, 1), EBADF);
	EXPECT_ERRNO(write(fd, "x", 1), EBADF);
	struct stat st;
	EXPECT_EQ(fstat(fd, &st), 0);
	close(fd);
}

TEST(file_mmap_shares_pages)
{
	char buf[16];
	char *p, *q;
	int fd = open(W "/mm", O_CREAT | O_RDWR | O_TRUNC, 0644), ro, wo;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, 8192), 0);
	EXPECT_EQ(pwrite(fd, "hello", 5, 4096), 5);
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(memcmp(p + 4096, "hello", 5), 0);
	EXPECT_EQ(p[0], 0);
	/* A store through the mapping is what read() sees, and the reverse. */
	memcpy(p + 10, "mapped", 6);
	EXPECT_EQ(pread(fd, buf, 6, 10), 6);
	EXPECT_EQ(memcmp(buf, "mapped", 6), 0);
	EXPECT_EQ(pwrite(fd, "WRITE", 5, 4096), 5);
	EXPECT_EQ(memcmp(p + 4096, "WRITE", 5), 0);
	EXPECT_EQ(msync(p, 8192, MS_SYNC), 0);
	/* A private mapping copies on write: the file does not change. */
	q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(q, MAP_FAILED);
	EXPECT_EQ(memcmp(q + 10, "mapped", 6), 0);
	q[10] = 'M';
	EXPECT_EQ(pread(fd, buf, 1, 10), 1);
	EXPECT_EQ(buf[0], 'm');
	EXPECT_EQ(p[10], 'm');
	EXPECT_EQ(munmap(q, 4096), 0);
	EXPECT_EQ(munmap(p, 8192), 0);
	/* Still there after the unmap. */
	EXPECT_EQ(pread(fd, buf, 6, 10), 6);
	EXPECT_EQ(memcmp(buf, "mapped", 6), 0);
	ro = open(W "/mm", O_RDONLY);
	wo = open(W "/mm", O_WRONLY);
	ASSERT_GE(ro, 0);
	ASSERT_GE(wo, 0);
	EXPECT_EQ(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), MAP_FAILED);
	EXPECT_EQ(errno, EACCES);
	q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0); /* private: fine */
	EXPECT_NE(q, MAP_FAILED);
	munmap(q, 4096);
	EXPECT_EQ(mmap(NULL, 4096, PROT_READ, MAP_SHARED, wo, 0), MAP_FAILED);
	EXPECT_EQ(errno, EACCES);
	close(ro);
	close(wo);
	close(fd);
	fd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0), MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);
	close(fd);
}

/* busybox cp copies with sendfile. */
TEST(sendfile_between_files)
{
	char buf[32];
	off_t off;
	int in, out, ap;

	puts_(W "/sf-in", "0123456789");
	in = open(W "/sf-in", O_RDONLY);
	out = open(W "/sf-out", O_CREAT | O_RDWR | O_TRUNC, 0644);
	ASSERT_GE(in, 0);
	ASSERT_GE(out, 0);
	EXPECT_EQ(lseek(in, 2, SEEK_SET), 2);
	EXPECT_EQ(syscall(SYS_sendfile, out, in, NULL, 4), 4); /* from in's position */
	EXPECT_EQ(lseek(in, 0, SEEK_CUR), 6);
	EXPECT_EQ(lseek(out, 0, SEEK_CUR), 4);
	EXPECT_EQ(syscall(SYS_sendfile, out, in, NULL, 100), 4); /* to the end */
	EXPECT_EQ(syscall(SYS_sendfile, out, in, NULL, 100), 0);
	off = 1;
	EXPECT_EQ(syscall(SYS_sendfile, out, in, &off, 3), 3); /* at *off: in's position stays */
	EXPECT_EQ(off, 4);
	EXPECT_EQ(lseek(in, 0, SEEK_CUR), 10);
	EXPECT_EQ(syscall(SYS_sendfile, out, in, NULL, 0), 0);
	EXPECT_EQ(slurp(W "/sf-out", buf, sizeof(buf)), 11);
	EXPECT_STREQ(buf, "23456789123");
	off = -1;
	EXPECT_ERRNO(syscall(SYS_sendfile, out, in, &off, 3), EINVAL);
	EXPECT_ERRNO(syscall(SYS_sendfile, in, out, NULL, 3), EBADF); /* out not writable */
	ap = open(W "/sf-out", O_WRONLY | O_APPEND);
	ASSERT_GE(ap, 0);
	EXPECT_ERRNO(syscall(SYS_sendfile, ap, in, &(off_t){ 0 }, 3), EINVAL);
	close(ap);
	EXPECT_ERRNO(syscall(SYS_sendfile, out, 999, NULL, 3), EBADF);
	close(in);
	close(out);
}

TEST(copy_file_range_between_files)
{
	char buf[32];
	loff_t off_in = 5, off_out = 0;
	int in, out, ap;

	puts_(W "/cfr-in", "abcdefghij");
	in = open(W "/cfr-in", O_RDONLY);
	out = open(W "/cfr-out", O_CREAT | O_RDWR | O_TRUNC, 0644);
	ASSERT_GE(in, 0);
	ASSERT_GE(out, 0);
	EXPECT_EQ(syscall(SYS_copy_file_range, in, NULL, out, NULL, 3, 0), 3);
	EXPECT_EQ(lseek(in, 0, SEEK_CUR), 3);
	EXPECT_EQ(lseek(out, 0, SEEK_CUR), 3);
	EXPECT_EQ(syscall(SYS_copy_file_range, in, &off_in, out, &off_out, 100, 0), 5);
	EXPECT_EQ(off_in, 10);
	EXPECT_EQ(off_out, 5);
	EXPECT_EQ(lseek(in, 0, SEEK_CUR), 3);
	EXPECT_EQ(syscall(SYS_copy_file_range, in, &off_in, out, NULL, 100, 0), 0); /* at EOF */
	EXPECT_EQ(slurp(W "/cfr-out", buf, sizeof(buf)), 5);
	EXPECT_STREQ(buf, "fghij");
	EXPECT_ERRNO(syscall(SYS_copy_file_range, in, NULL, out, NULL, 3, 1), EINVAL);
	ap = open(W "/cfr-out", O_WRONLY | O_APPEND);
	ASSERT_GE(ap, 0);
	EXPECT_ERRNO(syscall(SYS_copy_file_range, in, NULL, ap, NULL, 3, 0), EBADF);
	close(ap);
	EXPECT_ERRNO(syscall(SYS_copy_file_range, out, NULL, in, NULL, 3, 0), EBADF);
	close(in);
	close(out);
}

/* ---- lseek ---- */

TEST(lseek_whence)
{
	int fd = open(W "/seek", O_CREAT | O_RDWR | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "0123456789", 10), 10);
	EXPECT_EQ(lseek(fd, 4, SEEK_SET), 4);
	EXPECT_EQ(lseek(fd, 3, SEEK_CUR), 7);
	EXPECT_EQ(lseek(fd, -2, SEEK_CUR), 5);
	EXPECT_EQ(lseek(fd, -1, SEEK_END), 9);
	EXPECT_EQ(lseek(fd, 0, SEEK_END), 10);
	EXPECT_EQ(lseek(fd, 100, SEEK_END), 110);
	EXPECT_ERRNO(lseek(fd, -1, SEEK_SET), EINVAL);
	EXPECT_ERRNO(lseek(fd, -200, SEEK_CUR), EINVAL);
	EXPECT_ERRNO(lseek(fd, -11, SEEK_END), EINVAL);
	EXPECT_ERRNO(lseek(fd, 0, 5), EINVAL);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 110); /* failures left it alone */
	EXPECT_ERRNO(lseek(999, 0, SEEK_SET), EBADF);
	close(fd);
}

TEST(lseek_past_end_makes_a_hole)
{
	char buf[8200];
	struct stat st;
	int fd = open(W "/hole", O_CREAT | O_RDWR | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "a", 1), 1);
	EXPECT_EQ(lseek(fd, 8191, SEEK_SET), 8191);
	EXPECT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_size, 1); /* seeking alone does not grow it */
	EXPECT_EQ(write(fd, "z", 1), 1);
	EXPECT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_size, 8192);
	memset(buf, 0x55, sizeof(buf));
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 0), 8192);
	EXPECT_EQ(buf[0], 'a');
	EXPECT_EQ(buf[8191], 'z');
	int zeros = 0;
	for (int i = 1; i < 8191; i++)
		zeros += buf[i] == 0;
	EXPECT_EQ(zeros, 8190);
	close(fd);
}

TEST(lseek_data_and_hole)
{
	int fd = open(W "/sdata", O_CREAT | O_RDWR | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(lseek(fd, 0, SEEK_DATA), ENXIO); /* empty: no data at all */
	EXPECT_ERRNO(lseek(fd, 0, SEEK_HOLE), ENXIO);
	EXPECT_EQ(write(fd, "0123456789", 10), 10);
	EXPECT_EQ(lseek(fd, 0, SEEK_DATA), 0);
	EXPECT_EQ(lseek(fd, 3, SEEK_DATA), 3);
	EXPECT_EQ(lseek(fd, 0, SEEK_HOLE), 10); /* the implicit hole at the end */
	EXPECT_EQ(lseek(fd, 9, SEEK_HOLE), 10);
	EXPECT_ERRNO(lseek(fd, 10, SEEK_DATA), ENXIO);
	EXPECT_ERRNO(lseek(fd, 11, SEEK_DATA), ENXIO);
	EXPECT_ERRNO(lseek(fd, 10, SEEK_HOLE), ENXIO);
	EXPECT_ERRNO(lseek(fd, -1, SEEK_DATA), ENXIO);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 10); /* where the last success left it */
	close(fd);
}

TEST(lseek_on_a_directory)
{
	int fd = open(W, O_RDONLY | O_DIRECTORY);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
	close(fd);
}

/* ---- stat and its relatives ---- */

TEST(stat_kinds)
{
	struct stat st, lst, fst;
	int fd;

	puts_(W "/st-file", "12345");
	mkd(W "/st-dir");
	ASSERT_EQ(symlink("st-file", W "/st-link"), 0);
	ASSERT_EQ(stat(W "/st-file", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0644);
	EXPECT_EQ(st.st_size, 5);
	EXPECT_EQ(st.st_nlink, 1);
	EXPECT_NE(st.st_ino, 0);
	/* stat follows the link, lstat does not. */
	ASSERT_EQ(stat(W "/st-link", &lst), 0);
	EXPECT_EQ(lst.st_ino, st.st_ino);
	ASSERT_EQ(lstat(W "/st-link", &lst), 0);
	EXPECT_EQ(lst.st_mode, S_IFLNK | 0777);
	EXPECT_EQ(lst.st_size, 7);
	EXPECT_EQ(lst.st_nlink, 1);
	EXPECT_NE(lst.st_ino, st.st_ino);
	EXPECT_EQ(lst.st_dev, st.st_dev);
	fd = open(W "/st-file", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &fst), 0);
	EXPECT_EQ(fst.st_ino, st.st_ino);
	EXPECT_EQ(fst.st_dev, st.st_dev);
	EXPECT_EQ(fst.st_size, 5);
	close(fd);
	ASSERT_EQ(stat(W "/st-dir", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFDIR | 0755);
	EXPECT_EQ(st.st_nlink, 2);
	EXPECT_EQ(st.st_rdev, 0);
}

TEST(stat_errors)
{
	struct stat st;

	puts_(W "/sterr", "x");
	EXPECT_ERRNO(stat(W "/sterr-missing", &st), ENOENT);
	EXPECT_ERRNO(stat(W "/sterr/x", &st), ENOTDIR);
	EXPECT_ERRNO(stat(W "/sterr/", &st), ENOTDIR);
	EXPECT_ERRNO(stat("", &st), ENOENT);
	/* Raw calls: musl converts through a buffer of its own and would fault itself. */
	EXPECT_ERRNO(syscall(SYS_stat, W "/sterr", NULL), EFAULT);
	EXPECT_ERRNO(syscall(SYS_stat, NULL, &st), EFAULT);
	EXPECT_ERRNO(syscall(SYS_stat, unmapped(), &st), EFAULT);
	EXPECT_ERRNO(syscall(SYS_lstat, NULL, &st), EFAULT);
	EXPECT_ERRNO(fstat(-1, &st), EBADF);
	EXPECT_ERRNO(fstat(999, &st), EBADF);
	EXPECT_ERRNO(syscall(SYS_fstat, 0, NULL), EFAULT);
}

TEST(newfstatat_flags)
{
	struct stat st;
	int dfd, fd;

	puts_(W "/nfa", "abc");
	ASSERT_EQ(symlink("nfa", W "/nfa-link"), 0);
	dfd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	ASSERT_EQ(sys_newfstatat(dfd, "nfa-link", &st, 0), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0644);
	ASSERT_EQ(sys_newfstatat(dfd, "nfa-link", &st, AT_SYMLINK_NOFOLLOW), 0);
	EXPECT_EQ(st.st_mode, S_IFLNK | 0777);
	/* AT_EMPTY_PATH: the fd itself, a file or the directory. */
	fd = open(W "/nfa", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(sys_newfstatat(fd, "", &st, AT_EMPTY_PATH), 0);
	EXPECT_EQ(st.st_size, 3);
	ASSERT_EQ(sys_newfstatat(dfd, "", &st, AT_EMPTY_PATH), 0);
	EXPECT_EQ(st.st_mode, S_IFDIR | 0755);
	EXPECT_ERRNO(sys_newfstatat(fd, "", &st, 0), ENOENT);
	EXPECT_ERRNO(sys_newfstatat(fd, "x", &st, 0), ENOTDIR);
	EXPECT_ERRNO(sys_newfstatat(999, "", &st, AT_EMPTY_PATH), EBADF);
	EXPECT_ERRNO(sys_newfstatat(dfd, "nfa", &st, AT_BOGUS), EINVAL);
	EXPECT_ERRNO(sys_newfstatat(dfd, "nfa", &st, AT_REMOVEDIR), EINVAL);
	EXPECT_ERRNO(sys_newfstatat(dfd, NULL, &st, 0), EFAULT);
	close(fd);
	close(dfd);
}

TEST(statx_basics)
{
	struct statx_ stx;
	int fd;

	puts_(W "/stx", "0123456");
	mkd(W "/stx-dir");
	memset(&stx, 0xff, sizeof(stx));
	ASSERT_EQ(sys_statx(AT_FDCWD, W "/stx", 0, STATX_BASIC_STATS_, &stx), 0);
	EXPECT_EQ(stx.stx_mask & STATX_BASIC_STATS_, STATX_BASIC_STATS_);
	EXPECT_EQ(stx.stx_mode, S_IFREG | 0644);
	EXPECT_EQ(stx.stx_size, 7);
	EXPECT_EQ(stx.stx_nlink, 1);
	EXPECT_EQ(stx.stx_uid, 0);
	EXPECT_EQ(stx.stx_gid, 0);
	EXPECT_EQ(stx.stx_blksize, 4096);
	EXPECT_EQ(stx.stx_ino, ino(W "/stx"));
	EXPECT_EQ(stx.spare0, 0);
	ASSERT_EQ(sys_statx(AT_FDCWD, W "/stx-dir", 0, STATX_MODE_ | STATX_NLINK_, &stx), 0);
	EXPECT_EQ(stx.stx_mode, S_IFDIR | 0755);
	EXPECT_EQ(stx.stx_nlink, 2);
	fd = open(W "/stx", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(sys_statx(fd, "", AT_EMPTY_PATH, STATX_SIZE_, &stx), 0);
	EXPECT_EQ(stx.stx_size, 7);
	close(fd);
	EXPECT_ERRNO(sys_statx(AT_FDCWD, W "/stx", AT_BOGUS, STATX_BASIC_STATS_, &stx), EINVAL);
	EXPECT_ERRNO(sys_statx(AT_FDCWD, W "/stx", 0, 0x80000000u, &stx), EINVAL);
	EXPECT_ERRNO(sys_statx(AT_FDCWD, W "/stx", 0x6000, STATX_BASIC_STATS_, &stx), EINVAL);
	EXPECT_ERRNO(sys_statx(AT_FDCWD, W "/stx-missing", 0, STATX_BASIC_STATS_, &stx), ENOENT);
	EXPECT_ERRNO(sys_statx(AT_FDCWD, W "/stx", 0, STATX_BASIC_STATS_, NULL), EFAULT);
}

TEST(directory_nlink_counts_subdirectories)
{
	mkd(W "/nl");
	EXPECT_EQ(nlinks(W "/nl"), 2);
	mkd(W "/nl/a");
	mkd(W "/nl/b");
	EXPECT_EQ(nlinks(W "/nl"), 4);
	puts_(W "/nl/file", "x"); /* files do not count */
	ASSERT_EQ(symlink("a", W "/nl/link"), 0);
	EXPECT_EQ(nlinks(W "/nl"), 4);
	mkd(W "/nl/a/sub");
	EXPECT_EQ(nlinks(W "/nl"), 4);
	EXPECT_EQ(nlinks(W "/nl/a"), 3);
	ASSERT_EQ(rename(W "/nl/a/sub", W "/nl/b/sub"), 0);
	EXPECT_EQ(nlinks(W "/nl/a"), 2);
	EXPECT_EQ(nlinks(W "/nl/b"), 3);
	ASSERT_EQ(rmdir(W "/nl/b/sub"), 0);
	EXPECT_EQ(nlinks(W "/nl/b"), 2);
	ASSERT_EQ(rmdir(W "/nl/b"), 0);
	EXPECT_EQ(nlinks(W "/nl"), 3);
}

TEST(blksize_and_blocks)
{
	char buf[5000];
	struct stat st;

	memset(buf, 'b', sizeof(buf));
	put(W "/blocks", buf, sizeof(buf));
	ASSERT_EQ(stat(W "/blocks", &st), 0);
	EXPECT_EQ(st.st_blksize, 4096);
	ktap_print("5000-byte file: st_blocks %ld", (long)st.st_blocks);
	/* tmpfs counts whole pages in 512-byte units: two pages. */
	EXPECT_EQ(st.st_blocks, 16);
	ASSERT_EQ(truncate(W "/blocks", 0), 0);
	ASSERT_EQ(stat(W "/blocks", &st), 0);
	EXPECT_EQ(st.st_blocks, 0);
	ASSERT_EQ(stat(W, &st), 0);
	EXPECT_EQ(st.st_blksize, 4096);
	EXPECT_EQ(st.st_blocks, 0);
}

/* tmpfs sizes a directory in 20-byte "bogo" entries: 40 when empty, +20 a name. */
TEST(directory_sizes)
{
	mkd(W "/dsz");
	EXPECT_EQ(lsize(W "/dsz"), 40);
	puts_(W "/dsz/a", "");
	EXPECT_EQ(lsize(W "/dsz"), 60);
	mkd(W "/dsz/b");
	ASSERT_EQ(symlink("a", W "/dsz/c"), 0);
	EXPECT_EQ(lsize(W "/dsz"), 100);
	ASSERT_EQ(unlink(W "/dsz/a"), 0);
	EXPECT_EQ(lsize(W "/dsz"), 80);
}

/* ---- getdents64 ---- */

/* Reads all of dir's entries; returns the count, with each name's d_type in types. */
static int list_dir(int fd, const char *const *names, int *types, int nnames)
{
	static char buf[4096];
	long n;
	int count = 0;

	for (int i = 0; i < nnames; i++)
		types[i] = -1;
	while ((n = sys_getdents64(fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);

			EXPECT_EQ(d->d_reclen % 8, 0);
			EXPECT_LE(offsetof(struct dirent64_raw, d_name) + strlen(d->d_name) + 1,
				  d->d_reclen);
			EXPECT_NE(d->d_ino, 0);
			for (int i = 0; i < nnames; i++)
				if (!strcmp(d->d_name, names[i]))
					types[i] = d->d_type;
			count++;
			off += d->d_reclen;
		}
	}
	EXPECT_EQ(n, 0);
	return count;
}

TEST(getdents64_names_and_types)
{
	static const char *const names[] = { ".", "..", "reg", "dir", "lnk" };
	int types[5], fd;

	mkd(W "/gd");
	puts_(W "/gd/reg", "x");
	mkd(W "/gd/dir");
	ASSERT_EQ(symlink("reg", W "/gd/lnk"), 0);
	fd = open(W "/gd", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(list_dir(fd, names, types, 5), 5);
	EXPECT_EQ(types[0], DT_DIR_);
	EXPECT_EQ(types[1], DT_DIR_);
	EXPECT_EQ(types[2], DT_REG_);
	EXPECT_EQ(types[3], DT_DIR_);
	EXPECT_EQ(types[4], DT_LNK_);
	/* At the end: 0 again; rewinding lists it all again. */
	EXPECT_EQ(sys_getdents64(fd, (char[256]){ 0 }, 256), 0);
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
	EXPECT_EQ(list_dir(fd, names, types, 5), 5);
	close(fd);
}

TEST(getdents64_inodes_match_stat)
{
	char buf[1024];
	long n;
	int fd, found = 0;

	mkd(W "/gdi");
	puts_(W "/gdi/one", "1");
	fd = open(W "/gdi", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	n = sys_getdents64(fd, buf, sizeof(buf));
	ASSERT_GT(n, 0);
	for (long off = 0; off < n;) {
		struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);

		if (!strcmp(d->d_name, "one")) {
			EXPECT_EQ(d->d_ino, ino(W "/gdi/one"));
			found++;
		} else if (!strcmp(d->d_name, ".")) {
			EXPECT_EQ(d->d_ino, ino(W "/gdi"));
			found++;
		} else if (!strcmp(d->d_name, "..")) {
			EXPECT_EQ(d->d_ino, ino(W));
			found++;
		}
		off += d->d_reclen;
	}
	EXPECT_EQ(found, 3);
	close(fd);
}

TEST(getdents64_errors)
{
	char buf[512];
	int fd, dfd;

	puts_(W "/gde", "x");
	fd = open(W "/gde", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(sys_getdents64(fd, buf, sizeof(buf)), ENOTDIR);
	close(fd);
	EXPECT_ERRNO(sys_getdents64(999, buf, sizeof(buf)), EBADF);
	dfd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	EXPECT_ERRNO(sys_getdents64(dfd, buf, 8), EINVAL); /* not even one record fits */
	EXPECT_ERRNO(sys_getdents64(dfd, NULL, sizeof(buf)), EFAULT);
	close(dfd);
	/* A directory removed while open lists nothing: ENOENT. */
	mkd(W "/gde-dir");
	dfd = open(W "/gde-dir", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	ASSERT_EQ(rmdir(W "/gde-dir"), 0);
	EXPECT_ERRNO(sys_getdents64(dfd, buf, sizeof(buf)), ENOENT);
	close(dfd);
}

TEST(getdents64_small_buffer_resumes)
{
	static const char *const names[] = { "aaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb",
					     "cccccccccccccccccccc" };
	char buf[48], path[128];
	long n;
	int fd, seen = 0, calls = 0;

	mkd(W "/gds");
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), W "/gds/%s", names[i]);
		puts_(path, "x");
	}
	fd = open(W "/gds", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	/*
	 * "." and ".." take 24 bytes each and share the first call; each 20-byte name takes
	 * 40 (19 header bytes, the name, its NUL, rounded up to 8): one a call.
	 */
	while ((n = sys_getdents64(fd, buf, sizeof(buf))) > 0) {
		struct dirent64_raw *d = (struct dirent64_raw *)buf;

		if (calls++ == 0) {
			EXPECT_EQ(n, 48);
			EXPECT_EQ(d->d_reclen, 24);
			continue;
		}
		EXPECT_EQ(n, 40);
		EXPECT_EQ(d->d_reclen, 40);
		seen += strlen(d->d_name) == 20;
	}
	EXPECT_EQ(n, 0);
	EXPECT_EQ(seen, 3);
	EXPECT_EQ(calls, 4);
	close(fd);
}

/* ---- mknod ---- */

TEST(mknod_kinds)
{
	struct stat st;
	char buf[4];
	int fd;

	EXPECT_EQ(mknod(W "/mk-null", S_IFCHR | 0666, makedev(1, 3)), 0);
	ASSERT_EQ(lstat(W "/mk-null", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFCHR | 0644); /* the umask applies */
	EXPECT_EQ(major(st.st_rdev), 1);
	EXPECT_EQ(minor(st.st_rdev), 3);
	EXPECT_EQ(st.st_size, 0);
	/* A device node works wherever it lives: this one is /dev/null. */
	fd = open(W "/mk-null", O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "abc", 3), 3);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 0);
	close(fd);
	EXPECT_EQ(mknod(W "/mk-fifo", S_IFIFO | 0600, 0), 0);
	EXPECT_EQ(lmode(W "/mk-fifo"), S_IFIFO | 0600);
	EXPECT_EQ(mknod(W "/mk-reg", 0600, 0), 0); /* type 0 is a regular file */
	EXPECT_EQ(lmode(W "/mk-reg"), S_IFREG | 0600);
	EXPECT_EQ(mknod(W "/mk-blk", S_IFBLK | 0600, makedev(7, 0)), 0);
	EXPECT_EQ(lmode(W "/mk-blk"), S_IFBLK | 0600);
	EXPECT_ERRNO(mknod(W "/mk-dir", S_IFDIR | 0755, 0), EPERM);
	EXPECT_ERRNO(mknod(W "/mk-lnk", S_IFLNK | 0777, 0), EINVAL);
	EXPECT_ERRNO(mknod(W "/mk-null", S_IFCHR | 0666, makedev(1, 3)), EEXIST);
	EXPECT_ERRNO(mknod(W "/mk-missing/x", S_IFIFO | 0600, 0), ENOENT);
}

/* ---- mkdir, rmdir ---- */

TEST(mkdir_and_errors)
{
	int dfd;

	EXPECT_EQ(mkdir(W "/md", 0700), 0);
	EXPECT_EQ(lmode(W "/md"), S_IFDIR | 0700);
	EXPECT_ERRNO(mkdir(W "/md", 0700), EEXIST);
	EXPECT_ERRNO(mkdir(W "/md-missing/sub", 0700), ENOENT);
	puts_(W "/md-file", "x");
	EXPECT_ERRNO(mkdir(W "/md-file", 0700), EEXIST);
	EXPECT_ERRNO(mkdir(W "/md-file/sub", 0700), ENOTDIR);
	ASSERT_EQ(symlink("md-nowhere", W "/md-link"), 0);
	EXPECT_ERRNO(mkdir(W "/md-link", 0700), EEXIST); /* not followed */
	EXPECT_FALSE(exists(W "/md-nowhere"));
	EXPECT_EQ(mkdir(W "/md-slash/", 0700), 0);
	EXPECT_EQ(lmode(W "/md-slash"), S_IFDIR | 0700);
	EXPECT_ERRNO(mkdir("/", 0700), EEXIST);
	EXPECT_ERRNO(mkdir(W "/md/.", 0700), EEXIST);
	EXPECT_ERRNO(mkdir(W "/md/..", 0700), EEXIST);
	EXPECT_ERRNO(mkdir("", 0700), ENOENT);
	EXPECT_ERRNO(mkdir(NULL, 0700), EFAULT);
	dfd = open(W "/md", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	EXPECT_EQ(mkdirat(dfd, "sub", 0750), 0);
	EXPECT_EQ(lmode(W "/md/sub"), S_IFDIR | 0750);
	EXPECT_ERRNO(mkdirat(999, "sub", 0750), EBADF);
	close(dfd);
}

/* mkdir keeps the sticky bit but drops set-id bits; the umask applies. */
TEST(mkdir_mode_bits)
{
	mode_t old = umask(0);

	EXPECT_EQ(mkdir(W "/mdm", 07777), 0);
	EXPECT_EQ(lmode(W "/mdm"), S_IFDIR | 01777);
	umask(077);
	EXPECT_EQ(mkdir(W "/mdm2", 0777), 0);
	EXPECT_EQ(lmode(W "/mdm2"), S_IFDIR | 0700);
	umask(old);
}

TEST(rmdir_and_errors)
{
	mkd(W "/rd");
	mkd(W "/rd/sub");
	puts_(W "/rd-file", "x");
	EXPECT_ERRNO(rmdir(W "/rd"), ENOTEMPTY);
	EXPECT_ERRNO(rmdir(W "/rd-file"), ENOTDIR);
	EXPECT_ERRNO(rmdir(W "/rd-missing"), ENOENT);
	EXPECT_ERRNO(rmdir(W "/rd/sub/."), EINVAL);
	EXPECT_ERRNO(rmdir(W "/rd/sub/.."), ENOTEMPTY);
	EXPECT_ERRNO(rmdir("/"), EBUSY);
	ASSERT_EQ(symlink("rd/sub", W "/rd-link"), 0);
	EXPECT_ERRNO(rmdir(W "/rd-link"), ENOTDIR);
	EXPECT_EQ(rmdir(W "/rd/sub/"), 0);
	EXPECT_FALSE(exists(W "/rd/sub"));
	EXPECT_EQ(rmdir(W "/rd"), 0);
	EXPECT_FALSE(exists(W "/rd"));
	EXPECT_ERRNO(rmdir(NULL), EFAULT);
}

TEST(rmdir_cwd_then_getcwd)
{
	char buf[256];

	mkd(W "/gone");
	ASSERT_EQ(chdir(W "/gone"), 0);
	EXPECT_EQ(rmdir(W "/gone"), 0);
	/* Linux 6.1 answers ENOENT for a removed working directory. */
	EXPECT_ERRNO(sys_getcwd(buf, sizeof(buf)), ENOENT);
	/* "." still names the dead directory; nothing can be created in it. */
	int fd = open(".", O_RDONLY);
	EXPECT_GE(fd, 0);
	close(fd);
	EXPECT_ERRNO(open("new", O_CREAT | O_RDWR, 0644), ENOENT);
	EXPECT_ERRNO(mkdir("new", 0755), ENOENT);
	ASSERT_EQ(chdir("/"), 0);
}

/* ---- unlink ---- */

TEST(unlink_and_errors)
{
	char buf[8];
	struct stat st;
	int fd, dfd;

	puts_(W "/ul", "data");
	fd = open(W "/ul", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(unlink(W "/ul"), 0);
	EXPECT_FALSE(exists(W "/ul"));
	/* The open file lives on, with no name. */
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_nlink, 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 4);
	close(fd);
	EXPECT_ERRNO(unlink(W "/ul"), ENOENT);
	mkd(W "/ul-dir");
	EXPECT_ERRNO(unlink(W "/ul-dir"), EISDIR);
	puts_(W "/ul-file", "x");
	EXPECT_ERRNO(unlink(W "/ul-file/"), ENOTDIR);
	EXPECT_ERRNO(unlink(W "/ul-file/x"), ENOTDIR);
	/* A symlink goes, its target stays. */
	ASSERT_EQ(symlink("ul-file", W "/ul-link"), 0);
	EXPECT_EQ(unlink(W "/ul-link"), 0);
	EXPECT_TRUE(exists(W "/ul-file"));
	EXPECT_ERRNO(unlink(NULL), EFAULT);
	EXPECT_ERRNO(unlink(""), ENOENT);
	dfd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	EXPECT_ERRNO(unlinkat(dfd, "ul-file", AT_REMOVEDIR), ENOTDIR);
	EXPECT_ERRNO(unlinkat(dfd, "ul-dir", 0), EISDIR);
	EXPECT_ERRNO(unlinkat(dfd, "ul-file", AT_SYMLINK_NOFOLLOW), EINVAL);
	EXPECT_ERRNO(unlinkat(dfd, "ul-file", AT_BOGUS), EINVAL);
	EXPECT_EQ(unlinkat(dfd, "ul-dir", AT_REMOVEDIR), 0);
	EXPECT_EQ(unlinkat(dfd, "ul-file", 0), 0);
	EXPECT_FALSE(exists(W "/ul-dir"));
	EXPECT_FALSE(exists(W "/ul-file"));
	EXPECT_ERRNO(unlinkat(999, "ul-file", 0), EBADF);
	close(dfd);
}

/* ---- rename ---- */

TEST(rename_files)
{
	char buf[16];
	long long src;

	puts_(W "/rn-a", "AAA");
	puts_(W "/rn-b", "B");
	src = ino(W "/rn-a");
	EXPECT_EQ(rename(W "/rn-a", W "/rn-b"), 0); /* over a file: replaced */
	EXPECT_FALSE(exists(W "/rn-a"));
	EXPECT_EQ(ino(W "/rn-b"), src);
	EXPECT_EQ(slurp(W "/rn-b", buf, sizeof(buf)), 3);
	mkd(W "/rn-d");
	EXPECT_EQ(rename(W "/rn-b", W "/rn-d/moved"), 0); /* into another directory */
	EXPECT_EQ(ino(W "/rn-d/moved"), src);
	EXPECT_EQ(rename(W "/rn-d/moved", W "/rn-d/moved"), 0); /* onto itself: nothing */
	EXPECT_EQ(ino(W "/rn-d/moved"), src);
	/* Two links to one inode: success, and both names stay. */
	ASSERT_EQ(link(W "/rn-d/moved", W "/rn-d/hard"), 0);
	EXPECT_EQ(rename(W "/rn-d/moved", W "/rn-d/hard"), 0);
	EXPECT_TRUE(exists(W "/rn-d/moved"));
	EXPECT_TRUE(exists(W "/rn-d/hard"));
	EXPECT_ERRNO(rename(W "/rn-missing", W "/rn-x"), ENOENT);
	EXPECT_ERRNO(rename(W "/rn-d/moved", W "/rn-missing/x"), ENOENT);
	EXPECT_ERRNO(rename(W "/rn-d/moved/", W "/rn-x"), ENOTDIR);
	EXPECT_ERRNO(rename(W "/rn-d/moved", W "/rn-x/"), ENOTDIR);
}

TEST(rename_directories)
{
	mkd(W "/rnd");
	mkd(W "/rnd/a");
	puts_(W "/rnd/a/inside", "x");
	mkd(W "/rnd/empty");
	mkd(W "/rnd/full");
	puts_(W "/rnd/full/f", "x");
	EXPECT_EQ(nlinks(W "/rnd"), 5);
	EXPECT_ERRNO(rename(W "/rnd/a", W "/rnd/full"), ENOTEMPTY);
	EXPECT_EQ(rename(W "/rnd/a", W "/rnd/empty"), 0); /* over an empty directory */
	EXPECT_TRUE(exists(W "/rnd/empty/inside"));
	EXPECT_FALSE(exists(W "/rnd/a"));
	EXPECT_EQ(nlinks(W "/rnd"), 4);
	EXPECT_ERRNO(rename(W "/rnd/empty", W "/rnd/empty/inside-dir"), EINVAL);
	mkd(W "/rnd/empty/sub");
	EXPECT_ERRNO(rename(W "/rnd/empty", W "/rnd/empty/sub/deeper"), EINVAL);
	EXPECT_ERRNO(rename(W "/rnd/empty", W "/rnd/empty/sub"), EINVAL);
	EXPECT_EQ(rename(W "/rnd/empty/", W "/rnd/moved/"), 0); /* trailing slashes on directories */
	EXPECT_TRUE(exists(W "/rnd/moved/sub"));
	EXPECT_EQ(ino(W "/rnd/moved/sub/.."), ino(W "/rnd/moved"));
	/* The moved directory's ".." follows it. */
	EXPECT_EQ(rename(W "/rnd/moved/sub", W "/rnd/sub"), 0);
	EXPECT_EQ(ino(W "/rnd/sub/.."), ino(W "/rnd"));
	EXPECT_EQ(nlinks(W "/rnd/moved"), 2);
	EXPECT_EQ(nlinks(W "/rnd"), 5);
	EXPECT_ERRNO(rename(W "/rnd/sub/.", W "/rnd/x"), EBUSY);
	EXPECT_ERRNO(rename(W "/rnd/sub", W "/rnd/moved/."), EBUSY);
}

TEST(rename_kind_mismatches)
{
	mkd(W "/rnk");
	mkd(W "/rnk/dir");
	puts_(W "/rnk/file", "x");
	EXPECT_ERRNO(rename(W "/rnk/file", W "/rnk/dir"), EISDIR);
	EXPECT_ERRNO(rename(W "/rnk/dir", W "/rnk/file"), ENOTDIR);
	/* A trailing slash on a non-directory wins over the kind mismatch. */
	EXPECT_ERRNO(rename(W "/rnk/file", W "/rnk/dir/"), ENOTDIR);
	EXPECT_TRUE(exists(W "/rnk/file"));
	EXPECT_TRUE(exists(W "/rnk/dir"));
	/* A symlink is renamed as itself, whatever it points to. */
	ASSERT_EQ(symlink("dir", W "/rnk/ldir"), 0);
	EXPECT_EQ(rename(W "/rnk/ldir", W "/rnk/file"), 0);
	EXPECT_EQ(lmode(W "/rnk/file"), S_IFLNK | 0777);
	EXPECT_ERRNO(rename(NULL, W "/rnk/x"), EFAULT);
	EXPECT_ERRNO(rename(W "/rnk/file", NULL), EFAULT);
}

TEST(renameat2_flags)
{
	char buf[8];
	long long ia, ib;
	int dfd;

	mkd(W "/r2");
	dfd = open(W "/r2", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	puts_(W "/r2/a", "A");
	puts_(W "/r2/b", "B");
	EXPECT_ERRNO(sys_renameat2(dfd, "a", dfd, "b", RENAME_NOREPLACE), EEXIST);
	EXPECT_EQ(sys_renameat2(dfd, "a", dfd, "c", RENAME_NOREPLACE), 0);
	EXPECT_FALSE(exists(W "/r2/a"));
	ia = ino(W "/r2/c");
	ib = ino(W "/r2/b");
	EXPECT_EQ(sys_renameat2(dfd, "c", dfd, "b", RENAME_EXCHANGE), 0);
	EXPECT_EQ(ino(W "/r2/b"), ia);
	EXPECT_EQ(ino(W "/r2/c"), ib);
	EXPECT_EQ(slurp(W "/r2/b", buf, sizeof(buf)), 1);
	EXPECT_STREQ(buf, "A");
	/* Exchange works across kinds too: a file with a directory. */
	mkd(W "/r2/d");
	mkd(W "/r2/d/sub");
	EXPECT_EQ(sys_renameat2(dfd, "b", dfd, "d", RENAME_EXCHANGE), 0);
	EXPECT_EQ(lmode(W "/r2/b") & S_IFMT, S_IFDIR);
	EXPECT_TRUE(exists(W "/r2/b/sub"));
	EXPECT_EQ(lmode(W "/r2/d") & S_IFMT, S_IFREG);
	EXPECT_ERRNO(sys_renameat2(dfd, "b", dfd, "missing", RENAME_EXCHANGE), ENOENT);
	EXPECT_ERRNO(sys_renameat2(dfd, "b", dfd, "c", RENAME_EXCHANGE | RENAME_NOREPLACE), EINVAL);
	EXPECT_ERRNO(sys_renameat2(dfd, "b", dfd, "c", 1 << 3), EINVAL);
	EXPECT_ERRNO(sys_renameat2(dfd, "b", dfd, "c", AT_BOGUS), EINVAL);
	EXPECT_EQ(sys_renameat2(dfd, "c", AT_FDCWD, W "/r2-top", 0), 0);
	EXPECT_TRUE(exists(W "/r2-top"));
	EXPECT_ERRNO(sys_renameat2(999, "b", dfd, "x", 0), EBADF);
	close(dfd);
}

/* ---- link ---- */

TEST(link_counts_and_errors)
{
	int dfd;

	puts_(W "/ln", "x");
	EXPECT_EQ(link(W "/ln", W "/ln2"), 0);
	EXPECT_EQ(nlinks(W "/ln"), 2);
	EXPECT_EQ(ino(W "/ln2"), ino(W "/ln"));
	EXPECT_ERRNO(link(W "/ln", W "/ln2"), EEXIST);
	EXPECT_ERRNO(link(W "/ln-missing", W "/ln3"), ENOENT);
	EXPECT_ERRNO(link(W, W "/ln-dir"), EPERM);
	EXPECT_ERRNO(link(W "/ln", W "/ln-missing/x"), ENOENT);
	EXPECT_ERRNO(link(W "/ln/", W "/ln4"), ENOTDIR);
	EXPECT_EQ(unlink(W "/ln"), 0);
	EXPECT_EQ(nlinks(W "/ln2"), 1);
	/* linkat does not follow a symlink unless asked. */
	ASSERT_EQ(symlink("ln2", W "/ln-sym"), 0);
	dfd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	EXPECT_EQ(linkat(dfd, "ln-sym", dfd, "ln-sym-hard", 0), 0);
	EXPECT_EQ(lmode(W "/ln-sym-hard"), S_IFLNK | 0777);
	EXPECT_EQ(nlinks(W "/ln-sym"), 2);
	EXPECT_EQ(linkat(dfd, "ln-sym", dfd, "ln-followed", AT_SYMLINK_FOLLOW), 0);
	EXPECT_EQ(ino(W "/ln-followed"), ino(W "/ln2"));
	EXPECT_EQ(nlinks(W "/ln2"), 2);
	EXPECT_ERRNO(linkat(dfd, "ln2", dfd, "ln5", AT_BOGUS), EINVAL);
	EXPECT_ERRNO(linkat(dfd, "ln2", dfd, "ln5", AT_REMOVEDIR), EINVAL);
	/* AT_EMPTY_PATH links an open file (root holds CAP_DAC_READ_SEARCH). */
	int fd = open(W "/ln2", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(linkat(fd, "", dfd, "ln-empty", AT_EMPTY_PATH), 0);
	EXPECT_EQ(ino(W "/ln-empty"), ino(W "/ln2"));
	EXPECT_ERRNO(linkat(fd, "", dfd, "ln-empty2", 0), ENOENT);
	close(fd);
	close(dfd);
}

/* ---- symlink, readlink ---- */

TEST(symlink_readlink)
{
	char buf[64];
	int dfd;

	puts_(W "/sl-target", "data");
	EXPECT_EQ(symlink("sl-target", W "/sl-rel"), 0);
	EXPECT_EQ(symlink(W "/sl-target", W "/sl-abs"), 0);
	memset(buf, 'X', sizeof(buf));
	EXPECT_EQ(readlink(W "/sl-rel", buf, sizeof(buf)), 9);
	EXPECT_EQ(memcmp(buf, "sl-target", 9), 0);
	EXPECT_EQ(buf[9], 'X'); /* no NUL is written */
	EXPECT_EQ(readlink(W "/sl-abs", buf, sizeof(buf)), strlen(W "/sl-target"));
	EXPECT_EQ(slurp(W "/sl-rel", buf, sizeof(buf)), 4);
	EXPECT_EQ(slurp(W "/sl-abs", buf, sizeof(buf)), 4);
	/* Truncated to the buffer, silently. */
	memset(buf, 'X', sizeof(buf));
	EXPECT_EQ(readlink(W "/sl-rel", buf, 4), 4);
	EXPECT_EQ(memcmp(buf, "sl-tX", 5), 0);
	EXPECT_ERRNO(syscall(SYS_readlink, W "/sl-rel", buf, 0), EINVAL); /* musl hides a 0 */
	EXPECT_ERRNO(readlink(W "/sl-target", buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(readlink(W, buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(readlink(W "/sl-missing", buf, sizeof(buf)), ENOENT);
	EXPECT_ERRNO(readlink(W "/sl-rel", NULL, sizeof(buf)), EFAULT);
	EXPECT_ERRNO(symlink("x", W "/sl-rel"), EEXIST);
	EXPECT_ERRNO(symlink("", W "/sl-empty"), ENOENT);
	EXPECT_ERRNO(symlink("x", W "/sl-missing/x"), ENOENT);
	dfd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	EXPECT_EQ(symlinkat("sl-target", dfd, "sl-at"), 0);
	EXPECT_EQ(readlinkat(dfd, "sl-at", buf, sizeof(buf)), 9);
	/* An O_PATH|O_NOFOLLOW descriptor of the link reads with an empty path. */
	int fd = open(W "/sl-at", O_PATH | O_NOFOLLOW);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(readlinkat(fd, "", buf, sizeof(buf)), 9);
	close(fd);
	fd = open(W "/sl-target", O_PATH);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(readlinkat(fd, "", buf, sizeof(buf)), ENOENT); /* not EINVAL, in 6.1 */
	close(fd);
	close(dfd);
}

TEST(symlink_dangling_and_through_dirs)
{
	struct stat st;
	char buf[64];

	EXPECT_EQ(symlink("nowhere", W "/sld"), 0);
	EXPECT_ERRNO(stat(W "/sld", &st), ENOENT);
	EXPECT_EQ(lstat(W "/sld", &st), 0);
	EXPECT_ERRNO(open(W "/sld", O_RDONLY), ENOENT);
	EXPECT_EQ(readlink(W "/sld", buf, sizeof(buf)), 7);
	mkd(W "/sld-dir");
	puts_(W "/sld-dir/f", "hi");
	EXPECT_EQ(symlink("sld-dir", W "/sld-dlink"), 0);
	EXPECT_EQ(slurp(W "/sld-dlink/f", buf, sizeof(buf)), 2);
	/* A link with a trailing slash is followed, even by lstat. */
	EXPECT_EQ(lstat(W "/sld-dlink/", &st), 0);
	EXPECT_EQ(st.st_mode & S_IFMT, S_IFDIR);
	EXPECT_EQ(symlink("sld-dir/f", W "/sld-flink"), 0);
	EXPECT_ERRNO(stat(W "/sld-flink/", &st), ENOTDIR);
}

TEST(symlink_loops)
{
	struct stat st;
	char path[64];

	EXPECT_EQ(symlink("loop-b", W "/loop-a"), 0);
	EXPECT_EQ(symlink("loop-a", W "/loop-b"), 0);
	EXPECT_ERRNO(open(W "/loop-a", O_RDONLY), ELOOP);
	EXPECT_ERRNO(stat(W "/loop-a", &st), ELOOP);
	EXPECT_ERRNO(open(W "/loop-a/x", O_RDONLY), ELOOP);
	EXPECT_ERRNO(open(W "/loop-a", O_CREAT | O_RDWR, 0644), ELOOP);
	EXPECT_EQ(lstat(W "/loop-a", &st), 0);
	EXPECT_EQ(symlink("loop-self", W "/loop-self"), 0);
	EXPECT_ERRNO(stat(W "/loop-self", &st), ELOOP);
	/* 40 links in a chain resolve (MAXSYMLINKS); 41 do not. */
	mkd(W "/chain");
	puts_(W "/chain/l0", "end");
	for (int i = 1; i <= 41; i++) {
		char target[16];

		snprintf(target, sizeof(target), "l%d", i - 1);
		snprintf(path, sizeof(path), W "/chain/l%d", i);
		ASSERT_EQ(symlink(target, path), 0);
	}
	EXPECT_EQ(stat(W "/chain/l40", &st), 0);
	EXPECT_EQ(st.st_size, 3);
	EXPECT_ERRNO(stat(W "/chain/l41", &st), ELOOP);
}

TEST(name_too_long)
{
	char name[300], *path;
	struct stat st;
	int fd;

	memset(name, 'n', sizeof(name));
	memcpy(name, W "/", 7);
	name[7 + 255] = '\0'; /* a 255-byte component: the most */
	fd = open(name, O_CREAT | O_RDWR, 0644);
	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(unlink(name), 0);
	name[7 + 255] = 'n';
	name[7 + 256] = '\0';
	EXPECT_ERRNO(open(name, O_CREAT | O_RDWR, 0644), ENAMETOOLONG);
	EXPECT_ERRNO(stat(name, &st), ENAMETOOLONG);
	EXPECT_ERRNO(mkdir(name, 0755), ENAMETOOLONG);
	EXPECT_ERRNO(symlink("x", name), ENAMETOOLONG);
	/* The whole path: 4095 bytes and the NUL fit PATH_MAX, 4096 do not. */
	path = malloc(PATH_MAX + 2);
	ASSERT_NE(path, NULL);
	memset(path, '/', PATH_MAX + 1);
	strcpy(path + PATH_MAX - 1 - strlen(W), W); /* strlen(path) == 4095 */
	EXPECT_EQ(strlen(path), PATH_MAX - 1);
	EXPECT_EQ(stat(path, &st), 0);
	EXPECT_EQ(st.st_mode & S_IFMT, S_IFDIR);
	memset(path, '/', PATH_MAX + 1);
	strcpy(path + PATH_MAX - strlen(W), W); /* 4096 */
	EXPECT_ERRNO(stat(path, &st), ENAMETOOLONG);
	EXPECT_ERRNO(open(path, O_RDONLY), ENAMETOOLONG);
	/* A symlink target up to 4095 bytes is stored; 4096 is too long. */
	memset(path, 'x', PATH_MAX);
	path[PATH_MAX - 1] = '\0';
	EXPECT_EQ(symlink(path, W "/long-target"), 0);
	EXPECT_EQ(lsize(W "/long-target"), PATH_MAX - 1);
	path[PATH_MAX - 1] = 'x';
	path[PATH_MAX] = '\0';
	EXPECT_ERRNO(symlink(path, W "/long-target2"), ENAMETOOLONG);
	free(path);
}

/* ---- access ---- */

TEST(access_as_root)
{
	puts_(W "/acc", "x");
	EXPECT_EQ(access(W "/acc", F_OK), 0);
	EXPECT_ERRNO(access(W "/acc-missing", F_OK), ENOENT);
	ASSERT_EQ(chmod(W "/acc", 0), 0);
	/* Root reads and writes anything; it executes only what has some x bit. */
	EXPECT_EQ(access(W "/acc", R_OK | W_OK), 0);
	EXPECT_ERRNO(access(W "/acc", X_OK), EACCES);
	ASSERT_EQ(chmod(W "/acc", 0644), 0);
	EXPECT_ERRNO(access(W "/acc", X_OK), EACCES);
	ASSERT_EQ(chmod(W "/acc", 0001), 0);
	EXPECT_EQ(access(W "/acc", X_OK), 0);
	ASSERT_EQ(chmod(W "/acc", 0010), 0);
	EXPECT_EQ(access(W "/acc", R_OK | W_OK | X_OK), 0);
	/* Directories are searchable by root whatever their mode. */
	mkd(W "/acc-dir");
	ASSERT_EQ(chmod(W "/acc-dir", 0), 0);
	EXPECT_EQ(access(W "/acc-dir", R_OK | W_OK | X_OK), 0);
	EXPECT_ERRNO(access(W "/acc", 8), EINVAL);
	EXPECT_ERRNO(access(NULL, F_OK), EFAULT);
	EXPECT_ERRNO(access(W "/acc/x", F_OK), ENOTDIR);
}

TEST(faccessat_and_faccessat2)
{
	int dfd = open(W, O_RDONLY | O_DIRECTORY), fd;

	ASSERT_GE(dfd, 0);
	puts_(W "/fa", "x");
	ASSERT_EQ(symlink("fa-nowhere", W "/fa-dangling"), 0);
	EXPECT_EQ(syscall(SYS_faccessat, dfd, "fa", R_OK), 0);
	EXPECT_ERRNO(syscall(SYS_faccessat, dfd, "fa-dangling", F_OK), ENOENT);
	EXPECT_EQ(sys_faccessat2(dfd, "fa", R_OK | W_OK, AT_EACCESS), 0);
	EXPECT_EQ(sys_faccessat2(dfd, "fa-dangling", F_OK, AT_SYMLINK_NOFOLLOW), 0);
	EXPECT_ERRNO(sys_faccessat2(dfd, "fa-dangling", F_OK, 0), ENOENT);
	fd = open(W "/fa", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(sys_faccessat2(fd, "", R_OK, AT_EMPTY_PATH), 0);
	EXPECT_ERRNO(sys_faccessat2(fd, "", R_OK, 0), ENOENT);
	EXPECT_ERRNO(sys_faccessat2(dfd, "fa", R_OK, AT_SYMLINK_FOLLOW), EINVAL);
	EXPECT_ERRNO(sys_faccessat2(dfd, "fa", 0x10, 0), EINVAL);
	EXPECT_ERRNO(sys_faccessat2(999, "fa", R_OK, 0), EBADF);
	close(fd);
	close(dfd);
}

/* ---- working directory ---- */

TEST(chdir_getcwd)
{
	char buf[256];
	int fd;

	mkd(W "/cwd");
	mkd(W "/cwd/a");
	mkd(W "/cwd/a/b");
	ASSERT_EQ(chdir(W "/cwd/a/b"), 0);
	/* The raw syscall returns the length with the NUL. */
	EXPECT_EQ(sys_getcwd(buf, sizeof(buf)), strlen(W "/cwd/a/b") + 1);
	EXPECT_STREQ(buf, W "/cwd/a/b");
	ASSERT_EQ(chdir(".."), 0);
	EXPECT_NE(getcwd(buf, sizeof(buf)), NULL);
	EXPECT_STREQ(buf, W "/cwd/a");
	ASSERT_EQ(chdir("b/../../a/./b"), 0);
	EXPECT_NE(getcwd(buf, sizeof(buf)), NULL);
	EXPECT_STREQ(buf, W "/cwd/a/b");
	puts_("rel-file", "x"); /* relative paths start here */
	EXPECT_TRUE(exists(W "/cwd/a/b/rel-file"));
	EXPECT_ERRNO(sys_getcwd(buf, strlen(W "/cwd/a/b")), ERANGE);
	EXPECT_EQ(sys_getcwd(buf, strlen(W "/cwd/a/b") + 1), strlen(W "/cwd/a/b") + 1);
	EXPECT_ERRNO(sys_getcwd(buf, 0), ERANGE);
	EXPECT_ERRNO(sys_getcwd(NULL, sizeof(buf)), EFAULT);
	fd = open(W "/cwd", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fchdir(fd), 0);
	EXPECT_NE(getcwd(buf, sizeof(buf)), NULL);
	EXPECT_STREQ(buf, W "/cwd");
	close(fd);
	/* ".." of the root is the root. */
	ASSERT_EQ(chdir("/../.."), 0);
	EXPECT_EQ(sys_getcwd(buf, sizeof(buf)), 2);
	EXPECT_STREQ(buf, "/");
	/* Through a symlink, getcwd gives the real path. */
	ASSERT_EQ(symlink("cwd/a", W "/cwd-link"), 0);
	ASSERT_EQ(chdir(W "/cwd-link/b"), 0);
	EXPECT_NE(getcwd(buf, sizeof(buf)), NULL);
	EXPECT_STREQ(buf, W "/cwd/a/b");
	ASSERT_EQ(chdir("/"), 0);
}

TEST(chdir_errors)
{
	int fd;

	puts_(W "/cd-file", "x");
	EXPECT_ERRNO(chdir(W "/cd-file"), ENOTDIR);
	EXPECT_ERRNO(chdir(W "/cd-missing"), ENOENT);
	EXPECT_ERRNO(chdir(""), ENOENT);
	EXPECT_ERRNO(chdir(NULL), EFAULT);
	fd = open(W "/cd-file", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(fchdir(fd), ENOTDIR);
	close(fd);
	EXPECT_ERRNO(fchdir(999), EBADF);
	char buf[64];
	EXPECT_NE(getcwd(buf, sizeof(buf)), NULL);
	EXPECT_STREQ(buf, "/");
}

/* ---- truncate ---- */

TEST(truncate_grow_and_shrink)
{
	char buf[16];
	int fd;

	puts_(W "/tr", "0123456789");
	EXPECT_EQ(truncate(W "/tr", 4), 0);
	EXPECT_EQ(slurp(W "/tr", buf, sizeof(buf)), 4);
	EXPECT_STREQ(buf, "0123");
	EXPECT_EQ(truncate(W "/tr", 8), 0);
	EXPECT_EQ(slurp(W "/tr", buf, sizeof(buf)), 8);
	EXPECT_EQ(memcmp(buf, "0123\0\0\0\0", 8), 0);
	fd = open(W "/tr", O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(lseek(fd, 6, SEEK_SET), 6);
	EXPECT_EQ(ftruncate(fd, 2), 0);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 6); /* the position stays past the end */
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 0);
	EXPECT_EQ(ftruncate(fd, 0), 0);
	EXPECT_EQ(lsize(W "/tr"), 0);
	close(fd);
}

TEST(truncate_errors)
{
	int fd;

	puts_(W "/tre", "x");
	EXPECT_ERRNO(truncate(W "/tre", -1), EINVAL);
	EXPECT_ERRNO(truncate(W, 0), EISDIR);
	EXPECT_ERRNO(truncate(W "/tre-missing", 0), ENOENT);
	EXPECT_ERRNO(truncate(NULL, 0), EFAULT);
	fd = open(W "/tre", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(ftruncate(fd, 0), EINVAL); /* not open for writing: EINVAL, not EBADF */
	close(fd);
	fd = open(W "/tre", O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(ftruncate(fd, -1), EINVAL);
	close(fd);
	fd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(ftruncate(fd, 0), EINVAL);
	close(fd);
	EXPECT_ERRNO(ftruncate(999, 0), EBADF);
	EXPECT_ERRNO(ftruncate(999, -1), EINVAL); /* the length is checked first */
}

/* ---- fsync, statfs ---- */

TEST(fsync_fdatasync)
{
	int fd = open(W "/sync", O_CREAT | O_RDWR, 0644), dfd = open(W, O_RDONLY);

	ASSERT_GE(fd, 0);
	ASSERT_GE(dfd, 0);
	EXPECT_EQ(fsync(fd), 0);
	EXPECT_EQ(fdatasync(fd), 0);
	EXPECT_EQ(fsync(dfd), 0);
	EXPECT_EQ(fdatasync(dfd), 0);
	EXPECT_ERRNO(fsync(999), EBADF);
	EXPECT_ERRNO(fdatasync(-1), EBADF);
	close(fd);
	close(dfd);
}

TEST(statfs_types)
{
	struct statfs sfs;
	int fd;

	ASSERT_EQ(statfs("/", &sfs), 0);
	ktap_print("statfs(\"/\"): f_type %#lx f_bsize %ld f_namelen %ld f_blocks %lu f_files %lu",
		   (long)sfs.f_type, (long)sfs.f_bsize, (long)sfs.f_namelen,
		   (unsigned long)sfs.f_blocks, (unsigned long)sfs.f_files);
	EXPECT_EQ(sfs.f_type, TMPFS_MAGIC_);
	EXPECT_EQ(sfs.f_bsize, 4096);
	EXPECT_EQ(sfs.f_namelen, 255);
	ASSERT_EQ(statfs(W, &sfs), 0);
	EXPECT_EQ(sfs.f_type, TMPFS_MAGIC_);
	ASSERT_EQ(statfs("/proc", &sfs), 0);
	EXPECT_EQ(sfs.f_type, PROC_SUPER_MAGIC_);
	ASSERT_EQ(statfs("/proc/self", &sfs), 0);
	EXPECT_EQ(sfs.f_type, PROC_SUPER_MAGIC_);
	ASSERT_EQ(statfs("/sys", &sfs), 0);
	EXPECT_EQ(sfs.f_type, SYSFS_MAGIC_);
	fd = open("/sys", O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstatfs(fd, &sfs), 0);
	EXPECT_EQ(sfs.f_type, SYSFS_MAGIC_);
	close(fd);
	EXPECT_ERRNO(statfs(W "/statfs-missing", &sfs), ENOENT);
	EXPECT_ERRNO(statfs(NULL, &sfs), EFAULT);
	EXPECT_ERRNO(syscall(SYS_statfs, "/", NULL), EFAULT);
	EXPECT_ERRNO(fstatfs(999, &sfs), EBADF);
}

/* ---- modes, owners, times ---- */

TEST(umask_masks_creation)
{
	mode_t old = umask(027);

	EXPECT_EQ(old, 022);
	EXPECT_EQ(umask(027), 027);
	puts_(W "/um-file", ""); /* 0644 asked */
	EXPECT_EQ(lmode(W "/um-file"), S_IFREG | 0640);
	EXPECT_EQ(mkdir(W "/um-dir", 0777), 0);
	EXPECT_EQ(lmode(W "/um-dir"), S_IFDIR | 0750);
	/* Symlinks are always 0777. */
	EXPECT_EQ(symlink("x", W "/um-link"), 0);
	EXPECT_EQ(lmode(W "/um-link"), S_IFLNK | 0777);
	EXPECT_EQ(umask(01777), 027); /* only the permission bits are kept */
	EXPECT_EQ(umask(022), 0777);
}

TEST(chmod_family)
{
	int fd, dfd;

	puts_(W "/cm", "x");
	EXPECT_EQ(chmod(W "/cm", 0600), 0);
	EXPECT_EQ(lmode(W "/cm"), S_IFREG | 0600);
	EXPECT_EQ(chmod(W "/cm", 07777), 0); /* root keeps the set-id bits */
	EXPECT_EQ(lmode(W "/cm"), S_IFREG | 07777);
	EXPECT_EQ(chmod(W "/cm", S_IFDIR | 0640), 0); /* type bits in the mode are ignored */
	EXPECT_EQ(lmode(W "/cm"), S_IFREG | 0640);
	fd = open(W "/cm", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fchmod(fd, 0444), 0);
	EXPECT_EQ(lmode(W "/cm"), S_IFREG | 0444);
	close(fd);
	/* chmod follows symlinks; the link's own mode stays 0777. */
	ASSERT_EQ(symlink("cm", W "/cm-link"), 0);
	EXPECT_EQ(chmod(W "/cm-link", 0604), 0);
	EXPECT_EQ(lmode(W "/cm"), S_IFREG | 0604);
	EXPECT_EQ(lmode(W "/cm-link"), S_IFLNK | 0777);
	dfd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	/* The fchmodat syscall has no flags argument. */
	EXPECT_EQ(syscall(SYS_fchmodat, dfd, "cm", 0600), 0);
	EXPECT_EQ(lmode(W "/cm"), S_IFREG | 0600);
	EXPECT_ERRNO(syscall(SYS_fchmodat, dfd, "cm-missing", 0600), ENOENT);
	close(dfd);
	EXPECT_ERRNO(chmod(W "/cm-missing", 0600), ENOENT);
	EXPECT_ERRNO(chmod(NULL, 0600), EFAULT);
	EXPECT_ERRNO(fchmod(999, 0600), EBADF);
}

TEST(chown_family)
{
	struct stat st;
	int fd;

	puts_(W "/co", "x");
	EXPECT_EQ(chown(W "/co", 1000, 2000), 0);
	ASSERT_EQ(stat(W "/co", &st), 0);
	EXPECT_EQ(st.st_uid, 1000);
	EXPECT_EQ(st.st_gid, 2000);
	EXPECT_EQ(chown(W "/co", -1, 3000), 0); /* -1 leaves it */
	ASSERT_EQ(stat(W "/co", &st), 0);
	EXPECT_EQ(st.st_uid, 1000);
	EXPECT_EQ(st.st_gid, 3000);
	EXPECT_EQ(chown(W "/co", 4000, -1), 0);
	ASSERT_EQ(stat(W "/co", &st), 0);
	EXPECT_EQ(st.st_uid, 4000);
	EXPECT_EQ(st.st_gid, 3000);
	fd = open(W "/co", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fchown(fd, 0, 0), 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_uid, 0);
	EXPECT_EQ(st.st_gid, 0);
	close(fd);
	/* lchown / AT_SYMLINK_NOFOLLOW change the link itself. */
	ASSERT_EQ(symlink("co", W "/co-link"), 0);
	EXPECT_EQ(fchownat(AT_FDCWD, W "/co-link", 5, 6, AT_SYMLINK_NOFOLLOW), 0);
	ASSERT_EQ(lstat(W "/co-link", &st), 0);
	EXPECT_EQ(st.st_uid, 5);
	EXPECT_EQ(st.st_gid, 6);
	ASSERT_EQ(stat(W "/co-link", &st), 0);
	EXPECT_EQ(st.st_uid, 0);
	EXPECT_EQ(fchownat(AT_FDCWD, W "/co-link", 7, 8, 0), 0);
	ASSERT_EQ(stat(W "/co", &st), 0);
	EXPECT_EQ(st.st_uid, 7);
	EXPECT_EQ(st.st_gid, 8);
	EXPECT_ERRNO(fchownat(AT_FDCWD, W "/co", 0, 0, AT_BOGUS), EINVAL);
	EXPECT_ERRNO(chown(W "/co-missing", 0, 0), ENOENT);
	EXPECT_ERRNO(fchown(999, 0, 0), EBADF);
}

/* A chown clears set-user-ID, and set-group-ID when group-execute is set, even for root. */
TEST(chown_clears_setid_bits)
{
	puts_(W "/cs", "x");
	ASSERT_EQ(chmod(W "/cs", 06755), 0);
	EXPECT_EQ(chown(W "/cs", 1, 1), 0);
	EXPECT_EQ(lmode(W "/cs"), S_IFREG | 0755);
	ASSERT_EQ(chmod(W "/cs", 06644), 0); /* set-gid without group-x: kept */
	EXPECT_EQ(chown(W "/cs", 2, 2), 0);
	EXPECT_EQ(lmode(W "/cs"), S_IFREG | 02644);
	ASSERT_EQ(chmod(W "/cs", 04755), 0);
	EXPECT_EQ(chown(W "/cs", -1, -1), 0);
	EXPECT_EQ(lmode(W "/cs"), S_IFREG | 0755);
	mkd(W "/cs-dir"); /* directories keep theirs */
	ASSERT_EQ(chmod(W "/cs-dir", 06755), 0);
	EXPECT_EQ(chown(W "/cs-dir", 1, 1), 0);
	EXPECT_EQ(lmode(W "/cs-dir"), S_IFDIR | 06755);
}

TEST(utimensat_times)
{
	struct timespec ts[2], before, after;
	struct stat st;
	int fd;

	puts_(W "/ut", "x");
	ts[0] = (struct timespec){ 1000000000, 123456789 };
	ts[1] = (struct timespec){ 1500000000, 987654321 };
	EXPECT_EQ(utimensat(AT_FDCWD, W "/ut", ts, 0), 0);
	ASSERT_EQ(stat(W "/ut", &st), 0);
	EXPECT_EQ(st.st_atim.tv_sec, 1000000000);
	EXPECT_EQ(st.st_atim.tv_nsec, 123456789);
	EXPECT_EQ(st.st_mtim.tv_sec, 1500000000);
	EXPECT_EQ(st.st_mtim.tv_nsec, 987654321);
	/* UTIME_OMIT leaves one alone; UTIME_NOW takes the current time. */
	ts[0] = (struct timespec){ 0, UTIME_NOW };
	ts[1] = (struct timespec){ 0, UTIME_OMIT };
	clock_gettime(CLOCK_REALTIME, &before);
	EXPECT_EQ(utimensat(AT_FDCWD, W "/ut", ts, 0), 0);
	clock_gettime(CLOCK_REALTIME, &after);
	ASSERT_EQ(stat(W "/ut", &st), 0);
	EXPECT_GE(st.st_atim.tv_sec, before.tv_sec - 1); /* the coarse clock may lag a tick */
	EXPECT_LE(st.st_atim.tv_sec, after.tv_sec);
	EXPECT_EQ(st.st_mtim.tv_sec, 1500000000);
	EXPECT_EQ(st.st_mtim.tv_nsec, 987654321);
	/* A NULL times means both now. */
	EXPECT_EQ(utimensat(AT_FDCWD, W "/ut", NULL, 0), 0);
	ASSERT_EQ(stat(W "/ut", &st), 0);
	EXPECT_GE(st.st_mtim.tv_sec, before.tv_sec - 1);
	/* futimens: the fd form (a NULL path). */
	fd = open(W "/ut", O_RDONLY);
	ASSERT_GE(fd, 0);
	ts[0] = (struct timespec){ 7, 0 };
	ts[1] = (struct timespec){ 8, 0 };
	EXPECT_EQ(syscall(SYS_utimensat, fd, NULL, ts, 0), 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_atim.tv_sec, 7);
	EXPECT_EQ(st.st_mtim.tv_sec, 8);
	close(fd);
	ts[1] = (struct timespec){ 8, 1000000000 };
	EXPECT_ERRNO(utimensat(AT_FDCWD, W "/ut", ts, 0), EINVAL);
	ts[1] = (struct timespec){ 8, -1 };
	EXPECT_ERRNO(utimensat(AT_FDCWD, W "/ut", ts, 0), EINVAL);
	ts[1] = (struct timespec){ 8, 0 };
	EXPECT_ERRNO(utimensat(AT_FDCWD, W "/ut", ts, AT_BOGUS), EINVAL);
	EXPECT_ERRNO(utimensat(AT_FDCWD, W "/ut-missing", ts, 0), ENOENT);
	/* AT_SYMLINK_NOFOLLOW sets the link's own times. */
	ASSERT_EQ(symlink("ut", W "/ut-link"), 0);
	ts[0] = (struct timespec){ 11, 0 };
	ts[1] = (struct timespec){ 12, 0 };
	EXPECT_EQ(utimensat(AT_FDCWD, W "/ut-link", ts, AT_SYMLINK_NOFOLLOW), 0);
	ASSERT_EQ(lstat(W "/ut-link", &st), 0);
	EXPECT_EQ(st.st_mtim.tv_sec, 12);
	ASSERT_EQ(stat(W "/ut", &st), 0);
	EXPECT_EQ(st.st_mtim.tv_sec, 8);
}

TEST(write_updates_mtime_and_ctime)
{
	struct timespec ts[2] = { { 100, 0 }, { 100, 0 } };
	struct stat st;
	int fd;

	puts_(W "/mt", "x");
	ASSERT_EQ(utimensat(AT_FDCWD, W "/mt", ts, 0), 0);
	fd = open(W "/mt", O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "y", 1), 1);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_GT(st.st_mtim.tv_sec, 100);
	EXPECT_GT(st.st_ctim.tv_sec, 100);
	EXPECT_EQ(st.st_atim.tv_sec, 100);
	close(fd);
	/* A directory's mtime and ctime move when a name is added or removed. */
	mkd(W "/mt-dir");
	ASSERT_EQ(utimensat(AT_FDCWD, W "/mt-dir", ts, 0), 0);
	puts_(W "/mt-dir/new", "");
	ASSERT_EQ(stat(W "/mt-dir", &st), 0);
	EXPECT_GT(st.st_mtim.tv_sec, 100);
	ASSERT_EQ(utimensat(AT_FDCWD, W "/mt-dir", ts, 0), 0);
	ASSERT_EQ(unlink(W "/mt-dir/new"), 0);
	ASSERT_EQ(stat(W "/mt-dir", &st), 0);
	EXPECT_GT(st.st_mtim.tv_sec, 100);
	/* chmod changes only ctime. */
	ASSERT_EQ(utimensat(AT_FDCWD, W "/mt", ts, 0), 0);
	ASSERT_EQ(chmod(W "/mt", 0600), 0);
	ASSERT_EQ(stat(W "/mt", &st), 0);
	EXPECT_EQ(st.st_mtim.tv_sec, 100);
	EXPECT_GT(st.st_ctim.tv_sec, 100);
}

/* ---- fcntl and ioctl on files ---- */

TEST(fcntl_on_files)
{
	char buf[16];
	int fd, d;

	puts_(W "/fc", "abc");
	fd = open(W "/fc", O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFL), O_RDWR | O_LARGEFILE);
	d = fcntl(fd, F_DUPFD, 20);
	EXPECT_EQ(d, 20);
	EXPECT_EQ(fcntl(d, F_GETFD), 0);
	/* A duplicate shares the position. */
	EXPECT_EQ(lseek(fd, 2, SEEK_SET), 2);
	EXPECT_EQ(lseek(d, 0, SEEK_CUR), 2);
	close(d);
	d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	EXPECT_GT(d, fd);
	EXPECT_EQ(fcntl(d, F_GETFD), FD_CLOEXEC);
	EXPECT_EQ(fcntl(d, F_SETFD, 0), 0);
	EXPECT_EQ(fcntl(d, F_GETFD), 0);
	close(d);
	/* O_APPEND on and off; F_SETFL cannot change the access mode. */
	EXPECT_EQ(fcntl(fd, F_SETFL, O_APPEND | O_WRONLY), 0);
	EXPECT_EQ(fcntl(fd, F_GETFL), O_RDWR | O_APPEND | O_LARGEFILE);
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
	EXPECT_EQ(write(fd, "d", 1), 1);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 4);
	EXPECT_EQ(fcntl(fd, F_SETFL, 0), 0);
	EXPECT_EQ(fcntl(fd, F_GETFL), O_RDWR | O_LARGEFILE);
	EXPECT_EQ(lseek(fd, 0, SEEK_SET), 0);
	EXPECT_EQ(write(fd, "A", 1), 1);
	close(fd);
	EXPECT_EQ(slurp(W "/fc", buf, sizeof(buf)), 4);
	EXPECT_STREQ(buf, "Abcd");
	EXPECT_ERRNO(fcntl(999, F_GETFL), EBADF);
}

TEST(fionread_on_a_file)
{
	int fd, n = -1;

	puts_(W "/fion", "0123456789");
	fd = open(W "/fion", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(ioctl(fd, FIONREAD, &n), 0);
	EXPECT_EQ(n, 10);
	EXPECT_EQ(lseek(fd, 7, SEEK_SET), 7);
	EXPECT_EQ(ioctl(fd, FIONREAD, &n), 0);
	EXPECT_EQ(n, 3);
	EXPECT_EQ(lseek(fd, 14, SEEK_SET), 14);
	EXPECT_EQ(ioctl(fd, FIONREAD, &n), 0);
	EXPECT_EQ(n, -4); /* the size less the position, past the end too */
	EXPECT_ERRNO(ioctl(fd, FIONREAD, NULL), EFAULT);
	EXPECT_ERRNO(ioctl(fd, TCGETS, &(char[64]){ 0 }), ENOTTY);
	close(fd);
	fd = open(W, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(ioctl(fd, FIONREAD, &n), ENOTTY);
	close(fd);
}

/* ---- bad pointers and descriptors across the path calls ---- */

TEST(path_faults)
{
	struct stat st;
	char buf[16];

	EXPECT_ERRNO(open(NULL, O_RDONLY), EFAULT);
	EXPECT_ERRNO(open(unmapped(), O_RDONLY), EFAULT);
	EXPECT_ERRNO(open((char *)0xffffffff80000000UL, O_RDONLY), EFAULT);
	EXPECT_ERRNO(openat(AT_FDCWD, NULL, O_CREAT | O_RDWR, 0644), EFAULT);
	EXPECT_ERRNO(syscall(SYS_lstat, unmapped(), &st), EFAULT);
	EXPECT_ERRNO(mkdir(unmapped(), 0755), EFAULT);
	EXPECT_ERRNO(rmdir(unmapped()), EFAULT);
	EXPECT_ERRNO(unlink(unmapped()), EFAULT);
	EXPECT_ERRNO(link(NULL, W "/pf"), EFAULT);
	EXPECT_ERRNO(symlink(NULL, W "/pf"), EFAULT);
	EXPECT_ERRNO(symlink("x", NULL), EFAULT);
	EXPECT_ERRNO(readlink(NULL, buf, sizeof(buf)), EFAULT);
	EXPECT_ERRNO(chdir(unmapped()), EFAULT);
	EXPECT_ERRNO(truncate(unmapped(), 0), EFAULT);
	EXPECT_ERRNO(utimensat(AT_FDCWD, unmapped(), NULL, 0), EFAULT);
	/* A path that runs off the end of the mapping into an unmapped page. */
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(page, MAP_FAILED);
	ASSERT_EQ(munmap(page + 4096, 4096), 0);
	memset(page, 'a', 4096);
	/* 4096 bytes read without a NUL: too long before the fault is reached. */
	EXPECT_ERRNO(open(page, O_RDONLY), ENAMETOOLONG);
	EXPECT_ERRNO(open(page + 1, O_RDONLY), EFAULT);
	EXPECT_ERRNO(open(page + 4000, O_RDONLY), EFAULT);
	munmap(page, 4096);
	EXPECT_FALSE(exists(W "/pf"));
}

TEST(bad_descriptors_and_flags)
{
	struct stat st;

	EXPECT_ERRNO(close(-1), EBADF);
	EXPECT_ERRNO(close(999), EBADF);
	EXPECT_ERRNO(sys_newfstatat(999, "rel", &st, 0), EBADF);
	EXPECT_EQ(sys_newfstatat(999, W, &st, 0), 0); /* absolute: the fd is not looked at */
	EXPECT_ERRNO(mkdirat(-2, "x", 0755), EBADF);
	EXPECT_ERRNO(unlinkat(999, "x", 0), EBADF);
	EXPECT_ERRNO(symlinkat("x", 999, "x"), EBADF);
	EXPECT_ERRNO(linkat(999, "x", AT_FDCWD, "y", 0), EBADF);
	EXPECT_ERRNO(readlinkat(999, "x", (char[8]){ 0 }, 8), EBADF);
	EXPECT_ERRNO(syscall(SYS_fchownat, AT_FDCWD, W, 0, 0, 0x1), EINVAL);
	EXPECT_ERRNO(sys_faccessat2(AT_FDCWD, W, F_OK, AT_BOGUS), EINVAL);
	EXPECT_ERRNO(unlinkat(AT_FDCWD, W "/x", 0x1), EINVAL);
	EXPECT_ERRNO(sys_renameat2(AT_FDCWD, W "/a", AT_FDCWD, W "/b", RENAME_WHITEOUT | RENAME_EXCHANGE), EINVAL);
}

TEST(cleanup_work_dir)
{
	ASSERT_EQ(chdir("/"), 0);
	EXPECT_EQ(nftw(W, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	EXPECT_FALSE(exists(W));
}
