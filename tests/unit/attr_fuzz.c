/* tests/unit/attr_fuzz.c: a libFuzzer target for kernel/perf/attr.c's perf_copy_attr. The
 * input is user memory (its first byte: whether it is writable); the attr pointer is its
 * start and any copy past its end faults. Each verdict is checked against a model of Linux
 * 6.1's perf_copy_attr written from its source, and ASan/UBSan watch the kernel code. */
#include "uaccess.h"
#include "../../kernel/perf/internal.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmuos/perf_ext.h>

#define ATTR_SIZE	PERF_ATTR_SIZE_VER7
#define PAGE		4096

static uint64_t word_at(const uint8_t *u, size_t off)
{
	uint64_t v;

	memcpy(&v, u + off, 8);
	return v;
}

static int reg_check(uint64_t mask)
{
	uint64_t reserved = ((1ull << PERF_REG_X86_XMM0) - 1) & ~((1ull << PERF_REG_X86_64_MAX) - 1);
	uint64_t segs = (1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) |
			(1ull << PERF_REG_X86_FS) | (1ull << PERF_REG_X86_GS);

	return !mask || (mask & (reserved | segs)) ? -EINVAL : 0;
}

/* Linux 6.1's verdict on user memory of which u[0..n) can be read, and what a success
 * copies; the size is checked first, the unknown tail before the known part is copied
 * (copy_struct_from_user), each byte in order. */
static int model(const uint8_t *u, size_t n, struct perf_event_attr *a)
{
	uint32_t size;

	if (n < 8)
		return -EFAULT;
	memcpy(&size, u + 4, 4);
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > PAGE)
		return -E2BIG;
	size_t head = size < ATTR_SIZE ? size : ATTR_SIZE;
	if (n < head)
		return -EFAULT;
	for (size_t off = ATTR_SIZE; off < size; off++) {	/* the tail, in order */
		if (off >= n)
			return -EFAULT;
		if (u[off])
			return -E2BIG;
	}
	memset(a, 0, sizeof(*a));
	memcpy(a, u, head);
	a->size = size;
	if ((word_at((const uint8_t *)a, PMUOS_ATTR_FLAGS_OFFSET) >> 38) &
	    ~(1ull << (PMUOS_ATTR_FLAG_PERSISTENT_BIT - 38)))
		return -EINVAL;
	if (a->__reserved_2 || a->__reserved_3)
		return -EINVAL;
	if (a->sample_type & ~(PERF_SAMPLE_MAX - 1) || a->read_format & ~(PERF_FORMAT_MAX - 1))
		return -EINVAL;
	if (a->sample_type & PERF_SAMPLE_BRANCH_STACK &&
	    (a->branch_sample_type & ~(PERF_SAMPLE_BRANCH_MAX - 1) ||
	     !(a->branch_sample_type & ~PERF_SAMPLE_BRANCH_PLM_ALL)))
		return -EINVAL;
	if (a->sample_type & PERF_SAMPLE_REGS_USER && reg_check(a->sample_regs_user))
		return -EINVAL;
	if (a->sample_type & PERF_SAMPLE_STACK_USER &&
	    (a->sample_stack_user >= 0xffff || a->sample_stack_user % 8))
		return -EINVAL;
	if (!a->sample_max_stack)
		a->sample_max_stack = 127;
	if (a->sample_type & PERF_SAMPLE_REGS_INTR && reg_check(a->sample_regs_intr))
		return -EINVAL;
	if ((a->sample_type & PERF_SAMPLE_WEIGHT) && (a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		return -EINVAL;
	if ((!a->inherit && a->inherit_thread) || (a->remove_on_exec && a->enable_on_exec) ||
	    (a->sigtrap && !a->remove_on_exec))
		return -EINVAL;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct perf_event_attr got, want;

	if (!len)
		return 0;
	/* data[0]: bit 0 whether user memory is writable, bits 1..3 how far the attr is from
	 * an 8-byte boundary. User memory ends on a boundary, as pages do. */
	bool writable = data[0] & 1;
	size_t skew = (data[0] >> 1) & 7, n = len - 1;
	uint8_t *buf = malloc(skew + n + 1), *u = buf + skew, *orig = malloc(n + 1);
	memcpy(u, data + 1, n);
	memcpy(orig, u, n);
	size_t avail = n + skew >= 8 ? ((n + skew) & ~(size_t)7) - skew : 0;
	uaccess_window(avail ? u : NULL, avail, writable);

	int ret = perf_copy_attr(u, &got);
	int expect = model(orig, avail, &want);
	if (ret != expect) {
		fprintf(stderr, "perf_copy_attr gave %d, Linux's rules %d (%zu of %zu bytes readable, "
			"skew %zu)\n", ret, expect, avail, n, skew);
		abort();
	}
	if (!ret && memcmp(&got, &want, sizeof(got))) {
		fprintf(stderr, "perf_copy_attr's copy differs from the user's bytes\n");
		abort();
	}
	/* E2BIG writes our size back when it can; nothing else is ever written. */
	uint32_t ours = ATTR_SIZE;
	if (ret == -E2BIG && writable && avail >= 8)
		memcpy(orig + 4, &ours, 4);
	if (memcmp(u, orig, n)) {
		fprintf(stderr, "perf_copy_attr changed user memory (ret %d)\n", ret);
		abort();
	}
	free(buf);
	free(orig);
	return 0;
}
