/* kernel/smap.h: opening and closing SMAP around user accesses (smap.inc is
 * the same for assembly). */
#pragma once

/* SMAP: kernel access to user pages only between stac() and clac(). Each
 * one is recorded in .smap_sites (as smap.inc's are in assembly): on a CPU
 * without SMAP, where both are #UD, cpu.c overwrites them with NOPs at
 * boot, so no path tests a flag for them. */
#define SMAP_SITE(insn)	"661:	" insn "\n"					\
			".pushsection .smap_sites, \"a\"\n.balign 8\n.quad 661b\n.popsection"
static inline void stac(void) { __asm__ volatile(SMAP_SITE("stac") ::: "memory"); }
static inline void clac(void) { __asm__ volatile(SMAP_SITE("clac") ::: "memory"); }
