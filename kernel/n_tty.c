/* The line discipline of the serial console, as Linux 6.1's n_tty behaves over
 * ttyS0: input flags, canonical editing and echo on the bytes the UART
 * interrupt hands in, signal characters, VMIN/VTIME reads, OPOST output. */
#include "n_tty.h"
#include "console.h"
#include "fd.h"
#include "signal.h"
#include "task.h"
#include "tsc.h"
#include "tty.h"
#include "lib/string.h"
#include "x86.h"
#include "mm/uaccess.h"
#include <asm-generic/errno.h>
#include <asm-generic/fcntl.h>

#define N_TTY_BUF_SIZE	4096	/* Linux's input queue */
#define _POSIX_VDISABLE	'\0'	/* a c_cc entry that disables its function */
#define NSEC_PER_DECISECOND 100000000ul	/* VTIME's unit */

struct tty console_tty = {
	.termios = {
		/* tty_std_termios at the 9600 baud Linux gives console=ttyS0 */
		.c_iflag = ICRNL | IXON,
		.c_oflag = OPOST | ONLCR,
		.c_cflag = B9600 | CS8 | CREAD | HUPCL | CLOCAL,
		.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
		.c_cc = { [VINTR] = 'C' - 64, [VQUIT] = '\\' - 64, [VERASE] = 0177,
			  [VKILL] = 'U' - 64, [VEOF] = 'D' - 64, [VMIN] = 1,
			  [VSTART] = 'Q' - 64, [VSTOP] = 'S' - 64, [VSUSP] = 'Z' - 64,
			  [VREPRINT] = 'R' - 64, [VDISCARD] = 'O' - 64,
			  [VWERASE] = 'W' - 64, [VLNEXT] = 'V' - 64 },
		.c_ispeed = 9600,
		.c_ospeed = 9600,
	},
};

/* The input queue; indices run free and are masked on use. A set bit in delim
 * marks a line end (newline, VEOL, or a VEOF kept as _POSIX_VDISABLE). Bytes
 * before canon_head are complete lines; in raw mode all bytes are readable. */
static struct {
	unsigned char buf[N_TTY_BUF_SIZE];
	uint8_t delim[N_TTY_BUF_SIZE / 8];
	size_t read_head, read_tail, canon_head;
	size_t line_start;	/* where the line being read began */
	unsigned column;	/* output column, to erase tabs */
	unsigned canon_column;	/* the column where the input line began */
	bool lnext;		/* VLNEXT: the next byte is literal */
	bool erasing;		/* ECHOPRT: inside a \...erased.../ run */
	bool throttled;		/* the UART holds further input */
} q;

/* Echoes of bytes that arrive while a write() is going out wait for its end, so
 * that they never split its lines (Linux's output lock does the same). */
static struct {
	char buf[512];
	size_t n;
	bool writing;		/* a write() is going out */
	bool deferring;		/* the byte being received came in during one */
} echo;

#define T (&console_tty.termios)
#define I(flag)	(T->c_iflag & (flag))
#define O(flag)	(T->c_oflag & (flag))
#define L(flag)	(T->c_lflag & (flag))
#define MASK(i)	((i) & (N_TTY_BUF_SIZE - 1))

static bool is_char(unsigned char c, int cc)
{
	return T->c_cc[cc] != _POSIX_VDISABLE && c == T->c_cc[cc];
}

static bool is_cntrl(unsigned char c)
{
	return c < ' ' || c == 0177;
}

static bool is_word(unsigned char c)	/* VWERASE: isalnum or underscore */
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_';
}

/* A UTF-8 continuation byte takes no column and is erased with its lead. */
static bool is_continuation(unsigned char c)
{
	return I(IUTF8) && (c & 0xc0) == 0x80;
}

static size_t read_cnt(void)
{
	return q.read_head - q.read_tail;
}

static bool is_delim(size_t i)
{
	return q.delim[MASK(i) / 8] & 1u << (i & 7);
}

static void put_queue(unsigned char c, bool delim)
{
	size_t i = MASK(q.read_head++);

	q.buf[i] = c;
	if (delim)
		q.delim[i / 8] |= 1u << (i & 7);
	else
		q.delim[i / 8] &= ~(1u << (i & 7));
}

/* ---- output ---- */

static void put(char c)
{
	if (!echo.deferring)
		console_putc(c);
	else if (echo.n < sizeof(echo.buf))
		echo.buf[echo.n++] = c;	/* past that, echoes are lost, as on Linux */
}

/* One byte through OPOST, keeping the column (Linux's do_output_char). */
static void output_char(unsigned char c)
{
	if (!O(OPOST)) {
		put(c);
		return;
	}
	switch (c) {
	case '\n':
		if (O(ONLRET))
			q.column = 0;
		if (O(ONLCR)) {
			q.canon_column = q.column = 0;
			put('\r');
			break;
		}
		q.canon_column = q.column;
		break;
	case '\r':
		if (O(ONOCR) && q.column == 0)
			return;
		if (O(OCRNL)) {
			c = '\n';
			if (O(ONLRET))
				q.canon_column = q.column = 0;
			break;
		}
		q.canon_column = q.column = 0;
		break;
	case '\t': {
		unsigned spaces = 8 - (q.column & 7);

		q.column += spaces;
		if ((T->c_oflag & TABDLY) == XTABS) {
			while (spaces--)
				put(' ');
			return;
		}
		break;
	}
	case '\b':
		if (q.column > 0)
			q.column--;
		break;
	default:
		if (!is_cntrl(c)) {
			if (O(OLCUC) && c >= 'a' && c <= 'z')
				c -= 'a' - 'A';
			if (!is_continuation(c))
				q.column++;
		}
	}
	put(c);
}

void n_tty_write_begin(void)
{
	echo.writing = true;
}

void n_tty_write(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t flags = irq_save();	/* the column is the echo's too */
		output_char(buf[i]);
		irq_restore(flags);
	}
}

void n_tty_write_end(void)
{
	uint64_t flags = irq_save();

	echo.writing = false;
	for (size_t i = 0; i < echo.n; i++)
		console_putc(echo.buf[i]);
	echo.n = 0;
	irq_restore(flags);
}

/* ---- echo ---- */

/* ECHOCTL shows a control character as ^X (but a tab as itself). */
static void echo_char(unsigned char c)
{
	if (L(ECHOCTL) && is_cntrl(c) && c != '\t') {
		put('^');
		put(c ^ 0100);
		q.column += 2;
	} else {
		output_char(c);
	}
}

static void finish_erasing(void)
{
	if (q.erasing) {
		output_char('/');
		q.erasing = false;
	}
}

static void echo_backspace(void)	/* ECHOE: "\b \b" */
{
	output_char('\b');
	output_char(' ');
	output_char('\b');
}

/* Back over an erased tab: to the column it started from, counted from the
 * line's start or the tab before it. */
static void erase_tab(size_t head)
{
	unsigned col = 0;
	bool after_tab = false;

	while (MASK(head) != MASK(q.canon_head)) {
		unsigned char c = q.buf[MASK(--head)];
		if (c == '\t') {
			after_tab = true;
			break;
		}
		if (is_cntrl(c))
			col += L(ECHOCTL) ? 2 : 0;
		else if (!is_continuation(c))
			col++;
	}
	if (!after_tab)
		col += q.canon_column;
	for (unsigned bs = MIN(8 - (col & 7), q.column); bs; bs--)
		output_char('\b');
}

/* VERASE, VWERASE, VKILL on the line being typed (Linux's eraser). */
static void eraser(unsigned char c)
{
	enum { ERASE, WERASE, KILL } kind;
	int seen_word = 0;

	if (q.read_head == q.canon_head)
		return;
	if (is_char(c, VERASE)) {
		kind = ERASE;
	} else if (is_char(c, VWERASE)) {
		kind = WERASE;
	} else {
		if (!L(ECHO)) {
			q.read_head = q.canon_head;
			return;
		}
		if (!L(ECHOK) || !L(ECHOKE) || !L(ECHOE)) {
			q.read_head = q.canon_head;
			finish_erasing();
			echo_char(c);
			if (L(ECHOK))
				output_char('\n');
			return;
		}
		kind = KILL;
	}
	while (q.read_head != q.canon_head) {
		size_t head = q.read_head;
		unsigned char e;

		do	/* one character, all the bytes of a UTF-8 one */
			e = q.buf[MASK(--head)];
		while (is_continuation(e) && head != q.canon_head);
		if (is_continuation(e))
			break;
		if (kind == WERASE) {
			if (is_word(e))
				seen_word++;
			else if (seen_word)
				break;
		}
		size_t cnt = q.read_head - head;
		q.read_head = head;
		if (L(ECHO)) {
			if (L(ECHOPRT)) {
				if (!q.erasing) {
					output_char('\\');
					q.erasing = true;
				}
				echo_char(e);
				while (--cnt)
					output_char(q.buf[MASK(++head)]);
			} else if (kind == ERASE && !L(ECHOE)) {
				echo_char(c);
			} else if (e == '\t') {
				erase_tab(head);
			} else {
				if (is_cntrl(e) && L(ECHOCTL))
					echo_backspace();
				if (!is_cntrl(e) || L(ECHOCTL))
					echo_backspace();
			}
		}
		if (kind == ERASE)
			break;
	}
	if (q.read_head == q.canon_head && L(ECHO))
		finish_erasing();
}

/* ---- input ---- */

static void flush_input(void)
{
	q.read_head = q.read_tail = q.canon_head = q.line_start = 0;
	q.lnext = q.erasing = false;
	q.canon_column = q.column;
}

static void signal_char(unsigned char c, int sig)
{
	/* The foreground process group is the one program there is; between
	 * programs the character reaches nobody, as with no process group. */
	if (current)
		signal_send(current, sig, NULL);
	if (!L(NOFLSH))
		flush_input();
	if (I(IXON))
		console_tty.stopped = false;
	if (L(ECHO))
		echo_char(c);
}

/* An ordinary byte: echoed and queued (a full queue takes only line ends in
 * canonical mode, so that a reader always gets its line). */
static void receive_plain(unsigned char c, bool delim)
{
	if (read_cnt() >= N_TTY_BUF_SIZE - 1 && (!L(ICANON) || !delim))
		return;
	if (L(ECHO)) {
		finish_erasing();
		if (q.canon_head == q.read_head)
			q.canon_column = q.column;
		if (delim && c == '\n')
			output_char('\n');
		else
			echo_char(c);
	} else if (delim && c == '\n' && L(ECHONL)) {
		output_char('\n');
	}
	put_queue(c, delim);
	if (delim)
		q.canon_head = q.read_head;
}

/* Canonical mode's special bytes; false for an ordinary one. */
static bool receive_canon(unsigned char c)
{
	if (is_char(c, VERASE) || is_char(c, VKILL) || (is_char(c, VWERASE) && L(IEXTEN))) {
		eraser(c);
		return true;
	}
	if (is_char(c, VLNEXT) && L(IEXTEN)) {
		q.lnext = true;
		if (L(ECHO) && L(ECHOCTL)) {
			finish_erasing();
			put('^');
			put('\b');
		}
		return true;
	}
	if (is_char(c, VREPRINT) && L(ECHO) && L(IEXTEN)) {
		echo_char(c);
		output_char('\n');
		for (size_t i = q.canon_head; i != q.read_head; i++)
			echo_char(q.buf[MASK(i)]);
		return true;
	}
	if (c == '\n' || is_char(c, VEOL) || (is_char(c, VEOL2) && L(IEXTEN))) {
		receive_plain(c, true);
		return true;
	}
	if (is_char(c, VEOF)) {	/* ends the line unechoed; read returns what is before it */
		if (read_cnt() < N_TTY_BUF_SIZE) {
			put_queue(_POSIX_VDISABLE, true);
			q.canon_head = q.read_head;
		}
		return true;
	}
	return false;
}

static void receive(unsigned char c)
{
	if (I(ISTRIP))
		c &= 0x7f;
	if (I(IUCLC) && L(IEXTEN) && c >= 'A' && c <= 'Z')
		c += 'a' - 'A';
	if (q.lnext) {
		q.lnext = false;
		receive_plain(c, false);
		return;
	}
	if (I(IXON)) {
		if (is_char(c, VSTART) && is_char(c, VSTOP)) {
			console_tty.stopped = !console_tty.stopped;
			return;
		}
		if (is_char(c, VSTART) || is_char(c, VSTOP)) {
			console_tty.stopped = is_char(c, VSTOP);
			return;
		}
	}
	if (L(ISIG)) {
		if (is_char(c, VINTR))
			return signal_char(c, SIGINT);
		if (is_char(c, VQUIT))
			return signal_char(c, SIGQUIT);
		if (is_char(c, VSUSP))
			return signal_char(c, SIGTSTP);
	}
	if (I(IXON) && I(IXANY))
		console_tty.stopped = false;
	if (c == '\r') {
		if (I(IGNCR))
			return;
		if (I(ICRNL))
			c = '\n';
	} else if (c == '\n' && I(INLCR)) {
		c = '\r';
	}
	if (L(ICANON) && receive_canon(c))
		return;
	receive_plain(c, false);
}

void tty_receive(unsigned char c)
{
	echo.deferring = echo.writing;
	receive(c);
	echo.deferring = false;
}

/* A full queue with no complete line in canonical mode still takes bytes (line
 * ends, editing): else the reader would wait for ever. */
static bool room(void)
{
	return read_cnt() < N_TTY_BUF_SIZE - 1 || (L(ICANON) && q.canon_head == q.read_tail);
}

bool tty_receive_room(void)
{
	q.throttled = !room();
	return !q.throttled;
}

/* After a read or flush: let the UART hand in what it held back. */
static void check_unthrottle(void)
{
	uint64_t flags = irq_save();
	bool resume = q.throttled && room();

	if (resume)
		q.throttled = false;
	irq_restore(flags);
	if (resume)
		console_rx_unthrottle();
}

/* ---- read ---- */

bool n_tty_readable(bool poll)
{
	if (L(ICANON))
		return q.canon_head != q.read_tail;
	size_t min = poll && !T->c_cc[VTIME] && T->c_cc[VMIN] ? T->c_cc[VMIN] : 1;
	return read_cnt() >= min;
}

int n_tty_inq(void)
{
	uint64_t flags = irq_save();
	size_t end = L(ICANON) ? q.canon_head : q.read_head;
	int n = end - q.read_tail;

	for (size_t i = q.read_tail; L(ICANON) && i != end; i++)
		if (is_delim(i) && q.buf[MASK(i)] == _POSIX_VDISABLE)
			n--;	/* EOF marks are no data */
	irq_restore(flags);
	return n;
}

void n_tty_flush_input(void)
{
	uint64_t flags = irq_save();
	flush_input();
	irq_restore(flags);
	check_unthrottle();
}

void n_tty_set_termios(const struct termios2 *old)
{
	if (!((old->c_lflag ^ T->c_lflag) & ICANON))
		return;
	uint64_t flags = irq_save();
	memset(q.delim, 0, sizeof(q.delim));
	q.line_start = q.read_tail;
	if (!L(ICANON) || !read_cnt()) {
		q.canon_head = q.read_tail;
	} else {	/* what raw mode queued is one line now */
		size_t last = MASK(q.read_head - 1);
		q.delim[last / 8] |= 1u << (last & 7);
		q.canon_head = q.read_head;
	}
	q.erasing = q.lnext = false;
	irq_restore(flags);
}

/* Copy up to n queued bytes, or in canonical mode up to the end of the first
 * line; *eof is set when a VEOF mark ended it. Interrupts are off. */
static size_t take(char *kbuf, size_t n, bool *eof)
{
	size_t avail = (L(ICANON) ? q.canon_head : q.read_head) - q.read_tail;
	size_t got = 0;

	*eof = false;
	while (got < n && avail--) {
		size_t i = q.read_tail++;
		unsigned char c = q.buf[MASK(i)];
		if (L(ICANON) && is_delim(i)) {
			bool line_start = i == q.line_start;
			q.line_start = q.read_tail;
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
			return done ? (long)done : -EINTR;
	}
	return done;
}
