/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The exact search for a liquid schedule (liquid_search.c). */
#ifndef IBFLOW_LIQUID_SEARCH_H
#define IBFLOW_LIQUID_SEARCH_H

#include "sched/liquid_base.h"

/* Outcome of the exact search. */
struct lq_search_out {
	bool found;          /* a liquid schedule is in frame_of */
	bool exhausted;      /* no liquid schedule exists */
	bool timed_out;
	uint32_t depth;      /* frames of the deepest liquid prefix found */
	uint64_t categories;
};

/* The search refuses traffics above this size: its conflict matrix costs
 * T^2/8 bytes (32,768 transfers: 128 MiB). */
#define LQ_SEARCH_MAX_TRANSFERS 32768u

/* Search for a liquid schedule until the clock expires.  frame_of
 * [ntransfers] receives the schedule if found, otherwise the deepest
 * liquid prefix (frames 0..depth-1) with LQ_NONE elsewhere. */
ibf_status_t lq_search(const ibf_liquid_traffic_t *t, const uint32_t *load,
		       uint32_t duration, struct lq_clock *clk,
		       uint32_t *frame_of, struct lq_search_out *out);

#endif
