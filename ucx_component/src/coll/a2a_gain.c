/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * auto's prediction (docs/ucx-alltoall.md, "auto"): what the node-aware
 * plan takes against what the MPI library's linear and pairwise
 * exchanges reach on the same routed paths, both as multiples of the
 * host-level bound (the busiest link's blocks), from the plan's own
 * figures: no path is traced again, nothing is simulated.
 *
 * Liquid: the plan's chain over the bound (plan_blocks / bound_blocks,
 * the longest chain of host-pair volumes through the releases).  Under
 * credit flow control the simulated time follows the chain: 1.000-1.007x
 * the bound at 4 and 16 ranks per host where the chain is the bound,
 * 1.14-1.35x where hosts of 1-8 ranks make it 13-35 % longer
 * (docs/benchmarks.md, "Under credit flow control").
 *
 * The others: the best of linear and pairwise, by a rule measured in the
 * simulator, since neither can be predicted from the plan: the bound
 * where one rank per host meets round robin over the hosts without
 * contention (rr_frames == duration: every shift a permutation of
 * disjoint paths, pairwise's best case, measured at 1.007-1.113x), and
 * otherwise IBF_UCXI_A2A_OTHERS_OVER above it: the least the best of
 * linear and pairwise was measured above the bound in every other case
 * (1.095x: pairwise, 64 hosts of the PGFT with 16 ranks each).
 */
#include "config.h"

#include "coll/a2a_internal.h"

void ibf_ucxi_a2a_predict(const ibf_ucxi_a2a_figures_t *f,
			  ibf_ucxi_a2a_predict_t *p)
{
	bool rr_free = !f->shared && f->rr_frames <= f->duration;

	if (f->bound_blocks)
		p->liquid = (double)f->plan_blocks / (double)f->bound_blocks;
	else
		p->liquid = f->duration ? (double)f->nframes / f->duration :
			    1.0;
	if (p->liquid < 1.0)
		p->liquid = 1.0;   /* no plan beats the bound */
	p->others = rr_free ? 1.0 : 1.0 + IBF_UCXI_A2A_OTHERS_OVER;
	p->gain = p->others / p->liquid;
}
