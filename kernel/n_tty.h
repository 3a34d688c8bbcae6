/* The console's line discipline (n_tty.c) as the tty file (tty.c) drives it. */
#pragma once
#include "kernel.h"
#include <asm/termbits.h>
#include <asm/termios.h>

struct file;

/* The terminal's settings: one console, so one of each, kept across programs as
 * Linux's console keeps them while init holds it open. */
struct tty {
	struct termios2 termios;
	struct winsize winsize;
	bool stopped;		/* VSTOP or TCOOFF: writers wait for VSTART or TCOON */
};
extern struct tty console_tty;

/* read(2): a line in canonical mode, VMIN/VTIME rules otherwise. */
long n_tty_read(struct file *f, char *ubuf, size_t n);
/* A write(2): begin, its bytes through OPOST processing (ONLCR ...) to the
 * UART, end (the echoes that came meanwhile go out then). */
void n_tty_write_begin(void);
void n_tty_write(const char *buf, size_t n);
void n_tty_write_end(void);
/* Input ready for read(2); poll also honours VMIN with VTIME 0, as Linux's does. */
bool n_tty_readable(bool poll);
/* FIONREAD: the bytes a read could return (complete lines in canonical mode). */
int n_tty_inq(void);
void n_tty_flush_input(void);
/* After a termios change: switching ICANON turns the queue into lines or bytes. */
void n_tty_set_termios(const struct termios2 *old);
