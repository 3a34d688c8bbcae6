/* The kernel command line: space-separated key=value words. */
#include "cmdline.h"
#include "multiboot.h"
#include "lib/string.h"

bool cmdline_get(const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = boot_info.cmdline; *p;) {
		while (*p == ' ')
			p++;
		const char *end = p;
		while (*end && *end != ' ')
			end++;
		if (!strncmp(p, key, klen) && (p + klen == end || p[klen] == '=')) {
			const char *v = p + klen + (p + klen < end);
			size_t n = end - v < (long)size - 1 ? (size_t)(end - v) : size - 1;
			memcpy(buf, v, n);
			buf[n] = '\0';
			return true;
		}
		p = end;
	}
	return false;
}

bool cmdline_flag(const char *key)
{
	char v[8];

	return cmdline_get(key, v, sizeof(v)) && (!v[0] || !strcmp(v, "1"));
}

unsigned long cmdline_ulong(const char *key, unsigned long def)
{
	char v[24];
	unsigned long n = 0;

	if (!cmdline_get(key, v, sizeof(v)) || !v[0])
		return def;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9')
			return def;
		n = n * 10 + (*p - '0');
	}
	return n;
}
