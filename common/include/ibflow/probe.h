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
	unsigned tries;  /* partners tried per host and round
			  * (0 = IBF_PROBE_TRIES_DEFAULT) */
	ibf_probe_model_t model; /* 0 = IBF_PROBE_DIRECTED */
} ibf_probe_opts_t;

/* A plain number, so that option tables can show it (IBF_OPT_NUM). */
#define IBF_PROBE_TRIES_DEFAULT 64

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
	double rtt_max;  /* the largest of repeated measurements (an RTT
			    file's "A B MIN MAX"): rtt_max - rtt is the
			    measurement's own noise; 0 or below rtt: none
			    known */
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

/* ---- health: which solved latencies are suspect ----------------------------- */

/* Each aggregated link of a solution (a link, or a sum the routing
 * determines) is compared with its peers: the aggregated links of the
 * same kind, i.e. made of links between the same levels (hosts 0, a
 * switch the distance to its nearest host) with the same coefficients.
 * Reference: the peers' median, or expected_link x the row's links when
 * the per-link latency is known.  Scale: the largest of 1.4826 x the
 * peers' median absolute deviation, the peers' median measurement noise
 * (the median spread rtt_max - rtt over all measurements, times the sum
 * of |weight| over the measurements that determine a row), and 1e-6 x
 * the largest |latency|.  Suspect: latency
 * above reference + threshold x scale.  Kinds of fewer than 3 rows are
 * not judged unless expected_link is given.  See docs/probe.md. */
typedef struct ibf_probe_health_opts {
	double threshold;     /* 0 = 5 */
	double expected_link; /* one-way latency of one link; 0 = unknown */
	/* Rows x measurement nonzeros above which weights are computed for
	 * the 16 largest suspects only, and no row's noise (0 = 2e6). */
	uint64_t weight_budget;
} ibf_probe_health_opts_t;

typedef struct ibf_probe_suspect {
	uint32_t agg;         /* row of the solution's aggregated links */
	double latency, reference, excess, scale;
	/* The measurements that determine it: latency = sum weight x RTT
	 * (none listed beyond the 16th suspect of a fabric too large for
	 * every row's weights, docs/probe.md). */
	uint32_t nmeas;
	uint32_t *meas;       /* indices into the measurements */
	double *weight;
} ibf_probe_suspect_t;

typedef struct ibf_probe_health {
	uint32_t nagg;
	uint32_t *kind;        /* [nagg]: kind of each aggregated link */
	uint32_t nkinds;
	char **kind_name;      /* [nkinds]: "host>1 + 1>2" (levels) */
	double *reference;     /* [nagg]: NAN where not judged */
	double *scale;         /* [nagg] */
	double *noise;         /* [nagg]: noise_median x sum |weight| */
	uint32_t njudged;
	double threshold;
	double noise_median;   /* of the measurements' own noise */
	ibf_probe_suspect_t *suspects;  /* by excess / scale, largest first */
	uint32_t nsuspects;
} ibf_probe_health_t;

ibf_status_t ibf_probe_health(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			      const ibf_probe_meas_t *m, uint32_t nm,
			      const ibf_probe_solution_t *s,
			      const ibf_probe_health_opts_t *o,
			      ibf_probe_health_t *out, ibf_err_t *err);
void ibf_probe_health_free(ibf_probe_health_t *hl);

/* "health: N of M aggregated links judged, K suspect" and one paragraph
 * per suspect: its links, latency, reference, excess, the measurements. */
void ibf_probe_health_write_text(const ibf_fabric_t *f,
				 const ibf_hostlist_t *h,
				 const ibf_probe_meas_t *m,
				 const ibf_probe_solution_t *s,
				 const ibf_probe_health_t *hl, FILE *fp);
/* ibf_probe_solution_write_json()'s document plus "health": {threshold,
 * judged, noise_median, rows: [{kind, reference, scale, noise}] (one per
 * aggregated link, in "links" order; reference and scale null where not
 * judged), suspects: [{links, row, kind, latency, reference, excess,
 * scale, measurements: [{a, b, rtt, weight}]}]}. */
ibf_status_t ibf_probe_report_write_json(const ibf_fabric_t *f,
					 const ibf_hostlist_t *h,
					 const ibf_probe_meas_t *m,
					 const ibf_probe_solution_t *s,
					 const ibf_probe_health_t *hl,
					 FILE *fp, ibf_err_t *err);
/* Prometheus text format (prom.h): ibflow_probe_* families. */
ibf_status_t ibf_probe_health_write_prom(const ibf_fabric_t *f,
					 const ibf_probe_meas_t *m,
					 uint32_t nm,
					 const ibf_probe_solution_t *s,
					 const ibf_probe_health_t *hl,
					 FILE *fp, ibf_err_t *err);

IBF_END_DECLS
#endif
