/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The MMF multi-commodity-flow optimum on PGFTs: the max-min fair rates
 * reachable by ANY routing (flows may be split arbitrarily over any paths),
 * computed exactly on fat trees.  See docs/mmf.md, "Optimum".
 *
 * Seed 004, Lemma 2 / Theorem 1: on a PGFT the MMF-MCF optimum equals the
 * MMF rates when every flow is split evenly over all its shortest paths
 * (UAPR).  Under that split all links of one level of one sub-fat-tree
 * carry the same load, so each such set is represented by one aggregated
 * link (capacity = its size x the common link capacity) and the MMF
 * problem shrinks to at most 2h links per flow; ibf_mmf_solve() solves it.
 *
 * Same model and semantics as mmf.h: links are egress ports including the
 * hosts' injection and ejection links, capacity = ibf_port_capacity(); a
 * flow of COUNT c stands for c identical flows and rates[k] is the rate of
 * ONE copy.
 *
 * When the exact optimum is not computed the call fails with
 * IBF_ERR_UNSUPPORTED and a message starting "exact MMF-MCF optimum not
 * computed: " followed by the reason:
 *  - pg == NULL: the fabric is not a PGFT (callers pass the result of a
 *    failed ibf_pgft_recognize() as NULL);
 *  - a degraded PGFT (switches or links between switches missing):
 *    sub-fat-trees are no longer symmetric, UAPR is not the optimum
 *    (missing hosts are fine: they only remove flows);
 *  - links of one level of one sub-fat-tree with different capacities
 *    (the symmetry argument needs them equal).
 * Bad flows are IBF_ERR_INVALID naming the pair (source == destination,
 * endpoints in different planes, COUNT 0, not an endpoint).
 */
#ifndef IBFLOW_MMF_OPT_H
#define IBFLOW_MMF_OPT_H

#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/traffic.h>
#include <ibflow/mmf.h>
#include <ibflow/pgft.h>

IBF_BEGIN_DECLS

typedef struct ibf_mmf_opt_opts {
	unsigned nthreads;   /* 0 or 1: one thread */
} ibf_mmf_opt_opts_t;

/*
 * Can the exact optimum be computed on this fabric?  IBF_OK, or
 * IBF_ERR_UNSUPPORTED with the reason (see above).  pg may be NULL.
 * Cheap (linear in links); callers may call it once before many
 * instances to print the reason.
 */
ibf_status_t ibf_mmf_opt_supported(const ibf_pgft_t *pg,
				   const ibf_fabric_t *f, ibf_err_t *err);

/*
 * The MMF-MCF optimum of flows[0..nflows) on the PGFT pg of fabric f
 * (pg->fabric == f).  rates: caller's array of nflows, the per-copy rate.
 * o may be NULL (defaults).  Pure computation: no I/O, no recognition.
 */
ibf_status_t ibf_mmf_opt_pgft(const ibf_pgft_t *pg, const ibf_fabric_t *f,
			      const ibf_flow_t *flows, uint32_t nflows,
			      double *rates, const ibf_mmf_opt_opts_t *o,
			      ibf_err_t *err);

/*
 * The aggregated problem itself (for tests and introspection): flow k of
 * p is flows[k]; its links are the sub-fat-tree representatives.  p must be
 * uninitialised; on error it is left empty.  ibf_mmf_opt_pgft() is
 * ibf_mmf_solve() on this problem.
 */
ibf_status_t ibf_mmf_opt_problem(const ibf_pgft_t *pg, const ibf_fabric_t *f,
				 const ibf_flow_t *flows, uint32_t nflows,
				 ibf_mmf_problem_t *p, ibf_err_t *err);

IBF_END_DECLS
#endif
