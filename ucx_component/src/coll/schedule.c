/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The liquid schedule of a context's all-to-all: the one adapter between
 * libibflow_ucx and libibflow's scheduler (ibflow/liquid.h).
 *
 * Transfers are the ordered pairs (i, j), i != j, of ranks, numbered
 * i * (size - 1) + (j < i ? j : j - 1).  Their links: the route's egress
 * ports from ibf_ucx_route(), plus "rank i sends" and "rank j receives"
 * links that keep several processes of one host (which share a route, or
 * have none) to one block each way per frame.
 *
 * The scheduler's search stops at a time limit, so two processes could
 * find different schedules; rank 0 therefore computes it alone and
 * broadcasts the frame of every transfer.  Where every rank has a host
 * of its own and routes go to base LIDs, rank 0 uses the all-to-all
 * planner (ibf_liquid_plan_alltoall: the same frames within one, a
 * fraction of the CPU at hundreds of ranks, no link sets stored); every
 * rank then builds the traffic itself for its predecessor lists.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <ibflow/liquid.h>

#include "coll/a2a_internal.h"

#define SCHED_TIME_LIMIT 2.0   /* seconds: then the best schedule found */
#define ROUTE_MAX 64

static uint32_t tr_index(uint32_t n, uint32_t i, uint32_t j)
{
	return i * (n - 1) + (j < i ? j : j - 1);
}

/* The traffic of all ordered rank pairs, links as described above. */
static ibf_ucx_status_t build_traffic(const ibf_ucx_t *u,
				      ibf_liquid_traffic_t **out,
				      ibf_ucx_err_t *err)
{
	uint32_t n = u->size, nt = n * (n - 1), i, j, k, t = 0;
	uint32_t *off, *links, *src, *dst;
	ibf_port_id_t route[ROUTE_MAX];
	size_t cap = (size_t)nt * 8 + 1, len = 0;
	ibf_ucx_status_t st = IBF_UCX_OK;
	ibf_err_t e;
	unsigned m;

	off = malloc(((size_t)nt + 1) * sizeof(*off));
	links = malloc(cap * sizeof(*links));
	src = malloc(((size_t)nt + 1) * sizeof(*src));
	dst = malloc(((size_t)nt + 1) * sizeof(*dst));
	if (!off || !links || !src || !dst) {
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "all-to-all "
				     "schedule: out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			m = 0;
			if (u->aware) {
				st = ibf_ucx_route(u, i, j, route, ROUTE_MAX,
						   &m, err);
				if (st != IBF_UCX_OK)
					goto out;
			}
			if (len + m + 2 > cap) {
				uint32_t *nl;

				cap = 2 * (len + m + 2);
				nl = realloc(links, cap * sizeof(*links));
				if (!nl) {
					st = ibf_ucx_err_set(err,
						IBF_UCX_ERR_NOMEM, "all-to-all"
						" schedule: out of memory");
					goto out;
				}
				links = nl;
			}
			off[t] = (uint32_t)len;
			links[len++] = 2 * i;        /* i sends */
			links[len++] = 2 * j + 1;    /* j receives */
			for (k = 0; k < m; k++)
				links[len++] = 2 * n + route[k];
			src[t] = i;
			dst[t] = j;
			t++;
		}
	}
	off[t] = (uint32_t)len;
	if (ibf_liquid_traffic_from_sets(nt, off, links, n, src, dst, out,
					 &e) != IBF_OK)
		st = ibf_ucxi_err_lib(err, IBF_UCX_ERR_NOMEM, &e,
				      "all-to-all schedule");
out:
	free(off);
	free(links);
	free(src);
	free(dst);
	return st;
}

/* Rank 0: the frame of every transfer, after a header of HDR words
 * (nframes, duration, liquid, microseconds, round robin's frames). */
#define HDR 5

static ibf_ucx_status_t compute(ibf_ucx_t *u, ibf_liquid_traffic_t *t,
				uint32_t **blob, size_t *len,
				ibf_ucx_err_t *err)
{
	ibf_liquid_opts_t o = { .time_limit = SCHED_TIME_LIMIT };
	ibf_liquid_result_t r;
	ibf_ucx_status_t st = IBF_UCX_OK;
	uint32_t nt = u->size * (u->size - 1), *b;
	ibf_err_t e;

	memset(&r, 0, sizeof(r));
	if (ibf_liquid_schedule(t, &o, &r, &e) != IBF_OK)
		return ibf_ucxi_err_lib(err, IBF_UCX_ERR_FABRIC, &e,
					"all-to-all schedule");
	b = malloc(((size_t)nt + HDR) * sizeof(*b));
	if (!b) {
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "all-to-all "
				     "schedule: out of memory");
	} else {
		b[0] = r.nframes;
		b[1] = r.duration;
		b[2] = r.liquid;
		b[3] = (uint32_t)(r.seconds * 1e6);
		b[4] = r.rr_frames;
		memcpy(b + HDR, r.frame_of, (size_t)nt * sizeof(*b));
		*blob = b;
		*len = ((size_t)nt + HDR) * sizeof(*b);
	}
	ibf_liquid_result_free(&r);
	return st;
}

/* This process's peers per frame from the broadcast frames. */
static ibf_ucx_status_t unpack(const ibf_ucx_t *u, const uint32_t *b,
			       size_t len, ibf_ucxi_a2a_sched_t *s,
			       ibf_ucx_err_t *err)
{
	uint32_t n = u->size, me = u->rank, p, f;
	size_t nt = (size_t)n * (n - 1);

	if (len != (nt + HDR) * sizeof(*b) || b[0] < (n > 1 ? 1 : 0))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "all-to-all "
				       "schedule from rank 0: malformed");
	s->nframes = b[0];
	s->duration = b[1];
	s->liquid = b[2];
	s->seconds = b[3] / 1e6;
	s->rr_frames = b[4];
	s->send_to = malloc(((size_t)s->nframes + 1) * sizeof(uint32_t));
	s->recv_from = malloc(((size_t)s->nframes + 1) * sizeof(uint32_t));
	if (!s->send_to || !s->recv_from) {
		ibf_ucxi_a2a_sched_free(s);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "all-to-all "
				       "schedule: out of memory");
	}
	for (f = 0; f < s->nframes; f++)
		s->send_to[f] = s->recv_from[f] = IBF_UCXI_NOPEER;
	for (p = 0; p < n; p++) {
		uint32_t fs, fr;

		if (p == me)
			continue;
		fs = b[HDR + tr_index(n, me, p)];
		fr = b[HDR + tr_index(n, p, me)];
		if (fs >= s->nframes || fr >= s->nframes ||
		    s->send_to[fs] != IBF_UCXI_NOPEER ||
		    s->recv_from[fr] != IBF_UCXI_NOPEER) {
			ibf_ucxi_a2a_sched_free(s);
			return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER,
					       "all-to-all schedule: rank %u "
					       "has two sends or receives in "
					       "one frame", me);
		}
		s->send_to[fs] = p;
		s->recv_from[fr] = p;
	}
	return IBF_UCX_OK;
}

/* One relation of the predecessor lists (this call's, or the next
 * call's) as this process needs it. */
typedef struct my_rel {
	const uint32_t *pred_off, *pred, *succ_off, *succ;
	bool cross;
	uint32_t *need, *off, *rank, *frame, *in_from, *nin;
} my_rel_t;

/* Sizes: releases this process sends and receives. */
static void rel_count(const ibf_ucx_t *u, const ibf_liquid_traffic_t *t,
		      const my_rel_t *m, uint32_t *nout, uint32_t *nin)
{
	uint32_t n = u->size, me = u->rank;

	*nout = *nin = 0;
	for (uint32_t p = 0; p < n; p++) {
		uint32_t in = tr_index(n, p, me), out = tr_index(n, me, p);

		if (p == me)
			continue;
		*nout += m->succ_off[in + 1] - m->succ_off[in];
		for (uint32_t k = m->pred_off[out]; k < m->pred_off[out + 1];
		     k++)
			*nin += t->dst[m->pred[k]] != me;
	}
}

/* A cross-call release of this process's own arrival is implied: the
 * call it belongs to has ended here before the next one starts. */
static void rel_fill(const ibf_ucx_t *u, const ibf_liquid_traffic_t *t,
		     const uint32_t *frame_of, const ibf_ucxi_a2a_sched_t *s,
		     const my_rel_t *m)
{
	uint32_t n = u->size, me = u->rank, x = 0;

	*m->nin = 0;
	for (uint32_t f = 0; f < s->nframes; f++) {
		m->off[f] = x;
		if (s->recv_from[f] != IBF_UCXI_NOPEER) {
			uint32_t tr = tr_index(n, s->recv_from[f], me);

			for (uint32_t k = m->succ_off[tr];
			     k < m->succ_off[tr + 1]; k++) {
				if (m->cross && t->src[m->succ[k]] == me)
					continue;
				m->rank[x] = t->src[m->succ[k]];
				m->frame[x++] = frame_of[m->succ[k]];
			}
		}
		if (s->send_to[f] != IBF_UCXI_NOPEER) {
			uint32_t tr = tr_index(n, me, s->send_to[f]);

			for (uint32_t k = m->pred_off[tr];
			     k < m->pred_off[tr + 1]; k++) {
				uint32_t from = t->dst[m->pred[k]];

				if (from != me)
					m->in_from[(*m->nin)++] = from;
				if (from != me || !m->cross)
					m->need[f]++;
			}
		}
	}
	m->off[s->nframes] = x;
}

static ibf_ucx_status_t rel_alloc(const ibf_ucx_t *u,
				  const ibf_liquid_traffic_t *t,
				  const uint32_t *frame_of,
				  const ibf_ucxi_a2a_sched_t *s, my_rel_t *m,
				  uint32_t **need, uint32_t **off,
				  uint32_t **rank, uint32_t **frame,
				  uint32_t **in_from, ibf_ucx_err_t *err)
{
	uint32_t nout, nin;

	rel_count(u, t, m, &nout, &nin);
	*need = calloc((size_t)s->nframes + 1, sizeof(uint32_t));
	*off = malloc(((size_t)s->nframes + 1) * sizeof(uint32_t));
	*rank = malloc(((size_t)nout + 1) * sizeof(uint32_t));
	*frame = malloc(((size_t)nout + 1) * sizeof(uint32_t));
	*in_from = malloc(((size_t)nin + 1) * sizeof(uint32_t));
	if (!*need || !*off || !*rank || !*frame || !*in_from)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "all-to-all "
				       "schedule: out of memory");
	m->need = *need;
	m->off = *off;
	m->rank = *rank;
	m->frame = *frame;
	m->in_from = *in_from;
	rel_fill(u, t, frame_of, s, m);
	return IBF_UCX_OK;
}

/* This process's part of the predecessor lists: what its sends wait for
 * and whom its arrivals release, in this call and for the next one. */
static ibf_ucx_status_t my_releases(const ibf_ucx_t *u,
				    const ibf_liquid_traffic_t *t,
				    const uint32_t *frame_of,
				    ibf_ucxi_a2a_sched_t *s,
				    ibf_ucx_err_t *err)
{
	ibf_liquid_deps_t d;
	ibf_ucx_status_t st;
	ibf_err_t e;

	if (ibf_liquid_deps_build(t, frame_of, s->nframes, &d, &e) != IBF_OK)
		return ibf_ucxi_err_lib(err, IBF_UCX_ERR_PEER, &e,
					"all-to-all schedule");
	{
		my_rel_t now = { d.pred_off, d.pred, d.succ_off, d.succ,
				 false, .nin = &s->nrel_in };
		my_rel_t next = { d.xpred_off, d.xpred, d.xsucc_off, d.xsucc,
				  true, .nin = &s->nxrel_in };

		st = rel_alloc(u, t, frame_of, s, &now, &s->send_need,
			       &s->rel_off, &s->rel_rank, &s->rel_frame,
			       &s->rel_in_from, err);
		if (st == IBF_UCX_OK)
			st = rel_alloc(u, t, frame_of, s, &next,
				       &s->xsend_need, &s->xrel_off,
				       &s->xrel_rank, &s->xrel_frame,
				       &s->xrel_in_from, err);
	}
	ibf_liquid_deps_free(&d);
	return st;
}

/* The planner's conditions: one rank per host (its send and receive
 * links are the host's), routes to base LIDs (it traces those). */
static bool plan_applies(const ibf_ucx_t *u)
{
	uint8_t *seen;
	bool ok = u->aware && u->fab.lfts && !u->cfg->v.lid_offset;

	if (!ok || !(seen = calloc(u->nhosts + 1, 1)))
		return false;
	for (uint32_t i = 0; ok && i < u->size; i++) {
		ok = u->rank_host[i] < u->nhosts && !seen[u->rank_host[i]];
		if (ok)
			seen[u->rank_host[i]] = 1;
	}
	free(seen);
	return ok;
}

static ibf_ucx_status_t compute_plan(ibf_ucx_t *u, uint32_t **blob,
				     size_t *len, ibf_ucx_err_t *err)
{
	ibf_liquid_opts_t o = { .time_limit = SCHED_TIME_LIMIT };
	const ibf_liquid_plan_info_t *info;
	ibf_liquid_plan_t *p = NULL;
	uint32_t n = u->size, *b = NULL;
	size_t nt = (size_t)n * (n - 1);
	ibf_port_id_t *ranks = malloc(((size_t)n + 1) * sizeof(*ranks));
	ibf_err_t e;

	if (!ranks || !(b = malloc((nt + HDR) * sizeof(*b)))) {
		free(ranks);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "all-to-all "
				       "schedule: out of memory");
	}
	for (uint32_t i = 0; i < n; i++)
		ranks[i] = u->hosts.ports[u->rank_host[i]];
	if (ibf_liquid_plan_alltoall(u->fab.lfts, ranks, n, &o, &p, &e) !=
	    IBF_OK) {
		free(ranks);
		free(b);
		return ibf_ucxi_err_lib(err, IBF_UCX_ERR_FABRIC, &e,
					"all-to-all schedule");
	}
	info = ibf_liquid_plan_info(p);
	b[0] = info->nframes;
	b[1] = info->duration;
	b[2] = info->liquid;
	b[3] = (uint32_t)(info->seconds * 1e6);
	b[4] = info->rr_frames;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			if (i != j)
				b[HDR + tr_index(n, i, j)] =
					ibf_liquid_plan_frame(p, i, j);
	ibf_liquid_plan_destroy(p);
	free(ranks);
	*blob = b;
	*len = (nt + HDR) * sizeof(*b);
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_a2a_schedule(ibf_ucx_t *u,
				       ibf_ucxi_a2a_sched_t *s,
				       ibf_ucx_err_t *err)
{
	uint32_t *blob = NULL, fail[HDR] = { 0 };
	ibf_liquid_traffic_t *t = NULL;
	size_t len = 0;
	ibf_ucx_status_t st = IBF_UCX_OK, bst;
	void *buf;

	memset(s, 0, sizeof(*s));
	if (u->rank == 0 && plan_applies(u)) {
		st = compute_plan(u, &blob, &len, err);
	} else if (u->rank == 0) {
		st = build_traffic(u, &t, err);
		if (st == IBF_UCX_OK)
			st = compute(u, t, &blob, &len, err);
	}
	if (u->rank == 0) {
		if (st != IBF_UCX_OK) {
			/* the reason stays; the status tells the caller
			 * that nothing was sent */
			st = IBF_UCX_ERR_SCHEDULE;
			if (err)
				err->status = st;
			/* nframes 0 tells the others rank 0 failed */
			blob = malloc(sizeof(fail));
			if (blob)
				memcpy(blob, fail, sizeof(fail));
			len = blob ? sizeof(fail) : 0;
		}
	}
	buf = blob;
	bst = ibf_ucxi_bcast_blob(u, 0, &buf, &len, err);
	if (st == IBF_UCX_OK)
		st = bst;
	if (st == IBF_UCX_OK && u->size > 1 && len == sizeof(fail))
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_SCHEDULE, "all-to-all "
				     "schedule: rank 0 failed to compute it");
	else if (st == IBF_UCX_OK)
		st = unpack(u, buf, len, s, err);
	/* the same traffic on every rank: routes are the job's, not the
	 * process's */
	if (st == IBF_UCX_OK && !t)
		st = build_traffic(u, &t, err);
	if (st == IBF_UCX_OK)
		st = my_releases(u, t, (const uint32_t *)buf + HDR, s, err);
	if (st != IBF_UCX_OK)
		ibf_ucxi_a2a_sched_free(s);
	ibf_liquid_traffic_destroy(t);
	free(buf);
	return st;
}

void ibf_ucxi_a2a_sched_free(ibf_ucxi_a2a_sched_t *s)
{
	free(s->send_to);
	free(s->recv_from);
	free(s->send_need);
	free(s->rel_off);
	free(s->rel_rank);
	free(s->rel_frame);
	free(s->rel_in_from);
	free(s->xsend_need);
	free(s->xrel_off);
	free(s->xrel_rank);
	free(s->xrel_frame);
	free(s->xrel_in_from);
	s->send_to = s->recv_from = s->send_need = s->rel_off = NULL;
	s->rel_rank = s->rel_frame = s->rel_in_from = NULL;
	s->xsend_need = s->xrel_off = s->xrel_rank = s->xrel_frame = NULL;
	s->xrel_in_from = NULL;
}
