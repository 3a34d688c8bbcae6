/* The COM1 serial console (16550 UART), polled: no interrupts, no buffering. */
#include "console.h"
#include "x86.h"

#define COM1		0x3f8
#define UART_THR	0	/* transmit holding register */
#define UART_IER	1	/* interrupt enable */
#define UART_DLL	0	/* divisor latch, with LCR.DLAB */
#define UART_DLM	1
#define UART_FCR	2	/* FIFO control */
#define UART_LCR	3	/* line control */
#define UART_MCR	4	/* modem control */
#define UART_LSR	5	/* line status */
#define LCR_DLAB	0x80
#define LCR_8N1		0x03
#define LSR_THRE	0x20	/* transmit holding register empty */
#define LSR_TEMT	0x40	/* transmitter empty: the last bit is out */
#define UART_CLOCK	115200

void console_init(void)
{
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DLL, UART_CLOCK / 115200);
	outb(COM1 + UART_DLM, 0);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, 0x07);	/* enable and clear FIFOs */
	outb(COM1 + UART_MCR, 0x03);	/* DTR, RTS */
}

static void uart_putc(char c)
{
	/* Bounded: a UART that never drains (no device) must not hang the kernel. */
	for (int i = 0; i < 100000 && !(inb(COM1 + UART_LSR) & LSR_THRE); i++)
		pause();
	outb(COM1 + UART_THR, (unsigned char)c);
}

void console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}

void console_drain(void)
{
	for (int i = 0; i < 100000 && !(inb(COM1 + UART_LSR) & LSR_TEMT); i++)
		pause();
}
