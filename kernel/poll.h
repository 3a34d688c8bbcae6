/* Readiness and waiting shared by poll, ppoll, select, pselect6 and epoll
 * (sys_poll.c). */
#pragma once
#include "kernel.h"

struct file;
struct __kernel_timespec;

/* A deadline for task_wait: 0 waits forever, POLL_NO_WAIT returns at once. */
#define POLL_NO_WAIT	1ul

/* The events f is ready for now (Linux's vfs_poll; a file without a poll
 * op is always readable and writable). */
unsigned file_poll(struct file *f);
/* A relative timeout as a deadline; -EINVAL when ts is not a valid time. */
int poll_deadline(const struct __kernel_timespec *ts, uint64_t *deadline);
/* Time left before deadline in ns (0 when past, or for POLL_NO_WAIT). */
uint64_t poll_time_left(uint64_t deadline);
/* Install the temporary signal mask of ppoll/pselect6/epoll_pwait (none if
 * usigmask is 0) until the syscall returns (signal_mask_until_return). */
int poll_sigmask_set(long usigmask, long sigsetsize);
