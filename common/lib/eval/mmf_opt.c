/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The MMF-MCF optimum on PGFTs through the sub-fat-tree representation.
 * See mmf_opt.h and docs/mmf.md, "Optimum".
 *
 * Aggregated links (one per set of interchangeable links under UAPR):
 *   - level 0: each endpoint's injection link (up) and ejection link (down);
 *   - level l = 1..h-1: for each level-l subtree and plane (x_1 of its
 *     leaves), all up-links from its level-l switches to level l+1 (up),
 *     and all down-links from level l+1 into those switches (down).
 * A flow whose leaves have their nearest common ancestors at level k uses
 * the up sets of its source at levels 0..k-1 and the down sets of its
 * destination at levels 0..k-1, each with fraction 1: under UAPR every link
 * of such a set carries 1/|set| of every flow crossing the set, so the set
 * behaves as one link of capacity |set| x c.
 *
 * Numbering, from the recognizer's ranks (label as mixed radix, x_h most
 * significant): a level-l switch of rank r lies in level-l subtree
 * r / wprod[l] and plane r % w_1; its set at level l is
 * (r / wprod[l]) * w_1 + r % w_1, one of mprod[l] * w_1.
 */
#include <ibflow/mmf_opt.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

#define NOT_COMPUTED "exact MMF-MCF optimum not computed: "

/* Aggregated link numbering and per-endpoint placement. */
struct agg {
	unsigned h, w1;
	uint32_t nep;
	uint32_t base_up[IBF_PGFT_MAX_H], base_down[IBF_PGFT_MAX_H];
	uint32_t msub[IBF_PGFT_MAX_H + 1]; /* prod(i=2..l) m_i */
	uint32_t nlinks;
	uint32_t *q;     /* per endpoint index: leaf's level-1 subtree */
	uint32_t *x1;    /* per endpoint index: plane */
	double *cap;     /* [nlinks]: per-link capacity, NAN = unset */
	uint32_t *size;  /* [nlinks]: links in the set */
	/* ibf_port_capacity() of the last (width, speed) seen: ports of a
	 * fat tree mostly share one, and this runs once per instance. */
	uint8_t last_width, last_speed;
	double last_cap;
};

static double port_cap(struct agg *a, const ibf_port_t *p)
{
	if (p->width != a->last_width || p->speed != a->last_speed ||
	    isnan(a->last_cap)) {
		a->last_width = p->width;
		a->last_speed = p->speed;
		a->last_cap = ibf_port_capacity(p);
	}
	return a->last_cap;
}

static void agg_free(struct agg *a)
{
	free(a->q);
	free(a->x1);
	free(a->cap);
	free(a->size);
}

static ibf_status_t check_shape(const ibf_pgft_t *pg, const ibf_fabric_t *f,
				ibf_err_t *err)
{
	if (!pg)
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED, NOT_COMPUTED
				   "the fabric is not a PGFT (only fat trees "
				   "have the exact sub-fat-tree solution)");
	if (pg->fabric != f)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "PGFT recognized on another fabric");
	/* Missing hosts (and host links) only remove flows: every subtree
	 * keeps all its links, and the argument stands. */
	if (!ibf_pgft_switches_whole(pg)) {
		uint64_t sw = pg->missing_nodes -
			      (pg->level_count[0] - pg->level_present[0]);
		char more[48] = "";

		if (sw)
			snprintf(more, sizeof(more), ", %llu switches",
				 (unsigned long long)sw);
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED, NOT_COMPUTED
				   "degraded PGFT (%u links missing%s): its "
				   "sub-fat-trees are no longer symmetric, so "
				   "UAPR is not the optimum",
				   pg->missing_links, more);
	}
	return IBF_OK;
}

/* Record one link of set s with capacity c; refuse unequal capacities. */
static ibf_status_t agg_add(struct agg *a, uint32_t s, double c,
			    const ibf_fabric_t *f, ibf_port_id_t port,
			    unsigned level, const char *dir, ibf_err_t *err)
{
	char name[128];

	ibf_node_name(f, f->ports[port].node, name, sizeof(name));
	if (!(c > 0) || !isfinite(c))
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "port %u of \"%s\": capacity %g",
				   f->ports[port].num, name, c);
	if (isnan(a->cap[s]))
		a->cap[s] = c;
	else if (a->cap[s] != c)
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED, NOT_COMPUTED
				   "level-%u %s-links of one sub-fat-tree have "
				   "different capacities (%g and %g at port %u "
				   "of \"%s\"); the symmetry argument needs "
				   "them equal", level, dir, a->cap[s], c,
				   f->ports[port].num, name);
	a->size[s]++;
	return IBF_OK;
}

static ibf_status_t agg_endpoints(struct agg *a, const ibf_pgft_t *pg,
				  const ibf_fabric_t *f, ibf_err_t *err)
{
	ibf_status_t st;
	uint32_t e;

	for (e = 0; e < a->nep; e++) {
		ibf_port_id_t ep = f->endpoints[e];
		ibf_port_id_t peer = f->ports[ep].peer;
		uint32_t r = pg->rank[ibf_pgft_ep_leaf(pg, ep)];

		a->q[e] = r / a->w1;
		a->x1[e] = r % a->w1;
		st = agg_add(a, e, port_cap(a, &f->ports[ep]), f, ep,
			     0, "up", err);
		if (st == IBF_OK)
			st = agg_add(a, a->nep + e,
				     port_cap(a, &f->ports[peer]), f,
				     peer, 0, "down", err);
		if (st != IBF_OK)
			return st;
	}
	return IBF_OK;
}

/* Up-links of level-l switches (and their reverse down-links). */
static ibf_status_t agg_level(struct agg *a, const ibf_pgft_t *pg,
			      const ibf_fabric_t *f, unsigned l, ibf_err_t *err)
{
	unsigned slots = pg->w[l + 1] * pg->p[l + 1], j;
	ibf_status_t st;
	uint32_t r;

	for (r = 0; r < pg->level_count[l]; r++) {
		ibf_node_id_t n = pg->node_at[pg->level_off[l] + r];
		uint32_t s = (uint32_t)(r / pg->wprod[l]) * a->w1 +
			     r % a->w1;

		for (j = 0; j < slots; j++) {
			ibf_port_id_t up = ibf_node_port_id(f, n,
				pg->up_port[pg->up_off[n] + j]);
			ibf_port_id_t dn = f->ports[up].peer;

			st = agg_add(a, a->base_up[l] + s,
				     port_cap(a, &f->ports[up]), f, up,
				     l, "up", err);
			if (st == IBF_OK)
				st = agg_add(a, a->base_down[l] + s,
					     port_cap(a, &f->ports[dn]),
					     f, dn, l, "down", err);
			if (st != IBF_OK)
				return st;
		}
	}
	return IBF_OK;
}

static ibf_status_t agg_build(struct agg *a, const ibf_pgft_t *pg,
			      const ibf_fabric_t *f, ibf_err_t *err)
{
	uint64_t n;
	unsigned l;
	ibf_status_t st;

	memset(a, 0, sizeof(*a));
	st = check_shape(pg, f, err);
	if (st != IBF_OK)
		return st;
	a->h = pg->h;
	a->w1 = pg->w[1];
	a->nep = f->nendpoints;
	n = 2 * (uint64_t)a->nep;
	a->msub[1] = 1;
	for (l = 1; l <= a->h; l++) {
		if (l >= 2)	/* divides the leaf count: fits */
			a->msub[l] = a->msub[l - 1] * pg->m[l];
		if (l == a->h)
			break;
		a->base_up[l] = (uint32_t)n;
		n += pg->mprod[l] * a->w1;
		a->base_down[l] = (uint32_t)n;
		n += pg->mprod[l] * a->w1;
	}
	if (n >= UINT32_MAX)
		return ibf_err_set(err, IBF_ERR_RANGE, "PGFT too large");
	a->nlinks = (uint32_t)n;
	a->last_cap = NAN;
	a->q = calloc(a->nep ? a->nep : 1, sizeof(*a->q));
	a->x1 = calloc(a->nep ? a->nep : 1, sizeof(*a->x1));
	a->cap = malloc(n * sizeof(*a->cap));
	a->size = calloc(n ? n : 1, sizeof(*a->size));
	if (!a->q || !a->x1 || !a->cap || !a->size) {
		agg_free(a);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (n = 0; n < a->nlinks; n++)
		a->cap[n] = NAN;
	st = agg_endpoints(a, pg, f, err);
	for (l = 1; st == IBF_OK && l < a->h; l++)
		st = agg_level(a, pg, f, l, err);
	if (st != IBF_OK)
		agg_free(a);
	return st;
}

ibf_status_t ibf_mmf_opt_supported(const ibf_pgft_t *pg,
				   const ibf_fabric_t *f, ibf_err_t *err)
{
	struct agg a;
	ibf_status_t st = agg_build(&a, pg, f, err);

	if (st == IBF_OK)
		agg_free(&a);
	return st;
}

static const char *ep_name(const ibf_fabric_t *f, ibf_port_id_t p,
			   char *buf, size_t len)
{
	if (p >= f->nports)
		return "?";
	if (ibf_node_is_switch(f, f->ports[p].node))
		return ibf_node_name(f, f->ports[p].node, buf, len);
	return ibf_port_host_name(f, p, buf, len);
}

/* Endpoint index of port p, or UINT32_MAX. */
static uint32_t ep_index(const ibf_fabric_t *f, ibf_port_id_t p)
{
	uint32_t e;

	if (p >= f->nports)
		return UINT32_MAX;
	e = f->endpoint_index[p];
	if (e >= f->nendpoints || f->endpoints[e] != p)
		return UINT32_MAX;
	return e;
}

/* The aggregated links of flow fl into links[]; returns their count or 0
 * with err set. */
static unsigned flow_links(const struct agg *a, const ibf_fabric_t *f,
			   const ibf_flow_t *fl, uint32_t *links,
			   ibf_err_t *err)
{
	uint32_t s = ep_index(f, fl->src), d = ep_index(f, fl->dst);
	unsigned k, l, n = 0;
	char sn[128], dn[128];

	if (s == UINT32_MAX || d == UINT32_MAX) {
		ibf_err_set(err, IBF_ERR_INVALID,
			    "flow %s -> %s: %s is not a connected host port",
			    ep_name(f, fl->src, sn, sizeof(sn)),
			    ep_name(f, fl->dst, dn, sizeof(dn)),
			    s == UINT32_MAX ? "source" : "destination");
		return 0;
	}
	if (s == d || !fl->count || a->x1[s] != a->x1[d]) {
		ibf_err_set(err, IBF_ERR_INVALID, "flow %s -> %s: %s",
			    ep_name(f, fl->src, sn, sizeof(sn)),
			    ep_name(f, fl->dst, dn, sizeof(dn)),
			    s == d ? "source and destination are the same "
				     "host port (no network path)" :
			    !fl->count ? "COUNT 0" :
			    "the ports lie in different planes of the PGFT "
			    "(no path)");
		return 0;
	}
	/* NCA level k: the lowest level whose subtree holds both leaves. */
	for (k = 1; k < a->h; k++)
		if (a->q[s] / a->msub[k] == a->q[d] / a->msub[k])
			break;
	links[n++] = s;
	links[n++] = a->nep + d;
	for (l = 1; l < k; l++) {
		links[n++] = a->base_up[l] +
			(a->q[s] / a->msub[l]) * a->w1 + a->x1[s];
		links[n++] = a->base_down[l] +
			(a->q[d] / a->msub[l]) * a->w1 + a->x1[d];
	}
	return n;
}

static ibf_status_t build_problem(const struct agg *a, const ibf_fabric_t *f,
				  const ibf_flow_t *flows, uint32_t nflows,
				  ibf_mmf_problem_t *p, ibf_err_t *err)
{
	uint32_t links[2 * IBF_PGFT_MAX_H];
	double ones[2 * IBF_PGFT_MAX_H];
	ibf_status_t st;
	uint32_t k;
	unsigned n;

	for (n = 0; n < 2 * IBF_PGFT_MAX_H; n++)
		ones[n] = 1.0;
	st = ibf_mmf_problem_init(p, a->nlinks, err);
	if (st != IBF_OK)
		return st;
	for (k = 0; k < a->nlinks; k++)
		p->capacity[k] = a->cap[k] * a->size[k];
	for (k = 0; k < nflows; k++) {
		n = flow_links(a, f, &flows[k], links, err);
		if (!n) {
			st = err ? err->status : IBF_ERR_INVALID;
			if (st == IBF_OK)
				st = IBF_ERR_INVALID;
			break;
		}
		st = ibf_mmf_problem_add_flow(p, flows[k].count, links, ones,
					      n, err);
		if (st != IBF_OK)
			break;
	}
	if (st != IBF_OK)
		ibf_mmf_problem_free(p);
	return st;
}

ibf_status_t ibf_mmf_opt_problem(const ibf_pgft_t *pg, const ibf_fabric_t *f,
				 const ibf_flow_t *flows, uint32_t nflows,
				 ibf_mmf_problem_t *p, ibf_err_t *err)
{
	struct agg a;
	ibf_status_t st;

	memset(p, 0, sizeof(*p));
	st = agg_build(&a, pg, f, err);
	if (st != IBF_OK)
		return st;
	st = build_problem(&a, f, flows, nflows, p, err);
	agg_free(&a);
	return st;
}

/* ---- progressive filling on the aggregated problem -----------------------
 *
 * ibf_mmf_solve() would do, but the aggregated problem is special: every
 * fraction is 1 and a flow has at most 2h links, so the coefficient sum of
 * a link is an exact integer (the weights of its unfrozen flows) and the
 * flows fit a fixed stride.  The heap is lazy: a link's level rem / sum
 * only rises when flows through it freeze (at a level t <= rem / sum), so
 * an update just marks the link dirty; a popped dirty link is pushed back
 * with its new level, a clean one is the true minimum.  That saves most
 * heap work (one re-push per link and level instead of one update per
 * (flow, link) entry).
 */

struct hent {
	double key;
	uint32_t link;
};

struct fill {
	uint32_t nlinks, nflows, stride;
	uint32_t *fl;        /* [nflows * stride] aggregated links */
	uint8_t *nl;         /* [nflows] links used */
	const ibf_flow_t *flows;
	double *rem;         /* [nlinks] capacity minus frozen load */
	uint64_t *sum;       /* [nlinks] weights of unfrozen flows */
	size_t *lfirst;      /* [nlinks + 1] link -> flows */
	uint32_t *lflow;
	uint8_t *dirty, *frozen;
	struct hent *heap;
	uint32_t n;
};

static void fill_free(struct fill *s)
{
	IBF_FREE_ALL(s->fl, s->nl, s->rem, s->sum, s->lfirst, s->lflow,
		     s->dirty, s->frozen, s->heap);
}

static void hdown(struct fill *s, uint32_t i)
{
	struct hent *h = s->heap, x = h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= s->n)
			break;
		if (c + 1 < s->n && h[c + 1].key < h[c].key)
			c++;
		if (!(h[c].key < x.key))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static void hpush(struct fill *s, double key, uint32_t link)
{
	struct hent *h = s->heap;
	uint32_t i = s->n++;

	while (i > 0 && key < h[(i - 1) / 2].key) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i].key = key;
	h[i].link = link;
}

static ibf_status_t fill_init(struct fill *s, const struct agg *a,
			      const ibf_fabric_t *f, const ibf_flow_t *flows,
			      uint32_t nflows, ibf_err_t *err)
{
	uint32_t L = a->nlinks, k, l;
	size_t e;
	unsigned j;

	memset(s, 0, sizeof(*s));
	s->nlinks = L;
	s->nflows = nflows;
	s->flows = flows;
	s->stride = 2 * a->h;
	s->fl = malloc(((size_t)nflows * s->stride + 1) * sizeof(*s->fl));
	s->nl = malloc((size_t)nflows + 1);
	s->rem = malloc(((size_t)L + 1) * sizeof(*s->rem));
	s->sum = calloc((size_t)L + 1, sizeof(*s->sum));
	s->lfirst = calloc((size_t)L + 1, sizeof(*s->lfirst));
	s->dirty = calloc((size_t)L + 1, 1);
	s->frozen = calloc((size_t)nflows + 1, 1);
	s->heap = malloc(((size_t)L + 1) * sizeof(*s->heap));
	if (!s->fl || !s->nl || !s->rem || !s->sum || !s->lfirst ||
	    !s->dirty || !s->frozen || !s->heap)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (k = 0; k < nflows; k++) {
		uint32_t *v = &s->fl[(size_t)k * s->stride];

		s->nl[k] = (uint8_t)flow_links(a, f, &flows[k], v, err);
		if (!s->nl[k])
			return IBF_ERR_INVALID;
		for (j = 0; j < s->nl[k]; j++) {
			s->sum[v[j]] += flows[k].count;
			s->lfirst[v[j]]++;
		}
	}
	/* Counts to slice ends, then fill backwards: slices start there. */
	for (l = 0, e = 0; l < L; l++) {
		e += s->lfirst[l];
		s->lfirst[l] = e;
	}
	s->lfirst[L] = e;
	s->lflow = malloc((e + 1) * sizeof(*s->lflow));
	if (!s->lflow)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (k = nflows; k-- > 0;)
		for (j = 0; j < s->nl[k]; j++)
			s->lflow[--s->lfirst[s->fl[(size_t)k * s->stride + j]]] =
				k;
	for (l = 0; l < L; l++) {
		s->rem[l] = a->cap[l] * a->size[l];
		if (s->sum[l]) {
			s->heap[s->n].key = s->rem[l] / (double)s->sum[l];
			s->heap[s->n++].link = l;
		}
	}
	for (l = s->n / 2 + 1; l-- > 0;)
		if (l < s->n)
			hdown(s, l);
	return IBF_OK;
}

static void fill_freeze(struct fill *s, uint32_t k, double t, double *rate)
{
	const uint32_t *v = &s->fl[(size_t)k * s->stride];
	uint32_t w = s->flows[k].count;
	unsigned j;

	s->frozen[k] = 1;
	rate[k] = t;
	for (j = 0; j < s->nl[k]; j++) {
		s->rem[v[j]] -= w * t;
		s->sum[v[j]] -= w;
		s->dirty[v[j]] = 1;
	}
}

static void fill_run(struct fill *s, double *rate)
{
	double level = 0;

	while (s->n) {
		struct hent top = s->heap[0];
		uint32_t l = top.link;
		size_t i;

		s->heap[0] = s->heap[--s->n];
		hdown(s, 0);
		if (!s->sum[l])
			continue;       /* every flow through it is frozen */
		if (s->dirty[l]) {
			s->dirty[l] = 0;
			hpush(s, fmax(s->rem[l] / (double)s->sum[l], level), l);
			continue;
		}
		level = fmax(top.key, level);
		for (i = s->lfirst[l]; i < s->lfirst[l + 1]; i++)
			if (!s->frozen[s->lflow[i]])
				fill_freeze(s, s->lflow[i], level, rate);
	}
}

ibf_status_t ibf_mmf_opt_pgft(const ibf_pgft_t *pg, const ibf_fabric_t *f,
			      const ibf_flow_t *flows, uint32_t nflows,
			      double *rates, const ibf_mmf_opt_opts_t *o,
			      ibf_err_t *err)
{
	struct agg a;
	struct fill s;
	ibf_status_t st;

	(void)o;
	st = agg_build(&a, pg, f, err);
	if (st != IBF_OK)
		return st;
	st = fill_init(&s, &a, f, flows, nflows, err);
	if (st == IBF_OK)
		fill_run(&s, rates);
	fill_free(&s);
	agg_free(&a);
	return st;
}
