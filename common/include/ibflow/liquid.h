/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
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
 * assembled frame by frame with backtracking.
 *
 * Time limits are a contract: a call returns within its limit (plus the
 * few milliseconds between two looks at the clock) with the best schedule
 * found so far.  The topology-unaware round-robin schedule is built first,
 * so a valid schedule always exists; `liquid` and `optimal_proven` say
 * exactly what is known.  See docs/liquid.md.
 *
 * All-to-all among many ranks (MPI communicators): ibf_liquid_plan_*()
 * below, which never stores the transfers' link sets and scales to
 * thousands of ranks.
 */
#ifndef IBFLOW_LIQUID_H
#define IBFLOW_LIQUID_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/hosts.h>
#include <ibflow/traffic.h>
#include <ibflow/lfts.h>

IBF_BEGIN_DECLS

/* Traffics of stored link sets (ibf_liquid_traffic_*) larger than this are
 * refused with IBF_ERR_RANGE and a message saying so (COUNT can be up to
 * 2^32 - 1): a memory guard for what stores every transfer's links.  The
 * all-to-all plans below store none and have no such cap
 * (ibf_liquid_hplan_create in liquid_hosts.h for ranks sharing hosts). */
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
	/* Wall-clock seconds for the whole call; <= 0: 10.  Where the work
	 * limits below stop the call first, the schedule does not depend
	 * on the machine's load; keep the clock as a ceiling above them. */
	double time_limit;
	bool no_search;     /* cheap schedules only */
	bool search_first;  /* run the exact search even if a cheap schedule
			       is liquid (tests, benchmarks of the search) */
	/* Work units (about one link test or one 64-bit word of a set
	 * scanned each: 0.6-1.7 x 10^9 a second on a 2026 x86 core, first
	 * fit at the low end, the exact search at the high one) after
	 * which the call stops as if the time limit had passed; 0: none.  Unlike the clock it stops every
	 * machine at the same point, so the same input gives the same
	 * schedule whatever the load, and ranks that all reach it compute
	 * the same one. */
	uint64_t work_limit;
	/* Work units the exact search may spend, within work_limit; 0: what
	 * the limits leave.  The other stages are bounded (polynomial);
	 * the search is not: where no liquid schedule is found or
	 * disproved it runs until stopped, so this is the budget that
	 * decides its cost. */
	uint64_t search_work;
} ibf_liquid_opts_t;


typedef enum ibf_liquid_method {
	IBF_LIQUID_SEARCH = 0,      /* the exact search completed a schedule */
	IBF_LIQUID_SEARCH_GREEDY,   /* deepest liquid prefix + greedy rest */
	IBF_LIQUID_GREEDY,          /* greedy colouring of the whole traffic */
	IBF_LIQUID_ROUND_ROBIN,     /* the baseline itself was the best */
	IBF_LIQUID_FIRST_FIT,       /* all-to-all plans: first fit over all
				       frames in a phase order */
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
	uint64_t work;              /* work units spent (opts.work_limit),
				       the search's included */
	/* Topology-unaware baseline: round-robin phases split first-fit. */
	uint32_t rr_frames;
} ibf_liquid_result_t;

/* Schedule a traffic.  Round robin first, then the greedy colouring, then
 * (up to LQ_SEARCH_MAX transfers, 32,768) the exact search; all within
 * opts->time_limit, the search stopping early enough to complete its
 * deepest liquid prefix greedily.  opts may be NULL.  Free the result with
 * ibf_liquid_result_free(). */
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

/* Progression without barriers.  Transfer t may start once, on each of
 * its links, the transfer that used that link in the latest earlier frame
 * has arrived; pred lists those transfers (one entry each, and none that
 * is already on the list of another entry: it has arrived before that
 * one could start).  succ is the inverse: who waits for t.  A runtime
 * releases succ[t] when t arrives; a simulator does the same, so both run
 * one plan.  Needs a valid schedule (no link twice in a frame: else
 * IBF_ERR_INVALID naming the transfers).  O(sum of path lengths x the
 * longest path). */
typedef struct ibf_liquid_deps {
	uint32_t ntransfers;
	uint32_t *pred_off;   /* [ntransfers + 1] CSR into pred */
	uint32_t *pred;       /* ascending within a transfer */
	uint32_t *succ_off;   /* [ntransfers + 1] CSR into succ */
	uint32_t *succ;       /* ascending within a transfer */
	/* The schedule run again right after itself (a loop of calls): on
	 * each link that t is the first to use, the last user of that link
	 * in the previous run.  xsucc is the inverse. */
	uint32_t *xpred_off, *xpred;
	uint32_t *xsucc_off, *xsucc;
} ibf_liquid_deps_t;

ibf_status_t ibf_liquid_deps_build(const ibf_liquid_traffic_t *t,
				   const uint32_t *frame_of,
				   uint32_t nframes, ibf_liquid_deps_t *d,
				   ibf_err_t *err);
void ibf_liquid_deps_free(ibf_liquid_deps_t *d);

/* The schedule as JSON on fp: {"transfers", "duration",
 * "liquid_throughput", "liquid", "optimal_proven", "frames":[[["SRC",
 * "DST"], ...], ...], "time_s"}; hosts by NodeDescription.  Needs a traffic
 * built from a fabric (hosts != NULL). */
ibf_status_t ibf_liquid_write_json(const ibf_fabric_t *f,
				   const ibf_liquid_traffic_t *t,
				   const ibf_liquid_result_t *res, FILE *fp,
				   ibf_err_t *err);

/* ---- all-to-all plans ------------------------------------------------------
 *
 * An all-to-all among nranks ranks (CA ports, in rank order): every rank
 * sends one equal-size message to every other rank.  The plan computes a
 * schedule of frames from the fabric and its LFTs alone, deterministically:
 * every rank of an MPI communicator that calls it with the same fabric,
 * LFTs and ordered rank list gets the same plan, as long as no call is cut
 * short by its time limit (info->timed_out; use opts->work_limit for a
 * budget that stops every rank at the same point, and compare
 * info->fingerprint across ranks when in doubt).
 *
 * Memory: 4 bytes per transfer for the frames, plus the paths from each
 * switch with ranks to each rank (switches x ranks x hops x 4 bytes); the
 * transfers' link sets are never stored.  About 0.1-0.3 s of CPU for
 * 1,024 ranks and 3-16 s for 4,096 (docs/benchmarks.md).
 *
 * Method: round robin (the baseline, built first), then first fit over all
 * frames at once in a phase order, a second phase order if the first is
 * more than 1% above the bound, and for up to 181 ranks the exact search of
 * ibf_liquid_schedule().  The liquid bound (duration) is the load of the
 * busiest link; plans reach it or come within a few percent
 * (docs/liquid.md). */

#define IBF_LIQUID_IDLE UINT32_MAX   /* no peer in this frame */

typedef struct ibf_liquid_plan ibf_liquid_plan_t;

typedef struct ibf_liquid_plan_info {
	uint32_t nranks;
	uint64_t ntransfers;        /* nranks (nranks - 1) */
	uint32_t duration;          /* liquid bound: frames >= duration (a
				       lower bound of it when the limit
				       expired before every route was
				       traced; timed_out says so) */
	double liquid_throughput;   /* ntransfers / duration */
	uint32_t nframes;
	uint32_t largest_frame;     /* transfers in the fullest frame */
	bool liquid;                /* nframes == duration */
	bool optimal_proven;        /* liquid, or (small plans) the search
				       proved none exists and nframes ==
				       duration + 1 */
	bool timed_out;             /* a phase was cut short by the limit */
	bool exhausted;             /* the search proved no liquid schedule */
	ibf_liquid_method_t method;
	uint32_t rr_frames;         /* the round-robin baseline */
	uint32_t nlinks;            /* directed links used */
	uint32_t nbottlenecks;      /* links with load == duration */
	uint32_t search_depth;      /* small plans: the exact search's */
	uint64_t categories;
	double seconds;             /* the whole call, tracing included */
	uint64_t work;              /* work units spent (opts.work_limit),
				       the search's included */
	uint64_t fingerprint;       /* hash of the schedule */
} ibf_liquid_plan_info_t;

/* Plan the all-to-all of ranks[0..nranks-1] (distinct connected CA ports;
 * routes traced to each rank's base LID).  Bad ranks and undeliverable
 * routes are errors naming them.  opts may be NULL (10 s). */
ibf_status_t ibf_liquid_plan_alltoall(const ibf_lfts_t *l,
				      const ibf_port_id_t *ranks,
				      uint32_t nranks,
				      const ibf_liquid_opts_t *opts,
				      ibf_liquid_plan_t **out,
				      ibf_err_t *err);
void ibf_liquid_plan_destroy(ibf_liquid_plan_t *p);

const ibf_liquid_plan_info_t *ibf_liquid_plan_info(const ibf_liquid_plan_t *p);

/* The frame of transfer src -> dst (ranks, src != dst). */
uint32_t ibf_liquid_plan_frame(const ibf_liquid_plan_t *p, uint32_t src,
			       uint32_t dst);

/* The compact form for one rank: send_to[f] = the rank it sends to in frame
 * f, recv_from[f] = the rank it receives from, IBF_LIQUID_IDLE where it
 * does not (arrays of info->nframes; either may be NULL).  A rank sends
 * and receives at most once per frame.  O(nranks + nframes). */
void ibf_liquid_plan_rank(const ibf_liquid_plan_t *p, uint32_t rank,
			  uint32_t *send_to, uint32_t *recv_from);

/* The directed links used (egress ports) and their loads; returns nlinks. */
uint32_t ibf_liquid_plan_links(const ibf_liquid_plan_t *p,
			       const ibf_port_id_t **link_port,
			       const uint32_t **load);

/* Frames as lists of transfers: frame_off [nframes + 1] into pairs
 * [2 * ntransfers] (src, dst rank pairs, ascending within a frame), both
 * allocated here (free()).  O(ntransfers). */
ibf_status_t ibf_liquid_plan_frames(const ibf_liquid_plan_t *p,
				    uint64_t **frame_off, uint32_t **pairs,
				    ibf_err_t *err);

/* The same JSON document as ibf_liquid_write_json(), ranks named by
 * NodeDescription. */
ibf_status_t ibf_liquid_plan_write_json(const ibf_fabric_t *f,
					const ibf_liquid_plan_t *p, FILE *fp,
					ibf_err_t *err);

IBF_END_DECLS
#endif
