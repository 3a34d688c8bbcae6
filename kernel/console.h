/* The COM1 serial console: the only output device, at 115200 8N1. */
#pragma once
#include <stddef.h>

void console_init(void);
void console_write(const char *s, size_t n);
/* Wait until the UART has sent everything (before QEMU exits). */
void console_drain(void);
