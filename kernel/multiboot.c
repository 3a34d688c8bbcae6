/* Multiboot boot information: multiboot2 from GRUB (Multiboot2 spec 3.6: memory
 * map, command line, modules, ACPI RSDP), multiboot1 from QEMU's -kernel
 * (Multiboot spec 3.3: the same, less the RSDP). */
#include "multiboot.h"
#include "kernel.h"
#include "panic.h"
#include "lib/string.h"
#include "mm/paging.h"

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER_NAME = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_MMAP = 6,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
};

struct mb2_tag {
	uint32_t type, size;
};

struct mb2_mmap_entry {
	uint64_t base, length;
	uint32_t type, reserved;
};
static_assert(sizeof(struct mb2_mmap_entry) == 24, "Multiboot2 spec 3.6.8");

/* Multiboot spec 3.3: the flags say which fields are valid. */
enum {
	MB1_INFO_CMDLINE = 1 << 2,
	MB1_INFO_MODS = 1 << 3,
	MB1_INFO_MMAP = 1 << 6,
	MB1_INFO_LOADER_NAME = 1 << 9,
};

struct mb1_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr, config_table, boot_loader_name;
};
static_assert(sizeof(struct mb1_info) == 68, "Multiboot spec 3.3");

struct mb1_module {
	uint32_t mod_start, mod_end, string, reserved;
};

/* Each entry's size field counts the bytes after itself. */
struct mb1_mmap_entry {
	uint32_t size;
	uint64_t base_addr, length;
	uint32_t type;
} __packed;
static_assert(sizeof(struct mb1_mmap_entry) == 24, "Multiboot spec 3.3");

struct boot_info boot_info;

static void copy_string(char *dst, size_t size, const char *src, size_t max)
{
	size_t n = strnlen(src, max);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void add_region(struct boot_info *bi, uint64_t base, uint64_t length, uint32_t type)
{
	if (bi->nr_mmap < BOOT_MMAP_MAX)
		bi->mmap[bi->nr_mmap++] = (struct boot_mem_region){ base, length, type };
}

static void add_module(struct boot_info *bi, uint64_t start, uint64_t end,
		       const char *cmdline, size_t max)
{
	if (bi->nr_modules == BOOT_MODULES_MAX)
		return;
	struct boot_module *mod = &bi->modules[bi->nr_modules++];
	mod->start = start;
	mod->end = end;
	copy_string(mod->cmdline, sizeof(mod->cmdline), cmdline, max);
}

static void parse_mb2(struct boot_info *bi, uint64_t info_phys)
{
	const uint8_t *info = early_phys_to_virt(info_phys);
	uint32_t total = *(const uint32_t *)info;
	bi->info_phys = info_phys;
	bi->info_size = total;

	for (uint32_t off = 8; off + 8 <= total;) {
		const struct mb2_tag *tag = (const void *)(info + off);
		const uint8_t *body = (const uint8_t *)(tag + 1);
		size_t len = tag->size - sizeof(*tag);

		if (tag->type == MB2_TAG_END)
			break;
		switch (tag->type) {
		case MB2_TAG_CMDLINE:
			copy_string(bi->cmdline, sizeof(bi->cmdline), (const char *)body, len);
			break;
		case MB2_TAG_LOADER_NAME:
			copy_string(bi->loader, sizeof(bi->loader), (const char *)body, len);
			break;
		case MB2_TAG_MODULE: {
			const uint32_t *m = (const uint32_t *)body;
			add_module(bi, m[0], m[1], (const char *)(m + 2), len - 8);
			break;
		}
		case MB2_TAG_MMAP: {
			uint32_t entry_size = ((const uint32_t *)body)[0];
			for (size_t e = 8; e + entry_size <= len; e += entry_size) {
				const struct mb2_mmap_entry *me = (const void *)(body + e);
				add_region(bi, me->base, me->length, me->type);
			}
			break;
		}
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			/* The tag holds a copy of the RSDP (v1: 20 bytes, v2: 36). */
			bi->rsdp_size = MIN(len, sizeof(bi->rsdp));
			memcpy(bi->rsdp, body, bi->rsdp_size);
			break;
		}
		off += ALIGN_UP(tag->size, 8u);
	}
}

/* Every address in the multiboot1 info is 32-bit physical; the boot mapping
 * covers the first GiB, which holds all of it under QEMU. */
static const void *mb1_ptr(uint32_t phys)
{
	if (phys >= 1u << 30)
		panic("multiboot1 info at %x, beyond the boot mapping", phys);
	return early_phys_to_virt(phys);
}

static void parse_mb1(struct boot_info *bi, uint64_t info_phys)
{
	const struct mb1_info *info = mb1_ptr(info_phys);

	bi->info_phys = info_phys;
	bi->info_size = sizeof(*info);
	if (info->flags & MB1_INFO_CMDLINE) {
		/* Loaders put the kernel's own path first (QEMU: "path args"),
		 * which multiboot2's command line does not have: drop it. */
		const char *c = mb1_ptr(info->cmdline);
		while (*c && *c != ' ')
			c++;
		while (*c == ' ')
			c++;
		copy_string(bi->cmdline, sizeof(bi->cmdline), c, BOOT_CMDLINE_MAX);
	}
	if (info->flags & MB1_INFO_LOADER_NAME)
		copy_string(bi->loader, sizeof(bi->loader), mb1_ptr(info->boot_loader_name),
			    sizeof(bi->loader));
	if (info->flags & MB1_INFO_MODS) {
		const struct mb1_module *m = mb1_ptr(info->mods_addr);
		for (uint32_t i = 0; i < info->mods_count; i++)
			add_module(bi, m[i].mod_start, m[i].mod_end,
				   m[i].string ? mb1_ptr(m[i].string) : "", BOOT_CMDLINE_MAX);
	}
	if (info->flags & MB1_INFO_MMAP) {
		for (uint32_t off = 0; off + sizeof(struct mb1_mmap_entry) <= info->mmap_length;) {
			const struct mb1_mmap_entry *me = mb1_ptr(info->mmap_addr + off);
			add_region(bi, me->base_addr, me->length, me->type);
			off += me->size + sizeof(me->size);
		}
	}
}

void multiboot_parse(uint32_t magic, uint64_t info_phys)
{
	struct boot_info *bi = &boot_info;

	if (magic == MULTIBOOT2_BOOTLOADER_MAGIC)
		parse_mb2(bi, info_phys);
	else if (magic == MULTIBOOT_BOOTLOADER_MAGIC)
		parse_mb1(bi, info_phys);
	else
		panic("not booted by a multiboot loader (magic %x)", magic);
	if (!bi->nr_mmap)
		panic("the boot loader gave no memory map");
}
