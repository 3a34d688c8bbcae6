/* pmuos's itrace PMU: its options and the packet format of its AUX data,
 * shared by the kernel's encoder (kernel/pmu/itrace.c) and the userland
 * decoder (user/lib/itrace_decode.c). The README describes the format.
 *
 * The AUX data is a sequence of 64-byte blocks at 64-byte boundaries of
 * the AUX area. Every block starts with an ITRACE_FULL packet; no packet
 * crosses a block boundary; ITRACE_PAD bytes fill the rest of a block.
 * Each packet other than PAD is one user-mode instruction, in execution
 * order: its address is given outright (FULL) or as the distance from the
 * previous packet's address:
 *
 *   0x00                 PAD     no instruction
 *   0x01..0x7f           SHORT   ip += byte            (+1..+127)
 *   0xc0..0xff           BACK    ip += (int8_t)byte    (-64..-1)
 *   0x80                 REPEAT  ip += 0               (a REP string step)
 *   0x82 s16             DELTA16 ip += s16 (little-endian)
 *   0x84 s32             DELTA32 ip += s32
 *   0x88 u64             FULL    ip  = u64
 *   0x81, 0x83, 0x85..0x87, 0x89..0xbf: reserved
 *
 * Each chunk the PMU forwards into the AUX area starts at a block boundary
 * (the PMU skips the bytes up to it with perf_aux_output_skip and fills
 * them with PAD), so a PERF_RECORD_AUX's offset is 64-byte aligned, and a
 * reader can start decoding at any block boundary. */
#ifndef _UAPI_PMUOS_ITRACE_H
#define _UAPI_PMUOS_ITRACE_H

#define PMUOS_ITRACE_PMU_NAME	"itrace"	/* /sys/bus/event_source/devices/itrace/type */

/* attr.config (also in /sys/bus/event_source/devices/itrace/format/) */
#define ITRACE_CONFIG_PERIOD	0xffffull	/* period: config:0-15, flush timer in us (0: 1000) */
#define ITRACE_CONFIG_NOTIMER	(1ull << 16)	/* notimer: config:16, forward only when full or on FLUSH */
#define ITRACE_CONFIG_SLOWPATH	(1ull << 17)	/* slowpath: config:17, every step through the C trap path */
#define ITRACE_CONFIG_MASK	(ITRACE_CONFIG_PERIOD | ITRACE_CONFIG_NOTIMER | ITRACE_CONFIG_SLOWPATH)

#define ITRACE_BLOCK		64	/* block size and alignment, bytes */
#define ITRACE_BUF_SIZE		4096	/* the PMU's internal buffer, bytes */

#define ITRACE_PAD		0x00
#define ITRACE_REPEAT		0x80
#define ITRACE_DELTA16		0x82
#define ITRACE_DELTA32		0x84
#define ITRACE_FULL		0x88
#define ITRACE_SHORT_MAX	127	/* SHORT: 0x01..0x7f */
#define ITRACE_BACK_MIN		(-64)	/* BACK: 0xc0..0xff */
#define ITRACE_MAX_PACKET	9	/* FULL */

#endif
