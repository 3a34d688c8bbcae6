/* The serial console as a terminal: descriptors 0, 1 and 2. */
#pragma once

struct fd_table;
struct file;

/* /dev/tty, /dev/console, /dev/ttyS0: the console's file ops on f. */
int tty_open(struct file *f);

/* Open the console as fds 0, 1, 2 (read-write, as Linux's /dev/console). */
int tty_open_std(struct fd_table *t);
