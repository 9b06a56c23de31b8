/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Liquid scheduling: traffics as link sets, loads and bottlenecks, the
 * greedy colouring used when the exact search (liquid_search.c) does not
 * finish, the round-robin baseline and the JSON output.
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/trace.h>

#include "base/array.h"
#include "base/hash.h"

#include "sched/liquid_ff.h"
#include "sched/liquid_search.h"

const char *ibf_liquid_method_str(ibf_liquid_method_t m)
{
	switch (m) {
	case IBF_LIQUID_SEARCH: return "liquid search";
	case IBF_LIQUID_SEARCH_GREEDY: return "search prefix + greedy";
	case IBF_LIQUID_GREEDY: return "greedy colouring";
	case IBF_LIQUID_ROUND_ROBIN: return "round robin";
	case IBF_LIQUID_FIRST_FIT: return "first fit";
	}
	return "?";
}

/* ---- traffics ---------------------------------------------------------- */

void ibf_liquid_traffic_destroy(ibf_liquid_traffic_t *t)
{
	if (!t)
		return;
	free(t->link_off);
	free(t->links);
	free(t->link_port);
	free(t->hosts);
	free(t->src);
	free(t->dst);
	free(t);
}

static ibf_liquid_traffic_t *traffic_alloc(uint32_t n, size_t nlinks_cap,
					   uint32_t nhosts)
{
	ibf_liquid_traffic_t *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ntransfers = n;
	t->nhosts = nhosts;
	t->link_off = calloc((size_t)n + 1, sizeof(uint32_t));
	t->links = malloc((nlinks_cap + 1) * sizeof(uint32_t));
	t->src = malloc(((size_t)n + 1) * sizeof(uint32_t));
	t->dst = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!t->link_off || !t->links || !t->src || !t->dst) {
		ibf_liquid_traffic_destroy(t);
		return NULL;
	}
	return t;
}

ibf_status_t ibf_liquid_traffic_from_sets(uint32_t n, const uint32_t *off,
					  const uint32_t *links,
					  uint32_t nhosts, const uint32_t *src,
					  const uint32_t *dst,
					  ibf_liquid_traffic_t **out,
					  ibf_err_t *err)
{
	ibf_liquid_traffic_t *t;
	uint32_t k = 0, maxl = 0;

	*out = NULL;
	if (n > IBF_LIQUID_MAX_TRANSFERS)
		return ibf_err_set(err, IBF_ERR_RANGE, "%u transfers: more "
				   "than %u, the most a traffic of stored link "
				   "sets holds (all-to-alls: "
				   "ibf_liquid_hplan_create)", n,
				   IBF_LIQUID_MAX_TRANSFERS);
	if (!src || !dst)
		nhosts = n + 1;
	t = traffic_alloc(n, off[n], nhosts);
	if (!t)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t m = off[i + 1] - off[i];

		if ((src && (src[i] >= nhosts || dst[i] >= nhosts)) || !m) {
			ibf_liquid_traffic_destroy(t);
			return ibf_err_set(err, IBF_ERR_INVALID, "transfer %u: "
					   "%s", i, m ? "host position out of "
					   "range" : "no link");
		}
		memcpy(t->links + k, links + off[i], m * sizeof(uint32_t));
		m = ibf_sort_unique_u32(t->links + k, m);
		if (t->links[k + m - 1] > maxl)
			maxl = t->links[k + m - 1];
		k += m;
		t->link_off[i + 1] = k;
		t->src[i] = src ? src[i] : i;
		t->dst[i] = dst ? dst[i] : i + 1;
	}
	t->nlinks = n ? maxl + 1 : 0;
	t->link_port = malloc(((size_t)t->nlinks + 1) * sizeof(ibf_port_id_t));
	if (!t->link_port) {
		ibf_liquid_traffic_destroy(t);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (uint32_t l = 0; l < t->nlinks; l++)
		t->link_port[l] = IBF_NO_ID;
	*out = t;
	return IBF_OK;
}

/* Builder state for traffics traced through LFTs.  Routes depend on the
 * first switch and the destination only, so each (first switch,
 * destination) is traced once and its path after the first link kept. */
struct tbuild {
	const ibf_lfts_t *l;
	ibf_liquid_traffic_t *t;
	uint32_t *port_link;     /* [nports] compact link id or LQ_NONE */
	ibf_port_id_t *hops;
	unsigned max_hops;
	uint32_t *hostpos;       /* [nports] position in t->hosts or NONE */
	size_t nlink_entries, cap;
	uint32_t next;           /* next transfer index */
	struct ibf_hash *seen;   /* (switch << 32 | dst) -> tail */
	uint32_t *toff;          /* tail k: tails[toff[k] .. toff[k + 1]) */
	uint32_t *tails;         /* link ids */
	uint32_t ntails, toff_cap, tails_n, tails_cap;
};

static ibf_status_t tb_init(struct tbuild *b, const ibf_lfts_t *l,
			    uint64_t ntransfers, uint32_t nhosts_max,
			    ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;

	memset(b, 0, sizeof(*b));
	if (ntransfers > IBF_LIQUID_MAX_TRANSFERS)
		return ibf_err_set(err, IBF_ERR_RANGE, "%llu transfers: more "
				   "than %u, the most a traffic of stored link "
				   "sets holds (all-to-alls: "
				   "ibf_liquid_hplan_create)",
				   (unsigned long long)ntransfers,
				   IBF_LIQUID_MAX_TRANSFERS);
	b->l = l;
	b->max_hops = f->nswitches + 2;
	b->cap = 1024;
	b->t = traffic_alloc((uint32_t)ntransfers, b->cap, 0);
	b->port_link = malloc(((size_t)f->nports + 1) * sizeof(uint32_t));
	b->hostpos = malloc(((size_t)f->nports + 1) * sizeof(uint32_t));
	b->hops = malloc(((size_t)b->max_hops + 1) * sizeof(ibf_port_id_t));
	if (b->t)
		b->t->hosts = malloc(((size_t)nhosts_max + 1) *
				     sizeof(ibf_port_id_t));
	if (b->t)
		b->t->link_port = malloc(((size_t)f->nports + 1) *
					 sizeof(ibf_port_id_t));
	b->seen = ibf_hash_create_u64();
	if (!b->t || !b->port_link || !b->hostpos || !b->hops ||
	    !b->t->hosts || !b->t->link_port || !b->seen)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (uint32_t p = 0; p < f->nports; p++)
		b->port_link[p] = b->hostpos[p] = LQ_NONE;
	return IBF_OK;
}

static void tb_free(struct tbuild *b)
{
	ibf_hash_destroy(b->seen);
	IBF_FREE_ALL(b->toff, b->tails, b->port_link, b->hostpos, b->hops);
	ibf_liquid_traffic_destroy(b->t);
}

static uint32_t tb_host(struct tbuild *b, ibf_port_id_t p)
{
	if (b->hostpos[p] == LQ_NONE) {
		b->hostpos[p] = b->t->nhosts;
		b->t->hosts[b->t->nhosts++] = p;
	}
	return b->hostpos[p];
}

static uint32_t tb_link(struct tbuild *b, ibf_port_id_t p)
{
	if (b->port_link[p] == LQ_NONE) {
		b->port_link[p] = b->t->nlinks;
		b->t->link_port[b->t->nlinks++] = p;
	}
	return b->port_link[p];
}

/* The path of src -> dst after its first link: from the cache, or traced
 * and cached.  *tail = tail index. */
static ibf_status_t tb_tail(struct tbuild *b, ibf_port_id_t src,
			    ibf_port_id_t dst, uint32_t *tail, ibf_err_t *err)
{
	const ibf_fabric_t *f = b->l->fabric;
	ibf_port_id_t peer = f->ports[src].peer;
	uint64_t key = peer == IBF_NO_ID ? UINT64_MAX :
		(uint64_t)f->ports[peer].node << 32 | dst;
	ibf_trace_result_t r;
	unsigned nh = 0;
	char n1[64], n2[64];
	uint32_t k = key == UINT64_MAX ? IBF_NO_ID :
		ibf_hash_get_u64(b->seen, key);

	if (k != IBF_NO_ID) {
		*tail = k;
		return IBF_OK;
	}
	r = ibf_trace(b->l, src, ibf_port_base_lid(f, dst), b->hops,
		      b->max_hops, &nh);
	if (r != IBF_TRACE_OK || nh > b->max_hops || !nh)
		return ibf_err_set(err, IBF_ERR_INVALID, "route %s -> %s is "
				   "not delivered: %s",
				   ibf_port_host_name(f, src, n1, sizeof(n1)),
				   ibf_port_host_name(f, dst, n2, sizeof(n2)),
				   ibf_trace_result_str(r));
	k = b->ntails;
	b->toff = ibf_array_grow32(b->toff, &b->toff_cap, (uint64_t)k + 2,
				   sizeof(uint32_t));
	b->tails = b->toff ? ibf_array_grow32(b->tails, &b->tails_cap,
					      (uint64_t)b->tails_n + nh,
					      sizeof(uint32_t)) : NULL;
	if (!b->toff || !b->tails ||
	    ibf_hash_put_u64(b->seen, key, k, NULL) != IBF_OK)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	if (!k)
		b->toff[0] = 0;
	for (unsigned i = 1; i < nh; i++)
		b->tails[b->tails_n++] = tb_link(b, b->hops[i]);
	b->toff[k + 1] = b->tails_n;
	b->ntails++;
	*tail = k;
	return IBF_OK;
}

/* Append count transfers src -> dst (one trace per first switch and
 * destination). */
static ibf_status_t tb_add(struct tbuild *b, ibf_port_id_t src,
			   ibf_port_id_t dst, uint32_t count, ibf_err_t *err)
{
	ibf_liquid_traffic_t *t = b->t;
	uint32_t s = tb_host(b, src), d = tb_host(b, dst), k = 0, nh;
	uint32_t first = tb_link(b, src);   /* links numbered in hop order */
	ibf_status_t st = tb_tail(b, src, dst, &k, err);

	if (st != IBF_OK)
		return st;
	nh = b->toff[k + 1] - b->toff[k] + 1;
	if (b->nlink_entries + (size_t)nh * count > b->cap) {
		uint32_t *nl = ibf_array_grow(t->links, &b->cap,
					      b->nlink_entries +
					      (size_t)nh * count, sizeof(*nl));

		if (!nl)
			return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		t->links = nl;
	}
	for (uint32_t c = 0; c < count; c++) {
		uint32_t *ls = t->links + b->nlink_entries;

		ls[0] = first;
		memcpy(ls + 1, b->tails + b->toff[k],
		       (nh - 1) * sizeof(uint32_t));
		nh = ibf_sort_unique_u32(ls, nh);
		b->nlink_entries += nh;
		t->src[b->next] = s;
		t->dst[b->next] = d;
		t->link_off[++b->next] = (uint32_t)b->nlink_entries;
	}
	return IBF_OK;
}

static ibf_status_t tb_finish(struct tbuild *b, ibf_liquid_traffic_t **out)
{
	*out = b->t;
	b->t = NULL;
	tb_free(b);
	return IBF_OK;
}

ibf_status_t ibf_liquid_traffic_from_flows(const ibf_lfts_t *l,
					   const ibf_traffic_t *tr,
					   ibf_liquid_traffic_t **out,
					   ibf_err_t *err)
{
	struct tbuild b;
	uint64_t n = 0;
	ibf_status_t st;

	*out = NULL;
	for (uint32_t i = 0; i < tr->n; i++)
		n += tr->flows[i].count;
	st = tb_init(&b, l, n, 2 * tr->n, err);
	for (uint32_t i = 0; st == IBF_OK && i < tr->n; i++)
		st = tb_add(&b, tr->flows[i].src, tr->flows[i].dst,
			    tr->flows[i].count, err);
	if (st != IBF_OK) {
		tb_free(&b);
		return st;
	}
	return tb_finish(&b, out);
}

ibf_status_t ibf_liquid_traffic_alltoall(const ibf_lfts_t *l,
					 const ibf_hostlist_t *h,
					 ibf_liquid_traffic_t **out,
					 ibf_err_t *err)
{
	struct tbuild b;
	ibf_status_t st;

	*out = NULL;
	st = tb_init(&b, l, (uint64_t)h->n * (h->n ? h->n - 1 : 0), h->n,
		     err);
	for (uint32_t i = 0; st == IBF_OK && i < h->n; i++)
		tb_host(&b, h->ports[i]);
	for (uint32_t i = 0; st == IBF_OK && i < h->n; i++)
		for (uint32_t j = 0; st == IBF_OK && j < h->n; j++)
			if (i != j)
				st = tb_add(&b, h->ports[i], h->ports[j], 1,
					    err);
	if (st != IBF_OK) {
		tb_free(&b);
		return st;
	}
	return tb_finish(&b, out);
}

/* ---- greedy colouring -------------------------------------------------- */

struct gkey {
	uint32_t x;
	uint32_t max, sum;
};

static int cmp_gkey(const void *a, const void *b)
{
	const struct gkey *p = a, *q = b;

	if (p->max != q->max)
		return p->max < q->max ? 1 : -1;
	if (p->sum != q->sum)
		return p->sum < q->sum ? 1 : -1;
	return (p->x > q->x) - (p->x < q->x);
}

static bool fits(const ibf_liquid_traffic_t *t, const uint32_t *occ,
		 uint32_t x, uint32_t stamp)
{
	for (uint32_t i = t->link_off[x]; i < t->link_off[x + 1]; i++)
		if (occ[t->links[i]] == stamp)
			return false;
	return true;
}

static void occupy(const ibf_liquid_traffic_t *t, uint32_t *occ, uint32_t x,
		   uint32_t stamp)
{
	for (uint32_t i = t->link_off[x]; i < t->link_off[x + 1]; i++)
		occ[t->links[i]] = stamp;
}

/* Greedy colouring of the transfers with frame_of[x] == LQ_NONE, frames
 * numbered from first, frame by frame: the remaining transfers in
 * decreasing order of the load (in the remaining traffic) of their busiest
 * link, first fit.  The bottlenecks of what remains are served first, as a
 * liquid schedule must serve them every frame.  Returns the total frame
 * count (first + new), or LQ_NONE on allocation failure or when the clock
 * expired (frame_of is then partly written). */
static uint32_t lq_greedy(const ibf_liquid_traffic_t *t, uint32_t *frame_of,
			  uint32_t first, struct lq_clock *clk)
{
	uint32_t *load = calloc((size_t)t->nlinks + 1, sizeof(uint32_t));
	uint32_t *occ = malloc(((size_t)t->nlinks + 1) * sizeof(uint32_t));
	struct gkey *k = malloc(((size_t)t->ntransfers + 1) * sizeof(*k));
	uint32_t n = 0, f = first;

	if (!load || !occ || !k) {
		free(load);
		free(occ);
		free(k);
		return LQ_NONE;
	}
	for (uint32_t l = 0; l < t->nlinks; l++)
		occ[l] = LQ_NONE;
	for (uint32_t x = 0; x < t->ntransfers; x++)
		if (frame_of[x] == LQ_NONE) {
			k[n++].x = x;
			for (uint32_t i = t->link_off[x];
			     i < t->link_off[x + 1]; i++)
				load[t->links[i]]++;
		}
	while (n) {
		uint32_t m = 0;

		/* A frame costs a sort of what remains. */
		if (lq_tick(clk, (uint64_t)n * 24)) {
			f = LQ_NONE;
			break;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t x = k[i].x;

			k[i].max = k[i].sum = 0;
			for (uint32_t j = t->link_off[x];
			     j < t->link_off[x + 1]; j++) {
				uint32_t v = load[t->links[j]];

				k[i].sum += v;
				if (v > k[i].max)
					k[i].max = v;
			}
		}
		qsort(k, n, sizeof(*k), cmp_gkey);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t x = k[i].x;

			if (!fits(t, occ, x, f)) {
				k[m++] = k[i];
				continue;
			}
			occupy(t, occ, x, f);
			frame_of[x] = f;
			for (uint32_t j = t->link_off[x];
			     j < t->link_off[x + 1]; j++)
				load[t->links[j]]--;
		}
		n = m;
		f++;
	}
	free(load);
	free(occ);
	free(k);
	return f;
}

/* ---- round robin --------------------------------------------------------- */

/* Phase by phase (equal copy and phase), first fit in sender order: pass
 * r takes every transfer of the phase that fits beside those taken before
 * it in the pass (the same frames as first fit over the phase's frames,
 * with one stamp array).  When the clock expires every transfer not yet
 * placed gets a frame of its own, which is always congestion-free. */
static uint32_t rr_run(const ibf_liquid_traffic_t *t, struct lq_pkey *k,
		       uint32_t *frame_of, struct lq_clock *clk, bool *cut)
{
	uint32_t *stamp = malloc(((size_t)t->nlinks + 1) * sizeof(uint32_t));
	uint32_t *pend = malloc(((size_t)t->ntransfers + 1) * sizeof(uint32_t));
	uint32_t nf = 0, s = 0, a = 0;

	*cut = false;
	if (!stamp || !pend) {
		free(stamp);
		free(pend);
		return LQ_NONE;
	}
	for (uint32_t l = 0; l < t->nlinks; l++)
		stamp[l] = LQ_NONE;
	while (a < t->ntransfers && !*cut) {
		uint32_t b = a + 1, np = 0;

		while (b < t->ntransfers && k[b].copy == k[a].copy &&
		       k[b].phase == k[a].phase)
			b++;
		for (uint32_t i = a; i < b; i++)
			pend[np++] = k[i].x;
		while (np) {
			uint32_t m = 0;

			for (uint32_t i = 0; i < np; i++) {
				uint32_t x = pend[i];

				if (!fits(t, stamp, x, s)) {
					pend[m++] = x;
					continue;
				}
				occupy(t, stamp, x, s);
				frame_of[x] = nf;
			}
			if (lq_tick(clk, (uint64_t)np * 4)) {
				/* This pass is a valid frame; the rest of the
				 * phase goes one by one below. */
				for (uint32_t i = 0; i < m; i++)
					frame_of[pend[i]] = LQ_NONE;
				*cut = true;
			}
			s++;
			nf++;
			np = *cut ? 0 : m;
		}
		a = b;
	}
	for (uint32_t x = 0; *cut && x < t->ntransfers; x++)
		if (frame_of[x] == LQ_NONE || frame_of[x] >= nf)
			frame_of[x] = nf++;
	free(stamp);
	free(pend);
	return nf;
}

static uint32_t round_robin(const ibf_liquid_traffic_t *t, uint32_t *frame_of,
			    struct lq_clock *clk, bool *cut)
{
	struct lq_pkey *k = malloc(((size_t)t->ntransfers + 1) * sizeof(*k));
	uint32_t nf;

	if (!k || !lq_phase_keys(t, NULL, k)) {
		free(k);
		return LQ_NONE;
	}
	for (uint32_t x = 0; x < t->ntransfers; x++)
		frame_of[x] = LQ_NONE;
	lq_tick(clk, (uint64_t)t->ntransfers * 16);
	nf = rr_run(t, k, frame_of, clk, cut);
	free(k);
	return nf;
}

ibf_status_t ibf_liquid_round_robin(const ibf_liquid_traffic_t *t,
				    uint32_t *nframes, uint32_t *frame_of,
				    ibf_err_t *err)
{
	uint32_t *fo = frame_of ? frame_of :
		malloc(((size_t)t->ntransfers + 1) * sizeof(uint32_t));
	struct lq_clock clk;
	bool cut;

	lq_clock_start(&clk, 1e30, 0);
	*nframes = fo ? round_robin(t, fo, &clk, &cut) : LQ_NONE;
	if (!frame_of)
		free(fo);
	if (*nframes == LQ_NONE)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	return IBF_OK;
}

/* ---- the schedule -------------------------------------------------------- */

void ibf_liquid_result_free(ibf_liquid_result_t *r)
{
	free(r->load);
	free(r->bottlenecks);
	free(r->frame_of);
	free(r->frame_off);
	free(r->frame_tr);
	memset(r, 0, sizeof(*r));
}

static ibf_status_t loads(const ibf_liquid_traffic_t *t,
			  ibf_liquid_result_t *r)
{
	r->load = calloc((size_t)t->nlinks + 1, sizeof(uint32_t));
	r->bottlenecks = malloc(((size_t)t->nlinks + 1) * sizeof(uint32_t));
	r->frame_of = malloc(((size_t)t->ntransfers + 1) * sizeof(uint32_t));
	if (!r->load || !r->bottlenecks || !r->frame_of)
		return IBF_ERR_NOMEM;
	for (uint32_t i = 0; i < t->link_off[t->ntransfers]; i++)
		r->load[t->links[i]]++;
	for (uint32_t l = 0; l < t->nlinks; l++)
		if (r->load[l] > r->duration)
			r->duration = r->load[l];
	for (uint32_t l = 0; l < t->nlinks; l++)
		if (r->duration && r->load[l] == r->duration)
			r->bottlenecks[r->nbottlenecks++] = l;
	r->ntransfers = t->ntransfers;
	r->liquid_throughput = r->duration ?
		(double)t->ntransfers / r->duration : 0;
	return IBF_OK;
}

/* Frames as CSR lists. */
static ibf_status_t frames_csr(const ibf_liquid_traffic_t *t,
			       ibf_liquid_result_t *r)
{
	r->frame_off = calloc((size_t)r->nframes + 2, sizeof(uint32_t));
	r->frame_tr = malloc(((size_t)t->ntransfers + 1) * sizeof(uint32_t));
	if (!r->frame_off || !r->frame_tr)
		return IBF_ERR_NOMEM;
	for (uint32_t x = 0; x < t->ntransfers; x++)
		r->frame_off[r->frame_of[x] + 2]++;
	for (uint32_t f = 0; f < r->nframes; f++)
		r->frame_off[f + 2] += r->frame_off[f + 1];
	for (uint32_t x = 0; x < t->ntransfers; x++)
		r->frame_tr[r->frame_off[r->frame_of[x] + 1]++] = x;
	return IBF_OK;
}

/* Candidate schedules other than the search's (LQ_NONE frames: none). */
struct cands {
	uint32_t *greedy, *rr, *ff;
	uint32_t ngreedy, nrr, nff;
	double greedy_s;
	uint64_t greedy_work;
};

/* The greedy colouring sorts what remains for every frame: only where a
 * frame costs a few milliseconds (the clock is read between frames) and
 * the whole stays cheap (transfers x duration). */
#define LQ_GREEDY_MAX_TRANSFERS 32768u
#define LQ_GREEDY_MAX_WORK 100000000ull

/* Take the shortest of: the search's deepest prefix completed greedily
 * (if prefix and the clock allows), the greedy colouring, first fit,
 * round robin, in that order of preference on ties. */
static ibf_status_t pick_best(const ibf_liquid_traffic_t *t,
			      const struct cands *c, bool prefix,
			      struct lq_clock *clk, ibf_liquid_result_t *r)
{
	uint32_t na = prefix ? lq_greedy(t, r->frame_of, r->search_depth,
					 clk) : LQ_NONE;
	size_t sz = (size_t)t->ntransfers * sizeof(uint32_t);
	uint32_t best = na;

	if (prefix && na == LQ_NONE && !clk->expired)
		return IBF_ERR_NOMEM;
	if (c->ngreedy < best)
		best = c->ngreedy;
	if (c->nff < best)
		best = c->nff;
	if (c->nrr < best)
		best = c->nrr;
	r->nframes = best;
	if (na == best) {
		r->method = IBF_LIQUID_SEARCH_GREEDY;
	} else if (c->ngreedy == best) {
		memcpy(r->frame_of, c->greedy, sz);
		r->method = IBF_LIQUID_GREEDY;
	} else if (c->nff == best) {
		memcpy(r->frame_of, c->ff, sz);
		r->method = IBF_LIQUID_FIRST_FIT;
	} else {
		memcpy(r->frame_of, c->rr, sz);
		r->method = IBF_LIQUID_ROUND_ROBIN;
	}
	return IBF_OK;
}

/* Round robin first (a valid schedule whatever the limit), then first fit
 * and, unless one of them is liquid, the greedy colouring, while the
 * clock allows. */
static ibf_status_t cheap_schedules(const ibf_liquid_traffic_t *t,
				    struct cands *c, struct lq_clock *clk,
				    ibf_liquid_result_t *r)
{
	size_t sz = ((size_t)t->ntransfers + 1) * sizeof(uint32_t);
	uint64_t w1;
	double t1;
	bool cut;

	c->greedy = malloc(sz);
	c->rr = malloc(sz);
	c->ff = malloc(sz);
	c->ngreedy = c->nff = LQ_NONE;
	if (!c->greedy || !c->rr || !c->ff)
		return IBF_ERR_NOMEM;
	c->nrr = round_robin(t, c->rr, clk, &cut);
	if (c->nrr == LQ_NONE)
		return IBF_ERR_NOMEM;
	r->rr_frames = c->nrr;
	r->timed_out = cut;
	if (c->nrr == r->duration || clk->expired)
		return IBF_OK;
	c->nff = lq_ff_sets(t, r->duration, c->ff, clk);
	if (c->nff == LQ_NONE && !clk->expired)
		return IBF_ERR_NOMEM;
	if (c->nff == r->duration || clk->expired ||
	    t->ntransfers > LQ_GREEDY_MAX_TRANSFERS ||
	    (uint64_t)t->ntransfers * r->duration > LQ_GREEDY_MAX_WORK)
		return IBF_OK;
	for (uint32_t x = 0; x < t->ntransfers; x++)
		c->greedy[x] = LQ_NONE;
	t1 = lq_now();
	w1 = clk->work;
	c->ngreedy = lq_greedy(t, c->greedy, 0, clk);
	if (c->ngreedy == LQ_NONE && !clk->expired)
		return IBF_ERR_NOMEM;
	c->greedy_s = lq_now() - t1;
	c->greedy_work = clk->work - w1;
	return IBF_OK;
}

/* The search's clock: it stops early enough to complete its deepest
 * prefix greedily (about one greedy run, 1.5x with a margin, plus 1 % of
 * the limit) within the call's limits, and after opts->search_work units
 * of its own.  The reserve is counted in work where the call has a work
 * limit, so that the point where the search stops does not depend on the
 * machine's speed or load; the wall-clock deadline gets the same reserve
 * in seconds. */
static void search_clock(const struct lq_clock *clk,
			 const ibf_liquid_opts_t *o, const struct cands *c,
			 struct lq_clock *sc)
{
	*sc = *clk;
	sc->deadline -= 1.5 * c->greedy_s + 0.01 * (clk->deadline - clk->start);
	if (clk->work_limit != UINT64_MAX) {
		uint64_t reserve = c->greedy_work + c->greedy_work / 2 +
				   clk->work_limit / 100;

		sc->work_limit = clk->work_limit - clk->work > reserve ?
				 clk->work_limit - reserve : clk->work;
	}
	if (o->search_work && sc->work_limit - clk->work > o->search_work)
		sc->work_limit = clk->work + o->search_work;
	sc->next = sc->work + LQ_TICK < sc->work_limit ? sc->work + LQ_TICK :
		   sc->work_limit;
}

static ibf_status_t run(const ibf_liquid_traffic_t *t,
			const ibf_liquid_opts_t *o, struct lq_clock *clk,
			struct cands *c, ibf_liquid_result_t *r)
{
	struct lq_search_out so = { 0 };
	struct lq_clock sc;
	ibf_status_t st;

	st = cheap_schedules(t, c, clk, r);
	if (st != IBF_OK)
		return st;
	if (o->no_search || t->ntransfers > LQ_SEARCH_MAX_TRANSFERS ||
	    clk->expired ||
	    (!o->search_first && (c->ngreedy == r->duration ||
				  c->nff == r->duration ||
				  c->nrr == r->duration)))
		return pick_best(t, c, false, clk, r);
	search_clock(clk, o, c, &sc);
	st = lq_search(t, r->load, r->duration, &sc, r->frame_of, &so);
	clk->work = sc.work;   /* the call's work includes the search's */
	if (st != IBF_OK)
		return st;
	r->timed_out = so.timed_out;
	r->exhausted = so.exhausted;
	r->search_depth = so.depth;
	r->categories = so.categories;
	if (so.found) {
		r->nframes = r->duration;
		r->method = IBF_LIQUID_SEARCH;
		return IBF_OK;
	}
	return pick_best(t, c, so.depth > 0, clk, r);
}

ibf_status_t ibf_liquid_schedule(const ibf_liquid_traffic_t *t,
				 const ibf_liquid_opts_t *opts,
				 ibf_liquid_result_t *r, ibf_err_t *err)
{
	static const ibf_liquid_opts_t defaults = { 0 };
	const ibf_liquid_opts_t *o = opts ? opts : &defaults;
	struct lq_clock clk;
	struct cands c = { 0 };
	ibf_status_t st;

	lq_clock_start(&clk, o->time_limit > 0 ? o->time_limit : 10,
		       o->work_limit);
	memset(r, 0, sizeof(*r));
	ibf_err_clear(err);
	st = loads(t, r);
	if (st == IBF_OK)
		st = run(t, o, &clk, &c, r);
	if (st == IBF_OK)
		st = frames_csr(t, r);
	free(c.greedy);
	free(c.rr);
	free(c.ff);
	if (st != IBF_OK) {
		ibf_liquid_result_free(r);
		if (!err || err->status == IBF_OK)
			ibf_err_set(err, st, "liquid: out of memory");
		return st;
	}
	r->timed_out = r->timed_out || clk.expired;
	r->liquid = r->nframes == r->duration;
	r->optimal_proven = r->liquid ||
		(r->exhausted && r->nframes == r->duration + 1);
	r->seconds = lq_now() - clk.start;
	r->work = clk.work;
	return IBF_OK;
}

/* ---- JSON ------------------------------------------------------------------ */

ibf_status_t ibf_liquid_write_json(const ibf_fabric_t *f,
				   const ibf_liquid_traffic_t *t,
				   const ibf_liquid_result_t *r, FILE *fp,
				   ibf_err_t *err)
{
	char a[128], b[128];

	if (!t->hosts)
		return ibf_err_set(err, IBF_ERR_INVALID, "liquid JSON needs "
				   "a traffic traced through a fabric");
	fprintf(fp, "{\"transfers\":%u,\"duration\":%u,"
		"\"liquid_throughput\":%.10g,\"liquid\":%s,"
		"\"optimal_proven\":%s,\"frames\":[", r->ntransfers,
		r->duration, r->liquid_throughput,
		r->liquid ? "true" : "false",
		r->optimal_proven ? "true" : "false");
	for (uint32_t i = 0; i < r->nframes; i++) {
		fprintf(fp, "%s\n[", i ? "," : "");
		for (uint32_t j = r->frame_off[i]; j < r->frame_off[i + 1];
		     j++) {
			uint32_t x = r->frame_tr[j];

			fprintf(fp, "%s[", j > r->frame_off[i] ? "," : "");
			lq_json_str(fp, ibf_port_host_name(f, t->hosts[t->src[x]],
							a, sizeof(a)));
			fputc(',', fp);
			lq_json_str(fp, ibf_port_host_name(f, t->hosts[t->dst[x]],
							b, sizeof(b)));
			fputc(']', fp);
		}
		fputc(']', fp);
	}
	fprintf(fp, "%s],\"time_s\":%.6f}\n", r->nframes ? "\n" : "",
		r->seconds);
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}
