/*
 * Liquid scheduling (E. Gabrielyan, "Liquid Schedule Construction
 * Algorithm", 2006): partition a traffic of equal-size transfers into time
 * frames of mutually non-congesting transfers, as few as the load of the
 * busiest link (the traffic's duration) whenever such a schedule exists.
 *
 * A transfer is the set of directed links on its routed path; a directed
 * link is named by its egress port (the source CA port first, then every
 * switch port the route leaves by).  Routes are traced through the LFTs to
 * the destination's base LID (LID offset 0).
 *
 * The search is the paper's exact method: full teams of the reduced traffic
 * enumerated by category fission (blank, idle and skeleton optimisations),
 * assembled frame by frame with backtracking.  It stops at a deadline; then
 * the best schedule found (deepest liquid prefix completed greedily, or a
 * greedy colouring of the whole traffic, whichever is shorter) is returned
 * and the result says so.  See docs/liquid.md.
 */
#ifndef IBFLOW_LIQUID_H
#define IBFLOW_LIQUID_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/fabric.h>
#include <ibflow/hosts.h>
#include <ibflow/lfts.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Refuse traffics larger than this (COUNT can be up to 2^32 - 1). */
#define IBF_LIQUID_MAX_TRANSFERS 2000000u

/* A traffic: transfers as sets of links (compact link ids 0..nlinks-1). */
typedef struct ibf_liquid_traffic {
	uint32_t ntransfers;
	uint32_t nlinks;
	uint32_t *link_off;        /* [ntransfers + 1]: CSR into links */
	uint32_t *links;           /* link ids of each transfer, ascending */
	ibf_port_id_t *link_port;  /* [nlinks] egress port, or IBF_NO_ID for
				      abstract traffics */
	/* Endpoints as positions in hosts[] (the round-robin order). */
	uint32_t nhosts;
	ibf_port_id_t *hosts;      /* [nhosts] CA ports, or NULL (abstract) */
	uint32_t *src, *dst;       /* [ntransfers] positions in 0..nhosts-1 */
} ibf_liquid_traffic_t;

/* Transfers of a traffic file: COUNT copies of every SRC DST line.  Hosts
 * are ordered by first appearance.  A route that is not delivered is an
 * error naming the pair. */
ibf_status_t ibf_liquid_traffic_from_flows(const ibf_lfts_t *l,
					   const ibf_traffic_t *tr,
					   ibf_liquid_traffic_t **out,
					   ibf_err_t *err);
/* All ordered pairs of distinct hosts, in host-list order. */
ibf_status_t ibf_liquid_traffic_alltoall(const ibf_lfts_t *l,
					 const ibf_hostlist_t *h,
					 ibf_liquid_traffic_t **out,
					 ibf_err_t *err);
/* An abstract traffic (tests, callers with their own paths): transfer i
 * uses links[off[i]..off[i+1]-1] (any order, duplicates merged) and goes
 * from position src[i] to dst[i] of nhosts (src/dst may be NULL: then
 * transfer i is position i -> i + 1, which only matters to the round-robin
 * baseline). */
ibf_status_t ibf_liquid_traffic_from_sets(uint32_t ntransfers,
					  const uint32_t *off,
					  const uint32_t *links,
					  uint32_t nhosts, const uint32_t *src,
					  const uint32_t *dst,
					  ibf_liquid_traffic_t **out,
					  ibf_err_t *err);
void ibf_liquid_traffic_destroy(ibf_liquid_traffic_t *t);

/* By default the cheap schedules (greedy colouring, round robin) are tried
 * first: either one reaching the duration is liquid, hence optimal, and the
 * search is skipped. */
typedef struct ibf_liquid_opts {
	double time_limit;  /* seconds for the whole call; <= 0: 10 */
	bool no_search;     /* cheap schedules only */
	bool search_first;  /* run the exact search even if a cheap schedule
			       is liquid (tests, benchmarks of the search) */
} ibf_liquid_opts_t;

typedef enum ibf_liquid_method {
	IBF_LIQUID_SEARCH = 0,      /* the exact search completed a schedule */
	IBF_LIQUID_SEARCH_GREEDY,   /* deepest liquid prefix + greedy rest */
	IBF_LIQUID_GREEDY,          /* greedy colouring of the whole traffic */
	IBF_LIQUID_ROUND_ROBIN,     /* the baseline itself was the best */
} ibf_liquid_method_t;

const char *ibf_liquid_method_str(ibf_liquid_method_t m);

typedef struct ibf_liquid_result {
	uint32_t ntransfers;
	uint32_t duration;          /* bottleneck load = lower bound on frames */
	uint32_t *load;             /* [nlinks] */
	uint32_t nbottlenecks;
	uint32_t *bottlenecks;      /* link ids with load == duration */
	double liquid_throughput;   /* ntransfers / duration */
	/* The schedule. */
	uint32_t nframes;
	uint32_t *frame_of;         /* [ntransfers] frame index */
	uint32_t *frame_off;        /* [nframes + 1] CSR into frame_tr */
	uint32_t *frame_tr;         /* transfers by frame, ascending */
	bool liquid;                /* nframes == duration */
	bool optimal_proven;        /* liquid, or no liquid schedule exists
				       (search exhausted) and nframes ==
				       duration + 1 */
	bool timed_out;             /* the search hit the deadline */
	bool exhausted;             /* the search proved no liquid schedule */
	ibf_liquid_method_t method;
	uint32_t search_depth;      /* frames of the deepest liquid prefix */
	uint64_t categories;        /* categories examined by the search */
	double seconds;             /* time of ibf_liquid_schedule() */
	/* Topology-unaware baseline: round-robin phases split first-fit. */
	uint32_t rr_frames;
} ibf_liquid_result_t;

/* Schedule a traffic.  Keeps within opts->time_limit: the search stops at
 * a deadline that leaves room for the greedy completion (timed from the
 * greedy run made first).  opts may be NULL.  Free the result with ibf_liquid_result_free(). */
ibf_status_t ibf_liquid_schedule(const ibf_liquid_traffic_t *t,
				 const ibf_liquid_opts_t *opts,
				 ibf_liquid_result_t *res, ibf_err_t *err);
void ibf_liquid_result_free(ibf_liquid_result_t *res);

/* The round-robin baseline alone: phases in (copy, (dst - src) mod nhosts)
 * order, each split first-fit (in sender order) into congestion-free
 * frames.  frame_of (may be NULL) receives [ntransfers] frame indices. */
ibf_status_t ibf_liquid_round_robin(const ibf_liquid_traffic_t *t,
				    uint32_t *nframes, uint32_t *frame_of,
				    ibf_err_t *err);

/* The issue-6 JSON document: {"transfers", "duration",
 * "liquid_throughput", "liquid", "optimal_proven", "frames":[[["SRC",
 * "DST"], ...], ...], "time_s"}; hosts by NodeDescription.  Needs a traffic
 * built from a fabric (hosts != NULL). */
ibf_status_t ibf_liquid_write_json(const ibf_fabric_t *f,
				   const ibf_liquid_traffic_t *t,
				   const ibf_liquid_result_t *res, FILE *fp,
				   ibf_err_t *err);

#ifdef __cplusplus
}
#endif
#endif
