/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The bottom of the liquid scheduler (liquid_base.c): the work clock that
 * bounds every search, round-robin phase keys, JSON strings.  The layers
 * above: liquid_ff.h (first fit), liquid_search.h (the exact search),
 * liquid_a2a.h (all-to-all at scale); liquid.c and liquid_plan.c on top. */
#ifndef IBFLOW_LIQUID_BASE_H
#define IBFLOW_LIQUID_BASE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/liquid.h>

#define LQ_NONE UINT32_MAX

double lq_now(void);

/* The clock of one call.  Work is counted in units of roughly one link
 * test; the monotonic clock is read every LQ_TICK units (well under a
 * millisecond), so every phase stops within a few milliseconds of the
 * deadline. */
#define LQ_TICK 8192u

struct lq_clock {
	double start, deadline;
	uint64_t work, next, work_limit;
	bool expired;
};

/* limit in seconds; work_limit in units, 0 for none. */
void lq_clock_start(struct lq_clock *c, double limit, uint64_t work_limit);

/* Count work; true once the deadline (or the work limit) has passed. */
static inline bool lq_tick(struct lq_clock *c, uint64_t units)
{
	c->work += units;
	if (c->work >= c->next) {
		c->next = c->work + LQ_TICK;
		if (c->next > c->work_limit)
			c->next = c->work_limit;
		if (!c->expired && (c->work >= c->work_limit ||
				    lq_now() > c->deadline))
			c->expired = true;
	}
	return c->expired;
}


/* Transfers in round-robin order: by copy (the c-th transfer of a pair
 * goes to the c-th sweep), phase (dst - src mod nhosts, hosts placed by
 * pos, or in host order if pos is NULL), sender, index.  Counting sorts:
 * O(transfers + hosts).  False on allocation failure. */
struct lq_pkey {
	uint32_t x, copy, phase;
};

bool lq_phase_keys(const ibf_liquid_traffic_t *t, const uint32_t *pos,
		   struct lq_pkey *k);

/* A JSON string literal. */
void lq_json_str(FILE *fp, const char *s);

#endif
