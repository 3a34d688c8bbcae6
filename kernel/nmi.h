/* NMI dispatch: every handler is asked; each says whether the NMI was its own. */
#pragma once
#include <stdbool.h>

struct pt_regs;
typedef bool (*nmi_handler_t)(struct pt_regs *regs);

void nmi_register(nmi_handler_t handler);
void nmi_dispatch(struct pt_regs *regs);
/* NMIs no handler claimed (each CPU's NMIs are its cpu_stats' nmis). */
extern unsigned long nmi_unknown;
