/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Evaluation of routings by max-min fair rates on LFTI traffic patterns:
 * the driver behind `ibflow eval`, a library so the OpenSM plugin can call
 * it on the tables it has just computed.  See docs/eval.md.
 *
 * For every pattern instance the driver builds the host flows (patterns.h:
 * ranks placed on hosts by a rank map), computes their MMF rates over each
 * routing (mmf.h: flow paths from the LFTs), their MMF rates on an ideal
 * crossbar (the LFTI normaliser) and, on request, the MMF-MCF optimum
 * (mmf_opt.h, PGFTs only).  Per routing and pattern it reports
 *   index       = sum over instances of the aggregate rate on the routing
 *                 / the same sum on the crossbar (docs/mmf.md);
 *   opt_index   = the same for the optimum; ratio = index / opt_index;
 *   min_rate, median_rate over all flow copies of all instances;
 *   max_link_load = the largest number of flows (copies; fractions of
 *                 split flows) on one directed link, over instances;
 *   seconds     = time spent in the MMF solver alone (tracing and pattern
 *                 generation excluded), summed over instances;
 *   opt_seconds = the same for the optimum (shared by all routings, as the
 *                 optimum does not depend on the routing).
 * Instances run in parallel on nthreads threads; results do not depend on
 * the number of threads.
 */
#ifndef IBFLOW_EVAL_H
#define IBFLOW_EVAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/lfts.h>

IBF_BEGIN_DECLS

typedef enum ibf_eval_paths {
	IBF_EVAL_SINGLE = 0, /* base LID only (LID offset 0) */
	IBF_EVAL_LMC,        /* even split over the 2^LMC LIDs */
	IBF_EVAL_LAYERS,     /* same computation as LMC: with layered routing
				LID offset o is layer o mod n (docs/eval.md) */
} ibf_eval_paths_t;

typedef enum ibf_eval_algo {
	IBF_EVAL_FAST = 0,   /* ibf_mmf_solve */
	IBF_EVAL_REF,        /* ibf_mmf_solve_ref */
} ibf_eval_algo_t;

/* One routing to evaluate: its tables and a name for reports (the file). */
typedef struct ibf_eval_routing {
	const char *name;
	const ibf_lfts_t *lfts;
} ibf_eval_routing_t;

/* Progress: called from the calling thread, done of total instances
 * finished (all patterns together). */
typedef void (*ibf_eval_progress_fn)(void *arg, uint64_t done,
				     uint64_t total);

typedef struct ibf_eval_opts {
	ibf_eval_paths_t paths;
	ibf_eval_algo_t algo;
	/* Rank order: order[0..norder) (each a connected CA port, no
	 * repeats), or NULL for the fabric's endpoints in node order.
	 * random_map shuffles it with the seed. */
	const ibf_port_id_t *order;
	uint32_t norder;
	bool random_map;
	uint64_t seed;
	bool opt;            /* compute the MMF-MCF optimum (PGFTs) */
	bool keep_flows;     /* keep per-flow rates (ibf_eval_write_flows) */
	unsigned nthreads;   /* 0 or 1: the calling thread only */
	ibf_eval_progress_fn progress;
	void *progress_arg;
} ibf_eval_opts_t;

/* A flow of one instance with its rate (per copy) on one routing. */
typedef struct ibf_eval_flow {
	uint32_t instance;
	ibf_port_id_t src, dst;
	uint32_t count;
	double rate;
	double opt_rate;     /* 0 when the optimum is not computed */
} ibf_eval_flow_t;

/* One routing x one pattern. */
typedef struct ibf_eval_result {
	uint32_t routing, pattern;
	uint32_t instances;
	uint64_t flows;      /* flow copies over all instances */
	double throughput;   /* sum of aggregates over instances */
	double crossbar;     /* the same on the crossbar */
	double opt_throughput;
	double index, opt_index, ratio; /* opt_index, ratio valid if has_opt */
	double min_rate, median_rate;
	/* Over instances, the largest load of one directed link (host links
	 * included): flows crossing it, a COUNT c counting c, a flow split
	 * over paths (lmc, layers) counting its fraction on the link. */
	double max_link_load;
	double seconds, opt_seconds;
	bool has_opt;
	ibf_eval_flow_t *flow; /* [nflow] with keep_flows, else NULL */
	uint64_t nflow;
} ibf_eval_result_t;

typedef struct ibf_eval {
	const ibf_fabric_t *fabric;
	ibf_eval_paths_t paths;
	uint32_t nroutings, npatterns;
	char **routing_name;   /* [nroutings] */
	char **pattern_name;   /* [npatterns], the specs as given */
	uint32_t nranks;
	bool opt_asked;        /* opts->opt */
	bool opt_done;         /* the optimum was computed */
	char opt_note[IBF_ERR_MSG_MAX]; /* why not, when opt_asked && !done */
	/* result[r * npatterns + p] */
	ibf_eval_result_t *result;
} ibf_eval_t;

/*
 * Evaluate nr routings of fabric f on np pattern specs (patterns.h).  Bad
 * specs, patterns the ranks cannot form, hosts not in the fabric (file:
 * patterns) and pairs a routing does not deliver are errors naming the
 * pattern, the routing and the pair; nothing is returned then.  With
 * opts->opt on a fabric that is not a PGFT (or a degraded one) the run
 * succeeds with opt_done false and the reason in opt_note.
 */
ibf_status_t ibf_eval_run(const ibf_fabric_t *f,
			  const ibf_eval_routing_t *routings, uint32_t nr,
			  const char *const *specs, uint32_t np,
			  const ibf_eval_opts_t *opts, ibf_eval_t **out,
			  ibf_err_t *err);
void ibf_eval_destroy(ibf_eval_t *e);

static inline const ibf_eval_result_t *
ibf_eval_result(const ibf_eval_t *e, uint32_t routing, uint32_t pattern)
{
	return &e->result[(size_t)routing * e->npatterns + pattern];
}

/* "single", "lmc", "layers". */
const char *ibf_eval_paths_name(ibf_eval_paths_t p);

/* The results as JSON on fp: {"patterns":[{"name", "flows", "index",
 * "opt_index", "ratio", "min_rate", "median_rate", "max_link_load",
 * "seconds", "opt_seconds"}, ...]}, one entry per routing and pattern;
 * with several routings each entry also has "routing".  Values not
 * computed are null. */
ibf_status_t ibf_eval_write_json(const ibf_eval_t *e, FILE *fp,
				 ibf_err_t *err);

/* Per-flow rates as CSV on fp: "pattern,instance,src,dst,rate[,opt_rate]"
 * (preceded by a "routing" column with several routings), hosts by
 * ibf_port_host_name(); needs keep_flows. */
ibf_status_t ibf_eval_write_flows(const ibf_eval_t *e, FILE *fp,
				  ibf_err_t *err);

IBF_END_DECLS
#endif
