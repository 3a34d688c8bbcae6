/* user/fuzz/ops.c: the fuzzer's syscalls on perf descriptors: perf_event_open (fresh and
 * persistent reopens), close, dup, ioctl (every command, pmuos's too), read, poll, fcntl for
 * SIGIO, prctl. Each makes one trace record. */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>
#include <pmuos/perf_ext.h>

struct fz_fd fz_fds[FZ_FDS];
int fz_open_count;
int fz_persistent_type = -1;
int fz_itrace_type = -1;
uint32_t fz_pmu_types[16];
int fz_nr_pmu_types;

/* ---- descriptors ---- */

void fz_fd_opened(int fd, bool backward)
{
	if (fd < 3 || fd >= FZ_FDS)
		fz_fail("a new descriptor %d outside 3..%d", fd, FZ_FDS - 1);
	if (!fz_fds[fd].open)
		fz_open_count++;
	fz_fds[fd] = (struct fz_fd){ .open = true, .backward = backward };
}

void fz_fd_copied(int to, int from)
{
	fz_fd_opened(to, false);
	if (from >= 0 && from < FZ_FDS && fz_fds[from].open) {
		fz_fds[to] = fz_fds[from];
		fz_fds[to].open = true;
	}
}

void fz_fd_closed(int fd)
{
	if (fd >= 3 && fd < FZ_FDS && fz_fds[fd].open) {
		fz_fds[fd].open = false;
		fz_open_count--;
	}
}

int fz_pick_open_fd(void)
{
	if (!fz_open_count)
		return -1;
	for (int i = 0, start = fz_below(FZ_FDS); i < FZ_FDS; i++) {
		int fd = (start + i) % FZ_FDS;
		if (fz_fds[fd].open)
			return fd;
	}
	return -1;
}

int fz_pick_fd(void)
{
	if (!fz_one_in(12))
		return fz_pick_open_fd();
	/* never 0..2: a read of the console would wait for input */
	switch (fz_below(4)) {
	case 0: return -1;
	case 1: return 3 + fz_below(FZ_FDS);
	case 2: return fz_one_in(2) ? 0x7fffffff : (int)0x80000000;
	default: return 3 + fz_below(16);
	}
}

/* ---- persistent events the fuzzer made ---- */

static uint64_t persistent_ids[64];
static int nr_persistent;

void fz_persistent_note(uint64_t id)
{
	for (int i = 0; i < nr_persistent; i++)
		if (persistent_ids[i] == id)
			return;
	if (nr_persistent < (int)(sizeof(persistent_ids) / sizeof(persistent_ids[0])))
		persistent_ids[nr_persistent++] = id;
}

uint64_t fz_persistent_pick(void)
{
	return nr_persistent ? persistent_ids[fz_below(nr_persistent)] : fz_below(4096);
}

int fz_persistent_count(void)
{
	return nr_persistent;
}

void fz_persistent_reset(void)
{
	nr_persistent = 0;
}

/* ---- perf_event_open ---- */

static union {
	struct perf_event_attr attr;
	uint8_t bytes[2 * FZ_PAGE];
} abuf;

/* This task on any CPU, or CPU 0 for every task, mostly. */
static void random_target(int *pid, int *cpu)
{
	switch (fz_below(12)) {
	case 0: case 1: *pid = -1, *cpu = 0; break;
	case 2: *pid = 0, *cpu = 0; break;
	case 3: *pid = getpid(), *cpu = -1; break;
	case 4: *pid = FZ_PICK(((const int[]){ -1, 0, 1, -2 })), *cpu = FZ_PICK(((const int[]){ -1, 0, 1, 4096 })); break;
	case 5: *pid = fz_value(), *cpu = fz_value(); break;
	default: *pid = 0, *cpu = -1; break;
	}
}

static unsigned long random_open_flags(int group)
{
	if (fz_one_in(16))
		return fz_one_in(2) ? fz_value() : fz_below(16);
	unsigned long flags = fz_below(2) ? PERF_FLAG_FD_CLOEXEC : 0;
	if (group >= 0 && fz_one_in(4))
		flags |= fz_one_in(2) ? PERF_FLAG_FD_OUTPUT : PERF_FLAG_FD_NO_GROUP;
	return flags;
}

static void opened(struct fz_rec *r, long fd, bool backward)
{
	if (fz_rec_end(r, fd) >= 0)
		fz_fd_opened(fd, backward);
}

void fz_op_open(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_OPEN);
	size_t size;

	fz_random_attr(&abuf.attr, &size);
	memset(abuf.bytes + sizeof(abuf.attr), 0, sizeof(abuf) - sizeof(abuf.attr));
	if (size > sizeof(abuf.attr) && fz_one_in(4))
		abuf.bytes[sizeof(abuf.attr) + fz_below(size - sizeof(abuf.attr))] = 1 + fz_below(255);
	void *p = fz_in_ptr(&abuf, size ? size : PERF_ATTR_SIZE_VER0);
	int pid, cpu;
	random_target(&pid, &cpu);
	int group = fz_one_in(3) ? fz_pick_fd() : -1;
	unsigned long flags = random_open_flags(group);

	fz_rec_attr(r, &abuf.attr, size);
	r->a[0] = (long)p, r->a[1] = pid, r->a[2] = cpu, r->a[3] = group, r->a[4] = flags;
	long fd = syscall(SYS_perf_event_open, p, pid, cpu, group, flags);
	opened(r, fd, abuf.attr.write_backward);
	uint64_t word, id;
	memcpy(&word, abuf.bytes + PMUOS_ATTR_FLAGS_OFFSET, sizeof(word));
	if (fd >= 0 && (word >> PMUOS_ATTR_FLAG_PERSISTENT_BIT & 1) &&
	    syscall(SYS_ioctl, fd, PERF_EVENT_IOC_ID, &id) == 0)
		fz_persistent_note(id);	/* attr.persistent: for reopens */
}

/* Open a persistent event again by its id: pid -1, the event's cpu, no group. */
void fz_op_reopen(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_OPEN);

	memset(&abuf, 0, sizeof(abuf));
	if (fz_one_in(4)) {
		size_t size;
		fz_random_attr(&abuf.attr, &size);
	}
	abuf.attr.size = sizeof(abuf.attr);
	abuf.attr.type = fz_persistent_type;
	abuf.attr.config = fz_persistent_pick();
	int cpu = fz_below(2) ? -1 : 0, pid = fz_one_in(8) ? 0 : -1;
	int group = fz_one_in(8) ? fz_pick_fd() : -1;
	unsigned long flags = fz_one_in(2) ? PERF_FLAG_FD_CLOEXEC : fz_one_in(4) ? fz_value() : 0;

	fz_rec_attr(r, &abuf.attr, sizeof(abuf.attr));
	r->a[0] = (long)&abuf, r->a[1] = pid, r->a[2] = cpu, r->a[3] = group, r->a[4] = flags;
	opened(r, syscall(SYS_perf_event_open, &abuf, pid, cpu, group, flags), false);
}

/* ---- close, dup ---- */

void fz_op_close(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_CLOSE);
	int fd = fz_pick_fd();

	r->a[0] = fd;
	if (fd >= 0 && fd < 3)
		fd = -1;
	if (fz_rec_end(r, syscall(SYS_close, fd)) == 0)
		fz_fd_closed(fd);
}

void fz_op_dup(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_DUP);
	int fd = fz_pick_fd(), to = 3 + fz_below(FZ_FDS - 3), how = fz_below(4);
	long ret;

	r->a[0] = fd, r->a[1] = how, r->a[2] = to;
	switch (how) {
	case 0: ret = syscall(SYS_dup, fd); break;
	case 1: ret = syscall(SYS_dup2, fd, to); break;
	case 2: ret = syscall(SYS_dup3, fd, to, fz_one_in(2) ? O_CLOEXEC : (int)fz_value()); break;
	default: ret = syscall(SYS_fcntl, fd, fz_one_in(2) ? F_DUPFD : F_DUPFD_CLOEXEC,
			       fz_one_in(8) ? (int)fz_value() : to); break;
	}
	if (fz_rec_end(r, ret) >= 0 && ret < FZ_FDS && ret != fd)
		fz_fd_copied(ret, fd);
}

/* ---- ioctl ---- */

static unsigned long random_cmd(void)
{
	static const unsigned long cmds[] = {
		PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE, PERF_EVENT_IOC_REFRESH,
		PERF_EVENT_IOC_RESET, PERF_EVENT_IOC_PERIOD, PERF_EVENT_IOC_SET_OUTPUT,
		PERF_EVENT_IOC_SET_FILTER, PERF_EVENT_IOC_ID, PERF_EVENT_IOC_SET_BPF,
		PERF_EVENT_IOC_PAUSE_OUTPUT, PERF_EVENT_IOC_QUERY_BPF,
		PERF_EVENT_IOC_MODIFY_ATTRIBUTES, PERF_EVENT_IOC_FLUSH, PERF_EVENT_IOC_DETACH,
		PERF_EVENT_IOC_ATTACH, FIONBIO, FIOASYNC, FIOCLEX, FIONCLEX, TCGETS,
	};

	switch (fz_below(16)) {
	case 0: return _IOC(fz_below(4), '$', fz_below(0x90), fz_below(64));
	case 1: return fz_one_in(2) ? fz_value() : fz_rand();
	case 2: return FZ_PICK(cmds) | (fz_one_in(2) ? 0x100000000ul : 0);
	default: return FZ_PICK(cmds);
	}
}

static unsigned long random_arg(unsigned long cmd)
{
	static uint64_t value;

	switch ((unsigned)cmd) {
	case PERF_EVENT_IOC_ENABLE:
	case PERF_EVENT_IOC_DISABLE:
	case PERF_EVENT_IOC_RESET:
		return fz_one_in(3) ? PERF_IOC_FLAG_GROUP : fz_one_in(4) ? fz_value() : 0;
	case PERF_EVENT_IOC_REFRESH:
		return fz_one_in(2) ? fz_below(4) : fz_value();
	case PERF_EVENT_IOC_PERIOD:
		value = fz_one_in(2) ? 1 + fz_below(100000) : fz_value();
		return (unsigned long)fz_in_ptr(&value, sizeof(value));
	case PERF_EVENT_IOC_SET_OUTPUT:
	case PERF_EVENT_IOC_SET_BPF:
		return fz_one_in(4) ? -1ul : (unsigned long)(long)fz_pick_fd();
	case PERF_EVENT_IOC_SET_FILTER:
		return (unsigned long)fz_in_ptr("filter", 7);
	case PERF_EVENT_IOC_ID:
	case PERF_EVENT_IOC_QUERY_BPF:
	case TCGETS:
		return (unsigned long)fz_out_ptr(64);
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES: {
		size_t size;
		fz_random_attr(&abuf.attr, &size);
		memset(abuf.bytes + sizeof(abuf.attr), 0, sizeof(abuf) - sizeof(abuf.attr));
		return (unsigned long)fz_in_ptr(&abuf, size ? size : PERF_ATTR_SIZE_VER0);
	}
	case FIONBIO:
	case FIOASYNC:
		value = fz_below(2);
		return (unsigned long)fz_in_ptr(&value, 4);
	case PERF_EVENT_IOC_PAUSE_OUTPUT:
		return fz_one_in(4) ? fz_value() : fz_below(2);
	default:
		return fz_one_in(2) ? (unsigned long)fz_out_ptr(64) : fz_value();
	}
}

void fz_op_ioctl(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_IOCTL);
	int fd = fz_pick_fd();
	unsigned long cmd = random_cmd(), arg = random_arg(cmd);

	r->a[0] = fd, r->a[1] = cmd, r->a[2] = arg;
	long ret = fz_rec_end(r, syscall(SYS_ioctl, fd, cmd, arg));
	if (ret > 0 && (unsigned)cmd == PERF_EVENT_IOC_DETACH)
		fz_persistent_note(ret);
}

/* ---- read, poll ---- */

void fz_op_read(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_READ);
	int fd = fz_pick_fd();
	size_t len;

	switch (fz_below(6)) {
	case 0: len = fz_value(); break;
	case 1: len = fz_below(64); break;
	default: len = 8 * fz_below(48); break;
	}
	if (fz_one_in(8)) {
		struct iovec *iov = fz_scratch();
		int n = 1 + fz_below(4);
		for (int i = 0; i < n; i++) {
			iov[i].iov_base = fz_out_ptr(len);
			iov[i].iov_len = fz_one_in(4) ? fz_value() : len;
		}
		r->a[0] = fd, r->a[1] = (long)iov, r->a[2] = n, r->a[3] = 1;
		fz_rec_end(r, syscall(SYS_readv, fd, iov, n));
		return;
	}
	void *p = fz_out_ptr(len);
	r->a[0] = fd, r->a[1] = (long)p, r->a[2] = len;
	fz_rec_end(r, syscall(SYS_read, fd, p, len));
}

void fz_op_poll(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_POLL);
	struct pollfd *fds = fz_scratch();
	unsigned n = fz_below(9), nfds = fz_one_in(16) ? (unsigned)fz_value() : n;
	int timeout = fz_one_in(16) ? 1 : 0;

	for (unsigned i = 0; i < n; i++) {
		fds[i].fd = fz_pick_fd();
		fds[i].events = fz_one_in(4) ? (short)fz_rand() : POLLIN;
		fds[i].revents = (short)fz_rand();
	}
	void *p = fz_one_in(8) ? fz_in_ptr(fds, n * sizeof(*fds)) : fds;
	r->a[0] = (long)p, r->a[1] = nfds, r->a[2] = timeout;
	if (fz_one_in(4)) {
		struct timespec ts = { 0, timeout * 1000000 };
		static sigset_t mask;	/* block nothing */
		r->a[3] = 1;
		/* never without a timeout: that could wait for ever, rightly */
		fz_rec_end(r, syscall(SYS_ppoll, p, nfds, &ts, fz_one_in(2) ? &mask : NULL, 8));
		return;
	}
	fz_rec_end(r, syscall(SYS_poll, p, nfds, timeout));
}

/* ---- fcntl (SIGIO), prctl ---- */

void fz_op_fcntl(void)
{
	/* Signals the fuzzer catches; 32..34 are musl's own. */
	static const int sigs[] = { 0, SIGIO, SIGUSR1, SIGUSR2, SIGTRAP, SIGALRM, 35, 40, 64,
				    65, -1, 1000 };
	struct fz_rec *r = fz_rec_begin(FZ_FCNTL);
	int fd = fz_pick_fd(), cmd;
	long arg = 0;

	switch (fz_below(10)) {
	case 0: case 1: cmd = F_SETOWN; arg = fz_one_in(4) ? (long)fz_value() : getpid(); break;
	case 2: case 3: cmd = F_SETSIG; arg = FZ_PICK(sigs); break;
	case 4: case 5:
		cmd = F_SETFL;
		arg = (fz_one_in(2) ? O_ASYNC : 0) | (fz_one_in(4) ? O_NONBLOCK : 0) |
		      (fz_one_in(8) ? (long)fz_value() : 0);
		break;
	case 6: cmd = FZ_PICK(((const int[]){ F_GETFL, F_GETOWN, F_GETSIG, F_GETFD })); break;
	case 7: cmd = F_SETFD; arg = fz_below(2); break;
	default: cmd = fz_one_in(2) ? (int)fz_below(64) : (int)fz_value(); arg = fz_value(); break;
	}
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		cmd = F_GETFL;		/* fz_op_dup's business, which tracks the new fd */
	r->a[0] = fd, r->a[1] = cmd, r->a[2] = arg;
	fz_rec_end(r, syscall(SYS_fcntl, fd, cmd, arg));
}

void fz_op_prctl(void)
{
	struct fz_rec *r = fz_rec_begin(FZ_PRCTL);
	int option = fz_one_in(2) ? PR_TASK_PERF_EVENTS_DISABLE : PR_TASK_PERF_EVENTS_ENABLE;

	if (fz_one_in(16))
		option = 100 + fz_below(1000);	/* none of Linux's */
	r->a[0] = option;
	fz_rec_end(r, syscall(SYS_prctl, option, fz_value(), 0, 0, 0));
}
