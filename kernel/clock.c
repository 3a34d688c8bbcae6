/* The clocks: from the TSC, realtime anchored to the CMOS clock at boot. */
#include "clock.h"
#include "rtc.h"
#include "spinlock.h"
#include "task.h"
#include "tsc.h"
#include <asm-generic/errno.h>
#include <linux/time.h>

uint32_t clock_tsc_mult, clock_tsc_shift;
static uint64_t realtime_base_ns;	/* realtime at TSC 0 */

void clock_init(void)
{
	clock_tsc_shift = 32;
	do {
		clock_tsc_shift--;
		clock_tsc_mult = (uint32_t)(((1ull << clock_tsc_shift) * NSEC_PER_SEC) / tsc_hz);
	} while (((1ull << clock_tsc_shift) * NSEC_PER_SEC) / tsc_hz > 0xffffffffull);
}

uint64_t clock_monotonic_ns(void)
{
	return tsc_to_ns(rdtsc());
}

/* Read from the CMOS clock by the first caller (no boot pays for it),
 * which clock_gettime may be on several CPUs at once: the lock keeps two
 * from driving the CMOS index port together. */
static struct spinlock realtime_lock = SPINLOCK_INIT("realtime base");

uint64_t clock_realtime_ns(void)
{
	if (unlikely(!READ_ONCE(realtime_base_ns))) {
		uint64_t flags = spin_lock_irqsave(&realtime_lock);
		if (!realtime_base_ns)
			WRITE_ONCE(realtime_base_ns,
				   rtc_read_epoch() * NSEC_PER_SEC - clock_monotonic_ns());
		spin_unlock_irqrestore(&realtime_lock, flags);
	}
	return READ_ONCE(realtime_base_ns) + clock_monotonic_ns();
}


int clock_read_ns(long clockid, uint64_t *ns)
{
	switch (clockid) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		*ns = clock_realtime_ns();
		return 0;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		*ns = clock_monotonic_ns();
		return 0;
	case CLOCK_PROCESS_CPUTIME_ID:
		*ns = tsc_to_ns(task_process_cputime_tsc(current));
		return 0;
	case CLOCK_THREAD_CPUTIME_ID:
		*ns = tsc_to_ns(task_cputime_tsc(current));
		return 0;
	default:
		return -EINVAL;
	}
}
