/* The x86 hardware PMU as one struct pmu ("cpu", PERF_TYPE_RAW): attr checks,
 * counter scheduling, periods and the PMI, over the vendor table that
 * intel.c, amd.c (or the model under intel.c) fill. After Linux 6.1's
 * arch/x86/events/core.c, without PEBS, LBR and hybrid PMUs. */
#include "internal.h"
#include "../percpu.h"
#include "../apic.h"
#include "../cpu_stats.h"
#include "../traps.h"
#include <asm/perf_regs.h>
#include <asm-generic/errno.h>

struct x86_pmu x86_pmu;
long x86_pmu_counters_used;

/* Each CPU's counters (Linux's cpu_hw_events): used from add to del,
 * active from start to stop; the PMI only touches active ones. */
struct cpu_hw_events {
	struct perf_event *events[X86_PMC_IDX_MAX];
	uint64_t used, active;
	int rdpmc_users;		/* mapped events: CR4.PCE while > 0 */
};
static DEFINE_PER_CPU(struct cpu_hw_events, cpu_hw_events);

static inline struct cpu_hw_events *this_cpuc(void)
{
	return this_cpu_ptr(&cpu_hw_events);
}

/* A PMI found this many overflows in a row: give up until the next one. */
#define PMI_MAX_LOOPS	100

/* ---- counting: the shift trick of x86_perf_event_update ---- */

/* prev_count holds raw values sign-extended from the counter width: the
 * form the mmap page's offset needs, since user space sign-extends RDPMC by
 * pmc_width (perf_event_mmap_page's recipe). */
static uint64_t sign_extend(uint64_t raw)
{
	int shift = 64 - x86_pmu.cntval_bits;

	return (uint64_t)((int64_t)(raw << shift) >> shift);
}

/* Fold the counter into e->count. The PMI (an NMI) may fold the same counter
 * between our read and our store: the cmpxchg makes one of them win. */
static uint64_t x86_perf_event_update(struct perf_event *e)
{
	struct hw_perf_event *hw = &e->hw;
	int shift = 64 - x86_pmu.cntval_bits;
	uint64_t prev = __atomic_load_n(&hw->prev_count, __ATOMIC_RELAXED), now;

	do {
		now = sign_extend(pmu_rdmsr(hw->event_base));
	} while (!__atomic_compare_exchange_n(&hw->prev_count, &prev, now, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	uint64_t delta = ((now << shift) - (prev << shift)) >> shift;
	__atomic_fetch_add(&e->count, delta, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&hw->period_left, (int64_t)delta, __ATOMIC_RELAXED);
	return now;
}

/* Arm the counter at -left so it overflows after period_left more events
 * (Linux's x86_perf_event_set_period). True when a period ended. */
static bool x86_perf_event_set_period(struct perf_event *e)
{
	struct hw_perf_event *hw = &e->hw;
	int64_t left = hw->period_left, period = hw->sample_period;
	bool ended = false;

	if (left <= -period) {		/* far behind: skip forward */
		left = period;
		hw->last_period = period;
		ended = true;
	}
	if (left <= 0) {
		left += period;
		hw->last_period = period;
		ended = true;
	}
	hw->period_left = left;
	/* Linux's quirk for CPUs that misbehave with one event left; kept so
	 * that periods behave as they do under Linux. */
	if (left < 2)
		left = 2;
	if ((uint64_t)left > x86_pmu.max_period)
		left = x86_pmu.max_period;
	hw->prev_count = (uint64_t)-left;
	pmu_wrmsr(hw->event_base, (uint64_t)-left & x86_pmu.cntval_mask);
	perf_event_update_userpage(e);
	return ended;
}

/* ---- scheduling ---- */

/* The free counter for config: its fixed counter first (as Linux's
 * __perf_sched_find_counter), else the lowest general-purpose one; -1 if
 * none. Greedy is optimal here: each fixed counter serves one event code,
 * and general-purpose counters are interchangeable. */
static int find_counter(uint64_t config, uint64_t used)
{
	uint64_t free = x86_pmu.constraint(config) & ~used;

	if (!free)
		return -1;
	if (free >> X86_PMC_IDX_FIXED)
		return X86_PMC_IDX_FIXED + __builtin_ctzll(free >> X86_PMC_IDX_FIXED);
	return __builtin_ctzll(free);
}

/* Claim config's counter in *used for validate_group: -EINVAL if none. */
static int claim_counter(uint64_t config, uint64_t *used)
{
	int idx = find_counter(config, *used);

	if (idx < 0)
		return -EINVAL;
	*used |= BIT_ULL(idx);
	return 0;
}

/* Linux's validate_group(): the group with e must fit an empty PMU, or it
 * could never count (-EINVAL at open, not a silent multiplexing stall).
 * Siblings that are off do not count, as in Linux's collect_events(). */
static int validate_group(struct perf_event *e)
{
	struct perf_event *leader = e->group_leader;
	uint64_t used = 0;

	if (leader->pmu == &x86_cpu_pmu && claim_counter(leader->hw.config, &used))
		return -EINVAL;
	for (struct perf_event *s = leader->sibling_next; s; s = s->sibling_next)
		if (s->pmu == &x86_cpu_pmu && s->state > PERF_EVENT_STATE_OFF &&
		    claim_counter(s->hw.config, &used))
			return -EINVAL;
	return claim_counter(e->hw.config, &used);
}

/* ---- event_init: attr -> hw.config (Linux's x86_pmu_hw_config) ---- */

static int hardware_event(struct perf_event *e, uint64_t config)
{
	if (config >= PERF_COUNT_HW_MAX)
		return -EINVAL;
	if (!x86_pmu.event_map[config])
		return -ENOENT;
	e->hw.config |= x86_pmu.event_map[config];
	return 0;
}

/* Linux's set_ext_hw_attr: fields out of range are EINVAL; a cache event
 * the CPU's table lacks is ENOENT. The tables are per CPU model in Linux;
 * the architectural (fallback) one is empty, and so is ours. */
static int cache_event(uint64_t config)
{
	if ((config & 0xff) >= PERF_COUNT_HW_CACHE_MAX ||
	    ((config >> 8) & 0xff) >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    ((config >> 16) & 0xff) >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return -EINVAL;
	return -ENOENT;
}

static int x86_pmu_event_init(struct perf_event *e)
{
	struct perf_event_attr *attr = &e->attr;
	struct hw_perf_event *hw = &e->hw;
	int err;

	if (attr->type != PERF_TYPE_HARDWARE && attr->type != PERF_TYPE_HW_CACHE &&
	    attr->type != PERF_TYPE_RAW)
		return -ENOENT;
	/* Linux 6.1's extended type: config[63:32] of a hardware or cache
	 * event names its PMU. Ours is PERF_TYPE_RAW; another is not ours. */
	if (attr->type != PERF_TYPE_RAW && attr->config >> PERF_PMU_TYPE_SHIFT) {
		if (attr->config >> PERF_PMU_TYPE_SHIFT != PERF_TYPE_RAW)
			return -ENOENT;
		attr->config &= PERF_HW_EVENT_MASK;	/* as Linux's perf_init_event */
	}
	if (attr->precise_ip > x86_pmu.max_precise)
		return -EOPNOTSUPP;	/* Linux's x86_pmu_max_precise(): no PEBS or IBS here */
	if ((attr->sample_regs_user | attr->sample_regs_intr) & PERF_REG_EXTENDED_MASK)
		return -EINVAL;		/* no XMM registers in samples */

	hw->config = ARCH_PERFMON_EVENTSEL_INT;	/* every event folds its wraps in the PMI */
	if (!attr->exclude_user)
		hw->config |= ARCH_PERFMON_EVENTSEL_USR;
	if (!attr->exclude_kernel)
		hw->config |= ARCH_PERFMON_EVENTSEL_OS;
	if (!is_sampling_event(e)) {
		hw->sample_period = x86_pmu.max_period;
		hw->last_period = hw->sample_period;
		hw->period_left = hw->sample_period;
	}
	if (attr->type == PERF_TYPE_RAW)
		hw->config |= attr->config & x86_pmu.raw_event_mask;
	else if (attr->type == PERF_TYPE_HW_CACHE)
		return cache_event(attr->config);
	else if ((err = hardware_event(e, attr->config)))
		return err;
	if (x86_pmu.hw_config && (err = x86_pmu.hw_config(e)))
		return err;
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;	/* no LBR */
	hw->idx = -1;
	if (e->group_leader != e)
		return validate_group(e);
	return x86_pmu.constraint(hw->config) ? 0 : -EINVAL;	/* validate_event() */
}

/* ---- add/del/start/stop ---- */

void x86_pmu_enable_gp(struct hw_perf_event *hw, bool on)
{
	pmu_wrmsr(hw->config_base, hw->config | (on ? ARCH_PERFMON_EVENTSEL_ENABLE : 0));
}

static void x86_pmu_start(struct perf_event *e, int flags)
{
	struct hw_perf_event *hw = &e->hw;

	if (hw->idx < 0 || !(hw->state & PERF_HES_STOPPED))
		return;
	if (flags & PERF_EF_RELOAD)
		x86_perf_event_set_period(e);
	hw->state = 0;
	this_cpuc()->active |= BIT_ULL(hw->idx);
	x86_pmu.enable(hw, true);
	perf_event_update_userpage(e);
}

static void x86_pmu_stop(struct perf_event *e, int flags)
{
	struct hw_perf_event *hw = &e->hw;

	if (hw->idx >= 0 && (this_cpuc()->active & BIT_ULL(hw->idx))) {
		x86_pmu.enable(hw, false);
		this_cpuc()->active &= ~BIT_ULL(hw->idx);
		hw->state |= PERF_HES_STOPPED;
	}
	if ((flags & PERF_EF_UPDATE) && !(hw->state & PERF_HES_UPTODATE)) {
		x86_perf_event_update(e);
		hw->state |= PERF_HES_UPTODATE;
	}
}

static int x86_pmu_add(struct perf_event *e, int flags)
{
	struct hw_perf_event *hw = &e->hw;
	int idx = find_counter(hw->config, this_cpuc()->used);

	if (idx < 0)
		return -EAGAIN;
	this_cpuc()->used |= BIT_ULL(idx);
	__atomic_fetch_add(&x86_pmu_counters_used, 1, __ATOMIC_RELAXED);	/* every CPU's */
	this_cpuc()->events[idx] = e;
	hw->idx = idx;
	hw->config_base = x86_pmu.config_addr(idx);
	hw->event_base = x86_pmu.event_addr(idx);
	hw->rdpmc_index = idx >= X86_PMC_IDX_FIXED ? (int)(RDPMC_FIXED | (idx - X86_PMC_IDX_FIXED)) : idx;
	hw->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		x86_pmu_start(e, PERF_EF_RELOAD);
	perf_event_update_userpage(e);
	return 0;
}

static void x86_pmu_del(struct perf_event *e, int flags)
{
	struct hw_perf_event *hw = &e->hw;

	if (hw->idx < 0)
		return;
	x86_pmu_stop(e, PERF_EF_UPDATE);
	this_cpuc()->used &= ~BIT_ULL(hw->idx);
	__atomic_fetch_sub(&x86_pmu_counters_used, 1, __ATOMIC_RELAXED);
	this_cpuc()->events[hw->idx] = NULL;
	hw->idx = -1;
	perf_event_update_userpage(e);
}

static void x86_pmu_read(struct perf_event *e)
{
	if (e->hw.idx >= 0)
		x86_perf_event_update(e);
}

static int x86_pmu_event_idx(struct perf_event *e)
{
	return e->hw.idx >= 0 ? e->hw.rdpmc_index + 1 : 0;
}

/* User RDPMC while an event's page is mapped: CR4.PCE, Linux's default
 * /sys/devices/cpu/rdpmc = 1 (per mm there; one task at a time here). */
static void x86_pmu_event_mapped(struct perf_event *e)
{
	if (this_cpuc()->rdpmc_users++ == 0)
		write_cr4(read_cr4() | CR4_PCE);
}

static void x86_pmu_event_unmapped(struct perf_event *e)
{
	if (--this_cpuc()->rdpmc_users == 0)
		write_cr4(read_cr4() & ~CR4_PCE);
}

/* ---- the PMI ---- */

/* Overflowed counters: the vendor's status register, else (Intel v1, AMD
 * before PerfMonV2) the active counters whose top bit cleared: an armed
 * counter has it set until it wraps (Linux's x86_pmu_handle_irq). */
static uint64_t overflowed_counters(void)
{
	uint64_t status = 0, top = BIT_ULL(x86_pmu.cntval_bits - 1);

	if (x86_pmu.get_status)
		return x86_pmu.get_status();
	for (uint64_t m = this_cpuc()->active; m; m &= m - 1) {
		int idx = __builtin_ctzll(m);
		if (!(pmu_rdmsr(this_cpuc()->events[idx]->hw.event_base) & top))
			status |= BIT_ULL(idx);
	}
	return status;
}

bool x86_pmu_handle_irq(struct pt_regs *regs)
{
	/* The sampling CPU budget times the handler, as Linux's
	 * perf_event_nmi_handler does. */
	unsigned long work = perf_sample_work_now();
	uint64_t start = rdtsc(), status;
	bool handled;

	if (x86_pmu.disable_all)
		x86_pmu.disable_all();
	status = overflowed_counters();
	handled = status != 0;
	if (handled)
		this_cpu_stats()->pmis++;
	for (int loops = 0; status && loops < PMI_MAX_LOOPS; loops++) {
		if (x86_pmu.ack_status)
			x86_pmu.ack_status(status);	/* every bit: no event owns a stray one */
		for (uint64_t m = status & this_cpuc()->active; m; m &= m - 1) {
			struct perf_event *e = this_cpuc()->events[__builtin_ctzll(m)];
			x86_perf_event_update(e);
			if (!x86_perf_event_set_period(e) || !is_sampling_event(e))
				continue;	/* counting events only fold their wraps */
			if (perf_event_overflow(e, regs))
				x86_pmu_stop(e, 0);
		}
		status = overflowed_counters();
	}
	if (x86_pmu.enable_all)
		x86_pmu.enable_all();
	/* Intel's local APIC masks LVT PerfMon as it delivers a PMI (AMD's does
	 * not): unmask it once the counters are rearmed, as Linux's late ack. */
	apic_write(APIC_LVT_PERF, APIC_DM_NMI);
	perf_irq_took(work, rdtsc() - start);
	return handled;
}

/* ---- the struct pmu ---- */

struct pmu x86_cpu_pmu = {
	.name = "cpu",
	.type = PERF_TYPE_RAW,
	.event_init = x86_pmu_event_init,
	.add = x86_pmu_add,
	.del = x86_pmu_del,
	.start = x86_pmu_start,
	.stop = x86_pmu_stop,
	.read = x86_pmu_read,
	.event_idx = x86_pmu_event_idx,
	.event_mapped = x86_pmu_event_mapped,
	.event_unmapped = x86_pmu_event_unmapped,
};
