/* user/fuzz/files.c: the fuzzer's file syscalls: open/openat/creat with every flag, the
 * read and write family, lseek, getdents64, the stat family, the namespace calls (mkdir,
 * rmdir, unlink, rename with its flags, link, symlink, readlink), access, the working
 * directory, truncate, fsync, umask, chmod/chown/utimensat, fcntl and FIONREAD, and file
 * mappings touched past their end. Paths come from a small pool: a scratch tree under
 * /tmp/fuzz (names a..e, three deep, symlinks that loop or lead elsewhere), device and /sys
 * nodes, "", ".", "..", over-long names and paths, trailing slashes, and bad pointers.
 *
 * What the fuzzer changes stays in the scratch tree: calls that make, remove or change a
 * node name it by a scratch path, or by one where the kernel must refuse (a mount point,
 * /sys, another file system); symlinks lead only into the tree (no "..") or to the devices
 * and /sys; relative paths start in the tree (AT_FDCWD only while the working directory is
 * there, else a descriptor of a tree directory). At the end the tree is removed with the
 * kernel's own getdents64, unlink and rmdir. Memory stays bounded: writes land in the first
 * 256 KiB of a file, or far out (a page there costs the radix tree a node a level), or past
 * the largest file (EFBIG); sizes set by truncate cost nothing. */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/stat.h>

#define TREE		"/tmp/fuzz"
#define PATH_LEN	(4096 + 512)	/* room for paths past PATH_MAX */
#define MAP_SLOTS	8		/* file mappings held at once ... */
#define SLOT_PAGES	16		/* ... each at most this long */
#define FILE_SPAN	(256 * 1024)	/* where writes land, mostly */

static const char *const names[] = { "a", "b", "c", "d", "e" };

/* Paths outside the tree that every call may name: the ones that change something are
 * refused there (mount points, /sys, the devices from another file system). */
static const char *const refused[] = {
	"/", "/dev", "/proc", "/sys", "/sys/bus/event_source/devices",
	"/sys/bus/event_source/devices/cpu", "/sys/kernel/pmuos/accounting",
	"/sys/bus/event_source/devices/software/type", "/proc/self",
};
/* Devices: read, written, truncated, named by links; never removed or renamed onto. */
static const char *const devices[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/urandom" };
/* Only looked at: stat, access, readlink, open read-only, chdir, getdents64. */
static const char *const looked_at[] = {
	"/etc", "/etc/runlist", "/tmp", "/dev/fd", "/dev/stdin", "/bin", "..", "../..",
	TREE "/..", TREE "/a/../b", TREE "/a/./b/..", "/tmp/../dev/null", "/sys/bus/../kernel",
	"/sys/bus/event_source/devices/cpu/format/event", "/dev/./zero", "//tmp//fuzz//",
};

/* ---- state ---- */

static char pathbuf[4][PATH_LEN];
static int next_buf;
static bool cwd_in_tree = false;	/* relative names may be made under AT_FDCWD */
static uint8_t *maps;			/* MAP_SLOTS * SLOT_PAGES pages, mapped only by the calls */
static struct { size_t len; int prot; bool mapped; } slot[MAP_SLOTS];
static uint8_t iobuf[8 * FZ_PAGE];	/* the bytes writes take from */

void fz_files_init(void)
{
	/* An address range for the file mappings beside the arena (mem.c), empty at the
	 * baseline and at the end. */
	_Static_assert(MAP_SLOTS * SLOT_PAGES <= FZ_FILE_MAP_PAGES, "the slots fit");
	maps = fz_file_maps;
	for (size_t i = 0; i < sizeof(iobuf); i++)
		iobuf[i] = 'a' + i % 26;
}

static char *buf_next(void)
{
	return pathbuf[next_buf++ % 4];
}

/* ---- paths ---- */

/* 1 to 3 names of the tree, "/"-joined, into p. */
static int tree_names(char *p, size_t size)
{
	unsigned w = fz_below(8);
	int n = 0, depth = w < 4 ? 1 : w < 7 ? 2 : 3;

	for (int i = 0; i < depth; i++)
		n += snprintf(p + n, size - n, "%s%s", i ? "/" : "", FZ_PICK(names));
	return n;
}

/* A path with a name too long (> 255) or a whole path too long (> 4095). */
static char *too_long(void)
{
	char *p = buf_next();
	int n = snprintf(p, PATH_LEN, TREE "/");

	if (fz_one_in(2)) {
		size_t len = 256 + fz_below(8);
		memset(p + n, 'x', len);
		p[n + len] = '\0';
	} else {
		/* "a/./././..." past PATH_MAX, or just under it */
		size_t end = fz_one_in(2) ? 4096 + fz_below(64) : 4090 - fz_below(8);
		p[n++] = 'a';
		while ((size_t)n + 2 < end)
			p[n++] = '/', p[n++] = '.';
		p[n] = '\0';
	}
	return p;
}

/*
 * A path where a call may make, remove or change something, and the dirfd it is relative
 * to: mostly in the tree (absolute, or relative to a tree directory), now and then one the
 * kernel must refuse, an odd one, or a symlink loop's name.
 */
static char *change_path(int *dirfd)
{
	char *p = buf_next();
	unsigned w = fz_below(100);

	*dirfd = AT_FDCWD;
	if (w < 50) {
		int n = snprintf(p, PATH_LEN, TREE "/");
		n += tree_names(p + n, PATH_LEN - n);
		if (fz_one_in(12))
			snprintf(p + n, PATH_LEN - n, "%s", FZ_PICK(((const char *[]){ "/", "//", "/.", "/..", "/./" })));
		return p;
	}
	if (w < 80) {
		/* relative: the working directory when it is in the tree, or a tree directory
		 * the fuzzer holds; what is left lands on EBADF or ENOTDIR */
		int n = tree_names(p, PATH_LEN);
		if (fz_one_in(12))
			snprintf(p + n, PATH_LEN - n, "/");
		if (!cwd_in_tree || fz_one_in(3)) {
			*dirfd = -1;
			for (int i = 0, start = fz_below(FZ_FDS); i < FZ_FDS; i++) {
				int fd = (start + i) % FZ_FDS;
				if (fz_fds[fd].open && fz_fds[fd].in_tree) {
					*dirfd = fd;
					break;
				}
			}
			if (*dirfd < 0) {
				/* none: a relative path would land in the working directory */
				snprintf(p, PATH_LEN, TREE "/%s", FZ_PICK(names));
				*dirfd = AT_FDCWD;
			}
		}
		return p;
	}
	if (w < 86)
		return strcpy(p, FZ_PICK(refused));
	if (w < 90)
		return too_long();
	if (w < 94) {
		/* the tree's own name, and its dots: refused (EEXIST, EBUSY, ENOTEMPTY...) */
		return strcpy(p, FZ_PICK(((const char *[]){ TREE "/.", TREE "/a/..", TREE "/a/b/.",
						       "", ".", TREE "/a/." })));
	}
	if (w < 97 && cwd_in_tree)
		return strcpy(p, FZ_PICK(((const char *[]){ ".", "..", "./a", "a/.", "a/..", "" })));
	/* a link the tree may hold, its loops included */
	snprintf(p, PATH_LEN, TREE "/%s/%s", FZ_PICK(names), FZ_PICK(names));
	return p;
}

/* A path a call only looks at: any of the above, the devices, and more of the system. */
static char *look_path(int *dirfd)
{
	unsigned w = fz_below(100);

	if (w < 70) {
		char *p = change_path(dirfd);
		if (fz_one_in(8))
			*dirfd = fz_pick_fd();		/* any: EBADF, ENOTDIR, a perf fd */
		return p;
	}
	*dirfd = fz_one_in(4) ? fz_pick_fd() : AT_FDCWD;
	if (w < 80)
		return strcpy(buf_next(), FZ_PICK(devices));
	return strcpy(buf_next(), FZ_PICK(looked_at));
}

/* A target for a new symlink: into the tree (absolute, or relative without ".."), a device,
 * /sys, itself or a neighbour (loops), nothing at all, or too long. */
static char *link_target(void)
{
	char *p = buf_next();

	switch (fz_below(8)) {
	case 0: case 1: {
		int n = snprintf(p, PATH_LEN, TREE "/");
		tree_names(p + n, PATH_LEN - n);
		return p;
	}
	case 2: case 3:
		tree_names(p, PATH_LEN);
		return p;
	case 4:
		return strcpy(p, fz_one_in(2) ? FZ_PICK(devices) :
			      FZ_PICK(((const char *[]){ "/sys/bus/event_source/devices",
							 "/sys/kernel/pmuos/accounting", "/proc",
							 "/proc/self/fd/0" })));
	case 5:
		return strcpy(p, FZ_PICK(((const char *[]){ ".", "a", "b/a", "./a/", "a//b" })));
	case 6:
		return strcpy(p, fz_one_in(4) ? "" : "nowhere/at/all");
	default:
		if (fz_one_in(4)) {
			size_t len = 4090 + fz_below(16);
			memset(p, 'l', len);
			p[len] = '\0';
			return p;
		}
		snprintf(p, PATH_LEN, TREE "/%s", FZ_PICK(names));
		return p;
	}
}

/* The pointer a path is passed as: mostly itself, else bad or cut at a page's end (never
 * the fuzzer's other memory, whose bytes would name nodes outside the tree). */
static const char *path_ptr(const char *path)
{
	size_t len = strlen(path) + 1;

	/* none readable: the fuzzer's bad pointers include the stack's last bytes, whose string
	 * (the program's name) would name a node outside the tree */
	static const uint64_t bad[] = {
		0, 1, 0xfff, 0x0000800000000000ull, 0xffff800000000000ull, 0xffffffff80000000ull,
		0xfffffffffffff000ull, ~0ull,
	};

	switch (fz_below(32)) {
	case 0:
		return (const char *)FZ_PICK(bad);
	case 1:
		/* only the first bytes before an unmapped page: EFAULT, or the whole path
		 * when it is short */
		if (len > FZ_PAGE)
			return NULL;
		return fz_in_ptr(path, len);
	default:
		return path;
	}
}

/* ---- descriptors ---- */

/* A file descriptor the fuzzer made, mostly of type (DT_*, 0 for any), or now and then any
 * descriptor. Never 0..2: a read of the console waits for input, a write shows on it. */
/* The console under another name (/dev/tty, /dev/console, a /proc/self/fd
 * link, a dup): tty (4:*) and console (5:*) devices. */
static bool is_terminal(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	       (major(st.st_rdev) == 4 || major(st.st_rdev) == 5);
}

static int pick_typed_fd(unsigned type)
{
	int any = -1;

	if (fz_one_in(10))
		return fz_pick_fd();
	if (fz_one_in(4))
		type = 0;
	for (int i = 0, start = fz_below(FZ_FDS); i < FZ_FDS; i++) {
		int fd = (start + i) % FZ_FDS;
		if (!fz_fds[fd].open || !fz_fds[fd].file)
			continue;
		if (!type || fz_fds[fd].type == type)
			return fd;
		if (any < 0)
			any = fd;
	}
	return any >= 0 ? any : fz_pick_fd();
}

static int pick_file_fd(void)
{
	return pick_typed_fd(0);
}

static bool under_tree(const char *path)
{
	return !strncmp(path, TREE, strlen(TREE)) &&
	       (!path[strlen(TREE)] || path[strlen(TREE)] == '/');
}

/* A new file descriptor, in the tree when nothing but the tree's names led to it. */
static void file_opened(long fd, bool tree)
{
	if (fd < 0 || fd >= FZ_FDS)
		return;
	struct stat st;

	/* The console by another name (/dev/stdin, /proc/self/fd/0): a read of
	 * it would wait for input for ever, a write prints. Not kept. */
	if (is_terminal(fd)) {
		close(fd);
		return;
	}
	fz_fd_opened(fd, false);
	fz_fds[fd].file = true;
	fz_fds[fd].in_tree = tree;
	/* not a call of the run: its type, for the calls that want one */
	fz_fds[fd].type = syscall(SYS_fstat, fd, &st) ? 0 : (st.st_mode & S_IFMT) >> 12;
}

/* Where the working directory is, after a chdir: in the tree, or elsewhere. */
static void cwd_changed(void)
{
	char *p = buf_next();

	cwd_in_tree = syscall(SYS_getcwd, p, PATH_LEN) > 0 ? under_tree(p) : true;
	/* a removed directory: creation fails there (ENOENT), it was in the tree */
}

/* ---- open, close ---- */

static int random_open_flags(bool *changes)
{
	static const int bits[] = {
		O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_DIRECTORY, O_NOFOLLOW, O_PATH, O_CLOEXEC,
		O_NONBLOCK, O_NOATIME, O_DIRECT, O_SYNC, O_DSYNC, O_NOCTTY, O_ASYNC, O_LARGEFILE,
	};
	int flags = FZ_PICK(((const int[]){ O_RDONLY, O_RDONLY, O_WRONLY, O_RDWR, O_RDWR, 3 }));

	for (int k = fz_below(4); k > 0; k--)
		flags |= FZ_PICK(bits);
	if (fz_one_in(12))
		flags = (flags & ~O_DIRECTORY) | O_TMPFILE;
	if (fz_one_in(32))
		flags |= (int)fz_rand();
	if (fz_one_in(6))
		flags |= O_CREAT;
	*changes = (flags & (O_CREAT | O_TRUNC | O_TMPFILE | O_ACCMODE)) != 0;
	return flags;
}

static unsigned random_mode(void)
{
	switch (fz_below(6)) {
	case 0: return fz_rand();
	case 1: return 0;
	case 2: return 0777 | S_ISUID | S_ISGID | S_ISVTX;
	default: return FZ_PICK(((const unsigned[]){ 0644, 0600, 0755, 0444 }));
	}
}

static void op_open(void)
{
	bool changes;
	int flags = random_open_flags(&changes), dirfd;
	unsigned mode = random_mode();
	unsigned how = fz_below(8);

	if (how == 0)
		changes = true;		/* creat is O_CREAT | O_WRONLY | O_TRUNC */
	char *path = fz_one_in(12) ? strcpy(buf_next(), FZ_PICK(devices)) :
		     changes ? change_path(&dirfd) : look_path(&dirfd);
	if (!strncmp(path, "/dev/", 5))
		dirfd = AT_FDCWD;
	bool tree = path[0] == '/' ? under_tree(path) : dirfd == AT_FDCWD ? cwd_in_tree :
		    dirfd >= 0 && dirfd < FZ_FDS && fz_fds[dirfd].in_tree;
	const char *p = path_ptr(path);
	struct fz_rec *r;
	long fd;

	if (how == 0) {
		r = fz_rec_begin(FZ_F_CREAT);
		if (path[0] != '/' && dirfd != AT_FDCWD)
			p = path = strcpy(buf_next(), TREE "/a");	/* creat has no dirfd */
		r->a[0] = (long)p, r->a[1] = mode;
		fz_rec_path(r, 0, path);
		fd = fz_rec_end(r, syscall(SYS_creat, p, mode));
		tree = path[0] == '/' ? under_tree(path) : cwd_in_tree;
	} else if (how < 3 && dirfd == AT_FDCWD) {
		r = fz_rec_begin(FZ_F_OPEN);
		r->a[0] = (long)p, r->a[1] = flags, r->a[2] = mode;
		fz_rec_path(r, 0, path);
		fd = fz_rec_end(r, syscall(SYS_open, p, flags, mode));
	} else {
		r = fz_rec_begin(FZ_F_OPENAT);
		r->a[0] = dirfd, r->a[1] = (long)p, r->a[2] = flags, r->a[3] = mode;
		fz_rec_path(r, 0, path);
		fd = fz_rec_end(r, syscall(SYS_openat, dirfd, p, flags, mode));
	}
	/* a ".." of the tree's own leads out of it: never a directory to create in */
	file_opened(fd, tree && !strstr(path, ".."));
}

static void op_close(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_F_CLOSE);
	int fd = pick_file_fd();

	if (fd >= 0 && fd < 3)
		fd = -1;
	r->a[0] = fd;
	if (fz_rec_end(r, syscall(SYS_close, fd)) == 0)
		fz_fd_closed(fd);
}

/* ---- read and write ---- */

static size_t io_len(void)
{
	switch (fz_below(8)) {
	case 0: return fz_below(16);
	case 1: return fz_one_in(4) ? fz_value() : 4096 * (1 + fz_below(8));
	case 2: return FZ_PAGE - 1 + fz_below(3);
	default: return fz_below(2048);
	}
}

/* Where a positional call reads or writes: mostly the first 256 KiB, else far out, at the
 * largest file size, or negative. */
static long io_pos(void)
{
	switch (fz_below(24)) {
	case 0: return -1 - (long)fz_below(4096);
	case 1: return (long)(1ull << (20 + fz_below(43))) - (long)fz_below(2);
	case 2: return 0x7fffffffffffffffl - (long)fz_below(4097);
	case 3: return (long)(fz_value() >> 1);
	default: return fz_below(4) ? (long)fz_below(3 * FZ_PAGE) : (long)fz_below(FILE_SPAN);
	}
}

/* An iovec array: some empty, some bad, some huge; a count past UIO_MAXIOV now and then. */
static struct iovec *random_iov(int *cnt, bool write)
{
	static struct iovec iov[64];
	int n = fz_one_in(16) ? (int)fz_value() : (int)fz_below(5);

	if (n > 64 && n <= 1024)
		n = 64;		/* every entry the kernel reads is one of ours */
	*cnt = n;
	for (int i = 0; i < 64 && i < n + 1; i++) {
		size_t len = io_len() & 0xfff;
		iov[i].iov_base = write ? fz_in_ptr(iobuf + fz_below(FZ_PAGE), len) : fz_out_ptr(len);
		iov[i].iov_len = fz_one_in(16) ? fz_value() : len;
	}
	return iov;
}

static void op_rw(void)
{
	static const enum fz_call calls[] = {
		FZ_F_READ, FZ_F_WRITE, FZ_F_PREAD, FZ_F_PWRITE, FZ_F_READV, FZ_F_WRITEV,
		FZ_F_PREADV, FZ_F_PWRITEV,
	};
	enum fz_call c = calls[fz_below(8)];
	struct fz_rec *r = fz_rec_begin(c);
	int fd = pick_typed_fd(fz_one_in(4) ? DT_CHR : DT_REG), cnt;
	bool write = c == FZ_F_WRITE || c == FZ_F_PWRITE || c == FZ_F_WRITEV || c == FZ_F_PWRITEV;
	size_t len = io_len();
	long pos = io_pos(), ret;

	if (fd >= 0 && (fd < 3 || is_terminal(fd)))
		fd = -1;	/* a read of the console waits, a write prints */
	void *in = fz_in_ptr(iobuf, len < sizeof(iobuf) ? len : sizeof(iobuf));
	void *out = fz_out_ptr(len);
	/* a long write takes its bytes from memory that ends soon: the file grows by little */
	if (write && len > sizeof(iobuf) && !fz_one_in(8))
		len = sizeof(iobuf);	/* else the kernel reads on past iobuf, to the end of .bss */
	r->a[0] = fd;
	switch (c) {
	case FZ_F_READ:
		r->a[1] = (long)out, r->a[2] = len;
		ret = syscall(SYS_read, fd, out, len);
		break;
	case FZ_F_WRITE:
		r->a[1] = (long)in, r->a[2] = len;
		ret = syscall(SYS_write, fd, in, len);
		break;
	case FZ_F_PREAD:
		r->a[1] = (long)out, r->a[2] = len, r->a[3] = pos;
		ret = syscall(SYS_pread64, fd, out, len, pos);
		break;
	case FZ_F_PWRITE:
		r->a[1] = (long)in, r->a[2] = len, r->a[3] = pos;
		ret = syscall(SYS_pwrite64, fd, in, len, pos);
		break;
	default: {
		struct iovec *iov = random_iov(&cnt, write);
		void *piov = fz_one_in(16) ? fz_in_ptr(iov, cnt * sizeof(*iov)) : iov;
		long nr = c == FZ_F_READV ? SYS_readv : c == FZ_F_WRITEV ? SYS_writev :
			  c == FZ_F_PREADV ? SYS_preadv : SYS_pwritev;
		r->a[1] = (long)piov, r->a[2] = cnt, r->a[3] = pos;
		ret = syscall(nr, fd, piov, cnt, pos, 0);
		break;
	}
	}
	fz_rec_end(r, ret);
}

static void op_lseek(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_F_LSEEK);
	int fd = pick_typed_fd(fz_one_in(3) ? DT_DIR : DT_REG);
	int whence = fz_one_in(8) ? (int)fz_value() : (int)fz_below(5);	/* SET..HOLE */
	long off;

	switch (fz_below(6)) {
	case 0: off = fz_value(); break;
	case 1: off = -(long)fz_below(8192); break;
	case 2: off = 0x7fffffffffffffffl - fz_below(2); break;
	default: off = fz_below(3 * FZ_PAGE); break;
	}
	r->a[0] = fd, r->a[1] = off, r->a[2] = whence;
	fz_rec_end(r, syscall(SYS_lseek, fd, off, whence));
}

static void op_getdents(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_F_GETDENTS);
	int fd = pick_typed_fd(DT_DIR);
	size_t len;

	switch (fz_below(6)) {
	case 0: len = fz_below(24); break;		/* smaller than one record */
	case 1: len = 19 + fz_below(40); break;	/* a record or two, odd */
	case 2: len = fz_value(); break;
	default: len = 1 + fz_below(2 * FZ_PAGE); break;
	}
	void *p = fz_out_ptr(len);
	r->a[0] = fd, r->a[1] = (long)p, r->a[2] = len;
	long n = fz_rec_end(r, syscall(SYS_getdents64, fd, p, len));
	/* the records must tile what was returned */
	if (n > 0 && p == fz_scratch()) {
		for (long off = 0; off < n;) {
			struct dirent *d = (void *)((char *)p + off);
			if (d->d_reclen < 20 || d->d_reclen % 8 || off + d->d_reclen > n ||
			    strnlen(d->d_name, 256) >= d->d_reclen - 19u)
				fz_fail("getdents64 returned %ld bytes, a record at %ld of %u", n, off,
					d->d_reclen);
			off += d->d_reclen;
		}
	}
}

/* ---- the stat family ---- */

static void op_stat(void)
{
	static const enum fz_call calls[] = {
		FZ_F_STAT, FZ_F_LSTAT, FZ_F_FSTAT, FZ_F_FSTATAT, FZ_F_STATX, FZ_F_STATFS,
		FZ_F_FSTATFS,
	};
	enum fz_call c = calls[fz_below(7)];
	struct fz_rec *r = fz_rec_begin(c);
	int dirfd, fd = pick_file_fd();
	char *path = look_path(&dirfd);
	const char *p = path_ptr(path);
	void *out = fz_out_ptr(sizeof(struct statx) + 64);
	long flags, ret;

	flags = fz_one_in(8) ? (long)fz_rand() & 0xffff :
		FZ_PICK(((const long[]){ 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, AT_NO_AUTOMOUNT,
					 AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, AT_STATX_FORCE_SYNC,
					 AT_STATX_DONT_SYNC, AT_STATX_SYNC_TYPE }));
	if ((flags & AT_EMPTY_PATH) && fz_one_in(2))
		p = path = strcpy(buf_next(), ""), dirfd = fd;
	fz_rec_path(r, 0, path);
	switch (c) {
	case FZ_F_STAT:
		r->a[0] = (long)p, r->a[1] = (long)out;
		ret = syscall(SYS_stat, p, out);
		break;
	case FZ_F_LSTAT:
		r->a[0] = (long)p, r->a[1] = (long)out;
		ret = syscall(SYS_lstat, p, out);
		break;
	case FZ_F_FSTAT:
		r->path[0][0] = '\0';
		r->a[0] = fd, r->a[1] = (long)out;
		ret = syscall(SYS_fstat, fd, out);
		break;
	case FZ_F_FSTATAT:
		r->a[0] = dirfd, r->a[1] = (long)p, r->a[2] = (long)out, r->a[3] = flags;
		ret = syscall(SYS_newfstatat, dirfd, p, out, flags);
		break;
	case FZ_F_STATX: {
		unsigned mask = fz_one_in(4) ? (unsigned)fz_rand() :
				FZ_PICK(((const unsigned[]){ STATX_BASIC_STATS, STATX_ALL, 0,
							     STATX_TYPE | STATX_SIZE }));
		r->a[0] = dirfd, r->a[1] = (long)p, r->a[2] = flags, r->a[3] = mask;
		r->a[4] = (long)out;
		ret = syscall(SYS_statx, dirfd, p, flags, mask, out);
		break;
	}
	case FZ_F_STATFS:
		r->a[0] = (long)p, r->a[1] = (long)out;
		ret = syscall(SYS_statfs, p, out);
		break;
	default:
		r->path[0][0] = '\0';
		r->a[0] = fd, r->a[1] = (long)out;
		ret = syscall(SYS_fstatfs, fd, out);
		break;
	}
	fz_rec_end(r, ret);
}

/* ---- the namespace ---- */

static void op_mkdir(void)
{
	bool at = fz_below(2);
	struct fz_rec *r = fz_rec_begin(at ? FZ_F_MKDIRAT : FZ_F_MKDIR);
	int dirfd;
	char *path = change_path(&dirfd);
	const char *p = path_ptr(path);
	unsigned mode = random_mode();

	fz_rec_path(r, 0, path);
	if (at || dirfd != AT_FDCWD) {
		r->call = FZ_F_MKDIRAT;
		r->a[0] = dirfd, r->a[1] = (long)p, r->a[2] = mode;
		fz_rec_end(r, syscall(SYS_mkdirat, dirfd, p, mode));
	} else {
		r->a[0] = (long)p, r->a[1] = mode;
		fz_rec_end(r, syscall(SYS_mkdir, p, mode));
	}
}

static void op_unlink(void)
{
	unsigned how = fz_below(3);
	struct fz_rec *r = fz_rec_begin(how == 0 ? FZ_F_RMDIR : how == 1 ? FZ_F_UNLINK : FZ_F_UNLINKAT);
	int dirfd;
	char *path = change_path(&dirfd);
	const char *p = path_ptr(path);

	fz_rec_path(r, 0, path);
	if (how == 2 || dirfd != AT_FDCWD) {
		long flags = fz_one_in(8) ? (long)fz_value() : fz_below(2) ? AT_REMOVEDIR : 0;
		if (flags & ~AT_REMOVEDIR)
			flags &= ~0xffl;	/* never AT_FDCWD-like bits that we do not know */
		r->call = FZ_F_UNLINKAT;
		r->a[0] = dirfd, r->a[1] = (long)p, r->a[2] = flags;
		fz_rec_end(r, syscall(SYS_unlinkat, dirfd, p, flags));
	} else {
		r->a[0] = (long)p;
		fz_rec_end(r, syscall(how == 0 ? SYS_rmdir : SYS_unlink, p));
	}
}

/* A second path for rename and link: the tree, or a device, which lives on another file
 * system (EXDEV) and so is never replaced. */
static char *other_path(int *dirfd)
{
	if (fz_one_in(10)) {
		*dirfd = AT_FDCWD;
		return strcpy(buf_next(), FZ_PICK(devices));
	}
	return change_path(dirfd);
}

static void op_rename(void)
{
	unsigned how = fz_below(4);
	struct fz_rec *r = fz_rec_begin(how == 0 ? FZ_F_RENAME : how == 1 ? FZ_F_RENAMEAT :
					FZ_F_RENAMEAT2);
	int odir, ndir;
	/* at most one device: two of them are the same file system, and a rename between
	 * them would change /dev */
	bool dev_first = fz_one_in(2);
	char *old = dev_first ? other_path(&odir) : change_path(&odir);
	char *new = !strncmp(old, "/dev/", 5) ? change_path(&ndir) : other_path(&ndir);
	const char *po = path_ptr(old), *pn = path_ptr(new);
	unsigned flags = fz_one_in(8) ? (unsigned)fz_value() :
			 FZ_PICK(((const unsigned[]){ 0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE,
						      RENAME_WHITEOUT, RENAME_NOREPLACE | RENAME_EXCHANGE,
						      RENAME_NOREPLACE | RENAME_WHITEOUT }));

	fz_rec_path(r, 0, old);
	fz_rec_path(r, 1, new);
	if (how == 0 && (odir != AT_FDCWD || ndir != AT_FDCWD))
		how = 1, r->call = FZ_F_RENAMEAT;
	r->a[0] = odir, r->a[1] = (long)po, r->a[2] = ndir, r->a[3] = (long)pn, r->a[4] = flags;
	if (how == 0)
		fz_rec_end(r, syscall(SYS_rename, po, pn));
	else if (how == 1)
		fz_rec_end(r, syscall(SYS_renameat, odir, po, ndir, pn));
	else
		fz_rec_end(r, syscall(SYS_renameat2, odir, po, ndir, pn, flags));
}

static void op_link(void)
{
	bool at = fz_below(2);
	struct fz_rec *r = fz_rec_begin(at ? FZ_F_LINKAT : FZ_F_LINK);
	int odir, ndir;
	char *old = other_path(&odir), *new = change_path(&ndir);
	const char *po = path_ptr(old), *pn = path_ptr(new);
	long flags = fz_one_in(8) ? (long)fz_value() & 0xffff :
		     FZ_PICK(((const long[]){ 0, AT_SYMLINK_FOLLOW, AT_EMPTY_PATH }));

	if (at && (flags & AT_EMPTY_PATH) && fz_one_in(2)) {
		/* a descriptor's own node (an O_TMPFILE's too) */
		odir = pick_file_fd();
		if (odir >= 0 && odir < FZ_FDS && fz_fds[odir].in_tree)
			po = old = strcpy(buf_next(), "");
		else
			odir = AT_FDCWD;
	}
	fz_rec_path(r, 0, old);
	fz_rec_path(r, 1, new);
	if (!at && (odir != AT_FDCWD || ndir != AT_FDCWD))
		at = true, r->call = FZ_F_LINKAT;
	r->a[0] = odir, r->a[1] = (long)po, r->a[2] = ndir, r->a[3] = (long)pn, r->a[4] = flags;
	if (at)
		fz_rec_end(r, syscall(SYS_linkat, odir, po, ndir, pn, flags));
	else
		fz_rec_end(r, syscall(SYS_link, po, pn));
}

static void op_symlink(void)
{
	bool at = fz_below(2);
	struct fz_rec *r = fz_rec_begin(at ? FZ_F_SYMLINKAT : FZ_F_SYMLINK);
	int dirfd;
	char *target = link_target(), *path = change_path(&dirfd);
	const char *pt = path_ptr(target), *pp = path_ptr(path);

	fz_rec_path(r, 0, target);
	fz_rec_path(r, 1, path);
	if (!at && dirfd != AT_FDCWD)
		at = true, r->call = FZ_F_SYMLINKAT;
	r->a[0] = (long)pt, r->a[1] = dirfd, r->a[2] = (long)pp;
	if (at)
		fz_rec_end(r, syscall(SYS_symlinkat, pt, dirfd, pp));
	else
		fz_rec_end(r, syscall(SYS_symlink, pt, pp));
}

static void op_readlink(void)
{
	bool at = fz_below(2);
	struct fz_rec *r = fz_rec_begin(at ? FZ_F_READLINKAT : FZ_F_READLINK);
	int dirfd;
	char *path = look_path(&dirfd);
	long size = fz_one_in(6) ? (long)fz_value() : fz_one_in(2) ? (long)fz_below(8) : 4096;
	void *out = fz_out_ptr(size > 0 && size < 8 * (long)FZ_PAGE ? size : 64);

	if (at && fz_one_in(4))
		path = strcpy(buf_next(), ""), dirfd = pick_file_fd();
	const char *p = path_ptr(path);
	fz_rec_path(r, 0, path);
	if (!at && dirfd != AT_FDCWD)
		at = true, r->call = FZ_F_READLINKAT;
	r->a[0] = dirfd, r->a[1] = (long)p, r->a[2] = (long)out, r->a[3] = size;
	if (at)
		fz_rec_end(r, syscall(SYS_readlinkat, dirfd, p, out, size));
	else
		fz_rec_end(r, syscall(SYS_readlink, p, out, size));
}

static void op_access(void)
{
	bool at = fz_below(2);
	struct fz_rec *r = fz_rec_begin(at ? FZ_F_FACCESSAT2 : FZ_F_ACCESS);
	int dirfd;
	char *path = look_path(&dirfd);
	const char *p = path_ptr(path);
	long mode = fz_one_in(8) ? (long)fz_value() : (long)fz_below(8);
	long flags = fz_one_in(8) ? (long)fz_value() & 0xffff :
		     FZ_PICK(((const long[]){ 0, AT_EACCESS, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH }));

	fz_rec_path(r, 0, path);
	if (!at && dirfd != AT_FDCWD)
		at = true, r->call = FZ_F_FACCESSAT2;
	r->a[0] = dirfd, r->a[1] = (long)p, r->a[2] = mode, r->a[3] = flags;
	if (at)
		fz_rec_end(r, syscall(SYS_faccessat2, dirfd, p, mode, flags));
	else
		fz_rec_end(r, syscall(SYS_access, p, mode));
}

/* ---- the working directory, the umask ---- */

static void op_cwd(void)
{
	unsigned how = fz_below(4);

	if (how == 0) {
		struct fz_rec *r = fz_rec_begin(FZ_F_CHDIR);
		int dirfd;
		/* mostly the tree, now and then elsewhere (then back to the tree soon) */
		char *path = !cwd_in_tree && fz_below(4) ? strcpy(buf_next(), TREE) :
			     fz_one_in(2) ? change_path(&dirfd) : look_path(&dirfd);
		const char *p = path_ptr(path);
		fz_rec_path(r, 0, path);
		r->a[0] = (long)p;
		if (fz_rec_end(r, syscall(SYS_chdir, p)) == 0)
			cwd_changed();
	} else if (how == 1) {
		struct fz_rec *r = fz_rec_begin(FZ_F_FCHDIR);
		int fd = pick_typed_fd(DT_DIR);
		r->a[0] = fd;
		if (fz_rec_end(r, syscall(SYS_fchdir, fd)) == 0)
			cwd_changed();
	} else if (how == 2) {
		struct fz_rec *r = fz_rec_begin(FZ_F_GETCWD);
		size_t size = fz_one_in(3) ? fz_below(12) : fz_one_in(8) ? fz_value() : 4096;
		void *out = fz_out_ptr(size < 8 * FZ_PAGE ? size : 64);
		r->a[0] = (long)out, r->a[1] = size;
		fz_rec_end(r, syscall(SYS_getcwd, out, size));
	} else {
		struct fz_rec *r = fz_rec_begin(FZ_F_UMASK);
		long mask = fz_one_in(4) ? (long)fz_value() : (long)fz_below(0100);
		r->a[0] = mask;
		fz_rec_end(r, syscall(SYS_umask, mask));
	}
}

/* ---- truncate, fsync, chmod, chown, utimensat ---- */

static long trunc_len(void)
{
	switch (fz_below(10)) {
	case 0: return -1 - (long)fz_below(4);
	case 1: return (long)(fz_value() >> 1);			/* up to 2^63 - 1: no memory */
	case 2: return 0x7fffffffffffffffl - (long)fz_below(2);
	case 3: return 0;
	default: return fz_below(FILE_SPAN);
	}
}

static void op_truncate(void)
{
	unsigned how = fz_below(3);

	if (how == 0) {
		struct fz_rec *r = fz_rec_begin(FZ_F_TRUNCATE);
		int dirfd;
		char *path = fz_one_in(8) ? strcpy(buf_next(), FZ_PICK(devices)) : change_path(&dirfd);
		if (path[0] != '/' && !cwd_in_tree)
			path = strcpy(buf_next(), TREE "/b");	/* truncate has no dirfd */
		const char *p = path_ptr(path);
		long len = trunc_len();
		fz_rec_path(r, 0, path);
		r->a[0] = (long)p, r->a[1] = len;
		fz_rec_end(r, syscall(SYS_truncate, p, len));
	} else if (how == 1) {
		struct fz_rec *r = fz_rec_begin(FZ_F_FTRUNCATE);
		int fd = pick_typed_fd(DT_REG);
		long len = trunc_len();
		r->a[0] = fd, r->a[1] = len;
		fz_rec_end(r, syscall(SYS_ftruncate, fd, len));
	} else {
		struct fz_rec *r = fz_rec_begin(FZ_F_FSYNC);
		int fd = pick_file_fd();
		bool data = fz_below(2);
		r->a[0] = fd, r->a[1] = data;
		fz_rec_end(r, syscall(data ? SYS_fdatasync : SYS_fsync, fd));
	}
}

static void op_attr(void)
{
	unsigned how = fz_below(5);
	int dirfd, fd = pick_file_fd();
	char *path = change_path(&dirfd);
	const char *p = path_ptr(path);
	struct fz_rec *r;

	if (path[0] != '/' && dirfd != AT_FDCWD && how != 3 && how != 4)
		how = 3;		/* chmod and chown: AT_FDCWD only */
	switch (how) {
	case 0: {
		unsigned mode = random_mode();
		r = fz_rec_begin(FZ_F_CHMOD);
		fz_rec_path(r, 0, path);
		r->a[0] = (long)p, r->a[1] = mode;
		fz_rec_end(r, syscall(SYS_chmod, p, mode));
		break;
	}
	case 1: {
		unsigned mode = random_mode();
		r = fz_rec_begin(FZ_F_FCHMOD);
		r->a[0] = fd, r->a[1] = mode;
		fz_rec_end(r, syscall(SYS_fchmod, fd, mode));
		break;
	}
	case 2: {
		long uid = fz_one_in(2) ? -1 : (long)fz_below(3), gid = fz_one_in(2) ? -1 : (long)fz_below(3);
		r = fz_rec_begin(FZ_F_CHOWN);
		fz_rec_path(r, 0, path);
		r->a[0] = (long)p, r->a[1] = uid, r->a[2] = gid;
		fz_rec_end(r, syscall(SYS_chown, p, uid, gid));
		break;
	}
	case 3: {
		long uid = fz_one_in(2) ? -1 : (long)fz_value(), gid = fz_below(3);
		long flags = fz_one_in(8) ? (long)fz_value() & 0xffff :
			     FZ_PICK(((const long[]){ 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH }));
		if ((flags & AT_EMPTY_PATH) && fz_one_in(2))
			p = path = strcpy(buf_next(), ""), dirfd = fd;
		r = fz_rec_begin(FZ_F_FCHOWNAT);
		fz_rec_path(r, 0, path);
		r->a[0] = dirfd, r->a[1] = (long)p, r->a[2] = uid, r->a[3] = gid, r->a[4] = flags;
		fz_rec_end(r, syscall(SYS_fchownat, dirfd, p, uid, gid, flags));
		break;
	}
	default: {
		struct timespec *ts = (struct timespec *)((char *)fz_scratch() + 2048);
		for (int i = 0; i < 2; i++) {
			ts[i].tv_sec = fz_one_in(4) ? (long)fz_value() : 1700000000 + (long)fz_below(1000);
			ts[i].tv_nsec = FZ_PICK(((const long[]){ 0, 999999999, 1000000000, -1,
							        UTIME_NOW, UTIME_OMIT, 12345 }));
		}
		void *pts = fz_one_in(4) ? NULL : fz_in_ptr(ts, 2 * sizeof(*ts));
		long flags = FZ_PICK(((const long[]){ 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, 0x8000 }));
		if (fz_one_in(4))
			p = NULL, path = strcpy(buf_next(), "(futimens)"), dirfd = fd;
		r = fz_rec_begin(FZ_F_UTIMENSAT);
		fz_rec_path(r, 0, path);
		r->a[0] = dirfd, r->a[1] = (long)p, r->a[2] = (long)pts, r->a[3] = flags;
		fz_rec_end(r, syscall(SYS_utimensat, dirfd, p, pts, flags));
		break;
	}
	}
}

/* ---- fcntl, FIONREAD ---- */

static void op_fcntl(void)
{
	int fd = pick_file_fd();

	if (fz_one_in(3)) {
		struct fz_rec *r = fz_rec_begin(FZ_F_FIONREAD);
		void *out = fz_out_ptr(4);
		r->a[0] = fd, r->a[1] = FIONREAD, r->a[2] = (long)out;
		fz_rec_end(r, syscall(SYS_ioctl, fd, FIONREAD, out));
		return;
	}
	struct fz_rec *r = fz_rec_begin(FZ_F_FCNTL);
	int cmd = FZ_PICK(((const int[]){ F_DUPFD, F_DUPFD_CLOEXEC, F_GETFL, F_GETFL, F_SETFL,
					  F_SETFL, F_GETFD, F_SETFD }));
	long arg = 0;
	if (cmd == F_SETFL)
		arg = fz_one_in(4) ? (long)fz_rand() : FZ_PICK(((const long[]){ O_APPEND, O_NONBLOCK,
			O_APPEND | O_NONBLOCK, 0, O_DIRECT, O_NOATIME, O_RDWR | O_APPEND }));
	else if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		arg = fz_one_in(8) ? (long)fz_value() : 3 + (long)fz_below(FZ_FDS - 3);
	else if (cmd == F_SETFD)
		arg = fz_below(2);
	r->a[0] = fd, r->a[1] = cmd, r->a[2] = arg;
	long ret = fz_rec_end(r, syscall(SYS_fcntl, fd, cmd, arg));
	if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && ret >= 0 && ret < FZ_FDS)
		fz_fd_copied(ret, fd);
}

/* ---- file mappings ---- */

static void op_mmap(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_F_MMAP);
	unsigned s = fz_below(MAP_SLOTS);
	int fd = pick_typed_fd(DT_REG);
	size_t pages = 1 + fz_below(SLOT_PAGES), len = pages * FZ_PAGE;
	int prot = FZ_PICK(((const int[]){ PROT_READ, PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE,
					   PROT_NONE, PROT_WRITE, PROT_READ | PROT_EXEC }));
	int flags = FZ_PICK(((const int[]){ MAP_SHARED, MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE,
					    MAP_SHARED | MAP_POPULATE, MAP_PRIVATE | MAP_POPULATE }));
	long off;

	switch (fz_below(8)) {
	case 0: off = (long)(fz_value() & ~(FZ_PAGE - 1)); break;	/* EINVAL, EOVERFLOW ... */
	case 1: off = (long)fz_below(FZ_PAGE); break;			/* unaligned */
	default: off = (long)(fz_below(FILE_SPAN / FZ_PAGE) & ~3ul) * FZ_PAGE; break;
	}
	if (fz_one_in(16))
		len -= fz_below(FZ_PAGE);
	uint8_t *addr = maps + s * SLOT_PAGES * FZ_PAGE;
	r->a[0] = (long)addr, r->a[1] = len, r->a[2] = prot, r->a[3] = flags | MAP_FIXED;
	r->a[4] = fd, r->a[5] = off;
	long p = fz_rec_end(r, syscall(SYS_mmap, addr, len, prot, flags | MAP_FIXED, fd, off));
	if (p == -1) {
		/* a refused MAP_FIXED may have unmapped the range first, as Linux may */
		munmap(addr, SLOT_PAGES * FZ_PAGE);
		slot[s].mapped = false;
		return;
	}
	if ((uint8_t *)p != addr)
		fz_fail("mmap MAP_FIXED at %p gave %#lx", (void *)addr, p);
	/* what was beyond the new mapping in the slot stays unknown: unmap it */
	if (pages < SLOT_PAGES)
		munmap(addr + pages * FZ_PAGE, (SLOT_PAGES - pages) * FZ_PAGE);
	slot[s] = (typeof(slot[s])){ .len = (len + FZ_PAGE - 1) & ~(FZ_PAGE - 1), .prot = prot,
				     .mapped = true };
}

/* Loads and stores in a mapping, past the file's end too: SIGBUS and SIGSEGV are caught. */
static void op_touch(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_F_TOUCH);
	unsigned s = fz_below(MAP_SLOTS);

	if (!slot[s].mapped) {
		fz_rec_end(r, -2);
		return;
	}
	volatile uint8_t *base = maps + s * SLOT_PAGES * FZ_PAGE;
	size_t at = fz_below(slot[s].len);
	bool write = fz_below(2);
	r->a[0] = (long)(base + at), r->a[1] = write, r->a[2] = slot[s].prot;
	fz_fault_sig = 0;
	if (sigsetjmp(fz_fault_env, 1) == 0) {
		fz_fault_armed = 1;
		if (write)
			base[at] = (uint8_t)fz_calls;
		else
			(void)base[at];
		fz_fault_armed = 0;
	}
	int sig = fz_fault_sig;
	fz_rec_end(r, sig);	/* 0, or the signal: SIGBUS past the end, SIGSEGV */
	if (!sig && (slot[s].prot == PROT_NONE || (write && !(slot[s].prot & PROT_WRITE))))
		fz_fail("a %s at %p in a mapping with prot %d did not fault",
			write ? "store" : "load", (void *)(base + at), slot[s].prot);
}

static void op_msync_munmap(void)
{
	unsigned s = fz_below(MAP_SLOTS);
	uint8_t *addr = maps + s * SLOT_PAGES * FZ_PAGE;
	size_t len = fz_one_in(4) ? (1 + fz_below(SLOT_PAGES)) * FZ_PAGE : slot[s].len;

	if (fz_below(3)) {
		struct fz_rec *r = fz_rec_begin(FZ_F_MSYNC);
		int flags = fz_one_in(8) ? (int)fz_value() :
			    FZ_PICK(((const int[]){ MS_SYNC, MS_ASYNC, MS_INVALIDATE, 0,
						    MS_SYNC | MS_ASYNC, MS_SYNC | MS_INVALIDATE }));
		void *p = fz_one_in(8) ? addr + 1 : addr;
		r->a[0] = (long)p, r->a[1] = len, r->a[2] = flags;
		fz_rec_end(r, syscall(SYS_msync, p, len, flags));
		return;
	}
	struct fz_rec *r = fz_rec_begin(FZ_F_MUNMAP);
	r->a[0] = (long)addr, r->a[1] = SLOT_PAGES * FZ_PAGE;
	if (fz_rec_end(r, syscall(SYS_munmap, addr, SLOT_PAGES * FZ_PAGE)) == 0)
		slot[s].mapped = false;
}

/* ---- one call ---- */

void fz_op_file(void)
{
	static bool made;
	unsigned w = fz_below(100);

	if (!made) {
		/* made after the baseline, removed before the final count */
		made = true;
		if (mkdir(TREE, 0777) && errno != EEXIST)
			fz_fail("mkdir " TREE ": errno %d", errno);
	}

	if (w < 14) op_open();
	else if (w < 22) op_close();
	else if (w < 34) op_rw();
	else if (w < 38) op_lseek();
	else if (w < 43) op_getdents();
	else if (w < 53) op_stat();
	else if (w < 58) op_mkdir();
	else if (w < 63) op_unlink();
	else if (w < 67) op_rename();
	else if (w < 70) op_link();
	else if (w < 74) op_symlink();
	else if (w < 77) op_readlink();
	else if (w < 80) op_access();
	else if (w < 84) op_cwd();
	else if (w < 87) op_truncate();
	else if (w < 90) op_attr();
	else if (w < 93) op_fcntl();
	else if (w < 95) op_mmap();
	else if (w < 98) op_touch();
	else op_msync_munmap();
}

/* ---- the end: remove the tree ---- */

static int left;

/* Remove everything in the directory dfd, depth first. */
static void empty_dir(int dfd, int depth)
{
	static char dents[2048];
	char name[256];

	for (int rounds = 0; rounds < 4096; rounds++) {
		/* the first entry but the dots; a fresh listing each time, as removal changes it */
		if (syscall(SYS_lseek, dfd, 0, SEEK_SET) != 0)
			break;
		long n = syscall(SYS_getdents64, dfd, dents, sizeof(dents));
		name[0] = '\0';
		for (long off = 0; off < n;) {
			struct dirent *d = (void *)(dents + off);
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
				snprintf(name, sizeof(name), "%s", d->d_name);
				break;
			}
			off += d->d_reclen;
		}
		if (!name[0])
			return;
		if (syscall(SYS_unlinkat, dfd, name, 0) == 0)
			continue;
		if (errno == EISDIR && depth < 64) {
			int sub = syscall(SYS_openat, dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					  O_CLOEXEC);
			if (sub >= 0) {
				empty_dir(sub, depth + 1);
				close(sub);
			}
			if (syscall(SYS_unlinkat, dfd, name, AT_REMOVEDIR) == 0)
				continue;
		}
		fz_printf("# files: cannot remove %s (depth %d): errno %d\n", name, depth, errno);
		left++;
		return;
	}
}

int fz_files_cleanup(void)
{
	munmap(maps, MAP_SLOTS * SLOT_PAGES * FZ_PAGE);
	memset(slot, 0, sizeof(slot));
	chdir("/");
	cwd_in_tree = false;
	umask(022);
	int dfd = open(TREE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd >= 0) {
		empty_dir(dfd, 0);
		close(dfd);
		if (rmdir(TREE) != 0) {
			fz_printf("# files: cannot remove " TREE ": errno %d\n", errno);
			left++;
		}
	} else if (errno != ENOENT) {
		fz_printf("# files: cannot open " TREE ": errno %d\n", errno);
		left++;
	}
	return left;
}
