/* Character devices and /dev. */
#pragma once
#include <stddef.h>

struct fd_table;
struct file;
struct inode;

/* Make /dev (devtmpfs) with the device nodes and the fd links. */
int dev_init(void);
/* /dev/console as descriptors 0, 1 and 2, as Linux opens them for init. */
int dev_open_console(struct fd_table *t);
/* Open the device a node names (its rdev): sets f->ops, or -ENXIO. */
int dev_open(struct inode *n, struct file *f);
/* n deterministic random bytes into user memory (getrandom, /dev/urandom). */
long dev_random_read(char *ubuf, size_t n);
