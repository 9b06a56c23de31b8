/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * One run of one pair's round-trip time measurement, by the method of
 * T. Shirai, H. Saito and K. Taura, "A Fast Topology Inference: a building
 * block for network-aware parallel processing", HPDC 2007 (section
 * "Measurements between a single host pair"): the initiator times
 * ping-pongs and keeps the best; the run ends when the best has not
 * improved for `stall` exchanges or after `max_exchanges`.  The caller
 * (probe.c) makes the `runs` runs and keeps the minimum and maximum of
 * their bests.  A few untimed exchanges before the first run let UCX wire
 * the endpoint up.  Pings and pongs go on the context of their route's
 * SL (core/sl_lanes.c): a probe measures the path the data takes.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe/ucx_probe_internal.h"

enum { MSG_PING = 1, MSG_STOP = 2 };

typedef struct pp {
	ibf_ucx_t *u;
	uint32_t peer;
	ucp_tag_t tag_out, tag_in;
	uint8_t *out, *in;
	size_t size;
	double spin_s;
} pp_t;

/* A message on the route's SL, waited for. */
static ibf_ucx_status_t route_send(pp_t *p, const void *buf,
				   ibf_ucx_err_t *err)
{
	ibf_ucxi_req_t r;
	ibf_ucx_status_t st = ibf_ucxi_route_isend(p->u, p->peer, p->tag_out,
						   buf, p->size, &r, err);

	if (st != IBF_UCX_OK)
		return st;
	return ibf_ucxi_wait(p->u, &r, 1, ibf_ucxi_now() + p->u->timeout, 0,
			     err);
}

static ibf_ucx_status_t exchange(pp_t *p, double *rtt, ibf_ucx_err_t *err)
{
	ibf_ucxi_req_t r[2];
	double t0;
	ibf_ucx_status_t st;

	st = ibf_ucxi_route_irecv(p->u, p->peer, p->tag_in, p->in, p->size,
				  &r[0], err);
	if (st != IBF_UCX_OK)
		return st;
	t0 = ibf_ucxi_now();
	st = ibf_ucxi_route_isend(p->u, p->peer, p->tag_out, p->out, p->size,
				  &r[1], err);
	if (st != IBF_UCX_OK) {
		/* Wait with a deadline in the past: cancels the receive. */
		ibf_ucxi_wait(p->u, r, 1, 0, 0, NULL);
		return st;
	}
	st = ibf_ucxi_wait(p->u, r, 2, t0 + p->u->timeout, p->spin_s, err);
	*rtt = (ibf_ucxi_now() - t0) * 1e6;
	return st;
}

static ibf_ucx_status_t one_run(pp_t *p, const ibf_ucx_probe_opts_t *o,
				double *best, uint32_t *count,
				ibf_ucx_err_t *err)
{
	unsigned j, since = 0;
	double rtt;
	ibf_ucx_status_t st;

	*best = INFINITY;
	for (j = 0; j < o->max_exchanges && since < o->stall; j++) {
		st = exchange(p, &rtt, err);
		if (st != IBF_UCX_OK)
			return st;
		(*count)++;
		if (rtt < *best) {
			*best = rtt;
			since = 0;
		} else {
			since++;
		}
	}
	return IBF_UCX_OK;
}

static void pp_free(pp_t *p)
{
	free(p->out);
	free(p->in);
}

/* Both sides' state and buffers; nothing to free on an error. */
static ibf_ucx_status_t pp_init(pp_t *p, ibf_ucx_t *u, uint32_t peer,
				uint32_t seq, const ibf_ucx_probe_opts_t *o,
				ibf_ucx_err_t *err)
{
	p->u = u;
	p->peer = peer;
	p->tag_out = ibf_ucxi_tag(IBF_UCXI_TAG_PROBE, seq, u->rank);
	p->tag_in = ibf_ucxi_tag(IBF_UCXI_TAG_PROBE, seq, peer);
	p->size = o->size < sizeof(uint32_t) ? sizeof(uint32_t) : o->size;
	p->spin_s = o->spin_s;
	p->out = calloc(1, p->size);
	p->in = calloc(1, p->size);
	if (p->out && p->in)
		return IBF_UCX_OK;
	pp_free(p);
	return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
}

ibf_ucx_status_t ibf_ucxi_ping(ibf_ucx_t *u, uint32_t peer, uint32_t seq,
			       const ibf_ucx_probe_opts_t *o, bool warm_up,
			       double *best, uint32_t *exchanges,
			       ibf_ucx_err_t *err)
{
	uint32_t kind = MSG_PING;
	double rtt;
	unsigned i;
	pp_t p;
	ibf_ucx_status_t st = IBF_UCX_OK;

	if ((st = pp_init(&p, u, peer, seq, o, err)) != IBF_UCX_OK)
		return st;
	memcpy(p.out, &kind, sizeof(kind));
	for (i = 0; warm_up && i < o->warmup && st == IBF_UCX_OK; i++)
		st = exchange(&p, &rtt, err);
	if (st == IBF_UCX_OK)
		st = one_run(&p, o, best, exchanges, err);
	if (st == IBF_UCX_OK) {
		kind = MSG_STOP;
		memcpy(p.out, &kind, sizeof(kind));
		st = route_send(&p, p.out, err);
	}
	pp_free(&p);
	if (st != IBF_UCX_OK)
		ibf_ucx_err_prefix(err, "probe rank %u -> rank %u: ", u->rank,
				   peer);
	return st;
}

ibf_ucx_status_t ibf_ucxi_pong(ibf_ucx_t *u, uint32_t peer, uint32_t seq,
			       const ibf_ucx_probe_opts_t *o,
			       ibf_ucx_err_t *err)
{
	uint32_t kind = 0;
	ibf_ucxi_req_t r;
	pp_t p;
	ibf_ucx_status_t st = IBF_UCX_OK;

	if ((st = pp_init(&p, u, peer, seq, o, err)) != IBF_UCX_OK)
		return st;
	for (;;) {
		st = ibf_ucxi_route_irecv(u, peer, p.tag_in, p.in, p.size, &r,
					  err);
		if (st == IBF_UCX_OK)
			st = ibf_ucxi_wait(u, &r, 1, ibf_ucxi_now() + u->timeout,
					   p.spin_s, err);
		if (st != IBF_UCX_OK)
			break;
		memcpy(&kind, p.in, sizeof(kind));
		if (kind == MSG_STOP)
			break;
		st = route_send(&p, p.in, err);
		if (st != IBF_UCX_OK)
			break;
	}
	pp_free(&p);
	if (st != IBF_UCX_OK)
		ibf_ucx_err_prefix(err, "probe rank %u <- rank %u: ", u->rank,
				   peer);
	return st;
}
