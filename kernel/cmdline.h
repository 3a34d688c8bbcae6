/* The kernel command line: space-separated key=value words. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

/* The value of key=value into buf (empty for a bare key); false if absent. */
bool cmdline_get(const char *key, char *buf, size_t size);
/* key or key=1 present. */
bool cmdline_flag(const char *key);
/* A numeric value, or def when absent or malformed. */
unsigned long cmdline_ulong(const char *key, unsigned long def);
