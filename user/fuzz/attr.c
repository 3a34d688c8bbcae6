/* user/fuzz/attr.c: random struct perf_event_attr, plausible more often than not (known types
 * and configs, sample and read formats from the defined bits), so calls get past the first
 * checks into the PMUs, the ring and the group code; wild now and then. */
#include "fuzz.h"

#include <string.h>
#include <time.h>
#include <linux/hw_breakpoint.h>
#include <pmuos/itrace.h>
#include <pmuos/perf_ext.h>

/* The flag word at attr.read_format + 8: Linux 6.1 defines bits 0..37. */
#define FLAG_DEFINED_BITS	38

uint64_t fz_value(void)
{
	switch (fz_below(10)) {
	case 0: return 0;
	case 1: return fz_below(4);
	case 2: return fz_below(256);
	case 3: return 1ull << fz_below(64);
	case 4: return (1ull << fz_below(64)) - 1;
	case 5: return (1ull << fz_below(64)) + 1;
	case 6: return -fz_below(4096);
	case 7: return fz_below(2) ? 0x7fffffffull : 0x80000000ull;
	case 8: return fz_below(100000);
	default: return fz_rand();
	}
}

static uint32_t random_type(void)
{
	static const uint32_t fixed[] = {
		PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_TRACEPOINT, PERF_TYPE_HW_CACHE,
		PERF_TYPE_RAW, PERF_TYPE_BREAKPOINT, PERF_TYPE_MAX,
	};

	switch (fz_below(13)) {
	case 0: case 1: case 2: case 3: return PERF_TYPE_SOFTWARE;
	case 11: return PERF_TYPE_BREAKPOINT;
	case 4: return PERF_TYPE_HARDWARE;
	case 5: return PERF_TYPE_RAW;
	case 6: return PERF_TYPE_HW_CACHE;
	case 7: case 8:
		if (fz_nr_pmu_types)
			return fz_pmu_types[fz_below(fz_nr_pmu_types)];
		return PERF_TYPE_SOFTWARE;
	case 9:
		if (fz_persistent_type >= 0)
			return fz_persistent_type;
		return PERF_TYPE_SOFTWARE;
	case 10: return FZ_PICK(fixed);
	default: return fz_one_in(2) ? fz_below(PERF_TYPE_MAX + 8) : (uint32_t)fz_value();
	}
}

static uint64_t random_config(uint32_t type)
{
	if (fz_one_in(16))
		return fz_value();
	switch (type) {
	case PERF_TYPE_SOFTWARE:
		return fz_below(PERF_COUNT_SW_MAX + 2);
	case PERF_TYPE_HARDWARE: {
		uint64_t c = fz_below(PERF_COUNT_HW_MAX + 1);
		/* The extended type: a PMU's type in the upper half. */
		if (fz_one_in(8) && fz_nr_pmu_types)
			c |= (uint64_t)fz_pmu_types[fz_below(fz_nr_pmu_types)] << 32;
		return c;
	}
	case PERF_TYPE_HW_CACHE:
		return fz_below(PERF_COUNT_HW_CACHE_MAX + 1) | fz_below(4) << 8 | fz_below(3) << 16;
	case PERF_TYPE_RAW:
		/* event select, umask and now and then the usr/os/edge/inv/cmask bits */
		return fz_below(0x100) | fz_below(0x100) << 8 |
		       (fz_one_in(4) ? fz_rand() & 0xffff0000ull : 0);
	default:
		if ((int)type == fz_persistent_type && fz_persistent_count() && !fz_one_in(4))
			return fz_persistent_pick();
		/* itrace: the flush period and notimer; its slowpath (some 300 instructions a
		 * traced instruction) now and then, or it would take most of the run */
		if ((int)type == fz_itrace_type)
			return fz_below(1 << 17) | (fz_one_in(16) ? ITRACE_CONFIG_SLOWPATH : 0);
		return fz_below(64);
	}
}

/* Registers perf knows for x86-64: AX..R15 without DS, ES, FS, GS (bits 0..23). */
#define REGS_VALID		(0xffffffull & ~(0xfull << 12))
#define PERF_MAX_STACK_DEPTH	127

static uint64_t random_regs(void)
{
	if (fz_one_in(4))
		return fz_value();
	return fz_rand() & REGS_VALID;
}

/* Wild: every defined bit at random, and now and then a reserved one. */
static uint64_t wild_flags(void)
{
	uint64_t flags = 0;

	for (int bit = 0; bit < FLAG_DEFINED_BITS; bit++)
		if (fz_one_in(bit == 0 ? 2 : 8))
			flags |= 1ull << bit;
	if (fz_one_in(2))
		flags |= 1ull << (FLAG_DEFINED_BITS + fz_below(64 - FLAG_DEFINED_BITS));
	return flags;
}

/* Plausible: the bits a tool sets, each now and then; the ones that need a partner
 * (inherit, pinned, exclusive, sigtrap, aux_output) rarely. */
static void plausible_flags(struct perf_event_attr *a)
{
	a->disabled = fz_below(2);
	a->exclude_user = fz_one_in(8);
	a->exclude_kernel = fz_one_in(3);
	a->exclude_hv = fz_one_in(3);
	a->exclude_idle = fz_one_in(8);
	a->mmap = fz_one_in(6);
	a->comm = fz_one_in(6);
	a->inherit_stat = fz_one_in(16);
	a->enable_on_exec = fz_one_in(16);
	a->task = fz_one_in(6);
	a->watermark = fz_one_in(8);
	a->precise_ip = fz_one_in(8) ? fz_below(4) : 0;
	a->mmap_data = fz_one_in(8);
	a->sample_id_all = fz_one_in(3);
	a->exclude_host = fz_one_in(16);
	a->exclude_guest = fz_one_in(16);
	a->exclude_callchain_kernel = fz_one_in(8);
	a->exclude_callchain_user = fz_one_in(8);
	a->mmap2 = fz_one_in(8);
	a->comm_exec = fz_one_in(8);
	a->use_clockid = fz_one_in(8);
	a->context_switch = fz_one_in(6);
	a->write_backward = fz_one_in(8);
	a->namespaces = fz_one_in(16);
	a->ksymbol = fz_one_in(16);
	a->bpf_event = fz_one_in(16);
	a->cgroup = fz_one_in(16);
	a->text_poke = fz_one_in(16);
	a->build_id = fz_one_in(16);
	a->inherit = fz_one_in(16);
	a->pinned = fz_one_in(16);
	a->exclusive = fz_one_in(16);
	a->aux_output = fz_one_in(32);
	a->remove_on_exec = fz_one_in(16);
	a->sigtrap = a->remove_on_exec && fz_one_in(2);
}

/* Sample formats a PMU can write: no branch stack, registers with a valid mask, a stack
 * size that is a multiple of 8, one weight format; the AUX snapshot rarely. */
static void plausible_sample(struct perf_event_attr *a)
{
	a->sample_type = fz_rand() & (PERF_SAMPLE_MAX - 1) & ~PERF_SAMPLE_BRANCH_STACK;
	if (fz_one_in(2))
		a->sample_type &= 0x3ff;
	if ((a->sample_type & PERF_SAMPLE_WEIGHT) && fz_one_in(2))
		a->sample_type &= ~PERF_SAMPLE_WEIGHT_STRUCT;
	if ((a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		a->sample_type &= ~PERF_SAMPLE_WEIGHT;
	if (!fz_one_in(8))
		a->sample_type &= ~PERF_SAMPLE_AUX;
	if (a->inherit)
		a->sample_type &= ~PERF_SAMPLE_READ;
	a->sample_regs_user = 1 | (fz_rand() & REGS_VALID);
	a->sample_regs_intr = 1 | (fz_rand() & REGS_VALID);
	a->sample_stack_user = 8 * fz_below(512);
	if (!a->sample_stack_user)
		a->sample_type &= ~PERF_SAMPLE_STACK_USER;
	a->sample_max_stack = fz_below(PERF_MAX_STACK_DEPTH + 1);
	a->read_format = fz_rand() & (PERF_FORMAT_MAX - 1);
	a->wakeup_events = fz_below(4);
	if (a->watermark)
		a->wakeup_watermark = fz_one_in(2) ? fz_below(FZ_PAGE) : fz_below(1 << 20);
}

static uint32_t random_size(void)
{
	static const uint32_t sizes[] = {
		0, PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER2,
		PERF_ATTR_SIZE_VER3, PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5, PERF_ATTR_SIZE_VER6,
		PERF_ATTR_SIZE_VER7, PERF_ATTR_SIZE_VER7 + 8, 4096, 4097, 8, 63, 65,
	};

	if (!fz_one_in(3))
		return sizeof(struct perf_event_attr);
	return fz_one_in(4) ? fz_below(4200) : FZ_PICK(sizes);
}

static void random_sampling(struct perf_event_attr *a)
{
	if (fz_one_in(3))
		return;		/* counting */
	if (fz_one_in(4)) {
		a->freq = 1;
		a->sample_freq = fz_one_in(8) ? fz_value() : 1 + fz_below(20000);
	} else {
		a->sample_period = fz_one_in(8) ? fz_value() :
				   fz_one_in(2) ? 1 + fz_below(16) : 1000 + fz_below(100000);
	}
}

static void wild_rest(struct perf_event_attr *a)
{
	uint64_t flags = wild_flags();

	memcpy((char *)a + PMUOS_ATTR_FLAGS_OFFSET, &flags, sizeof(flags));
	a->sample_type = fz_rand() & (PERF_SAMPLE_MAX - 1);
	if (fz_one_in(2))
		a->sample_type |= fz_value();
	a->read_format = fz_rand() & (PERF_FORMAT_MAX - 1);
	if (fz_one_in(2))
		a->read_format |= fz_value();
	a->wakeup_events = fz_one_in(2) ? fz_below(4) : (uint32_t)fz_value();
	a->bp_type = fz_one_in(4) ? (uint32_t)fz_value() : 0;
	a->config1 = fz_one_in(4) ? fz_value() : 0;
	a->config2 = fz_one_in(4) ? fz_value() : 0;
	a->branch_sample_type = fz_one_in(4) ? fz_value() : 0;
	a->sample_regs_user = random_regs();
	a->sample_stack_user = fz_one_in(4) ? (uint32_t)fz_value() : fz_below(0x1000) & ~7u;
	a->sample_regs_intr = random_regs();
	a->aux_watermark = fz_one_in(4) ? (uint32_t)fz_value() : 0;
	a->sample_max_stack = fz_one_in(4) ? (uint16_t)fz_value() : fz_below(130);
	a->aux_sample_size = fz_one_in(8) ? (uint32_t)fz_value() : 0;
	if (fz_one_in(4))
		a->__reserved_2 = fz_value();
	if (fz_one_in(4))
		a->__reserved_3 = fz_value();
	if (fz_one_in(4))
		a->sample_period = fz_value();
}

/* Breakpoints (type 5): mostly what Linux takes (W, RW or X; lengths 1, 2, 4, 8, X 8) on
 * what the work touches (the scratch pages it faults, which system calls also fill, and
 * fz_op_work's code), now and then anything: R alone, bad lengths, misaligned, kernel and
 * non-canonical addresses. */
static void plausible_bp(struct perf_event_attr *a)
{
	static const uint32_t types[] = {
		HW_BREAKPOINT_W, HW_BREAKPOINT_RW, HW_BREAKPOINT_X, HW_BREAKPOINT_W,
		HW_BREAKPOINT_RW, HW_BREAKPOINT_R, HW_BREAKPOINT_EMPTY, HW_BREAKPOINT_INVALID,
	};
	static const uint32_t lens[] = { 1, 2, 4, 8, 8, 3, 0, 16 };
	uint8_t *scratch = fz_scratch();

	a->bp_type = fz_one_in(16) ? (uint32_t)fz_value() : FZ_PICK(types);
	a->bp_len = fz_one_in(16) ? fz_value() : a->bp_type == HW_BREAKPOINT_X ? 8 : FZ_PICK(lens);
	switch (fz_below(6)) {
	case 0: case 1:
		a->bp_addr = (uint64_t)(scratch + fz_below(8) * FZ_PAGE);
		break;
	case 2:
		a->bp_addr = (uint64_t)(scratch + fz_below(16 * FZ_PAGE)) & ~7ull;
		break;
	case 3:
		a->bp_addr = (uint64_t)fz_op_work;
		break;
	case 4:
		a->bp_addr = fz_one_in(2) ? 0x7ffffffff000ull - 8 * fz_below(3) : fz_value();
		break;
	default:
		a->bp_addr = (uint64_t)(scratch + fz_below(64));
	}
}

void fz_random_attr(struct perf_event_attr *attr, size_t *size)
{
	static const int clocks[] = {
		CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME, CLOCK_TAI,
		CLOCK_PROCESS_CPUTIME_ID, -1, 16,
	};

	memset(attr, 0, sizeof(*attr));
	attr->type = random_type();
	attr->config = random_config(attr->type);
	if (fz_one_in(4)) {
		wild_rest(attr);
	} else {
		plausible_flags(attr);
		plausible_sample(attr);
		if (fz_one_in(8)) {
			attr->config1 = fz_value();
			attr->config2 = fz_value();
		}
		if (fz_one_in(16))
			attr->aux_watermark = fz_value();
	}
	if (attr->type == PERF_TYPE_BREAKPOINT && !fz_one_in(8))
		plausible_bp(attr);
	random_sampling(attr);
	attr->clockid = fz_one_in(4) ? FZ_PICK(clocks) : CLOCK_MONOTONIC;
	attr->sig_data = fz_value();
	if (fz_one_in(48))
		attr->__reserved_1 |= 1u << (PMUOS_ATTR_FLAG_PERSISTENT_BIT - 38);

	*size = random_size();
	attr->size = fz_one_in(16) ? (uint32_t)fz_value() : *size;
}
