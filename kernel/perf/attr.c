/* Copying struct perf_event_attr in, with Linux 6.1's checks and errnos
 * (kernel/events/core.c perf_copy_attr): any size from VER0 to a page,
 * E2BIG with our size written back when an unknown tail is not zero. */
#include "internal.h"
#include "../lib/string.h"
#include "../mm/paging.h"
#include "../mm/uaccess.h"
#include <asm-generic/errno.h>
#include <asm/perf_regs.h>
#include <pmuos/perf_ext.h>

static_assert(sizeof(struct perf_event_attr) == PERF_ATTR_SIZE_VER7, "Linux 6.1 attr");
static_assert(offsetof(struct perf_event_attr, read_format) + 8 == PMUOS_ATTR_FLAGS_OFFSET,
	      "the flag word holding attr.persistent");

/* Bits between R15 and XMM0 mean nothing: EINVAL. XMM0.. pass here and get
 * EOPNOTSUPP from the PMU that cannot sample them (perf_sample_event_init). */
#define PERF_REG_X86_RESERVED	(((1ull << PERF_REG_X86_XMM0) - 1) & \
				 ~((1ull << PERF_REG_X86_64_MAX) - 1))
/* x86-64 has no DS, ES, FS, GS in perf regs (arch/x86/kernel/perf_regs.c). */
#define PERF_REG_X86_64_INVALID	((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) | \
				 (1ull << PERF_REG_X86_FS) | (1ull << PERF_REG_X86_GS))

static int reg_validate(uint64_t mask)
{
	if (!mask || (mask & (PERF_REG_X86_RESERVED | PERF_REG_X86_64_INVALID)))
		return -EINVAL;
	return 0;
}

/* The 26 flag bits above sigtrap; pmuos gives bit 41 a meaning (seed 001). */
static uint64_t reserved_flags(const struct perf_event_attr *attr)
{
	return (perf_attr_flags(attr) >> 38) & ~(1ull << (PMUOS_ATTR_FLAG_PERSISTENT_BIT - 38));
}

/* The fields that some sample types bring: nonzero when one is invalid. */
static int check_sample_fields(const struct perf_event_attr *attr)
{
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		/* Only the privilege bits are checked before the PMU says no. */
		if (attr->branch_sample_type & ~(PERF_SAMPLE_BRANCH_MAX - 1))
			return -EINVAL;
		if (!(attr->branch_sample_type & ~PERF_SAMPLE_BRANCH_PLM_ALL))
			return -EINVAL;
	}
	if ((attr->sample_type & PERF_SAMPLE_REGS_USER) && reg_validate(attr->sample_regs_user))
		return -EINVAL;
	if (attr->sample_type & PERF_SAMPLE_STACK_USER) {
		if (attr->sample_stack_user >= 0xffff || (attr->sample_stack_user & 7))
			return -EINVAL;
	}
	if ((attr->sample_type & PERF_SAMPLE_REGS_INTR) && reg_validate(attr->sample_regs_intr))
		return -EINVAL;
	if ((attr->sample_type & PERF_SAMPLE_WEIGHT) &&
	    (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		return -EINVAL;
	return 0;
}

/* A bigger struct from a newer program: its tail, from off to size, must be
 * zero (0; else -E2BIG, or -EFAULT). Read up to each 8-byte boundary of the
 * address, as Linux's check_zeroed_user reads aligned words: no read
 * straddles a page's end, so a nonzero byte before an unmapped page is
 * E2BIG, not EFAULT. Apart from perf_copy_attr, whose common case then
 * keeps fewer registers. */
static __attribute__((noinline)) int check_zeroed_tail(const void *uattr, size_t off, size_t size)
{
	for (size_t n; off < size; off += n) {
		uint64_t tail = 0;
		n = MIN(8 - ((uintptr_t)uattr + off) % 8, size - off);
		if (copy_from_user(&tail, (const char *)uattr + off, n))
			return -EFAULT;
		if (tail)
			return -E2BIG;
	}
	return 0;
}

int perf_copy_attr(const void *uattr, struct perf_event_attr *attr)
{
	uint32_t size;
	/* The user's pointer may have any alignment: no member access through it. */
	uint32_t *usize = (uint32_t *)((char *)uattr + offsetof(struct perf_event_attr, size));

	if (get_user_u32(&size, usize))
		return -EFAULT;
	if (!size)
		size = PERF_ATTR_SIZE_VER0;	/* Linux's ABI compatibility quirk */
	if (size < PERF_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		goto err_size;
	/* What an older program's smaller struct lacks reads as zero. */
	if (size < sizeof(*attr))
		memset((char *)attr + size, 0, sizeof(*attr) - size);
	if (copy_from_user(attr, uattr, MIN((size_t)size, sizeof(*attr))))
		return -EFAULT;
	if (unlikely(size > sizeof(*attr))) {
		int err = check_zeroed_tail(uattr, sizeof(*attr), size);
		if (err == -E2BIG)
			goto err_size;
		if (err)
			return err;
	}
	attr->size = size;

	if (reserved_flags(attr) || attr->__reserved_2 || attr->__reserved_3)
		return -EINVAL;
	if (attr->sample_type & ~(PERF_SAMPLE_MAX - 1))
		return -EINVAL;
	if (attr->read_format & ~(PERF_FORMAT_MAX - 1))
		return -EINVAL;
	if (!attr->sample_max_stack)
		attr->sample_max_stack = perf_sysctl.max_stack;
	/* Every error below is EINVAL: the checks of rarer fields go behind
	 * one test each, of the sample types and of the flags that have them. */
	if (unlikely(attr->sample_type & (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
					  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR |
					  PERF_SAMPLE_WEIGHT_STRUCT)) &&
	    check_sample_fields(attr))
		return -EINVAL;
	if (unlikely(perf_attr_flags(attr) & (ATTR_FLAG_INHERIT_THREAD | ATTR_FLAG_REMOVE_ON_EXEC |
					      ATTR_FLAG_SIGTRAP))) {
		if (!attr->inherit && attr->inherit_thread)
			return -EINVAL;
		if (attr->remove_on_exec && attr->enable_on_exec)
			return -EINVAL;
		if (attr->sigtrap && !attr->remove_on_exec)
			return -EINVAL;
	}
	return 0;

err_size:
	size = sizeof(*attr);
	put_user(size, usize);
	return -E2BIG;
}
