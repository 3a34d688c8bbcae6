/* user/tests/sysfs.c: the /sys tree perf tools read (/sys/bus/event_source/devices/<pmu>/type)
 * and the path syscalls that reach it, with Linux's errors; pmuos's accounting file. */
#include "ktap.h"
#include "file.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SW_TYPE "/sys/bus/event_source/devices/software/type"
#define SW_DEV "/sys/devices/software"
#define BUS_DEVICES "/sys/bus/event_source/devices"
#define KERNEL_ADDR ((void *)0xffffffff80000000UL)

/* Raw getdents64 records: the layout is the ABI under test. */
struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

enum { DT_DIR_ = 4, DT_REG_ = 8, DT_LNK_ = 10 };

static long getdents64(int fd, void *buf, size_t n)
{
	return syscall(SYS_getdents64, fd, buf, n);
}

/* Lists dir with getdents64, checking every record; returns the d_type of name, or -1 if absent. */
static int entry_type(const char *dir, const char *name, int *count)
{
	static char buf[8192];
	int fd = open(dir, O_RDONLY | O_DIRECTORY), type = -1, dots = 0;
	long n;

	*count = 0;
	if (fd < 0)
		return -2;
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
			EXPECT_EQ(d->d_reclen % 8, 0);
			EXPECT_LE(offsetof(struct dirent64_raw, d_name) + strlen(d->d_name) + 1, d->d_reclen);
			EXPECT_NE(d->d_ino, 0);
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) {
				EXPECT_EQ(d->d_type, DT_DIR_);
				dots++;
			}
			if (!strcmp(d->d_name, name))
				type = d->d_type;
			(*count)++;
			off += d->d_reclen;
		}
	}
	EXPECT_EQ(n, 0);
	EXPECT_EQ(dots, 2);
	close(fd);
	return type;
}

TEST(software_type_reads_1)
{
	char buf[64];
	int fd = open(SW_TYPE, O_RDONLY);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(read(fd, buf, sizeof(buf)), 2);
	ASSERT_EQ(memcmp(buf, "1\n", 2), 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 0); /* at the end */
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 0);
	ASSERT_EQ(close(fd), 0);
}

TEST(partial_reads_and_seeks)
{
	char buf[64];
	int fd = open(SW_TYPE, O_RDONLY);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(read(fd, buf, 1), 1);
	EXPECT_EQ(buf[0], '1');
	ASSERT_EQ(read(fd, buf, sizeof(buf)), 1);
	EXPECT_EQ(buf[0], '\n');
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 0);
	ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0); /* back to the start: the text again */
	ASSERT_EQ(read(fd, buf, sizeof(buf)), 2);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 2);
	/* pread64 reads at its offset and leaves the position alone. */
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 1), 1);
	EXPECT_EQ(buf[0], '\n');
	EXPECT_EQ(pread(fd, buf, sizeof(buf), 100), 0);
	EXPECT_ERRNO(pread(fd, buf, sizeof(buf), -1), EINVAL);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 2);
	/* sysfs files are a page long as far as lseek knows. */
	EXPECT_EQ(lseek(fd, 0, SEEK_END), 4096);
	EXPECT_ERRNO(lseek(fd, -1, SEEK_SET), EINVAL);
	EXPECT_ERRNO(lseek(fd, -5000, SEEK_END), EINVAL);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 0);
	/* Nothing to copy at the end: no fault either. */
	EXPECT_EQ(read(fd, (void *)16, sizeof(buf)), 0);
	ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
	EXPECT_ERRNO(read(fd, (void *)16, sizeof(buf)), EFAULT);
	EXPECT_ERRNO(read(fd, KERNEL_ADDR, sizeof(buf)), EFAULT);
	EXPECT_ERRNO(pread(0, buf, 1, 0), ESPIPE); /* the console cannot seek */
	ASSERT_EQ(close(fd), 0);
}

TEST(devices_list_software)
{
	int count;

	EXPECT_EQ(entry_type(BUS_DEVICES, "software", &count), DT_LNK_);
	EXPECT_GE(count, 3);
	EXPECT_EQ(entry_type("/sys/devices", "software", &count), DT_DIR_);
	EXPECT_EQ(entry_type(SW_DEV, "type", &count), DT_REG_);
	EXPECT_EQ(entry_type("/sys", "bus", &count), DT_DIR_);
	EXPECT_EQ(entry_type("/", "sys", &count), DT_DIR_);
}

TEST(bus_entry_links_to_the_device)
{
	char target[64] = { 0 };
	struct stat l, s, d;

	ASSERT_EQ(readlink(BUS_DEVICES "/software", target, sizeof(target)), 25);
	EXPECT_STREQ(target, "../../../devices/software");
	EXPECT_EQ(readlink(BUS_DEVICES "/software", target, 3), 3);
	EXPECT_ERRNO(readlink(SW_TYPE, target, sizeof(target)), EINVAL);
	EXPECT_ERRNO(readlink(BUS_DEVICES "/software/", target, sizeof(target)), EINVAL);
	EXPECT_ERRNO(readlink("/sys/nope", target, sizeof(target)), ENOENT);
	EXPECT_ERRNO(syscall(SYS_readlink, BUS_DEVICES "/software", NULL, 64), EFAULT);
	ASSERT_EQ(lstat(BUS_DEVICES "/software", &l), 0);
	EXPECT_EQ(l.st_mode, S_IFLNK | 0777);
	ASSERT_EQ(stat(BUS_DEVICES "/software", &s), 0);
	ASSERT_EQ(stat(SW_DEV, &d), 0);
	EXPECT_EQ(s.st_mode, S_IFDIR | 0755);
	EXPECT_EQ(s.st_ino, d.st_ino);
	EXPECT_NE(l.st_ino, d.st_ino);
}

TEST(stat_modes_and_sizes)
{
	struct stat st;
	int fd = open(SW_TYPE, O_RDONLY);

	ASSERT_EQ(stat(SW_TYPE, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0444);
	EXPECT_EQ(st.st_size, 4096);
	EXPECT_EQ(st.st_nlink, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0444);
	EXPECT_EQ(st.st_size, 4096);
	close(fd);
	ASSERT_EQ(stat(SW_DEV, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFDIR | 0755);
	EXPECT_EQ(st.st_size, 0);
	ASSERT_EQ(stat(BUS_DEVICES, &st), 0);
	EXPECT_EQ(st.st_nlink, 2); /* links are no subdirectories */
	EXPECT_ERRNO(stat(SW_TYPE "/", &st), ENOTDIR);
	EXPECT_ERRNO(stat("", &st), ENOENT);
	EXPECT_ERRNO(stat("/sys/nope", &st), ENOENT);
	EXPECT_ERRNO(syscall(SYS_newfstatat, AT_FDCWD, SW_TYPE, NULL, 0), EFAULT);
	EXPECT_ERRNO(syscall(SYS_newfstatat, AT_FDCWD, SW_TYPE, &st, 0x8000), EINVAL);
}

TEST(getdents64_records)
{
	char buf[4096];
	int fd = open(SW_DEV, O_RDONLY | O_DIRECTORY), file = open(SW_TYPE, O_RDONLY);
	long n, first;

	ASSERT_GE(fd, 0);
	ASSERT_GE(file, 0);
	EXPECT_ERRNO(getdents64(fd, buf, 10), EINVAL); /* no record fits */
	EXPECT_ERRNO(getdents64(fd, buf, 0), EINVAL);
	EXPECT_ERRNO(getdents64(fd, (void *)16, sizeof(buf)), EFAULT);
	EXPECT_ERRNO(getdents64(file, buf, sizeof(buf)), ENOTDIR);
	EXPECT_ERRNO(getdents64(-1, buf, sizeof(buf)), EBADF);
	/* "." fits 24 bytes alone: 19 bytes of header, the name, its NUL, padding. */
	ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
	ASSERT_EQ(getdents64(fd, buf, 24), 24);
	EXPECT_STREQ(((struct dirent64_raw *)buf)->d_name, ".");
	/* Resume from d_off, and start again from 0. */
	ASSERT_EQ(lseek(fd, ((struct dirent64_raw *)buf)->d_off, SEEK_SET),
		  ((struct dirent64_raw *)buf)->d_off);
	ASSERT_GT(getdents64(fd, buf, sizeof(buf)), 0);
	EXPECT_STREQ(((struct dirent64_raw *)buf)->d_name, "..");
	ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
	first = getdents64(fd, buf, sizeof(buf));
	ASSERT_GT(first, 0);
	EXPECT_EQ(getdents64(fd, buf, sizeof(buf)), 0);
	ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
	n = getdents64(fd, buf, sizeof(buf));
	EXPECT_EQ(n, first);
	EXPECT_ERRNO(read(fd, buf, sizeof(buf)), EISDIR);
	EXPECT_ERRNO(pread(fd, buf, sizeof(buf), 0), EISDIR);
	EXPECT_EQ(lseek(fd, 0, SEEK_END), 0);
	close(fd);
	close(file);
}

TEST(open_errors)
{
	char *longpath = malloc(5000);

	ASSERT_TRUE(longpath != NULL);
	EXPECT_ERRNO(open("/sys/bus/event_source/devices/nope/type", O_RDONLY), ENOENT);
	EXPECT_ERRNO(open("/sys/devices/nope/type", O_RDONLY), ENOENT);
	EXPECT_ERRNO(open("", O_RDONLY), ENOENT);
	EXPECT_ERRNO(open(SW_TYPE "/x", O_RDONLY), ENOTDIR);
	EXPECT_ERRNO(open(SW_TYPE "/", O_RDONLY), ENOTDIR);
	EXPECT_ERRNO(open(SW_TYPE, O_RDONLY | O_DIRECTORY), ENOTDIR);
	EXPECT_ERRNO(syscall(SYS_open, NULL, O_RDONLY), EFAULT);
	EXPECT_ERRNO(syscall(SYS_open, KERNEL_ADDR, O_RDONLY), EFAULT);
	for (int i = 0; i < 4999; i++)
		longpath[i] = '/';
	longpath[4999] = '\0';
	EXPECT_ERRNO(open(longpath, O_RDONLY), ENAMETOOLONG);
	/* sysfs files without a store method refuse writers, root included. */
	EXPECT_ERRNO(open(SW_TYPE, O_WRONLY), EACCES);
	EXPECT_ERRNO(open(SW_TYPE, O_RDWR), EACCES);
	EXPECT_ERRNO(open(SW_DEV, O_WRONLY), EISDIR);
	EXPECT_ERRNO(open(SW_DEV, O_RDWR), EISDIR);
	EXPECT_ERRNO(open(SW_DEV, O_RDONLY | O_TRUNC), EISDIR);
	/* Nothing can be created in sysfs. */
	EXPECT_ERRNO(open(SW_DEV "/new", O_WRONLY | O_CREAT, 0644), EACCES);
	EXPECT_ERRNO(open(SW_DEV "/new", O_RDONLY | O_CREAT, 0644), EACCES);
	EXPECT_ERRNO(open(SW_DEV "/new/", O_RDONLY | O_CREAT, 0644), EISDIR);
	EXPECT_ERRNO(open("/sys/devices/nope/new", O_RDONLY | O_CREAT, 0644), ENOENT);
	EXPECT_ERRNO(open(SW_TYPE, O_RDONLY | O_CREAT | O_EXCL, 0644), EEXIST);
	EXPECT_ERRNO(open(SW_DEV, O_RDONLY | O_CREAT, 0644), EISDIR);
	EXPECT_ERRNO(open(SW_DEV, O_RDWR | O_TMPFILE, 0644), EOPNOTSUPP);
	EXPECT_ERRNO(open(SW_DEV, O_RDONLY | O_TMPFILE, 0644), EINVAL);
	EXPECT_ERRNO(open(SW_TYPE, O_RDWR | O_TMPFILE, 0644), ENOTDIR);
	EXPECT_ERRNO(open(SW_TYPE, O_RDONLY | O_DIRECT), EINVAL);
	/* O_NOFOLLOW stops at the bus's link. */
	EXPECT_ERRNO(open(BUS_DEVICES "/software", O_RDONLY | O_NOFOLLOW), ELOOP);
	EXPECT_ERRNO(open(BUS_DEVICES "/software", O_RDONLY | O_NOFOLLOW | O_DIRECTORY), ENOTDIR);
	free(longpath);
}

TEST(open_what_opens)
{
	char buf[16];
	int fd;

	/* O_CREAT of what exists and O_TRUNC of a file are harmless. */
	fd = open(SW_TYPE, O_RDONLY | O_CREAT, 0644);
	EXPECT_GE(fd, 0);
	close(fd);
	fd = open(SW_TYPE, O_RDONLY | O_TRUNC);
	EXPECT_GE(fd, 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 2);
	EXPECT_ERRNO(write(fd, "1", 1), EBADF);
	close(fd);
	/* A trailing slash follows the link even with O_NOFOLLOW. */
	fd = open(BUS_DEVICES "/software/", O_RDONLY | O_NOFOLLOW);
	EXPECT_GE(fd, 0);
	close(fd);
	/* Dots, "/.." and repeated slashes. */
	EXPECT_EQ(slurp("/../sys//devices/./software/../software///type", buf, sizeof(buf)), 2);
	EXPECT_STREQ(buf, "1\n");
}

TEST(open_flags_as_fcntl_sees_them)
{
	int fd = open(SW_TYPE, O_RDONLY | O_CLOEXEC), dir = open(SW_DEV, O_RDONLY | O_DIRECTORY);

	ASSERT_GE(fd, 0);
	ASSERT_GE(dir, 0);
	EXPECT_EQ(fcntl(fd, F_GETFL), O_RDONLY | O_LARGEFILE);
	EXPECT_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	EXPECT_EQ(fcntl(dir, F_GETFL), O_DIRECTORY | O_LARGEFILE);
	close(fd);
	close(dir);
}

TEST(openat_from_a_directory)
{
	char buf[16];
	int dir = open(SW_DEV, O_RDONLY | O_DIRECTORY), file = open(SW_TYPE, O_RDONLY), fd;
	struct stat st;

	ASSERT_GE(dir, 0);
	ASSERT_GE(file, 0);
	fd = openat(dir, "type", O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 2);
	close(fd);
	fd = openat(dir, "../software/./type", O_RDONLY);
	EXPECT_GE(fd, 0);
	close(fd);
	EXPECT_ERRNO(openat(file, "type", O_RDONLY), ENOTDIR);
	EXPECT_ERRNO(openat(1, "type", O_RDONLY), ENOTDIR);
	EXPECT_ERRNO(openat(999, "type", O_RDONLY), EBADF);
	fd = openat(999, SW_TYPE, O_RDONLY); /* absolute: the descriptor is not used */
	EXPECT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(fstatat(dir, "type", &st, 0), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0444);
	EXPECT_EQ(fstatat(dir, "", &st, AT_EMPTY_PATH), 0);
	EXPECT_EQ(st.st_mode, S_IFDIR | 0755);
	EXPECT_ERRNO(fstatat(dir, "", &st, 0), ENOENT);
	EXPECT_EQ(faccessat(dir, "type", R_OK, 0), 0);
	close(dir);
	close(file);
}

TEST(access_as_root)
{
	EXPECT_EQ(access(SW_TYPE, F_OK), 0);
	EXPECT_EQ(access(SW_TYPE, R_OK), 0);
	EXPECT_EQ(access(SW_TYPE, W_OK), 0); /* root passes the mode bits; open would not */
	EXPECT_ERRNO(access(SW_TYPE, X_OK), EACCES);
	EXPECT_EQ(access(SW_DEV, R_OK | W_OK | X_OK), 0);
	EXPECT_ERRNO(access(SW_TYPE, 8), EINVAL);
	EXPECT_ERRNO(access("/sys/nope", F_OK), ENOENT);
	EXPECT_ERRNO(access(SW_TYPE "/", F_OK), ENOTDIR);
}

TEST(o_path_names_only)
{
	char buf[16];
	struct stat st;
	int fd = open(SW_TYPE, O_PATH), link = open(BUS_DEVICES "/software", O_PATH | O_NOFOLLOW);

	ASSERT_GE(fd, 0);
	ASSERT_GE(link, 0);
	EXPECT_ERRNO(read(fd, buf, sizeof(buf)), EBADF);
	EXPECT_ERRNO(lseek(fd, 0, SEEK_SET), EBADF);
	EXPECT_EQ(fcntl(fd, F_GETFL), O_PATH);
	EXPECT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0444);
	/* readlinkat's empty path reads the link the descriptor names. */
	EXPECT_EQ(readlinkat(link, "", buf, sizeof(buf)), sizeof(buf));
	EXPECT_ERRNO(readlinkat(fd, "", buf, sizeof(buf)), ENOENT);
	close(fd);
	close(link);
}

/* "name value" lines of the accounting file; -1 when name is missing. */
static long counter(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		if (!strncmp(l, name, len) && l[len] == ' ')
			return strtol(l + len + 1, NULL, 10);
		if (!strchr(l, '\n'))
			break;
	}
	return -1;
}

TEST(pmuos_accounting_file)
{
	static const char *const names[] = { "frames_free", "frames_total", "heap_bytes",
					     "heap_objects", "files_open", "perf_events",
					     "perf_rings", "perf_aux_areas" };
	char text[1024];

	if (!ktap_on_pmuos())
		SKIP("pmuos's own file");
	ASSERT_GT(slurp("/sys/kernel/pmuos/accounting", text, sizeof(text)), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ktap_print("%s %ld", names[i], counter(text, names[i]));
		EXPECT_GE(counter(text, names[i]), 0);
	}
	EXPECT_LE(counter(text, "frames_free"), counter(text, "frames_total"));
	EXPECT_GE(counter(text, "files_open"), 2); /* the console and this file */
	EXPECT_GT(counter(text, "heap_bytes"), 0);
}

/* Opening, reading and closing returns every byte and frame: the leak check this file is for. */
TEST(pmuos_accounting_balances)
{
	char before[1024], after[1024], buf[64];
	int fd;

	if (!ktap_on_pmuos())
		SKIP("pmuos's own file");
	ASSERT_GT(slurp("/sys/kernel/pmuos/accounting", before, sizeof(before)), 0);
	fd = open(SW_TYPE, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_GT(slurp("/sys/kernel/pmuos/accounting", after, sizeof(after)), 0);
	EXPECT_EQ(counter(after, "files_open"), counter(before, "files_open") + 1);
	close(fd);
	for (int i = 0; i < 50; i++) {
		fd = open(i % 2 ? SW_DEV : SW_TYPE, O_RDONLY);
		ASSERT_GE(fd, 0);
		EXPECT_GE(i % 2 ? getdents64(fd, buf, sizeof(buf)) : read(fd, buf, sizeof(buf)), 0);
		close(fd);
	}
	ASSERT_GT(slurp("/sys/kernel/pmuos/accounting", after, sizeof(after)), 0);
	EXPECT_EQ(counter(after, "files_open"), counter(before, "files_open"));
	EXPECT_EQ(counter(after, "heap_bytes"), counter(before, "heap_bytes"));
	EXPECT_EQ(counter(after, "heap_objects"), counter(before, "heap_objects"));
	EXPECT_EQ(counter(after, "frames_free"), counter(before, "frames_free"));
}
