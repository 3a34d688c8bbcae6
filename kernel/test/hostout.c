/* Self-tests of the host channel's checksum, and the pattern the host checks
 * end to end (hostout.selftest=N). */
#include "../cmdline.h"
#include "../hostout.h"
#include "../ktest.h"
#include "../tsc.h"
#include "../x86.h"
#include "../lib/crc32.h"

KTEST(crc32_check_value)
{
	static const char digits[] = "123456789";

	KEXPECT_EQ(crc32(0, digits, 9), 0xcbf43926);	/* the CRC-32 check value */
	KEXPECT_EQ(crc32(crc32(0, digits, 4), digits + 4, 5), 0xcbf43926);
	KEXPECT_EQ(crc32(0, digits, 0), 0);
}

/* Little-endian 32-bit words w[i] = i * 0x9e3779b1: every byte value, no
 * period a dropped or repeated piece could hide in (hostout.py makes the same). */
static uint8_t pattern_byte(uint64_t k)
{
	uint32_t w = (uint32_t)(k / 4) * 0x9e3779b1u;

	return w >> (8 * (k % 4));
}

void hostout_selftest(void)
{
	/* An odd piece size, so text frames carry bytes over from piece to line. */
	uint8_t buf[1021];
	uint64_t n = cmdline_ulong("hostout.selftest", 0);

	if (!n)
		return;
	if (!hostout_begin("hostout-selftest.bin", n)) {
		printk("hostout: selftest: no channel to the host\n");
		return;
	}
	uint64_t start = rdtsc();
	for (uint64_t off = 0; off < n; off += sizeof(buf)) {
		size_t m = MIN(n - off, sizeof(buf));
		for (size_t i = 0; i < m; i++)
			buf[i] = pattern_byte(off + i);
		hostout_write(buf, m);
	}
	hostout_end();
	printk("hostout: selftest: %lu bytes sent in %lu ms of guest time\n", n,
	       (rdtsc() - start) / (tsc_hz / 1000));
}
