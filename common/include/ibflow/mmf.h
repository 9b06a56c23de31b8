/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Max-min fair (MMF) rates of flows over fixed routes.
 *
 * The model (Mollah et al., "Rapid Calculation of Max-Min Fair Rates for
 * Multi-Commodity Flows in Fat-Tree Networks", IEEE TPDS 2018, section
 * 2.2): links are directed channels with a
 * capacity; a flow is a (source, destination) pair with infinite demand
 * whose traffic is spread over links by fixed fractions (single path: 1 on
 * every link of its path; even split over P paths: 1/P on each path, summed
 * where paths share a link).  An allocation is feasible when every link
 * carries at most its capacity, and max-min fair when no rate can grow
 * without shrinking a rate that is already smaller or equal.
 *
 * A flow has an integer weight c >= 1: it stands for c identical parallel
 * flows (a traffic file line "SRC DST COUNT").  rate[k] is the rate of ONE
 * of those copies; the pair as a whole carries c * rate[k], and the summary
 * counts c copies (aggregate, minimum, median).
 *
 * Two solvers answer the same question:
 *  - ibf_mmf_solve(): progressive filling with incremental updates.  Every
 *    link keeps its remaining capacity and the sum of the coefficients of
 *    its unfrozen flows; its saturation level (remaining / sum) sits in an
 *    indexed binary heap.  The lowest link is popped, its unfrozen flows are
 *    frozen at that level, and only the links those flows use are updated.
 *    Each flow is frozen once: O((F + E) log L) for E (flow, link) entries.
 *  - ibf_mmf_solve_ref(): the textbook water-filling, recomputing every
 *    link's level from scratch each round: O(rounds * E).  Kept to
 *    cross-check the fast solver in tests and as the benchmark baseline.
 */
#ifndef IBFLOW_MMF_H
#define IBFLOW_MMF_H

#include <stddef.h>
#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/traffic.h>
#include <ibflow/lfts.h>

IBF_BEGIN_DECLS

/* A problem in compressed sparse rows: flow k uses the entries
 * first[k] .. first[k + 1] - 1, entry e being link[e] with fraction
 * frac[e] in (0, 1] (a link appears at most once per flow).  Links are
 * numbered 0 .. nlinks - 1; capacity[l] > 0 for every link used. */
typedef struct ibf_mmf_problem {
	uint32_t nlinks;
	double *capacity;    /* [nlinks] */
	uint32_t nflows;
	uint32_t *weight;    /* [nflows], copies per flow (>= 1) */
	size_t *first;       /* [nflows + 1] */
	uint32_t *link;      /* [first[nflows]] */
	double *frac;        /* [first[nflows]] */
	/* Private: allocated sizes and a sort buffer for
	 * ibf_mmf_problem_add_flow(). */
	uint32_t flows_cap;
	size_t entries_cap;
	void *scratch;
	unsigned scratch_cap;
} ibf_mmf_problem_t;

/* An empty problem over nlinks links, capacities all 0. */
ibf_status_t ibf_mmf_problem_init(ibf_mmf_problem_t *p, uint32_t nlinks,
				  ibf_err_t *err);
/* Append a flow: n (link, fraction) entries; repeated links are merged
 * (fractions added). */
ibf_status_t ibf_mmf_problem_add_flow(ibf_mmf_problem_t *p, uint32_t weight,
				      const uint32_t *links,
				      const double *fracs, unsigned n,
				      ibf_err_t *err);
void ibf_mmf_problem_free(ibf_mmf_problem_t *p);

/* Refuse what has no finite MMF answer: a flow without links, weight 0, a
 * fraction outside (0, 1], a link out of range or of capacity <= 0 (or not
 * finite).  Both solvers call this first. */
ibf_status_t ibf_mmf_problem_check(const ibf_mmf_problem_t *p,
				   ibf_err_t *err);

typedef struct ibf_mmf_stats {
	unsigned rounds;     /* distinct saturation steps */
} ibf_mmf_stats_t;

/* rate: caller's array of p->nflows; stats may be NULL. */
ibf_status_t ibf_mmf_solve(const ibf_mmf_problem_t *p, double *rate,
			   ibf_mmf_stats_t *stats, ibf_err_t *err);
ibf_status_t ibf_mmf_solve_ref(const ibf_mmf_problem_t *p, double *rate,
			       ibf_mmf_stats_t *stats, ibf_err_t *err);

/* Per-copy rate statistics: aggregate = sum of weight * rate; min and
 * median over all copies (median of an even count: mean of the middle
 * two).  All 0 for a problem without flows. */
typedef struct ibf_mmf_summary {
	uint64_t copies;
	double aggregate, min, median;
} ibf_mmf_summary_t;

ibf_status_t ibf_mmf_summarize(const ibf_mmf_problem_t *p,
			       const double *rate, ibf_mmf_summary_t *s,
			       ibf_err_t *err);

/* ---- flows of a traffic over a routing (flowpaths.c) ------------------- */

typedef enum ibf_flowpaths_mode {
	IBF_FLOWPATHS_SINGLE = 0, /* DLID = base LID (offset 0) */
	IBF_FLOWPATHS_LMC,        /* even split over all 2^LMC DLIDs */
} ibf_flowpaths_mode_t;

/* Build the problem for tr over the LFTs: links are egress ports (port id
 * = link id, capacity ibf_port_capacity(); the source CA port is the
 * injection link, the last switch port the ejection link).  A flow whose
 * source equals its destination, or whose route is broken, is an error
 * naming the pair.  p must be uninitialised; on error it is left empty. */
ibf_status_t ibf_flowpaths_build(const ibf_lfts_t *l, const ibf_traffic_t *tr,
				 ibf_flowpaths_mode_t mode,
				 ibf_mmf_problem_t *p, ibf_err_t *err);

/* The same traffic on an ideal crossbar with the same hosts: each flow
 * uses only its source's injection link (link = source port id) and its
 * destination's ejection link (link = nports + destination port id), with
 * the capacities of the hosts' own links.  Its MMF aggregate is the
 * normaliser of the LFTI throughput index (docs/mmf.md). */
ibf_status_t ibf_flowpaths_crossbar(const ibf_fabric_t *f,
				    const ibf_traffic_t *tr,
				    ibf_mmf_problem_t *p, ibf_err_t *err);

IBF_END_DECLS
#endif
