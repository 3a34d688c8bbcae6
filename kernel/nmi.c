/* NMI dispatch. Runs on its own IST stack, possibly inside any other kernel code
 * with interrupts off: handlers take no locks, allocate nothing, never fault. */
#include "cpu_stats.h"
#include "nmi.h"
#include "kernel.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "x86.h"

#define NMI_HANDLERS_MAX 8

static nmi_handler_t handlers[NMI_HANDLERS_MAX];
static int nr_handlers;
unsigned long nmi_unknown;

void nmi_register(nmi_handler_t handler)
{
	assert(nr_handlers < NMI_HANDLERS_MAX);
	handlers[nr_handlers] = handler;
	barrier();	/* an NMI right now sees the count only with the handler */
	WRITE_ONCE(nr_handlers, nr_handlers + 1);
}

void nmi_dispatch(struct pt_regs *regs)
{
	bool handled = false;

	this_cpu_stats()->nmis++;
	this_cpu()->nmi_nesting++;
	/* Ask every handler: two sources may have raised one NMI together. */
	for (int i = 0; i < READ_ONCE(nr_handlers); i++)
		handled |= handlers[i](regs);
	this_cpu()->nmi_nesting--;
	/* Said once: the polled UART costs some 90 us a character, too long to
	 * spend in an NMI each time (a PMI that comes after its counter was
	 * stopped, on a PMU without a status register, is one). */
	if (!handled && nmi_unknown++ == 0)
		printk("pmuos: NMI received for unknown reason (counted in nmi_unknown)\n");
}
