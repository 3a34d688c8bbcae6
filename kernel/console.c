/* The COM1 serial console (16550 UART): output polled, input by interrupt into
 * the line discipline. Bytes that arrive before the kernel are never flushed:
 * the UART and its sender (QEMU, a terminal server) hold them until read. */
#include "console.h"
#include "ioapic.h"
#include "traps.h"
#include "tty.h"
#include "uart.h"

#define COM1_IRQ	4
#define IIR_FIFOS_ON	0xc0	/* UART_IIR bits 7:6 read 11 while the FIFOs are enabled */

void console_init(void)
{
	uart_init(COM1);
}

void console_putc(char c)
{
	uart_putc(COM1, c);
}

void console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc(COM1, '\r');
		uart_putc(COM1, s[i]);
	}
}

void console_drain(void)
{
	uart_wait(COM1, UART_LSR_TEMT);
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
