/* The serial console as a terminal: descriptors 0, 1 and 2. */
#pragma once

struct file;

/* /dev/tty, /dev/console, /dev/ttyS0: the console's file ops on f. */
int tty_open(struct file *f);

