/* Kernel messages on the console. */
#pragma once

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
