/* Files out to the host through a channel the console cannot mix with: the
 * second serial port (COM2), or, with hostout=com1 on a machine that has one
 * port, text frames inside the console's stream. tests/qemu/hostout.py
 * extracts them and checks their CRC-32.
 *
 * COM2 carries binary frames, one after another, integers little-endian:
 *   "PMUOSOUT", u32 path length, the path, u64 data length, the data,
 *   u32 CRC-32 of the data.
 * COM1 carries the same as lines (the data base64, 57 bytes a line, each line
 * after a ':' so a console line that strays in between is told apart):
 *   === pmuos-out BEGIN <length> <path>
 *   :<base64>
 *   === pmuos-out END <crc32, 8 hex digits>
 */
#pragma once
#include "kernel.h"

#define HOSTOUT_PATH_MAX 256

/* Pick the channel from the command line (hostout=com1) or COM2's presence. */
void hostout_init(void);
bool hostout_available(void);

/* One file in pieces: begin, writes that add up to exactly len bytes, end.
 * begin is false when there is no channel or the path has control
 * characters or is longer than HOSTOUT_PATH_MAX. Call with nothing else
 * sending files; the pieces may come from anywhere (file pages are not
 * contiguous). */
bool hostout_begin(const char *path, uint64_t len);
void hostout_write(const void *data, size_t n);
void hostout_end(void);

/* One file from contiguous memory. */
bool hostout_file(const char *path, const void *data, size_t len);

/* hostout.selftest=N on the command line: send N bytes of a fixed pattern as
 * hostout-selftest.bin, for the host to prove the channel (tests/qemu/hostout.py
 * --check-selftest). */
void hostout_selftest(void);
