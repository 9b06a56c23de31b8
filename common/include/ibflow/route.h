/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Routing engines: from a finalized fabric to forwarding tables, a host
 * order and service levels.
 *
 * Engines are looked up by name in one table (route.c), each with its
 * capabilities (ibf_route_cap_t):
 *   "minhop"  balanced min-hop baseline, any topology
 *   "dmodk"   destination-mod-k on PGFTs (needs recognition, pgft.h)
 *   "uapr"    uniform all-shortest-path routing over LMC on PGFTs
 *   "layered" FatPaths layered routing, any topology, deadlock-free
 *             within a VL budget (one VL by default)
 *   "swisst1" the static routing of the Swiss-T1 (`ibflow gen swisst1`)
 * Every engine routes every CA LID offset (all 2^LMC LIDs of every endpoint)
 * and every switch LID on every switch, writes the host order it wants MPI
 * ranks launched in (topological order unless it has a better one) and an
 * SL for every route (0 unless it needs others).  The fabric's LIDs and LMC
 * are used as they are.
 *
 * An engine never leaves partial results: on failure *out stays NULL and
 * err names the engine and the reason (OpenSM then tries its next engine).
 */
#ifndef IBFLOW_ROUTE_H
#define IBFLOW_ROUTE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/lfts.h>
#include <ibflow/sl_io.h>

IBF_BEGIN_DECLS

/* Engine findings for the report: library-internal (opaque). */
struct ibf_route_report;
struct ibf_pgft_shape;
struct ibf_pgft_memory;

typedef enum ibf_layer_method {
	IBF_LAYERS_RANDOM = 0,  /* FatPaths Listing 1: uniform edge sampling */
	IBF_LAYERS_OVERLAP,     /* FatPaths Listing 2: overlap-minimizing */
} ibf_layer_method_t;

typedef struct ibf_route_opts {
	/* layered */
	unsigned layers;        /* n; 0 = 2^LMC */
	double density;         /* rho in (0, 1]; 0 = engine default */
	ibf_layer_method_t method;
	uint64_t seed;
	unsigned vls;           /* VLs the traffic may rely on for deadlock
				   freedom; 0 = IBF_ROUTE_VLS_DEFAULT: every
				   packet on one SL, as MPI over UCX sends
				   (UCX_IB_SL).  More
				   only when the applications take each
				   route's SL (PathRecord: rdma_cm) */
	unsigned nthreads;      /* 0 or 1 = single thread */
	/* dmodk, uapr: a PGFT shape seen before on this subnet (the
	 * routing's pgft_shape), so that a tree that lost nodes keeps the
	 * complete tree's labels (pgft.h); NULL: none */
	const struct ibf_pgft_shape *pgft_hint;
	/* dmodk, uapr: labels to keep (an earlier routing's pgft_memory, or
	 * a labels file): every remembered node keeps its label and every
	 * host port its place, whatever the cabling (pgft.h); NULL: none */
	const struct ibf_pgft_memory *pgft_memory;
} ibf_route_opts_t;

/* A plain number, so that option tables can show it (IBF_OPT_NUM). */
#define IBF_ROUTE_VLS_DEFAULT 1

/* SL storage: an SL per DLID when it does not depend on the source, else
 * one per (source endpoint, DLID). */
typedef struct ibf_routing {
	const ibf_fabric_t *fabric;
	char engine[32];
	ibf_lfts_t *lfts;
	ibf_port_id_t *order;       /* endpoints in the engine's host order */
	uint32_t norder;            /* == fabric->nendpoints */
	uint8_t *sl_by_dlid;        /* [lid_top + 1], or NULL */
	uint8_t *sl_by_pair;        /* [nendpoints * (lid_top + 1)] indexed
				       by endpoint_index[src] * (lid_top + 1)
				       + dlid, or NULL; NULL both = SL 0 */
	unsigned nsls;              /* SLs (= VLs with SL2VL identity) used */
	uint64_t unrouted;          /* entries left IBF_LFT_NO_PORT on
				       purpose: a degraded fabric leaves
				       some switches no up*-down* path to
				       some LIDs (packets there are dropped
				       rather than sent round a cycle) */
	struct ibf_route_report *report; /* engine findings, or NULL */
	struct ibf_pgft_shape *pgft_shape; /* dmodk, uapr: the PGFT's shape,
					      to pass back as pgft_hint */
	struct ibf_pgft_memory *pgft_memory; /* dmodk, uapr: the labels to
						keep, to pass back as
						pgft_memory */
} ibf_routing_t;

/* What an engine does beyond forwarding tables, so that callers ask the
 * engine table instead of testing engine names. */
typedef enum ibf_route_cap {
	IBF_ROUTE_USES_SLS = 1u << 0,    /* may put routes on SLs above 0
					    (within opts.vls): the SM
					    programs SL2VL and PathRecord
					    SLs */
	IBF_ROUTE_PGFT_LABELS = 1u << 1, /* labels a PGFT: takes pgft_hint
					    and pgft_memory, returns
					    pgft_shape and pgft_memory */
	IBF_ROUTE_LAYERS = 1u << 2,      /* one layer per LID offset
					    (opts.layers needs 2^LMC >=
					    layers): evaluate its LMC paths
					    as layers */
} ibf_route_cap_t;

typedef struct ibf_route_engine {
	const char *name;
	const char *summary;
	/* Fill r (lfts already created, all entries IBF_LFT_NO_PORT; order,
	 * SLs and report optional: ibf_route() supplies defaults). */
	ibf_status_t (*run)(const ibf_fabric_t *f, const ibf_route_opts_t *o,
			    ibf_routing_t *r, ibf_err_t *err);
	unsigned caps;          /* ibf_route_cap_t bits */
} ibf_route_engine_t;

/* The engine table, NULL-name terminated; and lookup by name. */
const ibf_route_engine_t *ibf_route_engines(void);
const ibf_route_engine_t *ibf_route_engine_find(const char *name);

/* Whether the engine called name has every capability of caps (false
 * for an unknown name). */
bool ibf_route_engine_can(const char *name, unsigned caps);

/* The names of the engines having every capability of caps (0: all), in
 * table order, "a, b or c" (sep ", ", last " or "), into buf (truncated
 * to size, always terminated).  The length the whole list needs. */
size_t ibf_route_engine_names(unsigned caps, const char *sep,
			      const char *last, char *buf, size_t size);

/* Run an engine.  On success *out holds a complete routing: every LFT
 * entry for every existing LID on every switch, an order, SLs. */
ibf_status_t ibf_route(const ibf_fabric_t *f, const char *engine,
		       const ibf_route_opts_t *o, ibf_routing_t **out,
		       ibf_err_t *err);
void ibf_routing_destroy(ibf_routing_t *r);

static inline unsigned ibf_routing_sl(const ibf_routing_t *r,
				      ibf_port_id_t src, unsigned dlid)
{
	if (r->sl_by_pair)
		return r->sl_by_pair[(size_t)r->fabric->endpoint_index[src] *
				     (r->fabric->lid_top + 1) + dlid];
	return r->sl_by_dlid ? r->sl_by_dlid[dlid] : 0;
}

/* Check that a routing is complete, as ibf_route() does before returning
 * one: every switch has a table; on every switch every LID in use (see
 * ibf_route_lid_target) has an entry naming a cabled port, or port 0 for
 * the switch's own LID, except exactly `unrouted` entries left
 * IBF_LFT_NO_PORT; the order is a permutation of the endpoints; every
 * SL is below 16 and below nsls.  Says what is missing where. */
ibf_status_t ibf_routing_validate(const ibf_routing_t *r, ibf_err_t *err);

/* Where a LID is delivered from: the switch (index in fabric->switches)
 * and the port it leaves by, 0 for a switch's own LID.  False for LIDs not
 * in use and for CA ports not cabled to a switch (nothing routes them). */
bool ibf_route_lid_target(const ibf_fabric_t *f, unsigned lid,
			  uint32_t *sw, unsigned *port);

/* Host order: one host name per line (ibf_port_host_name). */
ibf_status_t ibf_routing_write_order(const ibf_routing_t *r,
				     const char *path, ibf_err_t *err);
/* SL file: "SLID DLID SL" lines, or "* DLID SL" when the SL does not depend
 * on the source.  Read back by ibf_sls_read (check --sl). */
/* A view of a routing's SLs (no copy; valid while r lives). */
void ibf_sls_from_routing(const ibf_routing_t *r, ibf_sls_t *out);

ibf_status_t ibf_routing_write_sl(const ibf_routing_t *r, const char *path,
				  ibf_err_t *err);

/* One finding of the engine's report (e.g. dmodk's "missing_hosts",
 * "pgft"): its integer value or string, 0 / NULL when the report has no
 * such key.  The string lives as long as the routing. */
int64_t ibf_routing_report_int(const ibf_routing_t *r, const char *key);
const char *ibf_routing_report_str(const ibf_routing_t *r, const char *key);

/* The routing's report as JSON on fp: the engine, the fabric's size, the
 * routing time given (seconds), the SLs used and the engine's findings. */
ibf_status_t ibf_routing_write_report(const ibf_routing_t *r, double seconds,
				      FILE *fp, ibf_err_t *err);

IBF_END_DECLS
#endif
