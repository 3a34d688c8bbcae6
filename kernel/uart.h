/* The 16550 UART, polled (the console on COM1, files to the host on COM2):
 * register names from Linux's <linux/serial_reg.h> (the PC16550D's). */
#pragma once
#include "x86.h"
#include <linux/serial_reg.h>

#define COM1		0x3f8
#define COM2		0x2f8
#define UART_CLOCK	115200	/* the divisor latch counts in units of 1/115200 s */
#define UART_FIFO_SIZE	16	/* the 16550A's transmit FIFO */
/* Bounded waits: a UART that never drains (no device) must not hang the kernel. */
#define UART_WAIT_LOOPS	100000

/* 115200 8N1, interrupts off, the FIFOs as they are: bytes a receiver
 * holds are never flushed (the console's input keeps them). */
static inline void uart_init(uint16_t port)
{
	outb(port + UART_IER, 0);
	outb(port + UART_LCR, UART_LCR_DLAB);
	outb(port + UART_DLL, UART_CLOCK / 115200);
	outb(port + UART_DLM, 0);
	outb(port + UART_LCR, UART_LCR_WLEN8);
	/* OUT2 gates the UART's interrupt onto the ISA line on PCs. */
	outb(port + UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
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
	uart_wait(port, UART_LSR_THRE);
	outb(port + UART_TX, (unsigned char)c);
}
