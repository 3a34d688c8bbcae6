/* The serial console as a terminal: descriptors 0, 1 and 2. */
#pragma once
#include <stdbool.h>

struct fd_table;

/* Open the console as fds 0, 1, 2 (read-write, as Linux's /dev/console). */
int tty_open_std(struct fd_table *t);
/* From the UART interrupt, with interrupts off: can the line discipline take
 * a byte now? When not, the UART keeps the rest (its FIFO, then the sender)
 * until console_rx_unthrottle(). */
bool tty_receive_room(void);
/* One received byte: input flags, editing, echo, signals (n_tty.c). */
void tty_receive(unsigned char c);
