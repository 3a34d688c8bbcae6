/* The 16550 UART, polled (the console on COM1, files to the host on COM2):
 * register names from the PC16550D data sheet. */
#pragma once
#include "x86.h"

#define COM1		0x3f8
#define COM2		0x2f8
#define UART_THR	0	/* transmit holding register */
#define UART_IER	1	/* interrupt enable */
#define UART_DLL	0	/* divisor latch, with LCR.DLAB */
#define UART_DLM	1
#define UART_FCR	2	/* FIFO control */
#define UART_LCR	3	/* line control */
#define UART_MCR	4	/* modem control */
#define UART_LSR	5	/* line status */
#define UART_SCR	7	/* scratch: no function, but it holds what is written */
#define LCR_DLAB	0x80
#define LCR_8N1		0x03
#define LSR_THRE	0x20	/* transmit holding register (and FIFO) empty */
#define LSR_TEMT	0x40	/* transmitter empty: the last bit is out */
#define UART_CLOCK	115200
#define UART_FIFO_SIZE	16	/* the 16550A's transmit FIFO */
/* Bounded waits: a UART that never drains (no device) must not hang the kernel. */
#define UART_WAIT_LOOPS	100000

static inline void uart_init(uint16_t port)
{
	outb(port + UART_IER, 0);
	outb(port + UART_LCR, LCR_DLAB);
	outb(port + UART_DLL, UART_CLOCK / 115200);
	outb(port + UART_DLM, 0);
	outb(port + UART_LCR, LCR_8N1);
	outb(port + UART_FCR, 0x07);	/* enable and clear FIFOs */
	outb(port + UART_MCR, 0x03);	/* DTR, RTS */
}

/* Where no UART answers, reads float to 0xff: a scratch register that keeps
 * two different values is a UART (the probe Linux's 8250 driver makes). */
static inline bool uart_present(uint16_t port)
{
	outb(port + UART_SCR, 0x5a);
	if (inb(port + UART_SCR) != 0x5a)
		return false;
	outb(port + UART_SCR, 0xa5);
	return inb(port + UART_SCR) == 0xa5;
}

static inline void uart_wait(uint16_t port, uint8_t lsr_bit)
{
	for (int i = 0; i < UART_WAIT_LOOPS && !(inb(port + UART_LSR) & lsr_bit); i++)
		pause();
}

static inline void uart_putc(uint16_t port, char c)
{
	uart_wait(port, LSR_THRE);
	outb(port + UART_THR, (unsigned char)c);
}
