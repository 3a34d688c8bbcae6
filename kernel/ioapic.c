/* The I/O APIC (Intel 82093AA datasheet): ISA interrupts into the local APIC, now
 * that the 8259 PICs are masked. Only the serial console uses it. */
#include "ioapic.h"
#include "apic.h"
#include "panic.h"
#include "mm/vmalloc.h"

/* The PC platform's fixed address (MP spec 1.4 3.6.5; QEMU's pc and q35 put it
 * there too): no MADT walk for one device. */
#define IO_APIC_BASE		0xfec00000ul
#define IOAPIC_IOREGSEL		0x00
#define IOAPIC_IOWIN		0x10
#define IOAPIC_VER		0x01
#define IOAPIC_REDTBL(n)	(0x10 + 2 * (n))
#define IOAPIC_VER_MAXREDIR(v)	(((v) >> 16) & 0xff)
#define IOAPIC_RTE_MASKED	(1u << 16)

static volatile uint32_t *ioapic;
static unsigned nr_pins;

static uint32_t ioapic_read(uint32_t reg)
{
	ioapic[IOAPIC_IOREGSEL / 4] = reg;
	return ioapic[IOAPIC_IOWIN / 4];
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
	ioapic[IOAPIC_IOREGSEL / 4] = reg;
	ioapic[IOAPIC_IOWIN / 4] = v;
}

void ioapic_init(void)
{
	ioapic = ioremap(IO_APIC_BASE, 4096);
	assert(ioapic);
	nr_pins = IOAPIC_VER_MAXREDIR(ioapic_read(IOAPIC_VER)) + 1;
	for (unsigned pin = 0; pin < nr_pins; pin++)
		ioapic_write(IOAPIC_REDTBL(pin), IOAPIC_RTE_MASKED);
}

void ioapic_route_isa(unsigned irq, uint8_t vector)
{
	/* ISA IRQs 1-15 other than the timer's sit on the pin of their number
	 * (the MADT's only override on PCs is IRQ0 -> pin 2); fixed delivery,
	 * physical destination, edge triggered, active high: all zeros. */
	assert(irq != 0 && irq < nr_pins);
	ioapic_write(IOAPIC_REDTBL(irq) + 1, apic_id() << 24);
	ioapic_write(IOAPIC_REDTBL(irq), vector);
}
