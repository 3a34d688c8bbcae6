/* timerfd_create, timerfd_settime, timerfd_gettime: a timer read as a
 * descriptor, as Linux's fs/timerfd.c: read returns the expirations since
 * the last read (an 8-byte count) and poll says POLLIN while there are
 * any. Armed, it is one entry of the deadline queue; a periodic one that
 * has expired stays off the queue until read or gettime moves it on past
 * now, counting the periods missed (Linux's hrtimer_forward in read). */
#include "fd.h"
#include "clock.h"
#include "poll.h"
#include "sched.h"
#include "syscall.h"
#include "task.h"
#include "timer.h"
#include "tsc.h"
#include "x86.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/poll.h>
#include <linux/time.h>
#include <linux/time_types.h>

#define TFD_CLOEXEC	O_CLOEXEC
#define TFD_NONBLOCK	O_NONBLOCK
#define TFD_TIMER_ABSTIME	1
#define TFD_TIMER_CANCEL_ON_SET	2

struct timerfd {
	struct timer timer;
	int clock;
	bool armed;
	bool expired;			/* periodic: expired, not yet moved on */
	uint64_t expires, interval;	/* TSC */
	uint64_t interval_ns;		/* as set, for gettime */
	uint64_t ticks;			/* expirations not yet read */
	unsigned long seq;		/* expirations ever: epoll's edges */
};

long timerfds_alive;

static void timerfd_fire(struct timer *t, struct pt_regs *regs)
{
	struct timerfd *tf = container_of(t, struct timerfd, timer);

	tf->ticks++;
	if (tf->interval)
		tf->expired = true;
	else
		tf->armed = false;
	tf->seq++;
	sched_wakeup();
}

/* A periodic timer that expired: to its next expiry after now, the
 * periods between counted. Interrupts off. */
static void forward(struct timerfd *tf)
{
	uint64_t now = rdtsc();

	if (!tf->expired)
		return;
	uint64_t n = now < tf->expires ? 1 : (now - tf->expires) / tf->interval + 1;
	tf->expires += n * tf->interval;
	tf->ticks += n - 1;
	tf->expired = false;
	timer_add(&tf->timer, tf->expires);
}

static bool has_ticks(void *arg)
{
	return ((struct timerfd *)arg)->ticks > 0;
}

static long timerfd_read(struct file *f, char *ubuf, size_t n)
{
	struct timerfd *tf = f->priv;

	if (n < sizeof(uint64_t))
		return -EINVAL;
	if (!tf->ticks) {
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if (task_wait(has_ticks, tf, 0) == -EINTR)
			return -ERESTARTSYS;
	}
	uint64_t flags = irq_save();
	forward(tf);
	uint64_t v = tf->ticks;
	tf->ticks = 0;
	irq_restore(flags);
	if (copy_to_user(ubuf, &v, sizeof(v))) {
		tf->ticks += v;
		return -EFAULT;
	}
	return sizeof(v);
}

static unsigned timerfd_poll(struct file *f)
{
	return ((struct timerfd *)f->priv)->ticks ? POLLIN | POLLRDNORM : 0;
}

static unsigned long timerfd_poll_seq(struct file *f, unsigned events)
{
	return ((struct timerfd *)f->priv)->seq;
}

static void timerfd_stat(struct file *f, unsigned *mode, long *size)
{
	*mode = 0600;		/* an anonymous inode */
	*size = 0;
}

static void timerfd_release(struct file *f)
{
	struct timerfd *tf = f->priv;

	timer_del(&tf->timer);
	kfree(tf);
	timerfds_alive--;
}

static const struct file_ops timerfd_fops = {
	.read = timerfd_read,
	.poll = timerfd_poll,
	.poll_seq = timerfd_poll_seq,
	.stat = timerfd_stat,
	.release = timerfd_release,
	.name = "anon_inode:[timerfd]",
};

long sys_timerfd_create(long clock, long flags)
{
	if ((flags & ~(TFD_CLOEXEC | TFD_NONBLOCK)) ||
	    (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME && clock != CLOCK_BOOTTIME))
		return -EINVAL;
	struct timerfd *tf = kzalloc(sizeof(*tf));
	if (!tf)
		return -ENOMEM;
	tf->clock = clock;
	tf->timer.fn = timerfd_fire;
	struct file *f = file_new(&timerfd_fops, tf, O_RDWR | (flags & TFD_NONBLOCK));
	if (!f) {
		kfree(tf);
		return -ENOMEM;
	}
	timerfds_alive++;
	int fd = fd_install(current->fds, f, 0, flags & TFD_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

static struct timerfd *timerfd_get(long fd, long *err)
{
	struct file *f = fd_get(current->fds, fd);

	*err = !f ? -EBADF : f->ops != &timerfd_fops ? -EINVAL : 0;
	return *err ? NULL : f->priv;
}

static struct __kernel_timespec ns_ts(uint64_t ns)
{
	return (struct __kernel_timespec){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
}

static void get_value(struct timerfd *tf, struct __kernel_itimerspec *v)
{
	uint64_t now = rdtsc();
	uint64_t left = tf->armed && tf->expires > now ? tsc_to_ns(tf->expires - now) :
			tf->armed ? 1 : 0;

	v->it_value = ns_ts(left);
	v->it_interval = ns_ts(tf->interval_ns);
}

static bool ts_valid(const struct __kernel_timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < (long)NSEC_PER_SEC;
}

long sys_timerfd_settime(long fd, long flags, long unew, long uold)
{
	struct __kernel_itimerspec v, old;
	long err;

	if (copy_from_user(&v, (void *)unew, sizeof(v)))
		return -EFAULT;
	if ((flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) ||
	    !ts_valid(&v.it_value) || !ts_valid(&v.it_interval))
		return -EINVAL;
	struct timerfd *tf = timerfd_get(fd, &err);
	if (!tf)
		return err;
	uint64_t value = v.it_value.tv_sec * NSEC_PER_SEC + v.it_value.tv_nsec;
	uint64_t interval = v.it_interval.tv_sec * NSEC_PER_SEC + v.it_interval.tv_nsec;
	if (value && (flags & TFD_TIMER_ABSTIME)) {
		uint64_t now;
		clock_read_ns(tf->clock, &now);
		value = value > now ? value - now : 1;
	}
	uint64_t irq = irq_save();
	get_value(tf, &old);
	timer_del(&tf->timer);
	tf->ticks = 0;
	tf->expired = false;
	tf->armed = value != 0;
	tf->interval = ns_to_tsc(interval);
	tf->interval_ns = interval;
	if (value) {
		tf->expires = rdtsc() + ns_to_tsc(value);
		timer_add(&tf->timer, tf->expires);
	}
	irq_restore(irq);
	if (uold && copy_to_user((void *)uold, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_timerfd_gettime(long fd, long ucur)
{
	struct __kernel_itimerspec v;
	long err;
	struct timerfd *tf = timerfd_get(fd, &err);

	if (!tf)
		return err;
	uint64_t irq = irq_save();
	forward(tf);
	get_value(tf, &v);
	irq_restore(irq);
	return copy_to_user((void *)ucur, &v, sizeof(v)) ? -EFAULT : 0;
}
