/* user/lib/file.h: whole-file reads and writes for the tests (/proc, /sys and regular files). */
#ifndef USER_FILE_H
#define USER_FILE_H

#include <stddef.h>

/* The file's text, up to size - 1 bytes, into buf, NUL-terminated; its length, or -1 when it
 * cannot be opened or a read fails. */
long slurp(const char *path, char *buf, size_t size);
/* One write of text (a /proc or /sys setting): the bytes written, or -1 with the write's or
 * the open's errno. */
long write_text(const char *path, const char *text);

#endif
