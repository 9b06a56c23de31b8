/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The simulator's set-up: options, link rates, messages and their
 * dependencies, and the results.  The event loop is in sim_run.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/trace.h>

#include "base/array.h"
#include "sim_internal.h"

#define MAX_PATH 256u

void ibf_sim_opts_default(ibf_sim_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->mtu = IBF_SIM_MTU_DEFAULT;
	/* 32 KiB per VL: the order of a current switch's per-port buffer
	 * shared among its VLs (docs/sim.md). */
	o->buffer = IBF_SIM_BUFFER_DEFAULT;
	o->latency_ns = IBF_SIM_LATENCY_NS_DEFAULT;
	o->max_vls = IBF_SIM_MAX_VLS_DEFAULT;
	o->ctrl_bytes = IBF_SIM_CTRL_BYTES_DEFAULT;
	o->ctrl_lane = true;
}

double ibf_sim_link_gbps(const ibf_port_t *p)
{
	double lane = ibf_speed_lane_gbps((ibf_speed_t)p->speed);
	double enc;

	if (!p->width || !p->speed || lane <= 0)
		return 32.0;
	/* 8b/10b up to QDR, 64b/66b from FDR10 on */
	enc = p->speed <= IBF_SPEED_QDR ? 8.0 / 10.0 : 64.0 / 66.0;
	return p->width * lane * enc;
}

/* The most data VLs a run may spread over: max_vls, one VL left for the
 * control lane. */
static unsigned spread_max(const ibf_sim_opts_t *o)
{
	unsigned lim = IBF_SIM_MAX_VLS - o->ctrl_lane;

	return o->max_vls < lim ? o->max_vls : lim;
}

static ibf_status_t check_opts(const ibf_sim_opts_t *o, ibf_err_t *err)
{
	if (o->mtu < 256 || o->mtu > 4096)
		return ibf_err_set(err, IBF_ERR_RANGE, "MTU %u outside "
				   "256..4096", o->mtu);
	if (o->buffer < o->mtu + IBF_SIM_HEADER)
		return ibf_err_set(err, IBF_ERR_RANGE, "buffer of %u bytes "
				   "cannot hold one packet (MTU %u + %u "
				   "header bytes)", o->buffer, o->mtu,
				   IBF_SIM_HEADER);
	if (!(o->rate_gbps >= 0) || !isfinite(o->rate_gbps) ||
	    !(o->latency_ns >= 0) || !isfinite(o->latency_ns))
		return ibf_err_set(err, IBF_ERR_RANGE, "rate and latency must "
				   "be finite and >= 0");
	if (o->vl_spread == 1 || o->vl_spread > spread_max(o))
		return ibf_err_set(err, IBF_ERR_RANGE, "VL spread %u outside "
				   "2..%u (the data VLs simulated)",
				   o->vl_spread, spread_max(o));
	if (o->ctrl_bytes > o->mtu)
		return ibf_err_set(err, IBF_ERR_RANGE, "control messages of "
				   "%u bytes exceed the MTU", o->ctrl_bytes);
	return IBF_OK;
}

/* Data VLs as the SLs need them (SL2VL: SL mod that count); the control
 * lane's VL comes after them, added by sim_alloc_buffers() when some
 * control message uses it. */
static void count_vls(ibf_sim_t *s, const ibf_sim_opts_t *o)
{
	unsigned n = o->sls && o->sls->nsls ? o->sls->nsls : 1;
	unsigned max = o->max_vls ? o->max_vls : 1;

	if (max > IBF_SIM_MAX_VLS - o->ctrl_lane)
		max = IBF_SIM_MAX_VLS - o->ctrl_lane;
	s->data_vls = o->vl_spread ? o->vl_spread : n < max ? n : max;
	s->ctrl_vl = s->data_vls;
	s->nvl = s->data_vls;
}

static bool has_control(const ibf_sim_t *s)
{
	uint32_t m;

	for (m = 0; m < s->nmsg; m++)
		if (s->msg[m].kind == IBF_SIM_CONTROL)
			return true;
	return false;
}

/* The bitmaps of the heads that want each switch output: as many bits
 * per output as its switch has (input, VL) buffers. */
static ibf_status_t alloc_want_bits(ibf_sim_t *s, ibf_err_t *err)
{
	const ibf_fabric_t *f = s->fabric;
	size_t p, words = 0;

	s->want_off = calloc(f->nports ? f->nports : 1, sizeof(uint32_t));
	s->cand_base = calloc(f->nports ? f->nports : 1, sizeof(uint32_t));
	if (!s->want_off || !s->cand_base)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (p = 0; p < f->nports; p++) {
		const ibf_node_t *n = &f->nodes[f->ports[p].node];

		s->cand_base[p] = (n->first_port + 1) * s->nvl;
		if (n->type != IBF_NODE_SWITCH)
			continue;
		s->want_off[p] = (uint32_t)words;
		words += ((size_t)n->nports * s->nvl + 63) / 64;
		if (words > UINT32_MAX)
			return ibf_err_set(err, IBF_ERR_RANGE,
					   "fabric too large to simulate");
	}
	s->want_bits = calloc(words ? words : 1, sizeof(uint64_t));
	if (!s->want_bits)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	return IBF_OK;
}

ibf_status_t sim_alloc_buffers(ibf_sim_t *s, ibf_err_t *err)
{
	size_t p, v, nb;

	if (s->o.ctrl_lane && has_control(s)) {
		s->nvl = s->data_vls + 1;
		s->o.vl_high |= (uint16_t)(1u << s->ctrl_vl);
	}
	nb = (size_t)s->fabric->nports * s->nvl;
	s->credits = malloc(nb * sizeof(int32_t));
	s->buf_head = malloc(nb * sizeof(uint32_t));
	s->buf_tail = malloc(nb * sizeof(uint32_t));
	if (!s->credits || !s->buf_head || !s->buf_tail)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (p = 0; p < s->fabric->nports; p++)
		for (v = 0; v < s->nvl; v++) {
			s->credits[p * s->nvl + v] =
				s->fabric->ports[p].peer == IBF_NO_ID ? 0 :
				(int32_t)s->max_blocks;
			s->buf_head[p * s->nvl + v] = SIM_NONE;
			s->buf_tail[p * s->nvl + v] = SIM_NONE;
		}
	if (s->o.vl_spread) {
		s->vl_bytes = calloc(nb ? nb : 1, sizeof(uint64_t));
		if (!s->vl_bytes)
			return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	return alloc_want_bits(s, err);
}

/* The VL of message m's packets to dlid. */
unsigned sim_vl(const ibf_sim_t *s, const sim_msg_t *m, unsigned dlid)
{
	if (s->o.ctrl_lane && m->kind == IBF_SIM_CONTROL)
		return s->ctrl_vl;
	if (s->o.vl_spread)
		return 0;   /* the HCA's VL; switches pick the next ones */
	return ibf_sls_get(s->o.sls, m->src, dlid) % s->data_vls;
}

static ibf_status_t alloc_ports(ibf_sim_t *s, ibf_err_t *err)
{
	size_t n = s->fabric->nports, nhosts = s->fabric->nendpoints;

	if (IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(s->port, n),
			   IBF_CALLOC_ARRAY(s->ps_per_byte, n),
			   IBF_CALLOC_ARRAY(s->busy, n),
			   IBF_CALLOC_ARRAY(s->in_busy, n),
			   IBF_CALLOC_ARRAY(s->cur_pkt, n),
			   IBF_CALLOC_ARRAY(s->cur_in, n),
			   IBF_CALLOC_ARRAY(s->cur_in_vl, n),
			   IBF_CALLOC_ARRAY(s->rr, n),
			   IBF_CALLOC_ARRAY(s->nwant, n),
			   IBF_CALLOC_ARRAY(s->nwant_high, n),
			   IBF_CALLOC_ARRAY(s->arb_mark, n),
			   IBF_CALLOC_ARRAY(s->nhigh, n),
			   IBF_CALLOC_ARRAY(s->held_vls, n),
			   IBF_CALLOC_ARRAY(s->arb_list, n),
			   IBF_CALLOC_ARRAY(s->link_bytes, n),
			   IBF_CALLOC_ARRAY(s->busy_ps, n),
			   IBF_CALLOC_ARRAY(s->blocked_ps, n),
			   IBF_CALLOC_ARRAY(s->blocked_since, n),
			   IBF_CALLOC_ARRAY(s->host, nhosts ? nhosts : 1)))
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	return IBF_OK;
}

static void init_port(ibf_sim_t *s, ibf_port_id_t p)
{
	const ibf_fabric_t *f = s->fabric;
	const ibf_port_t *fp = &f->ports[p];
	const ibf_node_t *n = &f->nodes[fp->node];
	sim_port_t *sp = &s->port[p];

	sp->peer = fp->peer;
	sp->first_port = n->first_port;
	sp->nports = n->nports;
	sp->sw = n->type == IBF_NODE_SWITCH ? f->switch_index[fp->node] :
		 SIM_NONE;
	sp->peer_switch = fp->peer != IBF_NO_ID &&
			  f->nodes[f->ports[fp->peer].node].type ==
			  IBF_NODE_SWITCH;
}

static void init_ports(ibf_sim_t *s)
{
	const ibf_fabric_t *f = s->fabric;
	uint32_t p, e;

	for (p = 0; p < f->nports; p++) {
		double gbps = s->o.rate_gbps > 0 ? s->o.rate_gbps :
			      ibf_sim_link_gbps(&f->ports[p]);

		s->ps_per_byte[p] = 8000.0 / gbps;
		s->blocked_since[p] = -1;
		init_port(s, p);
	}
	for (e = 0; e < f->nendpoints; e++)
		s->host[e].pend_head = s->host[e].pend_tail = SIM_NONE;
}

ibf_status_t ibf_sim_create(const ibf_lfts_t *l, const ibf_sim_opts_t *o,
			    ibf_sim_t **out, ibf_err_t *err)
{
	ibf_sim_t *s;
	ibf_status_t st;

	*out = NULL;
	st = check_opts(o, err);
	if (st != IBF_OK)
		return st;
	s = calloc(1, sizeof(*s));
	if (!s)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	s->fabric = l->fabric;
	s->lfts = l;
	s->o = *o;
	count_vls(s, o);
	s->max_blocks = o->buffer / IBF_SIM_BLOCK;
	s->full_blocks = (o->mtu + IBF_SIM_HEADER + IBF_SIM_BLOCK - 1) /
			 IBF_SIM_BLOCK;
	s->lat_ps = llround(o->latency_ns * 1000.0);
	s->first_done_ps = -1;
	s->pkt_free = SIM_NONE;
	st = alloc_ports(s, err);
	if (st == IBF_OK && sim_evq_init(&s->evq))
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	if (st != IBF_OK) {
		ibf_sim_destroy(s);
		return st;
	}
	init_ports(s);
	*out = s;
	return IBF_OK;
}

void ibf_sim_destroy(ibf_sim_t *s)
{
	uint32_t e;

	if (!s)
		return;
	for (e = 0; s->host && e < s->fabric->nendpoints; e++) {
		free(s->host[e].active);
		free(s->host[e].active_vl);
	}
	free(s->host);
	free(s->port);
	free(s->ps_per_byte);
	free(s->busy);
	free(s->in_busy);
	free(s->cur_pkt);
	free(s->cur_in);
	free(s->cur_in_vl);
	free(s->rr);
	free(s->nwant);
	free(s->nwant_high);
	free(s->want_bits);
	free(s->want_off);
	free(s->cand_base);
	free(s->arb_mark);
	free(s->nhigh);
	free(s->held_vls);
	free(s->arb_list);
	free(s->credits);
	free(s->buf_head);
	free(s->buf_tail);
	free(s->link_bytes);
	free(s->vl_bytes);
	free(s->busy_ps);
	free(s->blocked_ps);
	free(s->blocked_since);
	free(s->msg);
	free(s->dep);
	free(s->succ_off);
	free(s->succ);
	free(s->edep);
	free(s->esucc_off);
	free(s->esucc);
	free(s->pkt);
	free(s->stack);
	sim_evq_free(&s->evq);
	free(s);
}

uint32_t ibf_sim_nmsgs(const ibf_sim_t *s)
{
	return s->nmsg;
}

static bool is_host(const ibf_fabric_t *f, ibf_port_id_t p)
{
	return p < f->nports && f->endpoint_index[p] < f->nendpoints &&
	       f->endpoints[f->endpoint_index[p]] == p;
}

/* Trace every DLID the message's packets will use. */
static ibf_status_t check_route(const ibf_sim_t *s, const sim_msg_t *m,
				ibf_err_t *err)
{
	const ibf_fabric_t *f = s->fabric;
	unsigned off, nhops;
	ibf_trace_result_t r;
	char a[128], b[128];

	for (off = 0; off <= m->lid_mask; off++) {
		r = ibf_trace(s->lfts, m->src, m->base_lid + off, NULL, 0,
			      &nhops);
		if (r != IBF_TRACE_OK || nhops > MAX_PATH)
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "message %s -> %s (DLID %u): "
					   "route broken: %s after %u hops",
					   ibf_port_host_name(f, m->src, a,
							      sizeof(a)),
					   ibf_port_host_name(f, m->dst, b,
							      sizeof(b)),
					   m->base_lid + off,
					   r == IBF_TRACE_OK ? "path too long"
					   : ibf_trace_result_str(r), nhops);
	}
	return IBF_OK;
}

static void fill_msg(const ibf_sim_t *s, sim_msg_t *m, ibf_port_id_t src,
		     ibf_port_id_t dst, uint64_t bytes, ibf_sim_kind_t kind,
		     double start_s)
{
	const ibf_port_t *d = &s->fabric->ports[dst];

	memset(m, 0, sizeof(*m));
	m->src = src;
	m->dst = dst;
	m->bytes = bytes;
	m->kind = src == dst ? IBF_SIM_LOCAL : (uint8_t)kind;
	m->npkts = sim_is_local(m) ? 0 :
		   bytes ? (uint32_t)((bytes + s->o.mtu - 1) / s->o.mtu) : 1;
	m->base_lid = (uint16_t)d->lid;
	m->lid_mask = s->o.lmc_spread ? (uint8_t)((1u << d->lmc) - 1) : 0;
	m->next_pending = SIM_NONE;
	m->vl = (uint8_t)sim_vl(s, m, m->base_lid);
	m->start_ps = llround(start_s * 1e12);
	m->ready_ps = m->first_ps = m->end_ps = -1;
}

ibf_status_t ibf_sim_add_msg(ibf_sim_t *s, ibf_port_id_t src,
			     ibf_port_id_t dst, uint64_t bytes,
			     ibf_sim_kind_t kind, double start_s,
			     uint32_t *id, ibf_err_t *err)
{
	sim_msg_t *m;
	sim_msg_t tmp;
	ibf_status_t st;

	if (s->ran)
		return ibf_err_set(err, IBF_ERR_INVALID, "simulation already "
				   "run");
	if (!is_host(s->fabric, src) || !is_host(s->fabric, dst))
		return ibf_err_set(err, IBF_ERR_NOT_FOUND, "message %u: port "
				   "%u or %u is not a connected host port",
				   s->nmsg, src, dst);
	if (!(start_s >= 0) || start_s > 1e6 ||
	    bytes > ((uint64_t)1 << 40) || s->nmsg == SIM_NONE - 1 ||
	    bytes / s->o.mtu >= UINT32_MAX - 1)
		return ibf_err_set(err, IBF_ERR_RANGE, "message %u: start "
				   "time, size or count out of range", s->nmsg);
	fill_msg(s, &tmp, src, dst, bytes, kind, start_s);
	if (!sim_is_local(&tmp)) {
		st = check_route(s, &tmp, err);
		if (st != IBF_OK)
			return st;
	}
	m = ibf_array_grow32(s->msg, &s->msg_cap, (uint64_t)s->nmsg + 1,
			     sizeof(*m));
	if (!m)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	s->msg = m;
	s->msg[s->nmsg] = tmp;
	if (id)
		*id = s->nmsg;
	s->nmsg++;
	return IBF_OK;
}

/* Append (before, after) to a list of dependencies. */
static ibf_status_t dep_push(const ibf_sim_t *s, uint32_t (**list)[2],
			     size_t *n, size_t *cap, uint32_t before,
			     uint32_t after, ibf_err_t *err)
{
	uint32_t (*d)[2];

	if (before >= s->nmsg || after >= s->nmsg || before == after)
		return ibf_err_set(err, IBF_ERR_INVALID, "dependency %u -> %u: "
				   "no such pair of messages", before, after);
	d = ibf_array_grow(*list, cap, *n + 1, sizeof(*d));
	if (!d)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	*list = d;
	d[*n][0] = before;
	d[*n][1] = after;
	(*n)++;
	return IBF_OK;
}

ibf_status_t ibf_sim_add_dep(ibf_sim_t *s, uint32_t before, uint32_t after,
			     ibf_err_t *err)
{
	return dep_push(s, &s->dep, &s->ndep, &s->dep_cap, before, after,
			err);
}

ibf_status_t ibf_sim_add_dep_early(ibf_sim_t *s, uint32_t before,
				   uint32_t after, uint64_t left,
				   ibf_err_t *err)
{
	ibf_status_t st = dep_push(s, &s->edep, &s->nedep, &s->edep_cap,
				   before, after, err);
	sim_msg_t *m;
	uint64_t keep;

	if (st != IBF_OK)
		return st;
	m = &s->msg[before];
	keep = (left + s->o.mtu - 1) / s->o.mtu;
	m->early_at = m->npkts ? (keep < m->npkts ? m->npkts -
						    (uint32_t)keep : 1) : 0;
	return IBF_OK;
}

void ibf_sim_result_free(ibf_sim_result_t *r)
{
	if (!r)
		return;
	free(r->cycle);
	free(r->msg);
	free(r->link);
	memset(r, 0, sizeof(*r));
}
