/* eventfd and eventfd2: a 64-bit counter behind a descriptor, as Linux's
 * fs/eventfd.c: write adds (blocking before it would reach 2^64 - 1), read
 * takes the whole count or, with EFD_SEMAPHORE, one. */
#include "fd.h"
#include "sched.h"
#include "syscall.h"
#include "task.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#define EFD_SEMAPHORE	1
#define EFD_CLOEXEC	O_CLOEXEC
#define EFD_NONBLOCK	O_NONBLOCK
#include <linux/poll.h>

struct eventfd {
	uint64_t count;
	bool semaphore;
	unsigned long in_seq, out_seq;	/* wake-ups keyed POLLIN, POLLOUT (epoll's edges) */
};

long eventfds_alive;

static bool readable(void *arg)
{
	return ((struct eventfd *)arg)->count > 0;
}

struct adding {
	struct eventfd *e;
	uint64_t n;
};

static bool room_for(void *arg)
{
	struct adding *a = arg;

	return UINT64_MAX - a->e->count > a->n;
}

static void changed(unsigned long *seq)
{
	++*seq;
	sched_wakeup();
}

static long eventfd_read(struct file *f, char *ubuf, size_t n)
{
	struct eventfd *e = f->priv;

	if (n < sizeof(uint64_t))
		return -EINVAL;
	if (!e->count) {
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if (task_wait(readable, e, 0) == -EINTR)
			return -ERESTARTSYS;
	}
	uint64_t v = e->semaphore ? 1 : e->count;
	if (copy_to_user(ubuf, &v, sizeof(v)))
		return -EFAULT;
	e->count -= v;
	changed(&e->out_seq);
	return sizeof(v);
}

static long eventfd_write(struct file *f, const char *ubuf, size_t n)
{
	struct eventfd *e = f->priv;
	struct adding a = { e, 0 };

	if (n < sizeof(uint64_t))
		return -EINVAL;
	if (copy_from_user(&a.n, ubuf, sizeof(a.n)))
		return -EFAULT;
	if (a.n == UINT64_MAX)
		return -EINVAL;
	if (!room_for(&a)) {
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if (task_wait(room_for, &a, 0) == -EINTR)
			return -ERESTARTSYS;
	}
	e->count += a.n;
	if (a.n)
		changed(&e->in_seq);
	return sizeof(a.n);
}

static unsigned eventfd_poll(struct file *f)
{
	struct eventfd *e = f->priv;
	unsigned mask = 0;

	if (e->count > 0)
		mask |= POLLIN | POLLRDNORM;
	if (e->count == UINT64_MAX)
		mask |= POLLERR;
	if (UINT64_MAX - 1 > e->count)
		mask |= POLLOUT | POLLWRNORM;
	return mask;
}

static unsigned long eventfd_poll_seq(struct file *f, unsigned events)
{
	struct eventfd *e = f->priv;

	return (events & (POLLIN | POLLRDNORM) ? e->in_seq : 0) +
	       (events & (POLLOUT | POLLWRNORM) ? e->out_seq : 0);
}

static void eventfd_stat(struct file *f, unsigned *mode, long *size)
{
	*mode = 0600;		/* an anonymous inode */
	*size = 0;
}

static void eventfd_release(struct file *f)
{
	kfree(f->priv);
	eventfds_alive--;
}

static const struct file_ops eventfd_fops = {
	.read = eventfd_read,
	.write = eventfd_write,
	.poll = eventfd_poll,
	.poll_seq = eventfd_poll_seq,
	.stat = eventfd_stat,
	.release = eventfd_release,
	.name = "anon_inode:[eventfd]",
};

long sys_eventfd2(long initval, long flags)
{
	if (flags & ~(EFD_SEMAPHORE | EFD_CLOEXEC | EFD_NONBLOCK))
		return -EINVAL;
	struct eventfd *e = kzalloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->count = (unsigned int)initval;
	e->semaphore = flags & EFD_SEMAPHORE;
	struct file *f = file_new(&eventfd_fops, e, O_RDWR | (flags & EFD_NONBLOCK));
	if (!f) {
		kfree(e);
		return -ENOMEM;
	}
	eventfds_alive++;
	int fd = fd_install(current->fds, f, 0, flags & EFD_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

long sys_eventfd(long initval)
{
	return sys_eventfd2(initval, 0);
}
