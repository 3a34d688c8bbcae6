/* A user address space: a PML4 whose upper half repeats the kernel's entries
 * (all made at boot, so they never need syncing) and a private lower half. */
#include "uspace.h"
#include "frames.h"
#include "kmalloc.h"
#include "paging.h"
#include "../x86.h"
#include "../lib/string.h"

struct uspace *uspace_create(void)
{
	struct uspace *us = kzalloc(sizeof(*us));

	if (!us)
		return NULL;
	us->pml4 = frame_alloc_zeroed();
	if (!us->pml4) {
		kfree(us);
		return NULL;
	}
	pte_t *dst = phys_to_virt(us->pml4), *src = phys_to_virt(kernel_pml4_phys);
	memcpy(dst + 256, src + 256, 256 * sizeof(pte_t));
	return us;
}

void uspace_destroy(struct uspace *us)
{
	if (read_cr3() == us->pml4)
		write_cr3(kernel_pml4_phys);
	free_user_tables(us->pml4);
	frame_free(us->pml4);
	kfree(us);
}

void uspace_activate(struct uspace *us)
{
	write_cr3(us ? us->pml4 : kernel_pml4_phys);
}
