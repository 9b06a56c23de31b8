/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * libibflow_ucx: ibflow on UCX's UCP layer.  See docs/ucx.md.
 *
 * A context (ibf_ucx_t) owns one UCP context and worker of its own, beside
 * whatever else the process runs (Open MPI's pml ucx, for instance).  The
 * processes of a job exchange worker addresses through an out-of-band
 * allgather that the caller supplies (as UCC's OOB: start, test, free), so
 * the same library serves MPI integrations (MPI_Iallgather) and the
 * standalone tools (the built-in TCP bootstrap, ibf_ucx_boot_*).  Messages
 * are UCP tagged messages over whatever transport UCX selects.
 *
 * Fabric awareness: with UCX_IBFLOW_FABRIC naming an export directory
 * (topology + LFTs + manifest, docs/osm-plugin.md) every process finds its
 * fabric endpoint (InfiniBand port GUID, address map, hostname, or
 * UCX_IBFLOW_HOSTMAP), the job agrees on a host list (distinct endpoints,
 * in order of their lowest rank) and routes between participants are
 * traced through the LFTs with libibflow.  With UCX_IBFLOW_FABRIC=infer
 * (no export: RoCE, Ethernet) every process is a host and the fabric is
 * the tree inferred from RTTs measured at init (ibf_ucx_infer).
 *
 * Every call returns an ibf_ucx_status_t and fills a caller-owned
 * ibf_ucx_err_t (may be NULL) with one line.  Calls marked "collective"
 * must be made by every process of the context, in the same order.
 * Handles are opaque; the library keeps no global state beyond the
 * registration of its UCX_IBFLOW_* configuration table with UCX.
 */
#ifndef IBFLOW_UCX_H
#define IBFLOW_UCX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ucp/api/ucp.h>

#include <ibflow/fabric.h>
#include <ibflow/hosts.h>
#include <ibflow/infer.h>
#include <ibflow/lfts.h>
#include <ibflow/probe.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility: what is declared here is
 * its interface (and all it exports). */
#pragma GCC visibility push(default)

/* ---- status ------------------------------------------------------------- */

typedef enum ibf_ucx_status {
	IBF_UCX_OK = 0,
	IBF_UCX_INPROGRESS = 1,        /* an OOB request not finished yet */
	IBF_UCX_ERR_NOMEM = -1,
	IBF_UCX_ERR_INVALID = -2,      /* bad argument or usage */
	IBF_UCX_ERR_CONFIG = -3,       /* a UCX_IBFLOW_* value is malformed
					  or out of range (message names it) */
	IBF_UCX_ERR_FABRIC = -4,       /* fabric directory missing, malformed
					  or an inconsistent set of files */
	IBF_UCX_ERR_MAP = -5,          /* a process has no fabric endpoint
					  (message names the process) */
	IBF_UCX_ERR_UCX = -6,          /* a UCX call failed */
	IBF_UCX_ERR_OOB = -7,          /* the out-of-band exchange failed */
	IBF_UCX_ERR_TIMEOUT = -8,      /* UCX_IBFLOW_TIMEOUT expired */
	IBF_UCX_ERR_IO = -9,           /* a file could not be read/written */
	IBF_UCX_ERR_UNSUPPORTED = -10, /* not available in this build */
	IBF_UCX_ERR_PEER = -11,        /* another process failed (message
					  says which and why) */
	IBF_UCX_ERR_SCHEDULE = -12,    /* the liquid schedule cannot be
					  computed (every rank gets it, no
					  block was sent: the caller may
					  run its own algorithm instead) */
	IBF_UCX_ERR_DECLINED = -13,    /* auto: the schedule is not
					  predicted to beat the caller's
					  own algorithm (every rank gets
					  it, no block was sent; later
					  selections say NONE) */
} ibf_ucx_status_t;

#define IBF_UCX_ERR_MSG_MAX 1024

typedef struct ibf_ucx_err {
	ibf_ucx_status_t status;
	char msg[IBF_UCX_ERR_MSG_MAX];
} ibf_ucx_err_t;

const char *ibf_ucx_status_str(ibf_ucx_status_t status);

/* ---- out-of-band allgather, supplied by the caller ------------------------ */

/* allgather() starts gathering len bytes from every process into rbuf
 * (rank order, len bytes each) and returns a request in *req; the library
 * calls req_test() (IBF_UCX_OK done, IBF_UCX_INPROGRESS not yet, an error
 * otherwise) while it progresses UCX, then req_free().  Blocking
 * implementations may finish inside allgather() and return a request that
 * tests done at once. */
typedef struct ibf_ucx_oob {
	ibf_ucx_status_t (*allgather)(void *sbuf, void *rbuf, size_t len,
				      void *coll_info, void **req);
	ibf_ucx_status_t (*req_test)(void *req);
	ibf_ucx_status_t (*req_free)(void *req);
	void *coll_info;
	uint32_t rank;  /* this process, 0 .. size-1 */
	uint32_t size;  /* processes */
} ibf_ucx_oob_t;

/* ---- configuration: UCX_IBFLOW_* ----------------------------------------- */

/* The variables are registered with UCX's parser when the library is
 * loaded (so `ucx_info -cf` lists them with the library preloaded, and UCX
 * does not call them unused); docs/ucx.md lists them. */
typedef struct ibf_ucx_config ibf_ucx_config_t;

/* Read UCX_IBFLOW_* from the environment (and UCX's configuration files).
 * A malformed or out-of-range value, or an unknown UCX_IBFLOW_ variable,
 * is IBF_UCX_ERR_CONFIG with a message naming the variable. */
ibf_ucx_status_t ibf_ucx_config_read(ibf_ucx_config_t **out,
				     ibf_ucx_err_t *err);
/* Set one variable, named with or without the UCX_IBFLOW_ prefix. */
ibf_ucx_status_t ibf_ucx_config_modify(ibf_ucx_config_t *c, const char *name,
				       const char *value, ibf_ucx_err_t *err);
/* A variable's value as text. */
ibf_ucx_status_t ibf_ucx_config_get(const ibf_ucx_config_t *c,
				    const char *name, char *buf, size_t len,
				    ibf_ucx_err_t *err);
/* UCX_IBFLOW_TIMEOUT in seconds (for the caller's own waits, e.g. the
 * bootstrap's). */
double ibf_ucx_config_timeout(const ibf_ucx_config_t *c);
/* Every variable, its value and (doc) its documentation, as ucx_info. */
void ibf_ucx_config_print(const ibf_ucx_config_t *c, FILE *fp, bool doc);
void ibf_ucx_config_release(ibf_ucx_config_t *c);

/* ---- context ------------------------------------------------------------- */

typedef struct ibf_ucx ibf_ucx_t;

/* A control lane (UCX_IBFLOW_CTL_LANE) for contexts to share: one UCP
 * context and worker, one listening port, whatever the number of
 * contexts given it in ibf_ucx_params_t.lane (an MPI integration's
 * communicators: one per process).  Each message on it carries its
 * context's number in the tag.  Creating one opens nothing: the first
 * context that wants a lane opens it, with that context's
 * configuration.  Safe to share between threads. */
typedef struct ibf_ucx_lane ibf_ucx_lane_t;

ibf_ucx_status_t ibf_ucx_lane_create(ibf_ucx_lane_t **out,
				     ibf_ucx_err_t *err);
/* Local; after every context that used the lane has been finalized. */
void ibf_ucx_lane_close(ibf_ucx_lane_t *lane);

enum {
	/* When the fabric is configured but a process cannot be mapped to
	 * an endpoint, continue topology-unaware instead of failing (also
	 * UCX_IBFLOW_FALLBACK=y).  The reason is kept: ibf_ucx_unaware_why. */
	IBF_UCX_INIT_FALLBACK = 1u << 0,
};

typedef struct ibf_ucx_params {
	const ibf_ucx_oob_t *oob;        /* required */
	const ibf_ucx_config_t *config;  /* NULL: ibf_ucx_config_read() */
	unsigned flags;                  /* IBF_UCX_INIT_* */
	ibf_ucx_lane_t *lane;            /* NULL: a control lane of the
					    context's own, closed with it */
} ibf_ucx_params_t;

/* Collective.  Creates the UCP context and worker (UCX_IBFLOW_NET_DEVICES
 * and UCX_IBFLOW_TLS apply to them only), exchanges worker addresses and
 * fabric endpoints over the OOB, and agrees on the host list.  Any
 * process's failure fails every process with the same message. */
ibf_ucx_status_t ibf_ucx_init(const ibf_ucx_params_t *params,
			      ibf_ucx_t **out, ibf_ucx_err_t *err);
/* Collective: an out-of-band exchange (every process is done with the
 * context), then closes the endpoints without flushing and frees
 * everything (also on error). */
ibf_ucx_status_t ibf_ucx_finalize(ibf_ucx_t *u, ibf_ucx_err_t *err);

uint32_t ibf_ucx_rank(const ibf_ucx_t *u);
uint32_t ibf_ucx_size(const ibf_ucx_t *u);
const ibf_ucx_config_t *ibf_ucx_get_config(const ibf_ucx_t *u);
ucp_context_h ibf_ucx_ucp_context(const ibf_ucx_t *u);
ucp_worker_h ibf_ucx_ucp_worker(const ibf_ucx_t *u);
/* The endpoint to a rank (created on first use). */
ibf_ucx_status_t ibf_ucx_ep(ibf_ucx_t *u, uint32_t rank, ucp_ep_h *ep,
			    ibf_ucx_err_t *err);

/* ---- fabric view ---------------------------------------------------------- */

/* Hosts are the distinct fabric endpoints of the job, numbered in order
 * of their lowest rank; topology-unaware, every process is a host. */
bool ibf_ucx_topology_aware(const ibf_ucx_t *u);
/* Why the context is topology-unaware ("" when it is aware). */
const char *ibf_ucx_unaware_why(const ibf_ucx_t *u);
const ibf_fabric_t *ibf_ucx_fabric(const ibf_ucx_t *u);  /* NULL unaware */
const ibf_lfts_t *ibf_ucx_lfts(const ibf_ucx_t *u);      /* NULL unaware */
/* The fabric ports of the hosts (NULL unaware). */
const ibf_hostlist_t *ibf_ucx_hosts(const ibf_ucx_t *u);
uint32_t ibf_ucx_nhosts(const ibf_ucx_t *u);
uint32_t ibf_ucx_rank_host(const ibf_ucx_t *u, uint32_t rank);
uint32_t ibf_ucx_host_leader(const ibf_ucx_t *u, uint32_t host);
/* How a process found its endpoint ("ibverbs mlx5_0:1", "address
 * 10.1.0.3", "hostname", "hostmap rank:2", ...). */
const char *ibf_ucx_rank_source(const ibf_ucx_t *u, uint32_t rank);
/* A host's name: NodeDescription (aware) or "rankN@hostname". */
const char *ibf_ucx_host_name(const ibf_ucx_t *u, uint32_t host, char *buf,
			      size_t len);
/* The directed links (egress port ids) of the route from one rank's host
 * to another's, at UCX_IBFLOW_LID_OFFSET. */
ibf_ucx_status_t ibf_ucx_route(const ibf_ucx_t *u, uint32_t src_rank,
			       uint32_t dst_rank, ibf_port_id_t *links,
			       unsigned max, unsigned *n, ibf_ucx_err_t *err);

/* ---- collectives over UCX (bounded by UCX_IBFLOW_TIMEOUT) ---------------- */

ibf_ucx_status_t ibf_ucx_barrier(ibf_ucx_t *u, ibf_ucx_err_t *err);
ibf_ucx_status_t ibf_ucx_bcast(ibf_ucx_t *u, uint32_t root, void *buf,
			       size_t len, ibf_ucx_err_t *err);

/* ---- all-to-all (UCX_IBFLOW_ALLTOALL*, docs/ucx.md) --------------------- */

typedef enum ibf_ucx_a2a_alg {
	IBF_UCX_A2A_NONE = 0,      /* leave it to the caller (off, auto
				      below the threshold or unaware) */
	IBF_UCX_A2A_LIQUID,        /* frames of the liquid schedule */
	IBF_UCX_A2A_PAIRWISE,      /* step k: rank r sends to r + k */
} ibf_ucx_a2a_alg_t;

const char *ibf_ucx_a2a_alg_str(ibf_ucx_a2a_alg_t a);

/* What UCX_IBFLOW_ALLTOALL (and _THRESH) choose for blocks of
 * block_bytes.  The same on every process when block_bytes is.  NONE
 * (in every mode) once the liquid schedule turned out impossible, and in
 * auto once it turned out not to pay (ALLTOALL_GAIN). */
ibf_ucx_a2a_alg_t ibf_ucx_alltoall_select(const ibf_ucx_t *u,
					  size_t block_bytes);

/* Counters of a context's all-to-alls (for tests and tools). */
typedef struct ibf_ucx_a2a_stats {
	uint64_t liquid;           /* calls run along the liquid schedule */
	uint64_t pairwise;         /* calls run pairwise */
	uint32_t nframes;          /* of the cached schedule (0: none yet) */
	uint32_t duration;         /* its bottleneck load (lower bound) */
	bool schedule_liquid;      /* nframes == duration */
	double schedule_s;         /* time to compute it (rank 0) */
} ibf_ucx_a2a_stats_t;

void ibf_ucx_a2a_stats(const ibf_ucx_t *u, ibf_ucx_a2a_stats_t *s);

/* Messages on the contexts of the routes' SLs (UCX_IBFLOW_ROUTE_SL,
 * docs/ucx.md "Service levels"): the all-to-all's blocks, the probes'
 * pings and pongs and the bandwidth map's streams between hosts, sends
 * and receives posted on each since the context was made.  Returns the number of such contexts, each in
 * out[0 ..] (at most 16); 0: every message on the data context. */
typedef struct ibf_ucx_sl_count {
	unsigned sl;
	uint64_t sent, received;
} ibf_ucx_sl_count_t;

unsigned ibf_ucx_route_sl_counts(const ibf_ucx_t *u,
				 ibf_ucx_sl_count_t out[16]);

/* Collective.  Rank r's block for rank p is sendbuf + p * block_bytes and
 * arrives at recvbuf + r * block_bytes of rank p.  alg NONE means
 * ibf_ucx_alltoall_select()'s choice, and PAIRWISE if that is NONE.
 * The liquid schedule (over the ranks' routed paths; a process sends and
 * receives at most one block per frame) is computed at the first liquid
 * call, at rank 0, broadcast and cached in the context; when it cannot
 * be computed (e.g. a route of the LFTs ends in a loop or a hole) every
 * rank returns IBF_UCX_ERR_SCHEDULE before sending anything, and later
 * selections say NONE.  sendbuf and
 * recvbuf must not overlap.  A peer that fails or stalls makes the call
 * return an error within UCX_IBFLOW_TIMEOUT; the context should then be
 * finalized (messages of the failed call may still be in flight). */
ibf_ucx_status_t ibf_ucx_alltoall(ibf_ucx_t *u, const void *sendbuf,
				  void *recvbuf, size_t block_bytes,
				  ibf_ucx_a2a_alg_t alg, ibf_ucx_err_t *err);
/* As ibf_ucx_alltoall with per-peer byte counts and displacements
 * (arrays of size entries; scounts[p] at rank r must equal rcounts[r] at
 * rank p).  The schedule assumes equal blocks. */
ibf_ucx_status_t ibf_ucx_alltoallv(ibf_ucx_t *u, const void *sendbuf,
				   const size_t *scounts,
				   const size_t *sdispls, void *recvbuf,
				   const size_t *rcounts,
				   const size_t *rdispls,
				   ibf_ucx_a2a_alg_t alg, ibf_ucx_err_t *err);

/* ---- pipelined broadcast (UCX_IBFLOW_BCAST*, docs/ucx.md) ---------------- */

typedef enum ibf_ucx_bcast_alg {
	IBF_UCX_BCAST_NONE = 0,    /* leave it to the caller */
	IBF_UCX_BCAST_PIPELINE,    /* chunks along the depth-first chain */
} ibf_ucx_bcast_alg_t;

/* What UCX_IBFLOW_BCAST and _THRESH choose for a message of len bytes
 * (the same on every process when len is). */
ibf_ucx_bcast_alg_t ibf_ucx_bcast_select(const ibf_ucx_t *u, size_t len);
/* The chain: all ranks in depth-first order of the fabric from host 0
 * (ranks of one host together; rank order when topology-unaware). */
ibf_ucx_status_t ibf_ucx_bcast_order(const ibf_ucx_t *u, uint32_t *ranks,
				     ibf_ucx_err_t *err);
/* Collective.  len bytes of buf from root to every rank, cut into chunks
 * of `chunk` bytes (0: UCX_IBFLOW_BCAST_CHUNK) relayed along the chain
 * from the root on (cyclically): each rank forwards a chunk as soon as
 * it has it.  Each wait bounded by UCX_IBFLOW_TIMEOUT. */
ibf_ucx_status_t ibf_ucx_bcast_pipeline(ibf_ucx_t *u, uint32_t root,
					void *buf, size_t len, size_t chunk,
					ibf_ucx_err_t *err);
/* Pipelined broadcasts this context made (for tests and tools). */
uint64_t ibf_ucx_bcast_pipeline_calls(const ibf_ucx_t *u);

/* ---- latency probes (PMM plan, ping-pong after Shirai et al.) ------------ */

typedef struct ibf_ucx_probe_opts {
	bool all_pairs;        /* every host pair one at a time, no plan */
	bool serial;           /* the plan's probes one at a time */
	unsigned stall;        /* a run ends after this many exchanges without
				  a better RTT ... */
	unsigned max_exchanges;/* ... or after this many */
	unsigned runs;         /* runs per pair, one per pass over the
				  schedule: keep min and max of bests */
	unsigned warmup;       /* exchanges before the first run (wire-up) */
	size_t size;           /* message bytes */
	unsigned tries;        /* planner: partners per host and pass */
	double spin_s;         /* poll this long before sleeping */
	unsigned concurrency;  /* probes at once per step of a round: 0 all
				  of the round's, IBF_UCX_PROBE_AUTO as many
				  as each machine has CPUs for */
	ibf_probe_model_t model; /* planner and solver: directed links, or
				    links the same both ways */
	ibf_probe_health_opts_t health; /* the verdict on the solved links
					   (zeros: defaults) */
} ibf_ucx_probe_opts_t;

#define IBF_UCX_PROBE_AUTO UINT32_MAX

/* Defaults from the context's UCX_IBFLOW_PROBE_* variables. */
void ibf_ucx_probe_opts_init(const ibf_ucx_t *u, ibf_ucx_probe_opts_t *o);

typedef struct ibf_ucx_probe_meas {
	uint32_t a, b;         /* host indices; a initiated */
	uint32_t round, step;
	double rtt_min;        /* microseconds: min over runs of each run's
				  best exchange ... */
	double rtt_max;        /* ... and max over runs */
	uint32_t exchanges;    /* ping-pongs timed, all runs */
} ibf_ucx_probe_meas_t;

typedef struct ibf_ucx_probe_result {
	uint32_t nhosts;
	bool all_pairs;
	bool solved;           /* topology-aware: plan + solution valid */
	uint32_t nrounds;      /* of the plan (all pairs, serial: pairs) */
	uint32_t nsteps;       /* run: rounds split by the concurrency */
	uint32_t nmeas;
	ibf_ucx_probe_meas_t *meas;  /* in round order */
	ibf_probe_plan_t plan;       /* planned runs (solved) */
	ibf_probe_solution_t solution;  /* solved: from rtt_min */
	ibf_probe_health_t health;      /* solved: suspect links, judged
					   with each pair's rtt_max - rtt_min
					   as its noise */
	/* nhosts x nhosts, row-major, symmetric: measured (all pairs) or
	 * predicted (solved), NAN on the diagonal and where undetermined. */
	double *rtt;
	double plan_s;         /* planning at rank 0 */
	double measure_s;      /* first round's barrier to the last's */
	double solve_s;
} ibf_ucx_probe_result_t;

/* Collective.  Plans at rank 0 (libibflow's probe planner) and broadcasts
 * the plan; runs each round's ping-pongs concurrently (in steps of at most
 * `concurrency` probes) with a barrier between steps; gathers and solves at rank 0 and broadcasts the RTT
 * matrix.  Topology-unaware contexts support all_pairs only.  The
 * measurements and the solution are complete at rank 0; every rank gets
 * nhosts, nrounds, the times and the matrix. */
ibf_ucx_status_t ibf_ucx_probe(ibf_ucx_t *u, const ibf_ucx_probe_opts_t *o,
			       ibf_ucx_probe_result_t *out,
			       ibf_ucx_err_t *err);
void ibf_ucx_probe_result_free(ibf_ucx_probe_result_t *r);

/* Rank 0's outputs.  Text: summary, per-link latencies, the host x host
 * matrix.  JSON: probe-solve's solution document plus "measurements",
 * "rounds", "measure_s", "plan_s", "solve_s", "all_pairs", "hosts" and
 * "matrix".  RTT file: "A B RTT" lines (ibflow probe-solve --rtt).  Plan:
 * ibflow probe-plan's JSON (ibflow probe-solve --plan). */
ibf_ucx_status_t ibf_ucx_probe_write_text(const ibf_ucx_t *u,
					  const ibf_ucx_probe_result_t *r,
					  FILE *fp, ibf_ucx_err_t *err);
ibf_ucx_status_t ibf_ucx_probe_write_json(const ibf_ucx_t *u,
					  const ibf_ucx_probe_result_t *r,
					  FILE *fp, ibf_ucx_err_t *err);
ibf_ucx_status_t ibf_ucx_probe_write_rtt(const ibf_ucx_t *u,
					 const ibf_ucx_probe_result_t *r,
					 FILE *fp, ibf_ucx_err_t *err);
/* Prometheus text format: the solved latencies and the health verdict
 * (ibf_probe_health_write_prom). */
ibf_ucx_status_t ibf_ucx_probe_write_prom(const ibf_ucx_t *u,
					  const ibf_ucx_probe_result_t *r,
					  FILE *fp, ibf_ucx_err_t *err);
ibf_ucx_status_t ibf_ucx_probe_write_plan(const ibf_ucx_t *u,
					  const ibf_ucx_probe_result_t *r,
					  FILE *fp, ibf_ucx_err_t *err);

/* ---- topology inference from RTTs (docs/ucx.md, docs/infer.md) ----------- */

typedef struct ibf_ucx_infer_opts {
	double tol_us;         /* coincidence radius, µs of RTT (ibf_infer_opts_t
				  tol; UCX_IBFLOW_INFER_TOL) */
	unsigned lookahead;    /* close-host search budget (ibf_infer_opts_t) */
	uint64_t seed;         /* its random first choice */
	unsigned parallel;     /* hosts inserted at once, their pairs measured
				  concurrently (ibf_infer_opts_t;
				  UCX_IBFLOW_INFER_PARALLEL) */
	unsigned max_in_flight; /* pairs in flight at most, 0 = no limit
				   (ibf_infer_opts_t; UCX_IBFLOW_INFER_IN_FLIGHT,
				   auto resolved) */
	ibf_ucx_probe_opts_t probe; /* one pair's measurement: stall,
				       max_exchanges, runs, warmup, size,
				       spin_s (UCX_IBFLOW_PROBE_*) */
} ibf_ucx_infer_opts_t;

/* Defaults from the context's UCX_IBFLOW_INFER_* and _PROBE_* variables. */
void ibf_ucx_infer_opts_init(const ibf_ucx_t *u, ibf_ucx_infer_opts_t *o);

typedef struct ibf_ucx_infer_result {
	/* Rank 0: the whole run (tree, every pair measured in order, the
	 * counts); other ranks: the tree only (meas NULL, stats zero). */
	ibf_infer_result_t r;
	uint32_t nhosts;
	char **names;          /* [nhosts] host names, every rank */
	uint64_t exchanges;    /* ping-pongs timed (rank 0) */
	double measure_s;      /* the whole inference, first command to the
				  tree's broadcast (rank 0) */
} ibf_ucx_infer_result_t;

/* Collective.  Infers the tree of the context's hosts (ibf_ucx_nhosts;
 * each measured by its leader rank) with libibflow's ibf_infer_run at
 * rank 0, whose oracle has the two ranks of each pair it asks for
 * ping-pong over UCX (the probes' method: runs of ping-pongs, each until
 * its best stood for `stall` exchanges or after `max_exchanges`; the
 * minimum and maximum of the runs' bests); the other ranks serve such
 * requests until rank 0 is done.  The tree is broadcast to every rank.
 * Host names: ibf_ucx_host_name. */
ibf_ucx_status_t ibf_ucx_infer(ibf_ucx_t *u, const ibf_ucx_infer_opts_t *o,
			       ibf_ucx_infer_result_t *out,
			       ibf_ucx_err_t *err);
void ibf_ucx_infer_result_free(ibf_ucx_infer_result_t *r);
/* With UCX_IBFLOW_FABRIC=infer: the inference ibf_ucx_init made, whose
 * tree is the context's fabric (ibf_ucx_fabric; routes = the tree's
 * paths); NULL otherwise. */
const ibf_ucx_infer_result_t *ibf_ucx_inferred(const ibf_ucx_t *u);

/* ---- bandwidth map (docs/ucx.md; the paper's section 6.1) --------------- */

/* Where the tree measured along came from. */
typedef enum ibf_ucx_bw_tree {
	IBF_UCX_BW_TREE_FABRIC = 1,  /* UCX_IBFLOW_FABRIC=DIR: the hop metric
					of the routes between the hosts */
	IBF_UCX_BW_TREE_INIT,        /* UCX_IBFLOW_FABRIC=infer: the tree
					ibf_ucx_init inferred */
	IBF_UCX_BW_TREE_INFERRED,    /* inferred by this call */
	IBF_UCX_BW_TREE_GIVEN,       /* the caller's (opts.tree) */
} ibf_ucx_bw_tree_t;

const char *ibf_ucx_bw_tree_str(ibf_ucx_bw_tree_t t);

#define IBF_UCX_BW_ALONE_ALL UINT32_MAX

typedef struct ibf_ucx_bw_opts {
	size_t bytes;          /* one measurement: the first host streams this
				  many bytes to the second (default 2 MiB) */
	size_t chunk;          /* as messages of this size (default 64 KiB;
				  bytes >= 2 chunks): the rate is timed at the
				  receiver from the first message's arrival to
				  the last's */
	uint32_t alone;        /* afterwards, pairs measured one at a time
				  (for the prediction's accuracy): 0 none,
				  IBF_UCX_BW_ALONE_ALL every pair, else a
				  random sample of this many */
	uint64_t seed;         /* of the sample */
	const ibf_infer_tree_t *tree; /* the tree to follow, the same on
				  every rank, its hosts the context's (e.g.
				  ibf_ucx_infer's); NULL: as below */
	bool infer;            /* infer a tree even when the context has one
				  (an export or FABRIC=infer) */
	ibf_ucx_infer_opts_t infer_opts; /* for that inference */
} ibf_ucx_bw_opts_t;

/* Defaults (infer_opts: ibf_ucx_infer_opts_init). */
void ibf_ucx_bw_opts_init(const ibf_ucx_t *u, ibf_ucx_bw_opts_t *o);

typedef struct ibf_ucx_bw_result {
	uint32_t nhosts;
	char **names;          /* [nhosts] host names */
	ibf_ucx_bw_tree_t source;
	ibf_infer_tree_t tree; /* the tree the plan follows (its hosts are
				  the context's hosts) */
	ibf_infer_bwmap_t map; /* the plan, every round's bandwidths and
				  the edges', in Mbit/s (every rank) */
	double *predicted;     /* [nhosts^2] least edge bandwidth on the tree
				  path, Mbit/s, NaN on the diagonal (every
				  rank) */
	double *alone;         /* [nhosts^2] rank 0: measured alone (a to b
				  at [a * nhosts + b], a < b), NaN where not
				  measured; NULL on other ranks */
	uint32_t nalone;       /* pairs measured alone */
	double tree_s;         /* getting the tree (an inference: its run) */
	double map_s;          /* the plan's measurements, first command to
				  the last report (rank 0) */
	double alone_s;        /* the pairs alone (rank 0) */
} ibf_ucx_bw_result_t;

/* Collective.  A bandwidth map of the context's hosts: the tree is the
 * export's (UCX_IBFLOW_FABRIC=DIR: the routes' hop metric as a tree,
 * exact when the routes form one), the one ibf_ucx_init inferred
 * (FABRIC=infer), or one inferred now (ibf_ucx_infer; also with
 * o->infer), unless the caller gives one (o->tree).  Rank 0 runs libibflow's ibf_infer_bw_run over it, whose
 * rounds of pairs (no two sharing an edge of the tree) are measured
 * concurrently: rank 0 tells every pair's two leader ranks to get ready
 * (they exchange a message, wiring up their endpoint), waits for all,
 * then tells the senders to start; each receiver times its stream and
 * reports.  Then the optional pairs alone.  The map is broadcast; the
 * predictions are computed at every rank.  Every wait is bounded by
 * UCX_IBFLOW_TIMEOUT (a stream slower than bytes / timeout fails with a
 * message saying so; a rank waits three for its next command); any failure fails every rank with rank 0's
 * message.  For UCX's TCP transport use UCX_RNDV_THRESH=inf (docs/ucx.md). */
ibf_ucx_status_t ibf_ucx_infer_bw(ibf_ucx_t *u, const ibf_ucx_bw_opts_t *o,
				  ibf_ucx_bw_result_t *out,
				  ibf_ucx_err_t *err);
void ibf_ucx_bw_result_free(ibf_ucx_bw_result_t *r);

/* ---- built-in bootstrap for standalone tools ----------------------------- */

/* A TCP rendezvous: rank 0 listens on addr ("HOST:PORT", IPv4 or a name),
 * the others connect to it (retrying until the timeout); an allgather
 * goes through rank 0.  Non-blocking: the library progresses it. */
typedef struct ibf_ucx_boot ibf_ucx_boot_t;

typedef struct ibf_ucx_boot_params {
	char addr[256];
	uint32_t rank, size;
	double timeout_s;      /* connecting and every exchange */
} ibf_ucx_boot_params_t;

/* From IBFLOW_BOOT_ADDR, IBFLOW_BOOT_RANK, IBFLOW_BOOT_SIZE; rank and
 * size default to OMPI_COMM_WORLD_RANK / _SIZE (started by mpirun), then
 * PMIX_RANK / PMI_RANK and PMI_SIZE.  Fields already set (addr non-empty,
 * size non-zero) are kept.  Errors name the variable. */
ibf_ucx_status_t ibf_ucx_boot_params_env(ibf_ucx_boot_params_t *p,
					 ibf_ucx_err_t *err);
ibf_ucx_status_t ibf_ucx_boot_open(const ibf_ucx_boot_params_t *p,
				   ibf_ucx_boot_t **out, ibf_ucx_err_t *err);
const ibf_ucx_oob_t *ibf_ucx_boot_oob(const ibf_ucx_boot_t *b);
/* What went wrong in the last failed exchange ("" if nothing). */
const char *ibf_ucx_boot_error(const ibf_ucx_boot_t *b);
void ibf_ucx_boot_close(ibf_ucx_boot_t *b);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
