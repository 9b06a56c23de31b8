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
#ifndef IBF_UCX_A2A_INTERNAL_H
#define IBF_UCX_A2A_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ucx_internal.h"

#define IBF_UCXI_NOPEER UINT32_MAX

/* The whole job's schedule, as rank 0 computed it and broadcast it, in
 * this process's view.  The release lists are its part of the schedule's
 * predecessor lists (ibf_liquid_deps_build): the send of frame f may
 * start after send_need[f] releases; when the block of frame f arrives,
 * this process releases the sends rel_rank[k] / rel_frame[k] for k in
 * rel_off[f] .. rel_off[f + 1] - 1 (itself too: then no message). */
typedef struct ibf_ucxi_a2a_sched {
	uint32_t nframes;
	uint32_t duration;        /* bottleneck load */
	uint32_t rr_frames;       /* round robin's frames, same links */
	bool liquid;              /* nframes == duration */
	double seconds;           /* computing it */
	uint32_t *send_to;        /* [nframes] this process's peers */
	uint32_t *recv_from;      /* [nframes] */
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
 * RDMA any schedule at least as good as round robin; over TCP none (its
 * fair sharing makes the MPI library's all-at-once algorithms as fast as
 * liquid within 10 %, either way) */
#define IBF_UCXI_GAIN_TCP HUGE_VAL
#define IBF_UCXI_GAIN_RDMA 1.0

struct ibf_ucxi_a2a {
	uint32_t nlinks_calls;    /* ALLTOALL_SYNC=links calls so far */
	bool declined;            /* auto: the schedule does not pay */
	bool have_sched;
	bool no_sched;            /* it could not be computed: never liquid */
	ibf_ucxi_a2a_sched_t sched;
	uint64_t nliquid, npairwise;
};

/* Collective: rank 0 schedules the transfers between every ordered pair
 * of distinct ranks (each one its routed path plus a send link of its
 * source process and a receive link of its destination process, so that
 * a frame has at most one send and one receive per process) and
 * broadcasts the frame of each transfer; every rank keeps its own peers. */
ibf_ucx_status_t ibf_ucxi_a2a_schedule(ibf_ucx_t *u,
				       ibf_ucxi_a2a_sched_t *s,
				       ibf_ucx_err_t *err);
void ibf_ucxi_a2a_sched_free(ibf_ucxi_a2a_sched_t *s);

/* a2a_links.c: one call's frames, each transfer started when its
 * releases are in (UCX_IBFLOW_ALLTOALL_SYNC=links). */
ibf_ucx_status_t ibf_ucxi_a2a_run_links(ibf_ucx_t *u,
					const ibf_ucxi_a2a_sched_t *s,
					const ibf_ucxi_blocks_t *b,
					uint32_t seq, uint32_t call,
					ibf_ucx_err_t *err);

#endif
