/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Topology inference from RTTs measured over UCX (docs/ucx.md, "Topology
 * inference"): libibflow's ibf_infer_run at rank 0 over an oracle that has
 * the two ranks of each pair it asks for ping-pong.  (Its use as the
 * context's fabric, UCX_IBFLOW_FABRIC=infer: fabric/inferred.c.)
 *
 * Rank 0 drives: for each pair the algorithm asks for, rank 0 sends the
 * responder a PONG command and the initiator a PING command (rank 0 is
 * the initiator itself when it is in the pair), and the initiator
 * reports the runs' minimum and maximum.  In parallel mode the
 * algorithm keeps several pairs without a common host in flight: a pair
 * starts with its two commands (rank 0 runs its own pair there and
 * then), and whenever the algorithm waits, the first report to arrive
 * ends its pair, so the ping-pongs run concurrently, each pair on its
 * own endpoints and tags, and a new pair starts as soon as one is over.
 * Every other rank
 * serves commands until DONE.  Ranks that have heard nothing for a
 * while get a NOP so that their wait for the next command can keep the
 * usual bound (UCX_IBFLOW_TIMEOUT) however long the whole run takes.
 * The tree (or rank 0's error) is then broadcast, so every rank ends the
 * same way.
 */
#include "config.h"

#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/ucx_internal.h"
#include "infer/ucx_infer_internal.h"
#include "probe/ucx_probe_internal.h"

/* Sequence numbers of the ping-pongs: the upper half of the 24-bit
 * field, apart from the collectives' (u->seq counts up from 1). */
#define PP_SEQ_BASE 0x800000u
#define PP_SEQ_MASK 0x7fffffu

typedef struct report {
	int32_t status;
	uint32_t exchanges;
	double min, max;
	char msg[256];
} report_t;

/* A pair in flight, by the algorithm's tag. */
typedef enum flight_state {
	FLIGHT_NONE = 0,
	FLIGHT_REMOTE,         /* the initiator's report is awaited */
	FLIGHT_OVER,           /* rank 0's own pair, measured at its start */
} flight_state_t;

/* rank 0's oracle state */
typedef struct driver {
	ibf_ucx_t *u;
	const ibf_ucx_probe_opts_t *po;
	uint32_t nmeas;
	uint64_t exchanges;
	ibf_ucxi_cmdr_t cmdr;
	ibf_ucx_err_t uerr;    /* the UCX failure that stopped the run */
	/* The pairs in flight, their reports and receives, by tag
	 * ([nhosts]: at most one pair per host). */
	flight_state_t *state;
	report_t *rep;
	ibf_ucxi_req_t *req;
} driver_t;

static ucp_tag_t report_tag(uint32_t from)
{
	return ibf_ucxi_itag(IBF_UCXI_ISEQ_RTT_REPORT, from);
}

static ibf_ucx_status_t send_cmd(driver_t *d, uint32_t to, uint32_t op,
				 uint32_t peer, uint32_t seq,
				 ibf_ucx_err_t *err)
{
	ibf_ucxi_cmd_t c = { .op = op, .peer = peer, .seq = seq };

	return ibf_ucxi_cmdr_send(&d->cmdr, to, &c, err);
}

/* ---- the command channel (ucx_infer_internal.h) -------------------------------- */

ibf_ucx_status_t ibf_ucxi_cmdr_init(ibf_ucxi_cmdr_t *c, ibf_ucx_t *u,
				    ibf_ucx_err_t *err)
{
	uint32_t i;

	c->u = u;
	c->last = calloc(u->size, sizeof(*c->last));
	if (!c->last)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	for (i = 0; i < u->size; i++)
		c->last[i] = ibf_ucxi_now();
	return IBF_UCX_OK;
}

void ibf_ucxi_cmdr_free(ibf_ucxi_cmdr_t *c)
{
	free(c->last);
	c->last = NULL;
}

ibf_ucx_status_t ibf_ucxi_cmdr_send(ibf_ucxi_cmdr_t *c, uint32_t to,
				    const ibf_ucxi_cmd_t *cmd,
				    ibf_ucx_err_t *err)
{
	c->last[to] = ibf_ucxi_now();
	return ibf_ucxi_send(c->u, to, ibf_ucxi_itag(IBF_UCXI_ISEQ_CMD, 0),
			     cmd, sizeof(*cmd), err);
}

ibf_ucx_status_t ibf_ucxi_cmdr_keepalive(ibf_ucxi_cmdr_t *c,
					 ibf_ucx_err_t *err)
{
	ibf_ucxi_cmd_t nop = { .op = IBF_UCXI_CMD_NOP };
	double now = ibf_ucxi_now();
	uint32_t i;
	ibf_ucx_status_t st;

	for (i = 1; i < c->u->size; i++)
		if (now - c->last[i] > c->u->timeout / 4) {
			st = ibf_ucxi_cmdr_send(c, i, &nop, err);
			if (st != IBF_UCX_OK)
				return st;
		}
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_cmdr_finish(ibf_ucxi_cmdr_t *c,
				      ibf_ucx_status_t st, ibf_ucx_err_t *err)
{
	ibf_ucxi_cmd_t done = { .op = IBF_UCXI_CMD_DONE };
	ibf_ucx_status_t st2;
	uint32_t i;

	for (i = 1; i < c->u->size; i++) {
		ibf_ucx_err_t e;

		st2 = ibf_ucxi_cmdr_send(c, i, &done, &e);
		if (st2 != IBF_UCX_OK && st == IBF_UCX_OK)
			st = ibf_ucx_err_set(err, st2, "%s", e.msg);
	}
	ibf_ucxi_cmdr_free(c);
	return st;
}

void ibf_ucxi_cmd_release(ibf_ucx_t *u)
{
	ibf_ucxi_cmd_t c = { .op = IBF_UCXI_CMD_DONE };
	uint32_t i;

	for (i = 1; i < u->size; i++)
		ibf_ucxi_send(u, i, ibf_ucxi_itag(IBF_UCXI_ISEQ_CMD, 0), &c,
			      sizeof(c), NULL);
}

ibf_ucx_status_t ibf_ucxi_cmd_next(ibf_ucx_t *u, ibf_ucxi_cmd_t *c,
				   unsigned timeouts, ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st;
	ibf_ucxi_req_t r;

	do {
		st = ibf_ucxi_irecv(u, 0, ibf_ucxi_itag(IBF_UCXI_ISEQ_CMD, 0),
				    c, sizeof(*c), &r, err);
		if (st == IBF_UCX_OK)
			st = ibf_ucxi_wait(u, &r, 1, ibf_ucxi_now() +
					   timeouts * u->timeout, 0, err);
		if (st != IBF_UCX_OK) {
			ibf_ucx_err_prefix(err, "rank %u waiting for rank 0's "
					   "next measurement: ", u->rank);
			return st;
		}
	} while (c->op == IBF_UCXI_CMD_NOP);
	return IBF_UCX_OK;
}

/* The initiator's side of one pair: runs of ping-pongs, min and max of
 * their bests (µs). */
static ibf_ucx_status_t pinger(ibf_ucx_t *u, uint32_t peer, uint32_t seq,
			       const ibf_ucx_probe_opts_t *po, report_t *rep,
			       ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st = IBF_UCX_OK;
	double best;
	unsigned i;

	rep->min = INFINITY;
	rep->max = -INFINITY;
	rep->exchanges = 0;
	for (i = 0; i < po->runs && st == IBF_UCX_OK; i++) {
		st = ibf_ucxi_ping(u, peer, seq, po, i == 0, &best,
				   &rep->exchanges, err);
		if (st == IBF_UCX_OK) {
			rep->min = fmin(rep->min, best);
			rep->max = fmax(rep->max, best);
		}
	}
	return st;
}

static ibf_ucx_status_t ponger(ibf_ucx_t *u, uint32_t peer, uint32_t seq,
			       const ibf_ucx_probe_opts_t *po,
			       ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st = IBF_UCX_OK;
	unsigned i;

	for (i = 0; i < po->runs && st == IBF_UCX_OK; i++)
		st = ibf_ucxi_pong(u, peer, seq, po, err);
	return st;
}

static ibf_status_t oracle_fail(driver_t *d, ibf_err_t *ierr)
{
	return ibf_err_set(ierr, IBF_ERR_IO, "%s", d->uerr.msg);
}

/* Start the measurement of hosts a and b by their leader ranks: the
 * responder's command, then the initiator's (rank 0 initiates whenever
 * it takes part, and measures its pair here and now). */
static ibf_status_t start(void *ctx, uint32_t a, uint32_t b, uint32_t tag,
			  ibf_err_t *ierr)
{
	driver_t *d = ctx;
	ibf_ucx_t *u = d->u;
	ibf_ucx_err_t *e = &d->uerr;
	uint32_t ra = u->host_leader[a], rb = u->host_leader[b];
	uint32_t seq = PP_SEQ_BASE | (d->nmeas++ & PP_SEQ_MASK);
	ibf_ucx_status_t st;

	if (tag >= u->nhosts || d->state[tag] != FLIGHT_NONE)
		return ibf_err_set(ierr, IBF_ERR_INVALID, "measurement %u is "
				   "in flight already", tag);
	if (rb == 0) {
		rb = ra;
		ra = 0;
	}
	st = ibf_ucxi_cmdr_keepalive(&d->cmdr, e);
	if (st == IBF_UCX_OK)
		st = send_cmd(d, rb, IBF_UCXI_CMD_PONG, ra, seq, e);
	if (st == IBF_UCX_OK && ra == 0) {
		memset(&d->rep[tag], 0, sizeof(d->rep[tag]));
		st = pinger(u, rb, seq, d->po, &d->rep[tag], e);
		d->state[tag] = FLIGHT_OVER;
	} else if (st == IBF_UCX_OK) {
		st = send_cmd(d, ra, IBF_UCXI_CMD_PING, rb, seq, e);
		if (st == IBF_UCX_OK)
			st = ibf_ucxi_irecv(u, ra, report_tag(ra), &d->rep[tag],
					    sizeof(d->rep[tag]), &d->req[tag],
					    e);
		d->state[tag] = FLIGHT_REMOTE;
	}
	return st == IBF_UCX_OK ? IBF_OK : oracle_fail(d, ierr);
}

/* A pair in flight that is over: its tag, or UINT32_MAX.  A failed
 * receive stops the run (*st). */
static uint32_t landed(driver_t *d, ibf_ucx_status_t *st)
{
	uint32_t t;

	for (t = 0; t < d->u->nhosts; t++) {
		if (d->state[t] == FLIGHT_OVER)
			return t;
		if (d->state[t] == FLIGHT_REMOTE &&
		    ibf_ucxi_test(&d->req[t], st, &d->uerr))
			return t;
	}
	return UINT32_MAX;
}

/* The first pair in flight to be over: the initiators report their own
 * failures within a timeout. */
static ibf_status_t wait_any(void *ctx, uint32_t *tag, double *min,
			     double *max, ibf_status_t *ist, ibf_err_t *ierr)
{
	driver_t *d = ctx;
	ibf_ucx_t *u = d->u;
	double deadline = ibf_ucxi_now() + 2 * u->timeout;
	ibf_ucx_status_t st = IBF_UCX_OK;
	uint32_t t;
	report_t *r;

	while ((t = landed(d, &st)) == UINT32_MAX) {
		if (ibf_ucxi_now() > deadline)
			return ibf_err_set(ierr, IBF_ERR_IO, "no measurement "
					   "reported within %g s (%sTIMEOUT)",
					   2 * u->timeout, IBF_UCX_VAR_PREFIX);
		ibf_ucxi_progress_or_sleep(u, 0.1);
	}
	d->state[t] = FLIGHT_NONE;
	r = &d->rep[t];
	if (st == IBF_UCX_OK && r->status != IBF_UCX_OK) {
		r->msg[sizeof(r->msg) - 1] = '\0';
		st = ibf_ucx_err_set(&d->uerr, (ibf_ucx_status_t)r->status,
				     "%s", r->msg);
	}
	if (st != IBF_UCX_OK)
		return oracle_fail(d, ierr);
	d->exchanges += r->exchanges;
	*tag = t;
	*min = r->min;
	*max = r->max;
	*ist = IBF_OK;
	return IBF_OK;
}

/* The serial oracle: one pair in flight. */
static ibf_status_t measure(void *ctx, uint32_t a, uint32_t b, double *min,
			    double *max, ibf_err_t *ierr)
{
	ibf_status_t st = start(ctx, a, b, 0, ierr), pst;
	uint32_t tag;

	if (st == IBF_OK)
		st = wait_any(ctx, &tag, min, max, &pst, ierr);
	return st;
}

/* Ranks other than 0: serve commands until DONE.  A failure of one's
 * own ping-pong is reported to rank 0 (as initiator) or left to the
 * initiator to report (as responder); serving goes on either way, so
 * that the final broadcast finds everybody. */
static ibf_ucx_status_t serve(ibf_ucx_t *u, const ibf_ucx_probe_opts_t *po,
			      ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st;
	ibf_ucx_err_t e;
	report_t rep;
	ibf_ucxi_cmd_t c;

	for (;;) {
		st = ibf_ucxi_cmd_next(u, &c, 1, err);
		if (st != IBF_UCX_OK)
			return st;
		if (c.op == IBF_UCXI_CMD_DONE)
			return IBF_UCX_OK;
		if (c.peer >= u->size || c.peer == u->rank)
			continue;
		if (c.op == IBF_UCXI_CMD_PONG) {
			ponger(u, c.peer, c.seq, po, &e);
		} else if (c.op == IBF_UCXI_CMD_PING) {
			memset(&rep, 0, sizeof(rep));
			ibf_ucx_err_clear(&e);
			rep.status = pinger(u, c.peer, c.seq, po, &rep, &e);
			snprintf(rep.msg, sizeof(rep.msg), "%.255s", e.msg);
			st = ibf_ucxi_send(u, 0, report_tag(u->rank), &rep,
					   sizeof(rep), err);
			if (st != IBF_UCX_OK)
				return st;
		}
	}
}

/* ---- the tree on the wire -------------------------------------------------- */

typedef struct blob_head {
	ibf_ucxi_verdict_t v;
	uint32_t nhosts, nnodes, nedges;
} blob_head_t;

static void *pack(const ibf_infer_tree_t *t, ibf_ucx_status_t st,
		  const char *msg, size_t *len)
{
	blob_head_t h;
	size_t ne = st == IBF_UCX_OK ? t->nedges : 0;
	uint8_t *b;

	memset(&h, 0, sizeof(h));
	ibf_ucxi_verdict_put(&h.v, st, msg);
	if (st == IBF_UCX_OK) {
		h.nhosts = t->nhosts;
		h.nnodes = t->nnodes;
		h.nedges = t->nedges;
	}
	*len = sizeof(h) + ne * (2 * sizeof(uint32_t) + sizeof(double));
	b = malloc(*len);
	if (!b)
		return NULL;
	memcpy(b, &h, sizeof(h));
	if (ne) {
		memcpy(b + sizeof(h), t->ea, ne * sizeof(uint32_t));
		memcpy(b + sizeof(h) + ne * sizeof(uint32_t), t->eb,
		       ne * sizeof(uint32_t));
		memcpy(b + sizeof(h) + 2 * ne * sizeof(uint32_t), t->lat,
		       ne * sizeof(double));
	}
	return b;
}

static ibf_ucx_status_t unpack(const uint8_t *b, size_t len,
			       ibf_infer_tree_t *t, ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st = ibf_ucxi_verdict_get(b, len, sizeof(blob_head_t),
						   "inference: tree", err);
	blob_head_t h;
	size_t ne;

	if (st != IBF_UCX_OK)
		return st;
	memcpy(&h, b, sizeof(h));
	ne = h.nedges;
	if (len != sizeof(h) + ne * (2 * sizeof(uint32_t) + sizeof(double)))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "inference: "
				       "malformed tree message from rank 0");
	memset(t, 0, sizeof(*t));
	t->ea = malloc((ne ? ne : 1) * sizeof(uint32_t));
	t->eb = malloc((ne ? ne : 1) * sizeof(uint32_t));
	t->lat = malloc((ne ? ne : 1) * sizeof(double));
	if (!t->ea || !t->eb || !t->lat)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	t->nhosts = h.nhosts;
	t->nnodes = h.nnodes;
	t->nedges = h.nedges;
	memcpy(t->ea, b + sizeof(h), ne * sizeof(uint32_t));
	memcpy(t->eb, b + sizeof(h) + ne * sizeof(uint32_t),
	       ne * sizeof(uint32_t));
	memcpy(t->lat, b + sizeof(h) + 2 * ne * sizeof(uint32_t),
	       ne * sizeof(double));
	return IBF_UCX_OK;
}

/* ---- the public call ------------------------------------------------------- */

/* INFER_IN_FLIGHT=auto: the fewest CPUs of a machine that runs more of
 * the job's processes than it has CPUs, or 0 (no limit) when none does. */
static unsigned cpu_bound_flights(const ibf_ucx_t *u)
{
	unsigned cap = 0;
	uint32_t i, j, procs;

	for (i = 0; i < u->size; i++) {
		for (procs = 0, j = 0; j < u->size; j++)
			procs += u->who[j].machine == u->who[i].machine;
		if (u->who[i].ncpus && procs > u->who[i].ncpus &&
		    (!cap || u->who[i].ncpus < cap))
			cap = u->who[i].ncpus;
	}
	return cap;
}

void ibf_ucx_infer_opts_init(const ibf_ucx_t *u, ibf_ucx_infer_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	ibf_ucx_probe_opts_init(u, &o->probe);
	o->tol_us = u->cfg->v.infer_tol * 1e6;
	o->lookahead = 0;
	o->seed = 1;
	o->parallel = u->cfg->v.infer_parallel;
	o->max_in_flight = u->cfg->v.infer_in_flight == UINT_MAX ?
			   cpu_bound_flights(u) : u->cfg->v.infer_in_flight;
}

void ibf_ucx_infer_result_free(ibf_ucx_infer_result_t *r)
{
	if (!r)
		return;
	ibf_infer_result_free(&r->r);
	ibf_ucxi_names_free(r->names, r->nhosts);
	memset(r, 0, sizeof(*r));
}

void ibf_ucxi_verdict_put(ibf_ucxi_verdict_t *v, ibf_ucx_status_t st,
			  const char *msg)
{
	v->status = st;
	snprintf(v->msg, sizeof(v->msg), "%s", msg ? msg : "");
}

ibf_ucx_status_t ibf_ucxi_verdict_get(const void *b, size_t len, size_t head,
				      const char *what, ibf_ucx_err_t *err)
{
	ibf_ucxi_verdict_t v;

	if (len < sizeof(v))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "%s: short "
				       "message from rank 0", what);
	memcpy(&v, b, sizeof(v));
	v.msg[sizeof(v.msg) - 1] = '\0';
	if (v.status != IBF_UCX_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "%s", v.msg);
	if (len < head)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "%s: short "
				       "message from rank 0", what);
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_host_names(ibf_ucx_t *u, char ***names,
				     ibf_ucx_err_t *err)
{
	char buf[256];
	uint32_t h;

	*names = calloc(u->nhosts, sizeof(**names));
	if (!*names)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	for (h = 0; h < u->nhosts; h++) {
		(*names)[h] = strdup(ibf_ucx_host_name(u, h, buf, sizeof(buf)));
		if (!(*names)[h])
			return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					       "out of memory");
	}
	return IBF_UCX_OK;
}

void ibf_ucxi_names_free(char **names, uint32_t n)
{
	uint32_t i;

	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* Rank 0: run the algorithm, then tell everyone DONE.  The status is
 * what the broadcast will carry. */
static ibf_ucx_status_t drive(ibf_ucx_t *u, const ibf_ucx_infer_opts_t *o,
			      ibf_ucx_infer_result_t *out,
			      ibf_ucx_err_t *err)
{
	ibf_infer_oracle_t orc;
	ibf_infer_opts_t io;
	ibf_ucx_status_t st = IBF_UCX_OK;
	ibf_err_t ie;
	driver_t d;

	memset(&d, 0, sizeof(d));
	d.u = u;
	d.po = &o->probe;
	st = ibf_ucxi_cmdr_init(&d.cmdr, u, err);
	if (st != IBF_UCX_OK) {
		ibf_ucxi_cmd_release(u);
		return st;
	}
	ibf_ucx_err_clear(&d.uerr);
	d.state = calloc(u->nhosts, sizeof(*d.state));
	d.rep = calloc(u->nhosts, sizeof(*d.rep));
	d.req = calloc(u->nhosts, sizeof(*d.req));
	if (!d.state || !d.rep || !d.req) {
		free(d.state);
		free(d.rep);
		free(d.req);
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
		return ibf_ucxi_cmdr_finish(&d.cmdr, st, err);
	}
	memset(&io, 0, sizeof(io));
	io.tol = o->tol_us;
	io.lookahead = o->lookahead;
	io.seed = o->seed;
	io.parallel = o->parallel;
	io.max_in_flight = o->max_in_flight;
	memset(&orc, 0, sizeof(orc));
	orc.nhosts = u->nhosts;
	orc.measure = measure;
	orc.start = start;
	orc.wait = wait_any;
	orc.ctx = &d;
	ibf_err_clear(&ie);
	if (ibf_infer_run(&orc, &io, &out->r, &ie) != IBF_OK) {
		if (d.uerr.status != IBF_UCX_OK)
			st = ibf_ucx_err_set(err, d.uerr.status, "inference: "
					     "%s", d.uerr.msg);
		else
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
					     "inference: %s", ie.msg);
	}
	out->exchanges = d.exchanges;
	free(d.state);
	free(d.rep);
	free(d.req);
	/* Everyone must leave its loop, also after a failure. */
	return ibf_ucxi_cmdr_finish(&d.cmdr, st, err);
}

ibf_ucx_status_t ibf_ucx_infer(ibf_ucx_t *u, const ibf_ucx_infer_opts_t *o,
			       ibf_ucx_infer_result_t *out,
			       ibf_ucx_err_t *err)
{
	ibf_ucx_infer_opts_t dflt;
	ibf_ucx_status_t st, local;
	ibf_ucx_err_t e;
	double t0 = ibf_ucxi_now();
	void *blob = NULL;
	size_t len = 0;

	memset(out, 0, sizeof(*out));
	ibf_ucx_err_clear(&e);
	if (!o) {
		ibf_ucx_infer_opts_init(u, &dflt);
		o = &dflt;
	}
	out->nhosts = u->nhosts;
	local = ibf_ucxi_host_names(u, &out->names, &e);
	if (u->nhosts < 2 && local == IBF_UCX_OK)
		local = ibf_ucx_err_set(&e, IBF_UCX_ERR_INVALID, "inference: "
					"%u host%s; at least 2 are needed",
					u->nhosts, u->nhosts == 1 ? "" : "s");
	if (u->rank == 0) {
		if (local == IBF_UCX_OK)
			local = drive(u, o, out, &e);
		else if (u->nhosts >= 2)
			ibf_ucxi_cmd_release(u);
		blob = pack(&out->r.tree, local, e.msg, &len);
		if (!blob)
			local = ibf_ucx_err_set(&e, IBF_UCX_ERR_NOMEM,
						"out of memory");
	} else if (u->nhosts >= 2) {
		/* serve even after a local failure: rank 0 may ask */
		st = serve(u, &o->probe, local == IBF_UCX_OK ? &e : NULL);
		if (st != IBF_UCX_OK && local == IBF_UCX_OK)
			local = st;
	}
	st = ibf_ucxi_bcast_blob(u, 0, &blob, &len, err);
	if (st == IBF_UCX_OK && u->rank != 0)
		st = unpack(blob, len, &out->r.tree, err);
	free(blob);
	if (st == IBF_UCX_OK && local != IBF_UCX_OK)
		st = ibf_ucx_err_set(err, local, "%s", e.msg);
	if (st == IBF_UCX_OK && u->rank == 0)
		st = local;
	out->measure_s = ibf_ucxi_now() - t0;
	if (st != IBF_UCX_OK)
		ibf_ucx_infer_result_free(out);
	return st;
}

/* The inference ibf_ucx_init made (FABRIC=infer) is infer/'s state of
 * the context, freed with it. */
static void inferred_free(void *data)
{
	ibf_ucx_infer_result_free(data);
	free(data);
}

static const ibf_ucxi_state_key_t INFERRED = { "inference", inferred_free };

ibf_ucx_status_t ibf_ucxi_infer_keep(ibf_ucx_t *u, ibf_ucx_infer_result_t *r,
				     ibf_ucx_err_t *err)
{
	return ibf_ucxi_state_put(u, &INFERRED, r, err);
}

const ibf_ucx_infer_result_t *ibf_ucx_inferred(const ibf_ucx_t *u)
{
	return ibf_ucxi_state_get(u, &INFERRED);
}
