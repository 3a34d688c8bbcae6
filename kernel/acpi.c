/* ACPI tables, read only: the RSDP (ACPI 6.4 5.2.5), the RSDT or XSDT
 * (5.2.7, 5.2.8) and the MADT's processor entries (5.2.12). The RSDP comes
 * from the multiboot2 ACPI tag (GRUB, under BIOS and UEFI); with none
 * (QEMU's multiboot1 -kernel), the BIOS areas are scanned (5.2.5.1): the
 * first KiB of the EBDA, then 0xE0000-0xFFFFF on 16-byte boundaries. */
#include "acpi.h"
#include "multiboot.h"
#include "printk.h"
#include "lib/string.h"
#include "mm/paging.h"
#include "mm/vmalloc.h"

struct acpi_rsdp {
	char signature[8];		/* "RSD PTR " */
	uint8_t checksum;		/* the first 20 bytes sum to 0 */
	char oem_id[6];
	uint8_t revision;		/* 0: ACPI 1.0 (20 bytes), 2: with the XSDT */
	uint32_t rsdt_address;
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t extended_checksum;	/* the whole length sums to 0 */
	uint8_t reserved[3];
} __packed;
static_assert(sizeof(struct acpi_rsdp) == 36, "ACPI 6.4 5.2.5.3");

struct acpi_header {
	char signature[4];
	uint32_t length;		/* with this header */
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __packed;
static_assert(sizeof(struct acpi_header) == 36, "ACPI 6.4 5.2.6");

struct acpi_madt {
	struct acpi_header header;
	uint32_t lapic_address;
	uint32_t flags;			/* bit 0: PC-AT dual 8259s */
	uint8_t entries[];
} __packed;

/* MADT entry types and processor flags (ACPI 6.4 5.2.12.2, 5.2.12.12) */
#define MADT_LOCAL_APIC		0
#define MADT_LOCAL_X2APIC	9
#define MADT_CPU_ENABLED	(1u << 0)
#define MADT_CPU_ONLINE_CAPABLE	(1u << 1)	/* disabled now, may be enabled */

struct madt_local_apic {
	uint8_t type, length;		/* 0, 8 */
	uint8_t processor_uid;
	uint8_t apic_id;
	uint32_t flags;
} __packed;
static_assert(sizeof(struct madt_local_apic) == 8, "ACPI 6.4 5.2.12.2");

struct madt_local_x2apic {
	uint8_t type, length;		/* 9, 16 */
	uint16_t reserved;
	uint32_t x2apic_id;
	uint32_t flags;
	uint32_t processor_uid;
} __packed;
static_assert(sizeof(struct madt_local_x2apic) == 16, "ACPI 6.4 5.2.12.12");

#define EBDA_SEGMENT_PTR	0x40e	/* BDA word: the EBDA's real-mode segment */
#define BIOS_ROM_START		0xe0000
#define BIOS_ROM_END		0x100000

struct acpi_madt_info acpi_madt;
static const struct acpi_rsdp *rsdp;

static bool checksum_ok(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

/* Tables lie in reserved or ACPI memory, mostly below the end of RAM that
 * the direct map covers; past it, an uncached mapping of their own. */
static const void *map_phys(uint64_t phys, size_t len)
{
	if (phys + len <= direct_map_end)
		return phys_to_virt(phys);
	uint64_t base = ALIGN_DOWN(phys, PAGE_SIZE);
	const char *v = ioremap(base, ALIGN_UP(phys + len, PAGE_SIZE) - base);

	return v ? v + (phys - base) : NULL;
}

static const struct acpi_rsdp *rsdp_at(uint64_t phys)
{
	const struct acpi_rsdp *r = phys_to_virt(phys);

	if (memcmp(r->signature, "RSD PTR ", 8) || !checksum_ok(r, 20))
		return NULL;
	if (r->revision >= 2 && !checksum_ok(r, sizeof(*r)))
		return NULL;
	return r;
}

static const struct acpi_rsdp *rsdp_scan(uint64_t start, uint64_t end)
{
	for (uint64_t pa = ALIGN_UP(start, 16); pa + sizeof(struct acpi_rsdp) <= end; pa += 16) {
		const struct acpi_rsdp *r = rsdp_at(pa);
		if (r)
			return r;
	}
	return NULL;
}

static const struct acpi_rsdp *find_rsdp(void)
{
	static struct acpi_rsdp copy;

	if (boot_info.rsdp_size >= 20) {
		memcpy(&copy, boot_info.rsdp, boot_info.rsdp_size);
		if (!memcmp(copy.signature, "RSD PTR ", 8) && checksum_ok(&copy, 20))
			return &copy;
	}
	uint64_t ebda = (uint64_t)*(const uint16_t *)phys_to_virt(EBDA_SEGMENT_PTR) << 4;
	const struct acpi_rsdp *r = NULL;

	if (ebda >= 0x80000 && ebda < 0xa0000)		/* a plausible EBDA only */
		r = rsdp_scan(ebda, ebda + KiB);
	return r ? r : rsdp_scan(BIOS_ROM_START, BIOS_ROM_END);
}

static const struct acpi_header *map_table(uint64_t phys)
{
	const struct acpi_header *h = map_phys(phys, sizeof(*h));

	if (!h)
		return NULL;
	h = map_phys(phys, h->length);
	return h && checksum_ok(h, h->length) ? h : NULL;
}

const void *acpi_find_table(const char sig[4])
{
	if (!rsdp)
		return NULL;
	bool xsdt = rsdp->revision >= 2 && rsdp->xsdt_address;
	const struct acpi_header *root = map_table(xsdt ? rsdp->xsdt_address : rsdp->rsdt_address);

	if (!root)
		return NULL;
	size_t width = xsdt ? 8 : 4;
	size_t n = (root->length - sizeof(*root)) / width;
	const uint8_t *entries = (const uint8_t *)(root + 1);

	for (size_t i = 0; i < n; i++) {
		uint64_t phys = 0;
		memcpy(&phys, entries + i * width, width);	/* unaligned in the RSDT */
		const struct acpi_header *h = map_table(phys);
		if (h && !memcmp(h->signature, sig, 4))
			return h;
	}
	return NULL;
}

static void add_cpu(uint32_t apic_id, uint32_t flags)
{
	if (!(flags & MADT_CPU_ENABLED))
		return;		/* absent, or ONLINE_CAPABLE for a hot-plug we lack */
	for (int i = 0; i < acpi_madt.nr_cpus; i++)
		if (acpi_madt.apic_ids[i] == apic_id)
			return;	/* listed as both xAPIC and x2APIC */
	if (acpi_madt.nr_cpus == ACPI_MAX_CPUS) {
		acpi_madt.ignored++;
		return;
	}
	acpi_madt.apic_ids[acpi_madt.nr_cpus++] = apic_id;
}

static void parse_madt(const struct acpi_madt *madt)
{
	const uint8_t *p = madt->entries, *end = (const uint8_t *)madt + madt->header.length;

	acpi_madt.found = true;
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		if (p[0] == MADT_LOCAL_APIC && p[1] >= sizeof(struct madt_local_apic)) {
			const struct madt_local_apic *e = (const void *)p;
			add_cpu(e->apic_id, e->flags);
		} else if (p[0] == MADT_LOCAL_X2APIC && p[1] >= sizeof(struct madt_local_x2apic)) {
			const struct madt_local_x2apic *e = (const void *)p;
			add_cpu(e->x2apic_id, e->flags);
		}
		p += p[1];
	}
}

void acpi_init(void)
{
	rsdp = find_rsdp();
	if (!rsdp) {
		printk("pmuos: ACPI: no RSDP: one CPU\n");
		return;
	}
	const struct acpi_madt *madt = acpi_find_table("APIC");
	if (madt)
		parse_madt(madt);
	printk("pmuos: ACPI: RSDP rev %u (%s), MADT %s: %d CPU%s%s\n", rsdp->revision,
	       boot_info.rsdp_size ? "boot loader" : "BIOS area",
	       madt ? "found" : "absent", acpi_madt.nr_cpus, acpi_madt.nr_cpus == 1 ? "" : "s",
	       acpi_madt.ignored ? " (more ignored)" : "");
}
