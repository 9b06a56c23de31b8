/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * UAPR (uniform all-shortest-path routing; Mollah et al., "Rapid
 * Calculation of Max-Min Fair Rates for Multi-Commodity Flows in Fat-Tree
 * Networks", IEEE TPDS 2018, section 3.1) on
 * InfiniBand: the 2^LMC LIDs of a destination port take distinct shortest
 * paths.  The core is shared with destination-mod-k (route_dmodk.c): LID
 * offset j is read as a mixed-radix number whose digits, lowest level
 * first, turn the up link choice (over w_i p_i) and the down parallel link
 * choice (over p_i) of each level away from the destination-mod-k ones.
 * Offset 0 is routed exactly as dmodk routes it.  The guarantee is stated
 * and derived in docs/routing.md.
 */
#include "routing/route_internal.h"

static ibf_status_t run(const ibf_fabric_t *f, const ibf_route_opts_t *o,
			ibf_routing_t *r, ibf_err_t *err)
{
	return ibf_route_pgft_run(f, true, o, r, err);
}

const ibf_route_engine_t ibf_route_engine_uapr = {
	"uapr",
	"uniform all-shortest-path routing over the LIDs of each port (PGFT)",
	run,
	IBF_ROUTE_PGFT_LABELS,
};
