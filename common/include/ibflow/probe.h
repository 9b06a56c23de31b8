/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Minimal parallel latency probing (PMM): which host pairs to measure, in
 * how few rounds, and how to turn the measured round-trip times into link
 * latencies and the RTT of every host pair.  See docs/probe.md.
 *
 * Unknowns are directed links, named by their egress port (the directed
 * model), or links whose latency is the same both ways (the symmetric
 * model of the PMM paper: half as many unknowns, fewer probes).  The RTT
 * of a pair (a, b) is the sum of the links on the routed path a -> b and
 * on the path b -> a (LID offset 0, traced through the LFTs); a link on
 * both legs counts twice.  A plan is a maximal linearly independent set
 * of pair vectors (rank decided exactly: see probe_plan.c), packed into
 * rounds in which no two probes share a host or a directed link (the
 * links are full duplex whatever the model).
 */
#ifndef IBFLOW_PROBE_H
#define IBFLOW_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/hosts.h>
#include <ibflow/lfts.h>

IBF_BEGIN_DECLS

/* Longest leg traced (links). */
#define IBF_PROBE_MAX_HOPS 64u

/* What the unknowns are.  Directed: one per directed link; right whatever
 * the two directions of a link do.  Symmetric: one per link, its one-way
 * latency taken equal both ways (the PMM paper's assumption); fewer
 * probes, but wrong where the directions differ (an asymmetric queue, a
 * delay on one direction only): the fit then spreads the difference. */
typedef enum ibf_probe_model {
	IBF_PROBE_DIRECTED = 0,
	IBF_PROBE_SYMMETRIC = 1
} ibf_probe_model_t;

/* "directed" / "symmetric". */
const char *ibf_probe_model_name(ibf_probe_model_t m);
/* From that name; IBF_ERR_INVALID for any other string. */
ibf_status_t ibf_probe_model_parse(const char *s, ibf_probe_model_t *m);

typedef struct ibf_probe_pair {
	uint32_t a, b;  /* indices into the host list, a != b */
} ibf_probe_pair_t;

typedef struct ibf_probe_plan {
	uint32_t nhosts;
	uint32_t rank;          /* = npairs: the plan's pairs are a basis */
	uint32_t npairs;
	ibf_probe_pair_t *pairs; /* round by round */
	uint32_t nrounds;
	uint32_t *round_start;   /* [nrounds + 1] into pairs */
	uint32_t lower_bound;    /* ceil(npairs / floor(nhosts / 2)) */
	uint32_t nlinks;         /* links of the model: directed links, or
				  * (symmetric) cables, both ways as one */
	uint64_t tested;         /* pairs whose independence was tested */
	double time_s;
	ibf_probe_model_t model;
} ibf_probe_plan_t;

typedef struct ibf_probe_opts {
	unsigned tries;  /* partners tried per host and round (0 = 64) */
	ibf_probe_model_t model; /* 0 = IBF_PROBE_DIRECTED */
} ibf_probe_opts_t;

/* The directed links of pair (a, b): both legs, egress port ids, a link on
 * both legs listed twice.  IBF_ERR_INVALID when a leg is not delivered. */
ibf_status_t ibf_probe_pair_links(const ibf_lfts_t *l, ibf_port_id_t a,
				  ibf_port_id_t b, ibf_port_id_t *links,
				  unsigned max, unsigned *n, ibf_err_t *err);

/* Plan the probes among the hosts of h (at least 2). */
ibf_status_t ibf_probe_plan(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			    const ibf_probe_opts_t *o, ibf_probe_plan_t *out,
			    ibf_err_t *err);
void ibf_probe_plan_free(ibf_probe_plan_t *p);

/* The plan as JSON on fp: {"rank", "pairs", "rounds", "lower_bound"}, plus
 * "hosts" (the host list, in order), "topo" and "lfts" (what probe-solve
 * re-reads to trace every pair; may be NULL), "model", "links",
 * "time_s". */
ibf_status_t ibf_probe_plan_write_json(const ibf_fabric_t *f,
				       const ibf_hostlist_t *h,
				       const ibf_probe_plan_t *p,
				       const char *topo, const char *lfts,
				       FILE *fp, ibf_err_t *err);

/* What probe-solve needs back from a plan file: the host names in order,
 * the topology and LFT paths (NULL when absent) and the model (directed
 * when the file names none: plans written before there was a choice). */
typedef struct ibf_probe_plan_file {
	char *topo, *lfts;
	char **hosts;
	uint32_t nhosts;
	ibf_probe_model_t model;
} ibf_probe_plan_file_t;

ibf_status_t ibf_probe_plan_file_read(const char *path,
				      ibf_probe_plan_file_t *out,
				      ibf_err_t *err);
void ibf_probe_plan_file_free(ibf_probe_plan_file_t *p);

/* ---- solving ------------------------------------------------------------ */

typedef struct ibf_probe_meas {
	uint32_t a, b;   /* host indices */
	double rtt;
	unsigned line;   /* input line, for messages (0 = none) */
} ibf_probe_meas_t;

/* RTT file (rtt_io.h): lines "A B RTT" or "A B MIN MAX" (names as in
 * host lists; a name with blanks may be quoted; unquoted, exactly one
 * split of the words must name two hosts of h); an interval counts as its
 * MIN.  Blank lines and # comments are skipped. */
ibf_status_t ibf_probe_rtt_read(const ibf_fabric_t *f,
				const ibf_hostlist_t *h, const char *path,
				ibf_probe_meas_t **out, uint32_t *n,
				ibf_err_t *err);

typedef struct ibf_probe_solution {
	uint32_t rank;          /* of the measured pairs */
	ibf_probe_model_t model;
	/* Aggregated links: rows of the row canonical form.  Row i covers
	 * agg_links[agg_start[i] .. agg_start[i+1]) (egress port ids) with
	 * coefficients agg_coef (1 for a plain sum of links).  Symmetric
	 * model: a link is named by one of its two egress ports and its
	 * latency is one way (the same both ways). */
	uint32_t nagg;
	uint32_t *agg_start;
	ibf_port_id_t *agg_links;
	double *agg_coef;
	double *agg_latency;
	/* Every host pair a < b, in order (0,1), (0,2), ..., (n-2,n-1):
	 * predicted RTT, NAN when the measurements do not determine it. */
	double *pair_rtt;
	uint32_t nhosts;
	/* Per measurement: measured - fitted. */
	double *residual;
	uint32_t nmeas;
	double residual_max;
	uint32_t *flagged;      /* measurements with |residual| > tol */
	uint32_t nflagged;
} ibf_probe_solution_t;

/* Least-squares fit of link latencies to the measurements (exact when
 * they are independent), then predictions for every pair.  tol: residual
 * above which a measurement is flagged inconsistent (<= 0: 1e-6 times the
 * largest |RTT|). */
ibf_status_t ibf_probe_solve(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			     const ibf_probe_meas_t *m, uint32_t nm,
			     double tol, ibf_probe_solution_t *out,
			     ibf_err_t *err);
/* The same under a chosen model (ibf_probe_solve() is the directed one). */
ibf_status_t ibf_probe_solve_model(const ibf_lfts_t *l,
				   const ibf_hostlist_t *h,
				   ibf_probe_model_t model,
				   const ibf_probe_meas_t *m, uint32_t nm,
				   double tol, ibf_probe_solution_t *out,
				   ibf_err_t *err);
void ibf_probe_solution_free(ibf_probe_solution_t *s);

/* {"links":[{"links":["NODE:PORT", ...], "latency":X}, ...],
 *  "pairs":[{"a":"A", "b":"B", "rtt":X}, ...], "residual_max":E}
 * plus "model", "rank" and "inconsistent" (flagged measurements); an aggregated
 * link whose coefficients are not all 1 also carries "coefficients". */
ibf_status_t ibf_probe_solution_write_json(const ibf_fabric_t *f,
					   const ibf_hostlist_t *h,
					   const ibf_probe_meas_t *m,
					   const ibf_probe_solution_t *s,
					   FILE *fp, ibf_err_t *err);

IBF_END_DECLS
#endif
