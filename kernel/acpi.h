/* ACPI: the RSDP (from the boot loader, or the BIOS areas), the RSDT/XSDT,
 * and the MADT's list of processors. */
#pragma once
#include "kernel.h"

#define ACPI_MAX_CPUS	64

struct acpi_madt_info {
	uint32_t apic_ids[ACPI_MAX_CPUS];	/* usable processors, in MADT order */
	int nr_cpus;
	int ignored;			/* past ACPI_MAX_CPUS */
	bool found;			/* an MADT was there */
};

extern struct acpi_madt_info acpi_madt;

/* Find the tables and read the MADT (after paging_init: through the direct
 * map or ioremap). Without ACPI, acpi_madt.found stays false. */
void acpi_init(void);
/* A table by signature ("APIC", "FACP", ...): its header's virtual address
 * and checksum checked, or NULL. */
const void *acpi_find_table(const char sig[4]);
