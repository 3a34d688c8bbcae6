/* The initramfs and the tree built at boot. */
#pragma once
#include <stddef.h>

/* Unpack a cpio newc archive (or several, back to back) into the root:
 * the number of entries made, or -EINVAL for a damaged archive (what came
 * before the damage stays). */
int initramfs_unpack(const void *archive, size_t size);
/* Make "/" from the boot modules' archives and mount /dev, /proc, /sys. */
void fs_init(void);
/* The synthetic file systems, mounted by fs_init. */
int sysfs_mount(void);
int proc_mount(void);
/* Send the regular files under dir to the host (hostout), at halt. */
void outdir_send(const char *dir);
