/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Liquid all-to-all without barriers: each transfer starts when every
 * link of its path, and both its ends, are free of the transfers that
 * used them in earlier frames (UCX_IBFLOW_ALLTOALL_SYNC=links).
 *
 * The schedule is of host pairs (a2a_plan.c): in frame f a rank sends
 * its blocks to every rank of one host at once.  The host pairs'
 * predecessor lists (ibf_liquid_deps_build) say who waits for whom.  A
 * rank, when all its blocks of frame f have arrived, sends a 4-byte
 * release (the frame of the waiting send) to every rank of the sending
 * host of each host pair that waits for it; a rank starts its frame-f
 * blocks when all of that frame's releases are in.  Blocks to the other
 * ranks of its own host wait for nothing.  So no two transfers are ever on one link at once,
 * there is no job-wide synchronisation, and frames that share nothing run
 * ahead of each other.  Every receive is posted when the call starts, so
 * a block never waits for its receiver to get round to it.
 *
 * Calls in a loop are kept apart too: a transfer that is the first of
 * its call on a link waits for the previous call's last user of that
 * link (ibf_liquid_deps_t.xpred).  Its receiver sends that release when
 * it starts the next call, all of its previous call's blocks being in
 * by then: a little later than the block's arrival, but a release is
 * only ever sent for a call that comes (releases for a call that never
 * comes would be left unread, and a peer that has closed its lane makes
 * sending them fail).
 *
 * Releases travel on the control lane when the context has one
 * (core/lane.c): they must not queue behind the data they are about.
 *
 * An alltoall of large blocks may go in segments (ALLTOALL_SEGMENT), each
 * one run of the schedule.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "coll/a2a_internal.h"

/* One call's state.  Blocks are numbered as the schedule lists them:
 * receives recv_peer[0 .. nrf) then the local ones, sends likewise.
 * Pending requests sit in compact index lists so a sweep costs what is
 * still outstanding. */
typedef struct links_run {
	ibf_ucx_t *u;
	const ibf_ucxi_a2a_sched_t *s;
	const ibf_ucxi_blocks_t *b;
	uint32_t seq;
	uint32_t call;                /* this context's links calls before */
	uint32_t nrf, nsf;            /* blocks received / sent in frames */
	uint32_t nrin;                /* release receives: this call's and
					 the previous call's */
	ibf_ucxi_req_t *recv, *send;  /* [nrf + nlocal], [nsf + nlocal] */
	uint32_t *recv_frame;         /* [nrf + nlocal] (NOPEER: local) */
	uint32_t *left;               /* [nframes] blocks still to arrive */
	uint32_t *need;               /* [nframes] releases still missing */
	uint8_t *posted;              /* [nframes] sends started */
	ibf_ucxi_req_t *rin;          /* [nrel_in] release receives */
	uint32_t *rin_frame;
	ibf_ucxi_req_t *rout;         /* release sends */
	uint32_t *rout_frame, nrout;
	uint32_t *pend_recv, npend_recv;   /* blocks */
	uint32_t *pend_rin, npend_rin;     /* release slots */
	uint32_t next_send;           /* lowest send frame not yet started */
	uint32_t nsends_left;         /* frames */
	uint64_t *t_start;            /* [nframes + 1] trace, or NULL (the
					 last: the local blocks) */
	uint64_t *t_arrive;           /* [nrf + nlocal] */
} links_run_t;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run_free(links_run_t *r)
{
	free(r->recv);
	free(r->send);
	free(r->recv_frame);
	free(r->left);
	free(r->need);
	free(r->posted);
	free(r->rin);
	free(r->rin_frame);
	free(r->rout);
	free(r->rout_frame);
	free(r->pend_recv);
	free(r->pend_rin);
	free(r->t_start);
	free(r->t_arrive);
}

static ibf_ucx_status_t run_alloc(links_run_t *r, bool trace,
				  ibf_ucx_err_t *err)
{
	const ibf_ucxi_a2a_sched_t *s = r->s;
	size_t nf = (size_t)s->nframes + 1;
	size_t nr = (size_t)r->nrf + s->nlocal + 1;
	size_t ns = (size_t)r->nsf + s->nlocal + 1;
	size_t ni = (size_t)s->nrel_in + (r->call ? s->nxrel_in : 0) + 1;
	size_t no = (size_t)s->rel_off[s->nframes] +
		    s->xrel_off[s->nframes] + 1;

	r->recv = calloc(nr, sizeof(*r->recv));
	r->send = calloc(ns, sizeof(*r->send));
	r->recv_frame = malloc(nr * sizeof(*r->recv_frame));
	r->left = malloc(nf * sizeof(*r->left));
	r->need = malloc(nf * sizeof(*r->need));
	r->posted = calloc(nf, 1);
	r->rin = calloc(ni, sizeof(*r->rin));
	r->rin_frame = malloc(ni * sizeof(*r->rin_frame));
	r->rout = calloc(no, sizeof(*r->rout));
	r->rout_frame = malloc(no * sizeof(*r->rout_frame));
	r->pend_recv = malloc(nr * sizeof(*r->pend_recv));
	r->pend_rin = malloc(ni * sizeof(*r->pend_rin));
	if (trace) {
		r->t_start = calloc(nf, sizeof(*r->t_start));
		r->t_arrive = calloc(nr, sizeof(*r->t_arrive));
	}
	if (!r->recv || !r->send || !r->recv_frame || !r->left || !r->need ||
	    !r->posted || !r->rin || !r->rin_frame || !r->rout ||
	    !r->rout_frame || !r->pend_recv || !r->pend_rin ||
	    (trace && (!r->t_start || !r->t_arrive)))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
				       "all-to-all: out of memory");
	for (uint32_t f = 0; f < s->nframes; f++) {
		r->need[f] = s->send_need[f] + (r->call ? s->xsend_need[f] : 0);
		r->left[f] = s->recv_off[f + 1] - s->recv_off[f];
		for (uint32_t i = s->recv_off[f]; i < s->recv_off[f + 1]; i++)
			r->recv_frame[i] = f;
	}
	for (uint32_t i = 0; i < s->nlocal; i++)
		r->recv_frame[r->nrf + i] = IBF_UCXI_NOPEER;
	return IBF_UCX_OK;
}

/* The peer of receive block i, send block i. */
static uint32_t recv_peer(const links_run_t *r, uint32_t i)
{
	return i < r->nrf ? r->s->recv_peer[i] : r->s->local[i - r->nrf];
}

static uint32_t send_peer(const links_run_t *r, uint32_t i)
{
	return i < r->nsf ? r->s->send_peer[i] : r->s->local[i - r->nsf];
}

static ibf_ucx_status_t send_block(links_run_t *r, uint32_t i,
				   ibf_ucx_err_t *err)
{
	uint32_t to = send_peer(r, i);
	size_t len;
	const void *buf = ibf_ucxi_sblock(r->b, to, &len);

	return ibf_ucxi_route_isend(r->u, to,
				    ibf_ucxi_tag(IBF_UCXI_TAG_A2A_DATA, r->seq,
						 r->u->rank),
				    buf, len, &r->send[i], err);
}

static ibf_ucx_status_t post_release(links_run_t *r, uint32_t from,
				     ucp_tag_t tag, ibf_ucx_err_t *err)
{
	uint32_t k = r->nrin;
	ibf_ucx_status_t st;

	st = ibf_ucxi_lane_irecv(r->u, from, tag, &r->rin_frame[k],
				 sizeof(r->rin_frame[k]), &r->rin[k], err);
	if (st != IBF_UCX_OK)
		return st;
	r->nrin++;
	r->pend_rin[r->npend_rin++] = k;
	return IBF_UCX_OK;
}

/* Every data receive and every release receive, before anything is
 * sent; then the blocks to this host's other ranks, which wait for
 * nothing. */
static ibf_ucx_status_t post_receives(links_run_t *r, ibf_ucx_err_t *err)
{
	const ibf_ucxi_a2a_sched_t *s = r->s;
	ibf_ucx_status_t st;
	uint32_t i, k;
	size_t len;

	for (i = 0; i < r->nrf + s->nlocal; i++) {
		uint32_t from = recv_peer(r, i);
		void *buf = ibf_ucxi_rblock(r->b, from, &len);

		st = ibf_ucxi_route_irecv(r->u, from,
					  ibf_ucxi_tag(IBF_UCXI_TAG_A2A_DATA,
						       r->seq, from),
					  buf, len, &r->recv[i], err);
		if (st != IBF_UCX_OK)
			return st;
		r->pend_recv[r->npend_recv++] = i;
	}
	for (k = 0; k < s->nrel_in; k++) {
		st = post_release(r, s->rel_in_from[k],
				  ibf_ucxi_tag(IBF_UCXI_TAG_A2A_RELEASE,
					       r->seq, s->rel_in_from[k]),
				  err);
		if (st != IBF_UCX_OK)
			return st;
	}
	for (k = 0; r->call && k < s->nxrel_in; k++) {
		st = post_release(r, s->xrel_in_from[k],
				  ibf_ucxi_tag(IBF_UCXI_TAG_A2A_XRELEASE,
					       r->call, s->xrel_in_from[k]),
				  err);
		if (st != IBF_UCX_OK)
			return st;
	}
	if (r->t_start)
		r->t_start[s->nframes] = mono_ns();
	for (i = 0; i < s->nlocal; i++) {
		st = send_block(r, r->nsf + i, err);
		if (st != IBF_UCX_OK)
			return st;
	}
	return IBF_UCX_OK;
}

/* tag: a release of this call (its sequence) or of the previous one */
static ibf_ucx_status_t release_one(links_run_t *r, uint32_t to,
				    uint32_t frame, ucp_tag_t tag,
				    ibf_ucx_err_t *err)
{
	uint32_t i = r->nrout++;

	if (to == r->u->rank) {
		r->need[frame]--;
		return IBF_UCX_OK;
	}
	r->rout_frame[i] = frame;
	return ibf_ucxi_lane_isend(r->u, to, tag, &r->rout_frame[i],
				   sizeof(uint32_t), &r->rout[i], err);
}

/* The previous call's last users of links have all arrived here: release
 * the first users of those links in this call. */
static ibf_ucx_status_t release_previous(links_run_t *r, ibf_ucx_err_t *err)
{
	const ibf_ucxi_a2a_sched_t *s = r->s;
	ucp_tag_t tag = ibf_ucxi_tag(IBF_UCXI_TAG_A2A_XRELEASE, r->call,
				     r->u->rank);
	ibf_ucx_status_t st;

	for (uint32_t k = 0; r->call && k < s->xrel_off[s->nframes]; k++) {
		st = release_one(r, s->xrel_rank[k], s->xrel_frame[k], tag,
				 err);
		if (st != IBF_UCX_OK)
			return st;
	}
	return IBF_UCX_OK;
}

/* Arrivals: a frame's last one releases the transfers waiting for
 * the frame. */
static ibf_ucx_status_t reap_arrivals(links_run_t *r, bool *moved,
				      ibf_ucx_err_t *err)
{
	const ibf_ucxi_a2a_sched_t *s = r->s;
	ibf_ucx_status_t st;
	uint32_t i = 0;

	while (i < r->npend_recv) {
		uint32_t blk = r->pend_recv[i], f, k;

		if (!ibf_ucxi_test(&r->recv[blk], &st, err)) {
			i++;
			continue;
		}
		if (st != IBF_UCX_OK)
			return st;
		if (r->t_arrive)
			r->t_arrive[blk] = mono_ns();
		r->pend_recv[i] = r->pend_recv[--r->npend_recv];
		*moved = true;
		f = r->recv_frame[blk];
		if (f == IBF_UCXI_NOPEER || --r->left[f])
			continue;
		for (k = s->rel_off[f]; k < s->rel_off[f + 1]; k++) {
			st = release_one(r, s->rel_rank[k], s->rel_frame[k],
					 ibf_ucxi_tag(IBF_UCXI_TAG_A2A_RELEASE,
						      r->seq, r->u->rank), err);
			if (st != IBF_UCX_OK)
				return st;
		}

	}
	return IBF_UCX_OK;
}

static ibf_ucx_status_t reap_releases(links_run_t *r, bool *moved,
				      ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st;
	uint32_t i = 0;

	while (i < r->npend_rin) {
		uint32_t k = r->pend_rin[i], f;

		if (!ibf_ucxi_test(&r->rin[k], &st, err)) {
			i++;
			continue;
		}
		if (st != IBF_UCX_OK)
			return st;
		f = r->rin_frame[k];
		if (f >= r->s->nframes ||
		    r->s->send_off[f] == r->s->send_off[f + 1] ||
		    !r->need[f] || r->posted[f])
			return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER,
					       "all-to-all: rank %u released "
					       "frame %u, which waits for no "
					       "release", r->rin[k].peer, f);
		r->need[f]--;
		r->pend_rin[i] = r->pend_rin[--r->npend_rin];
		*moved = true;
	}
	return IBF_UCX_OK;
}

/* Start the sends of every frame whose releases are all in.  A
 * process's sends are ordered by its host's send link, so this is
 * usually the next one. */
static bool sends_in(const ibf_ucxi_a2a_sched_t *s, uint32_t f)
{
	return s->send_off[f] != s->send_off[f + 1];
}

static ibf_ucx_status_t start_sends(links_run_t *r, bool *moved,
				    ibf_ucx_err_t *err)
{
	const ibf_ucxi_a2a_sched_t *s = r->s;
	ibf_ucx_status_t st;
	uint32_t f, i;

	while (r->next_send < s->nframes &&
	       (!sends_in(s, r->next_send) || r->posted[r->next_send]))
		r->next_send++;
	for (f = r->next_send; f < s->nframes; f++) {
		if (!sends_in(s, f) || r->posted[f] || r->need[f])
			continue;
		if (r->t_start)
			r->t_start[f] = mono_ns();
		for (i = s->send_off[f]; i < s->send_off[f + 1]; i++) {
			st = send_block(r, i, err);
			if (st != IBF_UCX_OK)
				return st;
		}
		r->posted[f] = 1;
		r->nsends_left--;
		*moved = true;
	}
	return IBF_UCX_OK;
}

/* What the call still waits for, for the timeout message. */
static void describe_wait(const links_run_t *r, ibf_ucx_err_t *err)
{
	const ibf_ucxi_a2a_sched_t *s = r->s;
	uint32_t f, i;

	for (f = 0; f < s->nframes; f++)
		if (sends_in(s, f) && !r->posted[f]) {
			ibf_ucx_err_set(err, IBF_UCX_ERR_TIMEOUT, "frame %u: "
					"the send to rank %u waits for %u "
					"release(s) for more than %g s "
					"(%sTIMEOUT)", f + 1,
					s->send_peer[s->send_off[f]],
					r->need[f], r->u->timeout,
					IBF_UCX_VAR_PREFIX);
			return;
		}
	for (i = 0; i < r->nrf + s->nlocal; i++)
		if (r->recv[i].req) {
			ibf_ucx_err_set(err, IBF_UCX_ERR_TIMEOUT, "frame %u: "
					"no block from rank %u within %g s "
					"(%sTIMEOUT)", r->recv_frame[i] ==
					IBF_UCXI_NOPEER ? 0 :
					r->recv_frame[i] + 1, recv_peer(r, i),
					r->u->timeout, IBF_UCX_VAR_PREFIX);
			return;
		}
	ibf_ucx_err_set(err, IBF_UCX_ERR_TIMEOUT, "sends not completed "
			"within %g s (%sTIMEOUT)", r->u->timeout,
			IBF_UCX_VAR_PREFIX);
}

/* A block still leaving this process: UCX's TCP transport writes what
 * the socket takes and the rest only when progressed, without waking a
 * sleeping worker, so the sender must not sleep (sleeping 50 ms between
 * socket buffers made 1 MiB blocks 20-130 % slower on the emulated
 * fabric). */
static bool sending(const links_run_t *r)
{
	for (uint32_t i = 0; i < r->nsf + r->s->nlocal; i++)
		if (r->send[i].req)
			return true;
	return false;
}

static bool all_sent(ibf_ucxi_req_t *q, uint32_t n, ibf_ucx_status_t *st,
		     ibf_ucx_err_t *err)
{
	bool all = true;

	for (uint32_t i = 0; i < n; i++) {
		ibf_ucx_status_t s1;

		if (q[i].req && ibf_ucxi_test(&q[i], &s1, err) &&
		    s1 != IBF_UCX_OK && *st == IBF_UCX_OK)
			*st = s1;
		all = all && !q[i].req;
	}
	return all;
}

static bool finished(links_run_t *r, ibf_ucx_status_t *st,
		     ibf_ucx_err_t *err)
{
	bool sent = all_sent(r->send, r->nsf + r->s->nlocal, st, err);
	bool released = all_sent(r->rout, r->nrout, st, err);

	return !r->npend_recv && !r->npend_rin && !r->nsends_left && sent &&
	       released;
}

static ibf_ucx_status_t progress_loop(links_run_t *r, ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st = IBF_UCX_OK;
	double last = ibf_ucxi_now();

	for (;;) {
		bool moved = false;

		ibf_ucxi_lane_progress(r->u);
		st = reap_arrivals(r, &moved, err);
		if (st == IBF_UCX_OK)
			st = reap_releases(r, &moved, err);
		if (st == IBF_UCX_OK)
			st = start_sends(r, &moved, err);
		if (st != IBF_UCX_OK || finished(r, &st, err))
			return st;
		if (moved) {
			last = ibf_ucxi_now();
		} else if (ibf_ucxi_now() - last > r->u->timeout) {
			describe_wait(r, err);
			return IBF_UCX_ERR_TIMEOUT;
		} else if (sending(r)) {
			sched_yield();
		} else {
			ibf_ucxi_lane_sleep(r->u, 0.05);
		}
	}
}

/* Give back whatever is still posted (a short deadline cancels it). */
static void abandon_all(links_run_t *r)
{
	ibf_ucx_err_t tmp;
	double now = ibf_ucxi_now();

	ibf_ucxi_wait(r->u, r->recv, r->nrf + r->s->nlocal, now, 0, &tmp);
	ibf_ucxi_wait(r->u, r->send, r->nsf + r->s->nlocal, now, 0, &tmp);
	ibf_ucxi_lane_cancel(r->u, r->rin, r->nrin);
	ibf_ucxi_lane_cancel(r->u, r->rout, r->nrout);
}

/* An SL as the trace writes it: "-" for the data context. */
static const char *sl_str(int sl, char *buf, size_t len)
{
	if (sl < 0)
		return "-";
	snprintf(buf, len, "%d", sl);
	return buf;
}

/* "S CALL SRC DST FRAME NS SL" per block sent (the time its frame's
 * sends started), "A CALL SRC DST FRAME NS SL" per block arrived; blocks
 * within the host have the frame number nframes; SL: that of the
 * context the block's request was posted on ("-": the data context). */
static void write_trace(const links_run_t *r)
{
	const ibf_ucxi_a2a_sched_t *s = r->s;
	uint32_t me = r->u->rank, f, i;
	char path[4096], sl[12];
	FILE *fp;

	snprintf(path, sizeof(path), "%s.%u", r->u->cfg->v.alltoall_trace,
		 me);
	fp = fopen(path, "a");
	if (!fp)
		return;
	for (f = 0; f <= s->nframes; f++) {
		uint32_t a = f < s->nframes ? s->send_off[f] : r->nsf;
		uint32_t z = f < s->nframes ? s->send_off[f + 1] :
			     r->nsf + s->nlocal;

		for (i = a; i < z; i++)
			fprintf(fp, "S %u %u %u %u %llu %s\n", r->seq, me,
				send_peer(r, i), f,
				(unsigned long long)r->t_start[f],
				sl_str(ibf_ucxi_worker_sl(r->u,
							  r->send[i].worker),
				       sl, sizeof(sl)));
	}
	for (i = 0; i < r->nrf + s->nlocal; i++)
		fprintf(fp, "A %u %u %u %u %llu %s\n", r->seq, recv_peer(r, i),
			me, r->recv_frame[i] == IBF_UCXI_NOPEER ? s->nframes :
			r->recv_frame[i],
			(unsigned long long)r->t_arrive[i],
			sl_str(ibf_ucxi_worker_sl(r->u, r->recv[i].worker),
			       sl, sizeof(sl)));
	fclose(fp);
}

/* One call's frames, each transfer started when its releases are in. */
static ibf_ucx_status_t run_call(ibf_ucx_t *u, const ibf_ucxi_a2a_sched_t *s,
				 const ibf_ucxi_blocks_t *b, uint32_t seq,
				 uint32_t call, ibf_ucx_err_t *err)
{
	links_run_t r = { .u = u, .s = s, .b = b, .seq = seq, .call = call };
	const char *trace = u->cfg->v.alltoall_trace;
	ibf_ucx_status_t st;
	uint32_t f;

	r.nrf = s->recv_off[s->nframes];
	r.nsf = s->send_off[s->nframes];
	for (f = 0; f < s->nframes; f++)
		r.nsends_left += sends_in(s, f);
	st = run_alloc(&r, trace && *trace, err);
	if (st == IBF_UCX_OK) {
		st = post_receives(&r, err);
		if (st == IBF_UCX_OK)
			st = release_previous(&r, err);
		if (st == IBF_UCX_OK)
			st = progress_loop(&r, err);
		if (st != IBF_UCX_OK)
			abandon_all(&r);
		else if (r.t_start)
			write_trace(&r);
	}
	run_free(&r);
	return st;
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

/* Blocks cut into ALLTOALL_SEGMENT-byte pieces: each piece is one run of
 * the schedule, kept apart from the previous one on every link like
 * consecutive calls, so a slow transfer holds back a piece's worth of
 * its successors instead of a block's.  alltoall only: the number of
 * pieces must be the same on every rank. */
static ibf_ucx_status_t run_segmented(ibf_ucx_t *u, struct ibf_ucxi_a2a *a,
				      const ibf_ucxi_blocks_t *b,
				      ibf_ucx_err_t *err)
{
	size_t seg = u->cfg->v.alltoall_segment, *sc, *sd;
	uint32_t n = u->size, nseg = 1, k;
	ibf_ucxi_blocks_t v;
	ibf_ucx_status_t st = IBF_UCX_OK;

	if (!b->sc && seg && b->block > seg)
		nseg = (uint32_t)((b->block + seg - 1) / seg);
	if (nseg == 1)
		return run_call(u, &a->sched, b, ++u->seq, a->nlinks_calls++,
				err);
	sc = malloc(2 * ((size_t)n + 1) * sizeof(*sc));
	if (!sc)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
				       "all-to-all: out of memory");
	sd = sc + n + 1;
	for (k = 0; k < nseg && st == IBF_UCX_OK; k++) {
		segment_view(b, n, seg, k, sc, sd, &v);
		st = run_call(u, &a->sched, &v, ++u->seq, a->nlinks_calls++,
			      err);
	}
	free(sc);
	return st;
}

static ibf_ucx_status_t run_links(ibf_ucx_t *u, struct ibf_ucxi_a2a *a,
				  const ibf_ucxi_blocks_t *b,
				  ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st = run_segmented(u, a, b, err);

	if (st != IBF_UCX_OK)
		ibf_ucx_err_prefix(err, "all-to-all (liquid): ");
	return st;
}

const ibf_ucxi_a2a_variant_t ibf_ucxi_a2a_links = {
	.name = "links",
	.alg = IBF_UCX_A2A_LIQUID,
	.sync = IBF_UCX_A2A_SYNC_LINKS,
	.flags = IBF_UCXI_A2A_SCHEDULE | IBF_UCXI_A2A_LANE,
	.run = run_links,
};
