/* Formatted output into a buffer, enough of printf for a kernel's messages. */
#include "vsprintf.h"
#include <stdint.h>
#include <stdbool.h>

struct out {
	char *buf;
	size_t size;
	size_t len;	/* what would have been written: snprintf's return */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_number(struct out *o, uint64_t v, bool neg, unsigned base,
		       bool upper, int width, bool zero, bool left)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	int len = n + neg;
	if (neg && zero)
		put(o, '-');
	if (!left)
		for (; len < width; width--)
			put(o, zero ? '0' : ' ');
	if (neg && !zero)
		put(o, '-');
	while (n)
		put(o, tmp[--n]);
	if (left)
		for (; len < width; width--)
			put(o, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		bool zero = false, left = false;
		for (;; fmt++) {
			if (*fmt == '0')
				zero = true;
			else if (*fmt == '-')
				left = true;
			else
				break;
		}
		int width = 0;
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		}
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = width * 10 + (*fmt - '0');
		int lng = 0;
		for (; *fmt == 'l' || *fmt == 'z'; fmt++)
			lng++;

		uint64_t u;
		int64_t s;
		switch (*fmt) {
		case 'd':
		case 'i':
			s = lng ? va_arg(ap, int64_t) : va_arg(ap, int);
			put_number(&o, s < 0 ? -(uint64_t)s : (uint64_t)s, s < 0,
				   10, false, width, zero, left);
			break;
		case 'u':
		case 'o':
		case 'x':
		case 'X':
			u = lng ? va_arg(ap, uint64_t) : va_arg(ap, unsigned);
			put_number(&o, u, false, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16,
				   *fmt == 'X', width, zero, left);
			break;
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_number(&o, (uintptr_t)va_arg(ap, void *), false, 16,
				   false, 16, true, false);
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);
			int n = 0;
			if (!str)
				str = "(null)";
			for (const char *t = str; *t; t++)
				n++;
			if (!left)
				for (; n < width; width--)
					put(&o, ' ');
			while (*str)
				put(&o, *str++);
			if (left)
				for (; n < width; width--)
					put(&o, ' ');
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case '%':
			put(&o, '%');
			break;
		default:
			put(&o, '%');
			if (*fmt)
				put(&o, *fmt);
			else
				fmt--;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
