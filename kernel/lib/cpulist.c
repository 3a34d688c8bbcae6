/* CPU masks in Linux's text forms: see cpulist.h. */
#include "cpulist.h"
#include "vsprintf.h"

int cpulist_format(char *buf, size_t size, uint64_t mask)
{
	int len = 0;

	for (int lo = 0; lo < 64; lo++) {
		if (!(mask & BIT_ULL(lo)))
			continue;
		int hi = lo;
		while (hi < 63 && (mask & BIT_ULL(hi + 1)))
			hi++;
		size_t at = MIN((size_t)len, size);
		len += hi == lo ? snprintf(buf + at, size - at, "%s%d", len ? "," : "", lo) :
				  snprintf(buf + at, size - at, "%s%d-%d", len ? "," : "", lo, hi);
		lo = hi;
	}
	if (!len && size)
		buf[0] = '\0';
	return len;
}

int cpumask_format(char *buf, size_t size, uint64_t mask, int nbits)
{
	int digits = (nbits + 3) / 4;

	if (digits <= 8)
		return snprintf(buf, size, "%0*x", digits, (uint32_t)mask);
	return snprintf(buf, size, "%0*x,%08x", digits - 8, (uint32_t)(mask >> 32),
			(uint32_t)mask);
}
