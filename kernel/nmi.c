/* NMI dispatch. Runs on its own IST stack, possibly inside any other kernel code
 * with interrupts off: handlers take no locks, allocate nothing, never fault. */
#include "nmi.h"
#include "kernel.h"
#include "panic.h"
#include "printk.h"

#define NMI_HANDLERS_MAX 8

static nmi_handler_t handlers[NMI_HANDLERS_MAX];
static int nr_handlers;
unsigned long nmi_count;

void nmi_register(nmi_handler_t handler)
{
	assert(nr_handlers < NMI_HANDLERS_MAX);
	handlers[nr_handlers++] = handler;
}

void nmi_dispatch(struct pt_regs *regs)
{
	bool handled = false;

	nmi_count++;
	/* Ask every handler: two sources may have raised one NMI together. */
	for (int i = 0; i < nr_handlers; i++)
		handled |= handlers[i](regs);
	if (!handled)
		printk("pmuos: NMI received for unknown reason\n");
}
