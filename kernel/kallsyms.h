/* The kernel's own symbol table, embedded by the build (Makefile: a link,
 * nm, a generated kallsyms.c, two more links), for /proc/kallsyms. */
#pragma once

extern const unsigned long kallsyms_num;
extern const unsigned long kallsyms_addresses[];	/* sorted, as nm -n gives them */
extern const char kallsyms_types[];			/* nm's type letter of each */
extern const char kallsyms_names[];			/* each NUL-terminated, in order */
