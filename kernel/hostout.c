/* Files out to the host: binary frames on COM2, or text frames inside the
 * console on COM1 (hostout=com1); the formats are in hostout.h. */
#include "hostout.h"
#include "cmdline.h"
#include "console.h"
#include "panic.h"
#include "uart.h"
#include "lib/crc32.h"
#include "lib/string.h"
#include "lib/vsprintf.h"

#define FRAME_MAGIC	"PMUOSOUT"
#define LINE_BYTES	57	/* 76 base64 characters: MIME's line length */

enum channel { CHANNEL_NONE, CHANNEL_COM2, CHANNEL_COM1_TEXT };
static enum channel channel;

/* The file being sent. */
static struct {
	bool open;
	uint64_t len, sent;
	uint32_t crc;
	uint8_t line[LINE_BYTES];	/* text frames: bytes waiting for a full line */
	size_t fill;
} out;

void hostout_init(void)
{
	char v[8] = "";

	cmdline_get("hostout", v, sizeof(v));
	if (!strcmp(v, "com1")) {
		channel = CHANNEL_COM1_TEXT;
	} else if (uart_present(COM2)) {
		uart_init(COM2);
		outb(COM2 + UART_FCR, UART_FCR_ENABLE_FIFO);	/* bursts of UART_FIFO_SIZE */
		channel = CHANNEL_COM2;
	}
}

bool hostout_available(void)
{
	return channel != CHANNEL_NONE;
}

/* THRE means the whole transmit FIFO is empty: fill it, then wait again (a
 * sixteenth of the status reads a byte at a time would make). */
static void com2_send(const void *data, size_t n)
{
	const uint8_t *p = data;

	while (n) {
		size_t burst = MIN(n, (size_t)UART_FIFO_SIZE);
		uart_wait(COM2, UART_LSR_THRE);
		for (size_t i = 0; i < burst; i++)
			outb(COM2 + UART_TX, p[i]);
		p += burst;
		n -= burst;
	}
}

/* A whole line at once: an interrupt's printk must not land inside it. */
static void com1_line(const char *s, size_t n)
{
	uint64_t flags = irq_save();

	console_write(s, n);
	irq_restore(flags);
}

static void flush_line(void)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char text[1 + LINE_BYTES / 3 * 4 + 1];
	size_t n = 0;

	text[n++] = ':';
	for (size_t i = 0; i < out.fill; i += 3) {
		uint32_t v = out.line[i] << 16;
		if (i + 1 < out.fill)
			v |= out.line[i + 1] << 8;
		if (i + 2 < out.fill)
			v |= out.line[i + 2];
		text[n++] = b64[v >> 18];
		text[n++] = b64[(v >> 12) & 63];
		text[n++] = i + 1 < out.fill ? b64[(v >> 6) & 63] : '=';
		text[n++] = i + 2 < out.fill ? b64[v & 63] : '=';
	}
	text[n++] = '\n';
	com1_line(text, n);
	out.fill = 0;
}

bool hostout_begin(const char *path, uint64_t len)
{
	size_t plen = strnlen(path, HOSTOUT_PATH_MAX + 1);

	assert(!out.open);
	if (channel == CHANNEL_NONE || !plen || plen > HOSTOUT_PATH_MAX)
		return false;
	for (size_t i = 0; i < plen; i++)
		if ((uint8_t)path[i] < 0x20 || path[i] == 0x7f)
			return false;	/* it would break the text frame's line */
	out.open = true;
	out.len = len;
	out.sent = 0;
	out.crc = 0;
	out.fill = 0;
	if (channel == CHANNEL_COM2) {
		uint32_t n = plen;
		com2_send(FRAME_MAGIC, 8);
		com2_send(&n, sizeof(n));
		com2_send(path, plen);
		com2_send(&len, sizeof(len));
	} else {
		char line[HOSTOUT_PATH_MAX + 64];
		int n = snprintf(line, sizeof(line), "\n=== pmuos-out BEGIN %lu %s\n", len, path);
		com1_line(line, n);
	}
	return true;
}

void hostout_write(const void *data, size_t n)
{
	const uint8_t *p = data;

	assert(out.open && n <= out.len - out.sent);
	out.crc = crc32(out.crc, data, n);
	out.sent += n;
	if (channel == CHANNEL_COM2) {
		com2_send(data, n);
		return;
	}
	while (n) {
		size_t take = MIN(n, LINE_BYTES - out.fill);
		memcpy(out.line + out.fill, p, take);
		out.fill += take;
		p += take;
		n -= take;
		if (out.fill == LINE_BYTES)
			flush_line();
	}
}

void hostout_end(void)
{
	assert(out.open && out.sent == out.len);
	if (channel == CHANNEL_COM2) {
		com2_send(&out.crc, sizeof(out.crc));
		uart_wait(COM2, UART_LSR_TEMT);	/* out before a halt stops the machine */
	} else {
		char line[40];
		if (out.fill)
			flush_line();
		int n = snprintf(line, sizeof(line), "=== pmuos-out END %08x\n", out.crc);
		com1_line(line, n);
	}
	out.open = false;
}

bool hostout_file(const char *path, const void *data, size_t len)
{
	if (!hostout_begin(path, len))
		return false;
	hostout_write(data, len);
	hostout_end();
	return true;
}
