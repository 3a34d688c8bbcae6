/* Multiboot2 boot information (Multiboot2 spec 3.6): memory map, command line,
 * modules, ACPI RSDP. */
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

struct boot_info boot_info;

static void copy_string(char *dst, size_t size, const char *src, size_t max)
{
	size_t n = strnlen(src, max);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void multiboot_parse(uint32_t magic, uint64_t info_phys)
{
	struct boot_info *bi = &boot_info;

	if (magic != MULTIBOOT2_BOOTLOADER_MAGIC)
		panic("not booted by a multiboot2 loader (magic %x)", magic);
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
			if (bi->nr_modules == BOOT_MODULES_MAX)
				break;
			struct boot_module *mod = &bi->modules[bi->nr_modules++];
			mod->start = m[0];
			mod->end = m[1];
			copy_string(mod->cmdline, sizeof(mod->cmdline),
				    (const char *)(m + 2), len - 8);
			break;
		}
		case MB2_TAG_MMAP: {
			uint32_t entry_size = ((const uint32_t *)body)[0];
			for (size_t e = 8; e + entry_size <= len; e += entry_size) {
				const struct mb2_mmap_entry *me = (const void *)(body + e);
				if (bi->nr_mmap == BOOT_MMAP_MAX)
					break;
				bi->mmap[bi->nr_mmap++] = (struct boot_mem_region){
					me->base, me->length, me->type
				};
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
	if (!bi->nr_mmap)
		panic("the boot loader gave no memory map");
}
