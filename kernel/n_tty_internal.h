/* What n_tty.c (input, editing), n_tty_output.c (output, echo) and n_tty_read.c (the
 * reader's side) share: the input queue and the termios flags. Only those include it. */
#pragma once
#include "n_tty.h"

#define N_TTY_BUF_SIZE	4096	/* Linux's input queue */
#define _POSIX_VDISABLE	'\0'	/* a c_cc entry that disables its function */

/* The input queue; indices run free and are masked on use. A set bit in delim
 * marks a line end (newline, VEOL, or a VEOF kept as _POSIX_VDISABLE). Bytes
 * before canon_head are complete lines; in raw mode all bytes are readable. */
struct n_tty_queue {
	unsigned char buf[N_TTY_BUF_SIZE];
	uint8_t delim[N_TTY_BUF_SIZE / 8];
	size_t read_head, read_tail, canon_head;
	size_t line_start;	/* where the line being read began */
	unsigned column;	/* output column, to erase tabs */
	unsigned canon_column;	/* the column where the input line began */
	bool lnext;		/* VLNEXT: the next byte is literal */
	bool erasing;		/* ECHOPRT: inside a \...erased.../ run */
	bool throttled;		/* the UART holds further input */
};
extern struct n_tty_queue n_tty;

#define T (&console_tty.termios)
#define I(flag)	(T->c_iflag & (flag))
#define O(flag)	(T->c_oflag & (flag))
#define L(flag)	(T->c_lflag & (flag))
#define MASK(i)	((i) & (N_TTY_BUF_SIZE - 1))

static inline bool is_cntrl(unsigned char c)
{
	return c < ' ' || c == 0177;
}

/* A UTF-8 continuation byte takes no column and is erased with its lead. */
static inline bool is_continuation(unsigned char c)
{
	return I(IUTF8) && (c & 0xc0) == 0x80;
}

static inline size_t read_cnt(void)
{
	return n_tty.read_head - n_tty.read_tail;
}

static inline bool is_delim(size_t i)
{
	return n_tty.delim[MASK(i) / 8] & 1u << (i & 7);
}

/* n_tty_output.c: one byte through OPOST; a byte as the echo shows it (^X). */
void n_tty_output_char(unsigned char c);
void n_tty_echo_char(unsigned char c);
/* The UART itself, or the echoes held for the end of a write(). */
void n_tty_put(char c);
/* n_tty_read.c: empty the queue (interrupts off); can it take a byte? */
void n_tty_flush_queue(void);
bool n_tty_room(void);
