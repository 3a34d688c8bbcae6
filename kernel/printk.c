/* Kernel messages: format into a stack buffer, then one console write. */
#include "printk.h"
#include "console.h"
#include "lib/vsprintf.h"

int printk(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_write(buf, n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	return n;
}
