/* tests/unit/attr_test.c: kernel/perf/attr.c's perf_copy_attr on the host, under ASan and
 * UBSan: the sizes Linux 6.1 accepts, E2BIG with the size written back, faults, and each
 * check of the attr in Linux's order. */
#include "ktap.h"
#include "uaccess.h"
#include "../../kernel/perf/internal.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <stdlib.h>
#include <pmuos/perf_ext.h>

#define ATTR_SIZE	PERF_ATTR_SIZE_VER7
#define PAGE		4096

/* User memory: a page and a bit, the attr at its start. */
static union {
	struct perf_event_attr attr;
	uint8_t bytes[PAGE + 64];
} user;
static struct perf_event_attr out;

static void reset(uint32_t size)
{
	memset(&user, 0, sizeof(user));
	user.attr.size = size;
	user.attr.type = PERF_TYPE_SOFTWARE;
	uaccess_window(&user, sizeof(user), true);
}

static int copy(void)
{
	return perf_copy_attr(&user, &out);
}

static void set_flag(int bit)
{
	uint64_t word;

	memcpy(&word, user.bytes + PMUOS_ATTR_FLAGS_OFFSET, 8);
	word |= 1ull << bit;
	memcpy(user.bytes + PMUOS_ATTR_FLAGS_OFFSET, &word, 8);
}

TEST(zero_size_is_ver0)
{
	reset(0);
	user.attr.config = 7;
	user.attr.config1 = 5;		/* the last field of VER0 */
	user.attr.config2 = 99;		/* past VER0: not read */
	uaccess_window(&user, PERF_ATTR_SIZE_VER0, true);
	ASSERT_EQ(copy(), 0);
	EXPECT_EQ(out.size, PERF_ATTR_SIZE_VER0);
	EXPECT_EQ(out.config, 7);
	EXPECT_EQ(out.config1, 5);
	EXPECT_EQ(out.config2, 0);
}

TEST(every_published_size_and_up_to_a_page)
{
	static const uint32_t sizes[] = {
		PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER2, PERF_ATTR_SIZE_VER3,
		PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5, PERF_ATTR_SIZE_VER6, PERF_ATTR_SIZE_VER7,
		ATTR_SIZE + 1, ATTR_SIZE + 8, 1000, PAGE,
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		reset(sizes[i]);
		user.attr.sample_max_stack = 3;
		uaccess_window(&user, sizes[i], true);	/* exactly what it says it has */
		EXPECT_EQ(copy(), 0);
		EXPECT_EQ(out.size, sizes[i]);
		/* a field past an older size is not read from the user */
		EXPECT_EQ(out.sample_max_stack, sizes[i] >= PERF_ATTR_SIZE_VER5 ? 3 : 127);
	}
}

TEST(bad_sizes_are_e2big_with_ours_written_back)
{
	static const uint32_t sizes[] = { 1, 8, PERF_ATTR_SIZE_VER0 - 1, PAGE + 1, 0x80000000 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		reset(sizes[i]);
		EXPECT_EQ(copy(), -E2BIG);
		EXPECT_EQ(user.attr.size, ATTR_SIZE);
		EXPECT_EQ(uaccess_writes, 1);
	}
	/* The write-back may fault: still E2BIG, as Linux ignores put_user's result. */
	reset(PAGE + 1);
	uaccess_window(&user, sizeof(user), false);
	EXPECT_EQ(copy(), -E2BIG);
	EXPECT_EQ(user.attr.size, PAGE + 1);
}

TEST(a_bigger_struct_needs_a_zero_tail)
{
	for (uint32_t at = ATTR_SIZE; at < ATTR_SIZE + 24; at++) {
		reset(ATTR_SIZE + 24);
		user.bytes[at] = 0x80;
		EXPECT_EQ(copy(), -E2BIG);
		EXPECT_EQ(user.attr.size, ATTR_SIZE);
	}
	reset(ATTR_SIZE + 24);
	user.bytes[ATTR_SIZE + 24] = 1;	/* past the size it gave: not looked at */
	EXPECT_EQ(copy(), 0);
}

TEST(faults_are_efault)
{
	reset(ATTR_SIZE);
	uaccess_window(&user, 7, true);		/* size is at 4..7 */
	EXPECT_EQ(copy(), -EFAULT);
	reset(ATTR_SIZE);
	uaccess_window(&user, ATTR_SIZE - 1, true);
	EXPECT_EQ(copy(), -EFAULT);
	reset(ATTR_SIZE + 64);
	uaccess_window(&user, ATTR_SIZE + 63, true);	/* the tail's last byte */
	EXPECT_EQ(copy(), -EFAULT);
	reset(ATTR_SIZE);
	uaccess_window(NULL, 0, true);
	EXPECT_EQ(copy(), -EFAULT);
}

TEST(reserved_flag_bits_but_persistent_are_einval)
{
	for (int bit = 38; bit < 64; bit++) {
		reset(ATTR_SIZE);
		set_flag(bit);
		EXPECT_EQ(copy(), bit == PMUOS_ATTR_FLAG_PERSISTENT_BIT ? 0 : -EINVAL);
	}
	reset(ATTR_SIZE);
	user.attr.__reserved_2 = 1;
	EXPECT_EQ(copy(), -EINVAL);
	reset(ATTR_SIZE);
	user.attr.__reserved_3 = 1;
	EXPECT_EQ(copy(), -EINVAL);
}

TEST(sample_type_and_read_format_bits)
{
	reset(ATTR_SIZE);
	user.attr.sample_type = PERF_SAMPLE_MAX - 1;
	user.attr.sample_type &= ~(PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
				   PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_WEIGHT);
	user.attr.read_format = PERF_FORMAT_MAX - 1;
	EXPECT_EQ(copy(), 0);
	user.attr.sample_type |= PERF_SAMPLE_MAX;
	EXPECT_EQ(copy(), -EINVAL);
	reset(ATTR_SIZE);
	user.attr.read_format = PERF_FORMAT_MAX;
	EXPECT_EQ(copy(), -EINVAL);
	reset(ATTR_SIZE);
	user.attr.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
	EXPECT_EQ(copy(), -EINVAL);
}

TEST(branch_stack_needs_a_branch_bit)
{
	reset(ATTR_SIZE);
	user.attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	user.attr.branch_sample_type = PERF_SAMPLE_BRANCH_PLM_ALL;
	EXPECT_EQ(copy(), -EINVAL);
	user.attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	EXPECT_EQ(copy(), 0);
	user.attr.branch_sample_type = PERF_SAMPLE_BRANCH_MAX;
	EXPECT_EQ(copy(), -EINVAL);
	user.attr.sample_type = 0;	/* unchecked when not sampled */
	EXPECT_EQ(copy(), 0);
}

TEST(register_masks)
{
	static const struct { uint64_t mask; int want; } cases[] = {
		{ 0, -EINVAL },
		{ 1ull << PERF_REG_X86_AX, 0 },
		{ 1ull << PERF_REG_X86_R15, 0 },
		{ 1ull << PERF_REG_X86_DS, -EINVAL },
		{ 1ull << PERF_REG_X86_GS, -EINVAL },
		{ 1ull << PERF_REG_X86_64_MAX, -EINVAL },	/* between R15 and XMM0 */
		{ 1ull << (PERF_REG_X86_XMM0 - 1), -EINVAL },
		{ 1ull << PERF_REG_X86_XMM0, 0 },	/* the PMU refuses it later */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset(ATTR_SIZE);
		user.attr.sample_type = PERF_SAMPLE_REGS_USER;
		user.attr.sample_regs_user = cases[i].mask;
		EXPECT_EQ(copy(), cases[i].want);
		reset(ATTR_SIZE);
		user.attr.sample_type = PERF_SAMPLE_REGS_INTR;
		user.attr.sample_regs_intr = cases[i].mask;
		EXPECT_EQ(copy(), cases[i].want);
		reset(ATTR_SIZE);
		user.attr.sample_regs_user = cases[i].mask;	/* not sampled: not checked */
		EXPECT_EQ(copy(), 0);
	}
}

TEST(user_stack_size)
{
	static const struct { uint32_t size; int want; } cases[] = {
		{ 0, 0 }, { 8, 0 }, { 0xfff8, 0 }, { 4, -EINVAL }, { 0xffff, -EINVAL },
		{ 0x10000, -EINVAL }, { 0xfffffff8, -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset(ATTR_SIZE);
		user.attr.sample_type = PERF_SAMPLE_STACK_USER;
		user.attr.sample_stack_user = cases[i].size;
		EXPECT_EQ(copy(), cases[i].want);
	}
}

TEST(max_stack_defaults_to_the_sysctl)
{
	reset(ATTR_SIZE);
	ASSERT_EQ(copy(), 0);
	EXPECT_EQ(out.sample_max_stack, 127);
	user.attr.sample_max_stack = 1000;	/* the PMU's business (EOVERFLOW) */
	ASSERT_EQ(copy(), 0);
	EXPECT_EQ(out.sample_max_stack, 1000);
}

TEST(flag_combinations)
{
	reset(ATTR_SIZE);
	user.attr.inherit_thread = 1;
	EXPECT_EQ(copy(), -EINVAL);
	user.attr.inherit = 1;
	EXPECT_EQ(copy(), 0);
	reset(ATTR_SIZE);
	user.attr.remove_on_exec = 1;
	user.attr.enable_on_exec = 1;
	EXPECT_EQ(copy(), -EINVAL);
	reset(ATTR_SIZE);
	user.attr.sigtrap = 1;
	EXPECT_EQ(copy(), -EINVAL);
	user.attr.remove_on_exec = 1;
	EXPECT_EQ(copy(), 0);
}

TEST(the_copy_is_the_users_bytes)
{
	reset(ATTR_SIZE);
	for (size_t i = 8; i < ATTR_SIZE; i++)
		user.bytes[i] = (uint8_t)(i * 7);
	/* only valid values where the checks look */
	user.attr.sample_type = PERF_SAMPLE_IP;
	user.attr.read_format = 0;
	memset(user.bytes + PMUOS_ATTR_FLAGS_OFFSET, 0, 8);
	user.attr.__reserved_2 = 0;
	user.attr.__reserved_3 = 0;
	ASSERT_EQ(copy(), 0);
	EXPECT_EQ(memcmp(&out, &user.attr, ATTR_SIZE), 0);
	EXPECT_EQ(uaccess_writes, 0);
}
