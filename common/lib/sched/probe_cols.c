/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The columns (unknowns) of probe planning and solving, the vector of a
 * host pair over them, and the order in which they are eliminated
 * (probe_internal.h; docs/probe.md#model).
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/trace.h>

#include "base/array.h"

#include "sched/probe_internal.h"

#define NONE IBF_PROBE_NONE

/* ---- columns and vectors ------------------------------------------------ */

ibf_status_t ibf_probe_cols_init(const ibf_fabric_t *f,
				 const ibf_hostlist_t *h,
				 ibf_probe_model_t model,
				 ibf_probe_cols_t *c, ibf_err_t *err)
{
	uint32_t i, nc = 0;
	ibf_port_id_t p;

	memset(c, 0, sizeof(*c));
	if (model != IBF_PROBE_DIRECTED && model != IBF_PROBE_SYMMETRIC)
		return ibf_err_set(err, IBF_ERR_INVALID, "unknown probe "
				   "model %d", (int)model);
	c->model = model;
	c->port_col = malloc((size_t)f->nports * sizeof(*c->port_col));
	c->col_port = malloc((size_t)f->nports * sizeof(*c->col_port));
	if (!c->port_col || !c->col_port) {
		ibf_probe_cols_free(c);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (p = 0; p < f->nports; p++)
		c->port_col[p] = NONE;
	for (i = 0; i < h->n; i++) {
		p = h->ports[i];
		c->port_col[p] = nc;
		if (f->ports[p].peer != IBF_NO_ID)
			c->port_col[f->ports[p].peer] = nc;
		c->col_port[nc++] = p;
	}
	c->nhostcols = nc;
	for (p = 0; p < f->nports; p++)
		if (c->port_col[p] == NONE && f->ports[p].peer != IBF_NO_ID) {
			c->port_col[p] = nc;
			if (model == IBF_PROBE_SYMMETRIC)
				c->port_col[f->ports[p].peer] = nc;
			c->col_port[nc++] = p;
		}
	c->ncols = nc;
	return IBF_OK;
}

void ibf_probe_cols_free(ibf_probe_cols_t *c)
{
	free(c->port_col);
	free(c->col_port);
	memset(c, 0, sizeof(*c));
}

static ibf_status_t leg(const ibf_lfts_t *l, ibf_port_id_t a, ibf_port_id_t b,
			ibf_port_id_t *out, unsigned *n, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	unsigned dlid = f->ports[b].lid;
	ibf_trace_result_t r;
	unsigned nh = 0;

	r = ibf_trace(l, a, dlid, out, IBF_PROBE_MAX_HOPS, &nh);
	if (r != IBF_TRACE_OK || nh > IBF_PROBE_MAX_HOPS) {
		char ba[64], bb[64];

		return ibf_err_set(err, IBF_ERR_INVALID,
				   "route %s -> %s (LID %u): %s",
				   ibf_port_host_name(f, a, ba, sizeof(ba)),
				   ibf_port_host_name(f, b, bb, sizeof(bb)),
				   dlid, r == IBF_TRACE_OK ? "too long" :
				   ibf_trace_result_str(r));
	}
	*n = nh;
	return IBF_OK;
}

ibf_status_t ibf_probe_pair_links(const ibf_lfts_t *l, ibf_port_id_t a,
				  ibf_port_id_t b, ibf_port_id_t *links,
				  unsigned max, unsigned *n, ibf_err_t *err)
{
	ibf_port_id_t buf[2 * IBF_PROBE_MAX_HOPS];
	unsigned n1, n2;
	ibf_status_t st;

	if ((st = leg(l, a, b, buf, &n1, err)) != IBF_OK ||
	    (st = leg(l, b, a, buf + n1, &n2, err)) != IBF_OK)
		return st;
	if (n1 + n2 > max)
		return ibf_err_set(err, IBF_ERR_RANGE, "path too long");
	memcpy(links, buf, (n1 + n2) * sizeof(*buf));
	*n = n1 + n2;
	return IBF_OK;
}

/* v's columns from its links: few entries, so insertion sort by column,
 * then equal ones merged. */
static void vec_cols(const ibf_probe_cols_t *c, ibf_probe_vec_t *v)
{
	unsigned i, j, k, n = 0;

	for (i = 0; i < v->nlinks; i++) {
		uint32_t col = c->port_col[v->links[i]];

		for (j = 0; j < n && v->col[j] < col; j++)
			;
		if (j < n && v->col[j] == col) {
			v->val[j]++;
			continue;
		}
		for (k = n; k > j; k--) {
			v->col[k] = v->col[k - 1];
			v->val[k] = v->val[k - 1];
		}
		v->col[j] = col;
		v->val[j] = 1;
		n++;
	}
	/* Host columns (directed): injection and ejection once each = 1 x
	 * their sum. */
	for (j = 0; j < n && ibf_probe_cols_halved(c, v->col[j]); j++)
		v->val[j] /= 2;
	v->n = n;
}

/* The vector of pair (a, b); *n1 = the links of the leg a -> b (they come
 * first). */
static ibf_status_t vec_legs(const ibf_lfts_t *l, const ibf_probe_cols_t *c,
			     ibf_port_id_t a, ibf_port_id_t b,
			     ibf_probe_vec_t *v, unsigned *n1, ibf_err_t *err)
{
	unsigned n2;
	ibf_status_t st;

	if ((st = leg(l, a, b, v->links, n1, err)) != IBF_OK ||
	    (st = leg(l, b, a, v->links + *n1, &n2, err)) != IBF_OK)
		return st;
	v->nlinks = *n1 + n2;
	vec_cols(c, v);
	return IBF_OK;
}

ibf_status_t ibf_probe_vec_make(const ibf_lfts_t *l, ibf_probe_cols_t *c,
				ibf_port_id_t a, ibf_port_id_t b,
				ibf_probe_vec_t *v, ibf_err_t *err)
{
	unsigned n1;

	return vec_legs(l, c, a, b, v, &n1, err);
}

/* ---- pair vectors traced once ------------------------------------------- */

/* An entry: one word n1 | n2 << 8 | n << 16, the links of the leg from
 * the lower host (n1) and back (n2), then n columns and n values. */
#define VC_HDR(n1, n2, n) ((n1) | (n2) << 8 | (n) << 16)

ibf_status_t ibf_probe_vcache_init(ibf_probe_vcache_t *vc,
				   const ibf_lfts_t *l,
				   const ibf_probe_cols_t *c,
				   const ibf_hostlist_t *h)
{
	memset(vc, 0, sizeof(*vc));
	vc->l = l;
	vc->cols = c;
	vc->h = h;
	vc->max = IBF_PROBE_VCACHE_WORDS;
	if (h->n > IBF_PROBE_VCACHE_HOSTS)
		return IBF_OK;	/* traced every time */
	vc->at = calloc((size_t)h->n * (h->n - 1) / 2 + 1, sizeof(*vc->at));
	return vc->at ? IBF_OK : IBF_ERR_NOMEM;
}

void ibf_probe_vcache_free(ibf_probe_vcache_t *vc)
{
	free(vc->at);
	free(vc->pool);
	memset(vc, 0, sizeof(*vc));
}

/* v from the entry at e, for the pair taken from the higher host when
 * swap (its leg comes first then; the columns are the same). */
static void vc_load(const uint32_t *e, bool swap, ibf_probe_vec_t *v)
{
	uint32_t n1 = e[0] & 0xff, n2 = (e[0] >> 8) & 0xff, n = e[0] >> 16;
	const uint32_t *lk = e + 1;

	if (swap) {
		memcpy(v->links, lk + n1, n2 * sizeof(*lk));
		memcpy(v->links + n2, lk, n1 * sizeof(*lk));
	} else {
		memcpy(v->links, lk, (n1 + n2) * sizeof(*lk));
	}
	v->nlinks = n1 + n2;
	v->n = n;
	memcpy(v->col, lk + n1 + n2, n * sizeof(*v->col));
	memcpy(v->val, lk + n1 + n2 + n, n * sizeof(*v->val));
}

/* The two legs of v in the other order (n1 links in the first now). */
static void swap_legs(ibf_probe_vec_t *v, unsigned n1)
{
	ibf_port_id_t t[IBF_PROBE_MAX_HOPS];
	unsigned n2 = v->nlinks - n1;

	memcpy(t, v->links, n1 * sizeof(*t));
	memmove(v->links, v->links + n1, n2 * sizeof(*t));
	memcpy(v->links + n2, t, n1 * sizeof(*t));
}

/* Keep v (pair lo -> hi, n1 links out) at slot *at, while the pool has
 * room; a pair not kept is simply traced again next time. */
static void vc_store(ibf_probe_vcache_t *vc, uint32_t *at,
		     const ibf_probe_vec_t *v, unsigned n1)
{
	size_t need = vc->len + 1 + v->nlinks + 2 * (size_t)v->n;
	uint32_t *e;

	if (need > vc->max)
		return;
	e = ibf_array_grow(vc->pool, &vc->cap, need, sizeof(*vc->pool));
	if (!e)
		return;
	vc->pool = e;
	e += vc->len;
	e[0] = VC_HDR(n1, v->nlinks - n1, v->n);
	memcpy(e + 1, v->links, v->nlinks * sizeof(*e));
	memcpy(e + 1 + v->nlinks, v->col, v->n * sizeof(*e));
	memcpy(e + 1 + v->nlinks + v->n, v->val, v->n * sizeof(*e));
	*at = (uint32_t)vc->len + 1;
	vc->len = need;
}

/* Slot of pair (lo, hi), lo < hi, in the index. */
static uint32_t *vc_slot(const ibf_probe_vcache_t *vc, uint32_t lo,
			 uint32_t hi)
{
	return vc->at + (size_t)lo * (2 * vc->h->n - lo - 1) / 2 +
	       (hi - lo - 1);
}

const ibf_port_id_t *ibf_probe_vcache_links(ibf_probe_vcache_t *vc,
					    uint32_t a, uint32_t b,
					    ibf_probe_vec_t *v, unsigned *n,
					    ibf_err_t *err)
{
	uint32_t lo = a < b ? a : b, *at;

	if (vc->at && *(at = vc_slot(vc, lo, a ^ b ^ lo))) {
		const uint32_t *e = vc->pool + *at - 1;

		*n = (e[0] & 0xff) + ((e[0] >> 8) & 0xff);
		return e + 1;
	}
	if (ibf_probe_vcache_get(vc, a, b, v, err) != IBF_OK)
		return NULL;
	*n = v->nlinks;
	return v->links;
}

ibf_status_t ibf_probe_vcache_get(ibf_probe_vcache_t *vc, uint32_t a,
				  uint32_t b, ibf_probe_vec_t *v,
				  ibf_err_t *err)
{
	const ibf_port_id_t *hp = vc->h->ports;
	uint32_t lo = a < b ? a : b, hi = a ^ b ^ lo, *at;
	unsigned n1;
	ibf_status_t st;

	if (!vc->at)
		return ibf_probe_vec_make(vc->l, (ibf_probe_cols_t *)vc->cols,
					  hp[a], hp[b], v, err);
	at = vc_slot(vc, lo, hi);
	if (*at) {
		vc_load(vc->pool + *at - 1, a > b, v);
		return IBF_OK;
	}
	if ((st = vec_legs(vc->l, vc->cols, hp[lo], hp[hi], v, &n1,
			   err)) != IBF_OK)
		return st;
	vc_store(vc, at, v, n1);
	if (a > b)	/* the leg from a first, as traced directly */
		swap_legs(v, n1);
	return IBF_OK;
}

/* v with its columns renamed to elimination positions (ibf_probe_col_order()),
 * sorted again; the echelon form works on positions throughout. */
const ibf_probe_vec_t *ibf_probe_vec_permute(const uint32_t *perm,
					     const ibf_probe_vec_t *v,
					     ibf_probe_vec_t *w)
{
	unsigned i, j;

	for (i = 0; i < v->n; i++) {
		uint32_t pc = perm[v->col[i]];

		for (j = i; j > 0 && w->col[j - 1] > pc; j--) {
			w->col[j] = w->col[j - 1];
			w->val[j] = w->val[j - 1];
		}
		w->col[j] = pc;
		w->val[j] = v->val[i];
	}
	w->n = v->n;
	w->nlinks = 0;
	return w;
}

/* Elimination order.  Columns are eliminated by level, top first: a link
 * between levels l and l+1 (level = hops to the nearest host) before any
 * link lower down, down links before up links, host columns last.  On
 * fat trees a pair vector then meets its NCA's links first, and rows
 * reduced against older pivots stay short (about 8 entries on the
 * 3,456-host tree against 38 with host columns first), so reductions
 * walk short chains.  perm[col] = position. */
static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

int ibf_probe_col_order(const ibf_fabric_t *f, const ibf_probe_cols_t *cols,
			uint32_t *perm)
{
	uint32_t nc = cols->ncols, c, *lev, *q, qh = 0, qt = 0, u;
	uint64_t *key;
	const uint64_t cmask = (1ull << 39) - 1;

	key = malloc(nc * sizeof(*key));
	lev = malloc(f->nnodes * sizeof(*lev));
	q = malloc(f->nnodes * sizeof(*q));
	if (!key || !lev || !q) {
		free(key);
		free(lev);
		free(q);
		return -1;
	}
	/* Breadth-first from the hosts. */
	for (u = 0; u < f->nnodes; u++) {
		lev[u] = UINT32_MAX;
		if (!ibf_node_is_switch(f, u)) {
			lev[u] = 0;
			q[qt++] = u;
		}
	}
	while (qh < qt) {
		const ibf_node_t *nd = &f->nodes[q[qh]];
		unsigned k;

		for (k = 1; k <= nd->nports; k++) {
			ibf_port_id_t pp = f->ports[nd->first_port + k].peer;
			ibf_node_id_t v;

			if (pp == IBF_NO_ID)
				continue;
			v = f->ports[pp].node;
			if (lev[v] == UINT32_MAX) {
				lev[v] = lev[q[qh]] + 1;
				q[qt++] = v;
			}
		}
		qh++;
	}
	for (c = 0; c < nc; c++) {
		ibf_port_id_t p = cols->col_port[c];
		uint32_t lu = lev[f->ports[p].node];
		uint32_t lv = lev[f->ports[f->ports[p].peer].node];
		uint64_t lo = lu < lv ? lu : lv, up = lv > lu;

		if (c < cols->nhostcols || lo > 1000)
			lo = 0;
		key[c] = ((1023 - lo) << 40) | (up << 39) | c;
	}
	qsort(key, nc, sizeof(*key), cmp_u64);
	for (c = 0; c < nc; c++)
		perm[key[c] & cmask] = c;
	free(key);
	free(lev);
	free(q);
	return 0;
}

