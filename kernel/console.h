/* The COM1 serial console: kernel messages out, the terminal's bytes both ways. */
#pragma once
#include <stddef.h>

void console_init(void);
/* Kernel messages: each \n goes out as \r\n; one call's bytes go out
 * together, whatever the other CPUs print (an NMI's inside its CPU's). */
void console_write(const char *s, size_t n);
/* One byte as it is (the terminal's output processing is n_tty's). */
void console_putc(char c);
/* Wait until the UART has sent everything (before QEMU exits). */
void console_drain(void);
/* Receive by interrupt from here on (the I/O APIC is up). */
void console_rx_init(void);
/* The line discipline has room again: take what the UART holds. */
void console_rx_unthrottle(void);
