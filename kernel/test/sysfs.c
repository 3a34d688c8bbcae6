/* Self-tests of the /sys tree: lookups, text and listings through sysfs.h
 * with test PMUs linked into perf_pmus, then the path syscalls end to end
 * from a borrowed task with a small user address space. */
#include "../ktest.h"
#include "../fd.h"
#include "../syscall.h"
#include "../sysfs.h"
#include "../task.h"
#include "../lib/string.h"
#include "../lib/vsprintf.h"
#include "../mm/frames.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include "../mm/uaccess.h"
#include "../mm/uspace.h"
#include "../perf/perf_event.h"
#include <asm/stat.h>
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/stat.h>

static const struct pmu_attr test_format[] = {
	{ "event", "config:0-7" }, { "umask", "config:8-15" }, { NULL, NULL } };
static const struct pmu_attr test_events[] = { { "cycles", "event=0x3c" }, { NULL, NULL } };
static struct pmu test_pmu = {
	.name = "ktest", .type = 42, .format = test_format, .events = test_events };
static struct pmu test_cpu = { .name = "cpu", .type = 4 };

/* Put the test PMUs at the head of the list, for the length of one test. */
static void link_pmus(void)
{
	test_cpu.next = perf_pmus;
	test_pmu.next = &test_cpu;
	perf_pmus = &test_pmu;
}

static void unlink_pmus(void)
{
	perf_pmus = test_cpu.next;
}

static bool contains(const char *s, const char *part)
{
	for (size_t n = strlen(part); *s; s++)
		if (!strncmp(s, part, n))
			return true;
	return false;
}

static bool text_is(const char *path, const char *want)
{
	char buf[128];
	long n = sysfs_read_text(path, buf, sizeof(buf));

	if (n != (long)strlen(want) || memcmp(buf, want, n)) {
		printk("# %s: got %ld bytes \"%s\", want \"%s\"\n", path, n, n > 0 ? buf : "", want);
		return false;
	}
	return true;
}

struct listing {
	char names[256];		/* "name:type " for each entry */
	uint64_t ino[16];
	int n;
	int stop_after;			/* emit says stop after this many; 0: never */
	long next;
};

static bool collect(void *ctx, const struct sysfs_dirent *d, long next)
{
	struct listing *l = ctx;
	size_t len = strlen(l->names);

	snprintf(l->names + len, sizeof(l->names) - len, "%s:%d ", d->name, d->type);
	if (l->n < 16)
		l->ino[l->n] = d->ino;
	l->n++;
	l->next = next;
	return l->n != l->stop_after;
}

static bool list_is(const char *path, const char *want)
{
	struct listing l = { 0 };

	if (sysfs_iterate(path, 0, collect, &l) || strcmp(l.names, want)) {
		printk("# %s lists \"%s\", want \"%s\"\n", path, l.names, want);
		return false;
	}
	return true;
}

KTEST(sysfs_pmu_files)
{
	link_pmus();
	KEXPECT(text_is("/sys/devices/ktest/type", "42\n"));
	KEXPECT(text_is("/sys/devices/ktest/format/umask", "config:8-15\n"));
	KEXPECT(text_is("/sys/devices/ktest/events/cycles", "event=0x3c\n"));
	KEXPECT(text_is("/sys/devices/cpu/type", "4\n"));
	KEXPECT(text_is("/sys/devices/cpu/rdpmc", "1\n"));
	const char *saved = sysfs_cpu_rdpmc;
	sysfs_cpu_rdpmc = "2";
	KEXPECT(text_is("/sys/devices/cpu/rdpmc", "2\n"));
	sysfs_cpu_rdpmc = saved;
	/* Directories only for the lists a PMU has; rdpmc only for "cpu". */
	KEXPECT(list_is("/sys/devices/ktest", ".:4 ..:4 type:8 format:4 events:4 "));
	KEXPECT(list_is("/sys/devices/cpu", ".:4 ..:4 type:8 rdpmc:8 "));
	KEXPECT(list_is("/sys/devices/ktest/format", ".:4 ..:4 event:8 umask:8 "));
	KEXPECT_EQ(sysfs_read_text("/sys/devices/ktest/caps", (char[8]){ 0 }, 8), -ENOENT);
	KEXPECT_EQ(sysfs_read_text("/sys/devices/ktest", (char[8]){ 0 }, 8), -EISDIR);
	unlink_pmus();
	KEXPECT_EQ(sysfs_read_text("/sys/devices/ktest/type", (char[8]){ 0 }, 8), -ENOENT);
}

KTEST(sysfs_lookup_walks_like_linux)
{
	struct sysfs_lookup r;

	link_pmus();
	/* The bus entry is a link to the device, followed unless last and nofollow. */
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/bus/event_source/devices/ktest/type", false, &r), 0);
	KEXPECT(!strcmp(r.path, "/sys/devices/ktest/type"));
	KEXPECT(r.kind == SYSFS_FILE && r.mode == (S_IFREG | 0444) && r.size == 4096);
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/bus/event_source/devices/ktest", false, &r), 0);
	KEXPECT(r.kind == SYSFS_LINK && r.mode == (S_IFLNK | 0777));
	KEXPECT(text_is(r.path, "../../../devices/ktest"));
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/bus/event_source/devices/ktest/", false, &r), 0);
	KEXPECT(r.kind == SYSFS_DIR && !strcmp(r.path, "/sys/devices/ktest"));
	KEXPECT_EQ(r.nlink, 4);		/* itself, "..", format/ and events/ */
	/* Dots, repeated slashes, "/.." and relative paths. */
	KEXPECT_EQ(sysfs_lookup(NULL, "/../sys//devices/./cpu/../ktest/type", true, &r), 0);
	KEXPECT(!strcmp(r.path, "/sys/devices/ktest/type"));
	KEXPECT_EQ(sysfs_lookup("/sys/devices", "ktest/events/cycles", true, &r), 0);
	KEXPECT(!strcmp(r.path, "/sys/devices/ktest/events/cycles"));
	KEXPECT_EQ(sysfs_lookup(NULL, "sys", true, &r), 0);
	KEXPECT_EQ(sysfs_lookup(NULL, "/", true, &r), 0);
	KEXPECT(r.kind == SYSFS_DIR && !strcmp(r.path, "/"));
	/* Errors, and what O_CREAT needs to know about them. */
	KEXPECT_EQ(sysfs_lookup(NULL, "", true, &r), -ENOENT);
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/devices/nope", true, &r), -ENOENT);
	KEXPECT(r.parent_found);
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/devices/nope/type", true, &r), -ENOENT);
	KEXPECT(!r.parent_found);
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/devices/ktest/type/x", true, &r), -ENOTDIR);
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/devices/ktest/type/", true, &r), -ENOTDIR);
	KEXPECT(r.trailing_slash);
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/devices/..", true, &r), 0);
	KEXPECT(r.last_dots && !strcmp(r.path, "/sys"));
	char longname[300];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	KEXPECT_EQ(sysfs_lookup(NULL, longname, true, &r), -ENAMETOOLONG);
	memcpy(longname, "/sys/", 5);	/* kernfs does not find what the root refuses */
	KEXPECT_EQ(sysfs_lookup(NULL, longname, true, &r), -ENOENT);
	unlink_pmus();
}

KTEST(sysfs_listings_and_inodes)
{
	struct listing l = { 0 };
	struct sysfs_lookup r;

	link_pmus();
	KEXPECT(list_is("/", ".:4 ..:4 sys:4 "));
	KEXPECT(list_is("/sys", ".:4 ..:4 bus:4 devices:4 kernel:4 "));
	KEXPECT(list_is("/sys/kernel/pmuos", ".:4 ..:4 accounting:8 kernel_lock:8 "));
	/* The bus lists links (DT_LNK), the devices directory directories. */
	KEXPECT_EQ(sysfs_iterate("/sys/bus/event_source/devices", 0, collect, &l), 0);
	KEXPECT(!strncmp(l.names, ".:4 ..:4 ktest:10 cpu:10 ", 25));
	/* d_ino agrees with stat's st_ino: ".", "..", a child. */
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/bus/event_source/devices", true, &r), 0);
	KEXPECT_EQ(l.ino[0], r.ino);
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/bus/event_source", true, &r), 0);
	KEXPECT_EQ(l.ino[1], r.ino);
	KEXPECT_EQ(sysfs_lookup(NULL, "/sys/bus/event_source/devices/ktest", false, &r), 0);
	KEXPECT_EQ(l.ino[2], r.ino);
	KEXPECT(l.ino[2] != l.ino[3]);
	/* Resuming at a d_off continues after that entry. */
	l = (struct listing){ .stop_after = 3 };
	KEXPECT_EQ(sysfs_iterate("/sys/devices/ktest", 0, collect, &l), 0);
	KEXPECT_EQ(l.next, 3);
	l = (struct listing){ 0 };
	KEXPECT_EQ(sysfs_iterate("/sys/devices/ktest", 3, collect, &l), 0);
	KEXPECT(!strcmp(l.names, "format:4 events:4 "));
	KEXPECT_EQ(sysfs_iterate("/sys/devices/ktest/type", 0, collect, &l), -ENOTDIR);
	unlink_pmus();
	/* A directory that vanished lists only its dots. */
	KEXPECT(list_is("/sys/devices/ktest", ".:4 ..:4 "));
}

static long test_ids[] = { 3, 12 };
static long nr_test_ids = 2;

static bool test_entry(long i, char *name, char *value, size_t size)
{
	if (i >= nr_test_ids)
		return false;
	snprintf(name, SYSFS_NAME_MAX, "p%ld", test_ids[i]);
	snprintf(value, size, "config=%ld", test_ids[i]);
	return true;
}

KTEST(sysfs_events_source_at_read_time)
{
	static struct sysfs_events_source src = { .pmu = &test_pmu, .entry = test_entry };
	static struct sysfs_events_source cpu_src = { .pmu = &test_cpu, .entry = test_entry };

	link_pmus();
	sysfs_add_events_source(&src);
	sysfs_add_events_source(&cpu_src);
	KEXPECT(list_is("/sys/devices/ktest/events", ".:4 ..:4 cycles:8 p3:8 p12:8 "));
	KEXPECT(text_is("/sys/devices/ktest/events/p12", "config=12\n"));
	/* A PMU with no static events gets the directory for its source. */
	KEXPECT(list_is("/sys/devices/cpu", ".:4 ..:4 type:8 events:4 rdpmc:8 "));
	KEXPECT(text_is("/sys/devices/cpu/events/p3", "config=3\n"));
	nr_test_ids = 1;		/* p12 went away */
	KEXPECT(list_is("/sys/devices/ktest/events", ".:4 ..:4 cycles:8 p3:8 "));
	KEXPECT_EQ(sysfs_read_text("/sys/devices/ktest/events/p12", (char[8]){ 0 }, 8), -ENOENT);
	nr_test_ids = 2;
	sysfs_remove_events_source(&cpu_src);
	sysfs_remove_events_source(&src);
	KEXPECT(list_is("/sys/devices/cpu", ".:4 ..:4 type:8 rdpmc:8 "));
	unlink_pmus();
}

KTEST(sysfs_accounting_file)
{
	char buf[512], want[64];
	long n = sysfs_read_text("/sys/kernel/pmuos/accounting", buf, sizeof(buf));

	KASSERT(n > 0 && buf[n - 1] == '\n');
	snprintf(want, sizeof(want), "\nfiles_open %ld\n", files_open);
	KEXPECT(contains(buf, want));
	snprintf(want, sizeof(want), "frames_total %lu\n", frame_stats.total);
	KEXPECT(contains(buf, want));
	KEXPECT(contains(buf, "\nheap_bytes ") && contains(buf, "\nperf_aux_areas "));
}

/* ---- the syscalls, from a borrowed task ---- */

#define TEST_VA		0x400000ul
#define USER_PAGES	3		/* strings in pages 0-1, buffers in page 2 */
#define UBUF		(TEST_VA + 2 * PAGE_SIZE)
#define UNMAPPED	(TEST_VA + USER_PAGES * PAGE_SIZE)

static struct task test_task;
static struct fd_table test_fds;
static long ustr_off;

/* Run body as a task of its own with the test PMUs linked; whatever the
 * body leaves open is closed, and heap and files return to where they were. */
static void run_as_task(void (*body)(void))
{
	long heap = heap_stats.bytes, files = files_open, frames = frame_stats.free;
	struct uspace *us = uspace_create();
	struct task *saved = current;

	KASSERT(us);
	for (int i = 0; i < USER_PAGES; i++) {
		uint64_t pa = frame_alloc_zeroed();
		KEXPECT(pa && !map_page(us->pml4, TEST_VA + i * PAGE_SIZE, pa, PTE_U | PTE_W | PTE_NX));
	}
	test_task = (struct task){ .pid = 1, .tgid = 1, .us = us, .fds = &test_fds };
	test_task.leader = &test_task;
	set_current(&test_task);
	uspace_activate(us);
	ustr_off = 0;
	link_pmus();
	if (!ktest_state.failed)
		body();
	unlink_pmus();
	fd_close_all(&test_fds);
	set_current(saved);
	uspace_activate(current ? current->us : NULL);
	uspace_destroy(us);
	KEXPECT_EQ(files_open, files);
	KEXPECT_EQ(heap_stats.bytes, heap);
	KEXPECT_EQ(frame_stats.free, frames);
}

/* A copy of s in the user pages; its user address as a syscall argument. */
static long ustr(const char *s)
{
	long u = TEST_VA + ustr_off;

	copy_to_user((void *)u, s, strlen(s) + 1);
	ustr_off += ALIGN_UP(strlen(s) + 1, 8);
	return u;
}

/* The user buffer as text: the first n bytes read back, NUL-terminated. */
static const char *ubuf_text(long n)
{
	static char text[256];

	n = MAX(0, MIN(n, (long)sizeof(text) - 1));
	copy_from_user(text, (void *)UBUF, n);
	text[n] = '\0';
	return text;
}

static void syscalls_read_seek_stat(void)
{
	long files = files_open, heap = heap_stats.bytes;
	struct stat st;

	long fd = sys_open(ustr("/sys/bus/event_source/devices/ktest/format/event"), O_RDONLY, 0);
	KASSERT(fd >= 0);
	KEXPECT_EQ(files_open, files + 1);
	/* Partial reads follow the position; at the end a read gives 0. */
	KEXPECT_EQ(sys_read(fd, UBUF, 4), 4);
	KEXPECT(!strcmp(ubuf_text(4), "conf"));
	KEXPECT_EQ(sys_read(fd, UBUF, 100), 7);
	KEXPECT(!strcmp(ubuf_text(7), "ig:0-7\n"));
	KEXPECT_EQ(sys_read(fd, UBUF, 100), 0);
	KEXPECT_EQ(sys_lseek(fd, 0, SEEK_SET), 0);
	KEXPECT_EQ(sys_read(fd, UBUF, 100), 11);
	KEXPECT_EQ(sys_lseek(fd, 0, SEEK_END), 4096);
	KEXPECT_EQ(sys_lseek(fd, -1, SEEK_SET), -EINVAL);
	KEXPECT_EQ(sys_lseek(fd, 0, SEEK_CUR), 4096);
	/* pread64 leaves the position alone. */
	KEXPECT_EQ(sys_pread64(fd, UBUF, 100, 7), 4);
	KEXPECT(!strcmp(ubuf_text(4), "0-7\n"));
	KEXPECT_EQ(sys_pread64(fd, UBUF, 100, -1), -EINVAL);
	KEXPECT_EQ(sys_lseek(fd, 0, SEEK_CUR), 4096);
	KEXPECT_EQ(sys_pread64(99, UBUF, 100, 0), -EBADF);
	/* Faults and the wrong kind of file. */
	KEXPECT_EQ(sys_pread64(fd, UNMAPPED, 100, 0), -EFAULT);
	KEXPECT_EQ(sys_pread64(fd, KERNEL_VMA, 100, 0), -EFAULT);
	KEXPECT_EQ(sys_getdents64(fd, UBUF, 4096), -ENOTDIR);
	KEXPECT_EQ(sys_fstat(fd, UBUF), 0);
	copy_from_user(&st, (void *)UBUF, sizeof(st));
	KEXPECT(st.st_mode == (S_IFREG | 0444) && st.st_size == 4096);
	/* stat agrees, lstat sees the link, readlink reads it. */
	KEXPECT_EQ(sys_stat(ustr("/sys/devices/ktest/format/event"), UBUF), 0);
	copy_from_user(&st, (void *)UBUF, sizeof(st));
	KEXPECT(st.st_mode == (S_IFREG | 0444) && st.st_size == 4096 && st.st_ino);
	KEXPECT_EQ(sys_lstat(ustr("/sys/bus/event_source/devices/ktest"), UBUF), 0);
	copy_from_user(&st, (void *)UBUF, sizeof(st));
	KEXPECT_EQ(st.st_mode, S_IFLNK | 0777);
	KEXPECT_EQ(sys_readlink(ustr("/sys/bus/event_source/devices/ktest"), UBUF, 100), 22);
	KEXPECT(!strcmp(ubuf_text(22), "../../../devices/ktest"));
	KEXPECT_EQ(sys_readlink(ustr("/sys/devices/ktest/type"), UBUF, 100), -EINVAL);
	KEXPECT_EQ(sys_close(fd), 0);
	/* The open file's path went back to the heap. */
	KEXPECT_EQ(files_open, files);
	KEXPECT_EQ(heap_stats.bytes, heap);
}

static void syscalls_getdents64(void)
{
	char kbuf[512];
	const char *want[] = { ".", "..", "type", "format", "events" };

	long dfd = sys_open(ustr("/sys/devices/ktest"), O_RDONLY | O_DIRECTORY, 0);
	KASSERT(dfd >= 0);
	long n = sys_getdents64(dfd, UBUF, sizeof(kbuf));
	KASSERT(n > 0 && n <= (long)sizeof(kbuf));
	copy_from_user(kbuf, (void *)UBUF, n);
	int i = 0;
	for (long off = 0; off < n; i++) {
		uint16_t reclen = *(uint16_t *)(kbuf + off + 16);
		KASSERT(reclen && IS_ALIGNED(reclen, 8) && i < 5);
		KEXPECT(!strcmp(kbuf + off + 19, want[i]));
		KEXPECT_EQ(*(int64_t *)(kbuf + off + 8), i + 1);	/* d_off */
		KEXPECT_EQ(kbuf[off + 18], i == 2 ? 8 : 4);		/* d_type */
		off += reclen;
	}
	KEXPECT_EQ(i, 5);
	KEXPECT_EQ(sys_getdents64(dfd, UBUF, sizeof(kbuf)), 0);
	/* Back to the start: a 24-byte buffer holds "." alone, 10 bytes none. */
	KEXPECT_EQ(sys_lseek(dfd, 0, SEEK_SET), 0);
	KEXPECT_EQ(sys_getdents64(dfd, UBUF, 24), 24);
	KEXPECT_EQ(sys_getdents64(dfd, UBUF, 10), -EINVAL);
	KEXPECT_EQ(sys_getdents64(dfd, UNMAPPED, 100), -EFAULT);
	KEXPECT_EQ(sys_read(dfd, UBUF, 10), -EISDIR);
	/* openat from the directory, and from things that are not one. */
	long fd = sys_openat(dfd, ustr("type"), O_RDONLY, 0);
	KEXPECT(fd >= 0);
	KEXPECT_EQ(sys_read(fd, UBUF, 100), 3);
	KEXPECT(!strcmp(ubuf_text(3), "42\n"));
	KEXPECT_EQ(sys_openat(fd, ustr("type"), O_RDONLY, 0), -ENOTDIR);
	KEXPECT_EQ(sys_openat(99, ustr("type"), O_RDONLY, 0), -EBADF);
	KEXPECT(sys_openat(99, ustr("/sys/devices/ktest/type"), O_RDONLY, 0) >= 0);
	KEXPECT_EQ(sys_newfstatat(dfd, ustr("format"), UBUF, 0), 0);
}

static void syscalls_errors(void)
{
	long type = ustr("/sys/devices/ktest/type"), dir = ustr("/sys/devices/ktest");
	long link = ustr("/sys/bus/event_source/devices/ktest");
	KEXPECT_EQ(sys_open(ustr("/sys/devices/nope"), O_RDONLY, 0), -ENOENT);
	KEXPECT_EQ(sys_open(ustr(""), O_RDONLY, 0), -ENOENT);
	KEXPECT_EQ(sys_open(type, O_WRONLY, 0), -EACCES);
	KEXPECT_EQ(sys_open(type, O_RDWR, 0), -EACCES);
	KEXPECT_EQ(sys_open(type, O_RDONLY | O_DIRECTORY, 0), -ENOTDIR);
	KEXPECT_EQ(sys_open(ustr("/sys/devices/ktest/type/"), O_RDONLY, 0), -ENOTDIR);
	KEXPECT_EQ(sys_open(dir, O_WRONLY, 0), -EISDIR);
	KEXPECT_EQ(sys_open(dir, O_RDONLY | O_TRUNC, 0), -EISDIR);
	KEXPECT_EQ(sys_open(ustr("/sys/devices/ktest/new"), O_CREAT | O_WRONLY, 0644), -EACCES);
	KEXPECT_EQ(sys_open(ustr("/sys/devices/ktest/new/"), O_CREAT, 0644), -EISDIR);
	KEXPECT_EQ(sys_open(type, O_CREAT | O_EXCL, 0644), -EEXIST);
	KEXPECT_EQ(sys_open(link, O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
	KEXPECT_EQ(sys_open(dir, O_RDWR | O_TMPFILE, 0), -EOPNOTSUPP);
	KEXPECT_EQ(sys_open(dir, O_RDONLY | O_TMPFILE, 0), -EINVAL);
	KEXPECT_EQ(sys_open(type, O_RDONLY | O_DIRECT, 0), -EINVAL);
	KEXPECT_EQ(sys_open(0, O_RDONLY, 0), -EFAULT);
	KEXPECT_EQ(sys_open(UNMAPPED, O_RDONLY, 0), -EFAULT);
	KEXPECT_EQ(sys_open(KERNEL_VMA, O_RDONLY, 0), -EFAULT);
	/* 4096 bytes and no NUL: longer than PATH_MAX. */
	char slashes[PAGE_SIZE];
	memset(slashes, '/', sizeof(slashes));
	copy_to_user((void *)TEST_VA, slashes, sizeof(slashes));
	copy_to_user((void *)(TEST_VA + PAGE_SIZE), slashes, sizeof(slashes));
	KEXPECT_EQ(sys_open(TEST_VA, O_RDONLY, 0), -ENAMETOOLONG);
	ustr_off = 0;
	type = ustr("/sys/devices/ktest/type");
	/* access: root may do all but execute a file with no x bit. */
	KEXPECT_EQ(sys_access(type, 4 /* R_OK */), 0);
	KEXPECT_EQ(sys_access(type, 2 /* W_OK */), 0);
	KEXPECT_EQ(sys_access(type, 1 /* X_OK */), -EACCES);
	KEXPECT_EQ(sys_access(type, 8), -EINVAL);
	KEXPECT_EQ(sys_access(ustr("/sys/nope"), 0), -ENOENT);
	/* O_PATH names the node and does nothing else. */
	long fd = sys_open(type, O_PATH, 0);
	KEXPECT(fd >= 0);
	KEXPECT_EQ(sys_read(fd, UBUF, 10), -EBADF);
	KEXPECT_EQ(sys_fcntl(fd, F_GETFL, 0), O_PATH);
	KEXPECT_EQ(sys_fstat(fd, UBUF), 0);
	KEXPECT_EQ(sys_close(fd), 0);
	/* A file removed while open reads as ENODEV, kernfs's answer. */
	fd = sys_open(type, O_RDONLY, 0);
	KEXPECT_EQ(sys_fcntl(fd, F_GETFL, 0), O_RDONLY | O_LARGEFILE);
	unlink_pmus();
	KEXPECT_EQ(sys_read(fd, UBUF, 10), -ENODEV);
	KEXPECT_EQ(sys_close(fd), 0);
	link_pmus();
}

KTEST(sysfs_syscalls_read_seek_stat)
{
	run_as_task(syscalls_read_seek_stat);
}

KTEST(sysfs_syscalls_getdents64)
{
	run_as_task(syscalls_getdents64);
}

KTEST(sysfs_syscalls_errors)
{
	run_as_task(syscalls_errors);
}
