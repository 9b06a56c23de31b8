/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Path diversity of a layered routing, after FatPaths (Besta et al.,
 * SC'20, section IV-B), measured on the routes actually installed.
 *
 * A layered routing offers, between two switches s and t, one route per
 * layer: the route that a packet from s to a DLID of layer i of an endpoint
 * on t follows through the LFTs.  The caller names, for every switch t and
 * layer i, the DLID that represents (t, i) (e.g. the layer-i LID of the
 * first endpoint on t).  For every ordered switch pair (s, t), s != t,
 * with t represented:
 *
 *   distinct  the number of different link sequences among the n routes;
 *   cdp       the paper's count of disjoint paths c_l({s},{t}) -- the
 *             fewest links whose removal leaves no path from s to t --
 *             taken in the graph formed by the links of the n routes
 *             (so l is bounded by what the layers offer); by Menger's
 *             theorem this is the number of edge-disjoint s-t paths in
 *             that graph, computed exactly by unit-capacity max-flow.
 *             Parallel links count separately.
 *
 * Routes that do not arrive at t (no entry, loop, dead end) make the pair
 * "broken": it is counted apart and left out of the statistics.
 */
#ifndef IBFLOW_DIVERSITY_H
#define IBFLOW_DIVERSITY_H

#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/lfts.h>

IBF_BEGIN_DECLS

#define IBF_DIVERSITY_HIST 16 /* cdp / distinct histograms: 0..15, 15+ */

typedef struct ibf_diversity {
	unsigned nlayers;
	uint64_t pairs;                 /* ordered switch pairs measured */
	uint64_t broken;                /* pairs with a route not arriving */
	uint64_t distinct_sum, cdp_sum;
	unsigned distinct_min, cdp_min; /* over measured pairs */
	uint64_t pairs_cdp_ge3;         /* pairs with cdp >= 3 */
	uint64_t distinct_hist[IBF_DIVERSITY_HIST];
	uint64_t cdp_hist[IBF_DIVERSITY_HIST];
} ibf_diversity_t;

/* One pair: the routes from switch index s toward dlid[j], j < n (the
 * DLIDs of one destination switch, one per layer).  Returns -1 if some
 * route does not arrive (then *distinct and *cdp are 0). */
int ibf_diversity_pair(const ibf_lfts_t *l, uint32_t s, const unsigned *dlid,
		       unsigned n, unsigned *distinct, unsigned *cdp);

/* All pairs.  rep[t * nlayers + i] is the DLID representing switch index
 * t in layer i; 0 means t is not a destination (no endpoints). */
ibf_status_t ibf_diversity_compute(const ibf_lfts_t *l, unsigned nlayers,
				   const unsigned *rep, ibf_diversity_t *out,
				   ibf_err_t *err);

static inline double ibf_diversity_share_ge3(const ibf_diversity_t *d)
{
	return d->pairs ? (double)d->pairs_cdp_ge3 / (double)d->pairs : 0.0;
}

IBF_END_DECLS
#endif
