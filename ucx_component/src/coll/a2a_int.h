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
#ifndef IBF_UCX_A2A_INT_H
#define IBF_UCX_A2A_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ucx_int.h"

#define IBF_UCXI_NOPEER UINT32_MAX

/* The whole job's schedule, as rank 0 computed it and broadcast it. */
typedef struct ibf_ucxi_a2a_sched {
	uint32_t nframes;
	uint32_t duration;        /* bottleneck load */
	bool liquid;              /* nframes == duration */
	double seconds;           /* computing it */
	uint32_t *send_to;        /* [nframes] this process's peers */
	uint32_t *recv_from;      /* [nframes] */
} ibf_ucxi_a2a_sched_t;

struct ibf_ucxi_a2a {
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

#endif
