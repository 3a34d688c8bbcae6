/* Pipes and FIFOs (pipe.c): Linux's pipe_inode_info, a ring of page slots. */
#pragma once
#include "kernel.h"

struct file;
struct inode;

/* Open a FIFO node (mknod S_IFIFO), or a pipe again through /proc/PID/fd/N,
 * with Linux's blocking rules; dev_open's answer for S_IFIFO inodes. */
int fifo_open(struct inode *n, struct file *f);
/* F_GETPIPE_SZ / F_SETPIPE_SZ; -EBADF when f is not a pipe. */
long pipe_fcntl(struct file *f, unsigned cmd, unsigned long arg);
/* The pseudo file system of pipes' inodes (fs_init: before any pipe). */
int pipefs_init(void);
/* Pipes alive (accounting). */
extern long pipes_alive;
