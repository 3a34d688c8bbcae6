/* The reader's side of the console's line discipline: read(2) by line or by
 * VMIN/VTIME, poll and FIONREAD, flushes, ICANON switches, and letting the UART
 * go on when the queue has room again. */
#include "n_tty_internal.h"
#include "console.h"
#include "fd.h"
#include "task.h"
#include "tsc.h"
#include "x86.h"
#include "lib/string.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>

#define NSEC_PER_DECISECOND 100000000ul	/* VTIME's unit */

void n_tty_flush_queue(void)
{
	n_tty.read_head = n_tty.read_tail = n_tty.canon_head = n_tty.line_start = 0;
	n_tty.lnext = n_tty.erasing = false;
	n_tty.canon_column = n_tty.column;
}

/* A full queue with no complete line in canonical mode still takes bytes (line
 * ends, editing): else the reader would wait for ever. */
bool n_tty_room(void)
{
	return read_cnt() < N_TTY_BUF_SIZE - 1 || (L(ICANON) && n_tty.canon_head == n_tty.read_tail);
}

/* After a read or flush: let the UART hand in what it held back. */
static void check_unthrottle(void)
{
	uint64_t flags = irq_save();
	bool resume = n_tty.throttled && n_tty_room();

	if (resume)
		n_tty.throttled = false;
	irq_restore(flags);
	if (resume)
		console_rx_unthrottle();
}

bool n_tty_readable(bool poll)
{
	if (L(ICANON))
		return n_tty.canon_head != n_tty.read_tail;
	size_t min = poll && !T->c_cc[VTIME] && T->c_cc[VMIN] ? T->c_cc[VMIN] : 1;
	return read_cnt() >= min;
}

int n_tty_inq(void)
{
	uint64_t flags = irq_save();
	size_t end = L(ICANON) ? n_tty.canon_head : n_tty.read_head;
	int n = end - n_tty.read_tail;

	for (size_t i = n_tty.read_tail; L(ICANON) && i != end; i++)
		if (is_delim(i) && n_tty.buf[MASK(i)] == _POSIX_VDISABLE)
			n--;	/* EOF marks are no data */
	irq_restore(flags);
	return n;
}

void n_tty_flush_input(void)
{
	uint64_t flags = irq_save();
	n_tty_flush_queue();
	irq_restore(flags);
	check_unthrottle();
}

void n_tty_set_termios(const struct termios2 *old)
{
	if (!((old->c_lflag ^ T->c_lflag) & ICANON))
		return;
	uint64_t flags = irq_save();
	memset(n_tty.delim, 0, sizeof(n_tty.delim));
	n_tty.line_start = n_tty.read_tail;
	if (!L(ICANON) || !read_cnt()) {
		n_tty.canon_head = n_tty.read_tail;
	} else {	/* what raw mode queued is one line now */
		size_t last = MASK(n_tty.read_head - 1);
		n_tty.delim[last / 8] |= 1u << (last & 7);
		n_tty.canon_head = n_tty.read_head;
	}
	n_tty.erasing = n_tty.lnext = false;
	irq_restore(flags);
}

/* Copy up to n queued bytes, or in canonical mode up to the end of the first
 * line; *eof is set when a VEOF mark ended it. Interrupts are off. */
static size_t take(char *kbuf, size_t n, bool *eof)
{
	size_t avail = (L(ICANON) ? n_tty.canon_head : n_tty.read_head) - n_tty.read_tail;
	size_t got = 0;

	*eof = false;
	while (got < n && avail--) {
		size_t i = n_tty.read_tail++;
		unsigned char c = n_tty.buf[MASK(i)];
		if (L(ICANON) && is_delim(i)) {
			bool line_start = i == n_tty.line_start;
			n_tty.line_start = n_tty.read_tail;
			if (c == _POSIX_VDISABLE) {
				/* VEOF alone at a line's start is end of file;
				 * after part of a line it only pushes it out */
				*eof = line_start;
				break;
			}
			kbuf[got++] = c;
			break;
		}
		kbuf[got++] = c;
	}
	return got;
}

static bool input_ready(void *arg)
{
	return n_tty_readable(false);
}

long n_tty_read(struct file *f, char *ubuf, size_t n)
{
	char kbuf[256];
	size_t done = 0;
	/* Raw mode waits for VMIN bytes, VTIME tenths of a second for the first
	 * byte when VMIN is 0, or between bytes once one came (Linux's rules). */
	unsigned min = L(ICANON) ? 1 : T->c_cc[VMIN];
	uint64_t vtime = ns_to_tsc(T->c_cc[VTIME] * NSEC_PER_DECISECOND);
	uint64_t deadline = 0;	/* 0: wait for ever */
	bool timed = !L(ICANON) && T->c_cc[VTIME];

	if (!L(ICANON) && !min) {
		min = 1;
		deadline = timed ? rdtsc() + vtime : 1;	/* 1: already past */
	}
	while (done < n) {
		bool eof;
		cli();
		size_t got = take(kbuf, MIN(n - done, sizeof(kbuf)), &eof);
		sti();
		if (got)
			check_unthrottle();
		if (got && copy_to_user(ubuf + done, kbuf, got))
			return done ? (long)done : -EFAULT;
		done += got;
		if (L(ICANON) && (got || eof))
			break;	/* one line per read */
		if (done >= min)
			break;
		if (got && timed)
			deadline = rdtsc() + vtime;
		if (!got && !L(ICANON) && deadline && rdtsc() >= deadline)
			break;
		if (got)
			continue;
		if (f->flags & O_NONBLOCK)
			return done ? (long)done : -EAGAIN;
		int err = task_wait(input_ready, NULL, deadline);
		if (err == -EINTR)
			return done ? (long)done : -ERESTARTSYS;
	}
	return done;
}
