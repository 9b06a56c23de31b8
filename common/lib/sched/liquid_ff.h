/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* First fit of transfers into frames (liquid_ff.c). */
#ifndef IBFLOW_LIQUID_FF_H
#define IBFLOW_LIQUID_FF_H

#include "sched/liquid_base.h"

/* First fit over all frames.  Frame occupancy is kept
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

#endif
