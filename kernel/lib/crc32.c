/* CRC-32 (IEEE 802.3), a byte at a time from a table built on first use. */
#include "crc32.h"

static uint32_t table[256];

static void build_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
}

uint32_t crc32(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;

	if (!table[1])
		build_table();
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
