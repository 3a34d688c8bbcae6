/* tests/unit/uaccess.h: user memory for host tests of kernel code. One window of host
 * memory stands for user space; a copy that leaves it faults part way, as a kernel user copy
 * does at an unmapped page: the bytes before the window's end are copied, then -EFAULT.
 * The kernel's copy_from_user, copy_to_user and clear_user are these. */
#ifndef UNIT_UACCESS_H
#define UNIT_UACCESS_H

#include <stdbool.h>
#include <stddef.h>

/* User space is [base, base + len); writable says whether copies to it succeed. */
void uaccess_window(void *base, size_t len, bool writable);
/* Copies into user space so far (put_user's write-back of attr.size, for instance). */
extern unsigned uaccess_writes;

#endif
