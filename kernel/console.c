/* The COM1 serial console (16550 UART): output polled, input by interrupt into
 * the line discipline. Bytes that arrive before the kernel are never flushed:
 * the UART and its sender (QEMU, a terminal server) hold them until read. */
#include "console.h"
#include "ioapic.h"
#include "traps.h"
#include "tty.h"
#include "x86.h"
#include <linux/serial_reg.h>

#define COM1		0x3f8
#define COM1_IRQ	4
#define UART_CLOCK	115200	/* the divisor latch counts in units of 1/115200 s */
#define IIR_FIFOS_ON	0xc0	/* UART_IIR bits 7:6 read 11 while the FIFOs are enabled */

void console_init(void)
{
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, UART_LCR_DLAB);
	outb(COM1 + UART_DLL, UART_CLOCK / 115200);
	outb(COM1 + UART_DLM, 0);
	outb(COM1 + UART_LCR, UART_LCR_WLEN8);
	/* OUT2 gates the UART's interrupt onto the ISA line on PCs. */
	outb(COM1 + UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
}

void console_putc(char c)
{
	/* Bounded: a UART that never drains (no device) must not hang the kernel. */
	for (int i = 0; i < 100000 && !(inb(COM1 + UART_LSR) & UART_LSR_THRE); i++)
		pause();
	outb(COM1 + UART_TX, (unsigned char)c);
}

void console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			console_putc('\r');
		console_putc(s[i]);
	}
}

void console_drain(void)
{
	for (int i = 0; i < 100000 && !(inb(COM1 + UART_LSR) & UART_LSR_TEMT); i++)
		pause();
}

/* Hand each received byte to the line discipline; when it is full, stop
 * receiving and leave the rest where it is (no byte is dropped here). */
static void receive(void)
{
	while (inb(COM1 + UART_LSR) & UART_LSR_DR) {
		if (!tty_receive_room()) {
			outb(COM1 + UART_IER, 0);
			return;
		}
		tty_receive(inb(COM1 + UART_RX));
	}
}

static void uart_interrupt(struct pt_regs *regs)
{
	receive();
}

void console_rx_init(void)
{
	irq_register(IRQ_VECTOR_COM1, uart_interrupt);
	ioapic_route_isa(COM1_IRQ, IRQ_VECTOR_COM1);
	/* Switching the FIFOs on clears them (16550 datasheet, FCR bit 0):
	 * take the byte a FIFO-less UART may hold first (one arriving in the
	 * few instructions between is lost). A loader that left them on (GRUB
	 * does) keeps its trigger level. */
	if ((inb(COM1 + UART_IIR) & IIR_FIFOS_ON) != IIR_FIFOS_ON) {
		receive();
		outb(COM1 + UART_FCR, UART_FCR_ENABLE_FIFO | UART_FCR_TRIGGER_1);
	}
	/* With data already waiting, this raises the interrupt at once. */
	outb(COM1 + UART_IER, UART_IER_RDI);
}

void console_rx_unthrottle(void)
{
	outb(COM1 + UART_IER, UART_IER_RDI);
}
