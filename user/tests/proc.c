/* user/tests/proc.c: /proc in Linux's formats (the process's own files, the
 * system's, /proc/sys and its effects on the kernel), /sys/devices/system/cpu;
 * and, on pmuos only, its interrupt counts, kallsyms and accounting. */
#include "ktap.h"
#include "cpu.h"
#include "file.h"
#include "perf.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

extern char **environ;

static char text[256 * 1024];

static long spew(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return -1;
	long n = write(fd, s, strlen(s));
	int err = errno;
	close(fd);
	errno = err;
	return n;
}

/* The line starting with key, or NULL. */
static const char *line_of(const char *buf, const char *key)
{
	size_t len = strlen(key);

	for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, len))
			return l;
	return NULL;
}

static int count_lines(const char *buf)
{
	int n = 0;

	for (; *buf; buf++)
		n += *buf == '\n';
	return n;
}

static const char *prog_name(void)
{
	const char *slash = strrchr(ktap_argv[0], '/');

	return slash ? slash + 1 : ktap_argv[0];
}

TEST(status_has_linux_lines)
{
	char want[64];

	ASSERT_GT(slurp("/proc/self/status", text, sizeof(text)), 0);
	static const char *const keys[] = { "Name:\t", "Umask:\t", "State:\t", "Tgid:\t",
		"Pid:\t", "PPid:\t", "Uid:\t", "Gid:\t", "VmSize:", "VmRSS:", "Threads:\t1\n",
		"SigBlk:\t" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		EXPECT_TRUE(line_of(text, keys[i]) != NULL);
	/* The mask (every CPU here) as a cpulist and in hex, as wide as the CPU count needs. */
	int cpus = online_cpus();
	if (cpus == 1)
		snprintf(want, sizeof(want), "Cpus_allowed_list:\t0\n");
	else
		snprintf(want, sizeof(want), "Cpus_allowed_list:\t0-%d\n", cpus - 1);
	EXPECT_TRUE(line_of(text, want) != NULL);
	/* (cpus + 3) / 4 digits, written so that the compiler sees the width is small */
	snprintf(want, sizeof(want), "Cpus_allowed:\t%0*llx\n", (cpus & 63) / 4 + !!(cpus & 3),
		 (1ull << cpus) - 1);
	EXPECT_TRUE(line_of(text, want) != NULL);
	snprintf(want, sizeof(want), "Pid:\t%d\n", getpid());
	EXPECT_TRUE(line_of(text, want) != NULL);
	EXPECT_TRUE(line_of(text, "Uid:\t0\t0\t0\t0\n") != NULL);
	snprintf(want, sizeof(want), "Name:\t%.15s\n", prog_name());
	EXPECT_TRUE(line_of(text, want) != NULL);
}

TEST(stat_has_52_fields)
{
	char comm[32];
	int pid, fields = 0;
	char state;

	ASSERT_GT(slurp("/proc/self/stat", text, sizeof(text)), 0);
	ASSERT_EQ(sscanf(text, "%d (%31[^)]) %c", &pid, comm, &state), 3);
	EXPECT_EQ(pid, getpid());
	EXPECT_EQ(strncmp(comm, prog_name(), 15), 0);
	EXPECT_EQ(state, 'R');
	/* Fields after the comm's closing parenthesis: 3 to 52. */
	for (char *p = strrchr(text, ')') + 1; *p && *p != '\n';) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		fields++;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	EXPECT_EQ(fields + 2, 52);
	ASSERT_GT(slurp("/proc/self/statm", text, sizeof(text)), 0);
	unsigned long v[7];
	EXPECT_EQ(sscanf(text, "%lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4],
			 &v[5], &v[6]), 7);
	EXPECT_GE(v[0], v[1]);
	EXPECT_GT(v[1], 0);
}

/* Every line parses; the text holding this function is the program's
 * r-xp mapping of /bin/NAME, and a local variable lies in [stack]. */
TEST(maps_show_text_and_stack)
{
	char path[64];
	int local = 0, lines = 0;
	bool text_found = false, stack_found = false;

	ASSERT_GT(slurp("/proc/self/maps", text, sizeof(text)), 0);
	snprintf(path, sizeof(path), "/bin/%s", prog_name());
	for (char *l = text; *l; l = strchr(l, '\n') + 1) {
		unsigned long lo, hi, off, ino;
		unsigned maj, min;
		char perms[5], name[256] = "";
		int n = sscanf(l, "%lx-%lx %4s %lx %x:%x %lu %255s", &lo, &hi, perms, &off, &maj,
			       &min, &ino, name);
		EXPECT_GE(n, 7);
		EXPECT_LT(lo, hi);
		lines++;
		uintptr_t fn = (uintptr_t)&ktap_test_maps_show_text_and_stack;
		if (fn >= lo && fn < hi) {
			EXPECT_STREQ(perms, "r-xp");
			EXPECT_STREQ(name, path);
			EXPECT_NE(ino, 0);
			text_found = true;
		}
		if ((uintptr_t)&local >= lo && (uintptr_t)&local < hi) {
			EXPECT_STREQ(name, "[stack]");
			EXPECT_STREQ(perms, "rw-p");
			stack_found = true;
		}
		if (!strchr(l, '\n'))
			break;
	}
	EXPECT_TRUE(text_found);
	EXPECT_TRUE(stack_found);
	/* smaps: the same mappings, each with its Size and Rss and VmFlags */
	ASSERT_GT(slurp("/proc/self/smaps", text, sizeof(text)), 0);
	int sizes = 0, flags = 0;
	for (const char *l = text; (l = line_of(l, "Size:")); l++)
		sizes++;
	for (const char *l = text; (l = line_of(l, "VmFlags:")); l++)
		flags++;
	EXPECT_EQ(sizes, lines);
	EXPECT_EQ(flags, lines);
	EXPECT_TRUE(line_of(text, "Rss:") != NULL);
}

/* A file read a few bytes at a time gives the same text as in one read. */
TEST(small_reads_are_consistent)
{
	static char whole[64 * 1024], pieces[64 * 1024];
	int fd = open("/proc/self/maps", O_RDONLY);
	long len = 0, n;

	ASSERT_GE(fd, 0);
	while ((n = read(fd, pieces + len, 7)) > 0)
		len += n;
	pieces[len] = '\0';
	EXPECT_EQ(n, 0);
	close(fd);
	ASSERT_GT(slurp("/proc/self/maps", whole, sizeof(whole)), 0);
	EXPECT_STREQ(pieces, whole);
}

static long join(char *const *v, int n, char *out, size_t size)
{
	size_t len = 0;

	for (int i = 0; (n < 0 ? v[i] != NULL : i < n); i++) {
		size_t k = strlen(v[i]) + 1;
		if (len + k > size)
			return -1;
		memcpy(out + len, v[i], k);
		len += k;
	}
	return len;
}

TEST(cmdline_and_environ_are_the_strings)
{
	static char want[8192];
	long len = join(ktap_argv, ktap_argc, want, sizeof(want));

	ASSERT_GT(len, 0);
	ASSERT_EQ(slurp("/proc/self/cmdline", text, sizeof(text)), len);
	EXPECT_EQ(memcmp(text, want, len), 0);
	len = join(environ, -1, want, sizeof(want));
	ASSERT_GE(len, 0);
	ASSERT_EQ(slurp("/proc/self/environ", text, sizeof(text)), len);
	EXPECT_EQ(memcmp(text, want, len), 0);
}

/* comm is writable: what prctl(PR_GET_NAME) and stat show, cut at 15
 * bytes, a newline kept as Linux keeps it. */
TEST(comm_write_renames)
{
	char name[40] = "", old[32];

	ASSERT_EQ(prctl(PR_GET_NAME, old), 0);
	ASSERT_GT(slurp("/proc/self/comm", text, sizeof(text)), 0);
	snprintf(name, sizeof(name), "%s\n", old);
	EXPECT_STREQ(text, name);
	EXPECT_EQ(spew("/proc/self/comm", "renamed"), 7);
	ASSERT_EQ(prctl(PR_GET_NAME, name), 0);
	EXPECT_STREQ(name, "renamed");
	ASSERT_GT(slurp("/proc/self/comm", text, sizeof(text)), 0);
	EXPECT_STREQ(text, "renamed\n");
	ASSERT_GT(slurp("/proc/self/stat", text, sizeof(text)), 0);
	EXPECT_TRUE(strstr(text, " (renamed) ") != NULL);
	EXPECT_EQ(spew("/proc/self/comm", "abcdefghijklmnopqrstuvwxyz"), 26);
	ASSERT_EQ(prctl(PR_GET_NAME, name), 0);
	EXPECT_STREQ(name, "abcdefghijklmno");
	EXPECT_EQ(spew("/proc/self/comm", "nl\n"), 3);
	ASSERT_EQ(prctl(PR_GET_NAME, name), 0);
	EXPECT_STREQ(name, "nl\n");
	ASSERT_EQ(prctl(PR_SET_NAME, old), 0);
}

/* A write to comm is a rename as prctl's: a PERF_RECORD_COMM follows. */
TEST(comm_write_emits_a_comm_record)
{
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	static char record[256];
	char old[16] = "";
	uint64_t pos = 0;
	bool found = false;

	attr.comm = 1;
	int fd = perf_open(&attr, 0, -1, -1, 0);
	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 4);
	ASSERT_EQ(prctl(PR_GET_NAME, old), 0);
	EXPECT_EQ(spew("/proc/self/comm", "via-proc"), 8);
	const struct perf_event_header *h;
	while ((h = perf_ring_find(pc, &pos, PERF_RECORD_COMM, record, sizeof(record)))) {
		const struct { struct perf_event_header h; uint32_t pid, tid; char comm[]; } *c =
			(const void *)h;
		if (!strcmp(c->comm, "via-proc")) {
			EXPECT_EQ(c->pid, getpid());
			EXPECT_EQ(h->misc, 0);		/* not an exec */
			found = true;
		}
	}
	EXPECT_TRUE(found);
	prctl(PR_SET_NAME, old);
	perf_ring_unmap(pc);
	close(fd);
}

static void expect_link(const char *path, const char *want)
{
	char buf[256];
	long n = readlink(path, buf, sizeof(buf) - 1);

	EXPECT_GT(n, 0);
	buf[n < 0 ? 0 : n] = '\0';
	if (strcmp(buf, want))
		ktap_print("%s -> %s, want %s", path, buf, want);
	EXPECT_STREQ(buf, want);
}

TEST(self_links)
{
	char want[64];

	snprintf(want, sizeof(want), "%d", getpid());
	expect_link("/proc/self", want);
	snprintf(want, sizeof(want), "%d/task/%d", getpid(), getpid());
	expect_link("/proc/thread-self", want);
	snprintf(want, sizeof(want), "/bin/%s", prog_name());
	expect_link("/proc/self/exe", want);
	expect_link("/proc/self/cwd", "/");
	expect_link("/proc/self/root", "/");
	expect_link("/proc/mounts", "self/mounts");
	snprintf(want, sizeof(want), "/proc/%d/task/%d/comm", getpid(), getpid());
	ASSERT_GT(slurp(want, text, sizeof(text)), 0);
}

static bool dir_has(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while ((e = readdir(d)))
		found |= !strcmp(e->d_name, name);
	closedir(d);
	return found;
}

TEST(fd_links_and_fdinfo)
{
	char path[64], want[64], name[16];
	int fd0 = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	ASSERT_GE(fd0, 0);
	/* Out of the way of the descriptors opendir takes. */
	int fd = fcntl(fd0, F_DUPFD_CLOEXEC, 100);
	ASSERT_EQ(fd, 100);
	close(fd0);
	snprintf(name, sizeof(name), "%d", fd);
	EXPECT_TRUE(dir_has("/proc/self/fd", "0"));
	EXPECT_TRUE(dir_has("/proc/self/fd", "2"));
	EXPECT_TRUE(dir_has("/proc/self/fd", name));
	EXPECT_TRUE(dir_has("/proc/self/fdinfo", name));
	expect_link("/proc/self/fd/0", "/dev/console");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	snprintf(want, sizeof(want), "/proc/%d/status", getpid());
	expect_link(path, want);
	ASSERT_EQ(read(fd, text, 10), 10);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	ASSERT_GT(slurp(path, text, sizeof(text)), 0);
	unsigned long pos, flags, ino;
	int mnt;
	ASSERT_EQ(sscanf(text, "pos:\t%lu\nflags:\t%lo\nmnt_id:\t%d\nino:\t%lu", &pos, &flags,
			 &mnt, &ino), 4);
	EXPECT_EQ(pos, 10);
	EXPECT_EQ(flags & O_CLOEXEC, O_CLOEXEC);
	EXPECT_EQ(flags & O_ACCMODE, O_RDONLY);
	close(fd);
	ASSERT_ERRNO(readlink(path, text, 10), ENOENT);
	EXPECT_FALSE(dir_has("/proc/self/fd", name));
}

TEST(perf_fd_is_an_anon_inode)
{
	char path[64];
	int fd = perf_open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, true, -1);

	ASSERT_GE(fd, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	expect_link(path, "anon_inode:[perf_event]");
	close(fd);
}

TEST(mounts_list_the_file_systems)
{
	static const char *const want[][2] = {
		{ " / ", "rootfs" }, { " /proc ", "proc" }, { " /sys ", "sysfs" } };

	ASSERT_GT(slurp("/proc/mounts", text, sizeof(text)), 0);
	for (size_t i = 0; i < 3; i++) {
		const char *l = strstr(text, want[i][0]);
		EXPECT_TRUE(l != NULL);
		if (l)
			EXPECT_EQ(strncmp(l + strlen(want[i][0]), want[i][1], strlen(want[i][1])), 0);
	}
	if (ktap_on_pmuos())
		EXPECT_TRUE(strstr(text, "devtmpfs /dev devtmpfs ") != NULL);
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		char dev[64], dir[256], type[32], opts[256];
		int a, b;
		EXPECT_EQ(sscanf(l, "%63s %255s %31s %255s %d %d", dev, dir, type, opts, &a, &b), 6);
	}
	static char self[8192];
	ASSERT_GT(slurp("/proc/self/mounts", self, sizeof(self)), 0);
	EXPECT_STREQ(self, text);
	ASSERT_GT(slurp("/proc/self/mountinfo", text, sizeof(text)), 0);
	EXPECT_EQ(count_lines(text), count_lines(self));
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		int id, parent;
		unsigned maj, min;
		char root[64], dir[256];
		EXPECT_EQ(sscanf(l, "%d %d %u:%u %63s %255s", &id, &parent, &maj, &min, root, dir), 6);
		EXPECT_TRUE(strstr(l, " - ") != NULL && strstr(l, " - ") < strchr(l, '\n'));
	}
}

TEST(proc_rejects_new_names)
{
	struct statfs sf;
	struct stat st;

	ASSERT_ERRNO(open("/proc/newfile", O_CREAT | O_WRONLY, 0644), ENOENT);
	ASSERT_ERRNO(mkdir("/proc/newdir", 0755), ENOENT);
	ASSERT_ERRNO(open("/proc/self/newfile", O_CREAT | O_WRONLY, 0644), ENOENT);
	ASSERT_ERRNO(open("/proc/4194305/status", O_RDONLY), ENOENT);
	ASSERT_ERRNO(open("/proc/sys/kernel/ostype", O_WRONLY), EACCES);
	ASSERT_EQ(statfs("/proc", &sf), 0);
	EXPECT_EQ(sf.f_type, PROC_SUPER_MAGIC);
	ASSERT_EQ(stat("/proc", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFDIR | 0555);
	ASSERT_EQ(stat("/proc/self/status", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0444);
	ASSERT_EQ(stat("/proc/self/comm", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0644);
	ASSERT_EQ(stat("/proc/sys/kernel/perf_event_max_sample_rate", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0644);
	ASSERT_EQ(lstat("/proc/self", &st), 0);
	EXPECT_EQ(st.st_mode, S_IFLNK | 0777);
}

/* The sampling limit: writing it changes what perf_event_open accepts. */
TEST(max_sample_rate_limits_sample_freq)
{
	static const char *const knob = "/proc/sys/kernel/perf_event_max_sample_rate";
	struct perf_event_attr attr = perf_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	char old[32];

	ASSERT_GT(slurp(knob, old, sizeof(old)), 0);
	EXPECT_STREQ(old, "100000\n");
	attr.disabled = 1;
	attr.freq = 1;
	ASSERT_EQ(spew(knob, "1000\n"), 5);
	ASSERT_GT(slurp(knob, text, sizeof(text)), 0);
	EXPECT_STREQ(text, "1000\n");
	attr.sample_freq = 1001;
	EXPECT_ERRNO(perf_open(&attr, 0, -1, -1, 0), EINVAL);
	attr.sample_freq = 1000;
	int fd = perf_open(&attr, 0, -1, -1, 0);
	EXPECT_GE(fd, 0);
	close(fd);
	EXPECT_ERRNO(spew(knob, "abc"), EINVAL);
	EXPECT_ERRNO(spew(knob, "0"), EINVAL);
	EXPECT_ERRNO(spew(knob, "-5"), EINVAL);
	EXPECT_ERRNO(spew(knob, "99999999999"), EINVAL);
	EXPECT_EQ(spew(knob, "  500 "), 6);
	ASSERT_GT(slurp(knob, text, sizeof(text)), 0);
	EXPECT_STREQ(text, "500\n");
	ASSERT_GT(spew(knob, old), 0);
	ASSERT_GT(slurp(knob, text, sizeof(text)), 0);
	EXPECT_STREQ(text, old);
}

TEST(sysctl_kernel_values)
{
	struct utsname u;

	ASSERT_EQ(uname(&u), 0);
	ASSERT_GT(slurp("/proc/sys/kernel/ostype", text, sizeof(text)), 0);
	EXPECT_STREQ(text, "Linux\n");
	ASSERT_GT(slurp("/proc/sys/kernel/osrelease", text, sizeof(text)), 0);
	EXPECT_EQ(strncmp(text, u.release, strlen(u.release)), 0);
	ASSERT_GT(slurp("/proc/sys/kernel/nmi_watchdog", text, sizeof(text)), 0);
	EXPECT_STREQ(text, "0\n");
	static const char *const ints[] = { "perf_event_paranoid", "perf_event_mlock_kb",
		"perf_event_max_stack", "perf_event_max_contexts_per_stack",
		"perf_cpu_time_max_percent", "kptr_restrict", "pid_max" };
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		char path[96], *end;
		snprintf(path, sizeof(path), "/proc/sys/kernel/%s", ints[i]);
		ASSERT_GT(slurp(path, text, sizeof(text)), 0);
		strtol(text, &end, 10);
		EXPECT_STREQ(end, "\n");
	}
	ASSERT_GT(slurp("/proc/sys/kernel/perf_event_max_stack", text, sizeof(text)), 0);
	EXPECT_STREQ(text, "127\n");
	/* hostname is uname's nodename */
	char old[80];
	ASSERT_GT(slurp("/proc/sys/kernel/hostname", old, sizeof(old)), 0);
	EXPECT_EQ(strncmp(old, u.nodename, strlen(u.nodename)), 0);
	EXPECT_EQ(spew("/proc/sys/kernel/hostname", "probe-host\n"), 11);
	ASSERT_EQ(uname(&u), 0);
	EXPECT_STREQ(u.nodename, "probe-host");
	ASSERT_GT(spew("/proc/sys/kernel/hostname", old), 0);
}

TEST(system_files)
{
	ASSERT_GT(slurp("/proc/cpuinfo", text, sizeof(text)), 0);
	EXPECT_TRUE(line_of(text, "processor\t: 0\n") != NULL);
	EXPECT_TRUE(line_of(text, "vendor_id\t: ") != NULL);
	EXPECT_TRUE(line_of(text, "model name\t: ") != NULL);
	EXPECT_TRUE(line_of(text, "cpu MHz\t\t: ") != NULL);
	const char *flags = line_of(text, "flags\t\t: fpu ");
	EXPECT_TRUE(flags != NULL);
	if (flags)
		EXPECT_TRUE(strstr(flags, " sse2 ") && strstr(flags, " tsc "));
	EXPECT_TRUE(line_of(text, "address sizes\t: ") != NULL);
	ASSERT_GT(slurp("/proc/meminfo", text, sizeof(text)), 0);
	unsigned long total, free;
	EXPECT_EQ(sscanf(line_of(text, "MemTotal:") ?: "", "MemTotal: %lu kB", &total), 1);
	EXPECT_EQ(sscanf(line_of(text, "MemFree:") ?: "", "MemFree: %lu kB", &free), 1);
	EXPECT_LE(free, total);
	EXPECT_TRUE(line_of(text, "MemTotal:       ") != NULL);	/* Linux's columns */
	ASSERT_GT(slurp("/proc/stat", text, sizeof(text)), 0);
	EXPECT_EQ(strncmp(text, "cpu  ", 5), 0);
	EXPECT_TRUE(line_of(text, "cpu0 ") != NULL);
	EXPECT_TRUE(line_of(text, "intr ") != NULL);
	EXPECT_TRUE(line_of(text, "ctxt ") != NULL);
	EXPECT_TRUE(line_of(text, "btime ") != NULL);
	EXPECT_TRUE(line_of(text, "processes ") != NULL);
	EXPECT_TRUE(line_of(text, "procs_running ") != NULL);
	double up, idle;
	ASSERT_GT(slurp("/proc/uptime", text, sizeof(text)), 0);
	EXPECT_EQ(sscanf(text, "%lf %lf", &up, &idle), 2);
	ASSERT_GT(slurp("/proc/loadavg", text, sizeof(text)), 0);
	int running, total_tasks, last;
	EXPECT_EQ(sscanf(text, "%*f %*f %*f %d/%d %d", &running, &total_tasks, &last), 3);
	ASSERT_GT(slurp("/proc/version", text, sizeof(text)), 0);
	EXPECT_EQ(strncmp(text, "Linux version ", 14), 0);
	ASSERT_GT(slurp("/proc/filesystems", text, sizeof(text)), 0);
	EXPECT_TRUE(line_of(text, "nodev\tproc\n") != NULL);
	EXPECT_TRUE(line_of(text, "nodev\tsysfs\n") != NULL);
	ASSERT_GT(slurp("/proc/interrupts", text, sizeof(text)), 0);
	EXPECT_EQ(strncmp(text, "           CPU0", 15), 0);
	EXPECT_TRUE(line_of(text, "NMI: ") != NULL);
	EXPECT_TRUE(line_of(text, "LOC: ") != NULL);
	EXPECT_TRUE(line_of(text, "PMI: ") != NULL);
}

TEST(sys_cpu_online)
{
	char online[32];

	/* "0" with one CPU, "0-N" with several: all of them possible and present */
	ASSERT_GT(slurp("/sys/devices/system/cpu/online", online, sizeof(online)), 0);
	EXPECT_TRUE(!strcmp(online, "0\n") || !strncmp(online, "0-", 2));
	ASSERT_GT(slurp("/sys/devices/system/cpu/possible", text, sizeof(text)), 0);
	EXPECT_STREQ(text, online);
	ASSERT_GT(slurp("/sys/devices/system/cpu/present", text, sizeof(text)), 0);
	EXPECT_STREQ(text, online);
	EXPECT_TRUE(dir_has("/sys/devices/system/cpu", "cpu0"));
	ASSERT_GT(slurp("/sys/devices/system/cpu/cpu0/cache/index0/level", text, sizeof(text)), 0);
	EXPECT_STREQ(text, "1\n");
	ASSERT_GT(slurp("/sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_list", text,
			sizeof(text)), 0);
	EXPECT_STREQ(text, "0\n");
	ASSERT_GT(slurp("/sys/devices/system/cpu/cpu0/cache/index0/size", text, sizeof(text)), 0);
	EXPECT_EQ(text[strlen(text) - 2], 'K');
}

/* Nothing interrupts a computation when nothing is armed: the counts of
 * /proc/interrupts before and after are the same. */
TEST(pmuos_no_interrupts_in_a_quiet_loop)
{
	static char before[4096];
	volatile uint64_t x = 1;

	if (!ktap_on_pmuos())
		SKIP("a kernel with a tick interrupts any loop");
	ASSERT_GT(slurp("/proc/interrupts", before, sizeof(before)), 0);
	for (int i = 0; i < 2000000; i++)
		x = x * 6364136223846793005ull + 1;
	ASSERT_GT(slurp("/proc/interrupts", text, sizeof(text)), 0);
	EXPECT_STREQ(text, before);
}

TEST(pmuos_kallsyms_has_kmain)
{
	if (!ktap_on_pmuos())
		SKIP("pmuos's own symbols");
	ASSERT_GT(slurp("/proc/kallsyms", text, sizeof(text)), 0);
	const char *l = strstr(text, " T kmain\n");
	ASSERT_TRUE(l != NULL);
	unsigned long addr = strtoul(l - 16, NULL, 16);
	EXPECT_GE(addr, 0xffffffff80000000ul);
	/* sorted by address */
	unsigned long prev = 0;
	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		unsigned long a = strtoul(p, NULL, 16);
		EXPECT_TRUE(a >= prev);
		prev = a;
	}
}

static long counter(const char *t, const char *name)
{
	const char *l = line_of(t, name);

	return l ? strtol(l + strlen(name) + 1, NULL, 10) : -1;
}

/* Opening, reading and closing every kind of /proc file gives back every
 * byte and inode. */
TEST(pmuos_proc_accounting_balances)
{
	static char before[1024], after[1024];
	static const char *const files[] = { "/proc/self/status", "/proc/self/maps",
		"/proc/self/smaps", "/proc/kallsyms", "/proc/cpuinfo", "/proc/self/fdinfo/1", "/proc/sys/kernel/pid_max", "/proc/mounts",
		"/sys/devices/system/cpu/online" };

	if (!ktap_on_pmuos())
		SKIP("pmuos's own file");
	for (int round = 0; round < 2; round++) {	/* the first warms the slabs */
		ASSERT_GT(slurp("/sys/kernel/pmuos/accounting", before, sizeof(before)), 0);
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			EXPECT_GE(slurp(files[i], text, sizeof(text)), 0);
		EXPECT_TRUE(dir_has("/proc/self/task/1/fd", "0") || dir_has("/proc/self/fd", "0"));
		char buf[64];
		EXPECT_GT(readlink("/proc/self/exe", buf, sizeof(buf)), 0);
		EXPECT_GT(readlink("/proc/self/fd/0", buf, sizeof(buf)), 0);
		ASSERT_GT(slurp("/sys/kernel/pmuos/accounting", after, sizeof(after)), 0);
	}
	EXPECT_EQ(counter(after, "heap_bytes"), counter(before, "heap_bytes"));
	EXPECT_EQ(counter(after, "heap_objects"), counter(before, "heap_objects"));
	EXPECT_EQ(counter(after, "inodes"), counter(before, "inodes"));
	EXPECT_EQ(counter(after, "files_open"), counter(before, "files_open"));
	EXPECT_EQ(counter(after, "frames_free"), counter(before, "frames_free"));
}
