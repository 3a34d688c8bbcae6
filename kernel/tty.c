/* The serial console as a terminal file: fds 0-2, and the ioctls a Linux serial
 * tty answers (termios, window size, queue sizes, flow, process group). The
 * line discipline behind read and write is n_tty.c. */
#include "tty.h"
#include "fd.h"
#include "x86.h"
#include "kernel.h"
#include "n_tty.h"
#include "signal.h"
#include "task.h"
#include "lib/string.h"
#include "mm/uaccess.h"
#include <asm/ioctls.h>
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/poll.h>
#include <linux/stat.h>

/* The rates B0..B38400, then CBAUDEX's B57600..B4000000 (Linux's baud_table). */
static const unsigned baud_table[] = {
	0, 50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600, 19200,
	38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1152000,
	1500000, 2000000, 2500000, 3000000, 3500000, 4000000,
};

/* The rate a CBAUD field names; BOTHER keeps the speed termios2 gave. */
static unsigned baud_rate(unsigned cbaud, unsigned given)
{
	unsigned i = cbaud & ~CBAUDEX;

	if (cbaud == BOTHER)
		return given;
	if (cbaud & CBAUDEX)
		i += 15;
	return i < ARRAY_SIZE(baud_table) ? baud_table[i] : given;
}

static bool not_stopped(void *arg)
{
	return !READ_ONCE(console_tty.stopped);
}

static long write_chunks(struct file *f, const char *ubuf, size_t n)
{
	char buf[256];
	size_t done = 0;

	while (done < n) {
		/* VSTOP or TCOOFF hold the writer until output restarts. */
		if (READ_ONCE(console_tty.stopped)) {
			if (f->flags & O_NONBLOCK)
				return done ? (long)done : -EAGAIN;
			if (task_wait(not_stopped, NULL, 0) == -EINTR)
				return done ? (long)done : -ERESTARTSYS;
		}
		size_t chunk = MIN(n - done, sizeof(buf));
		if (copy_from_user(buf, ubuf + done, chunk))
			return done ? (long)done : -EFAULT;
		n_tty_write(buf, chunk);
		done += chunk;
	}
	return done;
}

static long tty_write(struct file *f, const char *ubuf, size_t n)
{
	n_tty_write_begin();
	long ret = write_chunks(f, ubuf, n);
	n_tty_write_end();
	return ret;
}

/* TCSETS* and TCSETS2*: the old structure is termios2's first part. */
static long set_termios(unsigned cmd, void *uarg)
{
	bool t2 = cmd == TCSETS2 || cmd == TCSETSW2 || cmd == TCSETSF2;
	struct termios2 old = console_tty.termios, t = old;

	if (copy_from_user(&t, uarg, t2 ? sizeof(struct termios2) : sizeof(struct termios)))
		return -EFAULT;
	t.c_ospeed = baud_rate(t.c_cflag & CBAUD, t.c_ospeed);
	t.c_ispeed = t.c_cflag & CIBAUD ? baud_rate(t.c_cflag >> IBSHIFT & CBAUD, t.c_ispeed)
					 : t.c_ospeed;
	/* TCSETSW/TCSETSF wait for output to drain: it is never queued here. */
	if (cmd == TCSETSF || cmd == TCSETSF2)
		n_tty_flush_input();
	console_tty.termios = t;
	n_tty_set_termios(&old);
	return 0;
}

/* The one program is its session's leader and the foreground process group. */
static long process_group_ioctl(unsigned cmd, int *uarg)
{
	int pgrp;

	switch (cmd) {
	case TIOCGPGRP:
	case TIOCGSID:
		return put_user(current->pid, uarg) ? -EFAULT : 0;
	case TIOCSPGRP:
		if (get_user(pgrp, uarg))
			return -EFAULT;
		if (pgrp < 0)
			return -EINVAL;
		return pgrp == current->pid ? 0 : -ESRCH;
	default:	/* TIOCSCTTY, TIOCNOTTY: it already is, and may let go */
		return 0;
	}
}

static long tty_ioctl(struct file *f, unsigned cmd, unsigned long arg)
{
	struct tty *tty = &console_tty;
	void *uarg = (void *)arg;

	switch (cmd) {
	case TCGETS:
		return copy_to_user(uarg, &tty->termios, sizeof(struct termios)) ? -EFAULT : 0;
	case TCGETS2:
		return copy_to_user(uarg, &tty->termios, sizeof(struct termios2)) ? -EFAULT : 0;
	case TCSETS: case TCSETSW: case TCSETSF:
	case TCSETS2: case TCSETSW2: case TCSETSF2:
		return set_termios(cmd, uarg);
	case TIOCGWINSZ:
		return copy_to_user(uarg, &tty->winsize, sizeof(tty->winsize)) ? -EFAULT : 0;
	case TIOCSWINSZ: {
		struct winsize ws;
		if (copy_from_user(&ws, uarg, sizeof(ws)))
			return -EFAULT;
		if (memcmp(&ws, &tty->winsize, sizeof(ws)) && current)
			signal_send(current, SIGWINCH, NULL);
		tty->winsize = ws;
		return 0;
	}
	case FIONREAD:
		return put_user(n_tty_inq(), (int *)uarg) ? -EFAULT : 0;
	case TIOCOUTQ:		/* output leaves synchronously: nothing waits */
		return put_user(0, (int *)uarg) ? -EFAULT : 0;
	case TCFLSH:
		if (arg > TCIOFLUSH)
			return -EINVAL;
		if (arg != TCOFLUSH)
			n_tty_flush_input();
		return 0;
	case TCXONC:
		if (arg > TCION)
			return -EINVAL;
		if (arg == TCOOFF || arg == TCOON)
			WRITE_ONCE(tty->stopped, arg == TCOOFF);
		return 0;	/* TCIOFF/TCION: no flow control toward the sender */
	case TCSBRK:
	case TCSBRKP:
		return 0;	/* drain (nothing queued) or a break (not sent) */
	case TIOCSTI: {		/* a byte as if typed: root may, as on Linux 6.1 */
		char c;
		if (get_user(c, (char *)uarg))
			return -EFAULT;
		uint64_t flags = irq_save();
		tty_receive(c);
		irq_restore(flags);
		return 0;
	}
	case TIOCGPGRP: case TIOCSPGRP: case TIOCGSID: case TIOCSCTTY: case TIOCNOTTY:
		return process_group_ioctl(cmd, uarg);
	default:
		return -ENOTTY;
	}
}

static unsigned tty_poll(struct file *f)
{
	return POLLOUT | POLLWRNORM | (n_tty_readable(true) ? POLLIN | POLLRDNORM : 0);
}

static void tty_stat(struct file *f, unsigned *mode, long *size)
{
	*mode = S_IFCHR | 0600;
	*size = 0;
}

static const struct file_ops tty_ops = {
	.read = n_tty_read,
	.write = tty_write,
	.ioctl = tty_ioctl,
	.poll = tty_poll,
	.stat = tty_stat,
};

int tty_open(struct file *f)
{
	f->ops = &tty_ops;
	return 0;
}
