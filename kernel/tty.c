/* The serial console as a terminal: what ioctls a Linux serial tty answers
 * (TCGETS, TIOCGWINSZ with zero rows and columns, ...), reads that poll the
 * UART, writes to the console. */
#include "tty.h"
#include "console.h"
#include "fd.h"
#include "kernel.h"
#include "task.h"
#include "x86.h"
#include "mm/uaccess.h"
#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <asm/termios.h>
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>
#include <linux/poll.h>
#include <linux/stat.h>

#define COM1		0x3f8
#define UART_RBR	0
#define UART_LSR	5
#define LSR_DR		0x01	/* data ready */

static struct termios termios = {
	.c_iflag = ICRNL | IXON,
	.c_oflag = OPOST | ONLCR,
	.c_cflag = B115200 | CS8 | CREAD | HUPCL | CLOCAL,
	.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
	.c_cc = { [VINTR] = 3, [VQUIT] = 28, [VERASE] = 127, [VKILL] = 21, [VEOF] = 4,
		  [VMIN] = 1, [VSTART] = 17, [VSTOP] = 19, [VSUSP] = 26 },
};

static bool rx_ready(void)
{
	return inb(COM1 + UART_LSR) & LSR_DR;
}

static long tty_read(struct file *f, char *ubuf, size_t n)
{
	size_t got = 0;

	if (!n)
		return 0;
	while (!rx_ready()) {
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if (signal_pending(current))
			return -EINTR;
		pause();
	}
	/* Up to a line, as a canonical-mode terminal returns it. */
	while (got < n && rx_ready()) {
		char c = inb(COM1 + UART_RBR);
		if (c == '\r')
			c = '\n';
		if (copy_to_user(ubuf + got, &c, 1))
			return got ? (long)got : -EFAULT;
		got++;
		if (c == '\n')
			break;
	}
	return got;
}

static long tty_write(struct file *f, const char *ubuf, size_t n)
{
	char buf[256];
	size_t done = 0;

	while (done < n) {
		size_t chunk = MIN(n - done, sizeof(buf));
		if (copy_from_user(buf, ubuf + done, chunk))
			return done ? (long)done : -EFAULT;
		console_write(buf, chunk);
		done += chunk;
	}
	return done;
}

static long tty_ioctl(struct file *f, unsigned cmd, unsigned long arg)
{
	void *uarg = (void *)arg;

	switch (cmd) {
	case TCGETS:
		return copy_to_user(uarg, &termios, sizeof(termios)) ? -EFAULT : 0;
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		return copy_from_user(&termios, uarg, sizeof(termios)) ? -EFAULT : 0;
	case TIOCGWINSZ: {
		struct winsize ws = { 0 };	/* a serial line knows no size */
		return copy_to_user(uarg, &ws, sizeof(ws)) ? -EFAULT : 0;
	}
	case TIOCSWINSZ:
		return 0;
	case FIONREAD: {
		int n = rx_ready();
		return copy_to_user(uarg, &n, sizeof(n)) ? -EFAULT : 0;
	}
	case TIOCGPGRP:
	case TIOCGSID: {
		int pid = current->pid;
		return copy_to_user(uarg, &pid, sizeof(pid)) ? -EFAULT : 0;
	}
	default:
		return -ENOTTY;
	}
}

static unsigned tty_poll(struct file *f)
{
	return POLLOUT | POLLWRNORM | (rx_ready() ? POLLIN | POLLRDNORM : 0);
}

static void tty_stat(struct file *f, unsigned *mode, long *size)
{
	*mode = S_IFCHR | 0600;
	*size = 0;
}

static const struct file_ops tty_ops = {
	.name = "/dev/console",	/* what Linux's init gets as fds 0-2 */
	.read = tty_read,
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

int tty_open_std(struct fd_table *t)
{
	struct file *f = file_new(&tty_ops, NULL, O_RDWR);

	if (!f)
		return -ENOMEM;
	fd_install(t, f, 0, false);
	file_get(f);
	fd_install(t, f, 1, false);
	file_get(f);
	fd_install(t, f, 2, false);
	return 0;
}
