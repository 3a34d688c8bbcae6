/* The line discipline of the serial console, as Linux 6.1's n_tty behaves over
 * ttyS0: input flags, canonical editing, echo and signal characters on the bytes
 * the UART interrupt hands in. Output is n_tty_output.c's, reading n_tty_read.c's. */
#include "n_tty_internal.h"
#include "signal.h"
#include "task.h"
#include "tty.h"

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

struct n_tty_queue n_tty;

static bool is_char(unsigned char c, int cc)
{
	return T->c_cc[cc] != _POSIX_VDISABLE && c == T->c_cc[cc];
}

static bool is_word(unsigned char c)	/* VWERASE: isalnum or underscore */
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_';
}

static void put_queue(unsigned char c, bool delim)
{
	size_t i = MASK(n_tty.read_head++);

	n_tty.buf[i] = c;
	if (delim)
		n_tty.delim[i / 8] |= 1u << (i & 7);
	else
		n_tty.delim[i / 8] &= ~(1u << (i & 7));
}

static void finish_erasing(void)
{
	if (n_tty.erasing) {
		n_tty_output_char('/');
		n_tty.erasing = false;
	}
}

static void echo_backspace(void)	/* ECHOE: "\b \b" */
{
	n_tty_output_char('\b');
	n_tty_output_char(' ');
	n_tty_output_char('\b');
}

/* Back over an erased tab: to the column it started from, counted from the
 * line's start or the tab before it. */
static void erase_tab(size_t head)
{
	unsigned col = 0;
	bool after_tab = false;

	while (MASK(head) != MASK(n_tty.canon_head)) {
		unsigned char c = n_tty.buf[MASK(--head)];
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
		col += n_tty.canon_column;
	for (unsigned bs = MIN(8 - (col & 7), n_tty.column); bs; bs--)
		n_tty_output_char('\b');
}

/* VERASE, VWERASE, VKILL on the line being typed (Linux's eraser). */
static void eraser(unsigned char c)
{
	enum { ERASE, WERASE, KILL } kind;
	int seen_word = 0;

	if (n_tty.read_head == n_tty.canon_head)
		return;
	if (is_char(c, VERASE)) {
		kind = ERASE;
	} else if (is_char(c, VWERASE)) {
		kind = WERASE;
	} else {
		if (!L(ECHO)) {
			n_tty.read_head = n_tty.canon_head;
			return;
		}
		if (!L(ECHOK) || !L(ECHOKE) || !L(ECHOE)) {
			n_tty.read_head = n_tty.canon_head;
			finish_erasing();
			n_tty_echo_char(c);
			if (L(ECHOK))
				n_tty_output_char('\n');
			return;
		}
		kind = KILL;
	}
	while (n_tty.read_head != n_tty.canon_head) {
		size_t head = n_tty.read_head;
		unsigned char e;

		do	/* one character, all the bytes of a UTF-8 one */
			e = n_tty.buf[MASK(--head)];
		while (is_continuation(e) && head != n_tty.canon_head);
		if (is_continuation(e))
			break;
		if (kind == WERASE) {
			if (is_word(e))
				seen_word++;
			else if (seen_word)
				break;
		}
		size_t cnt = n_tty.read_head - head;
		n_tty.read_head = head;
		if (L(ECHO)) {
			if (L(ECHOPRT)) {
				if (!n_tty.erasing) {
					n_tty_output_char('\\');
					n_tty.erasing = true;
				}
				n_tty_echo_char(e);
				while (--cnt)
					n_tty_output_char(n_tty.buf[MASK(++head)]);
			} else if (kind == ERASE && !L(ECHOE)) {
				n_tty_echo_char(c);
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
	if (n_tty.read_head == n_tty.canon_head && L(ECHO))
		finish_erasing();
}

static void signal_char(unsigned char c, int sig)
{
	/* The foreground process group is the one program there is; between
	 * programs the character reaches nobody, as with no process group. */
	if (current)
		signal_send(current, sig, NULL);
	if (!L(NOFLSH))
		n_tty_flush_queue();
	if (I(IXON))
		console_tty.stopped = false;
	if (L(ECHO))
		n_tty_echo_char(c);
}

/* An ordinary byte: echoed and queued (a full queue takes only line ends in
 * canonical mode, so that a reader always gets its line). */
static void receive_plain(unsigned char c, bool delim)
{
	if (read_cnt() >= N_TTY_BUF_SIZE - 1 && (!L(ICANON) || !delim))
		return;
	if (L(ECHO)) {
		finish_erasing();
		if (n_tty.canon_head == n_tty.read_head)
			n_tty.canon_column = n_tty.column;
		if (delim && c == '\n')
			n_tty_output_char('\n');
		else
			n_tty_echo_char(c);
	} else if (delim && c == '\n' && L(ECHONL)) {
		n_tty_output_char('\n');
	}
	put_queue(c, delim);
	if (delim)
		n_tty.canon_head = n_tty.read_head;
}

/* Canonical mode's special bytes; false for an ordinary one. */
static bool receive_canon(unsigned char c)
{
	if (is_char(c, VERASE) || is_char(c, VKILL) || (is_char(c, VWERASE) && L(IEXTEN))) {
		eraser(c);
		return true;
	}
	if (is_char(c, VLNEXT) && L(IEXTEN)) {
		n_tty.lnext = true;
		if (L(ECHO) && L(ECHOCTL)) {
			finish_erasing();
			n_tty_put('^');
			n_tty_put('\b');
		}
		return true;
	}
	if (is_char(c, VREPRINT) && L(ECHO) && L(IEXTEN)) {
		n_tty_echo_char(c);
		n_tty_output_char('\n');
		for (size_t i = n_tty.canon_head; i != n_tty.read_head; i++)
			n_tty_echo_char(n_tty.buf[MASK(i)]);
		return true;
	}
	if (c == '\n' || is_char(c, VEOL) || (is_char(c, VEOL2) && L(IEXTEN))) {
		receive_plain(c, true);
		return true;
	}
	if (is_char(c, VEOF)) {	/* ends the line unechoed; read returns what is before it */
		if (read_cnt() < N_TTY_BUF_SIZE) {
			put_queue(_POSIX_VDISABLE, true);
			n_tty.canon_head = n_tty.read_head;
		}
		return true;
	}
	return false;
}

void tty_receive(unsigned char c)
{
	if (I(ISTRIP))
		c &= 0x7f;
	if (I(IUCLC) && L(IEXTEN) && c >= 'A' && c <= 'Z')
		c += 'a' - 'A';
	if (n_tty.lnext) {
		n_tty.lnext = false;
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

bool tty_receive_room(void)
{
	n_tty.throttled = !n_tty_room();
	return !n_tty.throttled;
}
