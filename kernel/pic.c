/* The legacy 8259 PICs: remapped away from the exception vectors, then masked
 * (the BIOS leaves IRQ0 on vector 8, where a tick looks like a double fault). */
#include "apic.h"
#include "x86.h"

#define PIC1_CMD	0x20
#define PIC1_DATA	0x21
#define PIC2_CMD	0xa0
#define PIC2_DATA	0xa1
#define ICW1_INIT_ICW4	0x11
#define ICW4_8086	0x01

void pic_disable(void)
{
	outb(PIC1_CMD, ICW1_INIT_ICW4);
	outb(PIC2_CMD, ICW1_INIT_ICW4);
	outb(PIC1_DATA, 0x20);		/* vector base */
	outb(PIC2_DATA, 0x28);
	outb(PIC1_DATA, 4);		/* slave on IRQ2 */
	outb(PIC2_DATA, 2);
	outb(PIC1_DATA, ICW4_8086);
	outb(PIC2_DATA, ICW4_8086);
	outb(PIC1_DATA, 0xff);		/* mask everything */
	outb(PIC2_DATA, 0xff);
}
