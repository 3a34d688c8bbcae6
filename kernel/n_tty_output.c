/* The console's output as Linux's n_tty writes it: OPOST processing with the column
 * kept, echoes shown as ^X, and echoes that wait for a write() to end. */
#include "n_tty_internal.h"
#include "console.h"
#include "x86.h"

/* Echoes of bytes that arrive while a write() is going out wait for its end, so
 * that they never split its lines (Linux's output lock does the same). */
static struct {
	char buf[512];
	size_t n;
	bool writing;		/* a write() is going out */
	bool writer;		/* and this byte is its own */
} echo;

void n_tty_put(char c)
{
	if (!echo.writing || echo.writer)
		console_putc(c);
	else if (echo.n < sizeof(echo.buf))
		echo.buf[echo.n++] = c;	/* past that, echoes are lost, as on Linux */
}

/* One byte through OPOST, keeping the column (Linux's do_output_char). */
void n_tty_output_char(unsigned char c)
{
	if (!O(OPOST)) {
		n_tty_put(c);
		return;
	}
	switch (c) {
	case '\n':
		if (O(ONLRET))
			n_tty.column = 0;
		if (O(ONLCR)) {
			n_tty.canon_column = n_tty.column = 0;
			n_tty_put('\r');
			break;
		}
		n_tty.canon_column = n_tty.column;
		break;
	case '\r':
		if (O(ONOCR) && n_tty.column == 0)
			return;
		if (O(OCRNL)) {
			c = '\n';
			if (O(ONLRET))
				n_tty.canon_column = n_tty.column = 0;
			break;
		}
		n_tty.canon_column = n_tty.column = 0;
		break;
	case '\t': {
		unsigned spaces = 8 - (n_tty.column & 7);

		n_tty.column += spaces;
		if ((T->c_oflag & TABDLY) == XTABS) {
			while (spaces--)
				n_tty_put(' ');
			return;
		}
		break;
	}
	case '\b':
		if (n_tty.column > 0)
			n_tty.column--;
		break;
	default:
		if (!is_cntrl(c)) {
			if (O(OLCUC) && c >= 'a' && c <= 'z')
				c -= 'a' - 'A';
			if (!is_continuation(c))
				n_tty.column++;
		}
	}
	n_tty_put(c);
}

void n_tty_write_begin(void)
{
	echo.writing = true;
}

void n_tty_write(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t flags = irq_save();	/* the column is the echo's too */
		echo.writer = true;
		n_tty_output_char(buf[i]);
		echo.writer = false;
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

/* ECHOCTL shows a control character as ^X (but a tab as itself). */
void n_tty_echo_char(unsigned char c)
{
	if (L(ECHOCTL) && is_cntrl(c) && c != '\t') {
		n_tty_put('^');
		n_tty_put(c ^ 0100);
		n_tty.column += 2;
	} else {
		n_tty_output_char(c);
	}
}
