/* The COM1 serial console (16550 UART), polled: no interrupts, no buffering. */
#include "console.h"
#include "uart.h"

void console_init(void)
{
	uart_init(COM1);
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
	uart_wait(COM1, LSR_TEMT);
}
