/* The COM1 serial console (16550 UART): output polled, input by interrupt into
 * the line discipline. Bytes that arrive before the kernel are never flushed:
 * the UART and its sender (QEMU, a terminal server) hold them until read. */
#include "console.h"
#include "ioapic.h"
#include "percpu.h"
#include "traps.h"
#include "tty.h"
#include "uart.h"

#define COM1_IRQ	4
#define IIR_FIFOS_ON	0xc0	/* UART_IIR bits 7:6 read 11 while the FIFOs are enabled */

void console_init(void)
{
	uart_init(COM1);
}

/* One writer at a time, so that two CPUs' messages never interleave. Not a
 * struct spinlock: an NMI or exception that prints (a PMI's message, a
 * panic) may come while its CPU holds it, and then writes inside the
 * holder's message rather than wait for itself. The holder waits for
 * nothing but the UART, so the others' wait is short. */
static int console_owner = -1;

/* Interrupts off, and the console this CPU's; false when it was already
 * (nothing to release then). */
static bool console_lock(uint64_t *flags)
{
	int me = smp_processor_id(), free = -1;

	*flags = irq_save();
	if (READ_ONCE(console_owner) == me)
		return false;
	while (!__atomic_compare_exchange_n(&console_owner, &free, me, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		free = -1;
		pause();
	}
	return true;
}

static void console_unlock(bool taken, uint64_t flags)
{
	if (taken)
		__atomic_store_n(&console_owner, -1, __ATOMIC_RELEASE);
	irq_restore(flags);
}

void console_putc(char c)
{
	uint64_t flags;
	bool taken = console_lock(&flags);

	uart_putc(COM1, c);
	console_unlock(taken, flags);
}

void console_write(const char *s, size_t n)
{
	uint64_t flags;
	bool taken = console_lock(&flags);

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc(COM1, '\r');
		uart_putc(COM1, s[i]);
	}
	console_unlock(taken, flags);
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
