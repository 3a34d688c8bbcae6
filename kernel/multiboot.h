/* What the boot loader told us, copied out of the multiboot1 or multiboot2 info
 * before that memory is reused. */
#pragma once
#include <stdint.h>

#define BOOT_MMAP_MAX	128
#define BOOT_MODULES_MAX 32
#define BOOT_CMDLINE_MAX 512

struct boot_mem_region {
	uint64_t base, length;
	uint32_t type;		/* 1 = available RAM (both specs, as E820) */
};

struct boot_module {
	uint64_t start, end;	/* physical */
	char cmdline[BOOT_CMDLINE_MAX];
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	char loader[64];
	struct boot_mem_region mmap[BOOT_MMAP_MAX];
	int nr_mmap;
	struct boot_module modules[BOOT_MODULES_MAX];
	int nr_modules;
	uint8_t rsdp[36];	/* a copy of the ACPI RSDP (ACPI 6.4 5.2.5.3) */
	int rsdp_size;		/* 0 if the loader gave no ACPI tag (multiboot1 never does) */
	uint64_t info_phys, info_size;
};

#define MULTIBOOT2_BOOTLOADER_MAGIC 0x36d76289
#define MULTIBOOT_BOOTLOADER_MAGIC 0x2badb002	/* multiboot1 */
#define MULTIBOOT_MEMORY_AVAILABLE 1

extern struct boot_info boot_info;

/* Parse the info at physical address info_phys (multiboot1 or 2 by magic),
 * reachable through the boot mapping of the first GiB at the kernel's
 * virtual base. Everything the info points to must lie in that GiB. */
void multiboot_parse(uint32_t magic, uint64_t info_phys);
