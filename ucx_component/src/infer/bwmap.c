/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Bandwidth maps measured over UCX (docs/ucx.md, "Bandwidth map"; the
 * paper's section 6.1): libibflow's ibf_infer_bw_run at rank 0 over a
 * round oracle that has the pairs of a round stream data concurrently.
 *
 * One round, driven by rank 0 over the inference's command channel
 * (ucx_infer_internal.h):
 *  1. PREP to both leader ranks of every pair (sender and receiver): they
 *     exchange a small message (wiring up their endpoint both ways), the
 *     receiver posts its receives, and each answers READY;
 *  2. when all are ready, GO to every sender, back to back: the streams
 *     start together;
 *  3. the sender sends `bytes` as messages of `chunk` bytes; the receiver
 *     notes when each message completed and reports the bytes over the
 *     time between the first and the last (timed()), the sender its
 *     status.
 * Rank 0 takes part like any rank when its host is in a pair.  Messages
 * of a measurement carry its sequence number, so a late message of a
 * failed one never matches another.  The other ranks serve PREP and GO
 * until DONE; the map is then broadcast.
 *
 * The small exchange of step 1 and the stream go on the context of
 * their route's SL (ibf_ucxi_route_isend/_irecv, sl_lanes.c): the
 * stream is then measured on the SL, and so the VL, it would take, and
 * the exchange wires up the endpoint the stream uses.  Commands,
 * READY and REPORT stay on the data context.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ucx_internal.h"
#include "infer/ucx_infer_internal.h"

#define BW_HELLO_BASE 0x400000u
#define BW_DATA_BASE  0x600000u
#define BW_SEQ_MASK   0x1fffffu

#define BW_DEFAULT_BYTES (2u << 20)
#define BW_DEFAULT_CHUNK (64u << 10)

/* READY and REPORT */
typedef struct bw_msg {
	int32_t status;
	uint32_t seq;
	double mbps;           /* receiver's REPORT */
	double seconds;        /* the span timed */
	char msg[256];
} bw_msg_t;

/* One side of one measurement. */
typedef struct xfer {
	bool sender;
	uint32_t peer, seq, nchunks;
	size_t bytes, chunk;
	uint8_t *buf;
	ibf_ucxi_req_t *req;
	double *t;             /* receiver: when each message completed */
} xfer_t;

static ucp_tag_t hello_tag(uint32_t seq, uint32_t src)
{
	return ibf_ucxi_itag(BW_HELLO_BASE | (seq & BW_SEQ_MASK), src);
}

static ucp_tag_t data_tag(uint32_t seq, uint32_t src)
{
	return ibf_ucxi_itag(BW_DATA_BASE | (seq & BW_SEQ_MASK), src);
}

/* Give up requests still pending (cancelled and released): a wait whose
 * deadline has passed does exactly that. */
static void drop(ibf_ucx_t *u, ibf_ucxi_req_t *r, unsigned n)
{
	if (n)
		ibf_ucxi_wait(u, r, n, 0, 0, NULL);
}

static void xfer_free(ibf_ucx_t *u, xfer_t *x)
{
	if (x->req)
		drop(u, x->req, x->nchunks);
	free(x->req);
	free(x->buf);
	free(x->t);
	memset(x, 0, sizeof(*x));
}

static size_t chunk_len(const xfer_t *x, uint32_t i)
{
	return i + 1 < x->nchunks ? x->chunk :
	       x->bytes - (size_t)(x->nchunks - 1) * x->chunk;
}

/* The one-byte exchange of step 1, both ways at once, on the contexts
 * of the routes to and from peer. */
static ibf_ucx_status_t hello(ibf_ucx_t *u, uint32_t peer, uint32_t seq,
			      ibf_ucx_err_t *err)
{
	char h = 0, back;
	ibf_ucxi_req_t r[2];
	ibf_ucx_status_t st;

	st = ibf_ucxi_route_irecv(u, peer, hello_tag(seq, peer), &back, 1,
				  &r[0], err);
	if (st != IBF_UCX_OK)
		return st;
	st = ibf_ucxi_route_isend(u, peer, hello_tag(seq, u->rank), &h, 1,
				  &r[1], err);
	if (st != IBF_UCX_OK) {
		drop(u, r, 1);
		return st;
	}
	return ibf_ucxi_wait(u, r, 2, ibf_ucxi_now() + u->timeout, 0, err);
}

/* Step 1 for one side. */
static ibf_ucx_status_t xfer_prep(ibf_ucx_t *u, xfer_t *x, bool sender,
				  uint32_t peer, uint32_t seq, size_t bytes,
				  size_t chunk, ibf_ucx_err_t *err)
{
	uint32_t i;
	ibf_ucx_status_t st;

	memset(x, 0, sizeof(*x));
	x->sender = sender;
	x->peer = peer;
	x->seq = seq;
	x->bytes = bytes;
	x->chunk = chunk;
	if (peer >= u->size || peer == u->rank || !chunk || bytes < 2 * chunk)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID, "bandwidth "
				       "measurement: bad command (peer %u, "
				       "%zu bytes in %zu)", peer, bytes, chunk);
	x->nchunks = (uint32_t)((bytes + chunk - 1) / chunk);
	x->buf = calloc(1, sender ? chunk : bytes);
	x->req = calloc(x->nchunks, sizeof(*x->req));
	x->t = calloc(x->nchunks, sizeof(*x->t));
	if (!x->buf || !x->req || !x->t)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory "
				       "(%zu bytes)", bytes);
	st = hello(u, peer, seq, err);
	if (sender || st != IBF_UCX_OK)
		return st;
	for (i = 0; i < x->nchunks && st == IBF_UCX_OK; i++)
		st = ibf_ucxi_route_irecv(u, peer, data_tag(seq, peer),
					  x->buf + (size_t)i * chunk,
					  chunk_len(x, i), &x->req[i], err);
	if (st != IBF_UCX_OK)
		drop(u, x->req, i);
	return st;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The rate (Mbit/s) and the span timed, from the completion times t[]
 * of the messages.  A receiver that gets the CPU late (a loaded
 * machine) finds several messages complete at once: at the start that
 * would shorten the time (the messages of the pile arrived before it
 * looked), at the end lengthen it.  So the span starts at the last
 * message of a pile at the start and ends before a pile at the end (a
 * pile: gaps below a quarter of the median gap); piles in between do
 * not matter.  Too few messages left: first to last. */
static double timed(const xfer_t *x, double *span)
{
	uint32_t n = x->nchunks, s = 0, e = n - 1, i;
	double *g = malloc(n * sizeof(*g)), eps = 0;
	size_t bytes = 0;

	if (g && n > 2) {
		for (i = 1; i < n; i++)
			g[i - 1] = x->t[i] - x->t[i - 1];
		qsort(g, n - 1, sizeof(*g), cmp_double);
		eps = g[(n - 1) / 2] / 4;
		while (s + 1 < n && x->t[s + 1] - x->t[s] < eps)
			s++;
		while (e > s && x->t[e] - x->t[e - 1] < eps)
			e--;
		if (e < n - 1)
			e--;   /* the pile's first message came late too */
	}
	free(g);
	if (e < s + 2 || e >= n) {
		s = 0;
		e = n - 1;
	}
	for (i = s + 1; i <= e; i++)
		bytes += chunk_len(x, i);
	*span = x->t[e] - x->t[s];
	return *span > 0 ? (double)bytes * 8 / *span / 1e6 : 0;
}

/* Steps 2-3 for one side: rep gets the status and, at the receiver, the
 * rate. */
static void xfer_run(ibf_ucx_t *u, xfer_t *x, bw_msg_t *rep)
{
	double t0 = ibf_ucxi_now(), deadline = t0 + u->timeout;
	ibf_ucx_status_t st = IBF_UCX_OK;
	ibf_ucx_err_t e;
	uint32_t i;

	memset(rep, 0, sizeof(*rep));
	rep->seq = x->seq;
	ibf_ucx_err_clear(&e);
	if (x->sender) {
		for (i = 0; i < x->nchunks && st == IBF_UCX_OK; i++)
			st = ibf_ucxi_route_isend(u, x->peer,
						  data_tag(x->seq, u->rank),
						  x->buf, chunk_len(x, i),
						  &x->req[i], &e);
		if (st == IBF_UCX_OK)
			st = ibf_ucxi_wait(u, x->req, x->nchunks, deadline, 0,
					   &e);
		else
			drop(u, x->req, i);
		rep->seconds = ibf_ucxi_now() - t0;
	} else {
		/* In order: messages of one tag from one sender match the
		 * receives in the order posted. */
		for (i = 0; i < x->nchunks && st == IBF_UCX_OK; i++) {
			st = ibf_ucxi_wait(u, &x->req[i], 1, deadline, 0, &e);
			x->t[i] = ibf_ucxi_now();
		}
		if (st != IBF_UCX_OK) {
			drop(u, x->req + i, x->nchunks - i);
			if (e.status == IBF_UCX_ERR_TIMEOUT)
				ibf_ucx_err_set(&e, IBF_UCX_ERR_TIMEOUT,
						"%u of %u messages of %zu "
						"bytes from rank %u after %g s "
						"(%sTIMEOUT): slower than %.3g "
						"Mbit/s; measure fewer bytes",
						i - 1, x->nchunks, x->chunk,
						x->peer, u->timeout,
						IBF_UCX_VAR_PREFIX,
						(double)x->bytes * 8 /
						u->timeout / 1e6);
		} else if ((rep->mbps = timed(x, &rep->seconds)) <= 0) {
			st = ibf_ucx_err_set(&e, IBF_UCX_ERR_INVALID, "the "
					     "stream from rank %u arrived at "
					     "once: too short to time; measure "
					     "more bytes", x->peer);
		}
	}
	/* every request is released */
	memset(x->req, 0, x->nchunks * sizeof(*x->req));
	rep->status = st;
	if (st != IBF_UCX_OK)
		snprintf(rep->msg, sizeof(rep->msg), "rank %u %s rank %u: "
			 "%.200s", u->rank, x->sender ? "streaming to" :
			 "streaming from", x->peer, e.msg);
}

/* ---- rank 0 ------------------------------------------------------------------ */

typedef struct bwdrv {
	ibf_ucx_t *u;
	const ibf_ucx_bw_opts_t *o;
	ibf_ucxi_cmdr_t cmdr;
	uint32_t seq;          /* measurements so far */
	ibf_ucx_err_t uerr;    /* the failure that stopped the run */
} bwdrv_t;

/* A message of rank `from` to rank 0 (READY or REPORT) for seq. */
static ibf_ucx_status_t check_msg(const bw_msg_t *m, uint32_t from,
				  uint32_t seq, const char *what,
				  ibf_ucx_err_t *err)
{
	if (m->status != IBF_UCX_OK)
		return ibf_ucx_err_set(err, (ibf_ucx_status_t)m->status,
				       "%.*s", (int)sizeof(m->msg), m->msg);
	if (m->seq != seq)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "bandwidth "
				       "measurement: rank %u's %s is for "
				       "measurement %u, not %u", from, what,
				       m->seq, seq);
	return IBF_UCX_OK;
}

/* Wait for READY or REPORT from every side of the round but rank 0's
 * (slot 2k the sender of pair k, 2k + 1 the receiver; rank[] NONE for
 * rank 0's own slot). */
static ibf_ucx_status_t collect(bwdrv_t *d, uint32_t iseq, const uint32_t *rank,
				uint32_t n2, uint32_t seq0, bw_msg_t *m,
				ibf_ucxi_req_t *r, ibf_ucx_err_t *err)
{
	ibf_ucx_t *u = d->u;
	ibf_ucx_status_t st = IBF_UCX_OK;
	uint32_t i;

	memset(r, 0, n2 * sizeof(*r));
	for (i = 0; i < n2 && st == IBF_UCX_OK; i++)
		if (rank[i] != UINT32_MAX)
			st = ibf_ucxi_irecv(u, rank[i], ibf_ucxi_itag(iseq,
								      rank[i]),
					    &m[i], sizeof(m[i]), &r[i], err);
	if (st != IBF_UCX_OK) {
		drop(u, r, i);
		return st;
	}
	/* a side reports its own failure within a timeout */
	st = ibf_ucxi_wait(u, r, n2, ibf_ucxi_now() + 2 * u->timeout, 0, err);
	for (i = 0; i < n2 && st == IBF_UCX_OK; i++)
		if (rank[i] != UINT32_MAX)
			st = check_msg(&m[i], rank[i], seq0 + i / 2,
				       iseq == IBF_UCXI_ISEQ_BW_READY ?
				       "READY" : "report", err);
	return st;
}

/* One round: pairs[2k] streams to pairs[2k + 1] (hosts). */
static ibf_ucx_status_t round_run(bwdrv_t *d, const uint32_t *pairs,
				  uint32_t n, double *mbps, ibf_ucx_err_t *err)
{
	ibf_ucx_t *u = d->u;
	uint32_t seq0 = d->seq, k, i, *rank = NULL, own = UINT32_MAX;
	ibf_ucxi_req_t *r = NULL;
	bw_msg_t *m = NULL, ownrep;
	ibf_ucxi_cmd_t c;
	ibf_ucx_status_t st;
	xfer_t x;

	memset(&x, 0, sizeof(x));
	d->seq += n;
	rank = malloc(2 * (size_t)n * sizeof(*rank));
	r = calloc(2 * (size_t)n, sizeof(*r));
	m = calloc(2 * (size_t)n, sizeof(*m));
	if (!rank || !r || !m) {
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = ibf_ucxi_cmdr_keepalive(&d->cmdr, err);
	for (i = 0; i < 2 * n && st == IBF_UCX_OK; i++) {
		uint32_t me = u->host_leader[pairs[i]];
		uint32_t peer = u->host_leader[pairs[i ^ 1]];

		memset(&c, 0, sizeof(c));
		c.op = IBF_UCXI_CMD_BW_PREP;
		c.peer = peer;
		c.seq = seq0 + i / 2;
		c.flags = i % 2 ? 0 : IBF_UCXI_CMD_SENDER;
		c.bytes = d->o->bytes;
		c.chunk = d->o->chunk;
		rank[i] = me;
		if (me == 0) {
			rank[i] = UINT32_MAX;
			own = i;
		} else {
			st = ibf_ucxi_cmdr_send(&d->cmdr, me, &c, err);
		}
	}
	if (st == IBF_UCX_OK && own != UINT32_MAX)
		st = xfer_prep(u, &x, own % 2 == 0,
			       u->host_leader[pairs[own ^ 1]], seq0 + own / 2,
			       d->o->bytes, d->o->chunk, err);
	if (st == IBF_UCX_OK)
		st = collect(d, IBF_UCXI_ISEQ_BW_READY, rank, 2 * n, seq0, m,
			     r, err);
	/* GO: the senders start together */
	for (k = 0; k < n && st == IBF_UCX_OK; k++)
		if (rank[2 * k] != UINT32_MAX) {
			memset(&c, 0, sizeof(c));
			c.op = IBF_UCXI_CMD_BW_GO;
			c.seq = seq0 + k;
			st = ibf_ucxi_cmdr_send(&d->cmdr, rank[2 * k], &c, err);
		}
	if (st == IBF_UCX_OK && own != UINT32_MAX) {
		xfer_run(u, &x, &ownrep);
		if (ownrep.status != IBF_UCX_OK)
			st = ibf_ucx_err_set(err, (ibf_ucx_status_t)ownrep.status,
					     "%s", ownrep.msg);
	}
	if (st == IBF_UCX_OK)
		st = collect(d, IBF_UCXI_ISEQ_BW_REPORT, rank, 2 * n, seq0, m,
			     r, err);
	for (k = 0; k < n && st == IBF_UCX_OK; k++)
		mbps[k] = own == 2 * k + 1 ? ownrep.mbps : m[2 * k + 1].mbps;
out:
	xfer_free(u, &x);
	free(rank);
	free(r);
	free(m);
	return st;
}

/* The oracle of ibf_infer_bw_run. */
static ibf_status_t measure_round(void *ctx, const uint32_t *pairs,
				  uint32_t n, double *bw, ibf_err_t *ierr)
{
	bwdrv_t *d = ctx;

	if (round_run(d, pairs, n, bw, &d->uerr) != IBF_UCX_OK)
		return ibf_err_set(ierr, IBF_ERR_IO, "%s", d->uerr.msg);
	return IBF_OK;
}

/* xorshift64*: the sample of pairs measured alone. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static ibf_ucx_status_t measure_alone(bwdrv_t *d, ibf_ucx_bw_result_t *out,
				      ibf_ucx_err_t *err)
{
	uint32_t n = out->nhosts, a, b, k, cnt = 0, want = d->o->alone;
	uint64_t all = (uint64_t)n * (n - 1) / 2, s = d->o->seed * 2 + 1;
	uint32_t *pl;
	double t0 = ibf_ucxi_now();
	ibf_ucx_status_t st = IBF_UCX_OK;

	out->alone = malloc((size_t)n * n * sizeof(*out->alone));
	pl = malloc(2 * all * sizeof(*pl));
	if (!out->alone || !pl) {
		free(pl);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	for (k = 0; k < n * n; k++)
		out->alone[k] = NAN;
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++) {
			pl[2 * cnt] = a;
			pl[2 * cnt++ + 1] = b;
		}
	if (want > cnt)
		want = cnt;
	/* a partial shuffle picks the sample; then in pair order */
	for (k = 0; k < want && want < cnt; k++) {
		uint32_t j = k + (uint32_t)(rnd(&s) % (cnt - k)), t;

		t = pl[2 * k]; pl[2 * k] = pl[2 * j]; pl[2 * j] = t;
		t = pl[2 * k + 1]; pl[2 * k + 1] = pl[2 * j + 1];
		pl[2 * j + 1] = t;
	}
	for (k = 0; k < want && st == IBF_UCX_OK; k++) {
		double v;

		st = round_run(d, pl + 2 * k, 1, &v, err);
		if (st == IBF_UCX_OK) {
			out->alone[(size_t)pl[2 * k] * n + pl[2 * k + 1]] = v;
			out->nalone++;
		}
	}
	free(pl);
	out->alone_s = ibf_ucxi_now() - t0;
	return st;
}

static ibf_ucx_status_t drive(ibf_ucx_t *u, const ibf_ucx_bw_opts_t *o,
			      ibf_ucx_bw_result_t *out, ibf_ucx_err_t *err)
{
	ibf_infer_bw_oracle_t orc;
	ibf_ucx_status_t st;
	ibf_err_t ie;
	bwdrv_t d;
	double t0;

	memset(&d, 0, sizeof(d));
	d.u = u;
	d.o = o;
	ibf_ucx_err_clear(&d.uerr);
	st = ibf_ucxi_cmdr_init(&d.cmdr, u, err);
	if (st != IBF_UCX_OK) {
		ibf_ucxi_cmd_release(u);
		return st;
	}
	orc.measure = measure_round;
	orc.ctx = &d;
	ibf_err_clear(&ie);
	t0 = ibf_ucxi_now();
	if (ibf_infer_bw_run(&out->tree, &orc, &out->map, &ie) != IBF_OK)
		st = ibf_ucx_err_set(err, d.uerr.status != IBF_UCX_OK ?
				     d.uerr.status : IBF_UCX_ERR_INVALID,
				     "bandwidth map: %s", d.uerr.status !=
				     IBF_UCX_OK ? d.uerr.msg : ie.msg);
	out->map_s = ibf_ucxi_now() - t0;
	if (st == IBF_UCX_OK && o->alone) {
		st = measure_alone(&d, out, err);
		if (st != IBF_UCX_OK)
			ibf_ucx_err_prefix(err, "bandwidth alone: ");
	}
	return ibf_ucxi_cmdr_finish(&d.cmdr, st, err);
}

/* ---- the other ranks ----------------------------------------------------------- */

static ibf_ucx_status_t send_msg(ibf_ucx_t *u, uint32_t iseq, bw_msg_t *m,
				 ibf_ucx_err_t *err)
{
	return ibf_ucxi_send(u, 0, ibf_ucxi_itag(iseq, u->rank), m,
			     sizeof(*m), err);
}

/* Serve PREP and GO until DONE.  A failure of one's own side is
 * reported to rank 0 (which stops the run) and serving goes on, so that
 * the final broadcast finds everybody. */
static ibf_ucx_status_t serve(ibf_ucx_t *u, ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st = IBF_UCX_OK;
	bool armed = false;
	ibf_ucxi_cmd_t c;
	ibf_ucx_err_t e;
	bw_msg_t m;
	xfer_t x;

	memset(&x, 0, sizeof(x));
	for (;;) {
		/* a round of others may stream for a whole timeout */
		st = ibf_ucxi_cmd_next(u, &c, 3, err);
		if (st != IBF_UCX_OK || c.op == IBF_UCXI_CMD_DONE)
			break;
		if (c.op == IBF_UCXI_CMD_BW_PREP) {
			xfer_free(u, &x);
			armed = false;
			ibf_ucx_err_clear(&e);
			memset(&m, 0, sizeof(m));
			m.seq = c.seq;
			m.status = xfer_prep(u, &x, c.flags &
					     IBF_UCXI_CMD_SENDER, c.peer, c.seq,
					     (size_t)c.bytes, (size_t)c.chunk,
					     &e);
			if (m.status != IBF_UCX_OK)
				snprintf(m.msg, sizeof(m.msg), "rank %u "
					 "getting ready for rank %u: %.200s",
					 u->rank, c.peer, e.msg);
			st = send_msg(u, IBF_UCXI_ISEQ_BW_READY, &m, err);
			if (st != IBF_UCX_OK)
				break;
			if (m.status != IBF_UCX_OK)
				xfer_free(u, &x);
			else if (x.sender)
				armed = true;
			else
				c.op = IBF_UCXI_CMD_BW_GO; /* receive now */
		}
		if (c.op == IBF_UCXI_CMD_BW_GO && (armed || (x.req &&
							     !x.sender)) &&
		    c.seq == x.seq) {
			xfer_run(u, &x, &m);
			xfer_free(u, &x);
			armed = false;
			st = send_msg(u, IBF_UCXI_ISEQ_BW_REPORT, &m, err);
			if (st != IBF_UCX_OK)
				break;
		}
	}
	xfer_free(u, &x);
	return st;
}

/* ---- the map on the wire ------------------------------------------------------- */

typedef struct map_head {
	ibf_ucxi_verdict_t v;
	uint32_t root, height, nrounds, nmeas, nedges;
} map_head_t;

static size_t map_len(uint32_t nrounds, uint32_t nmeas, uint32_t nedges)
{
	return sizeof(map_head_t) +
	       ((size_t)nrounds + 1 + nrounds + 4 * (size_t)nmeas) *
	       sizeof(uint32_t) + ((size_t)nmeas + nedges) * sizeof(double);
}

/* Copy n bytes to (dir > 0) or from the cursor. */
static void move(uint8_t **cur, void *p, size_t n, int dir)
{
	if (dir > 0)
		memcpy(*cur, p, n);
	else
		memcpy(p, *cur, n);
	*cur += n;
}

static void map_move(uint8_t *b, ibf_infer_bwmap_t *m, uint32_t nedges,
		     int dir)
{
	uint8_t *c = b + sizeof(map_head_t);

	move(&c, m->round_start, (m->nrounds + 1) * sizeof(uint32_t), dir);
	move(&c, m->round_stage, m->nrounds * sizeof(uint32_t), dir);
	move(&c, m->pairs, 2 * (size_t)m->nmeas * sizeof(uint32_t), dir);
	move(&c, m->edge, 2 * (size_t)m->nmeas * sizeof(uint32_t), dir);
	move(&c, m->bw, m->nmeas * sizeof(double), dir);
	move(&c, m->edge_bw, nedges * sizeof(double), dir);
}

static void *map_pack(const ibf_ucx_bw_result_t *r, ibf_ucx_status_t st,
		      const char *msg, size_t *len)
{
	const ibf_infer_bwmap_t *m = &r->map;
	bool ok = st == IBF_UCX_OK;
	map_head_t h;
	uint8_t *b;

	memset(&h, 0, sizeof(h));
	ibf_ucxi_verdict_put(&h.v, st, msg);
	if (ok) {
		h.root = m->root;
		h.height = m->height;
		h.nrounds = m->nrounds;
		h.nmeas = m->nmeas;
		h.nedges = r->tree.nedges;
	}
	*len = ok ? map_len(h.nrounds, h.nmeas, h.nedges) : sizeof(h);
	b = malloc(*len);
	if (!b)
		return NULL;
	memcpy(b, &h, sizeof(h));
	if (ok)
		map_move(b, (ibf_infer_bwmap_t *)m, h.nedges, 1);
	return b;
}

static ibf_ucx_status_t map_unpack(const uint8_t *b, size_t len,
				   ibf_ucx_bw_result_t *r, ibf_ucx_err_t *err)
{
	ibf_infer_bwmap_t *m = &r->map;
	ibf_ucx_status_t st = ibf_ucxi_verdict_get(b, len, sizeof(map_head_t),
						   "bandwidth map", err);
	map_head_t h;

	if (st != IBF_UCX_OK)
		return st;
	memcpy(&h, b, sizeof(h));
	if (h.nedges != r->tree.nedges ||
	    len != map_len(h.nrounds, h.nmeas, h.nedges))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "bandwidth map: "
				       "malformed message from rank 0");
	m->root = h.root;
	m->height = h.height;
	m->nrounds = h.nrounds;
	m->nmeas = h.nmeas;
	m->round_start = malloc((h.nrounds + 1) * sizeof(uint32_t));
	m->round_stage = malloc((h.nrounds + 1) * sizeof(uint32_t));
	m->pairs = malloc((2 * (size_t)h.nmeas + 1) * sizeof(uint32_t));
	m->edge = malloc((2 * (size_t)h.nmeas + 1) * sizeof(uint32_t));
	m->bw = malloc((h.nmeas + 1) * sizeof(double));
	m->edge_bw = malloc((h.nedges + 1) * sizeof(double));
	if (!m->round_start || !m->round_stage || !m->pairs || !m->edge ||
	    !m->bw || !m->edge_bw)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	map_move((uint8_t *)b, m, h.nedges, -1);
	return IBF_UCX_OK;
}

/* ---- the tree ------------------------------------------------------------------ */

static ibf_ucx_status_t tree_copy(ibf_infer_tree_t *d,
				  const ibf_infer_tree_t *s,
				  ibf_ucx_err_t *err)
{
	size_t ne = s->nedges ? s->nedges : 1;

	*d = *s;
	d->ea = malloc(ne * sizeof(*d->ea));
	d->eb = malloc(ne * sizeof(*d->eb));
	d->lat = malloc(ne * sizeof(*d->lat));
	if (!d->ea || !d->eb || !d->lat)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	memcpy(d->ea, s->ea, s->nedges * sizeof(*d->ea));
	memcpy(d->eb, s->eb, s->nedges * sizeof(*d->eb));
	memcpy(d->lat, s->lat, s->nedges * sizeof(*d->lat));
	return IBF_UCX_OK;
}

/* The export's tree: the inference's algorithm over the hop counts of
 * the routes (there and back), which are exact: on a tree fabric that
 * is the fabric's tree without switches of two links. */
typedef struct hops_ctx {
	ibf_ucx_t *u;
	ibf_port_id_t *links;
	unsigned max;
	ibf_ucx_err_t *err;
} hops_ctx_t;

static ibf_status_t route_hops(void *ctx, uint32_t a, uint32_t b,
			       double *min, double *max, ibf_err_t *ierr)
{
	hops_ctx_t *h = ctx;
	uint32_t ra = h->u->host_leader[a], rb = h->u->host_leader[b];
	unsigned n1, n2;

	if (ibf_ucx_route(h->u, ra, rb, h->links, h->max, &n1, h->err) !=
	    IBF_UCX_OK ||
	    ibf_ucx_route(h->u, rb, ra, h->links, h->max, &n2, h->err) !=
	    IBF_UCX_OK)
		return ibf_err_set(ierr, IBF_ERR_INVALID, "%s", h->err->msg);
	*min = *max = n1 + n2;
	return IBF_OK;
}

static ibf_ucx_status_t fabric_tree(ibf_ucx_t *u, ibf_infer_tree_t *t,
				    ibf_ucx_err_t *err)
{
	ibf_infer_result_t r;
	ibf_infer_oracle_t o;
	ibf_infer_opts_t io;
	ibf_ucx_err_t e;
	hops_ctx_t h = { u, NULL, 0, &e };
	ibf_ucx_status_t st = IBF_UCX_OK;
	ibf_err_t ie;

	h.max = u->fab.fabric->nnodes + 2;
	h.links = malloc(h.max * sizeof(*h.links));
	if (!h.links)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	memset(&io, 0, sizeof(io));
	memset(&o, 0, sizeof(o));
	io.tol = 0.5;          /* half a hop there and back: exact RTTs */
	io.parallel = 1;       /* hop counts from the routes: nothing to
				  gain from rounds */
	o.nhosts = u->nhosts;
	o.measure = route_hops;
	o.ctx = &h;
	ibf_ucx_err_clear(&e);
	ibf_err_clear(&ie);
	if (ibf_infer_run(&o, &io, &r, &ie) != IBF_OK) {
		st = ibf_ucx_err_set(err, e.status != IBF_UCX_OK ? e.status :
				     IBF_UCX_ERR_FABRIC, "bandwidth map: the "
				     "fabric's tree: %s", ie.msg);
	} else {
		st = tree_copy(t, &r.tree, err);
		ibf_infer_result_free(&r);
	}
	free(h.links);
	return st;
}

static ibf_ucx_status_t get_tree(ibf_ucx_t *u, const ibf_ucx_bw_opts_t *o,
				 ibf_ucx_bw_result_t *out, ibf_ucx_err_t *err)
{
	ibf_ucx_infer_result_t inf;
	ibf_ucx_status_t st;
	double t0 = ibf_ucxi_now();

	if (o->tree) {
		if (o->tree->nhosts != u->nhosts)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
					       "bandwidth map: the tree has %u "
					       "hosts, the context %u",
					       o->tree->nhosts, u->nhosts);
		out->source = IBF_UCX_BW_TREE_GIVEN;
		return tree_copy(&out->tree, o->tree, err);
	}
	if (!o->infer && ibf_ucx_inferred(u)) {
		out->source = IBF_UCX_BW_TREE_INIT;
		return tree_copy(&out->tree, &ibf_ucx_inferred(u)->r.tree, err);
	}
	if (!o->infer && u->aware) {
		out->source = IBF_UCX_BW_TREE_FABRIC;
		st = fabric_tree(u, &out->tree, err);
	} else {
		out->source = IBF_UCX_BW_TREE_INFERRED;
		st = ibf_ucx_infer(u, &o->infer_opts, &inf, err);
		if (st == IBF_UCX_OK)
			st = tree_copy(&out->tree, &inf.r.tree, err);
		ibf_ucx_infer_result_free(&inf);
	}
	out->tree_s = ibf_ucxi_now() - t0;
	return st;
}

/* ---- the public calls ---------------------------------------------------------- */

const char *ibf_ucx_bw_tree_str(ibf_ucx_bw_tree_t t)
{
	switch (t) {
	case IBF_UCX_BW_TREE_FABRIC: return "fabric";
	case IBF_UCX_BW_TREE_INIT: return "inferred at init";
	case IBF_UCX_BW_TREE_INFERRED: return "inferred";
	case IBF_UCX_BW_TREE_GIVEN: return "given";
	default: return "none";
	}
}

void ibf_ucx_bw_opts_init(const ibf_ucx_t *u, ibf_ucx_bw_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->bytes = BW_DEFAULT_BYTES;
	o->chunk = BW_DEFAULT_CHUNK;
	o->seed = 1;
	ibf_ucx_infer_opts_init(u, &o->infer_opts);
}

void ibf_ucx_bw_result_free(ibf_ucx_bw_result_t *r)
{
	if (!r)
		return;
	ibf_ucxi_names_free(r->names, r->nhosts);
	free(r->tree.ea);
	free(r->tree.eb);
	free(r->tree.lat);
	ibf_infer_bwmap_free(&r->map);
	free(r->predicted);
	free(r->alone);
	memset(r, 0, sizeof(*r));
}

ibf_ucx_status_t ibf_ucx_infer_bw(ibf_ucx_t *u, const ibf_ucx_bw_opts_t *o,
				  ibf_ucx_bw_result_t *out,
				  ibf_ucx_err_t *err)
{
	ibf_ucx_bw_opts_t dflt;
	ibf_ucx_status_t st, local = IBF_UCX_OK;
	ibf_ucx_err_t e;
	ibf_err_t ie;
	void *blob = NULL;
	size_t len = 0, n2;

	memset(out, 0, sizeof(*out));
	if (!o) {
		ibf_ucx_bw_opts_init(u, &dflt);
		o = &dflt;
	}
	/* The same on every rank: every rank fails alike. */
	if (!o->chunk || o->bytes / 2 < o->chunk)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID, "bandwidth "
				       "map: %zu bytes in messages of %zu: at "
				       "least two messages are needed",
				       o->bytes, o->chunk);
	if (u->nhosts < 2)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID, "bandwidth "
				       "map: %u host%s; at least 2 are needed",
				       u->nhosts, u->nhosts == 1 ? "" : "s");
	out->nhosts = u->nhosts;
	st = ibf_ucxi_host_names(u, &out->names, err);
	if (st == IBF_UCX_OK)
		st = get_tree(u, o, out, err);
	if (st != IBF_UCX_OK) {
		ibf_ucx_bw_result_free(out);
		return st;
	}
	ibf_ucx_err_clear(&e);
	if (u->rank == 0) {
		local = drive(u, o, out, &e);
		blob = map_pack(out, local, e.msg, &len);
		if (!blob)
			local = ibf_ucx_err_set(&e, IBF_UCX_ERR_NOMEM,
						"out of memory");
	} else {
		st = serve(u, &e);
		if (st != IBF_UCX_OK)
			local = st;
	}
	st = ibf_ucxi_bcast_blob(u, 0, &blob, &len, err);
	if (st == IBF_UCX_OK && u->rank != 0)
		st = map_unpack(blob, len, out, err);
	free(blob);
	if (st == IBF_UCX_OK && local != IBF_UCX_OK)
		st = ibf_ucx_err_set(err, local, "%s", e.msg);
	n2 = (size_t)out->nhosts * out->nhosts;
	if (st == IBF_UCX_OK) {
		out->predicted = malloc(n2 * sizeof(*out->predicted));
		ibf_err_clear(&ie);
		if (!out->predicted)
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					     "out of memory");
		else if (ibf_infer_bw_predict(&out->tree, &out->map,
					      out->predicted, &ie) != IBF_OK)
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					     "bandwidth map: %s", ie.msg);
	}
	if (st != IBF_UCX_OK)
		ibf_ucx_bw_result_free(out);
	return st;
}
