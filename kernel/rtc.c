/* The CMOS real-time clock (MC146818): date and time in BCD or binary. */
#include "rtc.h"
#include "x86.h"

#define CMOS_INDEX	0x70
#define CMOS_DATA	0x71
#define RTC_SECONDS	0x00
#define RTC_MINUTES	0x02
#define RTC_HOURS	0x04
#define RTC_DAY		0x07
#define RTC_MONTH	0x08
#define RTC_YEAR	0x09
#define RTC_STATUS_A	0x0a	/* bit 7: update in progress */
#define RTC_STATUS_B	0x0b	/* bit 1: 24-hour, bit 2: binary */
#define RTC_CENTURY	0x32	/* the ACPI FADT's usual century register */

static uint8_t cmos(uint8_t reg)
{
	outb(CMOS_INDEX, reg);
	return inb(CMOS_DATA);
}

static unsigned bcd(uint8_t v, bool binary)
{
	return binary ? v : (v >> 4) * 10 + (v & 0xf);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1-12). */
static uint64_t days_from_civil(unsigned y, unsigned m, unsigned d)
{
	y -= m <= 2;
	unsigned era = y / 400, yoe = y - era * 400;
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (uint64_t)era * 146097 + doe - 719468;
}

uint64_t rtc_read_epoch(void)
{
	for (int i = 0; i < 100000 && (cmos(RTC_STATUS_A) & 0x80); i++)
		pause();
	uint8_t b = cmos(RTC_STATUS_B);
	bool binary = b & 4, h24 = b & 2;
	unsigned sec = bcd(cmos(RTC_SECONDS), binary), min = bcd(cmos(RTC_MINUTES), binary);
	uint8_t hraw = cmos(RTC_HOURS);
	unsigned hour = bcd(hraw & 0x7f, binary);
	unsigned day = bcd(cmos(RTC_DAY), binary), mon = bcd(cmos(RTC_MONTH), binary);
	unsigned year = bcd(cmos(RTC_YEAR), binary), century = bcd(cmos(RTC_CENTURY), binary);

	if (!h24)
		hour = hour % 12 + (hraw & 0x80 ? 12 : 0);
	year += century >= 19 && century <= 30 ? century * 100 : 2000;
	if (!mon || mon > 12 || !day || day > 31)
		return 0;
	return days_from_civil(year, mon, day) * 86400 + hour * 3600 + min * 60 + sec;
}
