/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Simulated ranks through the all-to-all setup (a2a_sim.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/route.h>
#include <ibflow/trace.h>

#include "coll/a2a_internal.h"
#include "a2a_sim.h"

#define HOPS_MAX 64

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* What the ranks' parts say, gathered for the cross-checks. */
typedef struct views {
	uint32_t n, nh, nf;
	const uint32_t *rank_host, *first;
	uint32_t *send_frame, *recv_frame;   /* [nh * nh] host pair's frame */
	uint32_t *need, *xneed;              /* [n * nf] per rank and frame */
	uint32_t *got, *xgot;                /* releases listed for them */
	uint32_t *nin, *xnin;                /* [n] releases each expects */
	uint32_t *msgs, *xmsgs;              /* [n] listed for each */
} views_t;

static void bad(a2a_sim_result_t *res, const char *fmt, uint32_t a,
		uint32_t b, uint32_t c)
{
	if (!res->bad[0])
		snprintf(res->bad, sizeof(res->bad), fmt, a, b, c);
}

/* One host pair's frame as one rank sees it. */
static void note_frame(uint32_t *tab, uint32_t idx, uint32_t f,
		       a2a_sim_result_t *res, const char *what)
{
	if (tab[idx] == IBF_UCXI_NOPEER)
		tab[idx] = f;
	else if (tab[idx] != f)
		bad(res, what, idx, f, tab[idx]);
}

/* Frame f's group: all the ranks of one other host, in order. */
static uint32_t group_host(const views_t *v, const uint32_t *peer,
			   uint32_t a, uint32_t z, uint32_t me_host,
			   a2a_sim_result_t *res)
{
	uint32_t h;

	if (a == z)
		return IBF_UCXI_NOPEER;
	h = v->rank_host[peer[a]];
	if (h == me_host || z - a != v->first[h + 1] - v->first[h])
		bad(res, "a group of host %u: %u ranks (frame starts at %u)",
		    h, z - a, a);
	for (uint32_t i = a; i < z; i++)
		if (peer[i] != v->first[h] + (i - a))
			bad(res, "group of host %u: rank %u at %u", h,
			    peer[i], i);
	return h;
}

static void note_rank(views_t *v, uint32_t r, const ibf_ucxi_a2a_sched_t *s,
		      a2a_sim_result_t *res)
{
	uint32_t x = v->rank_host[r], ns = 0, nr = 0;

	if (s->nlocal != v->first[x + 1] - v->first[x] - 1)
		bad(res, "rank %u: %u local peers, host %u", r, s->nlocal, x);
	for (uint32_t f = 0; f < s->nframes; f++) {
		uint32_t y = group_host(v, s->send_peer, s->send_off[f],
					s->send_off[f + 1], x, res);
		uint32_t z = group_host(v, s->recv_peer, s->recv_off[f],
					s->recv_off[f + 1], x, res);

		if (y != IBF_UCXI_NOPEER) {
			note_frame(v->send_frame, x * v->nh + y, f, res,
				   "host pair %u: frame %u and %u");
			ns++;
		}
		if (z != IBF_UCXI_NOPEER) {
			note_frame(v->recv_frame, z * v->nh + x, f, res,
				   "host pair %u: frame %u and %u (receivers)");
			nr++;
		}
		v->need[(size_t)r * v->nf + f] = s->send_need[f];
		v->xneed[(size_t)r * v->nf + f] = s->xsend_need[f];
	}
	if (ns != v->nh - 1 || nr != v->nh - 1)
		bad(res, "rank %u: %u send and %u receive groups", r, ns, nr);
	for (uint32_t k = 0; k < s->rel_off[s->nframes]; k++) {
		v->got[(size_t)s->rel_rank[k] * v->nf + s->rel_frame[k]]++;
		v->msgs[s->rel_rank[k]] += s->rel_rank[k] != r;
	}
	for (uint32_t k = 0; k < s->xrel_off[s->nframes]; k++) {
		v->xgot[(size_t)s->xrel_rank[k] * v->nf + s->xrel_frame[k]]++;
		v->xmsgs[s->xrel_rank[k]]++;
	}
	v->nin[r] = s->nrel_in;
	v->xnin[r] = s->nxrel_in;
}

static void check_views(const views_t *v, a2a_sim_result_t *res)
{
	for (uint32_t x = 0; x < v->nh; x++)
		for (uint32_t y = 0; y < v->nh; y++)
			if (x != y && (v->send_frame[x * v->nh + y] >= v->nf ||
				       v->send_frame[x * v->nh + y] !=
				       v->recv_frame[x * v->nh + y]))
				bad(res, "host pair %u -> %u: frames differ "
				    "(%u)", x, y, v->send_frame[x * v->nh + y]);
	for (size_t i = 0; i < (size_t)v->n * v->nf; i++)
		if (v->need[i] != v->got[i] || v->xneed[i] != v->xgot[i])
			bad(res, "rank %u frame %u: waits for %u releases",
			    (uint32_t)(i / v->nf), (uint32_t)(i % v->nf),
			    v->need[i]);
	for (uint32_t r = 0; r < v->n; r++)
		if (v->nin[r] != v->msgs[r] || v->xnin[r] != v->xmsgs[r])
			bad(res, "rank %u: expects %u releases, %u listed", r,
			    v->nin[r], v->msgs[r]);
}

/* No egress port twice in one frame, traced here through the LFTs
 * (host pairs taken frame by frame: a counting sort). */
static void check_links(const ibf_fabric_t *f, const ibf_lfts_t *l,
			const ibf_port_id_t *ports, const views_t *v,
			a2a_sim_result_t *res)
{
	size_t hh = (size_t)v->nh * v->nh;
	uint32_t *used = malloc(((size_t)f->nports + 1) * sizeof(uint32_t));
	uint64_t *at = calloc((size_t)v->nf + 2, sizeof(uint64_t));
	uint32_t *order = malloc((hh + 1) * sizeof(uint32_t));
	ibf_port_id_t hops[HOPS_MAX];
	unsigned m;

	if (!used || !at || !order) {
		bad(res, "out of memory (%u %u %u)", 0, 0, 0);
		goto out;
	}
	for (uint32_t p = 0; p <= f->nports; p++)
		used[p] = IBF_UCXI_NOPEER;
	for (size_t i = 0; i < hh; i++)
		if (i / v->nh != i % v->nh)
			at[v->send_frame[i] + 2]++;
	for (uint32_t fr = 0; fr < v->nf; fr++)
		at[fr + 2] += at[fr + 1];
	for (size_t i = 0; i < hh; i++)
		if (i / v->nh != i % v->nh)
			order[at[v->send_frame[i] + 1]++] = (uint32_t)i;
	for (uint32_t fr = 0; fr < v->nf; fr++)
		for (uint64_t k = at[fr]; k < at[fr + 1]; k++) {
			uint32_t x = order[k] / v->nh, y = order[k] % v->nh;

			if (ibf_trace(l, ports[x], ibf_port(f, ports[y])->lid,
				      hops, HOPS_MAX, &m) != IBF_TRACE_OK)
				bad(res, "no route %u -> %u (%u)", x, y, 0);
			for (unsigned j = 0; j < m && j < HOPS_MAX; j++) {
				if (used[hops[j]] == fr)
					bad(res, "frame %u: port %u twice "
					    "(host %u)", fr, hops[j], x);
				used[hops[j]] = fr;
			}
		}
out:
	free(used);
	free(at);
	free(order);
}

/* ---- predecessors by brute force ----------------------------------------
 *
 * Small plans only (BRUTE_MAX_HOSTS): every host pair's path traced here
 * through the LFTs, each link's user per frame in a table, and the lists
 * the slices carry computed again from their definition, pair by pair in
 * frame order: a pair waits for the latest earlier user of each of its
 * links, unless that one is already on the list of another of them; in
 * the next call, on each link it is the first to use, for that link's
 * last user.  The slices' lists must be exactly these (as multisets of
 * hosts, and of host and frame for the releases). */

#define BRUTE_MAX_HOSTS 64

typedef struct brute {
	uint32_t nh, nf, np;           /* hosts, frames, nh * nh */
	uint32_t *len, *hop;           /* [np], [np * HOPS_MAX] paths */
	uint32_t *user;                /* [nports * nf] pair using a link */
	uint32_t *npred, *pred;        /* [np], [np * HOPS_MAX] */
	uint32_t *nxpred, *xpred;
	const uint32_t *frame;         /* [np] v->send_frame */
} brute_t;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool on_list(const uint32_t *l, uint32_t n, uint32_t q)
{
	for (uint32_t i = 0; i < n; i++)
		if (l[i] == q)
			return true;
	return false;
}

/* Pair k's two lists from the users of its links. */
static void brute_lists(brute_t *b, uint32_t nports, uint32_t k)
{
	uint32_t cand[HOPS_MAX], nc = 0, fk = b->frame[k];
	uint32_t *pr = b->pred + (size_t)k * HOPS_MAX;
	uint32_t *xp = b->xpred + (size_t)k * HOPS_MAX;

	(void)nports;
	for (uint32_t i = 0; i < b->len[k]; i++) {
		const uint32_t *u = b->user + (size_t)b->hop[(size_t)k *
							HOPS_MAX + i] * b->nf;
		uint32_t last = IBF_UCXI_NOPEER, g;

		for (g = fk; g-- > 0 && u[g] == IBF_UCXI_NOPEER;)
			;
		if (g != UINT32_MAX) {
			if (!on_list(cand, nc, u[g]))
				cand[nc++] = u[g];
			continue;
		}
		for (g = b->nf; g-- > 0 && last == IBF_UCXI_NOPEER;)
			last = u[g];
		if (!on_list(xp, b->nxpred[k], last))
			xp[b->nxpred[k]++] = last;
	}
	for (uint32_t i = 0; i < nc; i++) {
		bool implied = false;

		for (uint32_t j = 0; j < nc && !implied; j++)
			implied = j != i && on_list(b->pred + (size_t)cand[j] *
						    HOPS_MAX, b->npred[cand[j]],
						    cand[i]);
		if (!implied)
			pr[b->npred[k]++] = cand[i];
	}
}

/* The record of host x's slice for peer y (r 0, 1: x's send to y; 2,
 * 3: its receive from y) in the layout of a2a_plan.c, above slices():
 * sections of sends {frame, host, n, n entries}, receives {frame, host,
 * n, n successors}, then the next call's {frame, n, ...} for sends and
 * for receives, each after its count; a successor is one word, frame x
 * hosts + host, where hosts x frames fit in 32 bits, else host and frame.
 * Its entries' keys (host, or host << 32 | frame), sorted; their
 * number. */
static uint32_t slice_list(const uint32_t *w, uint32_t n, int r, uint32_t y,
			   uint64_t *out)
{
	size_t at = 3;
	const uint32_t *rec = NULL;
	uint32_t m = 0, cnt[4] = { n - 1, n - 1, 0, 0 }, frame = UINT32_MAX;
	bool packed = (uint64_t)n * w[2] <= (uint64_t)UINT32_MAX + 1;

	for (int sec = 0; sec < 4; sec++) {
		uint32_t hd = sec < 2 ? 3 : 2, wd = sec % 2 && !packed ? 2 : 1;

		if (sec >= 2)
			cnt[sec] = w[at++];
		for (uint32_t i = 0; i < cnt[sec]; i++) {
			const uint32_t *x = w + at;

			/* sections: 0 send, 1 receive, 2 next sends, 3 next
			 * receives; relations r: 0 pred, 1 xpred, 2 succ, 3
			 * xsucc */
			if (sec < 2 && sec == r / 2 && x[1] == y)
				frame = x[0];
			if (sec == (r % 2 ? 2 : 0) + r / 2 && x[0] == frame)
				rec = x;
			at += hd + (size_t)wd * x[hd - 1];
		}
	}
	for (uint32_t e = 0; rec && e < rec[(r % 2 ? 2 : 3) - 1]; e++, m++) {
		const uint32_t *x = rec + (r % 2 ? 2 : 3) +
				    (r < 2 || packed ? e : 2 * e);

		if (r < 2)
			out[m] = x[0];
		else if (packed)
			out[m] = (uint64_t)(x[0] % n) << 32 | x[0] / n;
		else
			out[m] = (uint64_t)x[0] << 32 | x[1];
	}
	qsort(out, m, sizeof(*out), cmp_u64);
	return m;
}

/* The same list from the brute force: k's predecessors by destination, or
 * the pairs whose lists hold k by source and frame. */
static uint32_t brute_list(const brute_t *b, int r, uint32_t k, uint64_t *out)
{
	uint32_t m = 0;

	if (r < 2) {
		const uint32_t *l = (r ? b->xpred : b->pred) +
				    (size_t)k * HOPS_MAX;
		uint32_t c = r ? b->nxpred[k] : b->npred[k];

		for (uint32_t i = 0; i < c; i++)
			out[m++] = l[i] % b->nh;
	} else {
		for (uint32_t q = 0; q < b->np; q++)
			if (b->len[q] && on_list((r == 3 ? b->xpred : b->pred) +
						 (size_t)q * HOPS_MAX, r == 3 ?
						 b->nxpred[q] : b->npred[q], k))
				out[m++] = (uint64_t)(q / b->nh) << 32 |
					   b->frame[q];
	}
	qsort(out, m, sizeof(*out), cmp_u64);
	return m;
}

static bool brute_alloc(brute_t *b, uint32_t nports)
{
	size_t big = (size_t)b->np * HOPS_MAX + 1;

	b->len = calloc(b->np + 1, sizeof(uint32_t));
	b->hop = malloc(big * sizeof(uint32_t));
	b->user = malloc(((size_t)nports * b->nf + 1) * sizeof(uint32_t));
	b->npred = calloc(b->np + 1, sizeof(uint32_t));
	b->nxpred = calloc(b->np + 1, sizeof(uint32_t));
	b->pred = malloc(big * sizeof(uint32_t));
	b->xpred = malloc(big * sizeof(uint32_t));
	if (!b->len || !b->hop || !b->user || !b->npred || !b->nxpred ||
	    !b->pred || !b->xpred)
		return false;
	memset(b->user, 0xff, ((size_t)nports * b->nf + 1) * sizeof(uint32_t));
	return true;
}

static void brute_free(brute_t *b)
{
	free(b->len);
	free(b->hop);
	free(b->user);
	free(b->npred);
	free(b->nxpred);
	free(b->pred);
	free(b->xpred);
}

static void check_preds(const ibf_fabric_t *f, const ibf_lfts_t *l,
			const ibf_port_id_t *ports, const views_t *v,
			const ibf_ucxi_a2a_plan_t *p, a2a_sim_result_t *res)
{
	brute_t b = { .nh = v->nh, .nf = v->nf, .np = v->nh * v->nh,
		      .frame = v->send_frame };
	uint64_t want[2 * HOPS_MAX * BRUTE_MAX_HOSTS];
	uint64_t got[2 * HOPS_MAX * BRUTE_MAX_HOSTS];
	ibf_port_id_t hops[HOPS_MAX];
	unsigned m;

	if (!brute_alloc(&b, f->nports)) {
		bad(res, "out of memory (%u %u %u)", 1, 0, 0);
		goto out;
	}
	for (uint32_t k = 0; k < b.np; k++) {
		uint32_t x = k / b.nh, y = k % b.nh;

		if (x == y)
			continue;
		if (ibf_trace(l, ports[x], ibf_port(f, ports[y])->lid, hops,
			      HOPS_MAX, &m) != IBF_TRACE_OK || !m)
			bad(res, "no route %u -> %u (%u)", x, y, 1);
		for (unsigned j = 0; j < m; j++) {
			b.hop[(size_t)k * HOPS_MAX + j] = hops[j];
			b.user[(size_t)hops[j] * b.nf + b.frame[k]] = k;
		}
		b.len[k] = m;
	}
	/* frame order: every pair's earlier users have their lists */
	for (uint32_t fr = 0; fr < b.nf; fr++)
		for (uint32_t k = 0; k < b.np; k++)
			if (b.len[k] && b.frame[k] == fr)
				brute_lists(&b, f->nports, k);
	for (uint32_t k = 0; k < b.np && !res->bad[0]; k++) {
		uint32_t x = k / b.nh, y = k % b.nh;

		for (int r = 0; b.len[k] && r < 4; r++) {
			uint32_t h = r < 2 ? x : y, peer = r < 2 ? y : x;
			uint32_t nw = brute_list(&b, r, k, want);
			uint32_t ng = slice_list(p->words + p->off[h], b.nh, r,
						 peer, got);

			if (nw != ng || memcmp(want, got, nw * sizeof(*got)))
				bad(res, "host pair %u -> %u: relation %u "
				    "differs from the brute force", x, y,
				    (uint32_t)r);
		}
	}
out:
	brute_free(&b);
}

typedef struct sim {
	ibf_fabric_t *f;
	ibf_routing_t *ro;
	ibf_ucx_config_t cfg;
	struct ibf_ucx u;
	uint32_t *first;          /* [nhosts + 1] first rank of each host */
} sim_t;

static int sim_build(sim_t *s, const char *spec, const char *engine,
		     uint32_t nhosts, const uint32_t *ppn,
		     a2a_sim_result_t *res)
{
	ibf_err_t e;
	uint32_t n = 0;

	if (ibf_gen(spec, NULL, &s->f, &e) != IBF_OK ||
	    ibf_route(s->f, engine, NULL, &s->ro, &e) != IBF_OK) {
		snprintf(res->why, sizeof(res->why), "%.40s %.20s: %.400s", spec,
			 engine, e.msg);
		return -1;
	}
	if (nhosts > s->f->nendpoints) {
		snprintf(res->why, sizeof(res->why), "%s: %u hosts only",
			 spec, s->f->nendpoints);
		return -1;
	}
	for (uint32_t h = 0; h < nhosts; h++)
		n += ppn[h];
	s->u.cfg = &s->cfg;
	s->u.size = n;
	s->u.aware = true;
	s->u.fab.fabric = s->f;
	s->u.fab.lfts = s->ro->lfts;
	s->u.nhosts = nhosts;
	s->u.hosts.n = nhosts;
	s->u.hosts.ports = malloc(((size_t)nhosts + 1) * sizeof(ibf_port_id_t));
	s->u.host_leader = malloc(((size_t)nhosts + 1) * sizeof(uint32_t));
	s->u.rank_host = malloc(((size_t)n + 1) * sizeof(uint32_t));
	s->first = malloc(((size_t)nhosts + 1) * sizeof(uint32_t));
	if (!s->u.hosts.ports || !s->u.host_leader || !s->u.rank_host ||
	    !s->first) {
		snprintf(res->why, sizeof(res->why), "out of memory");
		return -1;
	}
	n = 0;
	for (uint32_t h = 0; h < nhosts; h++) {
		s->u.hosts.ports[h] = s->f->endpoints[(uint64_t)h *
						      s->f->nendpoints / nhosts];
		s->u.host_leader[h] = s->first[h] = n;
		for (uint32_t k = 0; k < ppn[h]; k++)
			s->u.rank_host[n++] = h;
	}
	s->first[nhosts] = n;
	return 0;
}

static void sim_free(sim_t *s)
{
	free(s->u.hosts.ports);
	free(s->u.host_leader);
	free(s->u.rank_host);
	free(s->first);
	if (s->ro)
		ibf_routing_destroy(s->ro);
	if (s->f)
		ibf_fabric_destroy(s->f);
}

static int views_alloc(views_t *v, const sim_t *s, uint32_t nf)
{
	size_t nn = (size_t)s->u.size * nf + 1, hh = (size_t)s->u.nhosts *
						     s->u.nhosts + 1;

	v->n = s->u.size;
	v->nh = s->u.nhosts;
	v->nf = nf;
	v->rank_host = s->u.rank_host;
	v->first = s->first;
	v->send_frame = malloc(hh * sizeof(uint32_t));
	v->recv_frame = malloc(hh * sizeof(uint32_t));
	v->need = calloc(nn, sizeof(uint32_t));
	v->xneed = calloc(nn, sizeof(uint32_t));
	v->got = calloc(nn, sizeof(uint32_t));
	v->xgot = calloc(nn, sizeof(uint32_t));
	v->nin = calloc(v->n + 1, sizeof(uint32_t));
	v->xnin = calloc(v->n + 1, sizeof(uint32_t));
	v->msgs = calloc(v->n + 1, sizeof(uint32_t));
	v->xmsgs = calloc(v->n + 1, sizeof(uint32_t));
	if (!v->send_frame || !v->recv_frame || !v->need || !v->xneed ||
	    !v->got || !v->xgot || !v->nin || !v->xnin || !v->msgs ||
	    !v->xmsgs)
		return -1;
	memset(v->send_frame, 0xff, hh * sizeof(uint32_t));
	memset(v->recv_frame, 0xff, hh * sizeof(uint32_t));
	return 0;
}

static void views_free(views_t *v)
{
	free(v->send_frame);
	free(v->recv_frame);
	free(v->need);
	free(v->xneed);
	free(v->got);
	free(v->xgot);
	free(v->nin);
	free(v->xnin);
	free(v->msgs);
	free(v->xmsgs);
}


/* Rank r takes its part; v (or NULL) notes it. */
static void take_one(const sim_t *s, const ibf_ucxi_a2a_plan_t *p,
		     views_t *v, uint32_t r, a2a_sim_result_t *res)
{
	{
		uint32_t h = s->u.rank_host[r];
		size_t nw = p->off[h + 1] - p->off[h];
		uint32_t *w = malloc(nw * sizeof(uint32_t) + 1);
		ibf_ucxi_a2a_sched_t sc;
		ibf_ucx_err_t e;
		double t0;
		size_t kept, peak;

		if (!w) {
			bad(res, "rank %u: out of memory (%u %u)", r, 0, 0);
			return;
		}
		/* what the scatter delivers: a copy of the host's slice */
		memcpy(w, p->words + p->off[h], nw * sizeof(uint32_t));
		t0 = cpu_now();
		if (ibf_ucxi_a2a_slice_take(s->u.size, r, s->u.rank_host,
					    s->u.nhosts, &p->hdr, w, nw, &sc,
					    &e) != IBF_UCX_OK) {
			snprintf(res->bad, sizeof(res->bad), "rank %u: %.200s", r,
				 e.msg);
			free(w);
			return;
		}
		t0 = cpu_now() - t0;
		kept = ibf_ucxi_a2a_sched_bytes(&sc);
		/* the expansion's scratch: ranks by host, two frame maps */
		peak = kept + nw * sizeof(uint32_t) +
		       sizeof(uint32_t) * ((size_t)s->u.size + s->u.nhosts +
					   3 + 2 * ((size_t)sc.nframes + 1));
		if (r != 0) {
			if (t0 > res->take_max_s)
				res->take_max_s = t0;
			if (kept > res->kept_max)
				res->kept_max = kept;
			if (peak > res->peak_max)
				res->peak_max = peak;
		}
		if (nw * sizeof(uint32_t) > res->slice_max)
			res->slice_max = nw * sizeof(uint32_t);
		if (v)
			note_rank(v, r, &sc, res);
		ibf_ucxi_a2a_sched_free(&sc);
		free(w);
	}
}

/* Every rank takes its part, one after the other (the planner too, as
 * in the runtime; its figures are not the others'); or the planner and
 * ranks 1, 1 + every, 1 + 2 every, ... */
static void take_all(const sim_t *s, const ibf_ucxi_a2a_plan_t *p,
		     views_t *v, uint32_t every, a2a_sim_result_t *res)
{
	take_one(s, p, v, 0, res);
	for (uint32_t r = 1; r < s->u.size && !res->bad[0]; r += every)
		take_one(s, p, v, r, res);
}

int a2a_sim_run(const char *spec, const char *engine, uint32_t nhosts,
		const uint32_t *ppn, uint64_t max_transfers, bool check,
		a2a_sim_result_t *res)
{
	return a2a_sim_run_with(spec, engine, nhosts, ppn, max_transfers, 0,
				check, 1, res);
}

int a2a_sim_run_every(const char *spec, const char *engine,
		      uint32_t nhosts, const uint32_t *ppn,
		      uint64_t max_transfers, bool check, uint32_t every,
		      a2a_sim_result_t *res)
{
	return a2a_sim_run_with(spec, engine, nhosts, ppn, max_transfers, 0,
				check, every, res);
}

int a2a_sim_run_gain(const char *spec, const char *engine, uint32_t nhosts,
		     const uint32_t *ppn, uint64_t max_transfers,
		     double need_gain, bool check, a2a_sim_result_t *res)
{
	return a2a_sim_run_with(spec, engine, nhosts, ppn, max_transfers,
				need_gain, check, 1, res);
}

int a2a_sim_run_with(const char *spec, const char *engine, uint32_t nhosts,
		     const uint32_t *ppn, uint64_t max_transfers,
		     double need_gain, bool check, uint32_t every,
		     a2a_sim_result_t *res)
{
	ibf_ucxi_a2a_ask_t ask = { .max_transfers = max_transfers,
				   .need_gain = need_gain,
				   .transport = "RDMA" };

	ibf_ucxi_a2a_plan_t p;
	sim_t s;
	views_t v;
	double t0;

	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	memset(&v, 0, sizeof(v));
	if (sim_build(&s, spec, engine, nhosts, ppn, res) != 0) {
		sim_free(&s);
		return -1;
	}
	res->nranks = s.u.size;
	res->nhosts = nhosts;
	t0 = cpu_now();
	ibf_ucxi_a2a_plan(&s.u, &ask, &p);
	res->plan_cpu_s = cpu_now() - t0;
	res->verdict = p.hdr.verdict;
	snprintf(res->why, sizeof(res->why), "%s", p.hdr.why);
	res->nframes = p.hdr.nframes;
	res->duration = p.hdr.duration;
	res->rr_frames = p.hdr.rr_frames;
	if (p.hdr.verdict == IBF_UCX_OK) {
		res->slices_bytes = p.off[nhosts] * sizeof(uint32_t);
		if (!check) {
			take_all(&s, &p, NULL, every ? every : 1, res);
		} else if (views_alloc(&v, &s, p.hdr.nframes) != 0) {
			snprintf(res->bad, sizeof(res->bad), "out of memory");
		} else {
			take_all(&s, &p, &v, 1, res);
			check_views(&v, res);
			if (!res->bad[0])
				check_links(s.f, s.ro->lfts, s.u.hosts.ports,
					    &v, res);
			if (!res->bad[0] && nhosts <= BRUTE_MAX_HOSTS)
				check_preds(s.f, s.ro->lfts, s.u.hosts.ports,
					    &v, &p, res);
		}
	}
	views_free(&v);
	ibf_ucxi_a2a_plan_free(&p);
	sim_free(&s);
	return 0;
}
