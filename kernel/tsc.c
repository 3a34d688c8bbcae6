/* TSC and LAPIC timer frequencies: from CPUID leaf 0x15 where the CPU states
 * them, else measured against 1 ms of the 8254 PIT's channel 2 (under QEMU's
 * icount, each PIT read is a slow exit: 10 ms took some 1.5 s of wall time;
 * the count's own length, not the nominal 1 ms, gives the rate). */
#include "tsc.h"
#include "apic.h"
#include "cpu.h"
#include "x86.h"

#define PIT_HZ		1193182
#define PIT_CH2		0x42
#define PIT_MODE	0x43
#define PIT_GATE_PORT	0x61	/* bit 0 gate, bit 1 speaker, bit 5 OUT2 */
#define PIT_MS		1

uint64_t tsc_hz;
uint64_t apic_timer_hz;
const char *tsc_source = "PIT calibration";

static void calibrate_with_pit(void)
{
	uint32_t count = PIT_HZ * PIT_MS / 1000;

	/* Gate on, speaker off; channel 2, lobyte/hibyte, mode 0 (count down). */
	outb(PIT_GATE_PORT, (inb(PIT_GATE_PORT) & ~0x02) | 0x01);
	outb(PIT_MODE, 0xb0);
	apic_write(APIC_TIMER_DIV, APIC_TIMER_DIV_1);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | APIC_TIMER_ONESHOT);
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	apic_write(APIC_TIMER_INIT, 0xffffffff);
	uint64_t t0 = rdtsc();
	while (!(inb(PIT_GATE_PORT) & 0x20))
		pause();
	uint64_t t1 = rdtsc();
	uint32_t left = apic_read(APIC_TIMER_CUR);
	apic_write(APIC_TIMER_INIT, 0);

	tsc_hz = (t1 - t0) * PIT_HZ / count;
	apic_timer_hz = (uint64_t)(0xffffffffu - left) * PIT_HZ / count;
}

void tsc_init(void)
{
	uint32_t a = 0, b = 0, c = 0, d = 0;

	calibrate_with_pit();
	/* Leaf 0x15: TSC = crystal * EBX / EAX; the LAPIC timer runs at the
	 * crystal clock (SDM Vol. 3B 18.7.3). Trust it only when complete. */
	if (cpu_caps.vendor == VENDOR_INTEL && cpu_caps.max_leaf >= 0x15)
		cpuid_count(0x15, 0, &a, &b, &c, &d);
	if (a && b && c) {
		tsc_hz = (uint64_t)c * b / a;
		apic_timer_hz = c;
		tsc_source = "CPUID 0x15";
	}
}

/* a * b / c without 128-bit division (no libgcc): exact while c * b fits in
 * 64 bits, true for frequencies up to 18 GHz. */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return a / c * b + a % c * b / c;
}

uint64_t tsc_to_ns(uint64_t cycles)
{
	return mul_div(cycles, 1000000000u, tsc_hz);
}

uint64_t ns_to_tsc(uint64_t ns)
{
	return mul_div(ns, tsc_hz, 1000000000u);
}
