/* The interrupt descriptor table. */
#pragma once
#include <stdint.h>

void idt_init(void);
void idt_load(void);
void idt_set_ist(unsigned vector, int ist);
/* Route vector to another entry point (its gate keeps type, DPL, IST). */
void idt_set_handler(unsigned vector, void (*entry)(void));
