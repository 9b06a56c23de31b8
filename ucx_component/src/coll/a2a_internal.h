/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * All-to-all over UCX (private): the schedule as the collective uses it.
 *
 * The schedule is kept in "peer of each frame" form, which is all a
 * process needs: in frame f it sends its block to send_to[f] and receives
 * from recv_from[f] (IBF_UCXI_NOPEER: nothing).  schedule.c is the only
 * file that talks to libibflow's liquid scheduler (ibflow/liquid.h), so a
 * change of that interface stays there.
 */
#ifndef IBFLOW_UCX_A2A_INTERNAL_H
#define IBFLOW_UCX_A2A_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ucx_internal.h"

#define IBF_UCXI_NOPEER UINT32_MAX

/* The whole job's schedule, as rank 0 computed it, in this process's
 * view (its slice).  Frames are frames of host pairs (a host is a fabric
 * endpoint, an HCA port): in frame f this process sends its blocks to
 * the ranks send_peer[send_off[f] .. send_off[f + 1]) (all of one host)
 * and receives from recv_peer[recv_off[f] .. recv_off[f + 1]); blocks
 * to and from the other ranks of its own host (local[]) go beside the
 * frames, at any time.  With one rank per host a frame's groups are one
 * rank each.
 *
 * The release lists are this process's part of the host pairs'
 * predecessor lists (ibf_liquid_deps_build): the sends of frame f may
 * start after send_need[f] releases; when every block of frame f has
 * arrived, this process releases the sends rel_rank[k] / rel_frame[k]
 * for k in rel_off[f] .. rel_off[f + 1] - 1 (itself too: then no
 * message). */
typedef struct ibf_ucxi_a2a_sched {
	uint32_t nframes;
	uint32_t duration;        /* bottleneck load */
	uint32_t rr_frames;       /* round robin's frames, same links */
	bool liquid;              /* nframes == duration */
	double seconds;           /* computing it */
	uint32_t *send_off;       /* [nframes + 1] */
	uint32_t *send_peer;
	uint32_t *recv_off;       /* [nframes + 1] */
	uint32_t *recv_peer;
	uint32_t nlocal;          /* ranks of this host but this one */
	uint32_t *local;          /* [nlocal] */
	uint32_t *send_need;      /* [nframes] */
	uint32_t *rel_off;        /* [nframes + 1] */
	uint32_t *rel_rank, *rel_frame;
	uint32_t nrel_in;         /* releases this process receives */
	uint32_t *rel_in_from;    /* [nrel_in] who sends each */
	/* The same for the next call (ibf_liquid_deps_t.xpred): its sends
	 * wait for the links they open to be released by this call's last
	 * users.  Only other processes' releases count: a process's own
	 * arrivals are all in before it starts its next call. */
	uint32_t *xsend_need;     /* [nframes] */
	uint32_t *xrel_off;       /* [nframes + 1] */
	uint32_t *xrel_rank, *xrel_frame;
	uint32_t nxrel_in;
	uint32_t *xrel_in_from;
} ibf_ucxi_a2a_sched_t;

/* The blocks of one call, alltoall or alltoallv. */
typedef struct ibf_ucxi_blocks {
	const char *sbuf;
	char *rbuf;
	size_t block;                 /* alltoall: every block */
	const size_t *sc, *sd, *rc, *rd;   /* alltoallv: per peer */
} ibf_ucxi_blocks_t;

static inline const void *ibf_ucxi_sblock(const ibf_ucxi_blocks_t *b,
					  uint32_t p, size_t *len)
{
	*len = b->sc ? b->sc[p] : b->block;
	return b->sbuf + (b->sd ? b->sd[p] : p * b->block);
}

static inline void *ibf_ucxi_rblock(const ibf_ucxi_blocks_t *b, uint32_t p,
				    size_t *len)
{
	*len = b->rc ? b->rc[p] : b->block;
	return b->rbuf + (b->rd ? b->rd[p] : p * b->block);
}

/* ALLTOALL_GAIN=auto by transport (docs/ucx-alltoall.md, "auto"): over
 * RDMA any schedule predicted at least as fast as the best of linear and
 * pairwise (ibf_ucxi_a2a_predict); over TCP none (its fair sharing makes
 * the MPI library's all-at-once algorithms as fast as liquid within
 * 10 %, either way) */
#define IBF_UCXI_GAIN_TCP HUGE_VAL
#define IBF_UCXI_GAIN_RDMA 1.0

/* ---- auto's prediction (a2a_gain.c) --------------------------------------
 *
 * The plan's figures, host pairs' blocks: bound_blocks and plan_blocks
 * from the node-aware planner (0 and 0 where the link-set planner ran:
 * then its frames stand for the chain). */
typedef struct ibf_ucxi_a2a_figures {
	uint64_t bound_blocks;    /* the busiest link's blocks */
	uint64_t plan_blocks;     /* the plan's chain of volumes */
	uint32_t nframes, duration, rr_frames;
	bool shared;              /* some host runs more than one rank */
} ibf_ucxi_a2a_figures_t;

/* The best of linear and pairwise above the bound wherever round robin
 * over the hosts is not contention-free with one rank per host: the
 * least measured in the simulator (docs/benchmarks.md), rounded down. */
#define IBF_UCXI_A2A_OTHERS_OVER 0.09

/* Completion times as multiples of the bound, and the gain others /
 * liquid that ALLTOALL_GAIN is held against. */
typedef struct ibf_ucxi_a2a_predict {
	double liquid, others, gain;
} ibf_ucxi_a2a_predict_t;

void ibf_ucxi_a2a_predict(const ibf_ucxi_a2a_figures_t *f,
			  ibf_ucxi_a2a_predict_t *p);

struct ibf_ucxi_a2a {
	uint32_t nlinks_calls;    /* ALLTOALL_SYNC=links calls so far */
	bool declined;            /* auto: the schedule does not pay */
	bool have_sched;
	bool no_sched;            /* it could not be computed: never liquid */
	ibf_ucxi_a2a_sched_t sched;
	uint64_t nliquid, npairwise;
};

/* ---- the planner and each rank's part (a2a_plan.c) ----------------------
 *
 * One rank (the planner, rank 0) computes the schedule of the host pairs
 * and its predecessor lists; every rank gets only its host's slice,
 * O(hosts) words plus its host pairs' predecessors, and keeps the
 * ibf_ucxi_a2a_sched_t above, O(size).  Nothing here
 * communicates, so the whole setup of a communicator of any size can run
 * in one process (tests, benchmarks). */

#define IBF_UCXI_A2A_WHY_MAX 512

/* What the planner says to every rank before any slice travels. */
typedef struct ibf_ucxi_a2a_hdr {
	int32_t verdict;          /* IBF_UCX_OK, IBF_UCX_ERR_SCHEDULE (no
				     plan: the caller's algorithm) or
				     IBF_UCX_ERR_DECLINED (auto: not worth
				     it) */
	uint32_t nframes, duration, rr_frames, liquid;
	uint32_t us;              /* the planner's time, microseconds */
	char why[IBF_UCXI_A2A_WHY_MAX];   /* verdict not OK: the reason */
} ibf_ucxi_a2a_hdr_t;

/* What the caller asks of the planner. */
typedef struct ibf_ucxi_a2a_ask {
	uint64_t max_transfers;   /* refuse more host pairs (0: no
				     limit but the link-set planner's,
				     where it plans) */
	double need_gain;         /* least predicted gain over linear and
				     pairwise (ibf_ucxi_a2a_predict); 0: any;
				     HUGE_VAL: decline without planning */
	const char *transport;    /* for the decline's message */
} ibf_ucxi_a2a_ask_t;

/* The planner's product: the verdict and, when it is OK, the slice of
 * host h (every rank of h gets it) at words[off[h] .. off[h + 1]). */
typedef struct ibf_ucxi_a2a_plan {
	ibf_ucxi_a2a_hdr_t hdr;
	uint32_t nhosts;
	uint64_t *off;            /* [nhosts + 1] */
	uint32_t *words;
} ibf_ucxi_a2a_plan_t;

/* The planner (local, any failure is the verdict, never a status). */
void ibf_ucxi_a2a_plan(const ibf_ucx_t *u, const ibf_ucxi_a2a_ask_t *ask,
		       ibf_ucxi_a2a_plan_t *p);
void ibf_ucxi_a2a_plan_free(ibf_ucxi_a2a_plan_t *p);
/* Rank `rank` of `size` (rank_host[size]: every rank's host, of
 * nhosts) takes its part of the schedule the header describes from its
 * host's slice (nwords words).  O(size) time and memory.  A malformed
 * slice or memory refused is an error; s is then empty. */
ibf_ucx_status_t ibf_ucxi_a2a_slice_take(uint32_t size, uint32_t rank,
					 const uint32_t *rank_host,
					 uint32_t nhosts,
					 const ibf_ucxi_a2a_hdr_t *h,
					 const uint32_t *w, size_t nwords,
					 ibf_ucxi_a2a_sched_t *s,
					 ibf_ucx_err_t *err);
/* Bytes a rank keeps for its schedule (what ibf_ucxi_a2a_sched_free
 * frees). */
size_t ibf_ucxi_a2a_sched_bytes(const ibf_ucxi_a2a_sched_t *s);
void ibf_ucxi_a2a_sched_free(ibf_ucxi_a2a_sched_t *s);

/* schedule.c: what the planner is asked.  By auto (by_auto), the least
 * gain the transport needs (docs/ucx-alltoall.md, "auto"); over TCP by
 * default none pays, and no schedule is computed at all.  Rank 0's view
 * of the transport decides for all. */
ibf_ucxi_a2a_ask_t ibf_ucxi_a2a_ask(const ibf_ucx_t *u, bool by_auto);

/* schedule.c, collective: the planner's verdict, broadcast, then every
 * rank's slice, scattered, then whether every rank could hold its part.
 * Every rank returns the same: IBF_UCX_OK, IBF_UCX_ERR_SCHEDULE (the
 * plan cannot be made or held somewhere: err says where and why),
 * IBF_UCX_ERR_DECLINED, or the error of a failed exchange (a dead peer). */
ibf_ucx_status_t ibf_ucxi_a2a_schedule(ibf_ucx_t *u,
				       const ibf_ucxi_a2a_ask_t *ask,
				       ibf_ucxi_a2a_sched_t *s,
				       ibf_ucx_err_t *err);

/* ---- the variants (one file each) behind one table ----------------------
 *
 * The selection (alltoall.c) takes the public algorithm (mode, fabric,
 * block size) and UCX_IBFLOW_ALLTOALL_SYNC, and runs the first variant
 * of ibf_ucxi_a2a_variants[] that implements both, after giving it what
 * its flags ask for; the own block is copied before.  A variant prefixes
 * its errors with what it is. */

/* The liquid schedule, computed collectively on the first call (more
 * than one rank needed); the call counts as liquid. */
#define IBF_UCXI_A2A_SCHEDULE (1u << 0)
/* The shared control lane, set up before (core/lane.c). */
#define IBF_UCXI_A2A_LANE (1u << 1)
/* What runs when no other can: nothing chosen, or liquid on one rank. */
#define IBF_UCXI_A2A_FALLBACK (1u << 2)

#define IBF_UCXI_A2A_ANY_SYNC (-1)

typedef struct ibf_ucxi_a2a_variant {
	const char *name;
	ibf_ucx_a2a_alg_t alg;    /* the public algorithm it implements */
	int sync;                 /* the ALLTOALL_SYNC it serves, or ANY */
	unsigned flags;
	ibf_ucx_status_t (*run)(ibf_ucx_t *u, struct ibf_ucxi_a2a *a,
				const ibf_ucxi_blocks_t *b,
				ibf_ucx_err_t *err);
} ibf_ucxi_a2a_variant_t;

/* a2a_links.c: each transfer started when its links are free, releases
 * along every link (UCX_IBFLOW_ALLTOALL_SYNC=links, the default). */
extern const ibf_ucxi_a2a_variant_t ibf_ucxi_a2a_links;
/* a2a_frames.c: frame by frame, frames kept apart by readiness
 * handshakes (ready) or a barrier (barrier). */
extern const ibf_ucxi_a2a_variant_t ibf_ucxi_a2a_ready;
extern const ibf_ucxi_a2a_variant_t ibf_ucxi_a2a_barrier;
/* a2a_pairwise.c: topology-unaware round robin. */
extern const ibf_ucxi_a2a_variant_t ibf_ucxi_a2a_pairwise;
/* a2a_variants.c: all of them, in the order they are tried; NULL ends. */
extern const ibf_ucxi_a2a_variant_t *const ibf_ucxi_a2a_variants[];

/* a2a_exchange.c: send to the nto ranks to[] and receive from the nfrom
 * ranks from[] (with handshake: each send after its receiver's ready
 * token), and wait for all. */
ibf_ucx_status_t ibf_ucxi_a2a_exchange(ibf_ucx_t *u,
				       const ibf_ucxi_blocks_t *b,
				       uint32_t seq, const uint32_t *to,
				       uint32_t nto, const uint32_t *from,
				       uint32_t nfrom, bool handshake,
				       ibf_ucx_err_t *err);

#endif
