/* The file system tree at boot, as Linux builds it for an initramfs: a RAM
 * root (rootfs, tmpfs-backed on Linux 6.1), every cpio archive among the
 * boot modules unpacked into it in order, then /dev, /proc and /sys
 * mounted (by the kernel here: there is no mount(2) for /init to call). */
#include "dev.h"
#include "initramfs.h"
#include "ramfs.h"
#include "vfs.h"
#include "../multiboot.h"
#include "../pipe.h"
#include "../panic.h"
#include "../printk.h"
#include "../lib/string.h"
#include "../mm/frames.h"
#include "../mm/paging.h"
#include <linux/magic.h>

static bool is_cpio(const void *p, size_t size)
{
	return size >= 6 && (!memcmp(p, "070701", 6) || !memcmp(p, "070702", 6));
}

void fs_init(void)
{
	struct super_block *root = ramfs_new("rootfs", "rootfs", TMPFS_MAGIC);
	int files = 0, err;

	if (!root)
		panic("no memory for the root file system");
	vfs_set_root(root);
	for (int i = 0; i < boot_info.nr_modules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		const void *p = phys_to_virt(m->start);
		if (!is_cpio(p, m->end - m->start)) {
			printk("pmuos: module %d is not a cpio archive: ignored\n", i);
			continue;
		}
		if ((err = initramfs_unpack(p, m->end - m->start)) < 0)
			printk("pmuos: module %d: initramfs error %d\n", i, err);
		else
			files += err;
		frames_release(m->start, m->end);	/* its bytes are files now */
	}
	if ((err = dev_init()) || (err = proc_mount()) || (err = sysfs_mount()) ||
	    (err = pipefs_init()))
		panic("cannot mount /dev, /proc, /sys or pipefs: error %d", err);
	printk("pmuos: initramfs: %d entries\n", files);
}

