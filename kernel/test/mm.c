/* Self-tests of memory management: frames, heap, page tables, user copies. */
#include "../ktest.h"
#include "../cpu.h"
#include "../kernel_lock.h"
#include "../multiboot.h"
#include "../percpu.h"
#include "../smp.h"
#include "../x86.h"
#include "../lib/string.h"
#include "../mm/frames.h"
#include "../mm/kmalloc.h"
#include "../mm/paging.h"
#include "../mm/tlb.h"
#include "../mm/uaccess.h"
#include "../mm/uspace.h"
#include "../mm/vmalloc.h"
#include <asm-generic/errno.h>

extern char __kernel_phys_start[], __kernel_phys_end[];
extern char __text_start[], __rodata_start[], __data_start[], __boot_stack_guard[];

static bool frame_is_reserved(uint64_t pa)
{
	if (pa < 1 * MiB)
		return true;
	if (pa < (uint64_t)__kernel_phys_end && pa + PAGE_SIZE > (uint64_t)__kernel_phys_start)
		return true;
	if (pa < boot_info.info_phys + boot_info.info_size &&
	    pa + PAGE_SIZE > boot_info.info_phys)
		return true;
	return false;	/* the modules (initramfs archives) are free once unpacked */
}

KTEST(frames_alloc_free_baseline)
{
	uint64_t base = frame_stats.free, got[64];

	for (int i = 0; i < 64; i++) {
		got[i] = frame_alloc();
		KASSERT(got[i] && IS_ALIGNED(got[i], PAGE_SIZE));
		for (int j = 0; j < i; j++)
			KEXPECT(got[i] != got[j]);
	}
	KEXPECT_EQ(frame_stats.free, base - 64);
	for (int i = 0; i < 64; i++)
		frame_free(got[i]);
	KEXPECT_EQ(frame_stats.free, base);
}

/* Take every free frame: none may be low memory, the kernel or the boot
 * info, and exhaustion must be a clean 0. */
KTEST(frames_never_reserved_memory)
{
	uint64_t base = frame_stats.free, n = 0, head = 0, pa;
	int bad = 0;

	while ((pa = frame_alloc())) {
		if (frame_is_reserved(pa))
			bad++;
		*(uint64_t *)phys_to_virt(pa) = head;	/* chain them to free later */
		head = pa;
		n++;
	}
	KEXPECT_EQ(n, base);
	KEXPECT_EQ(bad, 0);
	while (head) {
		pa = head;
		head = *(uint64_t *)phys_to_virt(pa);
		frame_free(pa);
	}
	KEXPECT_EQ(frame_stats.free, base);
}

KTEST(kmalloc_returns_to_baseline)
{
	uint64_t frames = frame_stats.free, bytes = heap_stats.bytes;
	static void *p[300];

	for (int i = 0; i < 300; i++) {
		size_t size = (i * 37) % 1100 + 1;
		if (i % 50 == 0)
			size = 5000 + i;	/* the vmalloc path */
		p[i] = kmalloc(size);
		KASSERT(p[i]);
		memset(p[i], i, size);
	}
	for (int i = 0; i < 300; i += 2)
		kfree(p[i]);
	for (int i = 1; i < 300; i += 2)
		kfree(p[i]);
	KEXPECT_EQ(heap_stats.bytes, bytes);
	KEXPECT_EQ(frame_stats.free, frames);
}

KTEST(kmalloc_objects_do_not_overlap)
{
	uint8_t *a = kmalloc(100), *b = kmalloc(100), *c = kmalloc(100);

	KASSERT(a && b && c);
	memset(a, 0xaa, 100);
	memset(b, 0xbb, 100);
	memset(c, 0xcc, 100);
	KEXPECT(a[99] == 0xaa && b[0] == 0xbb && b[99] == 0xbb && c[0] == 0xcc);
	KEXPECT(IS_ALIGNED((uint64_t)a, 16) && IS_ALIGNED((uint64_t)b, 16));
	kfree(a);
	kfree(b);
	kfree(c);
}

KTEST(vmalloc_guard_pages)
{
	uint64_t frames = frame_stats.free;
	char *p = vmalloc(3 * PAGE_SIZE);

	KASSERT(p);
	KEXPECT(translate(kernel_pml4_phys, (uint64_t)p - PAGE_SIZE, false, false) == 0);
	for (int i = 0; i < 3; i++)
		KEXPECT(translate(kernel_pml4_phys, (uint64_t)p + i * PAGE_SIZE, true, false));
	p[3 * PAGE_SIZE - 1] = 1;
	vfree(p);
	KEXPECT(translate(kernel_pml4_phys, (uint64_t)p, false, false) == 0);
	KEXPECT_EQ(frame_stats.free, frames);
}

static void read_first_word(void *arg)
{
	uint64_t **p = arg;

	*(uint64_t *)p[1] = *p[0];
}

/* Another CPU may keep the translation of a page vfree unmapped (a global
 * entry): the address is not handed out again before the wrap's flush, so
 * that CPU reads what the next vmalloc holds, and a vfree sends it no IPI
 * (a measured task there would see it). Reusing the address at once, CPU 1
 * read the freed frame (a task struct of a task that had run there, seen
 * zeroed). */
KTEST(vfree_leaves_other_cpus_alone)
{
	for (int cpu = 1; cpu < nr_cpus; cpu++) {
		uint64_t *p = vmalloc(PAGE_SIZE), seen = 0;
		void *args[2] = { p, &seen };

		KASSERT(p);
		*p = 1;
		smp_call_function_single(cpu, read_first_word, args);
		KEXPECT_EQ(seen, 1);
		unsigned long calls = smp_calls_taken(cpu);
		vfree(p);
		KEXPECT_EQ(smp_calls_taken(cpu), calls);
		uint64_t held = frame_alloc();	/* p's frame, most likely: not q's */
		uint64_t *q = vmalloc(PAGE_SIZE);
		KASSERT(q);
		KEXPECT(q != p);
		*q = 2;
		args[0] = q;
		smp_call_function_single(cpu, read_first_word, args);
		KEXPECT_EQ(seen, 2);
		vfree(q);
		frame_free(held);
	}
}

/* Once the search has gone round the area it starts again from the bottom,
 * after every CPU has flushed (an IPI to each other CPU, no more). One
 * frame mapped 4096 times a step goes round the 1 GiB in some 64 steps. */
KTEST(vmalloc_wrap_flushes_every_cpu)
{
	enum { PAGES = 4096 };
	uint64_t *frames = kmalloc(PAGES * sizeof(*frames)), pa = frame_alloc_zeroed();
	unsigned long calls[NR_CPUS];
	char *prev = NULL;

	KASSERT(frames && pa);
	for (int i = 0; i < PAGES; i++)
		frames[i] = pa;
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		calls[cpu] = smp_calls_taken(cpu);
	for (int step = 0;; step++) {
		char *p = vmap(frames, PAGES);
		KASSERT(p && step < 1000);
		vfree(p);
		if (prev && p < prev)
			break;		/* the wrap */
		prev = p;
		for (int cpu = 1; cpu < nr_cpus; cpu++)
			KEXPECT_EQ(smp_calls_taken(cpu), calls[cpu]);	/* none before it */
	}
	for (int cpu = 1; cpu < nr_cpus; cpu++)
		KEXPECT_EQ(smp_calls_taken(cpu), calls[cpu] + 1);
	kfree(frames);
	frame_free(pa);
}

static void load_here(void *us)
{
	uspace_activate(us);
}

/* A frame an unmap takes from a space that another CPU has loaded is
 * freed only after that CPU's flush, for a fault without the kernel lock
 * may take it at once (tlb_gather); with the space loaded nowhere else it
 * is freed at once, and no IPI is sent. */
KTEST(unmapped_frames_wait_for_the_other_cpus_flush)
{
	if (nr_cpus < 2)
		KSKIP("one CPU");
	struct uspace *us = uspace_create();
	KASSERT(us);
	for (int elsewhere = 0; elsewhere < 2; elsewhere++) {
		if (elsewhere)
			smp_call_function_single(1, load_here, us);
		struct tlb_gather g;
		tlb_gather_init(&g, us);
		uint64_t pa = frame_alloc(), free = frame_stats.free;
		unsigned long calls = smp_calls_taken(1);
		KASSERT(pa);
		tlb_gather_free(&g, pa);
		KEXPECT_EQ(frame_stats.free, elsewhere ? free : free + 1);
		tlb_gather_finish(&g);
		KEXPECT_EQ(frame_stats.free, free + 1);
		KEXPECT_EQ(smp_calls_taken(1), calls + elsewhere);
	}
	kernel_lock();		/* a writer of a space in use holds it */
	uspace_destroy(us);	/* unloads it on CPU 1 */
	kernel_unlock();
}

KTEST(kernel_image_is_w_xor_x)
{
	pte_t *text = pte_walk(kernel_pml4_phys, (uint64_t)__text_start, false);
	pte_t *ro = pte_walk(kernel_pml4_phys, (uint64_t)__rodata_start, false);
	pte_t *data = pte_walk(kernel_pml4_phys, (uint64_t)__data_start, false);

	KASSERT(text && ro && data);
	KEXPECT(!(*text & PTE_W) && !(*text & PTE_NX));
	KEXPECT(!(*ro & PTE_W) && (*ro & PTE_NX));
	KEXPECT((*data & PTE_W) && (*data & PTE_NX));
	/* The boot stack's guard page is a hole. */
	KEXPECT(translate(kernel_pml4_phys, (uint64_t)__boot_stack_guard, false, false) == 0);
}

#define TEST_VA 0x400000ul

KTEST(user_space_map_unmap_destroy)
{
	uint64_t frames = frame_stats.free;
	struct uspace *us = uspace_create();

	KASSERT(us);
	uint64_t pa = frame_alloc_zeroed();
	KASSERT(pa);
	KEXPECT_EQ(map_page(us->pml4, TEST_VA, pa, PTE_U | PTE_W | PTE_NX), 0);
	KEXPECT_EQ(translate(us->pml4, TEST_VA + 8, true, true), pa + 8);
	KEXPECT_EQ(translate(kernel_pml4_phys, TEST_VA, false, false), 0);
	KEXPECT_EQ(unmap_page(us->pml4, TEST_VA) & PTE_ADDR, pa);
	KEXPECT_EQ(translate(us->pml4, TEST_VA, false, true), 0);
	KEXPECT_EQ(map_page(us->pml4, TEST_VA, pa, PTE_U | PTE_W | PTE_NX), 0);
	uspace_destroy(us);	/* frees the page tables and the mapped frame */
	KEXPECT_EQ(frame_stats.free, frames);
}

/* A fault on a page that is present and allows the access (another CPU
 * mapped it, or broke its COW, while this fault waited for the lock)
 * retries; an access the mapping refuses stays a protection fault. */
KTEST(user_fault_on_a_present_page_retries)
{
	uint64_t frames = frame_stats.free;
	struct uspace *us = uspace_create();

	KASSERT(us);
	KASSERT(vma_insert(us, TEST_VA, TEST_VA + PAGE_SIZE, VM_ANON | VM_READ | VM_WRITE));
	KEXPECT_EQ(uspace_fault(us, TEST_VA, true, false), 0);		/* maps it */
	KEXPECT_EQ(uspace_fault(us, TEST_VA + 8, false, false), 0);	/* present: retry */
	KEXPECT_EQ(uspace_fault(us, TEST_VA + 8, true, false), 0);
	KEXPECT_EQ(uspace_fault(us, TEST_VA, false, true), -EFAULT);	/* not executable */
	uspace_destroy(us);
	KEXPECT_EQ(frame_stats.free, frames);
}

KTEST(user_copy_faults_become_efault)
{
	uint64_t frames = frame_stats.free;
	struct uspace *us = uspace_create();
	char buf[16] = "hello", out[16];

	KASSERT(us);
	uint64_t pa = frame_alloc_zeroed();
	KASSERT(pa && map_page(us->pml4, TEST_VA, pa, PTE_U | PTE_W | PTE_NX) == 0);
	uspace_activate(us);

	char *u = (char *)TEST_VA;
	KEXPECT_EQ(copy_to_user(u + 100, buf, 6), 0);
	KEXPECT_EQ(copy_from_user(out, u + 100, 6), 0);
	KEXPECT(!memcmp(out, "hello", 6));
	KEXPECT_EQ(strncpy_from_user(out, u + 100, sizeof(out)), 5);
	/* unmapped, straddling the end of the mapping, NULL, kernel, overflow */
	KEXPECT_EQ(copy_to_user(u + PAGE_SIZE, buf, 1), -EFAULT);
	KEXPECT_EQ(copy_to_user(u + PAGE_SIZE - 4, buf, 8), -EFAULT);
	KEXPECT_EQ(copy_from_user(out, NULL, 1), -EFAULT);
	KEXPECT_EQ(copy_from_user(out, (void *)KERNEL_VMA, 8), -EFAULT);
	KEXPECT_EQ(copy_from_user(out, (void *)(USER_END - 4), 8), -EFAULT);
	KEXPECT_EQ(copy_from_user(out, u, ~0ul), -EFAULT);
	KEXPECT_EQ(clear_user(u + PAGE_SIZE - 2, 4), -EFAULT);
	KEXPECT_EQ(copy_to_user(u + PAGE_SIZE - 1, "x", 1), 0);	/* no NUL before the end */
	KEXPECT_EQ(strncpy_from_user(out, u + PAGE_SIZE - 1, sizeof(out)), -EFAULT);

	uspace_activate(NULL);
	uspace_destroy(us);
	KEXPECT_EQ(frame_stats.free, frames);
}

/* A plain kernel load that may fault: returns the vector, 0 if none. */
static int probe_load(const volatile uint64_t *p)
{
	uint64_t vector = 0;

	__asm__ volatile("1: movq (%1), %%rcx\n"
			 "2:\n"
			 ".pushsection .extable, \"a\"\n"
			 ".balign 8\n"
			 ".quad 1b, 2b\n"
			 ".popsection\n"
			 : "+a"(vector) : "r"(p) : "rcx", "memory");
	return (int)vector;
}

KTEST(smap_blocks_stray_user_access)
{
	if (!cpu_caps.smap)
		KSKIP("the CPU has no SMAP");
	struct uspace *us = uspace_create();
	KASSERT(us);
	uint64_t pa = frame_alloc_zeroed();
	KASSERT(pa && map_page(us->pml4, TEST_VA, pa, PTE_U | PTE_W | PTE_NX) == 0);
	uspace_activate(us);
	KEXPECT_EQ(probe_load((uint64_t *)TEST_VA), 14);	/* #PF */
	stac();
	KEXPECT_EQ(probe_load((uint64_t *)TEST_VA), 0);
	clac();
	uspace_activate(NULL);
	uspace_destroy(us);
}

/* Every recorded STAC/CLAC site (smap.h, smap.inc) holds the instruction
 * where the CPU has SMAP and the same-length NOP where it has none. */
KTEST(smap_sites_match_the_cpu)
{
	extern const uint64_t __smap_sites_start[], __smap_sites_end[];
	static const uint8_t nop[] = { 0x0f, 0x1f, 0x00 };
	int n = 0;

	for (const uint64_t *site = __smap_sites_start; site < __smap_sites_end; site++, n++) {
		const uint8_t *p = (const uint8_t *)*site;
		bool is_nop = !memcmp(p, nop, 3);
		bool is_smap = p[0] == 0x0f && p[1] == 0x01 && (p[2] == 0xcb || p[2] == 0xca);

		KEXPECT_EQ(cpu_caps.smap ? is_smap : is_nop, true);
	}
	KEXPECT_EQ(n > 10, true);	/* the copies, the word accesses, the entries */
}
