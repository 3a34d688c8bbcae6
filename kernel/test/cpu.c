/* Self-tests of the CPU side: features, the timer queue, NMIs, exception
 * fixups, formatting, and the test-only command-line switches. */
#include "../ktest.h"
#include "../apic.h"
#include "../cmdline.h"
#include "../cpu.h"
#include "../gdt.h"
#include "../cpu_stats.h"
#include "../nmi.h"
#include "../panic.h"
#include "../timer.h"
#include "../traps.h"
#include "../tsc.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../lib/vsprintf.h"

KTEST(cpu_protection_features_on)
{
	uint64_t cr4 = read_cr4();

	KEXPECT(read_cr0() & CR0_WP);
	KEXPECT(!!(cr4 & CR4_SMEP) == cpu_caps.smep);
	KEXPECT(!!(cr4 & CR4_SMAP) == cpu_caps.smap);
	KEXPECT(!!(rdmsr(MSR_EFER) & EFER_NXE) == cpu_caps.nx);
	KEXPECT(tsc_hz > 0 && apic_timer_hz > 0);
}

static unsigned long fired[3];
static unsigned fire_order[3], nr_fired;

static void on_timer(struct timer *t, struct pt_regs *regs)
{
	fired[t->deadline % 3] = rdtsc();
	fire_order[nr_fired++] = t->deadline % 3;
}

/* Wait with interrupts on until n timers fired, at most limit interrupts. */
static void wait_fired(unsigned n)
{
	unsigned long start = timer_interrupts;

	while (nr_fired < n && timer_interrupts - start < 100)
		sti_hlt();
	cli();
}

KTEST(timer_interrupt_arrives)
{
	struct timer t = { .fn = on_timer };
	uint64_t deadline = rdtsc() + ns_to_tsc(50000);

	deadline += (3 - deadline % 3) % 3;	/* slot 0 */
	nr_fired = 0;
	timer_add(&t, deadline);
	wait_fired(1);
	KEXPECT_EQ(nr_fired, 1);
	KEXPECT(fired[0] >= deadline);
	KEXPECT(!t.pending);
}

KTEST(timer_queue_fires_in_deadline_order)
{
	struct timer t[3] = { { .fn = on_timer }, { .fn = on_timer }, { .fn = on_timer } };
	/* Each deadline's remainder mod 3 names its timer: steps keep it. */
	uint64_t now = rdtsc(), step = ns_to_tsc(20000) / 3 * 3;
	uint64_t base = now - now % 3 + 3 * step;

	nr_fired = 0;
	timer_add(&t[2], base + 3 * step + 2);	/* slot 2, last */
	timer_add(&t[0], base + 0);		/* slot 0, first */
	timer_add(&t[1], base + 2 * step + 1);	/* slot 1 */
	wait_fired(3);
	KEXPECT_EQ(nr_fired, 3);
	KEXPECT(fire_order[0] == 0 && fire_order[1] == 1 && fire_order[2] == 2);
	/* A deleted timer never fires. */
	nr_fired = 0;
	timer_add(&t[0], rdtsc() + step);
	timer_del(&t[0]);
	KEXPECT(!t[0].pending);
}

static volatile bool nmi_armed;
static volatile uint64_t nmi_frame;

static bool test_nmi(struct pt_regs *regs)
{
	if (!nmi_armed)
		return false;
	nmi_armed = false;
	nmi_frame = (uint64_t)regs;
	return true;
}

KTEST(self_nmi_runs_on_ist_stack)
{
	static bool registered;
	uint64_t top = ist_stack_top(IST_NMI);
	unsigned long before = this_cpu_stats()->nmis;

	if (!registered)
		nmi_register(test_nmi);
	registered = true;
	nmi_frame = 0;
	nmi_armed = true;
	/* Interrupts off: an NMI arrives regardless. */
	uint64_t flags = irq_save();
	apic_send_self(APIC_DM_NMI, 0);
	for (int i = 0; i < 1000000 && nmi_armed; i++)
		pause();
	irq_restore(flags);
	KEXPECT(!nmi_armed);
	KEXPECT_EQ(this_cpu_stats()->nmis, before + 1);
	KEXPECT(nmi_frame < top && nmi_frame >= top - 16 * KiB);
}

KTEST(rdmsr_safe_reads_efer)
{
	uint64_t v = 0;

	KEXPECT_EQ(rdmsr_safe(MSR_EFER, &v), 0);
	KEXPECT(v & (1ul << 10));	/* EFER.LMA: we run in long mode */
}

KTEST(vsnprintf_formats)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%d|%5u|%-4s|%08lx|%c|%lld", -42, 7u, "ab",
		 0xbeeful, 'z', -9000000000ll);
	KEXPECT(!strcmp(buf, "-42|    7|ab  |0000beef|z|-9000000000"));
	KEXPECT_EQ(snprintf(buf, 4, "%s", "truncated"), 9);
	KEXPECT(!strcmp(buf, "tru"));
}

/* Test-only switches, so the harness can prove it sees failures and panics. */
KTEST(cmdline_fail_switch)
{
	KEXPECT(!cmdline_flag("ktest.fail"));
}

KTEST(cmdline_panic_switch)
{
	if (cmdline_flag("ktest.panic"))
		panic("ktest.panic=1 asked for a panic");
}
