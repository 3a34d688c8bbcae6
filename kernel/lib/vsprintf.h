/* Formatted output into a buffer: %d %i %u %x %X %p %s %c with l/ll/z, width, 0 and - flags. */
#pragma once
#include <stdarg.h>
#include <stddef.h>

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
