/* Waiting for descriptors: poll, ppoll, select and pselect6, over each
 * file's poll op (Linux's fs/select.c). There are no wait queues: a
 * sleeper's condition rescans its files whenever the scheduler looks. */
#include "clock.h"
#include "syscall.h"
#include "fd.h"
#include "poll.h"
#include "signal.h"
#include "task.h"
#include "tsc.h"
#include "x86.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <linux/poll.h>
#include <linux/time_types.h>

#define POLL_MAX_FDS	1024	/* RLIMIT_NOFILE */
/* select's sets, by Linux's masks (fs/select.c) */
#define POLLIN_SET	(POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR)
#define POLLOUT_SET	(POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR)
#define POLLEX_SET	POLLPRI
#define LONGS(n)	(((n) + 63) / 64)

unsigned file_poll(struct file *f)
{
	return f->ops->poll ? f->ops->poll(f) : POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
}

int poll_deadline(const struct __kernel_timespec *ts, uint64_t *deadline)
{
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= (long)NSEC_PER_SEC)
		return -EINVAL;
	*deadline = ts->tv_sec == 0 && ts->tv_nsec == 0 ? POLL_NO_WAIT :
		    rdtsc() + ns_to_tsc(ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec);
	return 0;
}

uint64_t poll_time_left(uint64_t deadline)
{
	uint64_t now = rdtsc();

	return deadline <= POLL_NO_WAIT || now >= deadline ? 0 : tsc_to_ns(deadline - now);
}

int poll_sigmask_set(long usigmask, long sigsetsize)
{
	uint64_t mask;

	if (!usigmask)
		return 0;
	if (sigsetsize != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, (void *)usigmask, sizeof(mask)))
		return -EFAULT;
	signal_mask_until_return(mask);
	return 0;
}

/* ---- poll, ppoll ---- */

struct poll_set {
	struct pollfd *fds;
	long n;
	long ready;
};

static bool poll_scan(void *arg)
{
	struct poll_set *ps = arg;

	ps->ready = 0;
	for (long i = 0; i < ps->n; i++) {
		struct pollfd *p = &ps->fds[i];
		struct file *f = p->fd < 0 ? NULL : fd_get(current->fds, p->fd);
		if (p->fd < 0)
			p->revents = 0;
		else if (!f)
			p->revents = POLLNVAL;
		else
			p->revents = file_poll(f) & (p->events | POLLERR | POLLHUP);
		ps->ready += p->revents != 0;
	}
	return ps->ready > 0;
}

static long do_poll(long ufds, long nfds, uint64_t deadline)
{
	struct poll_set ps = { .n = nfds };
	long ret;

	if (nfds < 0 || nfds > POLL_MAX_FDS)
		return -EINVAL;
	ps.fds = kmalloc(MAX(nfds, 1l) * sizeof(struct pollfd));
	if (!ps.fds)
		return -ENOMEM;
	if (copy_from_user(ps.fds, (void *)ufds, nfds * sizeof(struct pollfd))) {
		ret = -EFAULT;
		goto out;
	}
	if (poll_scan(&ps) || deadline == POLL_NO_WAIT)
		ret = ps.ready;
	else
		ret = task_wait(poll_scan, &ps, deadline) == -EINTR ? -EINTR : ps.ready;
	for (long i = 0; i < nfds && ret >= 0; i++)
		if (put_user(ps.fds[i].revents, &((struct pollfd *)ufds)[i].revents))
			ret = -EFAULT;
out:
	kfree(ps.fds);
	return ret;
}

long sys_poll(long ufds, long nfds, long timeout_ms)
{
	uint64_t deadline = timeout_ms < 0 ? 0 : timeout_ms == 0 ? POLL_NO_WAIT :
			    rdtsc() + ns_to_tsc(timeout_ms * 1000000ul);
	return do_poll(ufds, nfds, deadline);
}

long sys_ppoll(long ufds, long nfds, long uts, long usigmask, long sigsetsize)
{
	struct __kernel_timespec ts;
	uint64_t deadline = 0;
	int err;

	if (uts) {
		if (copy_from_user(&ts, (void *)uts, sizeof(ts)))
			return -EFAULT;
		if ((err = poll_deadline(&ts, &deadline)))
			return err;
	}
	if ((err = poll_sigmask_set(usigmask, sigsetsize)))
		return err;
	long r = do_poll(ufds, nfds, deadline);
	if (uts && deadline != POLL_NO_WAIT) {
		uint64_t left = poll_time_left(deadline);
		ts = (struct __kernel_timespec){ left / NSEC_PER_SEC, left % NSEC_PER_SEC };
		copy_to_user((void *)uts, &ts, sizeof(ts));	/* a fault is ignored */
	}
	return r;
}

/* ---- select, pselect6 ---- */

struct select_set {
	int n;
	unsigned long in[LONGS(NR_FDS)], out[LONGS(NR_FDS)], ex[LONGS(NR_FDS)];
	unsigned long res[3][LONGS(NR_FDS)];
	long ready;
};

static bool select_scan(void *arg)
{
	struct select_set *s = arg;

	s->ready = 0;
	memset(s->res, 0, sizeof(s->res));
	for (int fd = 0; fd < s->n; fd++) {
		unsigned long bit = 1ul << (fd % 64);
		int w = fd / 64;
		if (!((s->in[w] | s->out[w] | s->ex[w]) & bit))
			continue;
		struct file *f = fd_get(current->fds, fd);
		if (!f)
			continue;	/* closed meanwhile: Linux's POLLNVAL, ignored */
		unsigned mask = file_poll(f);
		const unsigned long *want[3] = { s->in, s->out, s->ex };
		const unsigned sets[3] = { POLLIN_SET, POLLOUT_SET, POLLEX_SET };
		for (int k = 0; k < 3; k++) {
			if ((want[k][w] & bit) && (mask & sets[k])) {
				s->res[k][w] |= bit;
				s->ready++;
			}
		}
	}
	return s->ready > 0;
}

static long do_select(long n, long uin, long uout, long uex, uint64_t deadline)
{
	struct select_set *s;
	long ret;

	n = (int)n;		/* an int in Linux's ABI */
	if (n < 0)
		return -EINVAL;
	if (n > NR_FDS)
		n = NR_FDS;		/* Linux clips to its table's size */
	if (!(s = kzalloc(sizeof(*s))))
		return -ENOMEM;
	s->n = n;
	size_t bytes = LONGS(n) * sizeof(long);
	if ((uin && copy_from_user(s->in, (void *)uin, bytes)) ||
	    (uout && copy_from_user(s->out, (void *)uout, bytes)) ||
	    (uex && copy_from_user(s->ex, (void *)uex, bytes))) {
		ret = -EFAULT;
		goto out;
	}
	for (int fd = 0; fd < n; fd++) {	/* every fd named must be open */
		unsigned long bit = 1ul << (fd % 64);
		if (((s->in[fd / 64] | s->out[fd / 64] | s->ex[fd / 64]) & bit) &&
		    !fd_get(current->fds, fd)) {
			ret = -EBADF;
			goto out;
		}
	}
	if (select_scan(s) || deadline == POLL_NO_WAIT)
		ret = s->ready;
	else if (task_wait(select_scan, s, deadline) == -EINTR)
		ret = -EINTR;
	else
		ret = s->ready;
	if (ret >= 0 && ((uin && copy_to_user((void *)uin, s->res[0], bytes)) ||
			 (uout && copy_to_user((void *)uout, s->res[1], bytes)) ||
			 (uex && copy_to_user((void *)uex, s->res[2], bytes))))
		ret = -EFAULT;
out:
	kfree(s);
	return ret;
}

long sys_select(long n, long uin, long uout, long uex, long utv)
{
	struct __kernel_old_timeval tv;
	uint64_t deadline = 0;

	if (utv) {
		if (copy_from_user(&tv, (void *)utv, sizeof(tv)))
			return -EFAULT;
		/* Linux normalises microseconds past a second */
		struct __kernel_timespec ts = { tv.tv_sec + tv.tv_usec / 1000000,
						(tv.tv_usec % 1000000) * 1000 };
		if (poll_deadline(&ts, &deadline))
			return -EINVAL;
	}
	long r = do_select(n, uin, uout, uex, deadline);
	if (utv && deadline != POLL_NO_WAIT) {
		uint64_t left = poll_time_left(deadline);
		tv = (struct __kernel_old_timeval){ left / NSEC_PER_SEC, left % NSEC_PER_SEC / 1000 };
		copy_to_user((void *)utv, &tv, sizeof(tv));	/* a fault is ignored */
	}
	return r;
}

long sys_pselect6(long n, long uin, long uout, long uex, long uts, long usig)
{
	struct __kernel_timespec ts;
	struct { uint64_t mask; uint64_t size; } sig = { 0, 0 };
	uint64_t deadline = 0;
	int err;

	if (uts) {
		if (copy_from_user(&ts, (void *)uts, sizeof(ts)))
			return -EFAULT;
		if ((err = poll_deadline(&ts, &deadline)))
			return err;
	}
	if (usig && copy_from_user(&sig, (void *)usig, sizeof(sig)))
		return -EFAULT;
	if ((err = poll_sigmask_set(sig.mask, sig.size)))
		return err;
	long r = do_select(n, uin, uout, uex, deadline);
	if (uts && deadline != POLL_NO_WAIT) {
		uint64_t left = poll_time_left(deadline);
		ts = (struct __kernel_timespec){ left / NSEC_PER_SEC, left % NSEC_PER_SEC };
		copy_to_user((void *)uts, &ts, sizeof(ts));
	}
	return r;
}
