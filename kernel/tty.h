/* The serial console as a terminal (/dev/console, /dev/tty, /dev/ttyS0). */
#pragma once
#include <stdbool.h>

struct file;

/* /dev/tty, /dev/console, /dev/ttyS0: the console's file ops on f. */
int tty_open(struct file *f);

/* From the UART interrupt, with interrupts off: can the line discipline take
 * a byte now? When not, the UART keeps the rest (its FIFO, then the sender)
 * until console_rx_unthrottle(). */
bool tty_receive_room(void);
/* One received byte: input flags, editing, echo, signals (n_tty.c). */
void tty_receive(unsigned char c);
