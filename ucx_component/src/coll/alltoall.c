/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * All-to-all over UCP tagged messages: along the liquid schedule, or
 * pairwise (topology-unaware round robin) for comparison and fallback.
 *
 * Liquid: frame by frame, each process sends at most one block and
 * receives at most one.  Frames are kept apart by pairwise readiness: a
 * receiver, done with its previous frame, posts the receive for frame f
 * and tells its sender "ready"; the sender starts only then.  So a frame's
 * transfer never starts while either end is still busy with an earlier
 * frame, without a job-wide barrier per frame (UCX_IBFLOW_ALLTOALL_SYNC=
 * barrier puts one there, for measurement).  Large blocks go as UCP
 * decides for their size: rendezvous, zero-copy where the transport can.
 *
 * Tags: (kind, call sequence, source rank).  Within one call a process
 * sends one block and one ready token to each peer, so no frame number is
 * needed; the sequence keeps consecutive calls apart.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "coll/a2a_internal.h"

#include <math.h>
#include <stdio.h>

const char *ibf_ucx_a2a_alg_str(ibf_ucx_a2a_alg_t a)
{
	switch (a) {
	case IBF_UCX_A2A_NONE: return "none";
	case IBF_UCX_A2A_LIQUID: return "liquid";
	case IBF_UCX_A2A_PAIRWISE: return "pairwise";
	}
	return "?";
}

/* The all-to-all's state of a context (schedule, counters): coll/'s,
 * made on the first call, freed with the context. */
static void a2a_free(void *data)
{
	struct ibf_ucxi_a2a *a = data;

	if (!a)
		return;
	ibf_ucxi_a2a_sched_free(&a->sched);
	free(a);
}

static const ibf_ucxi_state_key_t A2A = { "all-to-all", a2a_free };

static struct ibf_ucxi_a2a *a2a_of(const ibf_ucx_t *u)
{
	return ibf_ucxi_state_get(u, &A2A);
}

ibf_ucx_a2a_alg_t ibf_ucx_alltoall_select(const ibf_ucx_t *u,
					  size_t block_bytes)
{
	const ibf_ucx_cfg_t *v = &u->cfg->v;
	const struct ibf_ucxi_a2a *a = a2a_of(u);

	if (a && a->no_sched)
		return IBF_UCX_A2A_NONE;
	if (a && a->declined &&
	    v->alltoall == IBF_UCX_A2A_MODE_AUTO)
		return IBF_UCX_A2A_NONE;
	switch ((ibf_ucx_a2a_mode_t)v->alltoall) {
	case IBF_UCX_A2A_MODE_LIQUID:
		return u->aware ? IBF_UCX_A2A_LIQUID : IBF_UCX_A2A_PAIRWISE;
	case IBF_UCX_A2A_MODE_PAIRWISE:
		return IBF_UCX_A2A_PAIRWISE;
	case IBF_UCX_A2A_MODE_AUTO:
		return u->aware && block_bytes >= v->alltoall_thresh ?
			IBF_UCX_A2A_LIQUID : IBF_UCX_A2A_NONE;
	case IBF_UCX_A2A_MODE_OFF:
		break;
	}
	return IBF_UCX_A2A_NONE;
}

void ibf_ucx_a2a_stats(const ibf_ucx_t *u, ibf_ucx_a2a_stats_t *s)
{
	const struct ibf_ucxi_a2a *a = a2a_of(u);

	memset(s, 0, sizeof(*s));
	if (!a)
		return;
	s->liquid = a->nliquid;
	s->pairwise = a->npairwise;
	if (a->have_sched || a->declined) {
		s->nframes = a->sched.nframes;
		s->duration = a->sched.duration;
		s->schedule_liquid = a->sched.liquid;
		s->schedule_s = a->sched.seconds;
	}
}

static void copy_self(const ibf_ucx_t *u, const ibf_ucxi_blocks_t *b)
{
	size_t sl, rl;
	const void *s = ibf_ucxi_sblock(b, u->rank, &sl);
	void *r = ibf_ucxi_rblock(b, u->rank, &rl);

	if (sl && s != r)
		memmove(r, s, sl < rl ? sl : rl);
}

/* One exchange: send to the nto ranks to[] and receive from the nfrom
 * ranks from[], and wait for all.  Every receive (and its ready token,
 * with handshake) is posted before any send waits for a token, so ranks
 * whose groups overlap in any order cannot wait for each other. */
static ibf_ucx_status_t exchange(ibf_ucx_t *u, const ibf_ucxi_blocks_t *b,
				 uint32_t seq, const uint32_t *to, uint32_t nto,
				 const uint32_t *from, uint32_t nfrom,
				 bool handshake, ibf_ucx_err_t *err)
{
	ibf_ucxi_req_t *r = calloc(2 * (size_t)nfrom + nto + 1, sizeof(*r));
	unsigned n = 0;
	char token = 0, ready;
	size_t len;
	ibf_ucx_status_t st = IBF_UCX_OK;

	if (!r)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
				       "all-to-all: out of memory");
	/* receive side first: post the data receive, then say ready */
	for (uint32_t i = 0; i < nfrom && st == IBF_UCX_OK; i++) {
		void *buf = ibf_ucxi_rblock(b, from[i], &len);

		st = ibf_ucxi_irecv(u, from[i], ibf_ucxi_tag(
				    IBF_UCXI_TAG_A2A_DATA, seq, from[i]),
				    buf, len, &r[n], err);
		if (st == IBF_UCX_OK && ++n && handshake)
			st = ibf_ucxi_isend(u, from[i], ibf_ucxi_tag(
					    IBF_UCXI_TAG_A2A_READY, seq,
					    u->rank), &token, 1, &r[n++], err);
	}
	for (uint32_t i = 0; i < nto && st == IBF_UCX_OK; i++) {
		const void *buf = ibf_ucxi_sblock(b, to[i], &len);

		if (handshake) {
			ibf_ucxi_req_t rr;

			st = ibf_ucxi_irecv(u, to[i], ibf_ucxi_tag(
					    IBF_UCXI_TAG_A2A_READY, seq,
					    to[i]), &ready, 1, &rr, err);
			if (st == IBF_UCX_OK)
				st = ibf_ucxi_wait(u, &rr, 1, ibf_ucxi_now() +
						   u->timeout, 0, err);
		}
		if (st == IBF_UCX_OK)
			st = ibf_ucxi_isend(u, to[i], ibf_ucxi_tag(
					    IBF_UCXI_TAG_A2A_DATA, seq,
					    u->rank), buf, len, &r[n++], err);
	}
	if (st == IBF_UCX_OK) {
		st = ibf_ucxi_wait(u, r, n, ibf_ucxi_now() + u->timeout, 0,
				   err);
	} else if (n) {
		/* give back what was posted; a short deadline cancels it */
		ibf_ucx_err_t tmp;

		ibf_ucxi_wait(u, r, n, ibf_ucxi_now(), 0, &tmp);
	}
	free(r);
	return st;
}

/* Frame by frame, a barrier or readiness handshakes keeping frames
 * apart (ALLTOALL_SYNC=barrier|ready: measurements and fallbacks); the
 * blocks between ranks of one host first. */
static ibf_ucx_status_t run_frames(ibf_ucx_t *u, const ibf_ucxi_blocks_t *b,
				   uint32_t seq, bool barrier,
				   ibf_ucx_err_t *err)
{
	const ibf_ucxi_a2a_sched_t *s = &a2a_of(u)->sched;
	ibf_ucx_status_t st;
	uint32_t f;

	st = exchange(u, b, seq, s->local, s->nlocal, s->local, s->nlocal,
		      false, err);
	if (st != IBF_UCX_OK) {
		ibf_ucx_err_prefix(err, "this host's blocks: ");
		return st;
	}
	for (f = 0; f < s->nframes; f++) {
		if (barrier) {
			st = ibf_ucx_barrier(u, err);
			if (st != IBF_UCX_OK)
				goto fail;
		}
		st = exchange(u, b, seq, s->send_peer + s->send_off[f],
			      s->send_off[f + 1] - s->send_off[f],
			      s->recv_peer + s->recv_off[f],
			      s->recv_off[f + 1] - s->recv_off[f], !barrier,
			      err);
		if (st != IBF_UCX_OK)
			goto fail;
	}
	return IBF_UCX_OK;
fail:
	ibf_ucx_err_prefix(err, "frame %u of %u: ", f + 1, s->nframes);
	return st;
}

/* Does the data go over RDMA?  UCX names the transports it uses in its
 * context's resource list ("resource N : md M dev D flags -- tl/dev"). */
static bool over_rdma(const ibf_ucx_t *u)
{
	static const char *const rdma[] = { " -- rc_", " -- ud_", " -- dc_" };
	char *text = NULL;
	size_t len = 0;
	bool found = false;
	FILE *fp = open_memstream(&text, &len);

	if (!fp)
		return false;
	ucp_context_print_info(u->wire.ctx, fp);
	fclose(fp);
	for (unsigned i = 0; text && i < 3 && !found; i++)
		found = strstr(text, rdma[i]) != NULL;
	free(text);
	return found;
}

/* What the planner is asked: by auto, the least gain the transport
 * needs (docs/ucx-alltoall.md, "auto"); over TCP by default none pays,
 * and no schedule is computed at all. */
static ibf_ucxi_a2a_ask_t ask_for(const ibf_ucx_t *u, bool by_auto)
{
	ibf_ucxi_a2a_ask_t a = { .need_gain = 0 };
	bool rdma;

	if (!by_auto)
		return a;
	rdma = over_rdma(u);
	a.transport = rdma ? "RDMA" : "TCP";
	a.need_gain = u->cfg->v.alltoall_gain;
	if (a.need_gain < 0)
		a.need_gain = rdma ? IBF_UCXI_GAIN_RDMA : IBF_UCXI_GAIN_TCP;
	return a;
}

/* Segment k of an alltoall's blocks (bytes k * seg .. of each block) as
 * an alltoallv view: counts and displacements per peer. */
static void segment_view(const ibf_ucxi_blocks_t *b, uint32_t n, size_t seg,
			 uint32_t k, size_t *sc, size_t *sd,
			 ibf_ucxi_blocks_t *v)
{
	size_t from = (size_t)k * seg;
	size_t len = b->block - from < seg ? b->block - from : seg;

	for (uint32_t p = 0; p < n; p++) {
		sc[p] = len;
		sd[p] = (size_t)p * b->block + from;
	}
	*v = (ibf_ucxi_blocks_t){ .sbuf = b->sbuf, .rbuf = b->rbuf,
				  .sc = sc, .sd = sd, .rc = sc, .rd = sd };
}

/* Links progression, blocks cut into ALLTOALL_SEGMENT-byte pieces: each
 * piece is one run of the schedule, kept apart from the previous one on
 * every link like consecutive calls, so a slow transfer holds back a
 * piece's worth of its successors instead of a block's.  alltoall only:
 * the number of pieces must be the same on every rank. */
static ibf_ucx_status_t run_links_segmented(ibf_ucx_t *u,
					    const ibf_ucxi_blocks_t *b,
					    ibf_ucx_err_t *err)
{
	struct ibf_ucxi_a2a *a = a2a_of(u);
	size_t seg = u->cfg->v.alltoall_segment, *sc, *sd;
	uint32_t n = u->size, nseg = 1, k;
	ibf_ucxi_blocks_t v;
	ibf_ucx_status_t st = IBF_UCX_OK;

	if (!b->sc && seg && b->block > seg)
		nseg = (uint32_t)((b->block + seg - 1) / seg);
	if (nseg == 1)
		return ibf_ucxi_a2a_run_links(u, &a->sched, b, ++u->seq,
					      a->nlinks_calls++, err);
	sc = malloc(2 * ((size_t)n + 1) * sizeof(*sc));
	if (!sc)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
				       "all-to-all: out of memory");
	sd = sc + n + 1;
	for (k = 0; k < nseg && st == IBF_UCX_OK; k++) {
		segment_view(b, n, seg, k, sc, sd, &v);
		st = ibf_ucxi_a2a_run_links(u, &a->sched, &v, ++u->seq,
					    a->nlinks_calls++, err);
	}
	free(sc);
	return st;
}

static ibf_ucx_status_t run_liquid(ibf_ucx_t *u, const ibf_ucxi_blocks_t *b,
				   bool by_auto, ibf_ucx_err_t *err)
{
	struct ibf_ucxi_a2a *a = a2a_of(u);
	unsigned sync = u->cfg->v.alltoall_sync;
	uint32_t seq;
	ibf_ucx_status_t st;

	if (!a->have_sched) {
		/* rank 0's view of the transport decides for all */
		ibf_ucxi_a2a_ask_t ask = ask_for(u, by_auto);

		st = ibf_ucxi_a2a_schedule(u, &ask, &a->sched, err);
		if (st == IBF_UCX_ERR_SCHEDULE)
			a->no_sched = true;
		if (st == IBF_UCX_ERR_DECLINED)
			a->declined = true;
		if (st != IBF_UCX_OK)
			return st;
		a->have_sched = true;
	}
	if (sync == IBF_UCX_A2A_SYNC_LINKS) {
		st = ibf_ucxi_lane_setup(u, err);
		if (st != IBF_UCX_OK)
			return st;
	}
	copy_self(u, b);
	if (sync == IBF_UCX_A2A_SYNC_LINKS) {
		st = run_links_segmented(u, b, err);
	} else {
		seq = ++u->seq;
		st = run_frames(u, b, seq, sync == IBF_UCX_A2A_SYNC_BARRIER,
				err);
	}
	if (st != IBF_UCX_OK) {
		ibf_ucx_err_prefix(err, "all-to-all (liquid): ");
		return st;
	}
	a->nliquid++;
	return IBF_UCX_OK;
}

static ibf_ucx_status_t run_pairwise(ibf_ucx_t *u, const ibf_ucxi_blocks_t *b,
				     ibf_ucx_err_t *err)
{
	uint32_t n = u->size, seq = ++u->seq, k;
	ibf_ucx_status_t st;

	copy_self(u, b);
	for (k = 1; k < n; k++) {
		uint32_t to = (u->rank + k) % n, from = (u->rank + n - k) % n;

		st = exchange(u, b, seq, &to, 1, &from, 1, false, err);
		if (st != IBF_UCX_OK) {
			ibf_ucx_err_prefix(err, "all-to-all (pairwise), step "
					   "%u of %u: ", k, n - 1);
			return st;
		}
	}
	a2a_of(u)->npairwise++;
	return IBF_UCX_OK;
}

static bool auto_mode(const ibf_ucx_t *u)
{
	return u->cfg->v.alltoall == IBF_UCX_A2A_MODE_AUTO;
}

/* by_auto: the caller left the choice to UCX_IBFLOW_ALLTOALL=auto */
static ibf_ucx_status_t run(ibf_ucx_t *u, const ibf_ucxi_blocks_t *b,
			    ibf_ucx_a2a_alg_t alg, bool by_auto,
			    ibf_ucx_err_t *err)
{
	struct ibf_ucxi_a2a *a = a2a_of(u);
	ibf_ucx_status_t st;

	ibf_ucx_err_clear(err);
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					       "all-to-all: out of memory");
		st = ibf_ucxi_state_put(u, &A2A, a, err);
		if (st != IBF_UCX_OK)
			return st;
	}
	if (alg == IBF_UCX_A2A_NONE) {
		by_auto = auto_mode(u);
		alg = ibf_ucx_alltoall_select(u, b->block);
	}
	if (alg == IBF_UCX_A2A_LIQUID && u->size > 1)
		return run_liquid(u, b, by_auto, err);
	if (alg != IBF_UCX_A2A_LIQUID && alg != IBF_UCX_A2A_PAIRWISE &&
	    alg != IBF_UCX_A2A_NONE)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID, "all-to-all:"
				       " unknown algorithm %d", (int)alg);
	return run_pairwise(u, b, err);
}

ibf_ucx_status_t ibf_ucx_alltoall(ibf_ucx_t *u, const void *sendbuf,
				  void *recvbuf, size_t block_bytes,
				  ibf_ucx_a2a_alg_t alg, ibf_ucx_err_t *err)
{
	ibf_ucxi_blocks_t b = { .sbuf = sendbuf, .rbuf = recvbuf,
		       .block = block_bytes };

	if (!u || (block_bytes && (!sendbuf || !recvbuf)))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "ibf_ucx_alltoall: NULL argument");
	return run(u, &b, alg, false, err);
}

ibf_ucx_status_t ibf_ucx_alltoallv(ibf_ucx_t *u, const void *sendbuf,
				   const size_t *scounts,
				   const size_t *sdispls, void *recvbuf,
				   const size_t *rcounts,
				   const size_t *rdispls,
				   ibf_ucx_a2a_alg_t alg, ibf_ucx_err_t *err)
{
	ibf_ucxi_blocks_t b = { .sbuf = sendbuf, .rbuf = recvbuf, .sc = scounts,
		       .sd = sdispls, .rc = rcounts, .rd = rdispls };
	if (!u || !scounts || !sdispls || !rcounts || !rdispls)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "ibf_ucx_alltoallv: NULL argument");
	/* Block sizes differ between ranks, and the choice must not: the
	 * threshold does not apply, only the mode and the fabric. */
	bool by_auto = alg == IBF_UCX_A2A_NONE && auto_mode(u);

	if (alg == IBF_UCX_A2A_NONE)
		alg = ibf_ucx_alltoall_select(u, SIZE_MAX);
	if (alg == IBF_UCX_A2A_NONE)
		alg = IBF_UCX_A2A_PAIRWISE;
	return run(u, &b, alg, by_auto, err);
}
