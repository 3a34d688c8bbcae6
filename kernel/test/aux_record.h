/* The events and records of the AUX writers' self-tests (kernel/perf/test/aux.c,
 * kernel/test/itrace.c), through perf.h's in-kernel events only. */
#pragma once
#include "../perf/perf.h"

/* The events' sample_id_all trailer: TID, IDENTIFIER. */
#define AUX_TEST_ID_WORDS	2

static inline struct perf_event_attr aux_test_attr(uint32_t type, uint64_t config)
{
	return (struct perf_event_attr){
		.size = sizeof(struct perf_event_attr),
		.type = type,
		.config = config,
		.disabled = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER,
		.sample_id_all = 1,
	};
}

/* The next PERF_RECORD_AUX from *pos: header, offset, size, flags, the trailer. */
static inline bool aux_record_is(struct perf_event *e, uint64_t *pos, uint64_t offset,
				 uint64_t size, uint64_t flags)
{
	uint64_t r[4 + AUX_TEST_ID_WORDS];

	if (!perf_ring_next_record(e, pos, PERF_RECORD_AUX, r, sizeof(r)))
		return false;
	return (uint16_t)(r[0] >> 48) == sizeof(r) && r[1] == offset &&
	       r[2] == size && r[3] == flags && r[5] == e->id;
}
