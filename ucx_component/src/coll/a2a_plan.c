/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The liquid schedule of a context's all-to-all, as its planner computes
 * it, and each rank's part of it: the one adapter between libibflow_ucx
 * and libibflow's scheduler (ibflow/liquid.h).  Nothing here talks to
 * another process (schedule.c does).
 *
 * Transfers are the ordered pairs (i, j), i != j, of ranks, numbered
 * i * (size - 1) + (j < i ? j : j - 1).  Their links: the route's egress
 * ports from ibf_ucx_route(), plus "rank i sends" and "rank j receives"
 * links that keep several processes of one host (which share a route, or
 * have none) to one block each way per frame.
 *
 * The scheduler's search stops at a time limit, so two processes could
 * find different schedules; one process (the planner) therefore computes
 * it, and with it the predecessor lists, once.  Where every rank has a
 * host of its own and routes go to base LIDs, it uses the all-to-all
 * planner (ibf_liquid_plan_alltoall: the same frames within one, a
 * fraction of the CPU at hundreds of ranks).  Each rank then gets only
 * its slice: the frames of its sends and receives, how many releases
 * each send waits for, whom each arrival releases, whose releases it
 * receives; O(size) words, where the whole traffic is O(size^2).
 *
 * Every failure to plan is the verdict IBF_UCX_ERR_SCHEDULE with the
 * reason (too many transfers, memory refused, a route that cannot be
 * traced, the scheduler's error): the callers then use their own
 * algorithm, never fail.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/liquid.h>

#include "coll/a2a_internal.h"

#define SCHED_TIME_LIMIT 2.0   /* seconds: then the best schedule found */
#define ROUTE_MAX 64

/* The planner's own limit: the traffic's link sets are 32-bit indexed
 * and it holds them whole (about 40 bytes a transfer with the
 * predecessor lists); 16,384 ranks fit. */
#define PLAN_MAX_TRANSFERS (1ull << 28)

static uint32_t tr_index(uint32_t n, uint32_t i, uint32_t j)
{
	return i * (n - 1) + (j < i ? j : j - 1);
}

static void refuse(ibf_ucxi_a2a_hdr_t *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void refuse(ibf_ucxi_a2a_hdr_t *h, const char *fmt, ...)
{
	va_list ap;

	h->verdict = IBF_UCX_ERR_SCHEDULE;
	va_start(ap, fmt);
	vsnprintf(h->why, sizeof(h->why), fmt, ap);
	va_end(ap);
}

static void refuse_err(ibf_ucxi_a2a_hdr_t *h, const ibf_ucx_err_t *e)
{
	refuse(h, "%s", e->msg);
}

static void refuse_lib(ibf_ucxi_a2a_hdr_t *h, const ibf_err_t *e)
{
	refuse(h, "all-to-all schedule: %s", e->msg);
}

static void refuse_nomem(ibf_ucxi_a2a_hdr_t *h, const char *what)
{
	refuse(h, "all-to-all schedule: memory refused (%s)", what);
}

/* ---- the planner -------------------------------------------------------- */

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
				     "schedule: memory refused (the traffic "
				     "of %u transfers)", nt);
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
			if (len + m + 2 > cap || len + m + 2 > UINT32_MAX) {
				uint32_t *nl = NULL;

				cap = 2 * (len + m + 2);
				if (cap <= UINT32_MAX)
					nl = realloc(links,
						     cap * sizeof(*links));
				if (!nl) {
					st = ibf_ucx_err_set(err,
						IBF_UCX_ERR_NOMEM, "all-to-all"
						" schedule: memory refused ("
						"the traffic's link sets)");
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

/* The frames: frame_of[transfer], and the header's figures. */
typedef struct planned {
	ibf_liquid_traffic_t *t;
	uint32_t *frame_of;
	ibf_liquid_deps_t d;
	bool have_deps;
} planned_t;

static bool frames_by_plan(const ibf_ucx_t *u, planned_t *pl,
			   ibf_ucxi_a2a_hdr_t *h)
{
	ibf_liquid_opts_t o = { .time_limit = SCHED_TIME_LIMIT };
	const ibf_liquid_plan_info_t *info;
	ibf_liquid_plan_t *p = NULL;
	uint32_t n = u->size;
	size_t nt = (size_t)n * (n - 1);
	ibf_port_id_t *ranks = malloc(((size_t)n + 1) * sizeof(*ranks));
	ibf_err_t e;

	pl->frame_of = malloc((nt + 1) * sizeof(uint32_t));
	if (!ranks || !pl->frame_of) {
		free(ranks);
		refuse_nomem(h, "the frames");
		return false;
	}
	for (uint32_t i = 0; i < n; i++)
		ranks[i] = u->hosts.ports[u->rank_host[i]];
	if (ibf_liquid_plan_alltoall(u->fab.lfts, ranks, n, &o, &p, &e) !=
	    IBF_OK) {
		free(ranks);
		refuse_lib(h, &e);
		return false;
	}
	info = ibf_liquid_plan_info(p);
	h->nframes = info->nframes;
	h->duration = info->duration;
	h->liquid = info->liquid;
	h->us = (uint32_t)(info->seconds * 1e6);
	h->rr_frames = info->rr_frames;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			if (i != j)
				pl->frame_of[tr_index(n, i, j)] =
					ibf_liquid_plan_frame(p, i, j);
	ibf_liquid_plan_destroy(p);
	free(ranks);
	return true;
}

static bool frames_by_schedule(const ibf_ucx_t *u, planned_t *pl,
			       ibf_ucxi_a2a_hdr_t *h)
{
	ibf_liquid_opts_t o = { .time_limit = SCHED_TIME_LIMIT };
	ibf_liquid_result_t r;
	size_t nt = (size_t)u->size * (u->size - 1);
	ibf_err_t e;

	memset(&r, 0, sizeof(r));
	if (ibf_liquid_schedule(pl->t, &o, &r, &e) != IBF_OK) {
		refuse_lib(h, &e);
		return false;
	}
	h->nframes = r.nframes;
	h->duration = r.duration;
	h->liquid = r.liquid;
	h->us = (uint32_t)(r.seconds * 1e6);
	h->rr_frames = r.rr_frames;
	pl->frame_of = malloc((nt + 1) * sizeof(uint32_t));
	if (pl->frame_of)
		memcpy(pl->frame_of, r.frame_of, nt * sizeof(uint32_t));
	ibf_liquid_result_free(&r);
	if (!pl->frame_of)
		refuse_nomem(h, "the frames");
	return pl->frame_of != NULL;
}

/* Rank me's slice (layout below) into w, or only its length (w NULL);
 * returns the words.
 *
 *   n, me, nframes
 *   sfr[n], rfr[n]     frame of the send to / receive from p (NOPEER: p
 *                      is me)
 *   need[n], xneed[n]  releases the send to p waits for: in this call,
 *                      and in the next one from other ranks
 *   roff[n + 1], rel[2 roff[n]]    arrivals from p release (rank, frame)
 *   xroff[n + 1], xrel[2 xroff[n]] the same for the next call, no self
 *   nin, in[nin]; nxin, xin[nxin]  whose releases this rank receives */
static size_t slice_fill(const planned_t *pl, uint32_t n, uint32_t me,
			 uint32_t nframes, uint32_t *w)
{
	const ibf_liquid_traffic_t *t = pl->t;
	const ibf_liquid_deps_t *d = &pl->d;
	size_t x = 3 + 4 * (size_t)n;
	uint32_t p, k;

#define PUT(i, v) do { if (w) w[i] = (v); } while (0)
	PUT(0, n);
	PUT(1, me);
	PUT(2, nframes);
	for (p = 0; p < n; p++) {
		uint32_t out = p == me ? 0 : tr_index(n, me, p);
		uint32_t in = p == me ? 0 : tr_index(n, p, me);
		uint32_t need = 0, xneed = 0;

		if (p != me) {
			need = d->pred_off[out + 1] - d->pred_off[out];
			for (k = d->xpred_off[out]; k < d->xpred_off[out + 1];
			     k++)
				xneed += t->dst[d->xpred[k]] != me;
		}
		PUT(3 + p, p == me ? IBF_UCXI_NOPEER : pl->frame_of[out]);
		PUT(3 + n + p, p == me ? IBF_UCXI_NOPEER : pl->frame_of[in]);
		PUT(3 + 2 * (size_t)n + p, need);
		PUT(3 + 3 * (size_t)n + p, xneed);
	}
	for (int cross = 0; cross < 2; cross++) {
		const uint32_t *so = cross ? d->xsucc_off : d->succ_off;
		const uint32_t *su = cross ? d->xsucc : d->succ;
		size_t base = x, e = x + n + 1, nrel = 0;

		for (p = 0; p < n; p++) {
			PUT(base + p, (uint32_t)nrel);
			if (p == me)
				continue;
			uint32_t in = tr_index(n, p, me);

			for (k = so[in]; k < so[in + 1]; k++) {
				if (cross && t->src[su[k]] == me)
					continue;
				PUT(e + 2 * nrel, t->src[su[k]]);
				PUT(e + 2 * nrel + 1, pl->frame_of[su[k]]);
				nrel++;
			}
		}
		PUT(base + n, (uint32_t)nrel);
		x = e + 2 * nrel;
	}
	for (int cross = 0; cross < 2; cross++) {
		const uint32_t *po = cross ? d->xpred_off : d->pred_off;
		const uint32_t *pr = cross ? d->xpred : d->pred;
		size_t at = x++;
		uint32_t nin = 0;

		for (p = 0; p < n; p++) {
			if (p == me)
				continue;
			uint32_t out = tr_index(n, me, p);

			for (k = po[out]; k < po[out + 1]; k++)
				if (t->dst[pr[k]] != me) {
					PUT(x, t->dst[pr[k]]);
					x++;
					nin++;
				}
		}
		PUT(at, nin);
	}
#undef PUT
	return x;
}

static bool slices(const ibf_ucx_t *u, const planned_t *pl,
		   ibf_ucxi_a2a_plan_t *p)
{
	uint32_t n = u->size;

	p->off = malloc(((size_t)n + 1) * sizeof(*p->off));
	if (!p->off) {
		refuse_nomem(&p->hdr, "the slices' offsets");
		return false;
	}
	p->off[0] = 0;
	for (uint32_t r = 0; r < n; r++)
		p->off[r + 1] = p->off[r] +
				slice_fill(pl, n, r, p->hdr.nframes, NULL);
	p->words = malloc((p->off[n] + 1) * sizeof(uint32_t));
	if (!p->words) {
		refuse_nomem(&p->hdr, "the slices");
		return false;
	}
	for (uint32_t r = 0; r < n; r++)
		slice_fill(pl, n, r, p->hdr.nframes, p->words + p->off[r]);
	return true;
}

/* auto's rule: liquid where it promises at least need_gain over round
 * robin's frames (docs/ucx-alltoall.md, "auto"). */
static bool worth_it(const ibf_ucxi_a2a_ask_t *ask, ibf_ucxi_a2a_hdr_t *h)
{
	const ibf_ucxi_a2a_hdr_t *c = h;

	if ((double)c->rr_frames >= ask->need_gain * c->nframes)
		return true;
	h->verdict = IBF_UCX_ERR_DECLINED;
	snprintf(h->why, sizeof(h->why), "all-to-all: auto: liquid %u "
		 "frames, round robin %u: gain %.2f below %.2f (%s, "
		 "%sALLTOALL_GAIN)", c->nframes, c->rr_frames,
		 c->nframes ? (double)c->rr_frames / c->nframes : 0.0,
		 ask->need_gain, ask->transport ? ask->transport : "?",
		 IBF_UCX_VAR_PREFIX);
	return false;
}

void ibf_ucxi_a2a_plan(const ibf_ucx_t *u, const ibf_ucxi_a2a_ask_t *ask,
		       ibf_ucxi_a2a_plan_t *p)
{
	uint64_t n = u->size, nt = n * (n - 1);
	uint64_t cap = ask->max_transfers && ask->max_transfers <
		       PLAN_MAX_TRANSFERS ? ask->max_transfers :
		       PLAN_MAX_TRANSFERS;
	planned_t pl = { 0 };
	ibf_ucx_err_t e;
	ibf_err_t le;
	double t0 = ibf_ucxi_now();

	memset(p, 0, sizeof(*p));
	p->size = u->size;
	p->hdr.verdict = IBF_UCX_OK;
	if (isinf(ask->need_gain)) {
		p->hdr.verdict = IBF_UCX_ERR_DECLINED;
		snprintf(p->hdr.why, sizeof(p->hdr.why), "all-to-all: auto: "
			 "over %s the MPI library's own (no schedule "
			 "computed; %sALLTOALL_GAIN=N to decide by gain)",
			 ask->transport ? ask->transport : "TCP",
			 IBF_UCX_VAR_PREFIX);
		return;
	}
	if (nt > cap) {
		refuse(&p->hdr, "all-to-all schedule: %llu ranks are %llu "
		       "transfers, more than the planner takes (%llu)",
		       (unsigned long long)n, (unsigned long long)nt,
		       (unsigned long long)cap);
		return;
	}
	if (plan_applies(u) && !frames_by_plan(u, &pl, &p->hdr))
		goto out;
	if (build_traffic(u, &pl.t, &e) != IBF_UCX_OK) {
		refuse_err(&p->hdr, &e);
		goto out;
	}
	if (!pl.frame_of && !frames_by_schedule(u, &pl, &p->hdr))
		goto out;
	if (n > 1 && p->hdr.nframes < 1) {
		refuse(&p->hdr, "all-to-all schedule: no frames");
		goto out;
	}
	if (ask->need_gain > 0 && !worth_it(ask, &p->hdr))
		goto out;
	if (ibf_liquid_deps_build(pl.t, pl.frame_of, p->hdr.nframes, &pl.d,
				  &le) != IBF_OK) {
		refuse_lib(&p->hdr, &le);
		goto out;
	}
	pl.have_deps = true;
	slices(u, &pl, p);
out:
	if (pl.have_deps)
		ibf_liquid_deps_free(&pl.d);
	ibf_liquid_traffic_destroy(pl.t);
	free(pl.frame_of);
	if (p->hdr.verdict == IBF_UCX_OK)
		p->hdr.us = (uint32_t)((ibf_ucxi_now() - t0) * 1e6);
	else
		ibf_ucxi_a2a_plan_free(p);
}

void ibf_ucxi_a2a_plan_free(ibf_ucxi_a2a_plan_t *p)
{
	free(p->off);
	free(p->words);
	p->off = NULL;
	p->words = NULL;
}

/* ---- a rank's part ------------------------------------------------------- */

/* The slice's parts, located and checked against its length. */
typedef struct slice_view {
	const uint32_t *sfr, *rfr, *need, *xneed;
	const uint32_t *roff, *rel, *xroff, *xrel;
	const uint32_t *in, *xin;
	uint32_t nin, nxin;
} slice_view_t;

static bool slice_locate(uint32_t n, const uint32_t *w, size_t len,
			 slice_view_t *v)
{
	size_t x = 3 + 4 * (size_t)n;

	if (len < x + 2 * ((size_t)n + 1) + 2)
		return false;
	v->sfr = w + 3;
	v->rfr = w + 3 + n;
	v->need = w + 3 + 2 * (size_t)n;
	v->xneed = w + 3 + 3 * (size_t)n;
	for (int cross = 0; cross < 2; cross++) {
		const uint32_t *off = w + x;

		if (x + n + 1 > len || off[n] > (len - x - n - 1) / 2)
			return false;
		*(cross ? &v->xroff : &v->roff) = off;
		*(cross ? &v->xrel : &v->rel) = off + n + 1;
		for (uint32_t p = 0; p < n; p++)
			if (off[p] > off[p + 1])
				return false;
		x += n + 1 + 2 * (size_t)off[n];
	}
	for (int cross = 0; cross < 2; cross++) {
		uint32_t m;

		if (x + 1 > len || (m = w[x]) > len - x - 1)
			return false;
		*(cross ? &v->nxin : &v->nin) = m;
		*(cross ? &v->xin : &v->in) = w + x + 1;
		x += 1 + (size_t)m;
	}
	return x == len;
}

/* Send and receive peers of each frame; every frame at most once. */
static bool slice_peers(uint32_t n, uint32_t me, const slice_view_t *v,
			ibf_ucxi_a2a_sched_t *s)
{
	for (uint32_t f = 0; f < s->nframes; f++)
		s->send_to[f] = s->recv_from[f] = IBF_UCXI_NOPEER;
	for (uint32_t p = 0; p < n; p++) {
		uint32_t fs = v->sfr[p], fr = v->rfr[p];

		if (p == me)
			continue;
		if (fs >= s->nframes || fr >= s->nframes ||
		    s->send_to[fs] != IBF_UCXI_NOPEER ||
		    s->recv_from[fr] != IBF_UCXI_NOPEER)
			return false;
		s->send_to[fs] = p;
		s->recv_from[fr] = p;
		s->send_need[fs] = v->need[p];
		s->xsend_need[fs] = v->xneed[p];
	}
	return true;
}

/* One relation's releases by arrival frame. */
static bool slice_rel(uint32_t n, const ibf_ucxi_a2a_sched_t *s,
		      const uint32_t *roff, const uint32_t *rel,
		      uint32_t *off, uint32_t *rank, uint32_t *frame)
{
	uint32_t x = 0;

	for (uint32_t f = 0; f < s->nframes; f++) {
		uint32_t p = s->recv_from[f];

		off[f] = x;
		if (p == IBF_UCXI_NOPEER)
			continue;
		for (uint32_t k = roff[p]; k < roff[p + 1]; k++, x++) {
			rank[x] = rel[2 * k];
			frame[x] = rel[2 * k + 1];
			if (rank[x] >= n || frame[x] >= s->nframes)
				return false;
		}
	}
	off[s->nframes] = x;
	return true;
}

static bool copy_ranks(uint32_t n, const uint32_t *from, uint32_t m,
		       uint32_t *to)
{
	for (uint32_t i = 0; i < m; i++)
		if ((to[i] = from[i]) >= n)
			return false;
	return true;
}

ibf_ucx_status_t ibf_ucxi_a2a_slice_take(uint32_t size, uint32_t rank,
					 const ibf_ucxi_a2a_hdr_t *h,
					 const uint32_t *w, size_t nwords,
					 ibf_ucxi_a2a_sched_t *s,
					 ibf_ucx_err_t *err)
{
	size_t nf = (size_t)h->nframes + 1;
	slice_view_t v;

	memset(s, 0, sizeof(*s));
	if (nwords < 3 || w[0] != size || w[1] != rank ||
	    w[2] != h->nframes || !slice_locate(size, w, nwords, &v))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "all-to-all "
				       "schedule: rank %u's part is "
				       "malformed", rank);
	s->nframes = h->nframes;
	s->duration = h->duration;
	s->rr_frames = h->rr_frames;
	s->liquid = h->liquid;
	s->seconds = h->us / 1e6;
	s->send_to = malloc(nf * sizeof(uint32_t));
	s->recv_from = malloc(nf * sizeof(uint32_t));
	s->send_need = calloc(nf, sizeof(uint32_t));
	s->xsend_need = calloc(nf, sizeof(uint32_t));
	s->rel_off = malloc(nf * sizeof(uint32_t));
	s->xrel_off = malloc(nf * sizeof(uint32_t));
	s->rel_rank = malloc(((size_t)v.roff[size] + 1) * sizeof(uint32_t));
	s->rel_frame = malloc(((size_t)v.roff[size] + 1) * sizeof(uint32_t));
	s->xrel_rank = malloc(((size_t)v.xroff[size] + 1) * sizeof(uint32_t));
	s->xrel_frame = malloc(((size_t)v.xroff[size] + 1) *
			       sizeof(uint32_t));
	s->rel_in_from = malloc(((size_t)v.nin + 1) * sizeof(uint32_t));
	s->xrel_in_from = malloc(((size_t)v.nxin + 1) * sizeof(uint32_t));
	if (!s->send_to || !s->recv_from || !s->send_need || !s->xsend_need ||
	    !s->rel_off || !s->xrel_off || !s->rel_rank || !s->rel_frame ||
	    !s->xrel_rank || !s->xrel_frame || !s->rel_in_from ||
	    !s->xrel_in_from) {
		ibf_ucxi_a2a_sched_free(s);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "all-to-all "
				       "schedule: memory refused (rank %u's "
				       "part, %u frames)", rank, h->nframes);
	}
	s->nrel_in = v.nin;
	s->nxrel_in = v.nxin;
	if (!slice_peers(size, rank, &v, s) ||
	    !slice_rel(size, s, v.roff, v.rel, s->rel_off, s->rel_rank,
		       s->rel_frame) ||
	    !slice_rel(size, s, v.xroff, v.xrel, s->xrel_off, s->xrel_rank,
		       s->xrel_frame) ||
	    !copy_ranks(size, v.in, v.nin, s->rel_in_from) ||
	    !copy_ranks(size, v.xin, v.nxin, s->xrel_in_from)) {
		ibf_ucxi_a2a_sched_free(s);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "all-to-all "
				       "schedule: rank %u's part is "
				       "inconsistent", rank);
	}
	return IBF_UCX_OK;
}

size_t ibf_ucxi_a2a_sched_bytes(const ibf_ucxi_a2a_sched_t *s)
{
	size_t nf = s->send_to ? (size_t)s->nframes + 1 : 0;
	size_t rel = s->rel_off ? (size_t)s->rel_off[s->nframes] + 1 : 0;
	size_t xrel = s->xrel_off ? (size_t)s->xrel_off[s->nframes] + 1 : 0;

	if (!nf)
		return 0;
	return sizeof(uint32_t) * (6 * nf + 2 * rel + 2 * xrel +
				   (size_t)s->nrel_in + 1 +
				   (size_t)s->nxrel_in + 1);
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
