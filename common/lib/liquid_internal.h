/* Internals shared by liquid.c (traffic, greedy, baseline, output) and
 * liquid_search.c (the exact search). */
#ifndef IBFLOW_LIQUID_INTERNAL_H
#define IBFLOW_LIQUID_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/liquid.h>

#define LQ_NONE UINT32_MAX

/* Outcome of the exact search. */
struct lq_search_out {
	bool found;          /* a liquid schedule is in frame_of */
	bool exhausted;      /* no liquid schedule exists */
	bool timed_out;
	uint32_t depth;      /* frames of the deepest liquid prefix found */
	uint64_t categories;
};

/* Search for a liquid schedule until the monotonic clock passes deadline.
 * frame_of [ntransfers] receives the schedule if found, otherwise the
 * deepest liquid prefix (frames 0..depth-1) with LQ_NONE elsewhere. */
ibf_status_t lq_search(const ibf_liquid_traffic_t *t, const uint32_t *load,
		       uint32_t duration, double deadline, uint32_t *frame_of,
		       struct lq_search_out *out);

/* Greedy colouring of the transfers with frame_of[x] == LQ_NONE, frames
 * numbered from first; returns the total frame count (first + new). */
uint32_t lq_greedy(const ibf_liquid_traffic_t *t, uint32_t *frame_of,
		   uint32_t first);

double lq_now(void);

#endif
