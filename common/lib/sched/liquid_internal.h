/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Internals of the liquid scheduler.  Calls go down only: liquid.c (the
 * API: traffic, greedy, baseline, output) and liquid_plan.c on top;
 * liquid_search.c (the exact search), liquid_a2a.c (all-to-all at scale)
 * and liquid_ff.c (first fit) below them; liquid_base.c (clock, phase
 * keys, JSON strings) at the bottom. */
#ifndef IBFLOW_LIQUID_INTERNAL_H
#define IBFLOW_LIQUID_INTERNAL_H

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

/* Read the clock now. */
bool lq_expired(struct lq_clock *c);

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

/* Greedy colouring of the transfers with frame_of[x] == LQ_NONE, frames
 * numbered from first; returns the total frame count (first + new), or
 * LQ_NONE on allocation failure or when the clock expired (frame_of is
 * then partly written). */
uint32_t lq_greedy(const ibf_liquid_traffic_t *t, uint32_t *frame_of,
		   uint32_t first, struct lq_clock *clk);

/* First fit over all frames (liquid_ff.c).  Frame occupancy is kept
 * word-major, so the words near the frontier of every link share cache
 * lines: bit f % 64 of bits[(f / 64) * L + x] is frame f on link x; bit
 * w % 64 of full[(w / 64) * L + x] says word w of link x is full. */
struct lq_ff {
	uint32_t L, FW, SW;   /* links, words of frames, words of full */
	uint32_t nf;          /* frames used */
	uint64_t *bits, *full;
	uint32_t *ffw;        /* [L] first word of each link not full */
};

/* Room for about duration frames to start with (grown on demand). */
bool lq_ff_init(struct lq_ff *F, uint32_t nlinks, uint32_t duration);
void lq_ff_free(struct lq_ff *F);
/* The first frame in which the nl links are all free, now taken; LQ_NONE
 * on allocation failure. */
uint32_t lq_ff_place(struct lq_ff *F, const uint32_t *l, uint32_t nl,
		     struct lq_clock *clk);
/* A fixed pseudo-random order of 0..n-1 (the same on every machine for a
 * given n): perm[p] is the p-th, pos its inverse. */
void lq_mixed_order(uint32_t n, uint32_t *perm, uint32_t *pos);
/* First fit of a traffic of link sets, in round-robin phases over a mixed
 * order of the hosts; returns the frame count, or LQ_NONE (memory,
 * clock). */
uint32_t lq_ff_sets(const ibf_liquid_traffic_t *t, uint32_t duration,
		    uint32_t *frame_of, struct lq_clock *clk);

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
