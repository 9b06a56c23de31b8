/*
 * Liquid scheduling: traffics as link sets, loads and bottlenecks, the
 * greedy colouring used when the exact search (liquid_search.c) does not
 * finish, the round-robin baseline and the JSON output.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/trace.h>

#include "liquid_internal.h"

double lq_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *ibf_liquid_method_str(ibf_liquid_method_t m)
{
	switch (m) {
	case IBF_LIQUID_SEARCH: return "liquid search";
	case IBF_LIQUID_SEARCH_GREEDY: return "search prefix + greedy";
	case IBF_LIQUID_GREEDY: return "greedy colouring";
	case IBF_LIQUID_ROUND_ROBIN: return "round robin";
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

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Sort and deduplicate n links in place; returns the new count. */
static uint32_t sort_links(uint32_t *v, uint32_t n)
{
	uint32_t k = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
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
				   "than %u", n, IBF_LIQUID_MAX_TRANSFERS);
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
		m = sort_links(t->links + k, m);
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

/* Builder state for traffics traced through LFTs. */
struct tbuild {
	const ibf_lfts_t *l;
	ibf_liquid_traffic_t *t;
	uint32_t *port_link;     /* [nports] compact link id or LQ_NONE */
	ibf_port_id_t *hops;
	unsigned max_hops;
	uint32_t *hostpos;       /* [nports] position in t->hosts or NONE */
	size_t nlink_entries, cap;
	uint32_t next;           /* next transfer index */
};

static ibf_status_t tb_init(struct tbuild *b, const ibf_lfts_t *l,
			    uint64_t ntransfers, uint32_t nhosts_max,
			    ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;

	memset(b, 0, sizeof(*b));
	if (ntransfers > IBF_LIQUID_MAX_TRANSFERS)
		return ibf_err_set(err, IBF_ERR_RANGE, "%llu transfers: more "
				   "than %u", (unsigned long long)ntransfers,
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
	if (!b->t || !b->port_link || !b->hostpos || !b->hops ||
	    !b->t->hosts || !b->t->link_port)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (uint32_t p = 0; p < f->nports; p++)
		b->port_link[p] = b->hostpos[p] = LQ_NONE;
	return IBF_OK;
}

static void tb_free(struct tbuild *b)
{
	free(b->port_link);
	free(b->hostpos);
	free(b->hops);
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

/* Trace src -> dst once and append count transfers with that path. */
static ibf_status_t tb_add(struct tbuild *b, ibf_port_id_t src,
			   ibf_port_id_t dst, uint32_t count, ibf_err_t *err)
{
	const ibf_fabric_t *f = b->l->fabric;
	ibf_liquid_traffic_t *t = b->t;
	ibf_trace_result_t r;
	uint32_t s = tb_host(b, src), d = tb_host(b, dst);
	unsigned nh = 0;
	char n1[64], n2[64];

	r = ibf_trace(b->l, src, ibf_port_base_lid(f, dst), b->hops,
		      b->max_hops, &nh);
	if (r != IBF_TRACE_OK || nh > b->max_hops)
		return ibf_err_set(err, IBF_ERR_INVALID, "route %s -> %s is "
				   "not delivered: %s",
				   ibf_port_host_name(f, src, n1, sizeof(n1)),
				   ibf_port_host_name(f, dst, n2, sizeof(n2)),
				   ibf_trace_result_str(r));
	for (unsigned i = 0; i < nh; i++)
		if (b->port_link[b->hops[i]] == LQ_NONE) {
			b->port_link[b->hops[i]] = t->nlinks;
			t->link_port[t->nlinks++] = b->hops[i];
		}
	while (b->nlink_entries + (size_t)nh * count > b->cap) {
		uint32_t *nl = realloc(t->links, 2 * b->cap * sizeof(*nl));

		if (!nl)
			return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		t->links = nl;
		b->cap *= 2;
	}
	for (uint32_t c = 0; c < count; c++) {
		uint32_t *ls = t->links + b->nlink_entries;

		for (unsigned i = 0; i < nh; i++)
			ls[i] = b->port_link[b->hops[i]];
		nh = sort_links(ls, nh);
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

/* Frame by frame: the remaining transfers in decreasing order of the load
 * (in the remaining traffic) of their busiest link, first fit.  The
 * bottlenecks of what remains are served first, as a liquid schedule must
 * serve them every frame.  Returns LQ_NONE on allocation failure. */
uint32_t lq_greedy(const ibf_liquid_traffic_t *t, uint32_t *frame_of,
		   uint32_t first)
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

struct rkey {
	uint32_t x, copy, phase, src;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct rkey *p = a, *q = b;

	if (p->src != q->src)
		return p->src < q->src ? -1 : 1;
	if (p->phase != q->phase)
		return p->phase < q->phase ? -1 : 1;
	return (p->x > q->x) - (p->x < q->x);
}

static int cmp_rr(const void *a, const void *b)
{
	const struct rkey *p = a, *q = b;

	if (p->copy != q->copy)
		return p->copy < q->copy ? -1 : 1;
	if (p->phase != q->phase)
		return p->phase < q->phase ? -1 : 1;
	if (p->src != q->src)
		return p->src < q->src ? -1 : 1;
	return (p->x > q->x) - (p->x < q->x);
}

/* Keys (copy, phase, sender): copy c of a pair is its c-th transfer. */
static void rr_keys(const ibf_liquid_traffic_t *t, struct rkey *k)
{
	uint32_t n = t->nhosts ? t->nhosts : 1;

	for (uint32_t x = 0; x < t->ntransfers; x++)
		k[x] = (struct rkey){ x, 0, (t->dst[x] + n - t->src[x] % n) %
				      n, t->src[x] };
	/* (src, phase) names the pair: number the copies of each pair. */
	qsort(k, t->ntransfers, sizeof(*k), cmp_pair);
	for (uint32_t i = 1; i < t->ntransfers; i++)
		if (k[i].src == k[i - 1].src && k[i].phase == k[i - 1].phase)
			k[i].copy = k[i - 1].copy + 1;
	qsort(k, t->ntransfers, sizeof(*k), cmp_rr);
}

ibf_status_t ibf_liquid_round_robin(const ibf_liquid_traffic_t *t,
				    uint32_t *nframes, uint32_t *frame_of,
				    ibf_err_t *err)
{
	struct rkey *k = malloc(((size_t)t->ntransfers + 1) * sizeof(*k));
	uint32_t *occ = NULL, rows = 0, f0 = 0, nf = 0;
	size_t L = (size_t)t->nlinks + 1;

	if (!k)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	rr_keys(t, k);
	for (uint32_t i = 0; i < t->ntransfers; i++) {
		uint32_t x = k[i].x, r;

		if (i && (k[i].copy != k[i - 1].copy ||
			  k[i].phase != k[i - 1].phase))
			f0 = nf;   /* a new phase opens its own frames */
		for (r = 0; f0 + r < nf; r++)
			if (fits(t, occ + r * L, x, f0 + r))
				break;
		if (r == rows) {
			uint32_t *no = realloc(occ, (r + 1) * L *
					       sizeof(*no));

			if (!no) {
				free(k);
				free(occ);
				return ibf_err_set(err, IBF_ERR_NOMEM,
						   "out of memory");
			}
			occ = no;
			for (size_t j = 0; j < L; j++)
				occ[r * L + j] = LQ_NONE;
			rows++;
		}
		if (f0 + r == nf)
			nf++;
		occupy(t, occ + r * L, x, f0 + r);
		if (frame_of)
			frame_of[x] = f0 + r;
	}
	free(k);
	free(occ);
	*nframes = nf;
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

/* Candidate schedules other than the search's. */
struct cands {
	uint32_t *greedy, *rr;
	uint32_t ngreedy, nrr;
	double greedy_s;
};

/* Take the shortest of: the search's deepest prefix completed greedily
 * (if prefix), the greedy colouring, round robin. */
static ibf_status_t pick_best(const ibf_liquid_traffic_t *t,
			      const struct cands *c, bool prefix,
			      ibf_liquid_result_t *r)
{
	uint32_t na = prefix ? lq_greedy(t, r->frame_of, r->search_depth)
			     : LQ_NONE;
	size_t sz = (size_t)t->ntransfers * sizeof(uint32_t);

	if (prefix && na == LQ_NONE)
		return IBF_ERR_NOMEM;
	if (na <= c->ngreedy && na <= c->nrr) {
		r->nframes = na;
		r->method = IBF_LIQUID_SEARCH_GREEDY;
	} else if (c->ngreedy <= c->nrr) {
		memcpy(r->frame_of, c->greedy, sz);
		r->nframes = c->ngreedy;
		r->method = IBF_LIQUID_GREEDY;
	} else {
		memcpy(r->frame_of, c->rr, sz);
		r->nframes = c->nrr;
		r->method = IBF_LIQUID_ROUND_ROBIN;
	}
	return IBF_OK;
}

static ibf_status_t cheap_schedules(const ibf_liquid_traffic_t *t,
				    struct cands *c, ibf_err_t *err)
{
	double t1 = lq_now();

	c->greedy = malloc(((size_t)t->ntransfers + 1) * sizeof(uint32_t));
	c->rr = malloc(((size_t)t->ntransfers + 1) * sizeof(uint32_t));
	if (!c->greedy || !c->rr)
		return IBF_ERR_NOMEM;
	for (uint32_t x = 0; x < t->ntransfers; x++)
		c->greedy[x] = LQ_NONE;
	c->ngreedy = lq_greedy(t, c->greedy, 0);
	if (c->ngreedy == LQ_NONE)
		return IBF_ERR_NOMEM;
	c->greedy_s = lq_now() - t1;
	return ibf_liquid_round_robin(t, &c->nrr, c->rr, err);
}

/* The conflict matrix of the search costs T^2/8 bytes: stay below 1 GiB. */
#define LQ_SEARCH_MAX_TRANSFERS 90000u

static ibf_status_t run(const ibf_liquid_traffic_t *t,
			const ibf_liquid_opts_t *o, double t0, double limit,
			struct cands *c, ibf_liquid_result_t *r,
			ibf_err_t *err)
{
	struct lq_search_out so = { 0 };
	double deadline;
	ibf_status_t st;

	st = cheap_schedules(t, c, err);
	if (st != IBF_OK)
		return st;
	r->rr_frames = c->nrr;
	if (o->no_search || t->ntransfers > LQ_SEARCH_MAX_TRANSFERS ||
	    (!o->search_first && (c->ngreedy == r->duration ||
				  c->nrr == r->duration)))
		return pick_best(t, c, false, r);
	/* Leave time for completing a prefix greedily (about one greedy
	 * run) and for the output. */
	deadline = t0 + limit - 2 * c->greedy_s - 0.02 * limit;
	st = lq_search(t, r->load, r->duration, deadline, r->frame_of, &so);
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
	return pick_best(t, c, so.depth > 0, r);
}

ibf_status_t ibf_liquid_schedule(const ibf_liquid_traffic_t *t,
				 const ibf_liquid_opts_t *opts,
				 ibf_liquid_result_t *r, ibf_err_t *err)
{
	static const ibf_liquid_opts_t defaults = { 0 };
	const ibf_liquid_opts_t *o = opts ? opts : &defaults;
	double t0 = lq_now(), limit = o->time_limit > 0 ? o->time_limit : 10;
	struct cands c = { 0 };
	ibf_status_t st;

	memset(r, 0, sizeof(*r));
	ibf_err_clear(err);
	st = loads(t, r);
	if (st == IBF_OK)
		st = run(t, o, t0, limit, &c, r, err);
	if (st == IBF_OK)
		st = frames_csr(t, r);
	free(c.greedy);
	free(c.rr);
	if (st != IBF_OK) {
		ibf_liquid_result_free(r);
		if (!err || err->status == IBF_OK)
			ibf_err_set(err, st, "liquid: out of memory");
		return st;
	}
	r->liquid = r->nframes == r->duration;
	r->optimal_proven = r->liquid ||
		(r->exhausted && r->nframes == r->duration + 1);
	r->seconds = lq_now() - t0;
	return IBF_OK;
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(fp, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(fp, "\\u%04x", ch);
		else
			fputc(ch, fp);
	}
	fputc('"', fp);
}

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
			json_str(fp, ibf_port_host_name(f, t->hosts[t->src[x]],
							a, sizeof(a)));
			fputc(',', fp);
			json_str(fp, ibf_port_host_name(f, t->hosts[t->dst[x]],
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
