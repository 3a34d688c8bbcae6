/* user/fuzz/ipc.c: pipes, eventfds, epoll, select, timerfds and POSIX timers, made, used
 * with random arguments (perf fds among the targets) and closed again within one call of
 * the fuzzer, so nothing of theirs can block a later call or outlive the run: the accounting
 * check at the end sees any object the kernel failed to free. Every descriptor made here is
 * non-blocking and every wait (futex and clock_nanosleep too, and restart_syscall's) has a
 * zero timeout. */
#include "fuzz.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define IPC_FDS 8

static int fds[IPC_FDS], nfds;
static int timer_ids[2], ntimers;

/* One recorded syscall: a[0] is its number. */
static long call(long nr, long a1, long a2, long a3, long a4, long a5)
{
	struct fz_rec *r = fz_rec_begin(FZ_IPC);

	r->a[0] = nr, r->a[1] = a1, r->a[2] = a2, r->a[3] = a3, r->a[4] = a4, r->a[5] = a5;
	return fz_rec_end(r, syscall(nr, a1, a2, a3, a4, a5));
}

static void keep(long fd)
{
	if (fd >= 0 && nfds < IPC_FDS)
		fds[nfds++] = fd;
	else if (fd >= 0)
		close(fd);
}

static void make(void)
{
	int p[2];

	switch (fz_below(5)) {
	case 0:
		if (call(SYS_pipe2, (long)p, O_NONBLOCK | (fz_one_in(2) ? O_DIRECT : 0) |
			 (fz_one_in(2) ? O_CLOEXEC : 0), 0, 0, 0) == 0) {
			keep(p[0]);
			keep(p[1]);
		}
		break;
	case 1:
		keep(call(SYS_eventfd2, fz_value(), EFD_NONBLOCK | (fz_one_in(2) ? EFD_SEMAPHORE : 0), 0, 0, 0));
		break;
	case 2:
		keep(call(SYS_epoll_create1, fz_one_in(8) ? (long)fz_value() : 0, 0, 0, 0, 0));
		break;
	case 3:
		keep(call(SYS_timerfd_create, fz_one_in(8) ? (long)fz_below(16) : CLOCK_MONOTONIC,
			  O_NONBLOCK, 0, 0, 0));
		break;
	default: {
		struct sigevent ev = { .sigev_notify = SIGEV_NONE };
		int id;
		static const long clocks[] = { CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
					       CLOCK_THREAD_CPUTIME_ID };
		if (ntimers < 2 && call(SYS_timer_create, clocks[fz_below(3)], (long)&ev,
					(long)&id, 0, 0) == 0)
			timer_ids[ntimers++] = id;
	}
	}
}

/* One of ours, now and then a perf fd or any number. */
static int target(void)
{
	if (nfds && !fz_one_in(4))
		return fds[fz_below(nfds)];
	return fz_pick_fd();
}

static void use(void)
{
	char *buf = fz_scratch();
	size_t len = fz_one_in(4) ? (size_t)fz_value() % (2 * FZ_PAGE) : fz_below(16);
	struct timespec zero = { 0, 0 };
	/* a timer's value: never long enough to matter after the call */
	struct timespec its[2] = { { 0, fz_below(2) * (long)fz_below(1000000) },
				   { 0, (long)fz_below(1000000) } };

	switch (fz_below(11)) {
	case 0:
		call(SYS_write, target(), (long)fz_in_ptr(buf, len), len, 0, 0);
		break;
	case 1:
		call(SYS_read, target(), (long)fz_out_ptr(len), len, 0, 0);
		break;
	case 2: {
		struct epoll_event ev = { .events = (uint32_t)fz_rand(), .data.u64 = fz_rand() };
		if (fz_one_in(2))
			ev.events &= EPOLLIN | EPOLLOUT | EPOLLET | EPOLLONESHOT;
		call(SYS_epoll_ctl, target(), 1 + fz_below(fz_one_in(8) ? 8 : 3), target(),
		     (long)fz_in_ptr(&ev, sizeof(ev)), 0);
		break;
	}
	case 3:
		call(SYS_epoll_pwait2, target(), (long)fz_out_ptr(4 * sizeof(struct epoll_event)),
		     fz_one_in(8) ? (long)fz_value() : 4, (long)&zero, 0);
		break;
	case 4: {
		uint64_t *set = (uint64_t *)buf;
		set[0] = fz_rand(), set[1] = fz_rand();
		call(SYS_pselect6, fz_one_in(8) ? (long)fz_value() : 128,
		     (long)fz_in_ptr(set, 16), fz_one_in(2) ? (long)set : 0, 0, (long)&zero);
		break;
	}
	case 5:
		call(SYS_fcntl, target(), fz_one_in(2) ? F_SETPIPE_SZ : F_GETPIPE_SZ,
		     (long)fz_value(), 0, 0);
		break;
	case 6:
		call(SYS_timerfd_settime, target(), fz_below(4), (long)fz_in_ptr(its, sizeof(its)),
		     fz_one_in(2) ? (long)fz_out_ptr(sizeof(its)) : 0, 0);
		break;
	case 7:
		call(SYS_ioctl, target(), FIONREAD, (long)fz_out_ptr(4), 0, 0);
		break;
	case 8:
		/* whatever the last interrupted sleep left to restart (its deadline
		 * long past), else EINTR */
		call(SYS_restart_syscall, 0, 0, 0, 0, 0);
		break;
	case 9: {
		/* sleeps that end at once: a futex word of any value, a zero
		 * (or bad) timeout, rem anywhere */
		uint32_t *w = (uint32_t *)buf;
		/* never a NULL timeout: that would be a wait for ever on a 0 */
		const void *timeout = fz_timeout_ptr(&zero, sizeof(zero));
		*w = (uint32_t)fz_rand() & 1;
		if (fz_one_in(2))
			call(SYS_futex, (long)w, fz_one_in(2) ? FUTEX_WAIT_PRIVATE : FUTEX_WAIT,
			     0, (long)(timeout ? timeout : &zero), 0);
		else
			call(SYS_clock_nanosleep, fz_below(8), fz_below(2) * TIMER_ABSTIME,
			     (long)fz_timeout_ptr(&zero, sizeof(zero)), (long)fz_out_ptr(16), 0);
		break;
	}
	default:
		if (ntimers)
			call(SYS_timer_settime, timer_ids[fz_below(ntimers)], fz_below(2),
			     (long)fz_in_ptr(its, sizeof(its)), 0, 0);
		break;
	}
}

void fz_op_ipc(void)
{
	nfds = ntimers = 0;
	for (unsigned k = 1 + fz_below(3); k--;)
		make();
	for (unsigned k = 2 + fz_below(8); k--;)
		use();
	while (nfds)
		call(SYS_close, fds[--nfds], 0, 0, 0, 0);
	while (ntimers)
		call(SYS_timer_delete, timer_ids[--ntimers], 0, 0, 0, 0);
}
