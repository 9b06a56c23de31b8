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
	const uint64_t *o64[] = { v->pred_off, v->xpred_off, v->succ_off,
				  v->xsucc_off };
	const uint32_t *o32[] = { d->pred_off, d->xpred_off, d->succ_off,
				  d->xsucc_off };
	const uint32_t *hl[] = { v->pred, v->xpred, v->succ, v->xsucc };
	const uint32_t *dl[] = { d->pred, d->xpred, d->succ, d->xsucc };

	for (int rel = 0; rel < 4; rel++) {
		pl->off64[rel] = pl->hp ? o64[rel] : NULL;
		pl->off32[rel] = pl->hp ? NULL : o32[rel];
		pl->val[rel] = pl->hp ? hl[rel] : dl[rel];
	}
}

static const uint32_t *rel_list(const planned_t *pl, int rel, uint32_t k,
				uint32_t *len)
{
	if (pl->off64[rel]) {
		*len = (uint32_t)(pl->off64[rel][k + 1] - pl->off64[rel][k]);
		return pl->val[rel] + pl->off64[rel][k];
	}
	*len = pl->off32[rel][k + 1] - pl->off32[rel][k];
	return pl->val[rel] + pl->off32[rel][k];
}

static uint32_t pair_src(const planned_t *pl, uint32_t k)
{
	return pl->hp ? pl->v.pair_src[k] : pl->t->src[k];
}

static uint32_t pair_dst(const planned_t *pl, uint32_t k)
{
	return pl->hp ? pl->v.pair_dst[k] : pl->t->dst[k];
}

static uint32_t pair_frame(const planned_t *pl, uint32_t k)
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

/* Host X's slice (layout below), all in hosts and host-pair frames:
 *
 *   n (hosts), X, nframes
 *   sfr[n], rfr[n]      frame of (X, Y) / (Y, X) (NOPEER: Y is X)
 *   poff[n + 1], pdst[poff[n]]      the send to Y waits for the ranks of
 *                       host pdst[k] (one entry per predecessor: its
 *                       destination)
 *   xpoff[n + 1], xpdst[...]        the same for the next call
 *   roff[n + 1], rel[2 roff[n]]     the arrival from Y releases the
 *                       sends (host rel[2k], frame rel[2k + 1])
 *   xroff[n + 1], xrel[...]         the same for the next call
 *
 * Built in passes over the host pairs in their own order (frame order
 * from the node-aware planner: each pair's lists are read once, in the
 * order they are stored), never host by host: a host's pairs are spread
 * over all frames, and walking them per host costs a cache miss per
 * list at 16 million pairs.  Pass 1 counts each relation's entries per
 * host, pass 2 writes the frames and the lists' lengths, pass 3 the
 * entries after each host's offsets are summed. */

/* Which host's slice a relation of pair k goes to, the index there, and
 * the words per entry: predecessors to the sender's slice by
 * destination, successors to the receiver's by source. */
static uint32_t rel_host(const planned_t *pl, int rel, uint32_t k,
			 uint32_t *idx)
{
	bool send = rel == REL_PRED || rel == REL_XPRED;

	*idx = send ? pair_dst(pl, k) : pair_src(pl, k);
	return send ? pair_src(pl, k) : pair_dst(pl, k);
}

static uint32_t rel_width(int rel)
{
	return rel == REL_PRED || rel == REL_XPRED ? 1 : 2;
}

/* The layout's order of the relations: pred, xpred, succ, xsucc. */
static const int rel_order[4] = { REL_PRED, REL_XPRED, REL_SUCC, REL_XSUCC };

/* base[r * n + h]: where relation rel_order[r]'s offsets start in host h's
 * slice; p->off the slices' starts. */
static bool slices_size(const planned_t *pl, ibf_ucxi_a2a_plan_t *p,
			uint64_t *base)
{
	uint32_t n = pl->nhosts, len;
	uint64_t T = (uint64_t)n * (n - 1), *cnt = base;

	memset(cnt, 0, 4 * (size_t)n * sizeof(*cnt));
	for (uint64_t k = 0; k < T; k++)
		for (int r = 0; r < 4; r++) {
			uint32_t idx, h = rel_host(pl, rel_order[r],
						   (uint32_t)k, &idx);

			rel_list(pl, rel_order[r], (uint32_t)k, &len);
			cnt[(size_t)r * n + h] += len;
		}
	p->off[0] = 0;
	for (uint32_t h = 0; h < n; h++) {
		uint64_t at = 3 + 2 * (uint64_t)n;

		for (int r = 0; r < 4; r++) {
			uint64_t c = cnt[(size_t)r * n + h];

			base[(size_t)r * n + h] = at;
			at += n + 1 + rel_width(rel_order[r]) * c;
		}
		if (at > UINT32_MAX)
			return false;
		p->off[h + 1] = p->off[h] + at;
	}
	return true;
}

/* Pass 2: frames and list lengths; then each host's offsets summed. */
static void slices_heads(const planned_t *pl, ibf_ucxi_a2a_plan_t *p,
			 const uint64_t *base)
{
	uint32_t n = pl->nhosts, len;
	uint64_t T = (uint64_t)n * (n - 1);

	for (uint64_t k = 0; k < T; k++) {
		uint32_t s = pair_src(pl, (uint32_t)k), d = pair_dst(pl,
			(uint32_t)k), f = pair_frame(pl, (uint32_t)k);

		p->words[p->off[s] + 3 + d] = f;
		p->words[p->off[d] + 3 + n + s] = f;
		for (int r = 0; r < 4; r++) {
			uint32_t idx, h = rel_host(pl, rel_order[r],
						   (uint32_t)k, &idx);

			rel_list(pl, rel_order[r], (uint32_t)k, &len);
			p->words[p->off[h] + base[(size_t)r * n + h] + idx] =
				len;
		}
	}
	for (uint32_t h = 0; h < n; h++) {
		uint32_t *w = p->words + p->off[h];

		w[0] = n;
		w[1] = h;
		w[2] = p->hdr.nframes;
		w[3 + h] = w[3 + n + h] = IBF_UCXI_NOPEER;
		for (int r = 0; r < 4; r++) {
			uint32_t *o = w + base[(size_t)r * n + h], m = 0;

			o[h] = 0;
			for (uint32_t x = 0; x < n; x++) {
				uint32_t c = o[x];

				o[x] = m;
				m += c;
			}
			o[n] = m;
		}
	}
}

/* Pass 3: the entries. */
static void slices_lists(const planned_t *pl, ibf_ucxi_a2a_plan_t *p,
			 const uint64_t *base)
{
	uint32_t n = pl->nhosts, len;
	uint64_t T = (uint64_t)n * (n - 1);

	for (uint64_t k = 0; k < T; k++)
		for (int r = 0; r < 4; r++) {
			int rel = rel_order[r];
			uint32_t idx, h = rel_host(pl, rel, (uint32_t)k, &idx);
			const uint32_t *l = rel_list(pl, rel, (uint32_t)k, &len);
			uint32_t *o = p->words + p->off[h] +
				      base[(size_t)r * n + h];
			uint32_t *e = o + n + 1 + rel_width(rel) * o[idx];

			for (uint32_t i = 0; i < len; i++) {
				if (rel_width(rel) == 1) {
					e[i] = pair_dst(pl, l[i]);
				} else {
					e[2 * i] = pair_src(pl, l[i]);
					e[2 * i + 1] = pair_frame(pl, l[i]);
				}
			}
		}
}

static bool slices(const planned_t *pl, ibf_ucxi_a2a_plan_t *p)
{
	uint32_t n = pl->nhosts;
	uint64_t *base = malloc((4 * (size_t)n + 1) * sizeof(*base));

	p->nhosts = n;
	p->off = malloc(((size_t)n + 1) * sizeof(*p->off));
	if (!p->off || !base) {
		free(base);
		refuse_nomem(&p->hdr, "the slices' offsets");
		return false;
	}
	if (!slices_size(pl, p, base)) {
		free(base);
		refuse(&p->hdr, "all-to-all schedule: a host's slice of "
		       "more than 2^32 words");
		return false;
	}
	p->words = malloc((p->off[n] + 1) * sizeof(uint32_t));
	if (!p->words) {
		free(base);
		refuse_nomem(&p->hdr, "the slices");
		return false;
	}
	slices_heads(pl, p, base);
	slices_lists(pl, p, base);
	free(base);
	return true;
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

/* A host's slice, located and checked against its length. */
typedef struct slice_view {
	uint32_t nhosts, host;
	const uint32_t *sfr, *rfr;
	const uint32_t *poff[2], *pdst[2];   /* [0] this call, [1] next */
	const uint32_t *roff[2], *rel[2];
} slice_view_t;

static bool csr_ok(const uint32_t *off, uint32_t n)
{
	if (off[0])
		return false;
	for (uint32_t x = 0; x < n; x++)
		if (off[x] > off[x + 1])
			return false;
	return true;
}

static bool slice_locate(const uint32_t *w, size_t len, slice_view_t *v)
{
	uint32_t n = w[0];
	size_t x = 3 + 2 * (size_t)n;

	v->nhosts = n;
	v->host = w[1];
	if (len < x)
		return false;
	v->sfr = w + 3;
	v->rfr = w + 3 + n;
	for (int pass = 0; pass < 4; pass++) {
		const uint32_t *off = w + x;
		size_t width = pass < 2 ? 1 : 2;

		if (x + n + 1 > len || !csr_ok(off, n) ||
		    off[n] > (len - x - n - 1) / width)
			return false;
		if (pass < 2) {
			v->poff[pass] = off;
			v->pdst[pass] = off + n + 1;
		} else {
			v->roff[pass - 2] = off;
			v->rel[pass - 2] = off + n + 1;
		}
		x += n + 1 + width * off[n];
	}
	return x == len;
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

/* Frame f's peers: the ranks of the host whose pair with this one is in
 * frame f (fr[x]), into off/peer; false when two pairs share a frame. */
static bool groups(const slice_view_t *v, const uint32_t *fr,
		   const by_host_t *b, uint32_t nframes, uint32_t *off,
		   uint32_t *peer, uint32_t *host_of)
{
	uint32_t x, f, at = 0;

	for (f = 0; f < nframes; f++)
		host_of[f] = IBF_UCXI_NOPEER;
	for (x = 0; x < v->nhosts; x++) {
		if (x == v->host)
			continue;
		if (fr[x] >= nframes || host_of[fr[x]] != IBF_UCXI_NOPEER)
			return false;
		host_of[fr[x]] = x;
	}
	for (f = 0; f < nframes; f++) {
		off[f] = at;
		if ((x = host_of[f]) == IBF_UCXI_NOPEER)
			continue;
		memcpy(peer + at, b->ranks + b->first[x],
		       host_ranks(b, x) * sizeof(uint32_t));
		at += host_ranks(b, x);
	}
	off[nframes] = at;
	return true;
}

/* The parts of one relation (cross: the next call's) as this rank has
 * them: need per send frame, releases per arrival frame, whose releases
 * come.  Sizes first (out NULL), then the lists. */
typedef struct rel_out {
	uint32_t *need, *off, *rank, *frame, *in_from;
	uint32_t nrel, nin;
} rel_out_t;

static bool relation(const slice_view_t *v, int cross, uint32_t me,
		     const by_host_t *b, const uint32_t *send_host,
		     const uint32_t *recv_host, uint32_t nframes,
		     rel_out_t *o, bool fill)
{
	const uint32_t *po = v->poff[cross], *pd = v->pdst[cross];
	const uint32_t *ro = v->roff[cross], *rl = v->rel[cross];
	uint32_t f, k, i;

	o->nrel = o->nin = 0;
	for (f = 0; f < nframes; f++) {
		uint32_t x = send_host[f], y = recv_host[f];

		if (fill)
			o->off[f] = o->nrel;
		for (k = x == IBF_UCXI_NOPEER ? 0 : po[x];
		     x != IBF_UCXI_NOPEER && k < po[x + 1]; k++) {
			uint32_t d = pd[k];

			if (d >= v->nhosts)
				return false;
			for (i = b->first[d]; i < b->first[d + 1]; i++) {
				uint32_t from = b->ranks[i];

				if (from != me && fill)
					o->in_from[o->nin] = from;
				o->nin += from != me;
				if (fill && (from != me || !cross))
					o->need[f]++;
			}
		}
		for (k = y == IBF_UCXI_NOPEER ? 0 : ro[y];
		     y != IBF_UCXI_NOPEER && k < ro[y + 1]; k++) {
			uint32_t c = rl[2 * k], fr = rl[2 * k + 1];

			if (c >= v->nhosts || fr >= nframes)
				return false;
			for (i = b->first[c]; i < b->first[c + 1]; i++) {
				if (cross && b->ranks[i] == me)
					continue;
				if (fill) {
					o->rank[o->nrel] = b->ranks[i];
					o->frame[o->nrel] = fr;
				}
				o->nrel++;
			}
		}
	}
	if (fill)
		o->off[nframes] = o->nrel;
	return true;
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

		if (!relation(v, cross, me, b, send_host, recv_host,
			      s->nframes, &o, false))
			return take_fail(s, err, IBF_UCX_ERR_PEER, me,
					 "inconsistent");
		if (!relation_alloc(&o, (size_t)s->nframes + 1)) {
			relation_keep(s, cross, &o);
			return take_fail(s, err, IBF_UCX_ERR_NOMEM, me,
					 "memory refused");
		}
		relation(v, cross, me, b, send_host, recv_host, s->nframes,
			 &o, true);
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
	if (!groups(v, v->sfr, b, s->nframes, s->send_off, s->send_peer,
		    send_host) ||
	    !groups(v, v->rfr, b, s->nframes, s->recv_off, s->recv_peer,
		    recv_host))
		return take_fail(s, err, IBF_UCX_ERR_PEER, me,
				 "two host pairs in one frame");
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
	by_host_t b = { 0 };
	slice_view_t v;
	ibf_ucx_status_t st;

	memset(s, 0, sizeof(*s));
	if (rank >= size || nwords < 3 || w[0] != nhosts ||
	    w[1] != rank_host[rank] || w[2] != h->nframes ||
	    !slice_locate(w, nwords, &v))
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
