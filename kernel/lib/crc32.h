/* CRC-32 of IEEE 802.3 (reflected, polynomial 0xedb88320): the one zlib's
 * crc32() and Python's zlib.crc32() compute, so the host can check our bytes. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* Start with crc = 0; feed the result back in for the next piece. */
uint32_t crc32(uint32_t crc, const void *data, size_t n);
