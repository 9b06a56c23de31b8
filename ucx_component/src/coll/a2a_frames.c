/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Liquid all-to-all frame by frame: in each frame a process sends to the
 * ranks of at most one host and receives from those of at most one.  Two
 * ways of keeping frames apart, for measurement and as fallbacks of the
 * link-exact progression (a2a_links.c, the default):
 *
 * ready (UCX_IBFLOW_ALLTOALL_SYNC=ready): pairwise readiness.  A
 * receiver, done with its previous frame, posts the receive for frame f
 * and tells its sender "ready"; the sender starts only then.  So a
 * frame's transfer never starts while either end is still busy with an
 * earlier frame, without a job-wide barrier per frame.
 *
 * barrier (UCX_IBFLOW_ALLTOALL_SYNC=barrier): a job-wide barrier before
 * every frame.
 *
 * Either way the blocks between ranks of one host go first.  Large
 * blocks go as UCP decides for their size: rendezvous, zero-copy where
 * the transport can.
 */
#include "config.h"

#include "coll/a2a_internal.h"

static ibf_ucx_status_t run_frames(ibf_ucx_t *u, const ibf_ucxi_a2a_sched_t *s,
				   const ibf_ucxi_blocks_t *b, bool barrier,
				   ibf_ucx_err_t *err)
{
	uint32_t seq = ++u->seq, f;
	ibf_ucx_status_t st;

	st = ibf_ucxi_a2a_exchange(u, b, seq, s->local, s->nlocal, s->local,
				   s->nlocal, false, err);
	if (st != IBF_UCX_OK) {
		ibf_ucx_err_prefix(err, "this host's blocks: ");
		goto out;
	}
	for (f = 0; f < s->nframes; f++) {
		if (barrier) {
			st = ibf_ucx_barrier(u, err);
			if (st != IBF_UCX_OK)
				goto fail;
		}
		st = ibf_ucxi_a2a_exchange(u, b, seq,
					   s->send_peer + s->send_off[f],
					   s->send_off[f + 1] - s->send_off[f],
					   s->recv_peer + s->recv_off[f],
					   s->recv_off[f + 1] - s->recv_off[f],
					   !barrier, err);
		if (st != IBF_UCX_OK)
			goto fail;
	}
	return IBF_UCX_OK;
fail:
	ibf_ucx_err_prefix(err, "frame %u of %u: ", f + 1, s->nframes);
out:
	ibf_ucx_err_prefix(err, "all-to-all (liquid): ");
	return st;
}

static ibf_ucx_status_t run_ready(ibf_ucx_t *u, struct ibf_ucxi_a2a *a,
				  const ibf_ucxi_blocks_t *b,
				  ibf_ucx_err_t *err)
{
	return run_frames(u, &a->sched, b, false, err);
}

static ibf_ucx_status_t run_barrier(ibf_ucx_t *u, struct ibf_ucxi_a2a *a,
				    const ibf_ucxi_blocks_t *b,
				    ibf_ucx_err_t *err)
{
	return run_frames(u, &a->sched, b, true, err);
}

const ibf_ucxi_a2a_variant_t ibf_ucxi_a2a_ready = {
	.name = "ready",
	.alg = IBF_UCX_A2A_LIQUID,
	.sync = IBF_UCX_A2A_SYNC_READY,
	.flags = IBF_UCXI_A2A_SCHEDULE,
	.run = run_ready,
};

const ibf_ucxi_a2a_variant_t ibf_ucxi_a2a_barrier = {
	.name = "barrier",
	.alg = IBF_UCX_A2A_LIQUID,
	.sync = IBF_UCX_A2A_SYNC_BARRIER,
	.flags = IBF_UCXI_A2A_SCHEDULE,
	.run = run_barrier,
};
