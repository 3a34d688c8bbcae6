/* user/tests/procfs.c: /proc in Linux's formats, checked by structure rather than by values
 * that differ between kernels (/proc/self/..., the system files, /proc/sys/kernel), and the
 * CPU lists of /sys/devices/system/cpu. */
#include "ktap.h"
#include "cpu.h"
#include "file.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

extern char **environ;

struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static char text[1 << 16];

/* The line of text that starts with key (NULL if none), copied without its newline. */
static const char *line_of(const char *text, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, klen) == 0) {
			size_t n = strcspn(l, "\n");

			n = n < size - 1 ? n : size - 1;
			memcpy(out, l, n);
			out[n] = '\0';
			return out;
		}
	}
	return NULL;
}

static int count_fields(const char *s)
{
	int n = 0;

	for (;;) {
		s += strspn(s, " \t\n");
		if (!*s)
			return n;
		n++;
		s += strcspn(s, " \t\n");
	}
}

/* True if s is a decimal number (optionally negative) and nothing else. */
static bool is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return *s == '\0';
}

static long readlink_str(const char *path, char *buf, size_t size)
{
	long n = readlink(path, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static const char *base_name(const char *p)
{
	return strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
}

/* The name the kernel gives the task: argv[0]'s base name cut to 15 bytes. */
static void expected_comm(char *out)
{
	snprintf(out, 16, "%s", base_name(ktap_argv[0]));
}

/* ---- /proc/self and its files ---- */

TEST(self_links)
{
	char buf[64], want[64];

	EXPECT_GT(readlink_str("/proc/self", buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%d", getpid());
	EXPECT_STREQ(buf, want);
	EXPECT_GT(readlink_str("/proc/thread-self", buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%d/task/%ld", getpid(), syscall(SYS_gettid));
	EXPECT_STREQ(buf, want);
	struct stat a, b;
	snprintf(want, sizeof(want), "/proc/%d", getpid());
	ASSERT_EQ(stat("/proc/self", &a), 0);
	ASSERT_EQ(stat(want, &b), 0);
	EXPECT_EQ(a.st_ino, b.st_ino);
	EXPECT_TRUE(S_ISDIR(a.st_mode));
}

TEST(status_lines)
{
	char line[256], want[64], comm[16];

	ASSERT_GT(slurp("/proc/self/status", text, sizeof(text)), 0);
	expected_comm(comm);
	snprintf(want, sizeof(want), "Name:\t%s", comm);
	ASSERT_NE(line_of(text, "Name:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, want);
	EXPECT_EQ(strncmp(text, "Name:\t", 6), 0); /* the first line */
	ASSERT_NE(line_of(text, "State:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, "State:\tR (running)");
	snprintf(want, sizeof(want), "Tgid:\t%d", getpid());
	ASSERT_NE(line_of(text, "Tgid:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, want);
	snprintf(want, sizeof(want), "Pid:\t%d", getpid());
	ASSERT_NE(line_of(text, "Pid:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, want);
	snprintf(want, sizeof(want), "PPid:\t%d", getppid());
	ASSERT_NE(line_of(text, "PPid:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, want);
	ASSERT_NE(line_of(text, "Uid:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, "Uid:\t0\t0\t0\t0");
	ASSERT_NE(line_of(text, "Gid:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, "Gid:\t0\t0\t0\t0");
	ASSERT_NE(line_of(text, "Threads:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, "Threads:\t1");
	EXPECT_NE(line_of(text, "VmRSS:", line, sizeof(line)), NULL);
	EXPECT_EQ(text[strlen(text) - 1], '\n');
}

TEST(stat_fields)
{
	char comm[16], state;
	int pid, ppid, fields;
	const char *close_paren;

	ASSERT_GT(slurp("/proc/self/stat", text, sizeof(text)), 0);
	EXPECT_EQ(text[strlen(text) - 1], '\n');
	ASSERT_EQ(sscanf(text, "%d (", &pid), 1);
	EXPECT_EQ(pid, getpid());
	expected_comm(comm);
	/* comm sits in parentheses and may itself hold spaces or ')': the last ')' ends it. */
	close_paren = strrchr(text, ')');
	ASSERT_NE(close_paren, NULL);
	EXPECT_EQ(close_paren - strchr(text, '(') - 1, strlen(comm));
	EXPECT_EQ(strncmp(strchr(text, '(') + 1, comm, strlen(comm)), 0);
	ASSERT_EQ(sscanf(close_paren + 1, " %c %d", &state, &ppid), 2);
	EXPECT_EQ(state, 'R');
	EXPECT_EQ(ppid, getppid());
	fields = 2 + count_fields(close_paren + 1);
	ktap_print("/proc/self/stat has %d fields", fields);
	EXPECT_GE(fields, 52);
	/* Field 20 is num_threads. */
	long v[60];
	int n = 0;
	for (const char *s = close_paren + 2; n < 50 && *s; n++) {
		s += strspn(s, " ");
		v[n] = n == 0 ? 0 : strtol(s, NULL, 10);
		s += strcspn(s, " ");
	}
	EXPECT_EQ(v[20 - 3], 1);
}

TEST(statm_seven_numbers)
{
	unsigned long v[7];

	ASSERT_GT(slurp("/proc/self/statm", text, sizeof(text)), 0);
	EXPECT_EQ(count_fields(text), 7);
	ASSERT_EQ(sscanf(text, "%lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4],
			 &v[5], &v[6]), 7);
	EXPECT_GT(v[0], 0);
	EXPECT_GE(v[0], v[1]); /* size >= resident */
	EXPECT_GT(v[3], 0);    /* text */
	EXPECT_EQ(v[4], 0);    /* lib: always 0 */
	EXPECT_EQ(v[6], 0);    /* dt: always 0 */
	EXPECT_EQ(text[strlen(text) - 1], '\n');
}

struct mapping {
	unsigned long start, end, offset, inode;
	unsigned dev_major, dev_minor;
	char perms[8], path[256];
};

/* Parses one maps line; false if it is not in Linux's format. */
static bool parse_map_line(const char *l, struct mapping *m)
{
	int used = 0;

	m->path[0] = '\0';
	if (sscanf(l, "%lx-%lx %4s %lx %x:%x %lu%n", &m->start, &m->end, m->perms, &m->offset,
		   &m->dev_major, &m->dev_minor, &m->inode, &used) != 7)
		return false;
	if (strlen(m->perms) != 4 || !strchr("r-", m->perms[0]) || !strchr("w-", m->perms[1]) ||
	    !strchr("x-", m->perms[2]) || !strchr("ps", m->perms[3]))
		return false;
	const char *p = l + used;
	size_t n = strcspn(p, "\n");
	if (n > 0) {
		/* The path starts at column 73 (Linux pads with spaces) or one space later. */
		size_t lead = strspn(p, " ");
		if (used + lead != 73 && lead != 1)
			return false;
		snprintf(m->path, sizeof(m->path), "%.*s", (int)(n - lead), p + lead);
	}
	return true;
}

/* Finds the mapping holding addr in /proc/self/maps. */
static bool find_mapping(unsigned long addr, struct mapping *out, bool *all_valid)
{
	bool found = false;

	*all_valid = true;
	if (slurp("/proc/self/maps", text, sizeof(text)) <= 0)
		return false;
	for (char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		struct mapping m;

		if (!parse_map_line(l, &m)) {
			ktap_print("bad maps line: %.*s", (int)strcspn(l, "\n"), l);
			*all_valid = false;
			continue;
		}
		if (m.start <= addr && addr < m.end) {
			*out = m;
			found = true;
		}
	}
	return found;
}

static void code_marker(void)
{
}

TEST(maps_text_stack_heap)
{
	struct mapping m;
	bool valid;
	char exe[256];
	int local = 0;

	ASSERT_GT(readlink_str("/proc/self/exe", exe, sizeof(exe)), 0);
	ASSERT_TRUE(find_mapping((unsigned long)(uintptr_t)code_marker, &m, &valid));
	EXPECT_TRUE(valid);
	EXPECT_STREQ(m.perms, "r-xp");
	EXPECT_STREQ(m.path, exe);
	EXPECT_NE(m.inode, 0);
	struct stat st;
	ASSERT_EQ(stat(exe, &st), 0);
	EXPECT_EQ(m.inode, st.st_ino);
	EXPECT_EQ(m.start % 4096, 0);
	EXPECT_EQ(m.end % 4096, 0);
	ASSERT_TRUE(find_mapping((unsigned long)(uintptr_t)&local, &m, &valid));
	EXPECT_STREQ(m.path, "[stack]");
	EXPECT_STREQ(m.perms, "rw-p");
	EXPECT_EQ(m.inode, 0);
	EXPECT_EQ(m.dev_major, 0);
	/* Grow the break by a page: [heap] covers it. */
	unsigned long brk0 = syscall(SYS_brk, 0);
	unsigned long brk1 = syscall(SYS_brk, brk0 + 8192);
	ASSERT_EQ(brk1, brk0 + 8192);
	*(volatile char *)brk0 = 1;
	ASSERT_TRUE(find_mapping(brk0, &m, &valid));
	EXPECT_STREQ(m.path, "[heap]");
	EXPECT_STREQ(m.perms, "rw-p");
	EXPECT_TRUE(valid);
}

TEST(cmdline_is_argv)
{
	char want[1024];
	long len = 0, n;

	for (int i = 0; i < ktap_argc; i++) {
		size_t l = strlen(ktap_argv[i]) + 1;

		memcpy(want + len, ktap_argv[i], l);
		len += l;
	}
	n = slurp("/proc/self/cmdline", text, sizeof(text));
	EXPECT_EQ(n, len);
	EXPECT_EQ(memcmp(text, want, len), 0);
	ktap_print("argc %d", ktap_argc);
}

TEST(environ_is_envp)
{
	static char want[8192];
	long len = 0, n;

	for (char **e = environ; *e; e++) {
		size_t l = strlen(*e) + 1;

		memcpy(want + len, *e, l);
		len += l;
	}
	n = slurp("/proc/self/environ", text, sizeof(text));
	EXPECT_EQ(n, len);
	EXPECT_EQ(memcmp(text, want, len), 0);
}

TEST(comm_reads_and_writes)
{
	char buf[64], comm[16], want[32];
	int fd;

	expected_comm(comm);
	snprintf(want, sizeof(want), "%s\n", comm);
	ASSERT_GT(slurp("/proc/self/comm", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, want);
	fd = open("/proc/self/comm", O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "renamed", 7), 7);
	close(fd);
	EXPECT_GT(slurp("/proc/self/comm", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "renamed\n");
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(prctl(PR_GET_NAME, buf), 0);
	EXPECT_STREQ(buf, "renamed");
	ASSERT_GT(slurp("/proc/self/status", text, sizeof(text)), 0);
	EXPECT_EQ(strncmp(text, "Name:\trenamed\n", 14), 0);
	/* Longer names are cut to 15 bytes; a trailing newline is not part of the name. */
	fd = open("/proc/self/comm", O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(write(fd, "0123456789abcdefghij", 20), 20);
	close(fd);
	EXPECT_GT(slurp("/proc/self/comm", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "0123456789abcde\n");
	EXPECT_EQ(prctl(PR_SET_NAME, "via-prctl"), 0);
	EXPECT_GT(slurp("/proc/self/comm", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "via-prctl\n");
	EXPECT_EQ(prctl(PR_SET_NAME, comm), 0);
	EXPECT_GT(slurp("/proc/self/comm", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, want);
}

TEST(exe_and_cwd_links)
{
	char buf[256], cwd[256];
	struct stat a, b;

	ASSERT_GT(readlink_str("/proc/self/exe", buf, sizeof(buf)), 0);
	EXPECT_EQ(buf[0], '/');
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	if (execfn && execfn[0] == '/')
		EXPECT_STREQ(buf, execfn);
	ASSERT_EQ(stat("/proc/self/exe", &a), 0);
	ASSERT_EQ(stat(buf, &b), 0);
	EXPECT_EQ(a.st_ino, b.st_ino);
	EXPECT_EQ(a.st_dev, b.st_dev);
	EXPECT_TRUE(S_ISREG(a.st_mode));
	ASSERT_NE(getcwd(cwd, sizeof(cwd)), NULL);
	ASSERT_GT(readlink_str("/proc/self/cwd", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, cwd);
	ASSERT_EQ(chdir("/proc"), 0);
	ASSERT_GT(readlink_str("/proc/self/cwd", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "/proc");
	ASSERT_EQ(chdir(cwd), 0);
	ASSERT_GT(readlink_str("/proc/self/root", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "/");
}

/* Lists a directory's names (not "." or "..") into a NUL-separated buffer; returns the count. */
static int list_names(const char *dir, char *names, size_t size)
{
	char buf[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY), count = 0;
	size_t used = 0;
	long n;

	if (fd < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
			size_t l = strlen(d->d_name) + 1;

			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (used + l < size) {
				memcpy(names + used, d->d_name, l);
				used += l;
			}
			count++;
		}
	}
	names[used] = '\0';
	close(fd);
	return count;
}

static bool has_name(const char *names, const char *name)
{
	for (const char *p = names; *p; p += strlen(p) + 1)
		if (!strcmp(p, name))
			return true;
	return false;
}

TEST(fd_directory)
{
	char names[1024], path[64], buf[256];
	struct stat st;
	int fd = open("/proc/version", O_RDONLY), dfd = open("/", O_RDONLY | O_DIRECTORY);

	ASSERT_GE(fd, 0);
	ASSERT_GE(dfd, 0);
	EXPECT_GE(list_names("/proc/self/fd", names, sizeof(names)), 5);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%d", i);
		EXPECT_TRUE(has_name(names, path));
	}
	snprintf(path, sizeof(path), "%d", fd);
	EXPECT_TRUE(has_name(names, path));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_GT(readlink_str(path, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "/proc/version");
	/* The link's mode says how the descriptor was opened. */
	ASSERT_EQ(lstat(path, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFLNK | 0500);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", dfd);
	ASSERT_GT(readlink_str(path, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "/");
	close(dfd);
	close(fd);
	EXPECT_FALSE(has_name(names, "999"));
	ASSERT_EQ(list_names("/proc/self/fd", names, sizeof(names)), 3 + 1); /* + getdents' own fd */
	EXPECT_ERRNO(readlink_str("/proc/self/fd/999", buf, sizeof(buf)), ENOENT);
}

/* An open file whose name is gone: the link says so. */
/* A listing resumed far past the end lists nothing (the fuzzer's: pmuos's /proc turned the
 * position into a negative descriptor number and read before the fd table). */
TEST(fd_directory_far_past_its_end)
{
	static char buf[4096];
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);

	ASSERT_GE(dir, 0);
	if (lseek(dir, 0x7ffffffffffffffel, SEEK_SET) == 0x7ffffffffffffffel)
		EXPECT_EQ(syscall(SYS_getdents64, dir, buf, sizeof(buf)), 0);
	close(dir);
}

TEST(fd_link_of_a_deleted_file)
{
	char path[64], buf[256];
	int fd = open("/procfs-deleted", O_CREAT | O_RDWR | O_TRUNC, 0644);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(unlink("/procfs-deleted"), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_GT(readlink_str(path, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "/procfs-deleted (deleted)");
	/* Opening the link still reaches the file. */
	EXPECT_EQ(write(fd, "abc", 3), 3);
	int fd2 = open(path, O_RDONLY);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(read(fd2, buf, sizeof(buf)), 3);
	close(fd2);
	close(fd);
}

TEST(pid_directories)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/status", getpid());
	EXPECT_EQ(stat(path, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0444);
	EXPECT_ERRNO(stat("/proc/999999/status", &st), ENOENT);
	EXPECT_ERRNO(stat("/proc/self/no_such_file", &st), ENOENT);
	ASSERT_EQ(lstat("/proc/self", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFLNK | 0777);
}

TEST(fdinfo_pos_and_flags)
{
	char path[64], buf[512], line[128];
	int fd = open("/proc/version", O_RDONLY | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(lseek(fd, 5, SEEK_SET), 5);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	ASSERT_GT(slurp(path, buf, sizeof(buf)), 0);
	ASSERT_NE(line_of(buf, "pos:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, "pos:\t5");
	ASSERT_NE(line_of(buf, "flags:", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, "flags:\t02100000"); /* octal: O_CLOEXEC | O_LARGEFILE | O_RDONLY */
	EXPECT_NE(line_of(buf, "mnt_id:", line, sizeof(line)), NULL);
	EXPECT_NE(line_of(buf, "ino:", line, sizeof(line)), NULL);
	EXPECT_EQ(strncmp(buf, "pos:\t", 5), 0);
	close(fd);
}

TEST(task_directory_lists_the_thread)
{
	char names[256], want[32];

	EXPECT_EQ(list_names("/proc/self/task", names, sizeof(names)), 1);
	snprintf(want, sizeof(want), "%ld", syscall(SYS_gettid));
	EXPECT_STREQ(names, want);
	snprintf(want, sizeof(want), "/proc/self/task/%ld/stat", syscall(SYS_gettid));
	EXPECT_GT(slurp(want, text, sizeof(text)), 0);
}

TEST(self_directory_entries)
{
	static const char *const want[] = { "status", "stat", "statm", "maps", "cmdline", "comm",
					    "environ", "exe", "cwd", "root", "fd", "fdinfo",
					    "task", "mountinfo", "mounts" };
	char names[8192];

	EXPECT_GT(list_names("/proc/self", names, sizeof(names)), 15);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!has_name(names, want[i]))
			ktap_print("/proc/self lacks %s", want[i]);
		EXPECT_TRUE(has_name(names, want[i]));
	}
}

/* ---- system-wide files ---- */

TEST(cpuinfo_lines)
{
	char line[1024];

	ASSERT_GT(slurp("/proc/cpuinfo", text, sizeof(text)), 0);
	ASSERT_NE(line_of(text, "processor", line, sizeof(line)), NULL);
	EXPECT_STREQ(line, "processor\t: 0");
	EXPECT_EQ(strncmp(text, "processor\t: 0\n", 14), 0);
	ASSERT_NE(line_of(text, "vendor_id\t: ", line, sizeof(line)), NULL);
	EXPECT_GT(strlen(line), strlen("vendor_id\t: "));
	EXPECT_NE(line_of(text, "model name\t: ", line, sizeof(line)), NULL);
	EXPECT_NE(line_of(text, "cpu family\t: ", line, sizeof(line)), NULL);
	ASSERT_NE(line_of(text, "flags\t\t: ", line, sizeof(line)), NULL);
	EXPECT_NE(strstr(line, " fpu") ? strstr(line, " fpu") : strstr(line, ": fpu"), NULL);
	/* A block per online CPU, each ended by an empty line. */
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	char last[48], past[48];
	snprintf(last, sizeof(last), "\n\nprocessor\t: %ld\n", n - 1);
	snprintf(past, sizeof(past), "processor\t: %ld\n", n);
	EXPECT_TRUE(n == 1 || strstr(text, last));
	EXPECT_EQ(strstr(text, past), NULL);
	EXPECT_NE(strstr(text, "\n\n"), NULL);
}

TEST(meminfo_kb_lines)
{
	static const char *const keys[] = { "MemTotal:", "MemFree:", "MemAvailable:" };
	unsigned long v[3];
	char line[128];

	ASSERT_GT(slurp("/proc/meminfo", text, sizeof(text)), 0);
	EXPECT_EQ(strncmp(text, "MemTotal:", 9), 0);
	for (int i = 0; i < 3; i++) {
		char unit[8] = "";

		ASSERT_NE(line_of(text, keys[i], line, sizeof(line)), NULL);
		EXPECT_EQ(sscanf(line + strlen(keys[i]), "%lu %7s", &v[i], unit), 2);
		EXPECT_STREQ(unit, "kB");
		/* Linux aligns the numbers: the key padded to 16 columns, the value to 8. */
		EXPECT_EQ(strlen(line), 16 + 8 + 3);
	}
	EXPECT_GT(v[0], 0);
	EXPECT_LE(v[1], v[0]);
	EXPECT_LE(v[2], v[0]);
}

TEST(proc_stat_lines)
{
	char line[512], name[16];
	unsigned long n;

	ASSERT_GT(slurp("/proc/stat", text, sizeof(text)), 0);
	EXPECT_EQ(strncmp(text, "cpu  ", 5), 0); /* two spaces after the total's name */
	ASSERT_NE(line_of(text, "cpu ", line, sizeof(line)), NULL);
	EXPECT_EQ(count_fields(line), 11);
	for (int cpu = 0; cpu <= online_cpus(); cpu++) {	/* a line per CPU, no more */
		snprintf(name, sizeof(name), "cpu%d ", cpu);
		if (cpu == online_cpus()) {
			EXPECT_EQ(line_of(text, name, line, sizeof(line)), NULL);
			break;
		}
		ASSERT_NE(line_of(text, name, line, sizeof(line)), NULL);
		EXPECT_EQ(count_fields(line), 11);
	}
	EXPECT_NE(line_of(text, "intr ", line, sizeof(line)), NULL);
	ASSERT_NE(line_of(text, "ctxt ", line, sizeof(line)), NULL);
	EXPECT_EQ(sscanf(line, "ctxt %lu", &n), 1);
	ASSERT_NE(line_of(text, "btime ", line, sizeof(line)), NULL);
	EXPECT_EQ(sscanf(line, "btime %lu", &n), 1);
	ASSERT_NE(line_of(text, "processes ", line, sizeof(line)), NULL);
	EXPECT_EQ(sscanf(line, "processes %lu", &n), 1);
	EXPECT_GE(n, 1);
	ASSERT_NE(line_of(text, "procs_running ", line, sizeof(line)), NULL);
	EXPECT_EQ(sscanf(line, "procs_running %lu", &n), 1);
	EXPECT_GE(n, 1);
	EXPECT_NE(line_of(text, "procs_blocked ", line, sizeof(line)), NULL);
}

TEST(uptime_two_decimals)
{
	unsigned long a, af, b, bf;
	char c1, c2;
	int used = 0;

	ASSERT_GT(slurp("/proc/uptime", text, sizeof(text)), 0);
	ASSERT_EQ(sscanf(text, "%lu.%2lu%c%lu.%2lu%c%n", &a, &af, &c1, &b, &bf, &c2, &used), 6);
	EXPECT_EQ(c1, ' ');
	EXPECT_EQ(c2, '\n');
	EXPECT_EQ(text[used], '\0');
	EXPECT_EQ(strchr(text, '.')[3], ' '); /* exactly two digits */
	EXPECT_GE(a * 100 + af, 1);
}

TEST(loadavg_five_fields)
{
	char l1[16], l5[16], l15[16];
	unsigned running, total;
	int last;

	ASSERT_GT(slurp("/proc/loadavg", text, sizeof(text)), 0);
	EXPECT_EQ(count_fields(text), 5);
	ASSERT_EQ(sscanf(text, "%15s %15s %15s %u/%u %d", l1, l5, l15, &running, &total, &last), 6);
	EXPECT_EQ(strlen(strchr(l1, '.')), 3);
	EXPECT_EQ(strlen(strchr(l5, '.')), 3);
	EXPECT_EQ(strlen(strchr(l15, '.')), 3);
	EXPECT_GE(running, 1);
	EXPECT_GE(total, running);
	EXPECT_GE(last, getpid()); /* the last pid handed out */
	EXPECT_EQ(text[strlen(text) - 1], '\n');
}

TEST(version_line)
{
	struct utsname u;

	ASSERT_GT(slurp("/proc/version", text, sizeof(text)), 0);
	EXPECT_EQ(strncmp(text, "Linux version ", 14), 0);
	ASSERT_EQ(uname(&u), 0);
	EXPECT_EQ(strncmp(text + 14, u.release, strlen(u.release)), 0);
	EXPECT_EQ(text[14 + strlen(u.release)], ' ');
	EXPECT_NE(strstr(text, u.version), NULL);
	EXPECT_EQ(text[strlen(text) - 1], '\n');
	EXPECT_EQ(strchr(text, '\n'), text + strlen(text) - 1);
}

/* A mounts line for mount point dir, its type copied out; false if none. */
static bool mount_of(const char *dir, char *type)
{
	char src[128], mnt[128], opts[256];
	int a, b;

	for (char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		if (sscanf(l, "%127s %127s %31s %255s %d %d", src, mnt, type, opts, &a, &b) != 6)
			continue;
		if (!strcmp(mnt, dir))
			return true;
	}
	return false;
}

TEST(mounts_lists_root_proc_sys)
{
	char type[32];

	ASSERT_GT(slurp("/proc/mounts", text, sizeof(text)), 0);
	ktap_print("/proc/mounts: %.*s", (int)strcspn(text, "\n"), text);
	EXPECT_TRUE(mount_of("/", type));
	ASSERT_TRUE(mount_of("/proc", type));
	EXPECT_STREQ(type, "proc");
	ASSERT_TRUE(mount_of("/sys", type));
	EXPECT_STREQ(type, "sysfs");
	ASSERT_GT(slurp("/proc/self/mounts", text, sizeof(text)), 0);
	EXPECT_TRUE(mount_of("/proc", type));
}

TEST(mountinfo_lines)
{
	bool root = false, proc = false, sys = false;

	ASSERT_GT(slurp("/proc/self/mountinfo", text, sizeof(text)), 0);
	for (char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		int id, parent, used = 0;
		unsigned maj, min;
		char fsroot[128], mnt[128], type[32];
		const char *sep = strstr(l, " - ");

		if (sscanf(l, "%d %d %u:%u %127s %127s %n", &id, &parent, &maj, &min, fsroot, mnt,
			   &used) != 6 || !sep || sep > l + strcspn(l, "\n")) {
			ktap_print("bad mountinfo line: %.*s", (int)strcspn(l, "\n"), l);
			EXPECT_TRUE(false);
			continue;
		}
		EXPECT_EQ(sscanf(sep + 3, "%31s", type), 1);
		root |= !strcmp(mnt, "/");
		proc |= !strcmp(mnt, "/proc") && !strcmp(type, "proc");
		sys |= !strcmp(mnt, "/sys") && !strcmp(type, "sysfs");
	}
	EXPECT_TRUE(root);
	EXPECT_TRUE(proc);
	EXPECT_TRUE(sys);
}

TEST(filesystems_lists_proc_sysfs)
{
	ASSERT_GT(slurp("/proc/filesystems", text, sizeof(text)), 0);
	EXPECT_NE(strstr(text, "nodev\tproc\n"), NULL);
	EXPECT_NE(strstr(text, "nodev\tsysfs\n"), NULL);
	EXPECT_NE(strstr(text, "nodev\ttmpfs\n"), NULL);
}

TEST(kallsyms_lines)
{
	static char buf[4096];
	char kptr[16];
	int lines = 0, nonzero = 0;

	ASSERT_GT(slurp("/proc/sys/kernel/kptr_restrict", kptr, sizeof(kptr)), 0);
	ASSERT_GT(slurp("/proc/kallsyms", buf, sizeof(buf)), 0);
	/* Only the first 4 KiB: the whole file is megabytes on Linux. */
	for (char *l = buf; strchr(l, '\n'); l = strchr(l, '\n') + 1) {
		unsigned long addr;
		char type, name[256];
		int used = 0;

		if (sscanf(l, "%16lx %c %255s%n", &addr, &type, name, &used) != 3 ||
		    strcspn(l, " ") != 16 || !isalpha((unsigned char)type)) {
			ktap_print("bad kallsyms line: %.*s", (int)strcspn(l, "\n"), l);
			EXPECT_TRUE(false);
			break;
		}
		nonzero += addr != 0;
		lines++;
	}
	EXPECT_GT(lines, 10);
	ktap_print("kptr_restrict %.*s: %d of %d addresses non-zero", (int)strcspn(kptr, "\n"),
		   kptr, nonzero, lines);
	/*
	 * Root sees addresses unless kptr_restrict is 2 (absolute per-CPU symbols such as
	 * fixed_percpu_data are at 0 anyway: only most lines are non-zero).
	 */
	if (atoi(kptr) < 2)
		EXPECT_GT(nonzero, lines / 2);
	else
		EXPECT_EQ(nonzero, 0);
}

TEST(interrupts_header)
{
	ASSERT_GT(slurp("/proc/interrupts", text, sizeof(text)), 0);
	char line[256], name[16];
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(text, "\n"), text);
	for (int cpu = 0; cpu <= online_cpus(); cpu++) {	/* a column per CPU, no more */
		snprintf(name, sizeof(name), "CPU%d", cpu);
		EXPECT_EQ(strstr(line, name) != NULL, cpu < online_cpus());
	}
	EXPECT_EQ(line[0], ' ');
}

/* ---- /proc/sys/kernel ---- */

TEST(sysctl_single_values)
{
	static const char *const numeric[] = {
		"perf_event_paranoid", "perf_event_max_sample_rate", "perf_event_mlock_kb",
		"perf_event_max_stack", "perf_event_max_contexts_per_stack",
		"perf_cpu_time_max_percent", "nmi_watchdog", "kptr_restrict", "pid_max",
	};
	char path[128], buf[128];
	struct utsname u;

	for (size_t i = 0; i < sizeof(numeric) / sizeof(numeric[0]); i++) {
		long n;

		snprintf(path, sizeof(path), "/proc/sys/kernel/%s", numeric[i]);
		n = slurp(path, buf, sizeof(buf));
		if (n <= 0) {
			ktap_print("%s: unreadable", path);
			EXPECT_GT(n, 0);
			continue;
		}
		EXPECT_EQ(buf[n - 1], '\n');
		buf[n - 1] = '\0';
		if (!is_number(buf))
			ktap_print("%s: \"%s\"", path, buf);
		EXPECT_TRUE(is_number(buf));
	}
	ASSERT_EQ(uname(&u), 0);
	EXPECT_GT(slurp("/proc/sys/kernel/ostype", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "Linux\n");
	snprintf(path, sizeof(path), "%s\n", u.release);
	EXPECT_GT(slurp("/proc/sys/kernel/osrelease", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, path);
	snprintf(path, sizeof(path), "%s\n", u.nodename);
	EXPECT_GT(slurp("/proc/sys/kernel/hostname", buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, path);
}

static long write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	long n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	int err = errno;
	close(fd);
	errno = err;
	return n;
}

#define MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"

TEST(sysctl_max_sample_rate_writes)
{
	char old[32], buf[32];

	ASSERT_GT(slurp(MAX_RATE, old, sizeof(old)), 0);
	EXPECT_EQ(write_str(MAX_RATE, "12345\n"), 6);
	EXPECT_GT(slurp(MAX_RATE, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "12345\n");
	EXPECT_EQ(write_str(MAX_RATE, "23456"), 5); /* the newline is optional */
	EXPECT_GT(slurp(MAX_RATE, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "23456\n");
	EXPECT_ERRNO(write_str(MAX_RATE, "abc\n"), EINVAL);
	EXPECT_ERRNO(write_str(MAX_RATE, "0\n"), EINVAL); /* the minimum is 1 */
	EXPECT_ERRNO(write_str(MAX_RATE, "-5\n"), EINVAL);
	EXPECT_GT(slurp(MAX_RATE, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "23456\n");
	EXPECT_EQ(write_str(MAX_RATE, old), strlen(old));
	EXPECT_GT(slurp(MAX_RATE, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, old);
}

TEST(sysctl_files_are_0644_or_0444)
{
	struct stat st;

	ASSERT_EQ(stat(MAX_RATE, &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0644);
	EXPECT_EQ(st.st_size, 0);
	ASSERT_EQ(stat("/proc/sys/kernel/ostype", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0444);
	/* Root gets no override on sysctl files: opening a 0444 one for writing is EACCES. */
	EXPECT_ERRNO(open("/proc/sys/kernel/ostype", O_WRONLY), EACCES);
	EXPECT_ERRNO(open("/proc/sys/kernel/no_such_knob", O_RDONLY), ENOENT);
}

/* ---- /sys/devices/system/cpu ---- */

TEST(sys_cpu_lists)
{
	static const char *const files[] = { "online", "possible", "present" };
	char path[96], buf[64], list[32];
	struct stat st;
	long n = sysconf(_SC_NPROCESSORS_ONLN);	/* the affinity mask's CPUs */

	if (n == 1)
		snprintf(list, sizeof(list), "0\n");
	else
		snprintf(list, sizeof(list), "0-%ld\n", n - 1);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", files[i]);
		EXPECT_GT(slurp(path, buf, sizeof(buf)), 0);
		if (strcmp(buf, list))
			ktap_print("%s: \"%s\"", path, buf);
		EXPECT_STREQ(buf, list);
	}
	ASSERT_EQ(stat("/sys/devices/system/cpu/cpu0", &st), 0);
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	if (n == 1)
		EXPECT_ERRNO(stat("/sys/devices/system/cpu/cpu1", &st), ENOENT);
}
