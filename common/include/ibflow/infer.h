/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Topology inference from round-trip times, after T. Shirai, H. Saito and
 * K. Taura, "A Fast Topology Inference: a building block for network-aware
 * parallel processing", HPDC 2007.
 *
 * The network among the hosts is modelled as a tree: hosts are leaves,
 * switches inner nodes, edges carry latencies.  Hosts are added one by
 * one; each is placed by the branching point of (A, B, H) on the path
 * A-B (the paper's equation (1)), pruning the subtrees of an existing
 * branching point that hold A and B until the point next to H is known.
 * Measurements come from an oracle (callback + context), so one code
 * serves recorded RTT files, the synthetic oracle below and live
 * measurements (UCX).  See docs/infer.md.
 *
 * Units: whatever the oracle returns (µs for the synthetic oracle).  An
 * RTT is the sum of the one-way latencies of the path there and back, so
 * the RTT of two hosts is twice the sum of the edge latencies between
 * them in the tree.
 */
#ifndef IBFLOW_INFER_H
#define IBFLOW_INFER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/rtt_io.h>

IBF_BEGIN_DECLS

/* ---- the oracle --------------------------------------------------------- */

/* One measurement of hosts a and b (indices 0..nhosts-1, a != b): the RTT
 * as an interval [min, max] (min == max for a single value; the paper
 * returns the best and the worst of three rounds of ping-pongs, Fig. 6).
 * Return IBF_OK with *min <= *max, IBF_ERR_NOT_FOUND when this pair
 * cannot be measured (the inference chooses other hosts), any other
 * status (err filled) to abort the inference.  Called at most once per
 * unordered pair, one call at a time; it may block for as long as the
 * measurement takes. */
typedef ibf_status_t (*ibf_infer_measure_fn)(void *ctx, uint32_t a,
					     uint32_t b, double *min,
					     double *max, ibf_err_t *err);

/* Measurements in flight (the parallel search, docs/infer.md "In
 * parallel"): start begins measuring hosts a and b (a != b) and returns;
 * the caller names it by tag.  wait blocks until one started
 * measurement is over and reports it: its tag, [min, max] and its status
 * as measure's (IBF_OK or IBF_ERR_NOT_FOUND) in *st.  Both return IBF_OK,
 * or another status (err filled) to abort.  No host is in two
 * measurements in flight; each unordered pair is started at most once.
 * Which one wait reports first is the oracle's business (the first to
 * finish); the search is deterministic given that order. */
typedef ibf_status_t (*ibf_infer_start_fn)(void *ctx, uint32_t a, uint32_t b,
					   uint32_t tag, ibf_err_t *err);
typedef ibf_status_t (*ibf_infer_wait_fn)(void *ctx, uint32_t *tag,
					  double *min, double *max,
					  ibf_status_t *st, ibf_err_t *err);

typedef struct ibf_infer_oracle {
	uint32_t nhosts;
	ibf_infer_measure_fn measure;
	void *ctx;
	/* Both NULL: the parallel search measures with measure(), one
	 * pair at a time in the order started. */
	ibf_infer_start_fn start;
	ibf_infer_wait_fn wait;
} ibf_infer_oracle_t;

/* ---- inference ---------------------------------------------------------- */

typedef struct ibf_infer_opts {
	/* Coincidence radius (RTT units): a branching point is an existing
	 * switch when the switch lies within tol of the interval the
	 * measured [min, max] give for the point.  Set it to half the RTT
	 * of the smallest hop (= that hop's one-way latency): trees are
	 * then exact while every RTT is within half of it of the truth
	 * (docs/infer.md).  0: the measured intervals alone (the paper). */
	double tol;
	/* The close-host search (the paper's find_close_host with its 3x
	 * and x/3 pruning) measures at most this many hosts before a host
	 * is inserted: 0 = IBF_INFER_LOOKAHEAD_DEFAULT, IBF_INFER_LOOKAHEAD_OFF = none,
	 * IBF_INFER_LOOKAHEAD_ALL = until no candidate is left. */
	unsigned lookahead;
	/* Keep every edge as first measured.  By default the latencies
	 * are refitted to all measurements by least squares every few
	 * hosts and at the end, so errors do not add up along paths. */
	bool raw_lengths;
	/* Insertion order (a permutation of the hosts), NULL = 0, 1, ... */
	const uint32_t *order;
	/* Seed of the close-host search's random first choice. */
	uint64_t seed;
	/* Hosts inserted concurrently: 0 = default
	 * (IBF_INFER_PARALLEL_DEFAULT), 1 = one measurement at a time (the
	 * paper), N = up to N hosts search at once; a measurement one asks
	 * for starts as soon as it shares no host and no link of the tree
	 * inferred so far with those in flight (docs/infer.md, "In
	 * parallel"). */
	unsigned parallel;
	/* Parallel mode: at most this many measurements in flight at once
	 * (0 = as many as the slots and the rule above allow).  Where the
	 * measured hosts share a few CPUs (an emulated fabric on one
	 * machine), measurements in flight slow each other down and widen
	 * the RTTs' noise; the links do not. */
	unsigned max_in_flight;
} ibf_infer_opts_t;

/* Plain numbers, so that option tables can show them (IBF_OPT_NUM). */
#define IBF_INFER_PARALLEL_DEFAULT 16
#define IBF_INFER_PARALLEL_MAX 4096u

#define IBF_INFER_LOOKAHEAD_OFF UINT32_MAX
#define IBF_INFER_LOOKAHEAD_ALL (UINT32_MAX - 1)
/* The budget the live inference over UCX and soft-RoCE was measured
 * with (docs/benchmarks.md); ibflow infer and ibflow-infer show it. */
#define IBF_INFER_LOOKAHEAD_DEFAULT 8

/* The tree: nodes 0..nhosts-1 are the hosts (same indices as the
 * oracle's), nhosts..nnodes-1 the inferred switches.  Edge i joins ea[i]
 * and eb[i] (eb[i] the node nearer to host order[0]) with one-way
 * latency lat[i].  Every switch has at least three neighbours; with two
 * hosts the tree is one switch between them. */
typedef struct ibf_infer_tree {
	uint32_t nhosts, nnodes, nedges;
	uint32_t *ea, *eb;
	double *lat;
} ibf_infer_tree_t;

typedef struct ibf_infer_meas {
	uint32_t a, b;
	double min, max;
	uint8_t lookahead; /* measured by the close-host search */
	/* Started after this many measurements were over (serial: its
	 * index); the trace shows from it what was in flight. */
	uint32_t started_after;
} ibf_infer_meas_t;

typedef struct ibf_infer_stats {
	uint64_t pairs;          /* pairs measured (= nmeas) */
	uint64_t add_pairs;      /* by the insertion procedure (add) */
	uint64_t lookahead_pairs; /* by the close-host search */
	uint64_t unavailable;    /* pairs the oracle could not measure */
	uint32_t max_host_pairs; /* most pairs measured to insert one host */
	uint32_t max_add_pairs;  /* most by add alone for one host (the
				    paper bounds it by p(d-1)+1) */
	double cpu_s;            /* time in the algorithm, oracle excluded */
	double oracle_s;         /* time inside the oracle's calls */
	uint32_t max_in_flight;  /* most measurements in flight at once */
	double mean_in_flight;   /* in flight on average, counted when
				    each one ends (serial: 1) */
	uint32_t parallel;       /* the opts' parallel, default resolved */
	uint32_t in_flight_cap;  /* the opts' max_in_flight (0: none, or
				    one pair at a time) */
} ibf_infer_stats_t;

typedef struct ibf_infer_result {
	ibf_infer_tree_t tree;
	ibf_infer_meas_t *meas;  /* every pair measured, in order */
	uint32_t nmeas;
	ibf_infer_stats_t stats;
} ibf_infer_result_t;

/* Infer the tree of the oracle's hosts (at least 2). */
ibf_status_t ibf_infer_run(const ibf_infer_oracle_t *o,
			   const ibf_infer_opts_t *opts,
			   ibf_infer_result_t *out, ibf_err_t *err);
void ibf_infer_result_free(ibf_infer_result_t *r);

/* ---- the tree ----------------------------------------------------------- */

/* RTT predicted between every two hosts: out[a * nhosts + b]. */
ibf_status_t ibf_infer_tree_rtts(const ibf_infer_tree_t *t, double *out,
				 ibf_err_t *err);
/* Hops (edges) between every two hosts: out[a * nhosts + b]. */
ibf_status_t ibf_infer_tree_hops(const ibf_infer_tree_t *t, uint32_t *out,
				 ibf_err_t *err);
/* Largest switch degree p and largest number of hops d between hosts. */
void ibf_infer_tree_shape(const ibf_infer_tree_t *t, uint32_t *p,
			  uint32_t *d);

/* The tree as a fabric for the topology writers: hosts are single-port
 * CAs named names[i], switches "infer-sNNN" (numbered in node order);
 * links 4x EDR; LIDs assigned in node order at LMC lmc.  Fails
 * (IBF_ERR_RANGE) when a switch would need more than 254 ports. */
ibf_status_t ibf_infer_tree_fabric(const ibf_infer_tree_t *t,
				   const char *const *names, unsigned lmc,
				   ibf_fabric_t **out, ibf_err_t *err);
/* Graphviz, edges labelled with their one-way latency. */
ibf_status_t ibf_infer_tree_write_dot(const ibf_infer_tree_t *t,
				      const char *const *names, FILE *fp,
				      ibf_err_t *err);

/* ---- offline oracle: a table of RTTs (an RTT file) ---------------------- */

typedef struct ibf_infer_table ibf_infer_table_t;

/* Repeated pairs merge: the smallest MIN and the largest MAX. */
ibf_status_t ibf_infer_table_create(const ibf_rtt_set_t *s, uint32_t nhosts,
				    ibf_infer_table_t **out, ibf_err_t *err);
void ibf_infer_table_destroy(ibf_infer_table_t *t);
/* The table as an oracle: measure() one pair at a time
 * (IBF_ERR_NOT_FOUND for pairs the table lacks), or several in
 * flight, where wait reports the one whose pair comes first in the file
 * (pairs the table lacks before any), so a trace of a parallel run,
 * whose pairs are in the order they ended, replays that run. */
ibf_infer_oracle_t ibf_infer_table_oracle(ibf_infer_table_t *t);

/* ---- synthetic oracle --------------------------------------------------- */

typedef enum ibf_infer_noise {
	/* Each measurement returns one value, the true RTT plus a uniform
	 * error in [-noise, +noise]. */
	IBF_INFER_NOISE_UNIFORM = 0,
	/* The paper's measurement (Fig. 6): three rounds of ping-pongs,
	 * each ending when its best was not beaten for 10 round trips or
	 * after 30; a round trip takes the true RTT plus noise x Exp(1)
	 * (queueing); returns the best and the worst of the rounds' bests. */
	IBF_INFER_NOISE_PINGPONG = 1,
} ibf_infer_noise_t;

#define IBF_INFER_SYNTH_LEVELS 8

typedef struct ibf_infer_synth_opts {
	/* One-way latency of a link at level l, the hops from its upper end
	 * to the nearest host (1 = a host's link, 2 = leaf to the switch
	 * above, ...): latency[min(l, nlatency) - 1].  nlatency 0 = the
	 * default {1.0, 0.25} µs. */
	double latency[IBF_INFER_SYNTH_LEVELS];
	unsigned nlatency;
	/* Each latency times (1 + jitter x U[0,1)): per link on trees; per
	 * level otherwise, so that parallel paths of a fat tree stay equal
	 * and RTTs a tree metric. */
	double jitter;
	double noise;
	ibf_infer_noise_t model;
	/* Time a measurement takes: the round trips it makes (for
	 * UNIFORM: 30 round trips of the true RTT) plus this overhead
	 * (0 = default 20 µs; negative = none). */
	double overhead;
	bool sleep;            /* really wait that long in every call */
	uint64_t seed;
} ibf_infer_synth_opts_t;

typedef struct ibf_infer_synth ibf_infer_synth_t;

/* Hosts = the fabric's endpoints (connected CA ports) in endpoint order;
 * true RTTs = twice the least latency over the links (Dijkstra). */
ibf_status_t ibf_infer_synth_create(const ibf_fabric_t *f,
				    const ibf_infer_synth_opts_t *o,
				    ibf_infer_synth_t **out, ibf_err_t *err);
void ibf_infer_synth_destroy(ibf_infer_synth_t *s);
/* The synthetic fabric as an oracle; measurements in flight are an
 * event simulation on a virtual clock: a measurement ends its charged
 * time after its start, wait reports the earliest end (ties: the first
 * started) and moves the clock there.  The time charged is then the
 * makespan. */
ibf_infer_oracle_t ibf_infer_synth_oracle(ibf_infer_synth_t *s);
uint32_t ibf_infer_synth_nhosts(const ibf_infer_synth_t *s);
const char *const *ibf_infer_synth_names(const ibf_infer_synth_t *s);
/* True RTTs, [a * nhosts + b]. */
const double *ibf_infer_synth_truth(const ibf_infer_synth_t *s);
/* The smallest per-hop RTT (twice the smallest link latency). */
double ibf_infer_synth_min_hop_rtt(const ibf_infer_synth_t *s);
/* Time charged so far: the virtual clock (serial: the sum over
 * measurements). */
double ibf_infer_synth_charged(const ibf_infer_synth_t *s);
/* One fresh measurement of every pair, outside the count and the charge
 * (for predicted/measured ratios): out[a * nhosts + b] = its MIN. */
void ibf_infer_synth_measure_all(ibf_infer_synth_t *s, double *out);

/* ---- the coincidence radius, estimated from the RTTs -------------------- */

typedef struct ibf_infer_radius {
	bool found;        /* false: no estimate (why says why), tol 0 */
	double tol;        /* the radius: hop / 2 + noise / 4 (= l, the
			      rule of opts.tol) */
	double hop;        /* smallest gap between branching points above
			      the noise: a hop (2 l), less the noise */
	double noise;      /* bound on the noise of a gap: half the largest
			      four-point defect of random quadruples */
	uint32_t paths;    /* paths A-B whose branching points were used */
	uint64_t gaps;     /* gaps between consecutive points, all paths */
	char why[96];      /* one line: how tol was found, or why not */
} ibf_infer_radius_t;

/* rtt: [n*n] RTTs (NaN or negative: not measured).  Along up to 1,024
 * measured paths A-B (a seeded sample), the branching points
 * (AB + AH - BH) / 2 of every host H measured to both ends are sorted;
 * the gaps between neighbours are noise (one switch's points scattered)
 * up to the noise bound (from 200,000 random quadruples: in a tree the
 * two largest of AB + CD, AC + BD, AD + BC are equal) and hops above
 * it.  IBF_OK with found false when the table has no such triangles or
 * quadruples, or the noise reaches the hops. */
ibf_status_t ibf_infer_radius_estimate(const double *rtt, uint32_t n,
				       uint64_t seed, ibf_infer_radius_t *out,
				       ibf_err_t *err);

/* ---- accuracy ----------------------------------------------------------- */

/* Hops between the hosts of a true topology: hosts[i] is the endpoint
 * (CA port) of inferred host i.  In a fat tree the hop metric is that of
 * the tree of its subtrees, which is what RTTs can reveal. */
ibf_status_t ibf_infer_truth_hops(const ibf_fabric_t *f,
				  const ibf_port_id_t *hosts, uint32_t n,
				  uint32_t *out, ibf_err_t *err);

typedef struct ibf_infer_accuracy {
	/* "Do A->B and C->D share a link?" for distinct A, B, C, D: over
	 * every such pair of pairs when there are at most 1e7, else over
	 * `queries` random ones (the paper: 100,000). */
	uint64_t queries, shared, false_pos, false_neg;
	bool exhaustive;
	/* Predicted / measured RTT over the pairs with a measurement. */
	uint64_t ratio_pairs;
	double ratio_min, ratio_p05, ratio_median, ratio_p95, ratio_max;
} ibf_infer_accuracy_t;

/* true_hops: [n*n] from ibf_infer_truth_hops (NULL: no shared-link
 * queries); measured: [n*n] RTTs, NaN or negative = none (NULL: no
 * ratios).  Two paths share a link when their overlap (from the hop
 * metric, half of ab + cd - min(ac+bd, ad+bc)) is at least one hop. */
ibf_status_t ibf_infer_accuracy(const ibf_infer_tree_t *t,
				const uint32_t *true_hops,
				const double *measured, uint64_t queries,
				uint64_t seed, ibf_infer_accuracy_t *out,
				ibf_err_t *err);

/* ---- bandwidth map (the paper's section 6.1) ---------------------------- */

/* Measure the pairs of one round at the same time (the plan makes them
 * share no link of the tree): bw[i] for pairs[i] (hosts), in any unit.
 * IBF_OK, or a status that aborts (err filled). */
typedef ibf_status_t (*ibf_infer_bw_fn)(void *ctx, const uint32_t *pairs,
					uint32_t n, double *bw,
					ibf_err_t *err);

typedef struct ibf_infer_bw_oracle {
	ibf_infer_bw_fn measure;
	void *ctx;
} ibf_infer_bw_oracle_t;

/* Stage by stage from the deepest level: stage i measures the edges from
 * the switches at depth h-i to their children, pairing one host under
 * each child (the one with the most bandwidth to that child known so
 * far); concurrent measurements share no edge.  pairs[k] = hosts
 * pairs[2k], pairs[2k+1]; measurement k gives its bandwidth to the edges
 * edge[2k] and edge[2k+1] (IBF_INFER_NONE: none; the odd child of a
 * switch is measured in an extra round against a sibling and sets its
 * own edge only). */
#define IBF_INFER_NO_EDGE UINT32_MAX

typedef struct ibf_infer_bwmap {
	uint32_t root;          /* the switch the depths count from */
	uint32_t height;        /* stages */
	uint32_t nrounds;
	uint32_t *round_start;  /* [nrounds + 1] into the measurements */
	uint32_t *round_stage;  /* [nrounds] */
	uint32_t nmeas;
	uint32_t *pairs;        /* [2 nmeas] */
	uint32_t *edge;         /* [2 nmeas] tree edge indices */
	double *bw;             /* [nmeas], NaN when planned only */
	double *edge_bw;        /* [tree nedges], NaN when not measured */
} ibf_infer_bwmap_t;

/* Plan and, with an oracle, measure (o NULL: plan only, every choice of
 * host as if all bandwidths were equal).  The root is a centre switch of
 * the tree (least height). */
ibf_status_t ibf_infer_bw_run(const ibf_infer_tree_t *t,
			      const ibf_infer_bw_oracle_t *o,
			      ibf_infer_bwmap_t *out, ibf_err_t *err);
void ibf_infer_bwmap_free(ibf_infer_bwmap_t *m);
/* Bandwidth of a single transfer between every two hosts: the least
 * edge bandwidth on the tree path (edges not measured do not count; NaN
 * when none is).  out[a * nhosts + b]. */
ibf_status_t ibf_infer_bw_predict(const ibf_infer_tree_t *t,
				  const ibf_infer_bwmap_t *m, double *out,
				  ibf_err_t *err);
/* {"root", "stages", "rounds":[{"stage", "pairs":[{"a","b","edges":[..],
 *  "bw"}]}], "edges":[{"a","b","bw"}]} */
ibf_status_t ibf_infer_bw_write_json(const ibf_infer_tree_t *t,
				     const char *const *names,
				     const ibf_infer_bwmap_t *m, FILE *fp,
				     ibf_err_t *err);

/* Synthetic bandwidth oracle over a true fabric: hosts[i] is the endpoint
 * of host i; a pair uses one shortest path (both directions), a link is
 * shared equally by the pairs of a round that use it, and a pair gets
 * the least share on its path (link capacity: ibf_port_capacity). */
typedef struct ibf_infer_bw_synth ibf_infer_bw_synth_t;
ibf_status_t ibf_infer_bw_synth_create(const ibf_fabric_t *f,
				       const ibf_port_id_t *hosts,
				       uint32_t n, ibf_infer_bw_synth_t **out,
				       ibf_err_t *err);
void ibf_infer_bw_synth_destroy(ibf_infer_bw_synth_t *s);
ibf_status_t ibf_infer_bw_synth_measure(void *ctx, const uint32_t *pairs,
					uint32_t n, double *bw,
					ibf_err_t *err);
/* The bandwidth of every pair alone: out[a * n + b]. */
void ibf_infer_bw_synth_alone(const ibf_infer_bw_synth_t *s, double *out);

/* ---- reports ------------------------------------------------------------ */

/* What a run adds up to, for reports: the measurement counts against the
 * paper's bound p(d-1)+1 per host (p, d of the inferred tree). */
typedef struct ibf_infer_report {
	const ibf_infer_result_t *r;
	const char *const *names;       /* host names */
	const ibf_infer_accuracy_t *acc; /* NULL: none */
	bool has_truth;                 /* acc holds shared-link answers */
	double charged_s;               /* synthetic time charged, < 0: none */
	double tol;                     /* the radius used */
	/* A live run (RTTs measured over the network, ibflow-infer): its
	 * text counts the pairs against all, the ping-pongs and the wall
	 * time, and lists the tree. */
	bool live;
	uint64_t exchanges;             /* live: ping-pongs */
	double total_s;                 /* live: wall time of the run */
} ibf_infer_report_t;

/* The text report for people: shape, pairs against the paper's bound,
 * times; accuracy where known (acc), the tree's edges for a live run.
 * The one summary of `ibflow infer` and ibflow-infer. */
void ibf_infer_write_text(const ibf_infer_report_t *rep, FILE *fp);

/* {"hosts":[..], "switches":N, "edges":[{"a","b","latency"}], "pairs":..,
 *  ..., "accuracy":{..}}; see docs/infer.md. */
ibf_status_t ibf_infer_write_json(const ibf_infer_report_t *rep, FILE *fp,
				  ibf_err_t *err);
/* Every pair measured, in order, as an RTT file (rtt_io.h): feeding it
 * back with the same options replays the run. */
ibf_status_t ibf_infer_write_trace(const ibf_infer_result_t *r,
				   const char *const *names, FILE *fp,
				   ibf_err_t *err);

IBF_END_DECLS
#endif
