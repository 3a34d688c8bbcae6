/* epoll as Linux 6.1's fs/eventpoll.c answers it: an interest list of
 * (file, fd) items, level-triggered or EPOLLET, EPOLLONESHOT, epoll files
 * inside epoll files (ELOOP past a cycle or 4 levels), items dropped when
 * their file is released. Readiness is each file's poll op read at
 * epoll_wait time (no wait queues: the scheduler rescans for sleepers); an
 * edge-triggered item remembers what it last saw: the poll bits and the
 * file's wake-up count (file_ops.poll_seq). */
#include "syscall.h"
#include "fd.h"
#include "poll.h"
#include "sched.h"
#include "task.h"
#include "tsc.h"
#include "x86.h"
#include "mm/kmalloc.h"
#include "mm/paging.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/eventpoll.h>
#include <linux/poll.h>
#include <linux/time_types.h>

#define EP_PRIVATE_BITS	(EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
#define EPOLLEXCLUSIVE_OK_BITS	(EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | \
				 EPOLLET | EPOLLEXCLUSIVE)
#define EP_MAX_NESTS	4
#define EP_MAX_EVENTS	(INT32_MAX / sizeof(struct epoll_event))

struct epitem {
	struct epitem *next;
	struct file *file;		/* not referenced: released files leave */
	int fd;
	uint32_t events;		/* asked for, with EPOLLERR | EPOLLHUP */
	uint64_t data;
	unsigned last;			/* EPOLLET: the bits seen at the last look */
	unsigned long seq;		/* and the file's wake-up count then */
};

struct eventpoll {
	struct eventpoll *next;		/* every instance: for released files */
	struct epitem *items;		/* oldest first; reported LT items go last */
};

static struct eventpoll *instances;
long epolls_alive;

static const struct file_ops epoll_fops;

static bool is_epoll(const struct file *f)
{
	return f->ops == &epoll_fops;
}

static unsigned item_ready(const struct epitem *it)
{
	return file_poll(it->file) & it->events & ~EP_PRIVATE_BITS;
}

static unsigned long item_seq(const struct epitem *it)
{
	const struct file_ops *ops = it->file->ops;

	return ops->poll_seq ? ops->poll_seq(it->file, it->events) : 0;
}

/* Would epoll_wait report it now? */
static bool item_due(const struct epitem *it, unsigned ready)
{
	if (!ready)
		return false;
	if (!(it->events & EPOLLET))
		return true;
	return (ready & ~it->last) || item_seq(it) != it->seq;
}

static bool any_due(void *arg)
{
	struct eventpoll *ep = arg;

	for (struct epitem *it = ep->items; it; it = it->next)
		if (item_due(it, item_ready(it)))
			return true;
	return false;
}

/* Move the reported level-triggered items to the end, so that a small
 * maxevents reaches every ready item in turn (Linux's ready list). */
static void requeue(struct eventpoll *ep, struct epitem **moved)
{
	struct epitem **tail = &ep->items;

	while (*tail)
		tail = &(*tail)->next;
	*tail = *moved;
}

/* Report up to max due items into uev; the ones reported are consumed
 * (EPOLLET: seen, EPOLLONESHOT: disarmed). */
static long collect(struct eventpoll *ep, struct epoll_event *uev, int max)
{
	struct epitem **pp = &ep->items, *moved = NULL, **mtail = &moved;
	long n = 0;

	while (*pp) {
		struct epitem *it = *pp;
		unsigned ready = item_ready(it);
		if (n == max || !item_due(it, ready)) {
			it->last = ready;
			it->seq = item_seq(it);
			pp = &it->next;
			continue;
		}
		struct epoll_event ev = { .events = ready, .data = it->data };
		if (copy_to_user(&uev[n], &ev, sizeof(ev))) {
			if (!n)
				n = -EFAULT;
			break;
		}
		n++;
		it->last = ready;
		it->seq = item_seq(it);
		if (it->events & EPOLLONESHOT)
			it->events &= EP_PRIVATE_BITS;
		if (!(it->events & (EPOLLET | EPOLLONESHOT))) {
			*pp = it->next;		/* to the end */
			it->next = NULL;
			*mtail = it;
			mtail = &it->next;
			continue;
		}
		pp = &it->next;
	}
	requeue(ep, &moved);
	return n;
}

static struct epitem *find(struct eventpoll *ep, struct file *f, int fd, struct epitem ***link)
{
	for (struct epitem **pp = &ep->items; *pp; pp = &(*pp)->next) {
		if ((*pp)->file == f && (*pp)->fd == fd) {
			if (link)
				*link = pp;
			return *pp;
		}
	}
	return NULL;
}

static void remove(struct epitem **link)
{
	struct epitem *it = *link;

	*link = it->next;
	it->file->epoll_items--;
	kfree(it);
}

void epoll_file_released(struct file *f)
{
	for (struct eventpoll *ep = instances; ep && f->epoll_items; ep = ep->next) {
		for (struct epitem **pp = &ep->items; *pp;) {
			if ((*pp)->file == f)
				remove(pp);
			else
				pp = &(*pp)->next;
		}
	}
}

/* Does the epoll file f reach ep through nested epoll files, or nest
 * deeper than Linux allows? (ep_loop_check) */
static bool loops(struct eventpoll *ep, struct file *f, int depth)
{
	struct eventpoll *inner = f->priv;

	if (inner == ep || depth > EP_MAX_NESTS)
		return true;
	for (struct epitem *it = inner->items; it; it = it->next)
		if (is_epoll(it->file) && loops(ep, it->file, depth + 1))
			return true;
	return false;
}

static unsigned epoll_poll(struct file *f)
{
	return any_due(f->priv) ? POLLIN | POLLRDNORM : 0;
}

static void epoll_release(struct file *f)
{
	struct eventpoll *ep = f->priv;

	while (ep->items)
		remove(&ep->items);
	for (struct eventpoll **pp = &instances; *pp; pp = &(*pp)->next) {
		if (*pp == ep) {
			*pp = ep->next;
			break;
		}
	}
	kfree(ep);
	epolls_alive--;
}

static void epoll_stat(struct file *f, unsigned *mode, long *size)
{
	*mode = 0600;		/* an anonymous inode */
	*size = 0;
}

static const struct file_ops epoll_fops = {
	.poll = epoll_poll,
	.stat = epoll_stat,
	.release = epoll_release,
	.name = "anon_inode:[eventpoll]",
};

long sys_epoll_create1(long flags)
{
	if (flags & ~EPOLL_CLOEXEC)
		return -EINVAL;
	struct eventpoll *ep = kzalloc(sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	struct file *f = file_new(&epoll_fops, ep, O_RDWR);
	if (!f) {
		kfree(ep);
		return -ENOMEM;
	}
	ep->next = instances;
	instances = ep;
	epolls_alive++;
	int fd = fd_install(current->fds, f, 0, flags & EPOLL_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

long sys_epoll_create(long size)
{
	if ((int)size <= 0)
		return -EINVAL;
	return sys_epoll_create1(0);
}

long sys_epoll_ctl(long epfd, long op, long fd, long uevent)
{
	struct epoll_event ev = { 0 };

	if (op != EPOLL_CTL_DEL && copy_from_user(&ev, (void *)uevent, sizeof(ev)))
		return -EFAULT;
	struct file *f = fd_get(current->fds, epfd), *tf = fd_get(current->fds, fd);
	if (!f || !tf)
		return -EBADF;
	if (!tf->ops->poll)
		return -EPERM;		/* regular files, directories */
	if (f == tf || !is_epoll(f))
		return -EINVAL;
	if (op != EPOLL_CTL_DEL && (ev.events & EPOLLEXCLUSIVE)) {
		if (op == EPOLL_CTL_MOD)
			return -EINVAL;
		if (op == EPOLL_CTL_ADD && (is_epoll(tf) || (ev.events & ~EPOLLEXCLUSIVE_OK_BITS)))
			return -EINVAL;
	}
	struct eventpoll *ep = f->priv;
	if (op == EPOLL_CTL_ADD && is_epoll(tf) && loops(ep, tf, 0))
		return -ELOOP;
	struct epitem **link, *it = find(ep, tf, (int)fd, &link);
	switch (op) {
	case EPOLL_CTL_ADD:
		if (it)
			return -EEXIST;
		if (!(it = kzalloc(sizeof(*it))))
			return -ENOMEM;
		*it = (struct epitem){ .file = tf, .fd = (int)fd,
				       .events = ev.events | EPOLLERR | EPOLLHUP, .data = ev.data };
		tf->epoll_items++;
		requeue(ep, &it);
		sched_wakeup();		/* a sleeper on ep may have something now */
		return 0;
	case EPOLL_CTL_DEL:
		if (!it)
			return -ENOENT;
		remove(link);
		return 0;
	case EPOLL_CTL_MOD:
		if (!it)
			return -ENOENT;
		if (it->events & EPOLLEXCLUSIVE)
			return -EINVAL;
		it->events = ev.events | EPOLLERR | EPOLLHUP;
		it->data = ev.data;
		it->last = 0;		/* ready now: reported again */
		sched_wakeup();
		return 0;
	default:
		return -EINVAL;
	}
}

static long do_epoll_wait(long epfd, long uevents, long max, uint64_t deadline)
{
	if (max <= 0 || (unsigned long)max > EP_MAX_EVENTS)
		return -EINVAL;
	if (!is_user_range(uevents, max * sizeof(struct epoll_event)))
		return -EFAULT;
	struct file *f = fd_get(current->fds, epfd);
	if (!f)
		return -EBADF;
	if (!is_epoll(f))
		return -EINVAL;
	struct eventpoll *ep = f->priv;
	long n;
	file_get(f);		/* a sibling thread may close epfd meanwhile */
	for (;;) {
		n = collect(ep, (struct epoll_event *)uevents, max);
		if (n || deadline == POLL_NO_WAIT)
			break;
		int r = task_wait(any_due, ep, deadline);
		if (r == -EINTR) {
			n = -EINTR;
			break;
		}
		if (r == -ETIMEDOUT) {
			n = collect(ep, (struct epoll_event *)uevents, max);
			break;
		}
	}
	file_put(f);
	return n;
}

static uint64_t ms_deadline(long timeout_ms)
{
	return (int)timeout_ms < 0 ? 0 : (int)timeout_ms == 0 ? POLL_NO_WAIT :
	       rdtsc() + ns_to_tsc((int)timeout_ms * 1000000ul);
}

long sys_epoll_wait(long epfd, long uevents, long max, long timeout_ms)
{
	return do_epoll_wait(epfd, uevents, (int)max, ms_deadline(timeout_ms));
}

long sys_epoll_pwait(long epfd, long uevents, long max, long timeout_ms, long usigmask,
		     long sigsetsize)
{
	int err = poll_sigmask_set(usigmask, sigsetsize);

	if (err)
		return err;
	return do_epoll_wait(epfd, uevents, (int)max, ms_deadline(timeout_ms));
}

long sys_epoll_pwait2(long epfd, long uevents, long max, long uts, long usigmask,
		      long sigsetsize)
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
	return do_epoll_wait(epfd, uevents, (int)max, deadline);
}
