/* The local APIC: x2APIC through MSRs where CPUID offers it, else xAPIC MMIO. */
#include "apic.h"
#include "cpu.h"
#include "panic.h"
#include "traps.h"
#include "x86.h"
#include "mm/vmalloc.h"

#define APIC_BASE_X2APIC	(1ul << 10)
#define APIC_BASE_ENABLE	(1ul << 11)
#define APIC_BASE_ADDR		0xffffff000ul
#define X2APIC_MSR(reg)		(0x800 + ((reg) >> 4))

static volatile uint32_t *xapic;
static bool x2apic;

uint32_t apic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR(reg));
	return xapic[reg / 4];
}

void apic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(X2APIC_MSR(reg), v);
	else
		xapic[reg / 4] = v;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

uint32_t apic_id(void)
{
	uint32_t id = apic_read(APIC_ID);

	return x2apic ? id : id >> 24;
}

bool apic_is_x2apic(void)
{
	return x2apic;
}

void apic_send_ipi(uint32_t dest, uint32_t icr)
{
	if (x2apic) {
		/* One 64-bit write; no delivery-status bit (SDM Vol. 3A 11.12.9). */
		wrmsr(X2APIC_MSR(APIC_ICR), (uint64_t)dest << 32 | icr);
		return;
	}
	uint64_t flags = irq_save();
	apic_write(APIC_ICR_HIGH, dest << 24);
	apic_write(APIC_ICR, icr);
	while (apic_read(APIC_ICR) & APIC_ICR_BUSY)
		pause();
	irq_restore(flags);
}

void apic_send_self(uint32_t delivery_mode, uint8_t vector)
{
	apic_send_ipi(apic_id(), delivery_mode | vector);
}

void apic_init(void)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	x2apic = cpu_caps.x2apic;
	if (!x2apic) {
		/* Every CPU sees its own LAPIC at the same address: one mapping. */
		xapic = ioremap(base & APIC_BASE_ADDR, 4096);
		assert(xapic);
	}
	apic_init_cpu();
}

void apic_init_cpu(void)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	if (x2apic)
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_ENABLE | APIC_BASE_X2APIC);
	else
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_ENABLE);
	apic_write(APIC_TPR, 0);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	apic_write(APIC_LVT_THERMAL, APIC_LVT_MASKED);
	apic_write(APIC_LVT_PERF, APIC_LVT_MASKED);
	apic_write(APIC_LVT_LINT0, APIC_LVT_MASKED);
	apic_write(APIC_LVT_LINT1, APIC_LVT_MASKED);
	apic_write(APIC_LVT_ERROR, APIC_LVT_MASKED);
	apic_write(APIC_SVR, APIC_SVR_ENABLE | IRQ_VECTOR_SPURIOUS);
	apic_write(APIC_ESR, 0);
	apic_eoi();
}
