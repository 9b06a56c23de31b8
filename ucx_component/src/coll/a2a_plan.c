/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The liquid schedule of a context's all-to-all, as its planner computes
 * it, and each rank's part of it: the one adapter between libibflow_ucx
 * and libibflow's scheduler (ibflow/liquid.h).  Nothing here talks to
 * another process (schedule.c does).
 *
 * Node-aware: the schedule's transfers are the ordered pairs (X, Y),
 * X != Y, of the context's hosts (fabric endpoints, HCA ports), numbered
 * X * (nhosts - 1) + (Y < X ? Y : Y - 1).  Their links: the route's
 * egress ports from ibf_ucx_route() between the hosts' first ranks, plus
 * "host X sends" and "host Y receives" links, so that a frame has at most
 * one host pair per host each way.  In its host pair's frame, every rank
 * of X sends its blocks to every rank of Y at once, over the one path;
 * blocks between ranks of one host go beside the frames.  The bound is
 * then the hosts' traffic's: 32 hosts x 16 ranks are 992 host pairs, not
 * 261,632 rank pairs.
 *
 * The scheduler's search stops at a time limit, so two processes could
 * find different schedules; one process (the planner) therefore computes
 * it, and with it the host pairs' predecessor lists, once.  Where routes
 * go to base LIDs it uses the node-aware planner (ibf_liquid_hplan_create
 * over every rank's host port: one unit per host, a host pair's volume
 * its ranks' blocks, which auto's prediction needs): frames, predecessors and the
 * next call's predecessors from the paths, no link sets held, no cap on
 * host pairs (4,096 hosts are 16,773,120).  Elsewhere (LID offsets, no
 * LFTs) the host pairs' link sets go to ibf_liquid_schedule and
 * ibf_liquid_deps_build, up to IBF_LIQUID_MAX_TRANSFERS.  Each host then gets its slice: the frames
 * of its host pairs, the hosts whose ranks release each of its sends,
 * the hosts each arrival releases; O(hosts) words.  Each rank expands it
 * with the job's rank-to-host map into its own part, O(ranks).
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
#include <ibflow/liquid_hosts.h>

#include "coll/a2a_internal.h"

/* The scheduler's limits are work, not time, so that the same job gets
 * the same plan on an idle machine and a loaded one: the exact search
 * of small unit plans (up to 181 hosts), which runs to its budget where
 * it finds no liquid schedule, gets about 0.7 s of CPU on an idle 2026
 * x86 core (docs/ucx-alltoall.md, "The planner's limits"), the whole
 * call 20 x more, which no plan measured needs (a 4,096-host Dragonfly's
 * unit plan: 2.3 x 10^9).  The wall clock is only a ceiling for a
 * machine many times slower or more loaded than that. */
#define SCHED_SEARCH_WORK 1000000000ull   /* units (ibflow/liquid.h) */
#define SCHED_WORK_LIMIT 20000000000ull
#define SCHED_TIME_LIMIT 60.0             /* seconds, the last resort */
#define SCHED_OPTS { .time_limit = SCHED_TIME_LIMIT, \
		     .work_limit = SCHED_WORK_LIMIT, \
		     .search_work = SCHED_SEARCH_WORK }
#define ROUTE_MAX 64

/* The link-set planner's limit on host pairs: it holds their link sets
 * whole, and libibflow refuses such traffics beyond
 * IBF_LIQUID_MAX_TRANSFERS (2,000,000: 1,414 hosts, with any number of
 * ranks each); above it, a clear "no schedule".  The node-aware planner
 * has none. */
#define PLAN_MAX_TRANSFERS ((uint64_t)IBF_LIQUID_MAX_TRANSFERS)

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

/* The traffic of all ordered host pairs, links as described above. */
static ibf_ucx_status_t build_traffic(const ibf_ucx_t *u,
				      ibf_liquid_traffic_t **out,
				      ibf_ucx_err_t *err)
{
	uint32_t n = u->nhosts, nt = n * (n - 1), i, j, k, t = 0;
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
				     "of %u host pairs)", nt);
		goto out;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			st = ibf_ucx_route(u, u->host_leader[i],
					   u->host_leader[j], route,
					   ROUTE_MAX, &m, err);
			if (st != IBF_UCX_OK)
				goto out;
			if (len + m + 2 > cap) {
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

/* The all-to-all planner traces routes to base LIDs from the hosts'
 * ports itself. */
static bool plan_applies(const ibf_ucx_t *u)
{
	return u->aware && u->fab.lfts && !u->cfg->v.lid_offset;
}

/* The host pairs' frames and predecessor lists: from the node-aware
 * planner (hp, its pairs numbered in frame order) or from the link-set
 * traffic (t, frame_of and d, pairs numbered as build_traffic lists
 * them: X * (nhosts - 1) + (Y < X ? Y : Y - 1)). */
typedef struct planned {
	uint32_t nhosts;
	ibf_ucxi_a2a_figures_t fig;   /* for auto's prediction */
	ibf_liquid_hplan_t *hp;
	ibf_liquid_hplan_view_t v;
	ibf_liquid_traffic_t *t;
	uint32_t *frame_of;
	ibf_liquid_deps_t d;
	bool have_deps;
	const uint64_t *off64[4];   /* rels_bind: the node-aware planner's */
	const uint32_t *off32[4];   /* or the link-set traffic's offsets */
	const uint32_t *val[4];
} planned_t;

/* The relations of a pair: its predecessors, the next call's, its
 * successors, the next call's. */
enum { REL_PRED, REL_XPRED, REL_SUCC, REL_XSUCC };

/* The four relations' lists, bound once (rels_bind) from whichever
 * planner ran: the slices read them for every host pair. */
static void rels_bind(planned_t *pl)
{
	const ibf_liquid_hplan_view_t *v = &pl->v;
	const ibf_liquid_deps_t *d = &pl->d;
	/* the node-aware planner's next-call offsets are 32-bit */
	const uint64_t *o64[] = { v->pred_off, NULL, v->succ_off, NULL };
	const uint32_t *h32[] = { NULL, v->xpred_off, NULL, v->xsucc_off };
	const uint32_t *o32[] = { d->pred_off, d->xpred_off, d->succ_off,
				  d->xsucc_off };
	const uint32_t *hl[] = { v->pred, v->xpred, v->succ, v->xsucc };
	const uint32_t *dl[] = { d->pred, d->xpred, d->succ, d->xsucc };

	for (int rel = 0; rel < 4; rel++) {
		pl->off64[rel] = pl->hp ? o64[rel] : NULL;
		pl->off32[rel] = pl->hp ? h32[rel] : o32[rel];
		pl->val[rel] = pl->hp ? hl[rel] : dl[rel];
	}
}

static inline const uint32_t *rel_list(const planned_t *pl, int rel,
				       uint32_t k, uint32_t *len)
{
	if (pl->off64[rel]) {
		*len = (uint32_t)(pl->off64[rel][k + 1] - pl->off64[rel][k]);
		return pl->val[rel] + pl->off64[rel][k];
	}
	*len = pl->off32[rel][k + 1] - pl->off32[rel][k];
	return pl->val[rel] + pl->off32[rel][k];
}

static inline uint32_t pair_src(const planned_t *pl, uint32_t k)
{
	return pl->hp ? pl->v.pair_src[k] : pl->t->src[k];
}

static inline uint32_t pair_dst(const planned_t *pl, uint32_t k)
{
	return pl->hp ? pl->v.pair_dst[k] : pl->t->dst[k];
}

static inline uint32_t pair_frame(const planned_t *pl, uint32_t k)
{
	return pl->hp ? pl->v.pair_frame[k] : pl->frame_of[k];
}

/* The node-aware planner over every rank's host port (one unit per
 * host, numbered as the hosts are: by first rank), so that each host
 * pair's volume is its ranks' blocks and the plan's chain what auto
 * holds against the bound: frames and both relations without the
 * link-set traffic, no cap on host pairs. */
static bool frames_by_hplan(const ibf_ucx_t *u, planned_t *pl,
			    ibf_ucxi_a2a_hdr_t *h)
{
	ibf_liquid_opts_t o = SCHED_OPTS;
	const ibf_liquid_hplan_info_t *info;
	ibf_port_id_t *rank_port = malloc(((size_t)u->size + 1) *
					  sizeof(*rank_port));
	ibf_status_t st;
	ibf_err_t e;

	if (!rank_port) {
		refuse_nomem(h, "the ranks' ports");
		return false;
	}
	for (uint32_t r = 0; r < u->size; r++)
		rank_port[r] = u->hosts.ports[u->rank_host[r]];
	st = ibf_liquid_hplan_create(u->fab.lfts, rank_port, u->size, &o,
				     &pl->hp, &e);
	free(rank_port);
	if (st != IBF_OK) {
		refuse_lib(h, &e);
		return false;
	}
	info = ibf_liquid_hplan_info(pl->hp);
	if (info->nunits != u->nhosts) {
		refuse(h, "all-to-all schedule: %u hosts on %u ports",
		       u->nhosts, info->nunits);
		return false;
	}
	ibf_liquid_hplan_view(pl->hp, &pl->v);
	h->nframes = info->nframes;
	h->duration = info->duration;
	h->liquid = info->nframes == info->duration;
	h->rr_frames = info->rr_frames;
	pl->fig.bound_blocks = info->bound_blocks;
	pl->fig.plan_blocks = info->plan_blocks;
	return true;
}

static bool frames_by_schedule(planned_t *pl, ibf_ucxi_a2a_hdr_t *h)
{
	ibf_liquid_opts_t o = SCHED_OPTS;
	ibf_liquid_result_t r;
	size_t nt = (size_t)pl->nhosts * (pl->nhosts - 1);
	ibf_err_t e;

	memset(&r, 0, sizeof(r));
	if (ibf_liquid_schedule(pl->t, &o, &r, &e) != IBF_OK) {
		refuse_lib(h, &e);
		return false;
	}
	h->nframes = r.nframes;
	h->duration = r.duration;
	h->liquid = r.liquid;
	h->rr_frames = r.rr_frames;
	pl->frame_of = malloc((nt + 1) * sizeof(uint32_t));
	if (pl->frame_of)
		memcpy(pl->frame_of, r.frame_of, nt * sizeof(uint32_t));
	ibf_liquid_result_free(&r);
	if (!pl->frame_of)
		refuse_nomem(h, "the frames");
	return pl->frame_of != NULL;
}

/* Host X's slice: its host pairs in frame order, O(its pairs) words,
 * nothing indexed by host (32-bit words, host byte order):
 *
 *   n (hosts), X, nframes
 *   n - 1 sends      {frame, Y, npred, pdst[npred]}: in `frame` X sends
 *                    to Y once the ranks of each host pdst[i] (one entry
 *                    per predecessor: its destination) have released it
 *   n - 1 receives   {frame, Y, nsucc, succ[nsucc]}: the arrival from Y
 *                    releases those sends, each one word frame x n +
 *                    host where n x nframes fits in 32 bits (packed),
 *                    else two words, host then frame
 *   m, then m sends that wait in the next call: {frame, nxpred,
 *                    pdst[nxpred]}
 *   m', then m' receives that release in the next call: {frame, nxsucc,
 *                    succ[nxsucc]}
 *
 * Each section ascends by frame.  Packed successors are a fifth of the
 * words less at 4,096 hosts (the slices' writing is most of their
 * cost).  Built in two passes over the host
 * pairs in frame order (the node-aware planner's own order: each pair's
 * lists are read once, as they are stored), never host by host: a host's
 * pairs are spread over all frames, and walking them per host costs a
 * cache miss per list at 16 million pairs.  Pass 1 sizes each host's
 * sections; pass 2 appends each pair's records to its sender's and its
 * receiver's sections, one section at a time (n write cursors in use,
 * not 4 n: at 4,096 hosts 1.4 s -> 1.0 s). */

enum { SEC_SEND, SEC_RECV, SEC_XSEND, SEC_XRECV, SEC_N };

#define SLICE_HEAD 3u

/* A section's record: its header words (frame, [host,] count), the
 * words per entry. */
static uint32_t sec_head(int sec)
{
	return sec == SEC_SEND || sec == SEC_RECV ? 3 : 2;
}

static uint32_t sec_width(int sec, bool packed)
{
	return sec == SEC_SEND || sec == SEC_XSEND || packed ? 1 : 2;
}

/* Successors in one word each: frame x n + host below 2^32. */
static bool packs(uint32_t nhosts, uint32_t nframes)
{
	return (uint64_t)nhosts * nframes <= (uint64_t)UINT32_MAX + 1;
}

/* Which relation fills a section, and whose slice holds it: the
 * sender's for predecessors, the receiver's for successors. */
static const int sec_rel[SEC_N] = { REL_PRED, REL_SUCC, REL_XPRED,
				    REL_XSUCC };

static uint32_t sec_host(const planned_t *pl, int sec, uint32_t k)
{
	return sec == SEC_SEND || sec == SEC_XSEND ? pair_src(pl, k) :
	       pair_dst(pl, k);
}

/* The pairs in frame order: NULL for the node-aware planner's (already
 * so), else a counting sort of the link-set traffic's by frame. */
static bool pairs_by_frame(const planned_t *pl, uint32_t nframes,
			   uint32_t **order)
{
	uint64_t T = (uint64_t)pl->nhosts * (pl->nhosts - 1);
	uint32_t *at;

	*order = NULL;
	if (pl->hp)
		return true;
	*order = malloc((T + 1) * sizeof(uint32_t));
	at = calloc((size_t)nframes + 2, sizeof(uint32_t));
	if (!*order || !at) {
		free(at);
		return false;
	}
	for (uint64_t k = 0; k < T; k++)
		at[pl->frame_of[k] + 2]++;
	for (uint32_t f = 0; f < nframes; f++)
		at[f + 2] += at[f + 1];
	for (uint64_t k = 0; k < T; k++)
		(*order)[at[pl->frame_of[k] + 1]++] = (uint32_t)k;
	free(at);
	return true;
}

/* Pass 1: each host's sections' words (cur[SEC_N h + sec], headers and
 * the x sections' counts in xn[2 h ..]); then the slices' starts in
 * p->off and the cursors where each section's records begin. */
static bool slices_size(const planned_t *pl, ibf_ucxi_a2a_plan_t *p,
			uint64_t *cur, uint32_t *xn)
{
	uint32_t n = pl->nhosts, len;
	uint64_t T = (uint64_t)n * (n - 1);
	bool packed = packs(n, p->hdr.nframes);

	memset(cur, 0, SEC_N * (size_t)n * sizeof(*cur));
	memset(xn, 0, 2 * (size_t)n * sizeof(*xn));
	for (uint64_t k = 0; k < T; k++)
		for (int sec = 0; sec < SEC_N; sec++) {
			uint32_t h = sec_host(pl, sec, (uint32_t)k);

			rel_list(pl, sec_rel[sec], (uint32_t)k, &len);
			if (sec >= SEC_XSEND && !len)
				continue;
			cur[(size_t)SEC_N * h + sec] += sec_head(sec) +
				sec_width(sec, packed) * len;
			if (sec >= SEC_XSEND)
				xn[2 * (size_t)h + sec - SEC_XSEND]++;
		}
	p->off[0] = 0;
	for (uint32_t h = 0; h < n; h++) {
		uint64_t *c = cur + (size_t)SEC_N * h, at = p->off[h] +
							   SLICE_HEAD;

		for (int sec = 0; sec < SEC_N; sec++) {
			uint64_t words = c[sec];

			at += sec >= SEC_XSEND;   /* the count */
			c[sec] = at;
			at += words;
		}
		if (at - p->off[h] > UINT32_MAX)
			return false;
		p->off[h + 1] = at;
	}
	return true;
}

/* Pair k's record of one section at w; its words. */
static uint32_t record(const planned_t *pl, int sec, uint32_t k,
		       bool packed, uint32_t *w)
{
	uint32_t len, peer = sec == SEC_SEND ? pair_dst(pl, k) :
			     pair_src(pl, k);
	const uint32_t *l = rel_list(pl, sec_rel[sec], k, &len);
	uint32_t *e = w + sec_head(sec);

	w[0] = pair_frame(pl, k);
	if (sec_head(sec) == 3)
		w[1] = peer;
	w[sec_head(sec) - 1] = len;
	if (sec == SEC_SEND || sec == SEC_XSEND) {
		for (uint32_t i = 0; i < len; i++)
			e[i] = pair_dst(pl, l[i]);
	} else if (packed) {
		for (uint32_t i = 0; i < len; i++)
			e[i] = pair_frame(pl, l[i]) * pl->nhosts +
			       pair_src(pl, l[i]);
	} else {
		for (uint32_t i = 0; i < len; i++) {
			e[2 * i] = pair_src(pl, l[i]);
			e[2 * i + 1] = pair_frame(pl, l[i]);
		}
	}
	return sec_head(sec) + sec_width(sec, packed) * len;
}

/* Pass 2: the headers, then every pair's records in frame order. */
static void slices_fill(const planned_t *pl, const uint32_t *order,
			ibf_ucxi_a2a_plan_t *p, uint64_t *cur,
			const uint32_t *xn)
{
	uint32_t n = pl->nhosts, len;
	uint64_t T = (uint64_t)n * (n - 1);
	bool packed = packs(n, p->hdr.nframes);

	for (uint32_t h = 0; h < n; h++) {
		uint32_t *w = p->words + p->off[h];
		const uint64_t *c = cur + (size_t)SEC_N * h;

		w[0] = n;
		w[1] = h;
		w[2] = p->hdr.nframes;
		p->words[c[SEC_XSEND] - 1] = xn[2 * (size_t)h];
		p->words[c[SEC_XRECV] - 1] = xn[2 * (size_t)h + 1];
	}
	/* a section at a time: n places written at once, not 4 n */
	for (int sec = 0; sec < SEC_N; sec++)
		for (uint64_t i = 0; i < T; i++) {
			uint32_t k = order ? order[i] : (uint32_t)i;
			uint64_t *c = cur + (size_t)SEC_N *
				      sec_host(pl, sec, k) + sec;

			if (sec >= SEC_XSEND) {
				rel_list(pl, sec_rel[sec], k, &len);
				if (!len)
					continue;
			}
			*c += record(pl, sec, k, packed, p->words + *c);
		}
}

static bool slices(const planned_t *pl, ibf_ucxi_a2a_plan_t *p)
{
	uint32_t n = pl->nhosts, *xn = NULL, *order = NULL;
	uint64_t *cur = malloc((SEC_N * (size_t)n + 1) * sizeof(*cur));
	bool ok = false;

	p->nhosts = n;
	p->off = malloc(((size_t)n + 1) * sizeof(*p->off));
	xn = malloc((2 * (size_t)n + 1) * sizeof(*xn));
	if (!p->off || !cur || !xn ||
	    !pairs_by_frame(pl, p->hdr.nframes, &order)) {
		refuse_nomem(&p->hdr, "the slices' offsets");
		goto out;
	}
	if (!slices_size(pl, p, cur, xn)) {
		refuse(&p->hdr, "all-to-all schedule: a host's slice of "
		       "more than 2^32 words");
		goto out;
	}
	p->words = malloc((p->off[n] + 1) * sizeof(uint32_t));
	if (!p->words) {
		refuse_nomem(&p->hdr, "the slices");
		goto out;
	}
	slices_fill(pl, order, p, cur, xn);
	ok = true;
out:
	free(cur);
	free(xn);
	free(order);
	return ok;
}

/* auto's rule: liquid where its predicted gain over the best of linear
 * and pairwise is at least need_gain (docs/ucx-alltoall.md, "auto"). */
static bool worth_it(const ibf_ucxi_a2a_ask_t *ask, planned_t *pl,
		     ibf_ucxi_a2a_hdr_t *h)
{
	ibf_ucxi_a2a_predict_t pr;

	pl->fig.nframes = h->nframes;
	pl->fig.duration = h->duration;
	pl->fig.rr_frames = h->rr_frames;
	ibf_ucxi_a2a_predict(&pl->fig, &pr);
	if (pr.gain >= ask->need_gain)
		return true;
	h->verdict = IBF_UCX_ERR_DECLINED;
	snprintf(h->why, sizeof(h->why), "all-to-all: auto: liquid %u "
		 "frames, round robin %u: gain %.2f below %.2f (predicted "
		 "%.3fx the bound, linear/pairwise %.3fx; %s, "
		 "%sALLTOALL_GAIN)", h->nframes, h->rr_frames, pr.gain,
		 ask->need_gain, pr.liquid, pr.others,
		 ask->transport ? ask->transport : "?", IBF_UCX_VAR_PREFIX);
	return false;
}

/* The frames and both relations from the link-set traffic, held whole
 * (hence PLAN_MAX_TRANSFERS): where the node-aware planner does not
 * apply, and for one host. */
static bool frames_by_traffic(const ibf_ucx_t *u, planned_t *pl,
			      ibf_ucxi_a2a_hdr_t *h)
{
	ibf_ucx_err_t e;
	ibf_err_t le;

	if (build_traffic(u, &pl->t, &e) != IBF_UCX_OK) {
		refuse_err(h, &e);
		return false;
	}
	if (pl->nhosts < 2) {
		/* one host: every block is local, no frame */
		h->liquid = 1;
		pl->frame_of = malloc(sizeof(uint32_t));
	} else if (!frames_by_schedule(pl, h)) {
		return false;
	}
	if (!pl->frame_of || (pl->nhosts > 1 && h->nframes < 1)) {
		refuse(h, "all-to-all schedule: no frames");
		return false;
	}
	if (ibf_liquid_deps_build(pl->t, pl->frame_of, h->nframes, &pl->d,
				  &le) != IBF_OK) {
		refuse_lib(h, &le);
		return false;
	}
	pl->have_deps = true;
	return true;
}

/* The frames, the gain check, the predecessor lists, the slices. */
static void plan_hosts(const ibf_ucx_t *u, const ibf_ucxi_a2a_ask_t *ask,
		       planned_t *pl, ibf_ucxi_a2a_plan_t *p)
{
	uint64_t n = pl->nhosts, nt = n * (n - 1);
	bool node_aware = plan_applies(u) && n > 1;

	if (!node_aware && nt > PLAN_MAX_TRANSFERS) {
		refuse(&p->hdr, "all-to-all schedule: %llu hosts are %llu "
		       "host pairs, more than the link-set planner takes "
		       "(%llu)", (unsigned long long)n,
		       (unsigned long long)nt,
		       (unsigned long long)PLAN_MAX_TRANSFERS);
		return;
	}
	if (node_aware ? !frames_by_hplan(u, pl, &p->hdr) :
	    !frames_by_traffic(u, pl, &p->hdr))
		return;
	if (ask->need_gain > 0 && !worth_it(ask, pl, &p->hdr))
		return;
	rels_bind(pl);
	slices(pl, p);
}

void ibf_ucxi_a2a_plan(const ibf_ucx_t *u, const ibf_ucxi_a2a_ask_t *ask,
		       ibf_ucxi_a2a_plan_t *p)
{
	uint64_t n = u->nhosts, nt = n * (n ? n - 1 : 0);
	planned_t pl = { .nhosts = u->nhosts,
			 .fig.shared = u->size > u->nhosts };
	double t0 = ibf_ucxi_now();

	memset(p, 0, sizeof(*p));
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
	if (!u->aware) {
		refuse(&p->hdr, "all-to-all schedule: no fabric (%s)", u->why);
		return;
	}
	if (ask->max_transfers && nt > ask->max_transfers) {
		refuse(&p->hdr, "all-to-all schedule: %llu hosts are %llu "
		       "host pairs, more than the planner takes (%llu)",
		       (unsigned long long)n, (unsigned long long)nt,
		       (unsigned long long)ask->max_transfers);
		return;
	}
	plan_hosts(u, ask, &pl, p);
	if (pl.have_deps)
		ibf_liquid_deps_free(&pl.d);
	ibf_liquid_traffic_destroy(pl.t);
	ibf_liquid_hplan_destroy(pl.hp);
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

/* A host's slice, located and checked against its length: where each
 * section's records start, and how many. */
typedef struct slice_view {
	uint32_t nhosts, host, nframes;
	bool packed;                   /* successors in one word each */
	const uint32_t *sec[SEC_N];
	uint32_t count[SEC_N];
} slice_view_t;

/* One section's count records from w[*x]: inside the slice, frames
 * ascending and in range; for sends and receives a peer in range, not
 * the host itself, each at most once (seen[n]: the section's bit). */
static bool section_locate(const uint32_t *w, size_t len, size_t *x,
			   int sec, uint32_t count, slice_view_t *v,
			   uint8_t *seen)
{
	uint32_t hd = sec_head(sec), wd = sec_width(sec, v->packed), prev = 0;

	v->sec[sec] = w + *x;
	v->count[sec] = count;
	for (uint32_t i = 0; i < count; i++) {
		const uint32_t *r = w + *x;

		if (len - *x < hd || r[0] >= v->nframes ||
		    (i && r[0] <= prev) || r[hd - 1] > (len - *x - hd) / wd)
			return false;
		prev = r[0];
		if (hd == 3) {
			if (r[1] >= v->nhosts || r[1] == v->host ||
			    (seen[r[1]] & (1u << sec)))
				return false;
			seen[r[1]] |= (uint8_t)(1u << sec);
		}
		*x += hd + (size_t)wd * r[hd - 1];
	}
	return true;
}

/* The slice's sections (layout above slices()); seen: n bytes, zero. */
static bool slice_locate(const uint32_t *w, size_t len, uint32_t nframes,
			 slice_view_t *v, uint8_t *seen)
{
	size_t x = SLICE_HEAD;

	v->nhosts = w[0];
	v->host = w[1];
	v->nframes = nframes;
	v->packed = packs(v->nhosts, nframes);
	if (v->host >= v->nhosts)
		return false;
	for (int sec = 0; sec < SEC_N; sec++) {
		uint32_t count = v->nhosts - 1;

		if (sec >= SEC_XSEND) {
			if (x >= len)
				return false;
			count = w[x++];
		}
		if (!section_locate(w, len, &x, sec, count, v, seen))
			return false;
	}
	return x == len;
}

/* A walk through one section's records, frame by frame. */
typedef struct rec_walk {
	const uint32_t *at;
	uint32_t left, width;
	int sec;
} rec_walk_t;

static rec_walk_t rec_walk(const slice_view_t *v, int sec)
{
	rec_walk_t c = { v->sec[sec], v->count[sec],
			 sec_width(sec, v->packed), sec };

	return c;
}

/* The entries of frame f's record (*len of them, *peer its host where
 * the section has one), or NULL when the section has none for f. */
static const uint32_t *rec_next(rec_walk_t *c, uint32_t f, uint32_t *len,
				uint32_t *peer)
{
	uint32_t hd = sec_head(c->sec);
	const uint32_t *r = c->at;

	if (!c->left || r[0] != f)
		return NULL;
	*len = r[hd - 1];
	if (peer)
		*peer = r[1];
	c->at += hd + (size_t)c->width * *len;
	c->left--;
	return r + hd;
}

/* The job's ranks by host: rank r of host h is at ranks[first[h] ..
 * first[h + 1]), ascending. */
typedef struct by_host {
	uint32_t *first, *ranks;
} by_host_t;

static bool by_host_build(uint32_t size, const uint32_t *rank_host,
			  uint32_t nhosts, by_host_t *b)
{
	b->first = calloc((size_t)nhosts + 2, sizeof(uint32_t));
	b->ranks = malloc(((size_t)size + 1) * sizeof(uint32_t));
	if (!b->first || !b->ranks)
		return false;
	for (uint32_t r = 0; r < size; r++)
		b->first[rank_host[r] + 2]++;
	for (uint32_t h = 0; h < nhosts; h++)
		b->first[h + 2] += b->first[h + 1];
	for (uint32_t r = 0; r < size; r++)
		b->ranks[b->first[rank_host[r] + 1]++] = r;
	return true;
}

static void by_host_free(by_host_t *b)
{
	free(b->first);
	free(b->ranks);
}

static uint32_t host_ranks(const by_host_t *b, uint32_t h)
{
	return b->first[h + 1] - b->first[h];
}

/* Frame f's peers: the ranks of the host of the section's record for
 * frame f (host_of[f], NOPEER: none), into off/peer. */
static void groups(const slice_view_t *v, int sec, const by_host_t *b,
		   uint32_t *off, uint32_t *peer, uint32_t *host_of)
{
	rec_walk_t c = rec_walk(v, sec);
	uint32_t x, f, at = 0, len;

	for (f = 0; f < v->nframes; f++) {
		off[f] = at;
		host_of[f] = IBF_UCXI_NOPEER;
		if (!rec_next(&c, f, &len, &x))
			continue;
		host_of[f] = x;
		memcpy(peer + at, b->ranks + b->first[x],
		       host_ranks(b, x) * sizeof(uint32_t));
		at += host_ranks(b, x);
	}
	off[v->nframes] = at;
}

/* The parts of one relation (cross: the next call's) as this rank has
 * them: need per send frame, releases per arrival frame, whose releases
 * come.  Sizes first (out NULL), then the lists. */
typedef struct rel_out {
	uint32_t *need, *off, *rank, *frame, *in_from;
	uint32_t nrel, nin;
} rel_out_t;

/* Frame f's send waits for the ranks of the hosts pd[0 .. np). */
static bool waits(const slice_view_t *v, int cross, uint32_t me,
		  const by_host_t *b, const uint32_t *pd, uint32_t np,
		  uint32_t f, rel_out_t *o, bool fill)
{
	for (uint32_t k = 0; k < np; k++) {
		uint32_t d = pd[k];

		if (d >= v->nhosts)
			return false;
		for (uint32_t i = b->first[d]; i < b->first[d + 1]; i++) {
			uint32_t from = b->ranks[i];

			if (from != me && fill)
				o->in_from[o->nin] = from;
			o->nin += from != me;
			if (fill && (from != me || !cross))
				o->need[f]++;
		}
	}
	return true;
}

/* Frame f's arrival releases the sends rl[0 .. nr) (host, frame; packed
 * or not). */
static bool releases(const slice_view_t *v, int cross, uint32_t me,
		     const by_host_t *b, const uint32_t *rl, uint32_t nr,
		     rel_out_t *o, bool fill)
{
	for (uint32_t k = 0; k < nr; k++) {
		uint32_t c = v->packed ? rl[k] % v->nhosts : rl[2 * k];
		uint32_t fr = v->packed ? rl[k] / v->nhosts : rl[2 * k + 1];

		if (c >= v->nhosts || fr >= v->nframes)
			return false;
		for (uint32_t i = b->first[c]; i < b->first[c + 1]; i++) {
			if (cross && b->ranks[i] == me)
				continue;
			if (fill) {
				o->rank[o->nrel] = b->ranks[i];
				o->frame[o->nrel] = fr;
			}
			o->nrel++;
		}
	}
	return true;
}

static bool relation(const slice_view_t *v, int cross, uint32_t me,
		     const by_host_t *b, const uint32_t *send_host,
		     const uint32_t *recv_host, rel_out_t *o, bool fill)
{
	rec_walk_t s = rec_walk(v, cross ? SEC_XSEND : SEC_SEND);
	rec_walk_t r = rec_walk(v, cross ? SEC_XRECV : SEC_RECV);
	const uint32_t *l;
	uint32_t len;

	o->nrel = o->nin = 0;
	for (uint32_t f = 0; f < v->nframes; f++) {
		if (fill)
			o->off[f] = o->nrel;
		if ((l = rec_next(&s, f, &len, NULL)) &&
		    (send_host[f] == IBF_UCXI_NOPEER ||
		     !waits(v, cross, me, b, l, len, f, o, fill)))
			return false;
		if ((l = rec_next(&r, f, &len, NULL)) &&
		    (recv_host[f] == IBF_UCXI_NOPEER ||
		     !releases(v, cross, me, b, l, len, o, fill)))
			return false;
	}
	if (fill)
		o->off[v->nframes] = o->nrel;
	return !s.left && !r.left;
}

static ibf_ucx_status_t take_fail(ibf_ucxi_a2a_sched_t *s,
				  ibf_ucx_err_t *err, ibf_ucx_status_t st,
				  uint32_t rank, const char *what)
{
	ibf_ucxi_a2a_sched_free(s);
	return ibf_ucx_err_set(err, st, "all-to-all schedule: rank %u's "
			       "part: %s", rank, what);
}

static bool relation_alloc(rel_out_t *o, size_t nf)
{
	o->need = calloc(nf, sizeof(uint32_t));
	o->off = malloc(nf * sizeof(uint32_t));
	o->rank = malloc(((size_t)o->nrel + 1) * sizeof(uint32_t));
	o->frame = malloc(((size_t)o->nrel + 1) * sizeof(uint32_t));
	o->in_from = malloc(((size_t)o->nin + 1) * sizeof(uint32_t));
	return o->need && o->off && o->rank && o->frame && o->in_from;
}

static void relation_keep(ibf_ucxi_a2a_sched_t *s, int cross,
			  const rel_out_t *o)
{
	if (cross) {
		s->xsend_need = o->need;
		s->xrel_off = o->off;
		s->xrel_rank = o->rank;
		s->xrel_frame = o->frame;
		s->xrel_in_from = o->in_from;
		s->nxrel_in = o->nin;
	} else {
		s->send_need = o->need;
		s->rel_off = o->off;
		s->rel_rank = o->rank;
		s->rel_frame = o->frame;
		s->rel_in_from = o->in_from;
		s->nrel_in = o->nin;
	}
}

static ibf_ucx_status_t take_relations(const slice_view_t *v, uint32_t me,
				       const by_host_t *b,
				       const uint32_t *send_host,
				       const uint32_t *recv_host,
				       ibf_ucxi_a2a_sched_t *s,
				       ibf_ucx_err_t *err)
{
	for (int cross = 0; cross < 2; cross++) {
		rel_out_t o = { 0 };

		if (!relation(v, cross, me, b, send_host, recv_host, &o,
			      false))
			return take_fail(s, err, IBF_UCX_ERR_PEER, me,
					 "inconsistent");
		if (!relation_alloc(&o, (size_t)s->nframes + 1)) {
			relation_keep(s, cross, &o);
			return take_fail(s, err, IBF_UCX_ERR_NOMEM, me,
					 "memory refused");
		}
		relation(v, cross, me, b, send_host, recv_host, &o, true);
		relation_keep(s, cross, &o);
	}
	return IBF_UCX_OK;
}

static ibf_ucx_status_t take_peers(const slice_view_t *v, uint32_t me,
				   const by_host_t *b,
				   uint32_t *send_host, uint32_t *recv_host,
				   ibf_ucxi_a2a_sched_t *s,
				   ibf_ucx_err_t *err)
{
	size_t nf = (size_t)s->nframes + 1;
	uint32_t mine = host_ranks(b, v->host), size = b->first[v->nhosts];
	uint32_t i, k = 0;

	s->send_off = malloc(nf * sizeof(uint32_t));
	s->recv_off = malloc(nf * sizeof(uint32_t));
	s->send_peer = malloc(((size_t)size - mine + 1) * sizeof(uint32_t));
	s->recv_peer = malloc(((size_t)size - mine + 1) * sizeof(uint32_t));
	s->local = malloc((size_t)mine * sizeof(uint32_t));
	if (!s->send_off || !s->recv_off || !s->send_peer || !s->recv_peer ||
	    !s->local)
		return take_fail(s, err, IBF_UCX_ERR_NOMEM, me,
				 "memory refused");
	groups(v, SEC_SEND, b, s->send_off, s->send_peer, send_host);
	groups(v, SEC_RECV, b, s->recv_off, s->recv_peer, recv_host);
	for (i = b->first[v->host]; i < b->first[v->host + 1]; i++)
		if (b->ranks[i] != me)
			s->local[k++] = b->ranks[i];
	s->nlocal = k;
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_a2a_slice_take(uint32_t size, uint32_t rank,
					 const uint32_t *rank_host,
					 uint32_t nhosts,
					 const ibf_ucxi_a2a_hdr_t *h,
					 const uint32_t *w, size_t nwords,
					 ibf_ucxi_a2a_sched_t *s,
					 ibf_ucx_err_t *err)
{
	uint32_t *send_host = NULL, *recv_host = NULL;
	uint8_t *seen;
	by_host_t b = { 0 };
	slice_view_t v;
	ibf_ucx_status_t st;
	bool ok;

	memset(s, 0, sizeof(*s));
	if (rank >= size || nwords < SLICE_HEAD || w[0] != nhosts ||
	    w[1] != rank_host[rank] || w[2] != h->nframes)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "all-to-all "
				       "schedule: rank %u's part is "
				       "malformed", rank);
	seen = calloc((size_t)nhosts + 1, 1);
	if (!seen)
		return take_fail(s, err, IBF_UCX_ERR_NOMEM, rank,
				 "memory refused");
	ok = slice_locate(w, nwords, h->nframes, &v, seen);
	free(seen);
	if (!ok)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "all-to-all "
				       "schedule: rank %u's part is "
				       "malformed", rank);
	s->nframes = h->nframes;
	s->duration = h->duration;
	s->rr_frames = h->rr_frames;
	s->liquid = h->liquid;
	s->seconds = h->us / 1e6;
	send_host = malloc(((size_t)h->nframes + 1) * sizeof(uint32_t));
	recv_host = malloc(((size_t)h->nframes + 1) * sizeof(uint32_t));
	if (!send_host || !recv_host ||
	    !by_host_build(size, rank_host, nhosts, &b))
		st = take_fail(s, err, IBF_UCX_ERR_NOMEM, rank,
			       "memory refused");
	else
		st = take_peers(&v, rank, &b, send_host, recv_host, s, err);
	if (st == IBF_UCX_OK)
		st = take_relations(&v, rank, &b, send_host, recv_host, s,
				    err);
	free(send_host);
	free(recv_host);
	by_host_free(&b);
	return st;
}

size_t ibf_ucxi_a2a_sched_bytes(const ibf_ucxi_a2a_sched_t *s)
{
	size_t nf = (size_t)s->nframes + 1, words;

	if (!s->send_off)
		return 0;
	words = 6 * nf + 2 * ((size_t)s->send_off[s->nframes] + 1) +
		s->nlocal + 2 * ((size_t)s->rel_off[s->nframes] + 1) +
		2 * ((size_t)s->xrel_off[s->nframes] + 1) +
		(size_t)s->nrel_in + 1 + (size_t)s->nxrel_in + 1;
	return words * sizeof(uint32_t);
}

void ibf_ucxi_a2a_sched_free(ibf_ucxi_a2a_sched_t *s)
{
	uint32_t **a[] = { &s->send_off, &s->send_peer, &s->recv_off,
			   &s->recv_peer, &s->local, &s->send_need,
			   &s->rel_off, &s->rel_rank, &s->rel_frame,
			   &s->rel_in_from, &s->xsend_need, &s->xrel_off,
			   &s->xrel_rank, &s->xrel_frame, &s->xrel_in_from };

	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
		free(*a[i]);
		*a[i] = NULL;
	}
}
