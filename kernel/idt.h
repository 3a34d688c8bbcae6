/* The interrupt descriptor table. */
#pragma once
#include <stdint.h>

void idt_init(void);
void idt_set_ist(unsigned vector, int ist);
