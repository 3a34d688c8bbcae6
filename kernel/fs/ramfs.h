/* The RAM file system: "/" (rootfs) and /dev (devtmpfs). */
#pragma once
#include "../kernel.h"

struct inode;
struct super_block;
struct file_ops;

/* A new file system of this kind with an empty root directory. */
struct super_block *ramfs_new(const char *type, const char *source, long magic);
struct inode *ramfs_new_inode(struct super_block *sb, unsigned mode);
/* The frame holding page index of a regular file (physical), allocated
 * zeroed when alloc; 0 for a hole (or no memory, when alloc). */
uint64_t ramfs_page(struct inode *n, uint64_t index, bool alloc);
/* Read or write n bytes at pos of a regular file, from or to a user
 * buffer (RW_USER) or a kernel one: the bytes moved (short at the end of
 * the file, or when memory or the user buffer fails), or an errno. */
#define RW_WRITE	0x1
#define RW_USER		0x2
long ramfs_rw(struct inode *n, uint64_t pos, void *buf, size_t len, unsigned how);
struct file;
struct vma;
/* mmap of a regular file: shared mappings map its frames. */
long ramfs_file_mmap(struct file *f, struct vma *vma);
/* Frames that hold file data, for the accounting file. */
extern long ramfs_pages;

/* Open regular files of the RAM file system. */
extern const struct file_ops ramfs_file_ops;
