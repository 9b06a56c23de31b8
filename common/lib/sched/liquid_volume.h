/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Node-aware plans placed by volume (liquid_volume.c): for hosts of
 * different rank counts, each unit pair laid on its links' timelines for
 * its c_A x c_B blocks instead of in equal frames. */
#ifndef IBFLOW_LIQUID_VOLUME_H
#define IBFLOW_LIQUID_VOLUME_H

#include "sched/liquid_a2a.h"

/* Work units (about one interval step each) all placements together may
 * spend: deterministic, about 0.1-0.3 s; past it the plan is kept. */
#define LQ_VOLUME_WORK (1ull << 26)

/* A node-aware plan's unit pairs in frame order: pair k is
 * src[k] -> dst[k] in frame frame[k]; frame_off [nframes + 1]. */
struct lq_vpairs {
	uint64_t T;
	uint32_t U, nframes;
	uint32_t *src, *dst, *frame;
	uint64_t *frame_off;
	uint32_t *frame_of_pair;   /* out: [U * U] a -> b's frame, or NULL */
};

/* The longest chain of volumes when each pair starts once, on each of its
 * links, the previous user in this order is in (what the predecessors of
 * ibf_liquid_deps_build give); vol(k) = ranks of src x ranks of dst
 * (unit_off [U + 1]).  Pairs in frame order;
 * UINT64_MAX on allocation failure. */
uint64_t lq_volume_chain(const struct lq_a2a *a, const uint32_t *unit_off,
			 const struct lq_vpairs *v);

/* Place the pairs of v by volume (several priority orders, each pair at
 * the earliest block time all its links are free for its volume) and, if
 * one placement's chain is below *chain, replace v's arrays by it (the
 * old ones freed), set v->frame_of_pair and *chain.  v untouched
 * otherwise (frame_of_pair stays NULL).  Hosts of equal rank counts,
 * incomplete tails, *chain already within 1 % of bound (the busiest
 * link's blocks) or past the work budget: nothing done. */
ibf_status_t lq_volume_place(const struct lq_a2a *a,
			     const uint32_t *unit_off, uint64_t bound,
			     uint64_t *chain, struct lq_vpairs *v,
			     ibf_err_t *err);

/* One placement (what lq_volume_place tries in several orders): the
 * pairs of v in the order prio (pair numbers), each at the earliest
 * block time start[k] at which all its links are free for its volume.
 * IBF_ERR_RANGE past the work budget. */
ibf_status_t lq_volume_times(const struct lq_a2a *a,
			     const uint32_t *unit_off,
			     const struct lq_vpairs *v, const uint32_t *prio,
			     uint64_t *start, ibf_err_t *err);

#endif
